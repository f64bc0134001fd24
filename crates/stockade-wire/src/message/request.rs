//! Requests, parent to worker: Configure, Feed, Resume, LookupReply,
//! Resolve, Snapshot, Restore, Replay and Close, and how each is written
//! and read.

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::exception::{GuestException, MAX_EXCEPTION_MESSAGE};
use crate::limits::WireLimits;
use crate::sandbox::SandboxMode;
use crate::value::Value;

use super::configure::{self, ConfigureLimits, EngineConfig};
use super::{
    MAX_LABEL, MAX_LISTED_CALLS, MAX_NAME, check_payload, finish_frame, read_named_values,
    read_readings, start_frame, tag, write_label, write_named_values, write_readings,
};

/// The host's answer to a host function call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The function returned this value.
    Return(Value),
    /// The function raised; the guest sees this exception.
    Raise(GuestException),
    /// The host ends the feed here (a host-enforced limit): the guest gets an
    /// uncatchable RuntimeError with this message.
    Abort(String),
    /// The function runs on: the guest gets a future to await, and the
    /// outcome comes later in Resolve.
    Pending,
}

/// The host's answer to a lookup of a name the guest left undefined.
#[derive(Debug, Clone, PartialEq)]
pub enum LookupOutcome {
    /// The name is bound to this value.
    Value(Value),
    /// The name is a host function; calling it suspends as a Call.
    Function,
    /// The host does not know the name either: the guest gets a NameError.
    Undefined,
    /// The host ends the feed here, as [`CallOutcome::Abort`] does.
    Abort(String),
}

/// A message from the parent to the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// First message of a connection. Its first five bytes (tag, version) are
    /// fixed in every protocol version so that any worker can read them.
    Configure {
        protocol_version: u32,
        package_version: String,
        /// The engine to run, with its own configuration.
        engine: EngineConfig,
        sandbox: SandboxMode,
        limits: ConfigureLimits,
        /// A seccomp policy fingerprint an earlier worker's Ready reported:
        /// a worker whose policy matches skips its test-fire.
        verified_seccomp: Option<u64>,
    },
    /// Run a snippet after binding `inputs` as globals. `functions` names
    /// every host function the guest may call; the worker may install them
    /// without a Lookup.
    Feed {
        code: String,
        inputs: Vec<(String, Value)>,
        functions: Vec<String>,
    },
    /// Answer the pending Call with the same `call_id`.
    Resume { call_id: u32, outcome: CallOutcome },
    /// Answer the pending Lookup.
    LookupReply(LookupOutcome),
    /// End the session; the worker exits 0.
    Close,
    /// Outcomes of pending calls, answering Await. Pending is not a valid
    /// outcome here.
    Resolve { results: Vec<(u32, CallOutcome)> },
    /// Serialise the session between feeds; the worker answers Image, or
    /// Error when its engine cannot (protocol 4).
    Snapshot,
    /// Replace the fresh session with one an Image held, before any Feed,
    /// with the host functions the guest may call (as Feed lists them); the
    /// worker answers Restored, or goes on with the feed the image was
    /// suspended in (protocol 4).
    Restore {
        image: Vec<u8>,
        functions: Vec<String>,
    },
    /// The next feed's clock readings, in the order it reads the clock (a
    /// journal's replay); the worker answers Restored (protocol 4).
    Replay { clock_ms: Vec<f64> },
    /// Between feeds: a journaled session's randomness goes on from a
    /// stream keyed by this seed too (protocol 4), so that two restores of
    /// one dump draw different numbers from then on. Answered by Restored.
    Reseed { seed: u64 },
    /// What an OsCall gets: the operation's value, or the exception it
    /// raises in the guest (protocol 4). Abort ends the feed; Pending is
    /// not an answer to an OsCall.
    OsReply(CallOutcome),
}

