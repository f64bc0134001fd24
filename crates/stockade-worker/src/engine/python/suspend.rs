//! One handler for each place monty suspends a feed: a host-function call,
//! a lookup of a name the guest never defined, an OS call, and a wait on
//! futures. Each asks the host through the link and resumes the
//! interpreter with the answer; an interruption (the host's abort, or the
//! session closing) is handled once, in `interrupted`.

use monty::{
    ReplFunctionCall, ReplNameLookup, ReplOsCall, ReplProgress, ReplResolveFutures, ReplStartError,
};
use monty_types::{
    ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult, PrintWriter,
};
use stockade_wire::{CallOutcome, LookupOutcome};

use super::values::{from_wire, to_wire};
use super::{PythonEngine, Step, display, host_result, print, runtime_error};
use stockade_worker_core::engine::Closed;
use stockade_worker_core::link::{Interrupt, Link};

/// Where monty goes after a suspension, or the feed's end.
type Resumed = Result<ReplProgress, Box<ReplStartError>>;

impl PythonEngine {
    /// Ends the suspension an interruption cut short: the guest gets an
    /// uncatchable RuntimeError through `abort`, the host an Error reply
    /// of the interruption's kind; a closed session ends the feed at once.
    fn interrupted(
        &mut self,
        interrupt: Interrupt,
        abort: impl FnOnce(MontyException) -> Resumed,
    ) -> Result<Step, Closed> {
        match interrupt {
            Interrupt::Closed => Err(Closed),
            Interrupt::Abort { kind, message } => {
                Ok(self.aborted(abort(runtime_error(&message)), kind))
            }
        }
    }

