//! What the guest's native callbacks share with the engine: the guest
//! clock, the link to the parent, the abort state, and host-function calls
//! (sync ones suspend the guest; async ones hand it a Promise).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::function::Rest;
use rquickjs::{Ctx, Function, Persistent, Value as JsValue};
use stockade_wire::{CallOutcome, ErrorKind, GuestException, Value};

use super::clock_journal::JournaledClock;
use super::heap::HeapMeter;
use super::values::{Refused, from_wire, to_wire};
use stockade_worker_core::engine::SharedLink;
use stockade_worker_core::link::Interrupt;

/// Guest execution time: runs only while guest code runs, never while a
/// host function answers or between feeds.
#[derive(Debug, Default)]
pub struct Clock {
    total: Cell<Duration>,
    since: Cell<Option<Instant>>,
}

impl Clock {
    pub fn start(&self) {
        if self.since.get().is_none() {
            self.since.set(Some(Instant::now()));
        }
    }

    pub fn stop(&self) {
        if let Some(since) = self.since.take() {
            self.total.set(self.total.get() + since.elapsed());
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.total.get() + self.since.get().map_or(Duration::ZERO, |s| s.elapsed())
    }
}

/// The settle functions of a Promise handed to the guest for a pending call.
pub struct Settle {
    resolve: Persistent<Function<'static>>,
    reject: Persistent<Function<'static>>,
}

/// What the host-function callbacks and the interrupt handler share.
pub struct Bridge {
    pub clock: Clock,
    pub max_duration: Option<Duration>,
    pub heap: Rc<HeapMeter>,
    pub link: RefCell<Option<SharedLink>>,
    /// Set when the feed must end: an abort from the host or the link.
    pub abort: RefCell<Option<(ErrorKind, String)>>,
    /// Set when the parent closed the session mid-feed.
    pub closed: Cell<bool>,
    next_call: Cell<u32>,
    /// Async host calls the host answered Pending, by call id.
    pending: RefCell<BTreeMap<u32, Settle>>,
    /// The journaled clock, whose readings so far go to the host before
    /// each suspension (when the host journals the session).
    pub clock_journal: RefCell<Option<Rc<JournaledClock>>>,
}

impl Bridge {
    pub fn new(max_duration: Option<Duration>, heap: Rc<HeapMeter>) -> Self {
        Self {
            clock: Clock::default(),
            max_duration,
            heap,
            link: RefCell::new(None),
            abort: RefCell::new(None),
            closed: Cell::new(false),
            next_call: Cell::new(0),
            pending: RefCell::new(BTreeMap::new()),
            clock_journal: RefCell::new(None),
        }
    }

    /// Reports the clock readings made so far, before a suspension; a
    /// report that cannot be sent leaves them for the feed's end.
    fn report_clock(&self, link: &SharedLink) {
        if let Some(journal) = self.clock_journal.borrow().as_ref() {
            journal.report(link, false);
        }
    }

    pub fn over_time(&self) -> bool {
        self.max_duration
            .is_some_and(|max| self.clock.elapsed() > max)
    }

    /// The interrupt handler's question: must the guest stop now?
    pub fn must_stop(&self) -> bool {
        self.over_time()
            || self.closed.get()
            || self.heap.exhausted()
            || self.abort.borrow().is_some()
    }

    pub fn elapsed_us(&self) -> u64 {
        stockade_worker_core::engine::micros(self.clock.elapsed())
    }

    pub fn link(&self) -> Option<SharedLink> {
        self.link.borrow().clone()
    }

    /// Ends the feed from inside a callback: the guest cannot catch it,
    /// because the interrupt handler stops it at its next check.
    fn stop<'js>(&self, ctx: &Ctx<'js>, kind: ErrorKind, message: String) -> rquickjs::Error {
        *self.abort.borrow_mut() = Some((kind, message.clone()));
        rquickjs::Exception::throw_internal(ctx, &message)
    }

