//! The JavaScript engine: a QuickJS runtime whose globals persist across
//! feeds. Host functions named in a Feed become global functions that call
//! the host synchronously; console output goes to the print stream.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::function::Rest;
use rquickjs::{Context, Ctx, Function, Runtime, Value as JsValue};
use stockade_wire::{
    CallOutcome, ConfigureLimits, ErrorKind, GuestException, KNOWN_EXCEPTION_TYPES, MAX_TRACEBACK,
    PrintStream, Response, Value,
};

use super::javascript_values::{from_wire, to_wire};
use super::{Closed, Engine, Feed, SharedLink};
use crate::link::Interrupt;

/// Native stack the interpreter may use before it throws a RangeError.
const MAX_STACK: usize = 8 * 1024 * 1024;

/// Installs `console` on a native print function, then hides that function.
const PRELUDE: &str = r#"
(() => {
  const print = globalThis.__stockade_print;
  delete globalThis.__stockade_print;
  // Shared memory and GC-observable references have no use in a sandbox
  // and widen what a guest can probe.
  for (const name of ['SharedArrayBuffer', 'Atomics', 'WeakRef', 'FinalizationRegistry']) {
    delete globalThis[name];
  }
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'object' && value !== null) {
      try { const json = JSON.stringify(value); if (json !== undefined) return json; } catch (_) {}
    }
    return String(value);
  };
  const to = (stream) => (...args) => { print(stream, args.map(show).join(' ') + '\n'); };
  globalThis.console = Object.freeze({
    log: to(0), info: to(0), debug: to(0), warn: to(1), error: to(1),
  });
})();
"#;

/// Guest execution time: runs only while guest code runs, never while a
/// host function answers or between feeds.
#[derive(Debug, Default)]
struct Clock {
    total: Cell<Duration>,
    since: Cell<Option<Instant>>,
}

impl Clock {
    fn start(&self) {
        if self.since.get().is_none() {
            self.since.set(Some(Instant::now()));
        }
    }

    fn stop(&self) {
        if let Some(since) = self.since.take() {
            self.total.set(self.total.get() + since.elapsed());
        }
    }

    fn elapsed(&self) -> Duration {
        self.total.get() + self.since.get().map_or(Duration::ZERO, |s| s.elapsed())
    }
}

/// What the host-function callbacks and the interrupt handler share.
#[derive(Debug)]
struct Bridge {
    clock: Clock,
    max_duration: Option<Duration>,
    link: RefCell<Option<SharedLink>>,
    /// Set when the feed must end: an abort from the host or the link.
    abort: RefCell<Option<(ErrorKind, String)>>,
    /// Set when the parent closed the session mid-feed.
    closed: Cell<bool>,
    next_call: Cell<u32>,
}

impl Bridge {
    fn over_time(&self) -> bool {
        self.max_duration
            .is_some_and(|max| self.clock.elapsed() > max)
    }

    fn must_stop(&self) -> bool {
        self.over_time() || self.closed.get() || self.abort.borrow().is_some()
    }

