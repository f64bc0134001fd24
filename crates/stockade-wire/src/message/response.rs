//! Responses, worker to parent: Ready, Print, Output, Call, Lookup,
//! Complete, Error, Fatal, Await, Image, Restored, Clock and OsCall, how each is written and read, and how to tell
//! which one a frame holds from its first bytes alone.

use crate::codec::{Code, Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::exception::{GuestException, MAX_TRACEBACK};
use crate::limits::WireLimits;
use crate::output::{MAX_MIME_TYPE, MAX_OUTPUT_TEXT, Output};
use crate::sandbox::{SandboxReport, read_report, write_report};
use crate::value::Value;

use super::{
    MAX_FATAL, MAX_LABEL, MAX_LISTED_CALLS, MAX_NAME, check_payload, finish_frame,
    read_named_values, read_readings, start_frame, tag, write_label, write_named_values,
    write_readings,
};

/// Output stream of a Print message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrintStream {
    Stdout,
    Stderr,
}

/// What kind of failure an Error reply reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The guest raised an exception it did not catch; the session lives.
    Exception,
    /// The code did not parse or compile.
    Syntax,
    /// The cumulative `max_duration` ran out; the session stays out of time.
    Timeout,
    /// The interpreter's own memory check refused the guest.
    Memory,
    /// The request was malformed or out of turn; the session lives.
    Protocol,
    /// A value could not be carried (too deep, too large); the session lives.
    Conversion,
}

impl Code for PrintStream {
    const WHAT: &'static str = "print stream";
    const MEMBERS: &'static [Self] = &[PrintStream::Stdout, PrintStream::Stderr];

    fn code(self) -> u8 {
        match self {
            PrintStream::Stdout => 0,
            PrintStream::Stderr => 1,
        }
    }
}

impl Code for ErrorKind {
    const WHAT: &'static str = "error kind";
    const MEMBERS: &'static [Self] = &[
        ErrorKind::Exception,
        ErrorKind::Syntax,
        ErrorKind::Timeout,
        ErrorKind::Memory,
        ErrorKind::Protocol,
        ErrorKind::Conversion,
    ];

    fn code(self) -> u8 {
        match self {
            ErrorKind::Exception => 0,
            ErrorKind::Syntax => 1,
            ErrorKind::Timeout => 2,
            ErrorKind::Memory => 3,
            ErrorKind::Protocol => 4,
            ErrorKind::Conversion => 5,
        }
    }
}

/// What a worker says about itself in Ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub protocol_version: u32,
    pub worker_version: String,
    pub engine: String,
    /// Which OS sandbox layers are in force in the worker.
    pub sandbox: SandboxReport,
}

