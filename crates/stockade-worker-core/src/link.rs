//! The worker's side of the connection: reading requests, sending responses,
//! and asking the parent to answer a suspension.

use std::fs::File;
use std::io::BufReader;
use std::os::fd::AsFd;

use stockade_wire::{
    CallOutcome, DecodeError, ErrorKind, LookupOutcome, Request, Response, Value, WireLimits,
    WorkerExit, decode_request, read_frame,
};

use crate::out::Out;
use crate::print::Printer;

/// What ends a suspension other than the answer it waited for.
#[derive(Debug)]
pub enum Interrupt {
    /// The parent closed the session (Close or end of input): exit quietly.
    Closed,
    /// The suspension cannot go on; the feed ends with this error.
    Abort { kind: ErrorKind, message: String },
}

/// A request read from the parent, or why none could be.
// One lives at a time, on the session thread's stack, and most are
// requests: boxing the large one would cost an allocation per message.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Incoming {
    Request(Request),
    /// The frame was well framed but its content was not a valid request.
    Malformed(DecodeError),
    /// Input ended between frames.
    End,
    /// Framing is broken (over-long or cut frame, read error): no resync possible.
    Broken(String),
}

/// Both directions of the connection plus the print buffer.
#[derive(Debug)]
pub struct Link {
    input: BufReader<File>,
    pub out: Out,
    pub printer: Printer,
    limits: WireLimits,
    /// Why the current feed was ended (the host's Abort, a protocol
    /// error): a feed that was ended asks the host for nothing more, so a
    /// guest that catches the error and calls again is refused here. The
    /// host kills a worker that asks after an Abort.
    ended: Option<(ErrorKind, String)>,
}

impl Link {
    /// Connects to the process's own stdin and stdout.
    pub fn stdio(limits: WireLimits) -> std::io::Result<Self> {
        let input = File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
        let output = File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
        Ok(Self::new(input, output, limits))
    }

    /// Connects over `input` and `output` (a worker that moved its link off
    /// stdin and stdout).
    pub fn new(input: File, output: File, limits: WireLimits) -> Self {
        let out = Out::new(output, limits);
        Self {
            input: BufReader::with_capacity(64 * 1024, input),
            printer: Printer::new(
                out.clone(),
                8 * 1024,
                std::time::Duration::from_millis(5),
                u64::MAX,
            ),
            out,
            limits,
            ended: None,
        }
    }

    /// Starts a feed: its output is counted afresh and it may ask the host.
    pub fn start_feed(&mut self) {
        self.printer.start_feed();
        self.ended = None;
    }

    /// Sends `announcement` and reads the parent's answer through
    /// `answer`, unless the feed was already ended (then it fails at once);
    /// an interruption that ends the feed is remembered.
    fn ask<T>(
        &mut self,
        announcement: Response,
        image: Imager<'_>,
        answer: impl FnOnce(Request) -> Result<T, Interrupt>,
    ) -> Result<T, Interrupt> {
        if let Some((kind, message)) = &self.ended {
            return Err(Interrupt::Abort {
                kind: *kind,
                message: message.clone(),
            });
        }
        let elapsed_us = announcement.elapsed_us().unwrap_or(0);
        let answered = self
            .announce(&announcement)
            .and_then(|()| self.await_answer_imaging(elapsed_us, image))
            .and_then(answer);
        if let Err(Interrupt::Abort { kind, message }) = &answered {
            self.ended = Some((*kind, message.clone()));
        }
        answered
    }

    pub fn read_frame(&mut self) -> Result<Option<Vec<u8>>, String> {
        read_frame(&mut self.input, &self.limits).map_err(|e| e.to_string())
    }

    pub fn read(&mut self) -> Incoming {
        match self.read_frame() {
            Ok(None) => Incoming::End,
            Err(err) => Incoming::Broken(err),
            Ok(Some(payload)) => match decode_request(&payload, &self.limits) {
                Ok(request) => Incoming::Request(request),
                Err(err) => Incoming::Malformed(err),
            },
        }
    }

    pub fn flush_prints(&mut self) {
        self.printer.flush();
    }

    /// Sends a suspension announcement; a value too large for the wire
    /// aborts the feed rather than the worker.
    fn announce(&mut self, response: &Response) -> Result<(), Interrupt> {
        self.flush_prints();
        self.out.send(response).map_err(|err| Interrupt::Abort {
            kind: ErrorKind::Conversion,
            message: format!("cannot send the call to the host: {err}"),
        })
    }

    /// Waits for the parent's next request while a feed is suspended.
    fn await_answer(&mut self) -> Result<Request, Interrupt> {
        match self.read() {
            Incoming::Request(Request::Close) | Incoming::End => Err(Interrupt::Closed),
            Incoming::Request(request) => Ok(request),
            Incoming::Malformed(err) => Err(Interrupt::Abort {
                kind: ErrorKind::Protocol,
                message: format!("protocol violation: malformed request: {err}"),
            }),
            Incoming::Broken(err) => {
                crate::note(format_args!("broken input: {err}"));
                crate::exit_now(WorkerExit::Protocol);
            }
        }
    }

    /// Waits for the answer to a suspension; a Snapshot meanwhile is
    /// answered with `image`'s bytes (the suspended session) and the wait
    /// goes on. An engine that cannot image its suspension refuses, and the
    /// feed ends.
    fn await_answer_imaging(
        &mut self,
        elapsed_us: u64,
        image: Imager<'_>,
    ) -> Result<Request, Interrupt> {
        loop {
            let request = self.await_answer()?;
            if !matches!(request, Request::Snapshot) {
                return Ok(request);
            }
            let made = image().map_err(|why| Interrupt::Abort {
                kind: ErrorKind::Protocol,
                message: format!("protocol violation: Snapshot refused while suspended: {why}"),
            })?;
            self.out
                .send(&Response::Image {
                    elapsed_us,
                    image: made,
                })
                .map_err(|err| Interrupt::Abort {
                    kind: ErrorKind::Conversion,
                    message: format!("cannot send the session's image: {err}"),
                })?;
        }
    }

