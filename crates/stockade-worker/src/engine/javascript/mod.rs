//! The JavaScript engine: a QuickJS runtime whose globals persist across
//! feeds. Host functions named in a Feed become global functions; console
//! output goes to the print stream; the prelude scripts in `js/` shape the
//! guest's world (buffer cap, console, polyfills, clock, random, strict eval).

mod bridge;
mod bundled;
mod clock_journal;
mod display;
mod heap;
mod intl;
mod modules;
mod node_modules;
mod values;

use std::collections::HashSet;
use std::rc::Rc;
use std::time::Duration;

use rquickjs::context::EvalOptions;
use rquickjs::{Context, Ctx, Function, Module, Object, Persistent, Runtime, Value as JsValue};
use stockade_wire::{
    ConfigureLimits, ErrorKind, GuestException, JavaScriptConfig, KNOWN_EXCEPTION_TYPES,
    MAX_TRACEBACK, PrintStream, Response,
};

use self::bridge::{Bridge, host_function};
use self::bundled::Bundled;
use self::clock_journal::JournaledClock;
use self::heap::{HeapMeter, MeteredAllocator};
use self::modules::HostModules;
use self::values::{Inspector, Refused, from_wire, inspected, show, to_wire};
use stockade_worker_core::engine::{Closed, Engine, Feed, SharedLink, micros};

/// Timer callbacks one feed may run before the polyfill cuts timers off.
const MAX_TIMER_CALLBACKS: u32 = 100_000;

const BUFFERS: &str = include_str!("js/buffers.js");
const PRELUDE: &str = include_str!("js/prelude.js");
const INTL_BOOT: &str = include_str!("js/intl_boot.js");
const CLOCK: &str = include_str!("js/clock.js");
const RANDOM: &str = include_str!("js/random.js");
const STRICT: &str = include_str!("js/strict.js");

/// QuickJS needs nothing from outside the sandbox; its configuration waits
/// for the session thread.
#[derive(Debug)]
pub struct Prepared(pub JavaScriptConfig);

impl stockade_worker_core::engine::Prepared for Prepared {
    fn start(self: Box<Self>, limits: &ConfigureLimits) -> Result<Box<dyn Engine>, String> {
        JavaScriptEngine::new(limits, &self.0)
            .map(|engine| Box::new(engine) as Box<dyn Engine>)
            .map_err(|err| format!("cannot start the JavaScript engine: {err}"))
    }
}

/// A JavaScript session on QuickJS.
pub struct JavaScriptEngine {
    // Field order matters: values saved outside the context drop first,
    // then the context, then its runtime.
    timers: Option<Persistent<Object<'static>>>,
    /// random.js's `reseed`, when the host seeded Math.random.
    reseed: Option<Persistent<Function<'static>>>,
    /// Results come back as their util.inspect text.
    inspect_results: bool,
    context: Context,
    _runtime: Runtime,
    bridge: Rc<Bridge>,
    installed: HashSet<String>,
    feeds: u64,
    /// The clock every feed's readings go through, when the host journals
    /// the session (Configure's report-clock flag).
    clock_journal: Option<Rc<JournaledClock>>,
}

impl std::fmt::Debug for JavaScriptEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaScriptEngine")
            .field("installed", &self.installed)
            .finish_non_exhaustive()
    }
}

// Added to QuickJS by third_party/rquickjs-sys's patch 0003: a context a
// template made, run in a worker forked from it, starts its own
// Math.random sequence and performance clock.
unsafe extern "C" {
    fn JS_ReseedRandom(ctx: *mut rquickjs::qjs::JSContext, seed: u64);
    fn JS_RestartPerformanceClock(ctx: *mut rquickjs::qjs::JSContext);
}

/// Evaluates one prelude script (a function expression) and calls it.
fn run_script<'js, A, R>(ctx: &Ctx<'js>, name: &str, source: &str, args: A) -> Result<R, String>
where
    A: rquickjs::function::IntoArgs<'js>,
    R: rquickjs::FromJs<'js>,
{
    let result = ctx
        .eval::<Function, _>(source)
        .and_then(|script| script.call::<A, R>(args));
    result.map_err(|err| {
        let thrown = ctx.catch();
        format!(
            "the {name} script failed: {err}: {}",
            show(ctx, &thrown, &|| false)
        )
    })
}