/// A message from the worker to the parent.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Configure was accepted; the worker is ready for Feed.
    Ready(WorkerInfo),
    /// Guest output, in order, between the turn's other messages.
    Print { stream: PrintStream, text: String },
    /// The guest called a host function; the parent answers with Resume.
    Call {
        elapsed_us: u64,
        call_id: u32,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    /// The guest referenced a name it never defined; the parent answers with LookupReply.
    Lookup { elapsed_us: u64, name: String },
    /// The feed finished with this value (`None` when no trailing expression).
    Complete { elapsed_us: u64, value: Value },
    /// The feed failed.
    Error {
        elapsed_us: u64,
        kind: ErrorKind,
        exception: GuestException,
        traceback: String,
    },
    /// The worker cannot go on and exits non-zero after sending this.
    Fatal { message: String },
    /// Every guest task waits on these pending calls; the parent answers
    /// with Resolve for one or more of them.
    Await { elapsed_us: u64, call_ids: Vec<u32> },
    /// The session serialised, answering Snapshot: bytes only the same
    /// engine at the same version reads back (protocol 4).
    Image { elapsed_us: u64, image: Vec<u8> },
    /// The session an Image held is in place, answering Restore, or the
    /// clock readings a Replay gave, answering Replay (protocol 4).
    Restored { elapsed_us: u64 },
    /// The clock readings the feed has made, in order, sent before its end
    /// by a worker told to report them (protocol 4).
    Clock { readings_ms: Vec<f64> },
    /// The guest asked the operating system for something (a file, the
    /// environment, the time), named as monty names its OS calls
    /// (`Path.read_text`, `open`, `os.getenv`, ...); the parent answers
    /// with OsReply (protocol 4).
    OsCall {
        elapsed_us: u64,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    /// A rich output the guest showed, in order with its Prints (protocol
    /// 6; a worker sends it only to a parent that declared 6 or later).
    Output(Output),
}

impl Response {
    /// An Error reply: the feed ended with `exception`, for the reason
    /// `kind` names, and no traceback.
    pub fn error(elapsed_us: u64, kind: ErrorKind, exception: GuestException) -> Self {
        Response::Error {
            elapsed_us,
            kind,
            exception,
            traceback: String::new(),
        }
    }

    /// An Error reply for a malformed or out-of-turn request: kind
    /// Protocol, a RuntimeError whose message starts `protocol violation:`.
    pub fn protocol_violation(elapsed_us: u64, detail: &str) -> Self {
        Self::error(
            elapsed_us,
            ErrorKind::Protocol,
            GuestException::new("RuntimeError", &format!("protocol violation: {detail}")),
        )
    }

    fn tag(&self) -> u8 {
        match self {
            Response::Ready(_) => tag::READY,
            Response::Print { .. } => tag::PRINT,
            Response::Call { .. } => tag::CALL,
            Response::Lookup { .. } => tag::LOOKUP,
            Response::Complete { .. } => tag::COMPLETE,
            Response::Error { .. } => tag::ERROR,
            Response::Fatal { .. } => tag::FATAL,
            Response::Await { .. } => tag::AWAIT,
            Response::Image { .. } => tag::IMAGE,
            Response::Restored { .. } => tag::RESTORED,
            Response::Clock { .. } => tag::CLOCK,
            Response::OsCall { .. } => tag::OS_CALL,
            Response::Output(_) => tag::OUTPUT,
        }
    }

    /// The message's name, for reports of what arrived out of turn.
    pub fn name(&self) -> &'static str {
        match self {
            Response::Ready(_) => "Ready",
            Response::Print { .. } => "Print",
            Response::Call { .. } => "Call",
            Response::Lookup { .. } => "Lookup",
            Response::Complete { .. } => "Complete",
            Response::Error { .. } => "Error",
            Response::Fatal { .. } => "Fatal",
            Response::Await { .. } => "Await",
            Response::Image { .. } => "Image",
            Response::Restored { .. } => "Restored",
            Response::Clock { .. } => "Clock",
            Response::OsCall { .. } => "OsCall",
            Response::Output(_) => "Output",
        }
    }

    /// The worker's consumed execution time, on the replies that carry it.
    pub fn elapsed_us(&self) -> Option<u64> {
        match self {
            Response::Call { elapsed_us, .. }
            | Response::Lookup { elapsed_us, .. }
            | Response::Complete { elapsed_us, .. }
            | Response::Error { elapsed_us, .. }
            | Response::Await { elapsed_us, .. }
            | Response::OsCall { elapsed_us, .. }
            | Response::Image { elapsed_us, .. }
            | Response::Restored { elapsed_us } => Some(*elapsed_us),
            _ => None,
        }
    }
}

/// What the first bytes of a response say: enough to answer a frame that
/// was too large to decode (the host skips it and keeps the session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseHead {
    /// A feed's result.
    Complete,
    /// A host-function call: its id, and its name when the bytes held it whole.
    Call { call_id: u32, name: Option<String> },
    /// An OS call, and its name when the bytes held it whole.
    OsCall { name: Option<String> },
    /// Any other message (by name), or bytes that name none.
    Other(&'static str),
}