    fn interrupted<'js>(&self, ctx: &Ctx<'js>, interrupt: Interrupt) -> rquickjs::Error {
        match interrupt {
            Interrupt::Abort { kind, message } => self.stop(ctx, kind, message),
            Interrupt::Closed => {
                self.closed.set(true);
                rquickjs::Exception::throw_internal(ctx, "the session was closed")
            }
        }
    }

    pub fn has_pending(&self) -> bool {
        !self.pending.borrow().is_empty()
    }

    /// Calls still pending at the end of a feed are abandoned.
    pub fn abandon_pending(&self) {
        self.pending.borrow_mut().clear();
    }

    /// Waits (with the guest clock stopped) for the host to settle one or
    /// more pending calls, and settles their Promises. Err means the feed
    /// must end (the abort or closed flag is set).
    pub fn await_pending<'js>(&self, ctx: &Ctx<'js>) -> Result<(), ()> {
        let Some(link) = self.link() else {
            return Err(());
        };
        let ids: Vec<u32> = self.pending.borrow().keys().copied().collect();
        let elapsed_us = self.elapsed_us();
        self.clock.stop();
        self.report_clock(&link);
        let answers = link.borrow_mut().await_calls(elapsed_us, ids);
        self.clock.start();
        let answers = match answers {
            Ok(answers) => answers,
            Err(interrupt) => {
                let _ = self.interrupted(ctx, interrupt);
                let _ = ctx.catch();
                return Err(());
            }
        };
        for (call_id, outcome) in answers {
            let Some(settle) = self.pending.borrow_mut().remove(&call_id) else {
                continue;
            };
            let (function, argument) = match settled_value(ctx, outcome) {
                Ok(value) => (settle.resolve, value),
                Err(error) => (settle.reject, error),
            };
            let settled = function
                .restore(ctx)
                .and_then(|function| function.call::<_, ()>((argument,)));
            if settled.is_err() {
                let _ = ctx.catch();
            }
        }
        Ok(())
    }
}

/// A call's outcome as the guest takes it: Ok for a value, Err for the
/// exception to throw or reject with.
fn settled_value<'js>(ctx: &Ctx<'js>, outcome: CallOutcome) -> Result<JsValue<'js>, JsValue<'js>> {
    match outcome {
        CallOutcome::Return(value) => from_wire(ctx, value, "").map_err(|_| ctx.catch()),
        CallOutcome::Raise(exception) => Err(exception_value(ctx, &exception)),
        CallOutcome::Abort(message) => Err(exception_value(
            ctx,
            &GuestException::new("RuntimeError", &message),
        )),
        CallOutcome::Pending => Err(exception_value(
            ctx,
            &GuestException::new("Error", "a pending call was resolved as pending"),
        )),
    }
}

/// The guest's error object for a host exception: its class when the
/// guest has one by that name, else Error.
fn exception_value<'js>(ctx: &Ctx<'js>, exception: &GuestException) -> JsValue<'js> {
    // Python's name for an unknown name is JavaScript's ReferenceError.
    let class = match exception.type_name.as_str() {
        "NameError" => "ReferenceError",
        other => other,
    };
    let made = (|| -> rquickjs::Result<JsValue<'js>> {
        let constructor: Function = ctx
            .globals()
            .get(class)
            .or_else(|_| ctx.globals().get("Error"))?;
        constructor.call((exception.message.clone(),))
    })();
    made.unwrap_or_else(|_| ctx.catch())
}

/// The native function behind a host function's global. Returning it
/// from a function makes the closure generic over the context lifetime.
pub fn host_function(
    bridge: Rc<Bridge>,
    name: String,
) -> impl for<'js> Fn(Ctx<'js>, Rest<JsValue<'js>>) -> rquickjs::Result<JsValue<'js>> {
    move |ctx, args| call_host(&ctx, &bridge, &name, &args.0)
}

