//! What guest code reaches the host through: printing (`emit`), rich
//! outputs (`show`), names the
//! guest never defined (`resolve`, before a feed that reads them runs) and
//! host functions (`HostFunction`). Each works only on the session thread while
//! a feed runs, through the feed's context; the link is borrowed for one
//! exchange at a time and never while guest code runs.
//!
//! A guest can call these directly (it owns the interpreter); they keep
//! the protocol's promises themselves: the host only hears Calls of
//! functions it listed or confirmed in a Lookup, and a feed the host ended
//! asks it nothing more.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use stockade_wire::{CallOutcome, ErrorKind, LookupOutcome, MAX_OUTPUT_TEXT, Output, PrintStream};
use stockade_worker_core::engine::{SharedLink, micros};
use stockade_worker_core::link::Interrupt;
use stockade_worker_core::print::Printer;

use crate::clock::Clock;
use crate::ending::FeedEnd;
use crate::values::{exception_for, to_python, to_wire};

/// What a feed shares with the guest's calls back into it.
#[derive(Debug)]
pub struct FeedContext {
    pub link: SharedLink,
    pub clock: Arc<Clock>,
    pub state: Rc<RefCell<HostState>>,
    /// guest.py's `pending_call`: an async host call the host left pending
    /// becomes a future of the running event loop.
    pub pending_call: Py<PyAny>,
    /// guest.py's `feed_ended`: the class of the error a guest meets when
    /// the host ends its feed.
    pub feed_ended: Py<PyAny>,
    /// What keeps a feed the host ended from going on.
    pub feed_end: Rc<FeedEnd>,
}

/// What the engine knows about the host across feeds.
#[derive(Debug, Default)]
pub struct HostState {
    /// Names the host listed or confirmed as functions.
    pub functions: HashSet<String>,
    next_call_id: u32,
    /// Why the current feed was ended by the host (its Abort, a protocol
    /// error): the feed's reply reports this, whatever the guest did next.
    pub ended: Option<(ErrorKind, String)>,
    /// The host left an async call pending this feed: its awaitables must
    /// be forgotten when the feed ends.
    pub pending_made: bool,
}

thread_local! {
    /// Set on the session thread while a feed runs.
    static FEED: RefCell<Option<FeedContext>> = const { RefCell::new(None) };
}

/// The print buffer, for output written on any thread (the buffer is
/// shared and locked; it is set when the engine starts).
static PRINTER: OnceLock<Printer> = OnceLock::new();

/// Gives guest output from every thread to the worker's print buffer.
pub fn set_printer(printer: Printer) {
    let _ = PRINTER.set(printer);
}

/// Runs `body` with `context` as the feed's context on this thread.
pub fn with_feed<T>(context: FeedContext, body: impl FnOnce() -> T) -> T {
    FEED.with(|feed| *feed.borrow_mut() = Some(context));
    let out = body();
    FEED.with(|feed| *feed.borrow_mut() = None);
    out
}

fn outside_a_feed() -> PyErr {
    PyRuntimeError::new_err(
        "the host can be reached only from the session's own thread while a feed runs",
    )
}

/// Runs `f` with the feed's context, or fails with a RuntimeError.
fn in_feed<T>(f: impl FnOnce(&FeedContext) -> PyResult<T>) -> PyResult<T> {
    FEED.with(|feed| match feed.try_borrow() {
        Ok(feed) => match feed.as_ref() {
            Some(context) => f(context),
            None => Err(outside_a_feed()),
        },
        Err(_) => Err(outside_a_feed()),
    })
}

/// Writes guest output to the host's print stream (1 stdout, 2 stderr),
/// from whichever thread printed it.
#[pyfunction]
pub fn emit(stream: u8, text: &str) {
    let stream = if stream == 2 {
        PrintStream::Stderr
    } else {
        PrintStream::Stdout
    };
    if let Some(printer) = PRINTER.get() {
        printer.push_to(stream, text);
    }
}

/// Sends a rich output (`mime_type`, its bytes, a plain-text form) to the
/// host after what was printed before it, from whichever thread showed
/// it; guest_outputs.py's `display` calls this. A plain-text form past
/// its cap is cut.
#[pyfunction]
pub fn show(mime_type: &str, data: &[u8], text: &str) -> PyResult<()> {
    if !Output::valid_mime_type(mime_type) {
        return Err(PyValueError::new_err(format!(
            "{mime_type:?} is not a MIME type (type/subtype, printable ASCII)"
        )));
    }
    let text = &text[..text.floor_char_boundary(MAX_OUTPUT_TEXT)];
    if let Some(printer) = PRINTER.get() {
        printer.show(Output {
            mime_type: mime_type.to_owned(),
            data: data.to_vec(),
            text: text.to_owned(),
        });
    }
    Ok(())
}