/// A result's util.inspect text, when the session asked for results so
/// (and the result is not undefined, which stays the value it is).
fn inspected_result<'js>(
    engine: &JavaScriptEngine,
    ctx: &Ctx<'js>,
    value: &JsValue<'js>,
) -> Option<String> {
    if !engine.inspect_results || value.is_undefined() {
        return None;
    }
    inspected(ctx, value)
}

/// Loads Node's util.inspect, once a guest's console needs it.
fn load_inspect<'js>(ctx: Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    Bundled::Inspect.load(&ctx)
}

/// Installs Intl (js/intl.js on the natives of `intl/`), the first time a
/// guest touches it.
fn load_intl(ctx: Ctx<'_>) -> rquickjs::Result<Object<'_>> {
    let install: Function = Bundled::Intl.load(&ctx)?;
    install.call((intl::natives(&ctx)?,))
}

/// Whether a snippet has a top-level import or export statement, and so
/// must run as a module (`import(...)` and `import.meta` do not count).
fn is_module(code: &str) -> bool {
    code.lines().any(|line| {
        let line = line.trim_start();
        let rest = line
            .strip_prefix("import")
            .or_else(|| line.strip_prefix("export"));
        rest.is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_whitespace() || matches!(c, '{' | '*' | '"' | '\''))
        })
    })
}

