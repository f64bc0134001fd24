//! The CPython engine's session: one globals mapping that persists across
//! feeds, each feed compiled as statements plus a trailing expression whose
//! value is the result, with the guest clock running while guest code (and
//! the conversion of what it returns) runs.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::{PyMemoryError, PySyntaxError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyModule};
use stockade_wire::{ConfigureLimits, ErrorKind, GuestException, MAX_TRACEBACK, Response};
use stockade_worker_core::engine::{Closed, Engine, Feed, SharedLink, micros};

use crate::clock::Clock;
use crate::ending::FeedEnd;
use crate::host::{FeedContext, HostState, python_thread_id, set_printer, with_feed};
use crate::values::{guest_exception, to_python, to_wire};

/// Frames the engine itself puts under the guest's (the event loop's, when
/// a feed awaits), added to the host's recursion limit.
const OWN_FRAMES: u32 = 8;
/// `ast.PyCF_ALLOW_TOP_LEVEL_AWAIT`: a feed may `await` at top level.
const PYCF_ALLOW_TOP_LEVEL_AWAIT: i32 = 0x2000;
/// `inspect.CO_COROUTINE`: the compiled feed awaits, so calling it makes a
/// coroutine for the event loop.
const CO_COROUTINE: i64 = 0x80;
/// Where a feed's code lives, for tracebacks: `main.py`, `main.py#2`, ...
const FEED_FILE: &str = "main.py";

/// A Python session on the real interpreter.
#[derive(Debug)]
pub struct CPythonEngine {
    globals: Py<PyDict>,
    compile_feed: Py<PyAny>,
    show_sources: Py<PyAny>,
    feed_ended: Py<PyAny>,
    feed_end: Rc<FeedEnd>,
    forget_pending: Py<PyAny>,
    /// guest_outputs.py's `outputs_at_feed_end`: the figures still open
    /// are sent when a feed ends.
    outputs_at_feed_end: Py<PyAny>,
    /// Modules a forked worker imports once its own layers are in force.
    preload_when_forked: Vec<String>,
    guest_frames: Py<PyAny>,
    function_type: Py<PyAny>,
    /// guest.py's `event_loop`: the session's event loop, made when first
    /// needed.
    event_loop: Py<PyAny>,
    pending_call: Py<PyAny>,
    /// guest.py's `reseed`: a journaled session's randomness takes more
    /// seed after a restore.
    reseed: Py<PyAny>,
    clock: Arc<Clock>,
    max_duration: Option<Duration>,
    max_memory: Option<u64>,
    state: Rc<RefCell<HostState>>,
    /// Feeds so far: each feed's code is its own "file" in tracebacks.
    feeds: u64,
    version: String,
}

/// How a feed's code failed, before it is a reply.
enum Failure {
    /// The snippet did not compile.
    Syntax(PyErr),
    /// Guest code raised (or the limit was raised in it).
    Raised(PyErr),
    /// The result could not be converted.
    Conversion(String),
}