    /// A call of a name monty takes for a function. The host hears of a
    /// name it never listed as a Lookup first, so it only ever sees Calls
    /// of functions it gave.
    pub(super) fn on_call(
        &mut self,
        call: ReplFunctionCall,
        elapsed: u64,
        link: &mut Link,
    ) -> Result<Step, Closed> {
        let name = call.function_name.clone();
        if name == display::NAME && self.display_is_ours {
            return Ok(show(call, link));
        }
        // While the host answers, the call stays whole: a Snapshot then
        // images the session suspended here.
        let mut progress = ReplProgress::FunctionCall(call);
        if !self.host_functions.contains(&name) {
            let answer = link.lookup_imaging(elapsed, name.clone(), &mut || image(&progress));
            let Some(call) = progress.into_function_call() else {
                return Ok(lost(self.elapsed));
            };
            let refusal = match answer {
                Ok(LookupOutcome::Function) => {
                    self.host_functions.insert(name.clone());
                    None
                }
                Ok(LookupOutcome::Undefined) if name == display::NAME => {
                    self.display_is_ours = true;
                    return Ok(show(call, link));
                }
                // Link::lookup turns Abort into Interrupt::Abort; it never arrives here.
                Ok(LookupOutcome::Undefined | LookupOutcome::Abort(_)) => {
                    Some(ExtFunctionResult::NotFound(name.clone()))
                }
                Ok(LookupOutcome::Value(value)) => {
                    Some(ExtFunctionResult::Error(MontyException::new(
                        ExcType::TypeError,
                        Some(format!("'{}' object is not callable", value.kind())),
                    )))
                }
                Err(interrupt) => {
                    return self.interrupted(interrupt, |exc| {
                        call.abort(exc, PrintWriter::Callback(&mut print::to(link)))
                    });
                }
            };
            if let Some(refusal) = refusal {
                return Ok(Step::Next(
                    call.resume(refusal, PrintWriter::Callback(&mut print::to(link))),
                ));
            }
            progress = ReplProgress::FunctionCall(call);
        }
        let Some(call) = progress.into_function_call() else {
            return Ok(lost(self.elapsed));
        };
        let args = call.args.iter().cloned().map(to_wire).collect();
        let kwargs = call
            .kwargs
            .iter()
            .map(|(key, value)| {
                let key = match key {
                    MontyObject::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (key, to_wire(value.clone()))
            })
            .collect();
        let call_id = call.call_id;
        let progress = ReplProgress::FunctionCall(call);
        let answer = link.call_imaging(elapsed, call_id, name, args, kwargs, &mut || {
            image(&progress)
        });
        let Some(call) = progress.into_function_call() else {
            return Ok(lost(self.elapsed));
        };
        Ok(match answer {
            Ok(CallOutcome::Pending) => {
                Step::Next(call.resume_pending(PrintWriter::Callback(&mut print::to(link))))
            }
            // Return or Raise; Link::call turns Abort into Interrupt::Abort.
            Ok(outcome) => Step::Next(call.resume(
                host_result(outcome),
                PrintWriter::Callback(&mut print::to(link)),
            )),
            Err(interrupt) => {
                return self.interrupted(interrupt, |exc| {
                    call.abort(exc, PrintWriter::Callback(&mut print::to(link)))
                });
            }
        })
    }

    /// A name the guest never defined: a host function, a value the host
    /// set, or a NameError.
    pub(super) fn on_lookup(
        &mut self,
        mut lookup: ReplNameLookup,
        elapsed: u64,
        link: &mut Link,
    ) -> Result<Step, Closed> {
        let name = lookup.name.clone();
        let answer = if self.host_functions.contains(&name)
            || (name == display::NAME && self.display_is_ours)
        {
            Ok(LookupOutcome::Function)
        } else {
            let progress = ReplProgress::NameLookup(lookup);
            let answer = link.lookup_imaging(elapsed, name.clone(), &mut || image(&progress));
            let Some(back) = progress.into_name_lookup() else {
                return Ok(lost(self.elapsed));
            };
            lookup = back;
            match answer {
                Ok(LookupOutcome::Function) => {
                    // Calls of it need no second Lookup.
                    self.host_functions.insert(name.clone());
                    answer
                }
                // The host has no `display`: the guest's is the worker's.
                Ok(LookupOutcome::Undefined) if name == display::NAME => {
                    self.display_is_ours = true;
                    Ok(LookupOutcome::Function)
                }
                answer => answer,
            }
        };
        let outcome = match answer {
            Ok(outcome) => outcome,
            Err(interrupt) => {
                return self.interrupted(interrupt, |exc| {
                    lookup.abort(exc, PrintWriter::Callback(&mut print::to(link)))
                });
            }
        };
        let answer = match outcome {
            LookupOutcome::Value(value) => match from_wire(value, &name) {
                Ok(object) => NameLookupResult::Value(object),
                Err(message) => NameLookupResult::Error(MontyException::new(
                    ExcType::TypeError,
                    Some(format!("host value for {name:?}: {message}")),
                )),
            },
            LookupOutcome::Function => NameLookupResult::Value(MontyObject::Function {
                name,
                docstring: None,
            }),
            // Abort never arrives here: see Link::lookup.
            LookupOutcome::Undefined | LookupOutcome::Abort(_) => NameLookupResult::Undefined,
        };
        Ok(Step::Next(lookup.resume(
            answer,
            PrintWriter::Callback(&mut print::to(link)),
        )))
    }

    /// Every guest task waits on pending async calls: the host resolves
    /// one or more of them.
    pub(super) fn on_futures(
        &mut self,
        pending: ReplResolveFutures,
        elapsed: u64,
        link: &mut Link,
    ) -> Result<Step, Closed> {
        let ids = pending.pending_call_ids().to_vec();
        let progress = ReplProgress::ResolveFutures(pending);
        let answer = link.await_calls_imaging(elapsed, ids, &mut || image(&progress));
        let Some(pending) = progress.into_resolve_futures() else {
            return Ok(lost(self.elapsed));
        };
        match answer {
            Ok(results) => {
                let results = results
                    .into_iter()
                    .map(|(id, outcome)| (id, host_result(outcome)))
                    .collect();
                Ok(Step::Next(pending.resume(
                    results,
                    PrintWriter::Callback(&mut print::to(link)),
                )))
            }
            Err(interrupt) => self.interrupted(interrupt, |exc| {
                pending.abort(exc, PrintWriter::Callback(&mut print::to(link)))
            }),
        }
    }

    /// An OS call (a file, the environment, the time): the host serves it
    /// (docs/files.md), and its answer is shaped as monty wants it.
    pub(super) fn on_os_call(
        &mut self,
        call: ReplOsCall,
        elapsed: u64,
        link: &mut Link,
    ) -> Result<Step, Closed> {
        let name = call.function_call.name().to_owned();
        let (args, kwargs) = call.function_call.clone().to_args();
        // Paths cross as strings and time zones as their offsets: the
        // host serves monty's calls by name, with plain values.
        let os_arg = |object| match object {
            MontyObject::Path(path) => stockade_wire::Value::Str(path),
            MontyObject::TimeZone(zone) => {
                stockade_wire::Value::Int(i64::from(zone.offset_seconds))
            }
            other => to_wire(other),
        };
        let args = args.into_iter().map(os_arg).collect();
        let kwargs = kwargs
            .into_iter()
            .map(|(key, value)| {
                let key = match key {
                    MontyObject::String(s) => s,
                    other => other.to_string(),
                };
                (key, os_arg(value))
            })
            .collect();
        let progress = ReplProgress::OsCall(call);
        let answer = link.os_call_imaging(elapsed, name, args, kwargs, &mut || image(&progress));
        let ReplProgress::OsCall(call) = progress else {
            return Ok(lost(self.elapsed));
        };
        let result = match answer {
            Ok(CallOutcome::Return(value)) => {
                match super::os_result::shaped(&call.function_call, value) {
                    Ok(object) => ExtFunctionResult::Return(object),
                    Err(exception) => ExtFunctionResult::Error(exception),
                }
            }
            // Raise; Link::os_call turns Abort into Interrupt::Abort, and
            // the wire refuses Pending.
            Ok(outcome) => host_result(outcome),
            Err(interrupt) => {
                return self.interrupted(interrupt, |exc| {
                    call.abort(exc, PrintWriter::Callback(&mut print::to(link)))
                });
            }
        };
        Ok(Step::Next(call.resume(
            result,
            PrintWriter::Callback(&mut print::to(link)),
        )))
    }
}

/// The image of a session suspended at `progress`, for a Snapshot.
fn image(progress: &ReplProgress) -> Result<Vec<u8>, String> {
    monty::dump("main.py", None, monty::SessionRef::Suspended(progress))
        .map_err(|err| format!("cannot serialise the suspended session: {err}"))
}

/// The end of a feed whose suspended state went missing between the
/// wrapping and unwrapping of one wait (which cannot happen: each wait
/// gets back what it wrapped).
fn lost(elapsed: std::time::Duration) -> Step {
    Step::Done(super::protocol_error(
        elapsed,
        "the suspended feed's state was lost",
    ))
}

/// The guest's own `display()`, answered in the worker.
fn show(call: ReplFunctionCall, link: &mut Link) -> Step {
    let result = display::display(&call.args, &call.kwargs, &link.printer);
    Step::Next(call.resume(result, PrintWriter::Callback(&mut print::to(link))))
}