impl Request {
    fn tag(&self) -> u8 {
        match self {
            Request::Configure { .. } => tag::CONFIGURE,
            Request::Feed { .. } => tag::FEED,
            Request::Resume { .. } => tag::RESUME,
            Request::LookupReply(_) => tag::LOOKUP_REPLY,
            Request::Close => tag::CLOSE,
            Request::Resolve { .. } => tag::RESOLVE,
            Request::Snapshot => tag::SNAPSHOT,
            Request::Restore { .. } => tag::RESTORE,
            Request::Replay { .. } => tag::REPLAY,
            Request::Reseed { .. } => tag::RESEED,
            Request::OsReply(_) => tag::OS_REPLY,
        }
    }

    /// The message's name, for reports of what arrived out of turn.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Configure { .. } => "Configure",
            Request::Feed { .. } => "Feed",
            Request::Resume { .. } => "Resume",
            Request::LookupReply(_) => "LookupReply",
            Request::Close => "Close",
            Request::Resolve { .. } => "Resolve",
            Request::Snapshot => "Snapshot",
            Request::Restore { .. } => "Restore",
            Request::Replay { .. } => "Replay",
            Request::Reseed { .. } => "Reseed",
            Request::OsReply(_) => "OsReply",
        }
    }
}

fn write_call_outcome(w: &mut Writer, outcome: &CallOutcome) -> Result<(), EncodeError> {
    match outcome {
        CallOutcome::Return(value) => {
            w.u8(0);
            w.root_value(value)
        }
        CallOutcome::Raise(exc) => {
            w.u8(1);
            w.exception(exc)
        }
        CallOutcome::Abort(message) => {
            w.u8(2);
            write_label(w, message, MAX_EXCEPTION_MESSAGE, "abort message")
        }
        CallOutcome::Pending => {
            w.u8(3);
            Ok(())
        }
    }
}

fn read_call_outcome(r: &mut Reader<'_>) -> Result<CallOutcome, DecodeError> {
    Ok(
        match r.code("call outcome", |code| (code <= 3).then_some(code))? {
            0 => CallOutcome::Return(r.root_value()?),
            1 => CallOutcome::Raise(r.exception()?),
            2 => CallOutcome::Abort(r.str_capped("abort message", MAX_EXCEPTION_MESSAGE)?),
            _ => CallOutcome::Pending,
        },
    )
}

/// Encodes a request as a whole frame (header included).
pub fn encode_request(request: &Request, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    w.u8(request.tag());
    match request {
        Request::Configure {
            protocol_version,
            package_version,
            engine,
            sandbox,
            limits,
            verified_seccomp,
        } => {
            w.u32(*protocol_version);
            write_label(&mut w, package_version, MAX_LABEL, "package version")?;
            configure::write_setup(&mut w, engine, *sandbox, limits);
            configure::write_engine_config(&mut w, engine, *protocol_version)?;
            w.opt_u64(*verified_seccomp);
        }
        Request::Feed {
            code,
            inputs,
            functions,
        } => {
            w.str(code)?;
            write_named_values(&mut w, inputs)?;
            w.list(functions, MAX_LISTED_CALLS, "host functions", |w, name| {
                write_label(w, name, MAX_NAME, "function name")
            })?;
        }
        Request::Resume { call_id, outcome } => {
            w.u32(*call_id);
            write_call_outcome(&mut w, outcome)?;
        }
        Request::Resolve { results } => {
            w.list(
                results,
                MAX_LISTED_CALLS,
                "resolved calls",
                |w, (call_id, outcome)| {
                    w.u32(*call_id);
                    write_call_outcome(w, outcome)
                },
            )?;
        }
        Request::LookupReply(outcome) => match outcome {
            LookupOutcome::Value(value) => {
                w.u8(0);
                w.root_value(value)?;
            }
            LookupOutcome::Function => w.u8(1),
            LookupOutcome::Undefined => w.u8(2),
            LookupOutcome::Abort(message) => {
                w.u8(3);
                write_label(&mut w, message, MAX_EXCEPTION_MESSAGE, "abort message")?;
            }
        },
        Request::Restore { image, functions } => {
            w.bytes(image)?;
            w.list(functions, MAX_LISTED_CALLS, "host functions", |w, name| {
                write_label(w, name, MAX_NAME, "function name")
            })?;
        }
        Request::Replay { clock_ms } => write_readings(&mut w, clock_ms)?,
        Request::Reseed { seed } => w.u64(*seed),
        Request::OsReply(outcome) => {
            if matches!(outcome, CallOutcome::Pending) {
                return Err(EncodeError::Invalid(
                    "an OS call cannot be left pending".into(),
                ));
            }
            write_call_outcome(&mut w, outcome)?;
        }
        Request::Close | Request::Snapshot => {}
    }
    finish_frame(w, limits)
}