impl CPythonEngine {
    pub fn new(
        py: Python<'_>,
        guest: &Bound<'_, PyModule>,
        limits: &ConfigureLimits,
    ) -> Result<Self, String> {
        let text = |e: PyErr| e.to_string();
        let sys = py.import("sys").map_err(text)?;
        let output = guest.getattr("Output").map_err(text)?;
        // The original streams too: the link is no longer on stdout, and
        // output written to `sys.__stdout__` reaches the host all the same.
        let stdout = output.call1((1, "<stdout>")).map_err(text)?;
        let stderr = output.call1((2, "<stderr>")).map_err(text)?;
        for (name, stream) in [
            ("stdout", &stdout),
            ("__stdout__", &stdout),
            ("stderr", &stderr),
            ("__stderr__", &stderr),
        ] {
            sys.setattr(name, stream).map_err(text)?;
        }
        // The real stdin is the link: the guest reads an empty stream.
        let stdin = py
            .import("io")
            .and_then(|io| io.getattr("StringIO"))
            .and_then(|class| class.call0())
            .map_err(text)?;
        sys.setattr("stdin", &stdin).map_err(text)?;
        sys.setattr("__stdin__", &stdin).map_err(text)?;
        sys.call_method1(
            "setrecursionlimit",
            (limits.max_recursion_depth.saturating_add(OWN_FRAMES),),
        )
        .map_err(text)?;
        // A plain dict, so the interpreter's fast paths for globals hold
        // (a dict subclass would cost every function's global reads).
        let globals = PyDict::new(py);
        let namespace = &globals;
        namespace.set_item("__name__", "__main__").map_err(text)?;
        namespace
            .set_item("__builtins__", py.import("builtins").map_err(text)?)
            .map_err(text)?;
        let event_loop = guest.getattr("event_loop").map_err(text)?;
        let time_limit = guest.getattr("TimeLimit").map_err(text)?.unbind();
        // The timer raises it; the reply is decided by the clock alone.
        let max_duration = limits.max_duration_us.map(Duration::from_micros);
        let clock = Clock::new(max_duration, time_limit);
        // `start` runs on the session thread: where guest code will run.
        clock.set_thread(python_thread_id(py).map_err(text)?);
        let version = sys
            .getattr("version")
            .and_then(|v| v.extract::<String>())
            .map_err(text)?;
        Ok(Self {
            globals: globals.clone().unbind(),
            compile_feed: guest.getattr("compile_feed").map_err(text)?.unbind(),
            guest_frames: guest.getattr("guest_frames").map_err(text)?.unbind(),
            function_type: py
                .import("types")
                .and_then(|t| t.getattr("FunctionType"))
                .map_err(text)?
                .unbind(),
            event_loop: event_loop.unbind(),
            pending_call: guest.getattr("pending_call").map_err(text)?.unbind(),
            reseed: guest.getattr("reseed").map_err(text)?.unbind(),
            show_sources: guest.getattr("show_sources").map_err(text)?.unbind(),
            feed_ended: guest.getattr("feed_ended").map_err(text)?.unbind(),
            feed_end: Rc::new(FeedEnd::new(py).map_err(text)?),
            forget_pending: guest.getattr("forget_pending").map_err(text)?.unbind(),
            outputs_at_feed_end: guest.getattr("outputs_at_feed_end").map_err(text)?.unbind(),
            preload_when_forked: Vec::new(),
            clock,
            max_duration,
            max_memory: limits.max_memory,
            state: Rc::new(RefCell::new(HostState::default())),
            feeds: 0,
            version: version
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned(),
        })
    }

    /// Leaves `modules` for each forked worker to import (`Engine::forked`).
    pub fn import_when_forked(&mut self, modules: Vec<String>) {
        self.preload_when_forked = modules;
    }

    /// Binds the feed's inputs as globals.
    fn bind(
        &self,
        py: Python<'_>,
        inputs: Vec<(String, stockade_wire::Value)>,
    ) -> Result<(), GuestException> {
        if inputs.is_empty() {
            return Ok(());
        }
        let keyword = py.import("keyword").and_then(|k| k.getattr("iskeyword"));
        let globals = self.globals.bind(py);
        for (name, value) in inputs {
            let is_keyword = keyword
                .as_ref()
                .ok()
                .and_then(|iskeyword| iskeyword.call1((name.as_str(),)).ok())
                .is_some_and(|r| r.is_truthy().unwrap_or(true));
            let is_identifier = pyo3::types::PyString::new(py, &name)
                .call_method0("isidentifier")
                .is_ok_and(|r| r.is_truthy().unwrap_or(false));
            if !is_identifier || is_keyword {
                return Err(GuestException::new(
                    "ValueError",
                    &format!("input name {name:?} is not a Python identifier"),
                ));
            }
            let object = to_python(py, value).map_err(|message| {
                GuestException::new("TypeError", &format!("input {name:?}: {message}"))
            })?;
            if let Err(err) = globals.set_item(name.as_str(), object) {
                return Err(GuestException::new(
                    "TypeError",
                    &format!("input {name:?}: {err}"),
                ));
            }
        }
        Ok(())
    }