/// Calls a host function from the guest, with the guest clock stopped.
fn call_host<'js>(
    ctx: &Ctx<'js>,
    bridge: &Bridge,
    name: &str,
    args: &[JsValue<'js>],
) -> rquickjs::Result<JsValue<'js>> {
    let Some(link) = bridge.link() else {
        return Err(rquickjs::Exception::throw_internal(
            ctx,
            "host functions are unavailable",
        ));
    };
    let mut wire_args: Vec<Value> = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        match to_wire(ctx, arg, &|| bridge.must_stop()) {
            Ok(value) => wire_args.push(value),
            Err(Refused(why)) => {
                return Err(rquickjs::Exception::throw_type(
                    ctx,
                    &format!(
                        "argument {} of {name} cannot cross to the host: {why}",
                        i + 1
                    ),
                ));
            }
        }
    }
    let args = wire_args;
    let call_id = bridge.next_call.get();
    bridge.next_call.set(call_id.wrapping_add(1));
    let elapsed_us = bridge.elapsed_us();
    bridge.clock.stop();
    bridge.report_clock(&link);
    let answer = link
        .borrow_mut()
        .call(elapsed_us, call_id, name.to_owned(), args, Vec::new());
    bridge.clock.start();
    match answer {
        Ok(CallOutcome::Pending) => {
            let (promise, resolve, reject) = ctx.promise()?;
            bridge.pending.borrow_mut().insert(
                call_id,
                Settle {
                    resolve: Persistent::save(ctx, resolve),
                    reject: Persistent::save(ctx, reject),
                },
            );
            Ok(promise.into_value())
        }
        Ok(outcome) => match settled_value(ctx, outcome) {
            Ok(value) => Ok(value),
            Err(error) => Err(ctx.throw(error)),
        },
        Err(interrupt) => Err(bridge.interrupted(ctx, interrupt)),
    }
}

/// The native behind the guest's `fs` (js/node_fs.js): `os(name, ...args)`
/// sends one OS call to the host, with the guest clock stopped, and gives
/// `[true, value]`, or `[false, type, message]` for the exception the host
/// named (the module makes it Node's error).
pub fn os_function(
    bridge: Rc<Bridge>,
) -> impl for<'js> Fn(Ctx<'js>, String, Rest<JsValue<'js>>) -> rquickjs::Result<JsValue<'js>> {
    move |ctx, name, args| call_os(&ctx, &bridge, name, &args.0)
}

fn call_os<'js>(
    ctx: &Ctx<'js>,
    bridge: &Bridge,
    name: String,
    args: &[JsValue<'js>],
) -> rquickjs::Result<JsValue<'js>> {
    let Some(link) = bridge.link() else {
        return Err(rquickjs::Exception::throw_internal(
            ctx,
            "files are unavailable outside a feed",
        ));
    };
    let mut wire_args: Vec<Value> = Vec::with_capacity(args.len());
    for arg in args {
        match to_wire(ctx, arg, &|| bridge.must_stop()) {
            Ok(value) => wire_args.push(value),
            Err(Refused(why)) => {
                return Err(rquickjs::Exception::throw_type(
                    ctx,
                    &format!("an argument of {name} cannot cross to the host: {why}"),
                ));
            }
        }
    }
    let elapsed_us = bridge.elapsed_us();
    bridge.clock.stop();
    bridge.report_clock(&link);
    let answer = link
        .borrow_mut()
        .os_call(elapsed_us, name, wire_args, Vec::new());
    bridge.clock.start();
    let result = rquickjs::Array::new(ctx.clone())?;
    match answer {
        Ok(CallOutcome::Return(value)) => {
            result.set(0, true)?;
            result.set(1, from_wire(ctx, value, "")?)?;
        }
        Ok(CallOutcome::Raise(exception)) => {
            result.set(0, false)?;
            result.set(1, exception.type_name)?;
            result.set(2, exception.message)?;
        }
        // The link turns Abort into an interruption; the wire has no
        // pending OS call.
        Ok(CallOutcome::Abort(message)) => {
            return Err(bridge.stop(ctx, ErrorKind::Protocol, message));
        }
        Ok(CallOutcome::Pending) => {
            return Err(rquickjs::Exception::throw_internal(
                ctx,
                "an OS call was answered as pending",
            ));
        }
        Err(interrupt) => return Err(bridge.interrupted(ctx, interrupt)),
    }
    Ok(result.into_value())
}