impl JavaScriptEngine {
    pub fn new(limits: &ConfigureLimits, config: &JavaScriptConfig) -> Result<Self, String> {
        // The host decides the default (max_memory); None is no limit.
        let heap_limit = config
            .max_heap_size
            .map_or(usize::MAX, |max| usize::try_from(max).unwrap_or(usize::MAX));
        let heap = HeapMeter::new(heap_limit);
        let runtime = Runtime::new_with_alloc(MeteredAllocator::new(Rc::clone(&heap)))
            .map_err(|err| format!("cannot create the runtime: {err}"))?;
        runtime.set_max_stack_size(match config.max_stack_bytes {
            0 => stockade_wire::DEFAULT_MAX_STACK_BYTES as usize,
            bytes => bytes as usize,
        });
        let host_modules = HostModules::new(config.modules.clone());
        runtime.set_loader(host_modules.clone(), host_modules);
        let bridge = Rc::new(Bridge::new(
            limits.max_duration_us.map(Duration::from_micros),
            heap,
        ));
        let watched = Rc::clone(&bridge);
        runtime.set_interrupt_handler(Some(Box::new(move || watched.must_stop())));
        let context =
            Context::full(&runtime).map_err(|err| format!("cannot create a context: {err}"))?;
        let printer = Rc::clone(&bridge);
        // A frozen clock needs no journal: it reads the same every time.
        let clock_journal =
            (config.report_clock && config.frozen_clock_ms.is_none()).then(JournaledClock::new);
        let (timers, reseed) = context.with(|ctx| -> Result<_, String> {
            if let Some(max) = config.max_buffer_bytes {
                let collect = Function::new(ctx.clone(), |ctx: Ctx| ctx.run_gc())
                    .map_err(|err| err.to_string())?;
                run_script::<_, ()>(&ctx, "buffer limit", BUFFERS, (max as f64, collect))?;
            }
            let print = Function::new(ctx.clone(), move |stream: i32, text: String| {
                if let Some(link) = printer.link() {
                    let stream = if stream == 1 {
                        PrintStream::Stderr
                    } else {
                        PrintStream::Stdout
                    };
                    link.borrow().printer.push_to(stream, &text);
                }
            })
            .map_err(|err| err.to_string())?;
            run_script::<_, ()>(&ctx, "prelude", PRELUDE, ())?;
            let load_inspect =
                Function::new(ctx.clone(), load_inspect).map_err(|err| err.to_string())?;
            let inspector: Function = Bundled::Console.install(&ctx, (print, load_inspect))?;
            let show = Function::new(ctx.clone(), display::show_function(Rc::clone(&bridge)))
                .map_err(|err| err.to_string())?;
            Bundled::Display.install::<_, ()>(&ctx, (show, inspector.clone()))?;
            if ctx.store_userdata(Inspector(inspector)).is_err() {
                return Err("cannot keep the console's inspector".into());
            }
            let load_intl = Function::new(ctx.clone(), load_intl).map_err(|err| err.to_string())?;
            run_script::<_, ()>(&ctx, "Intl boot", INTL_BOOT, (load_intl,))?;
            node_modules::install(&ctx, &bridge)?;
            let timers = if config.web_polyfills {
                let driver: Object = Bundled::Polyfills.install(&ctx, (MAX_TIMER_CALLBACKS,))?;
                Some(Persistent::save(&ctx, driver))
            } else {
                None
            };
            if let Some(ms) = config.frozen_clock_ms {
                run_script::<_, ()>(&ctx, "frozen clock", CLOCK, (ms as f64,))?;
            }
            if let Some(journal) = &clock_journal {
                journal.install(&ctx)?;
            }
            let reseed = match config.random_seed {
                Some(seed) => {
                    let (high, low) = ((seed >> 32) as u32, seed as u32);
                    let reseed: Function = run_script(&ctx, "seeded random", RANDOM, (high, low))?;
                    Some(Persistent::save(&ctx, reseed))
                }
                None => None,
            };
            if config.strict_eval {
                run_script::<_, ()>(&ctx, "strict eval", STRICT, ())?;
            }
            Ok((timers, reseed))
        })?;
        Ok(Self {
            timers,
            reseed,
            inspect_results: config.inspect_results,
            context,
            _runtime: runtime,
            bridge,
            installed: HashSet::new(),
            feeds: 0,
            clock_journal,
        })
        .inspect(|engine| {
            *engine.bridge.clock_journal.borrow_mut() = engine.clock_journal.clone();
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

    /// The polyfills' timer driver's `name` method, if polyfills are on.
    fn timer_method<'js>(&self, ctx: &Ctx<'js>, name: &str) -> Option<Function<'js>> {
        let driver = self.timers.clone()?.restore(ctx).ok()?;
        driver.get(name).ok()
    }

    /// Runs queued jobs until none is left or the guest must stop.
    fn run_jobs(&self, ctx: &Ctx<'_>) {
        while !self.bridge.must_stop() && ctx.execute_pending_job() {}
    }

    /// Runs the earliest virtual timer; false when none is left.
    fn tick(&self, ctx: &Ctx<'_>) -> bool {
        let Some(tick) = self.timer_method(ctx, "tick") else {
            return false;
        };
        match tick.call::<_, bool>(()) {
            Ok(ran) => ran,
            Err(_) => {
                let _ = ctx.catch();
                false
            }
        }
    }

    /// Drives the event loop until `promise` settles: jobs first, then
    /// pending host calls, then virtual timers.
    fn settle<'js>(
        &self,
        ctx: &Ctx<'js>,
        promise: &rquickjs::Promise<'js>,
    ) -> Result<JsValue<'js>, JsValue<'js>> {
        loop {
            self.run_jobs(ctx);
            if self.bridge.must_stop() {
                return Err(JsValue::new_undefined(ctx.clone()));
            }
            match promise.result::<JsValue>() {
                Some(Ok(value)) => return Ok(value),
                Some(Err(_)) => return Err(ctx.catch()),
                None => {}
            }
            if self.bridge.has_pending() {
                if self.bridge.await_pending(ctx).is_err() {
                    return Err(JsValue::new_undefined(ctx.clone()));
                }
                continue;
            }
            if self.tick(ctx) {
                continue;
            }
            return Err(rquickjs::String::from_str(
                ctx.clone(),
                "the result is a promise that never settles",
            )
            .map(|s| s.into_value())
            .unwrap_or_else(|_| JsValue::new_undefined(ctx.clone())));
        }
    }