    fn conversion_error(&self, exception: GuestException) -> Response {
        Response::error(
            micros(self.clock.elapsed()),
            ErrorKind::Conversion,
            exception,
        )
    }

    /// Compiles and runs one snippet; returns its trailing expression's value.
    fn run(&mut self, py: Python<'_>, code: &str) -> Result<stockade_wire::Value, Failure> {
        self.feeds += 1;
        let filename = if self.feeds == 1 {
            FEED_FILE.to_owned()
        } else {
            format!("{FEED_FILE}#{}", self.feeds)
        };
        let compiled = self
            .compile_feed
            .bind(py)
            .call1((
                code,
                filename,
                PYCF_ALLOW_TOP_LEVEL_AWAIT,
                self.globals.bind(py),
            ))
            .map_err(Failure::Syntax)?;
        let (body, last, names): (Bound<'_, PyAny>, Bound<'_, PyAny>, Vec<String>) =
            compiled.extract().map_err(|e: PyErr| Failure::Raised(e))?;
        self.resolve_free_names(py, names)
            .map_err(Failure::Raised)?;
        let ran = (|| {
            if !body.is_none() {
                self.call(py, &body)?;
            }
            if last.is_none() {
                return Ok(None);
            }
            self.call(py, &last).map(Some)
        })();
        // Whether the feed ran to its end or raised, the charts it drew
        // are shown (as a notebook cell's are); one that cannot be drawn
        // is reported on stderr and spoils nothing else. Not after the
        // host ended the feed: nothing more of the guest's runs then.
        let ended = self.state.borrow().ended.is_some();
        if !ended && let Err(err) = self.outputs_at_feed_end.bind(py).call0() {
            crate::host::emit(
                2,
                &format!("[stockade: the open figures could not be shown: {err}]\n"),
            );
        }
        match ran {
            Ok(Some(value)) => to_wire(&value).map_err(Failure::Conversion),
            Ok(None) => Ok(stockade_wire::Value::None),
            // A script that ends itself with success (`sys.exit()`,
            // `sys.exit(0)`) has ended its feed, not failed it.
            Err(err) if exited_with_success(py, &err) => Ok(stockade_wire::Value::None),
            Err(err) => Err(Failure::Raised(err)),
        }
    }

    /// Asks the host about every name the feed reads that nothing defines
    /// (`names`), and binds what it has (values and functions) as globals,
    /// before the feed runs: a plain-dict globals cannot ask when the line
    /// runs.
    fn resolve_free_names(&self, py: Python<'_>, names: Vec<String>) -> PyResult<()> {
        let globals = self.globals.bind(py);
        for name in names {
            if let Some(found) = crate::host::resolve(py, name.clone())? {
                globals.set_item(name, found)?;
            }
        }
        Ok(())
    }