/// Reads the head of a response from the first bytes of its payload
/// (`SKIPPED_HEAD_LEN` of them is always enough); nothing past the head is
/// looked at, so this works on a frame that was never buffered whole.
pub fn peek_response_head(prefix: &[u8]) -> ResponseHead {
    let limits = WireLimits::default();
    let mut r = Reader::new(prefix, &limits);
    match r.u8() {
        Ok(tag::COMPLETE) => ResponseHead::Complete,
        Ok(tag::CALL) => {
            let Ok(call_id) = r.u64().and_then(|_| r.u32()) else {
                return ResponseHead::Other("a cut Call");
            };
            ResponseHead::Call {
                call_id,
                name: r.str_capped("function name", MAX_NAME).ok(),
            }
        }
        Ok(tag::OS_CALL) => {
            if r.u64().is_err() {
                return ResponseHead::Other("a cut OsCall");
            }
            ResponseHead::OsCall {
                name: r.str_capped("OS call name", MAX_NAME).ok(),
            }
        }
        Ok(tag::READY) => ResponseHead::Other("Ready"),
        Ok(tag::PRINT) => ResponseHead::Other("Print"),
        Ok(tag::LOOKUP) => ResponseHead::Other("Lookup"),
        Ok(tag::ERROR) => ResponseHead::Other("Error"),
        Ok(tag::FATAL) => ResponseHead::Other("Fatal"),
        Ok(tag::AWAIT) => ResponseHead::Other("Await"),
        Ok(tag::IMAGE) => ResponseHead::Other("Image"),
        Ok(tag::RESTORED) => ResponseHead::Other("Restored"),
        Ok(tag::CLOCK) => ResponseHead::Other("Clock"),
        Ok(tag::OUTPUT) => ResponseHead::Other("Output"),
        _ => ResponseHead::Other("an unknown message"),
    }
}

/// Encodes a response as a whole frame (header included).
pub fn encode_response(response: &Response, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    w.u8(response.tag());
    // Every reply that ends or suspends a turn carries the guest's time first.
    if let Some(elapsed_us) = response.elapsed_us() {
        w.u64(elapsed_us);
    }
    match response {
        Response::Ready(info) => {
            w.u32(info.protocol_version);
            write_label(&mut w, &info.worker_version, MAX_LABEL, "worker version")?;
            write_label(&mut w, &info.engine, MAX_LABEL, "engine")?;
            write_report(&mut w, &info.sandbox)?;
        }
        Response::Print { stream, text } => {
            w.closed(*stream);
            w.str(text)?;
        }
        Response::Call {
            call_id,
            name,
            args,
            kwargs,
            ..
        } => {
            w.u32(*call_id);
            write_label(&mut w, name, MAX_NAME, "function name")?;
            write_arguments(&mut w, args, kwargs)?;
        }
        Response::OsCall {
            name, args, kwargs, ..
        } => {
            write_label(&mut w, name, MAX_NAME, "OS call name")?;
            write_arguments(&mut w, args, kwargs)?;
        }
        Response::Lookup { name, .. } => write_label(&mut w, name, MAX_NAME, "name")?,
        Response::Complete { value, .. } => w.root_value(value)?,
        Response::Error {
            kind,
            exception,
            traceback,
            ..
        } => {
            w.closed(*kind);
            w.exception(exception)?;
            write_label(&mut w, traceback, MAX_TRACEBACK, "traceback")?;
        }
        Response::Await { call_ids, .. } => {
            w.list(call_ids, MAX_LISTED_CALLS, "awaited calls", |w, id| {
                w.u32(*id);
                Ok(())
            })?
        }
        Response::Fatal { message } => write_label(&mut w, message, MAX_FATAL, "fatal message")?,
        Response::Image { image, .. } => w.bytes(image)?,
        Response::Restored { .. } => {}
        Response::Clock { readings_ms } => write_readings(&mut w, readings_ms)?,
        Response::Output(output) => {
            if !Output::valid_mime_type(&output.mime_type) {
                return Err(EncodeError::Invalid(format!(
                    "an output's MIME type must be type/subtype, at most {MAX_MIME_TYPE} bytes"
                )));
            }
            write_label(&mut w, &output.mime_type, MAX_MIME_TYPE, "MIME type")?;
            write_label(&mut w, &output.text, MAX_OUTPUT_TEXT, "output text")?;
            w.bytes(&output.data)?;
        }
    }
    finish_frame(w, limits)
}

