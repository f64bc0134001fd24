//! One turn: serving the worker's messages from a Feed until the feed
//! completes or fails, under deadlines the worker's own traffic never moves.
//!
//! The turn's wall clock starts when the Feed is sent. `request_timeout`
//! (and the `max_duration` backstop) count from there, extended only by the
//! time the host spends inside host functions; a reply, a print or a call
//! never resets them. Time serving OS calls (files) is not guest time, so
//! it extends the backstop, but it counts toward `request_timeout`: a
//! guest cannot make the host work on its files for longer than a turn may
//! last. Everything the worker may send is bounded: prints by
//! `max_output_bytes` (an empty one is a broken worker), calls and lookups
//! by `max_host_calls`, OS calls by `request_timeout` and the worker's
//! own guest clock, and once the host has ended a feed (Abort) the
//! worker may only print and report the end: another request kills it.

use std::time::{Duration, Instant};

use stockade_wire::{
    CallOutcome, GuestException, LookupOutcome, MAX_OUTPUTS_PER_FEED, Request, Response,
    ResponseHead, Value, encode_request,
};

use crate::error::Error;
use crate::host::{self, Args, CallPolicy, HostFunction, call_sync};

use super::{Reply, Session, TurnDeadline};

/// Output past `max_output_bytes` the worker may send in one feed: its
/// truncation marker and the rest of the frame that crossed the line.
pub(super) const OUTPUT_SLACK: u64 = 64 * 1024 + 256;

/// Where a turn stopped: something only the host can answer, or the end.
#[derive(Debug)]
pub(super) enum Stop {
    /// The guest called a host function and waits for its outcome.
    Call {
        call_id: u32,
        name: String,
        args: Args,
    },
    /// The guest read a name nothing defines.
    Lookup { name: String },
    /// Every guest task waits on these pending calls.
    Await { call_ids: Vec<u32> },
    /// The feed's value.
    Complete(Value),
    /// The guest asked for a file, the environment or the time; only a
    /// replay stops here (it answers from the journal): otherwise the
    /// session's files answer at once.
    OsCall,
}

/// One turn's clock and counts.
#[derive(Debug)]
pub(super) struct Turn {
    started: Instant,
    /// Time spent inside host functions (and waiting on async ones), which
    /// no deadline counts.
    host_time: Duration,
    /// Time spent serving OS calls, which the backstop does not count but
    /// `request_timeout` does.
    os_time: Duration,
    /// Guest time the worker had used before the turn began.
    elapsed_before: Duration,
    calls: u32,
    output: u64,
    /// Outputs the feed has shown.
    shown: u32,
    /// The host ended the feed; the worker may only print and report now.
    aborted: bool,
    /// The most decoded bytes a value from the worker may take this turn.
    result_limit: u64,
}

impl Turn {
    pub(super) fn new(elapsed_before: Duration, result_limit: u64) -> Self {
        Self {
            started: Instant::now(),
            host_time: Duration::ZERO,
            os_time: Duration::ZERO,
            elapsed_before,
            calls: 0,
            output: 0,
            shown: 0,
            aborted: false,
            result_limit,
        }
    }

    pub(super) fn result_limit(&self) -> u64 {
        self.result_limit
    }

    /// Time the host spent on the feed's behalf (a stepped feed's pause),
    /// which no deadline counts.
    pub(super) fn add_host_time(&mut self, spent: Duration) {
        self.host_time += spent;
    }

    /// Host calls and lookups the feed has made.
    pub(super) fn calls(&self) -> u32 {
        self.calls
    }

    /// Starts the count at `calls` (a restored feed's count so far).
    pub(super) fn set_calls(&mut self, calls: u32) {
        self.calls = calls;
    }

    /// The host ended the feed (an Abort went out).
    pub(super) fn abort(&mut self) {
        self.aborted = true;
    }
}

fn host_calls_exceeded(max: u32) -> String {
    format!("max_host_calls exceeded: a feed may make {max} host calls and name lookups")
}