    /// Runs a snippet as a script (its last expression is the result) or,
    /// with a top-level import or export, as a module (its default export is
    /// the result).
    fn evaluate<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        code: String,
    ) -> Result<JsValue<'js>, JsValue<'js>> {
        if is_module(&code) {
            self.feeds += 1;
            let name = format!("<feed {}>", self.feeds);
            let (module, promise) = Module::declare(ctx.clone(), name, code)
                .and_then(|module| module.eval())
                .map_err(|_| ctx.catch())?;
            self.settle(ctx, &promise)?;
            let namespace = module.namespace().map_err(|_| ctx.catch())?;
            return namespace
                .get::<_, JsValue>("default")
                .map_err(|_| ctx.catch());
        }
        // Top-level await needs an async evaluation, which wraps the
        // completion value; only code that awaits pays for it.
        let asynchronous = code.contains("await");
        // Sloppy mode, as a browser's or Node's script: "use strict" opts in.
        let options = || {
            let mut options = EvalOptions::default();
            options.strict = false;
            options.promise = asynchronous;
            options.filename = Some("<input>".into());
            options
        };
        let evaluated = ctx.eval_with_options::<JsValue, _>(code, options());
        let value = evaluated.map_err(|_| ctx.catch())?;
        let Some(promise) = value.as_promise() else {
            return Ok(value);
        };
        let settled = self.settle(ctx, promise)?;
        if !asynchronous {
            return Ok(settled);
        }
        // The async evaluation's completion is `{ value }`; a final promise
        // in it is awaited too, as a script's would be.
        let value = settled
            .as_object()
            .and_then(|wrapper| wrapper.get::<_, JsValue>("value").ok())
            .unwrap_or(settled);
        match value.as_promise() {
            Some(promise) => self.settle(ctx, promise),
            None => Ok(value),
        }
    }
    /// The reply for a feed a limit or the host ended, if one did: such an
    /// end stands whatever the guest did after it.
    fn limit_reply(&self) -> Option<Response> {
        let elapsed_us = self.bridge.elapsed_us();
        if let Some((kind, message)) = self.bridge.abort.borrow().clone() {
            return Some(Response::error(
                elapsed_us,
                kind,
                GuestException::new("RuntimeError", &message),
            ));
        }
        if self.bridge.heap.exhausted() {
            return Some(Response::error(
                elapsed_us,
                ErrorKind::Memory,
                GuestException::new(
                    "MemoryError",
                    &format!(
                        "max_heap_size exceeded: the JavaScript heap would pass {} bytes",
                        self.bridge.heap.limit()
                    ),
                ),
            ));
        }
        if self.bridge.over_time() {
            return Some(Response::error(
                elapsed_us,
                ErrorKind::Timeout,
                GuestException::new("Error", "max_duration exceeded"),
            ));
        }
        None
    }

    /// The reply for a value the guest threw. Reading its name, message
    /// and stack may run the guest's getters: the caller keeps the clock
    /// running.
    fn error_reply<'js>(&self, ctx: &Ctx<'js>, thrown: JsValue<'js>) -> Response {
        if let Some(reply) = self.limit_reply() {
            return reply;
        }
        let elapsed_us = self.bridge.elapsed_us();
        let stop = || self.bridge.must_stop();
        let (name, message, stack) = match thrown.as_object() {
            Some(object) => (
                object
                    .get::<_, String>("name")
                    .unwrap_or_else(|_| "Error".into()),
                object.get::<_, String>("message").unwrap_or_default(),
                object.get::<_, String>("stack").unwrap_or_default(),
            ),
            None => {
                let text = show(ctx, &thrown, &stop);
                ("Error".to_owned(), text, String::new())
            }
        };
        // A memory limit is known from the heap meter (above), never from
        // words a guest can throw.
        let kind = if name == "SyntaxError"
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
        traceback.truncate(traceback.floor_char_boundary(MAX_TRACEBACK));
        Response::Error {
            elapsed_us,
            kind,
            exception: GuestException::new(type_name, &message),
            traceback,
        }
    }
}

impl Engine for JavaScriptEngine {
    fn warm_up(&mut self) {
        // In a scope of its own, so nothing it declares reaches the guest.
        let context = self.context.clone();
        context.with(|ctx| {
            let warmed = ctx
                .eval::<JsValue, _>("(() => { const f = (x) => [x, {k: x}]; return f(1 + 1); })()");
            if warmed.is_err() {
                let _ = ctx.catch();
            }
            while ctx.execute_pending_job() {}
        });
    }