/// Whether a request payload is a Close, by its tag alone.
pub fn is_close_request(payload: &[u8]) -> bool {
    payload.first() == Some(&tag::CLOSE)
}

/// Whether a request payload is a Feed, by its tag alone.
pub fn is_feed_request(payload: &[u8]) -> bool {
    payload.first() == Some(&tag::FEED)
}

/// Reads the protocol version from a Configure payload without decoding the
/// rest, which may be laid out differently by another version.
pub fn peek_configure_version(payload: &[u8]) -> Option<u32> {
    match payload {
        [tag::CONFIGURE, a, b, c, d, ..] => Some(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

/// Decodes a request payload (the frame without its header).
pub fn decode_request(payload: &[u8], limits: &WireLimits) -> Result<Request, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let t = r.u8()?;
    let request = match t {
        tag::CONFIGURE => {
            let protocol_version = r.u32()?;
            let package_version = r.str_capped("package version", MAX_LABEL)?;
            let (interpreter, sandbox, limits) = configure::read_setup(&mut r)?;
            // In wire order: the engine's configuration, then the fingerprint.
            Request::Configure {
                engine: configure::read_engine_config(&mut r, interpreter, protocol_version)?,
                verified_seccomp: r.opt_u64()?,
                protocol_version,
                package_version,
                sandbox,
                limits,
            }
        }
        tag::FEED => {
            let code = r.str()?;
            let inputs = read_named_values(&mut r)?;
            Request::Feed {
                code,
                inputs,
                functions: r.list(MAX_LISTED_CALLS, "host functions", |r| {
                    r.str_capped("function name", MAX_NAME)
                })?,
            }
        }
        tag::RESUME => {
            let call_id = r.u32()?;
            let outcome = read_call_outcome(&mut r)?;
            Request::Resume { call_id, outcome }
        }
        tag::RESOLVE => Request::Resolve {
            results: r.list(MAX_LISTED_CALLS, "resolved calls", |r| {
                Ok((r.u32()?, read_call_outcome(r)?))
            })?,
        },
        tag::LOOKUP_REPLY => Request::LookupReply(
            match r.code("lookup outcome", |code| (code <= 3).then_some(code))? {
                0 => LookupOutcome::Value(r.root_value()?),
                1 => LookupOutcome::Function,
                2 => LookupOutcome::Undefined,
                _ => LookupOutcome::Abort(r.str_capped("abort message", MAX_EXCEPTION_MESSAGE)?),
            },
        ),
        tag::CLOSE => Request::Close,
        tag::SNAPSHOT => Request::Snapshot,
        tag::REPLAY => Request::Replay {
            clock_ms: read_readings(&mut r)?,
        },
        tag::RESEED => Request::Reseed { seed: r.u64()? },
        tag::OS_REPLY => {
            let at = r.position();
            match read_call_outcome(&mut r)? {
                CallOutcome::Pending => {
                    return Err(DecodeError::Invalid {
                        what: "OS call outcome",
                        at,
                        detail: "an OS call cannot be left pending".into(),
                    });
                }
                outcome => Request::OsReply(outcome),
            }
        }
        tag::RESTORE => Request::Restore {
            image: r.bytes()?,
            functions: r.list(MAX_LISTED_CALLS, "host functions", |r| {
                r.str_capped("function name", MAX_NAME)
            })?,
        },
        tag => return Err(DecodeError::UnknownMessage { tag }),
    };
    r.finish()?;
    Ok(request)
}