    /// Runs compiled feed code in the session's globals, as the body of a
    /// function (so an awaiting feed becomes a coroutine), and an awaiting
    /// one to its end on the session's event loop.
    fn call<'py>(&self, py: Python<'py>, code: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let function = self
            .function_type
            .bind(py)
            .call1((code, self.globals.bind(py)))?;
        let outcome = function.call0()?;
        let flags: i64 = code.getattr("co_flags")?.extract()?;
        if flags & CO_COROUTINE == 0 {
            return Ok(outcome);
        }
        self.event_loop
            .bind(py)
            .call0()?
            .call_method1("run_until_complete", (outcome,))
    }

    /// The reply for a failed feed.
    fn failure(&self, py: Python<'_>, failure: Failure) -> Response {
        let elapsed_us = micros(self.clock.elapsed());
        let err = match failure {
            Failure::Conversion(message) => {
                return Response::error(
                    elapsed_us,
                    ErrorKind::Conversion,
                    GuestException::new(
                        "RuntimeError",
                        &format!("the result cannot cross to the host: {message}"),
                    ),
                );
            }
            Failure::Syntax(err) if err.is_instance_of::<PySyntaxError>(py) => {
                return self.error_reply(py, ErrorKind::Syntax, &err, elapsed_us);
            }
            Failure::Syntax(err) | Failure::Raised(err) => err,
        };
        // A MemoryError the budget caused, not one the guest raised.
        if err.is_instance_of::<PyMemoryError>(py)
            && let (Some(would_be), Some(max)) = (crate::memory::tripped(), self.max_memory)
        {
            let exception = GuestException::new(
                "MemoryError",
                &format!("memory limit exceeded: {would_be} bytes > {max} bytes (max_memory)"),
            );
            let mut reply = self.error_reply(py, ErrorKind::Memory, &err, elapsed_us);
            if let Response::Error { exception: e, .. } = &mut reply {
                *e = exception;
            }
            return reply;
        }
        self.error_reply(py, ErrorKind::Exception, &err, elapsed_us)
    }

    /// The reply for a feed that ran past the budget: whatever the guest
    /// did with the exception the timer raised, the limit stands.
    fn timed_out(&self) -> Response {
        let max = self.max_duration.unwrap_or_default();
        let exception = GuestException::new(
            "TimeoutError",
            &format!(
                "time limit exceeded: {:.3}s > {:.3}s (max_duration)",
                self.clock.elapsed().as_secs_f64(),
                max.as_secs_f64()
            ),
        );
        Response::Error {
            elapsed_us: micros(self.clock.elapsed()),
            kind: ErrorKind::Timeout,
            traceback: exception.to_string(),
            exception,
        }
    }

    fn error_reply(
        &self,
        py: Python<'_>,
        kind: ErrorKind,
        err: &PyErr,
        elapsed_us: u64,
    ) -> Response {
        let value = err.value(py);
        let exception = guest_exception(value.as_any());
        // The traceback travels beside the exception until it is
        // normalised, so it is passed explicitly, from the guest's first
        // frame (the event loop's are the engine's own).
        let full = err.traceback(py);
        let guest = full.as_ref().and_then(|tb| {
            self.guest_frames
                .bind(py)
                .call1((tb, FEED_FILE))
                .ok()
                .filter(|tb| !tb.is_none())
        });
        let shown = match guest {
            Some(tb) => tb,
            None => full.map_or_else(|| py.None().into_bound(py), |tb| tb.into_any()),
        };
        // traceback (and linecache) load with the first failure.
        let traceback = py
            .import("traceback")
            .and_then(|t| {
                let _ = self.show_sources.bind(py).call0();
                t.getattr("format_exception")
            })
            .and_then(|format| format.call1((value.get_type(), value, shown)))
            .and_then(|lines| lines.extract::<Vec<String>>())
            .map(|lines| lines.concat())
            .unwrap_or_else(|_| exception.to_string());
        Response::Error {
            elapsed_us,
            kind,
            exception,
            traceback: traceback[..traceback.floor_char_boundary(MAX_TRACEBACK)].to_owned(),
        }
    }
}

/// Whether `err` is a `SystemExit` whose code means success (none, or 0).
fn exited_with_success(py: Python<'_>, err: &PyErr) -> bool {
    if !err.is_instance_of::<pyo3::exceptions::PySystemExit>(py) {
        return false;
    }
    match err.value(py).getattr("code") {
        Ok(code) => code.is_none() || code.extract::<i64>().is_ok_and(|c| c == 0),
        Err(_) => false,
    }
}