impl Session {
    /// The deadline of the turn's next reply: `request_timeout`, or the
    /// `max_duration` budget left at the turn's start plus grace, whichever
    /// is nearer, both counted from the turn's start plus host time.
    pub(super) fn turn_deadline(&self, turn: &Turn) -> TurnDeadline {
        let base = turn.started + turn.host_time;
        let hard = base + self.options.request_timeout;
        if let Some(max) = self.options.limits.max_duration {
            let backstop = base
                + turn.os_time
                + max.saturating_sub(turn.elapsed_before)
                + self.options.duration_grace;
            if backstop < hard {
                return TurnDeadline {
                    at: backstop,
                    backstop: true,
                };
            }
        }
        TurnDeadline {
            at: hard,
            backstop: false,
        }
    }

    /// Serves the worker's messages until the feed completes or fails,
    /// calling host functions and answering lookups itself.
    pub(super) fn serve_turn(&mut self, mut turn: Turn) -> Result<Value, Error> {
        let policy = CallPolicy {
            max_wait: self.options.max_host_wait,
            redact: self.options.redact_host_errors,
        };
        loop {
            match self.next_stop(&mut turn)? {
                Stop::Call {
                    call_id,
                    name,
                    args,
                } => {
                    let outcome = self.call(&mut turn, &name, call_id, args, &policy)?;
                    self.resume(&mut turn, call_id, &name, outcome)?;
                }
                Stop::Lookup { name } => {
                    let outcome = match self.count_host_call(&mut turn) {
                        Some(abort) => LookupOutcome::Abort(abort),
                        None if self.functions.contains_key(&name) => LookupOutcome::Function,
                        None => match self.globals.get(&name) {
                            Some(value) => LookupOutcome::Value(value.clone()),
                            None => LookupOutcome::Undefined,
                        },
                    };
                    self.answer(&Request::LookupReply(outcome))?;
                }
                Stop::Await { call_ids } => {
                    let started = Instant::now();
                    let results = self.resolve(&call_ids, &policy);
                    turn.host_time += started.elapsed();
                    let results = results?;
                    if results
                        .iter()
                        .any(|(_, outcome)| matches!(outcome, CallOutcome::Abort(_)))
                    {
                        turn.aborted = true;
                    }
                    self.answer(&Request::Resolve { results })?;
                }
                Stop::Complete(value) => return Ok(value),
                Stop::OsCall => {
                    return Err(self.broken("an OS call stopped a turn outside a replay".into()));
                }
            }
        }
    }