    /// Asks the parent to run a host function and waits for its outcome.
    pub fn call(
        &mut self,
        elapsed_us: u64,
        call_id: u32,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<CallOutcome, Interrupt> {
        self.call_imaging(elapsed_us, call_id, name, args, kwargs, &mut no_image)
    }

    /// As `call`, serving Snapshots of the suspended session meanwhile.
    pub fn call_imaging(
        &mut self,
        elapsed_us: u64,
        call_id: u32,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        image: Imager<'_>,
    ) -> Result<CallOutcome, Interrupt> {
        let call = Response::Call {
            elapsed_us,
            call_id,
            name,
            args,
            kwargs,
        };
        self.ask(call, image, |reply| match reply {
            // The host's abort ends the feed like any other interruption.
            Request::Resume {
                call_id: answered,
                outcome: CallOutcome::Abort(message),
            } if answered == call_id => Err(aborted(message)),
            Request::Resume {
                call_id: answered,
                outcome,
            } if answered == call_id => Ok(outcome),
            other => Err(out_of_turn(&format!("a Resume for call {call_id}"), &other)),
        })
    }

    /// Asks the parent what an undefined name means.
    pub fn lookup(&mut self, elapsed_us: u64, name: String) -> Result<LookupOutcome, Interrupt> {
        self.lookup_imaging(elapsed_us, name, &mut no_image)
    }

    /// As `lookup`, serving Snapshots of the suspended session meanwhile.
    pub fn lookup_imaging(
        &mut self,
        elapsed_us: u64,
        name: String,
        image: Imager<'_>,
    ) -> Result<LookupOutcome, Interrupt> {
        self.ask(
            Response::Lookup { elapsed_us, name },
            image,
            |reply| match reply {
                // The host's abort ends the feed like any other interruption.
                Request::LookupReply(LookupOutcome::Abort(message)) => Err(aborted(message)),
                Request::LookupReply(outcome) => Ok(outcome),
                other => Err(out_of_turn("a LookupReply", &other)),
            },
        )
    }

    /// Tells the parent every guest task waits on `call_ids`, and waits for
    /// the outcomes of one or more of them.
    pub fn await_calls(
        &mut self,
        elapsed_us: u64,
        call_ids: Vec<u32>,
    ) -> Result<Vec<(u32, CallOutcome)>, Interrupt> {
        self.await_calls_imaging(elapsed_us, call_ids, &mut no_image)
    }

    /// As `await_calls`, serving Snapshots of the suspended session meanwhile.
    pub fn await_calls_imaging(
        &mut self,
        elapsed_us: u64,
        call_ids: Vec<u32>,
        image: Imager<'_>,
    ) -> Result<Vec<(u32, CallOutcome)>, Interrupt> {
        let waiting = Response::Await {
            elapsed_us,
            call_ids,
        };
        self.ask(waiting, image, |reply| {
            let Request::Resolve { results } = reply else {
                return Err(out_of_turn("a Resolve", &reply));
            };
            if let Some((_, CallOutcome::Abort(message))) = results
                .iter()
                .find(|(_, o)| matches!(o, CallOutcome::Abort(_)))
            {
                return Err(aborted(message.clone()));
            }
            if results.is_empty()
                || results
                    .iter()
                    .any(|(_, o)| matches!(o, CallOutcome::Pending))
            {
                return Err(Interrupt::Abort {
                    kind: ErrorKind::Protocol,
                    message: "protocol violation: a Resolve must carry at least one final outcome, and no Pending".into(),
                });
            }
            Ok(results)
        })
    }
}

impl Link {
    /// Asks the parent to serve an OS call (a file, the environment, the
    /// time) and waits for its OsReply, serving Snapshots of the suspended
    /// session meanwhile.
    pub fn os_call_imaging(
        &mut self,
        elapsed_us: u64,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        image: Imager<'_>,
    ) -> Result<CallOutcome, Interrupt> {
        let call = Response::OsCall {
            elapsed_us,
            name,
            args,
            kwargs,
        };
        self.ask(call, image, |reply| match reply {
            Request::OsReply(CallOutcome::Abort(message)) => Err(aborted(message)),
            Request::OsReply(outcome) => Ok(outcome),
            other => Err(out_of_turn("an OsReply", &other)),
        })
    }

    /// As `os_call_imaging`, for an engine that cannot image itself.
    pub fn os_call(
        &mut self,
        elapsed_us: u64,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<CallOutcome, Interrupt> {
        self.os_call_imaging(elapsed_us, name, args, kwargs, &mut no_image)
    }
}

/// Makes the image of a suspended session, for a Snapshot that arrives
/// while it waits (or says why it cannot).
pub type Imager<'a> = &'a mut dyn FnMut() -> Result<Vec<u8>, String>;

/// The imager of an engine whose suspensions cannot be imaged.
fn no_image() -> Result<Vec<u8>, String> {
    Err("this engine cannot serialise a suspended session".into())
}

/// The host ended the feed: the guest gets `message` as an uncatchable
/// RuntimeError, the host an Error of kind Exception.
fn aborted(message: String) -> Interrupt {
    Interrupt::Abort {
        kind: ErrorKind::Exception,
        message,
    }
}

fn out_of_turn(expected: &str, got: &Request) -> Interrupt {
    Interrupt::Abort {
        kind: ErrorKind::Protocol,
        message: format!(
            "protocol violation: expected {expected} while suspended, got {}",
            got.name()
        ),
    }
}