/// A call's positional and keyword arguments.
fn write_arguments(
    w: &mut Writer,
    args: &[Value],
    kwargs: &[(String, Value)],
) -> Result<(), EncodeError> {
    w.u32(
        u32::try_from(args.len()).map_err(|_| EncodeError::Invalid("too many arguments".into()))?,
    );
    for arg in args {
        w.root_value(arg)?;
    }
    write_named_values(w, kwargs)
}

/// A call's positional and keyword arguments, as read.
type Arguments = (Vec<Value>, Vec<(String, Value)>);

fn read_arguments(r: &mut Reader<'_>) -> Result<Arguments, DecodeError> {
    let count = r.u32()? as usize;
    let mut args = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        args.push(r.root_value()?);
    }
    Ok((args, read_named_values(r)?))
}

/// Decodes a response payload (the frame without its header).
pub fn decode_response(payload: &[u8], limits: &WireLimits) -> Result<Response, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let t = r.u8()?;
    let elapsed_us = match t {
        tag::CALL
        | tag::OS_CALL
        | tag::LOOKUP
        | tag::COMPLETE
        | tag::ERROR
        | tag::AWAIT
        | tag::IMAGE
        | tag::RESTORED => r.u64()?,
        _ => 0,
    };
    let response = match t {
        tag::READY => Response::Ready(WorkerInfo {
            protocol_version: r.u32()?,
            worker_version: r.str_capped("worker version", MAX_LABEL)?,
            engine: r.str_capped("engine", MAX_LABEL)?,
            sandbox: read_report(&mut r)?,
        }),
        tag::PRINT => Response::Print {
            stream: r.closed()?,
            text: r.str()?,
        },
        tag::CALL => {
            let call_id = r.u32()?;
            let name = r.str_capped("function name", MAX_NAME)?;
            let (args, kwargs) = read_arguments(&mut r)?;
            Response::Call {
                elapsed_us,
                call_id,
                name,
                args,
                kwargs,
            }
        }
        tag::OS_CALL => {
            let name = r.str_capped("OS call name", MAX_NAME)?;
            let (args, kwargs) = read_arguments(&mut r)?;
            Response::OsCall {
                elapsed_us,
                name,
                args,
                kwargs,
            }
        }
        tag::LOOKUP => Response::Lookup {
            elapsed_us,
            name: r.str_capped("name", MAX_NAME)?,
        },
        tag::COMPLETE => Response::Complete {
            elapsed_us,
            value: r.root_value()?,
        },
        tag::ERROR => Response::Error {
            elapsed_us,
            kind: r.closed()?,
            exception: r.exception()?,
            traceback: r.str_capped("traceback", MAX_TRACEBACK)?,
        },
        tag::AWAIT => Response::Await {
            elapsed_us,
            call_ids: r.list(MAX_LISTED_CALLS, "awaited calls", Reader::u32)?,
        },
        tag::FATAL => Response::Fatal {
            message: r.str_capped("fatal message", MAX_FATAL)?,
        },
        tag::IMAGE => Response::Image {
            elapsed_us,
            image: r.bytes()?,
        },
        tag::RESTORED => Response::Restored { elapsed_us },
        tag::CLOCK => Response::Clock {
            readings_ms: read_readings(&mut r)?,
        },
        tag::OUTPUT => {
            let at = r.position();
            let mime_type = r.str_capped("MIME type", MAX_MIME_TYPE)?;
            if !Output::valid_mime_type(&mime_type) {
                return Err(DecodeError::Invalid {
                    what: "MIME type",
                    at,
                    detail: format!("{mime_type:?} is not type/subtype"),
                });
            }
            Response::Output(Output {
                mime_type,
                text: r.str_capped("output text", MAX_OUTPUT_TEXT)?,
                data: r.bytes()?,
            })
        }
        tag => return Err(DecodeError::UnknownMessage { tag }),
    };
    r.finish()?;
    Ok(response)
}