    fn elapsed_us(&self) -> u64 {
        u64::try_from(self.clock.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn link(&self) -> Option<SharedLink> {
        self.link.borrow().clone()
    }
}

/// A JavaScript session on QuickJS.
pub struct JavaScriptEngine {
    // Field order matters: the context must drop before its runtime.
    context: Context,
    _runtime: Runtime,
    bridge: Rc<Bridge>,
    installed: HashSet<String>,
}

impl std::fmt::Debug for JavaScriptEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaScriptEngine")
            .field("installed", &self.installed)
            .finish_non_exhaustive()
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl JavaScriptEngine {
    pub fn new(limits: &ConfigureLimits) -> rquickjs::Result<Self> {
        let runtime = Runtime::new()?;
        if let Some(max) = limits.max_memory {
            runtime.set_memory_limit(usize::try_from(max).unwrap_or(usize::MAX));
        }
        runtime.set_max_stack_size(MAX_STACK);
        let bridge = Rc::new(Bridge {
            clock: Clock::default(),
            max_duration: limits.max_duration_us.map(Duration::from_micros),
            link: RefCell::new(None),
            abort: RefCell::new(None),
            closed: Cell::new(false),
            next_call: Cell::new(0),
        });
        let watched = Rc::clone(&bridge);
        runtime.set_interrupt_handler(Some(Box::new(move || watched.must_stop())));
        let context = Context::full(&runtime)?;
        let printer = Rc::clone(&bridge);
        context.with(|ctx| -> rquickjs::Result<()> {
            let print = Function::new(ctx.clone(), move |stream: i32, text: String| {
                if let Some(link) = printer.link() {
                    let mut link = link.borrow_mut();
                    let link = &mut *link;
                    let stream = if stream == 1 {
                        PrintStream::Stderr
                    } else {
                        PrintStream::Stdout
                    };
                    link.printer.push_to(&mut link.out, stream, &text);
                }
            })?;
            ctx.globals().set("__stockade_print", print)?;
            ctx.eval::<(), _>(PRELUDE)
        })?;
        Ok(Self {
            context,
            _runtime: runtime,
            bridge,
            installed: HashSet::new(),
        })
    }

    /// Makes each named host function a global that calls the host.
    fn install<'js>(&mut self, ctx: &Ctx<'js>, functions: Vec<String>) -> rquickjs::Result<()> {
        for name in functions {
            if self.installed.contains(&name) {
                continue;
            }
            let bridge = Rc::clone(&self.bridge);
            let called = name.clone();
            let function = Function::new(ctx.clone(), host_function(bridge, called))?;
            ctx.globals().set(name.as_str(), function)?;
            self.installed.insert(name);
        }
        Ok(())
    }

    fn error_reply<'js>(&self, ctx: &Ctx<'js>, thrown: JsValue<'js>) -> Response {
        let elapsed_us = self.bridge.elapsed_us();
        if let Some((kind, message)) = self.bridge.abort.borrow_mut().take() {
            return Response::Error {
                elapsed_us,
                kind,
                exception: GuestException::new("RuntimeError", &message),
                traceback: String::new(),
            };
        }
        if self.bridge.over_time() {
            return Response::Error {
                elapsed_us,
                kind: ErrorKind::Timeout,
                exception: GuestException::new("Error", "max_duration exceeded"),
                traceback: String::new(),
            };
        }
        let (name, message, stack) = match thrown.as_object() {
            Some(object) => (
                object
                    .get::<_, String>("name")
                    .unwrap_or_else(|_| "Error".into()),
                object.get::<_, String>("message").unwrap_or_default(),
                object.get::<_, String>("stack").unwrap_or_default(),
            ),
            None => {
                let text = to_wire(ctx, &thrown).to_string();
                ("Error".to_owned(), text, String::new())
            }
        };
        let kind = if message.contains("out of memory") {
            ErrorKind::Memory
        } else if name == "SyntaxError"
            && !stack
                .lines()
                .any(|l| l.trim_start().starts_with("at ") && l.contains('('))
        {
            // A parse error's frames name no function; a SyntaxError thrown
            // while running (JSON.parse, new Function) has at least `<eval> (...)`.
            ErrorKind::Syntax
        } else {
            ErrorKind::Exception
        };
        let type_name = if KNOWN_EXCEPTION_TYPES.contains(&name.as_str()) {
            name.as_str()
        } else {
            "Error"
        };
        let mut traceback = format!(
            "{}{name}: {message}",
            if stack.is_empty() {
                String::new()
            } else {
                format!("{stack}\n")
            }
        );
        if traceback.len() > MAX_TRACEBACK {
            let mut end = MAX_TRACEBACK;
            while !traceback.is_char_boundary(end) {
                end -= 1;
            }
            traceback.truncate(end);
        }
        Response::Error {
            elapsed_us,
            kind,
            exception: GuestException::new(type_name, &message),
            traceback,
        }
    }
}

/// The native function behind a host function's global. Returning it
/// from a function makes the closure generic over the context lifetime.
fn host_function(
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
    let args: Vec<Value> = args.iter().map(|arg| to_wire(ctx, arg)).collect();
    let call_id = bridge.next_call.get();
    bridge.next_call.set(call_id.wrapping_add(1));
    let elapsed_us = bridge.elapsed_us();
    bridge.clock.stop();
    let answer = link
        .borrow_mut()
        .call(elapsed_us, call_id, name.to_owned(), args, Vec::new());
    bridge.clock.start();
    let stop = |kind: ErrorKind, message: String| {
        *bridge.abort.borrow_mut() = Some((kind, message.clone()));
        rquickjs::Exception::throw_internal(ctx, &message)
    };
    match answer {
        Ok(CallOutcome::Return(value)) => from_wire(ctx, value, ""),
        Ok(CallOutcome::Raise(exception)) => {
            let constructor: Function = ctx
                .globals()
                .get(exception.type_name.as_str())
                .or_else(|_| ctx.globals().get("Error"))?;
            let error: JsValue = constructor.call((exception.message,))?;
            Err(ctx.throw(error))
        }
        Ok(CallOutcome::Pending) => Err(stop(
            ErrorKind::Exception,
            "async host functions are not available to JavaScript guests yet".into(),
        )),
        // Link::call turns Abort into Interrupt::Abort; it never arrives here.
        Ok(CallOutcome::Abort(message)) => Err(stop(ErrorKind::Exception, message)),
        Err(Interrupt::Abort { kind, message }) => Err(stop(kind, message)),
        Err(Interrupt::Closed) => {
            bridge.closed.set(true);
            Err(rquickjs::Exception::throw_internal(
                ctx,
                "the session was closed",
            ))
        }
    }
}