/// Turns the host's interruption of a suspension into what the guest meets.
fn interrupted(context: &FeedContext, py: Python<'_>, interrupt: Interrupt, asker: Asker) -> PyErr {
    match interrupt {
        // The host is gone or closed the session: nothing is left to do.
        // SAFETY: _exit ends the process at once; nothing is used after it.
        Interrupt::Closed => unsafe { libc::_exit(0) },
        Interrupt::Abort { kind, message } => {
            let again = context
                .state
                .borrow_mut()
                .ended
                .replace((kind, message.clone()))
                .is_some();
            let Ok(class) = context.feed_ended.bind(py).call1((message.as_str(),)) else {
                return PyRuntimeError::new_err(message);
            };
            // Raised now, and once more at the guest's next check (a loop
            // turn, a call): a guest that catches the first meets the
            // second outside its `try` (where the interpreter checks
            // depends on its version; 3.12 checks after a loop's backward
            // jump, inside the loop's `try`). A guest that asks the host
            // again has caught both: from then on every line it runs and
            // every Python function it calls raises (ending.rs), handlers'
            // lines too. Until then the exception unwinds as any does,
            // running the `finally` blocks it meets (the event loop's
            // among them, whose own asks do not count). (The instances
            // first: making one runs Python, which would meet the second
            // at once.)
            let now = match class.call0() {
                Ok(exception) => PyErr::from_value(exception),
                Err(err) => return err,
            };
            if again
                && asker == Asker::HostFunction
                && let Err(err) = class
                    .call0()
                    .and_then(|exception| context.feed_end.arm(py, &exception))
            {
                return err;
            }
            if let Some(thread) = context.clock.raise_in() {
                // SAFETY: the GIL is held; the class is alive (`class`),
                // and the thread state takes its own reference.
                unsafe {
                    pyo3::ffi::PyThreadState_SetAsyncExc(thread as _, class.as_ptr());
                }
            }
            now
        }
    }
}

/// What asks the host: a call of a host function, or anything else (a
/// name, an OS call, the event loop waiting on async calls: the engine's
/// own machinery and the standard library's make these too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asker {
    HostFunction,
    Other,
}

/// Asks the host through the link with the guest clock paused.
fn ask<T>(
    context: &FeedContext,
    py: Python<'_>,
    asker: Asker,
    exchange: impl FnOnce(&mut stockade_worker_core::link::Link, u64) -> Result<T, Interrupt>,
) -> PyResult<T> {
    // The clock goes on afterwards only if it ran before: an ask made
    // while the engine converts a failure must not start it again.
    let was_running = context.clock.stop(py);
    let resume = || {
        if was_running {
            context.clock.run();
        }
    };
    let elapsed = micros(context.clock.elapsed());
    // A dump taken at this suspension holds the readings made before it;
    // ones that cannot be sent now go with the feed's end.
    crate::journal::report(&context.link, false);
    let answer = match context.link.try_borrow_mut() {
        Ok(mut link) => exchange(&mut link, elapsed),
        Err(_) => {
            resume();
            return Err(outside_a_feed());
        }
    };
    resume();
    answer.map_err(|interrupt| interrupted(context, py, interrupt, asker))
}

/// The calling thread's Python thread id.
pub fn python_thread_id(py: Python<'_>) -> PyResult<u64> {
    py.import("_thread")?
        .getattr("get_ident")?
        .call0()?
        .extract()
}

/// A name the guest never defined: a host function (one the host listed
/// needs no Lookup), a value the host holds, or None when the host has
/// neither (the guest then meets NameError where it reads the name).
pub fn resolve(py: Python<'_>, name: String) -> PyResult<Option<Py<PyAny>>> {
    in_feed(|context| {
        if context.state.borrow().functions.contains(&name) {
            return Ok(Some(
                HostFunction { name }.into_pyobject(py)?.into_any().unbind(),
            ));
        }
        let asked = name.clone();
        match ask(context, py, Asker::Other, |link, elapsed| {
            link.lookup(elapsed, asked)
        })? {
            LookupOutcome::Function => {
                context.state.borrow_mut().functions.insert(name.clone());
                Ok(Some(
                    HostFunction { name }.into_pyobject(py)?.into_any().unbind(),
                ))
            }
            LookupOutcome::Value(value) => to_python(py, value)
                .map(|value| Some(value.unbind()))
                .map_err(|message| {
                    PyTypeError::new_err(format!("host value for {name:?}: {message}"))
                }),
            LookupOutcome::Undefined | LookupOutcome::Abort(_) => Ok(None),
        }
    })
}