    /// The answer to an OS call: the session's mounts, environment and
    /// clock, then the host's `os_handler` for what none of them covers.
    fn serve_os_call(
        &mut self,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> CallOutcome {
        // The CPython engine asks, once, where its guest's mounts are, and
        // whether anything answers the paths outside them.
        if name == "stockade.mounts" {
            let mounts = self
                .options
                .mounts
                .iter()
                .map(|mount| Value::Str(mount.guest_path().to_owned()))
                .collect();
            return CallOutcome::Return(Value::Tuple(vec![
                Value::List(mounts),
                Value::Bool(self.os_handler.is_some()),
            ]));
        }
        let fallback = self
            .os_handler
            .is_some()
            .then(|| (args.clone(), kwargs.clone()));
        let refusal = match self.files().serve(name, args, kwargs) {
            Ok(outcome) => return outcome,
            Err(refusal) => refusal,
        };
        let (Some(handler), Some((positional, keyword))) = (self.os_handler.as_mut(), fallback)
        else {
            return refusal;
        };
        let policy = CallPolicy {
            max_wait: self.options.max_host_wait,
            redact: self.options.redact_host_errors,
        };
        let started = Instant::now();
        let args = Args {
            positional,
            keyword,
        };
        // A panic never unwinds into the session (as for host functions).
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(name, args)))
            .map_err(|_| host::Panicked);
        host::outcome(name, answer, started.elapsed(), &policy)
    }

    /// Sends an OS call's answer; one too large for a frame becomes a
    /// MemoryError the guest meets, so the worker is never left waiting.
    fn answer_os_call(&mut self, outcome: CallOutcome) -> Result<(), Error> {
        match self.answer(&Request::OsReply(outcome)) {
            Err(Error::Conversion(why)) => self.answer(&Request::OsReply(CallOutcome::Raise(
                GuestException::new("MemoryError", &format!("the answer cannot cross: {why}")),
            ))),
            other => other,
        }
    }

    /// The session's mounts, made from its options at its first OS call
    /// (a spare's worker knows nothing of them: they are the host's).
    pub(in crate::session) fn files(&mut self) -> &mut crate::files::SessionFiles {
        let options = &self.options;
        self.files.get_or_insert_with(|| {
            crate::files::SessionFiles::new(
                &options.mounts,
                options.max_file_memory,
                options.environ.clone(),
                options.clock,
                options.host_scratch_bytes(),
            )
        })
    }

    /// Counts one host call or lookup against `max_host_calls`; past it,
    /// the feed is ended and the abort message to send is returned.
    pub(super) fn count_host_call(&mut self, turn: &mut Turn) -> Option<String> {
        turn.calls = turn.calls.saturating_add(1);
        if turn.calls > self.options.max_host_calls {
            turn.aborted = true;
            return Some(host_calls_exceeded(self.options.max_host_calls));
        }
        None
    }

    /// Serves prints (and values too large to take) until the worker
    /// stops at something only the host can answer, or the feed ends.
    pub(super) fn next_stop(&mut self, turn: &mut Turn) -> Result<Stop, Error> {
        // The worker cuts output at max_output_bytes and adds one marker line.
        let output_allowance = self
            .options
            .limits
            .max_output_bytes
            .saturating_add(OUTPUT_SLACK);
        loop {
            let deadline = self.turn_deadline(turn);
            let response = match self.recv_within(deadline, turn.result_limit())? {
                Reply::Message(response) => response,
                Reply::TooLarge { head, encoded } => {
                    if let Some(journal) = &mut self.journal {
                        journal.break_with(
                            "a value from the worker was too large to take, which a replay under other limits would not reproduce",
                        );
                    }
                    self.answer_too_large(turn, head, encoded)?;
                    continue;
                }
            };
            if let Some(us) = response.elapsed_us() {
                // Guest time never runs backwards, whatever the worker says.
                self.elapsed = self.elapsed.max(Duration::from_micros(us));
            }
            if let Some(journal) = &mut self.journal {
                journal.received(&response);
            }
            if turn.aborted
                && matches!(
                    response,
                    Response::Call { .. }
                        | Response::Lookup { .. }
                        | Response::Await { .. }
                        | Response::OsCall { .. }
                )
            {
                return Err(self.broken(format!(
                    "the worker sent a {} after the host ended its feed",
                    response.name()
                )));
            }
            match response {
                Response::Print { stream, text } => {
                    if text.is_empty() {
                        return Err(self.broken("the worker sent an empty Print".into()));
                    }
                    turn.output = turn.output.saturating_add(text.len() as u64);
                    if turn.output > output_allowance {
                        return Err(self.broken(format!(
                            "the worker sent more than max_output_bytes ({}) of output in one feed",
                            self.options.limits.max_output_bytes
                        )));
                    }
                    if let Some(print) = &mut self.print {
                        print(stream, &text);
                    }
                }
                Response::Output(output) => {
                    turn.output = turn.output.saturating_add(output.size());
                    turn.shown = turn.shown.saturating_add(1);
                    if turn.output > output_allowance || turn.shown > MAX_OUTPUTS_PER_FEED {
                        return Err(self.broken(format!(
                            "the worker sent more than max_output_bytes ({}) of output, or more than {MAX_OUTPUTS_PER_FEED} outputs, in one feed",
                            self.options.limits.max_output_bytes
                        )));
                    }
                    self.deliver_output(output);
                }
                Response::Call {
                    call_id,
                    name,
                    args: positional,
                    kwargs: keyword,
                    ..
                } => {
                    let args = Args {
                        positional,
                        keyword,
                    };
                    return Ok(Stop::Call {
                        call_id,
                        name,
                        args,
                    });
                }
                Response::Lookup { name, .. } => return Ok(Stop::Lookup { name }),
                Response::OsCall { .. } if self.replaying => return Ok(Stop::OsCall),
                Response::OsCall {
                    name, args, kwargs, ..
                } => {
                    // The host's work, never the guest's time; but a turn
                    // may not make the host work longer than it may last.
                    let started = Instant::now();
                    let outcome = self.serve_os_call(&name, args, kwargs);
                    turn.os_time += started.elapsed();
                    self.answer_os_call(outcome)?;
                }
                Response::Await { call_ids, .. } => return Ok(Stop::Await { call_ids }),
                Response::Complete { value, .. } => return Ok(Stop::Complete(value)),
                Response::Error {
                    kind,
                    exception,
                    traceback,
                    ..
                } => return Err(self.guest_failure(kind, exception, traceback)),
                Response::Fatal { message } => return Err(self.fatal(message)),
                // Journaled above; nothing more to do with it here.
                Response::Clock { .. } if self.journal.is_some() => {}
                Response::Ready { .. }
                | Response::Image { .. }
                | Response::Restored { .. }
                | Response::Clock { .. } => {
                    return Err(self.broken(format!(
                        "the worker sent {} in the middle of a turn",
                        response.name()
                    )));
                }
            }
        }
    }

    /// Runs (or starts) the host function a Call names and says what the
    /// guest gets; its time is the host's, not the turn's.
    fn call(
        &mut self,
        turn: &mut Turn,
        name: &str,
        call_id: u32,
        args: Args,
        policy: &CallPolicy,
    ) -> Result<CallOutcome, Error> {
        if !self.functions.contains_key(name) {
            if !self.listed.contains(name) {
                return Err(self.broken(format!(
                    "the worker called host function {name:?}, which it was never given"
                )));
            }
            return Ok(CallOutcome::Raise(GuestException::new(
                "NameError",
                &format!("host function {name:?} is no longer available"),
            )));
        }
        if let Some(abort) = self.count_host_call(turn) {
            return Ok(CallOutcome::Abort(abort));
        }
        let Some(function) = self.functions.get_mut(name) else {
            return Ok(CallOutcome::Raise(GuestException::new(
                "NameError",
                &format!("host function {name:?} is no longer available"),
            )));
        };
        Ok(match function {
            HostFunction::Declared => CallOutcome::Raise(GuestException::new(
                "NameError",
                &format!(
                    "host function {name:?} is answered only in a stepped feed (start), not in run"
                ),
            )),
            HostFunction::Sync(call) => {
                let started = Instant::now();
                let answer = call_sync(call, args);
                let took = started.elapsed();
                turn.host_time += took;
                host::outcome(name, answer, took, policy)
            }
            #[cfg(feature = "tokio")]
            HostFunction::Async { start, runtime } => {
                if self.inflight.len() >= self.options.max_inflight_host_calls as usize {
                    turn.aborted = true;
                    CallOutcome::Abort(format!(
                        "max_inflight_host_calls exceeded: at most {} async host calls may be in flight",
                        self.options.max_inflight_host_calls
                    ))
                } else {
                    self.inflight
                        .start(call_id, name.to_owned(), start(args), runtime);
                    CallOutcome::Pending
                }
            }
        })
    }

    /// Sends a call's outcome; a result that cannot cross is raised in the
    /// guest as a TypeError instead.
    fn resume(
        &mut self,
        turn: &mut Turn,
        call_id: u32,
        name: &str,
        outcome: CallOutcome,
    ) -> Result<(), Error> {
        if matches!(outcome, CallOutcome::Abort(_)) {
            turn.aborted = true;
        }
        let resume = Request::Resume { call_id, outcome };
        match encode_request(&resume, &self.wire) {
            Ok(frame) => self.send_request(&resume, &frame),
            Err(err) => self.answer(&Request::Resume {
                call_id,
                outcome: CallOutcome::Raise(GuestException::new(
                    "TypeError",
                    &format!("host function {name:?} returned a value that cannot cross: {err}"),
                )),
            }),
        }
    }

    /// Answers a message whose values were too large to take: a result
    /// ends the turn with `ResultTooLarge` (the session lives, the worker
    /// having nothing more to say), a call's arguments are refused with an
    /// exception the guest can catch; anything else has no business being
    /// that large.
    fn answer_too_large(
        &mut self,
        turn: &mut Turn,
        head: ResponseHead,
        encoded: u64,
    ) -> Result<(), Error> {
        let limit = turn.result_limit();
        match head {
            ResponseHead::Complete => Err(Error::ResultTooLarge { limit }),
            ResponseHead::Call { call_id, name } if !turn.aborted => {
                let outcome = if let Some(abort) = self.count_host_call(turn) {
                    CallOutcome::Abort(abort)
                } else {
                    let named = name.map_or_else(
                        || "a host function".to_owned(),
                        |n| format!("host function {n:?}"),
                    );
                    CallOutcome::Raise(GuestException::new(
                        "ValueError",
                        &format!(
                            "the arguments of {named} would take more than max_result_bytes ({limit} bytes) in the host"
                        ),
                    ))
                };
                self.resume(turn, call_id, "", outcome)
            }
            ResponseHead::Call { .. } => {
                Err(self.broken("the worker sent a Call after the host ended its feed".into()))
            }
            ResponseHead::OsCall { name } if !turn.aborted => {
                let named = name.unwrap_or_else(|| "an OS call".to_owned());
                self.answer(&Request::OsReply(CallOutcome::Raise(GuestException::new(
                    "MemoryError",
                    &format!(
                        "{named} would take more than max_result_bytes ({limit} bytes) in the host"
                    ),
                ))))
            }
            ResponseHead::OsCall { .. } => {
                Err(self.broken("the worker sent an OsCall after the host ended its feed".into()))
            }
            // The guest goes on: it never waits on an output.
            ResponseHead::Other("Output") => {
                turn.output = turn.output.saturating_add(encoded);
                turn.shown = turn.shown.saturating_add(1);
                let allowance = self
                    .options
                    .limits
                    .max_output_bytes
                    .saturating_add(OUTPUT_SLACK);
                if turn.output > allowance || turn.shown > MAX_OUTPUTS_PER_FEED {
                    return Err(self.broken(format!(
                        "the worker sent more than max_output_bytes ({}) of output in one feed",
                        self.options.limits.max_output_bytes
                    )));
                }
                self.note_to_guest_stderr(&format!(
                    "[stockade: an output of {encoded} bytes was not taken: it would pass max_result_bytes ({limit} bytes)]\n"
                ));
                Ok(())
            }
            ResponseHead::Other(what) => Err(self.broken(format!(
                "the worker sent {what} too large to read ({encoded} bytes)"
            ))),
        }
    }

    /// Waits for one or more of the awaited async calls; a worker that
    /// awaits a call it was never told is pending is broken.
    #[cfg(feature = "tokio")]
    fn resolve(
        &mut self,
        call_ids: &[u32],
        policy: &CallPolicy,
    ) -> Result<Vec<(u32, CallOutcome)>, Error> {
        if call_ids.is_empty() || call_ids.iter().any(|id| !self.inflight.knows(*id)) {
            return Err(self.broken(format!(
                "the worker awaited calls {call_ids:?}, which are not in flight"
            )));
        }
        Ok(self.inflight.wait(call_ids, policy))
    }

    #[cfg(not(feature = "tokio"))]
    fn resolve(
        &mut self,
        call_ids: &[u32],
        _policy: &CallPolicy,
    ) -> Result<Vec<(u32, CallOutcome)>, Error> {
        Err(self.broken(format!(
            "the worker awaited calls {call_ids:?}, but no call is pending"
        )))
    }
}