impl Engine for JavaScriptEngine {
    fn feed(&mut self, feed: Feed, link: &SharedLink) -> Result<Response, Closed> {
        *self.bridge.link.borrow_mut() = Some(Rc::clone(link));
        self.bridge.abort.replace(None);
        let Feed {
            code,
            inputs,
            functions,
        } = feed;
        let context = self.context.clone();
        let reply = context.with(|ctx| {
            if let Err(err) = self.install(&ctx, functions) {
                return Response::Error {
                    elapsed_us: self.bridge.elapsed_us(),
                    kind: ErrorKind::Protocol,
                    exception: GuestException::new(
                        "Error",
                        &format!("cannot install host functions: {err}"),
                    ),
                    traceback: String::new(),
                };
            }
            for (name, value) in inputs {
                let bound = from_wire(&ctx, value, &name)
                    .and_then(|value| ctx.globals().set(name.as_str(), value));
                if bound.is_err() {
                    let thrown = ctx.catch();
                    let message = to_wire(&ctx, &thrown).to_string();
                    return Response::Error {
                        elapsed_us: self.bridge.elapsed_us(),
                        kind: ErrorKind::Conversion,
                        exception: GuestException::new(
                            "TypeError",
                            &format!("input {name:?}: {message}"),
                        ),
                        traceback: String::new(),
                    };
                }
            }
            self.bridge.clock.start();
            // Top-level await needs an async evaluation, which wraps the
            // completion value; only code that awaits pays for it.
            let asynchronous = code.contains("await");
            let evaluated = if asynchronous {
                ctx.eval_promise(code.as_str())
                    .map(|promise| promise.into_value())
            } else {
                ctx.eval::<JsValue, _>(code.as_str())
            };
            let settled = match evaluated {
                Ok(value) => match value.as_promise() {
                    // Runs queued jobs until the promise settles.
                    Some(promise) => match promise.finish::<JsValue>() {
                        Ok(value) if asynchronous => Ok(value
                            .as_object()
                            .and_then(|wrapper| wrapper.get::<_, JsValue>("value").ok())
                            .unwrap_or(value)),
                        Ok(value) => Ok(value),
                        Err(rquickjs::Error::WouldBlock) => Err(rquickjs::String::from_str(
                            ctx.clone(),
                            "the result is a promise that never settles",
                        )
                        .map(|s| s.into_value())
                        .unwrap_or_else(|_| JsValue::new_undefined(ctx.clone()))),
                        Err(_) => Err(ctx.catch()),
                    },
                    None => Ok(value),
                },
                Err(_) => Err(ctx.catch()),
            };
            // Jobs the snippet queued run before the feed ends.
            while ctx.execute_pending_job() {}
            self.bridge.clock.stop();
            // A host abort stands even if the guest caught the error it
            // raised and finished before the interrupt handler ran.
            let settled = match settled {
                Ok(_) if self.bridge.abort.borrow().is_some() => {
                    Err(JsValue::new_undefined(ctx.clone()))
                }
                other => other,
            };
            match settled {
                Ok(value) => Response::Complete {
                    elapsed_us: self.bridge.elapsed_us(),
                    value: to_wire(&ctx, &value),
                },
                Err(thrown) => self.error_reply(&ctx, thrown),
            }
        });
        if self.bridge.closed.get() {
            return Err(Closed);
        }
        Ok(reply)
    }

    fn elapsed_us(&self) -> u64 {
        micros(self.bridge.clock.elapsed())
    }

    fn name(&self) -> String {
        "javascript (QuickJS-NG via rquickjs 0.14)".into()
    }
}