/// Waits until the host finishes one or more of the async calls `call_ids`
/// (the event loop has nothing else to do); returns `(call_id, failed,
/// value or exception)` for each finished one.
#[pyfunction]
pub fn await_calls(py: Python<'_>, call_ids: Vec<u32>) -> PyResult<Vec<(u32, bool, Py<PyAny>)>> {
    in_feed(|context| {
        let results = ask(context, py, Asker::Other, |link, elapsed| {
            link.await_calls(elapsed, call_ids)
        })?;
        let mut out = Vec::with_capacity(results.len());
        for (call_id, outcome) in results {
            out.push(match outcome {
                CallOutcome::Return(value) => {
                    let value = to_python(py, value).map_err(|message| {
                        PyTypeError::new_err(format!(
                            "host function returned a value the guest cannot take: {message}"
                        ))
                    });
                    match value {
                        Ok(value) => (call_id, false, value.unbind()),
                        Err(err) => (call_id, true, err.into_value(py).into_any()),
                    }
                }
                CallOutcome::Raise(exception) => (
                    call_id,
                    true,
                    exception_for(py, &exception).into_value(py).into_any(),
                ),
                // Link::await_calls turns Abort and Pending into an
                // interruption; neither arrives here.
                CallOutcome::Abort(message) => (
                    call_id,
                    true,
                    PyRuntimeError::new_err(message).into_value(py).into_any(),
                ),
                CallOutcome::Pending => (
                    call_id,
                    true,
                    PyRuntimeError::new_err("a pending call was resolved as pending")
                        .into_value(py)
                        .into_any(),
                ),
            });
        }
        Ok(out)
    })
}

/// A host function as the guest holds it: calling it asks the host.
#[pyclass(frozen, module = "stockade")]
#[derive(Debug)]
pub struct HostFunction {
    name: String,
}

#[pymethods]
impl HostFunction {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        in_feed(|context| {
            let mut wire_args = Vec::with_capacity(args.len());
            for (i, arg) in args.iter().enumerate() {
                wire_args.push(to_wire(&arg).map_err(|message| {
                    PyTypeError::new_err(format!(
                        "argument {i} of {}() cannot cross to the host: {message}",
                        self.name
                    ))
                })?);
            }
            let mut wire_kwargs = Vec::new();
            if let Some(kwargs) = kwargs {
                for (key, value) in kwargs.iter() {
                    let key: String = key.extract()?;
                    let value = to_wire(&value).map_err(|message| {
                        PyTypeError::new_err(format!(
                            "argument {key} of {}() cannot cross to the host: {message}",
                            self.name
                        ))
                    })?;
                    wire_kwargs.push((key, value));
                }
            }
            let call_id = {
                let mut state = context.state.borrow_mut();
                state.next_call_id = state.next_call_id.wrapping_add(1);
                state.next_call_id
            };
            let name = self.name.clone();
            let outcome = ask(context, py, Asker::HostFunction, |link, elapsed| {
                link.call(elapsed, call_id, name, wire_args, wire_kwargs)
            })?;
            match outcome {
                CallOutcome::Return(value) => {
                    to_python(py, value).map(Bound::unbind).map_err(|message| {
                        PyTypeError::new_err(format!(
                            "host function returned a value the guest cannot take: {message}"
                        ))
                    })
                }
                CallOutcome::Raise(exception) => Err(exception_for(py, &exception)),
                CallOutcome::Pending => {
                    context.state.borrow_mut().pending_made = true;
                    Ok(context.pending_call.bind(py).call1((call_id,))?.unbind())
                }
                // Link::call turns Abort into an interruption.
                CallOutcome::Abort(message) => Err(PyRuntimeError::new_err(message)),
            }
        })
    }

    fn __repr__(&self) -> String {
        format!("<host function {}>", self.name)
    }
}

/// Asks the host to serve an OS call on a mounted file (guest.py's
/// `mount_files` calls this, named as monty names its OS calls); returns
/// `(True, value)`, or `(False, (type name, message))` for the exception
/// the host named, which guest.py raises as the OSError Python would.
#[pyfunction]
pub fn os_call(
    py: Python<'_>,
    name: String,
    args: Vec<Bound<'_, PyAny>>,
) -> PyResult<(bool, Py<PyAny>)> {
    let mut wire_args = Vec::with_capacity(args.len());
    for arg in &args {
        wire_args.push(to_wire(arg).map_err(|message| {
            PyTypeError::new_err(format!(
                "an argument of {name} cannot cross to the host: {message}"
            ))
        })?);
    }
    in_feed(|context| {
        let outcome = ask(context, py, Asker::Other, |link, elapsed| {
            link.os_call(elapsed, name.clone(), wire_args, Vec::new())
        })?;
        match outcome {
            CallOutcome::Return(value) => {
                let value = to_python(py, value).map_err(|message| {
                    PyTypeError::new_err(format!("the host's answer to {name}: {message}"))
                })?;
                Ok((true, value.unbind()))
            }
            CallOutcome::Raise(exception) => Ok((
                false,
                (exception.type_name, exception.message)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
            )),
            // Link::os_call turns Abort into an interruption, and the wire
            // has no pending OS call.
            CallOutcome::Abort(message) => Err(PyRuntimeError::new_err(message)),
            CallOutcome::Pending => Err(PyRuntimeError::new_err(
                "the host answered an OS call as pending",
            )),
        }
    })
}