impl Engine for CPythonEngine {
    fn feed(&mut self, feed: Feed, link: &SharedLink) -> Result<Response, Closed> {
        let Feed {
            code,
            inputs,
            functions,
        } = feed;
        set_printer(link.borrow().printer.clone());
        self.state.borrow_mut().functions.extend(functions);
        self.state.borrow_mut().ended = None;
        let context = Python::attach(|py| FeedContext {
            link: Rc::clone(link),
            clock: Arc::clone(&self.clock),
            state: Rc::clone(&self.state),
            pending_call: self.pending_call.clone_ref(py),
            feed_ended: self.feed_ended.clone_ref(py),
            feed_end: Rc::clone(&self.feed_end),
        });
        if self.clock.exceeded() {
            return Ok(self.timed_out());
        }
        crate::memory::clear_tripped();
        let reply = Python::attach(|py| {
            if let Err(refused) = self.bind(py, inputs) {
                return self.conversion_error(refused);
            }
            with_feed(context, || {
                self.clock.run();
                let outcome = self.run(py, &code);
                // A failure is converted with the clock running: its
                // message and traceback run guest code (`__str__`); not
                // that of a feed the host ended, whose reply says so.
                let ended = self.state.borrow().ended.is_some();
                let reply = match outcome {
                    Ok(value) => Ok(value),
                    Err(_) if ended => Ok(stockade_wire::Value::None),
                    Err(failure) => Err(self.failure(py, failure)),
                };
                self.feed_end.disarm(py);
                self.clock.stop(py);
                if std::mem::take(&mut self.state.borrow_mut().pending_made) {
                    let _ = self.forget_pending.bind(py).call0();
                }
                if self.clock.exceeded() {
                    return self.timed_out();
                }
                match reply {
                    Ok(value) => Response::Complete {
                        elapsed_us: micros(self.clock.elapsed()),
                        value,
                    },
                    Err(mut failed) => {
                        if let Response::Error { elapsed_us, .. } = &mut failed {
                            *elapsed_us = micros(self.clock.elapsed());
                        }
                        failed
                    }
                }
            })
        });
        if !crate::journal::report(link, true) {
            // The host would replay this session wrongly: say so.
            return Ok(Response::protocol_violation(
                micros(self.clock.elapsed()),
                "the feed read the clock more often than a Clock message can carry",
            ));
        }
        // A feed the host ended reports that, whatever the guest did after.
        if let Some((kind, message)) = self.state.borrow_mut().ended.take() {
            return Ok(Response::error(
                micros(self.clock.elapsed()),
                kind,
                GuestException::new("RuntimeError", &message),
            ));
        }
        Ok(reply)
    }

    fn forked(&mut self) -> Result<(), String> {
        let modules = std::mem::take(&mut self.preload_when_forked);
        Python::attach(|py| crate::template::import_preloaded(py, &modules, false))
    }

    fn before_ready(&mut self) -> Result<(), String> {
        self.clock.start_timer()
    }

    fn warm_up(&mut self) {
        // The feed path itself, on a throwaway namespace: compiling both
        // ways, finding free names, calling, converting.
        Python::attach(|py| {
            let namespace = PyDict::new(py);
            for snippet in ["def _f(x):\n    return [x, {'k': x}]\n_f(1 + 1)", "1 + 1"] {
                let Ok(compiled) = self.compile_feed.bind(py).call1((
                    snippet,
                    "<warm-up>",
                    PYCF_ALLOW_TOP_LEVEL_AWAIT,
                    &namespace,
                )) else {
                    continue;
                };
                let Ok((body, last, _names)) =
                    compiled.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>, Vec<String>)>()
                else {
                    continue;
                };
                for code in [body, last] {
                    if let Ok(value) = self
                        .function_type
                        .bind(py)
                        .call1((code, &namespace))
                        .and_then(|f| f.call0())
                    {
                        let _ = to_wire(&value);
                    }
                }
            }
            let _ = self.show_sources.bind(py).call0();
        });
        // What the interpreter holds now is its own; the guest's budget
        // counts from here.
        if let Some(max) = self.max_memory {
            crate::memory::arm(max);
        }
    }

    fn elapsed_us(&self) -> u64 {
        micros(self.clock.elapsed())
    }

    fn replay_clock(&mut self, readings: Vec<f64>) -> Result<(), String> {
        crate::journal::replay(readings)
    }

    fn reseed(&mut self, seed: u64) -> Result<(), String> {
        Python::attach(|py| {
            self.reseed
                .bind(py)
                .call1((seed,))
                .map(drop)
                .map_err(|err| err.to_string())
        })
    }

    fn name(&self) -> String {
        format!("python (cpython {})", self.version)
    }
}