    fn feed(&mut self, feed: Feed, link: &SharedLink) -> Result<Response, Closed> {
        *self.bridge.link.borrow_mut() = Some(Rc::clone(link));
        self.bridge.abort.replace(None);
        self.bridge.heap.reset();
        let Feed {
            code,
            inputs,
            functions,
        } = feed;
        let context = self.context.clone();
        let reply = context.with(|ctx| {
            if let Err(err) = self.install(&ctx, functions) {
                return Response::error(
                    self.bridge.elapsed_us(),
                    ErrorKind::Protocol,
                    GuestException::new("Error", &format!("cannot install host functions: {err}")),
                );
            }
            for (name, value) in inputs {
                let bound = from_wire(&ctx, value, &name)
                    .and_then(|value| ctx.globals().set(name.as_str(), value));
                if bound.is_err() {
                    let thrown = ctx.catch();
                    let message = show(&ctx, &thrown, &|| false);
                    return Response::error(
                        self.bridge.elapsed_us(),
                        ErrorKind::Conversion,
                        GuestException::new("TypeError", &format!("input {name:?}: {message}")),
                    );
                }
            }
            if let Some(start) = self.timer_method(&ctx, "startFeed")
                && start.call::<_, ()>(()).is_err()
            {
                let _ = ctx.catch();
            }
            self.bridge.clock.start();
            let settled = self.evaluate(&ctx, code);
            // Jobs and timers the snippet queued run before the feed ends;
            // host calls still pending are abandoned.
            loop {
                self.run_jobs(&ctx);
                if self.bridge.must_stop() || !self.tick(&ctx) {
                    break;
                }
            }
            self.bridge.abandon_pending();
            // A limit or a host abort stands even if the guest caught the
            // error it raised and finished before the interrupt handler ran.
            let settled = match settled {
                Ok(_) if self.bridge.must_stop() => Err(JsValue::new_undefined(ctx.clone())),
                other => other,
            };
            // The clock runs on while the result (or what was thrown) is
            // converted: getters, toString and iterators in it are guest code.
            let stop = || self.bridge.must_stop();
            let converted = settled.map(|value| match inspected_result(self, &ctx, &value) {
                Some(text) => Ok(stockade_wire::Value::Repr(text)),
                None => to_wire(&ctx, &value, &stop),
            });
            let reply = match converted {
                Ok(Ok(value)) => Response::Complete {
                    elapsed_us: self.bridge.elapsed_us(),
                    value,
                },
                Ok(Err(Refused(why))) => Response::error(
                    self.bridge.elapsed_us(),
                    ErrorKind::Conversion,
                    GuestException::new(
                        "TypeError",
                        &format!("the result cannot cross to the host: {why}"),
                    ),
                ),
                Err(thrown) => self.error_reply(&ctx, thrown),
            };
            self.bridge.clock.stop();
            self.limit_reply().unwrap_or(reply)
        });
        if self.bridge.closed.get() {
            return Err(Closed);
        }
        if let Some(journal) = &self.clock_journal
            && !journal.report(link, true)
        {
            // The host would replay this session wrongly: say so.
            return Ok(Response::protocol_violation(
                self.elapsed_us(),
                "the feed read the clock more often than a Clock message can carry",
            ));
        }
        Ok(reply)
    }

    fn forked(&mut self) -> Result<(), String> {
        let seed = stockade_worker_core::template::fresh_seed()?;
        self.context.with(|ctx| {
            let raw = ctx.as_raw().as_ptr();
            // SAFETY: `raw` is this engine's live context, used on the
            // thread that owns it; both calls only set a field of it.
            unsafe {
                JS_ReseedRandom(raw, seed);
                JS_RestartPerformanceClock(raw);
            }
        });
        Ok(())
    }

    fn reseed(&mut self, seed: u64) -> Result<(), String> {
        let Some(reseed) = &self.reseed else {
            return Err("this session's Math.random was not seeded by the host".into());
        };
        let reseed = reseed.clone();
        self.context.with(|ctx| {
            let (high, low) = ((seed >> 32) as u32, seed as u32);
            reseed
                .restore(&ctx)
                .and_then(|reseed| reseed.call::<_, ()>((high, low)))
                .map_err(|err| format!("cannot reseed Math.random: {err}"))
        })
    }

    fn replay_clock(&mut self, readings: Vec<f64>) -> Result<(), String> {
        match &self.clock_journal {
            Some(journal) => {
                journal.replay(readings);
                Ok(())
            }
            None => Err("this session does not journal its clock".into()),
        }
    }

    fn poisoned(&self) -> Option<String> {
        // QuickJS survives a refused allocation, but a heap that ran out in
        // the middle of an operation is not trusted with another feed.
        self.bridge.heap.exhausted().then(|| {
            format!(
                "max_heap_size exceeded: the JavaScript heap would pass {} bytes; the worker ended",
                self.bridge.heap.limit()
            )
        })
    }

    fn elapsed_us(&self) -> u64 {
        micros(self.bridge.clock.elapsed())
    }

    fn name(&self) -> String {
        "javascript (QuickJS-NG via rquickjs 0.14)".into()
    }
}
