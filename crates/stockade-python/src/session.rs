//! `NativeSession`: one host-library session, driven from Python with the
//! GIL released while it waits on the worker.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use stockade::{DumpSeal, ExecuteLimits, Output, PrintStream, RunLimits, Session};

use crate::errors::{conversion, to_pyerr};
use crate::from_python::{Refusal, from_python, quoted};
use crate::functions::{async_function, sync_function};
use crate::options::session_options;
use crate::runtime::runtime_handle;
use crate::stepping::{answer_from, progress_tuple};
use crate::to_python::to_python;

#[pyclass(module = "stockade._native")]
#[derive(Debug)]
pub struct NativeSession {
    // A session serves one call at a time; a second thread is refused
    // rather than blocked (it would hold the GIL the first one needs).
    session: Mutex<Option<Session>>,
    /// Set by `cancel` from another thread (an asyncio task being
    /// cancelled): the running call's interrupt check sees it, outside the
    /// session's lock.
    cancelled: Arc<AtomicBool>,
}

/// Writes guest output to the Python callable, or to sys.stdout/stderr.
fn print_to(target: Option<Py<PyAny>>) -> impl FnMut(PrintStream, &str) + Send + 'static {
    move |stream, text| {
        Python::attach(|py| {
            let name = match stream {
                PrintStream::Stdout => "stdout",
                PrintStream::Stderr => "stderr",
            };
            let written = match &target {
                Some(callback) => callback.call1(py, (name, text)).map(|_| ()),
                None => py
                    .import("sys")
                    .and_then(|sys| sys.getattr(name))
                    .and_then(|file| file.call_method1("write", (text,)))
                    .map(|_| ()),
            };
            if let Err(err) = written {
                // A failing print callback must not end the guest's run.
                err.print(py);
            }
        });
    }
}

/// Hands each rich output to the Python callable as (mime_type, data,
/// text); without one, the host library notes it on stderr.
fn outputs_to(session: &mut Session, target: Option<Py<PyAny>>) {
    let Some(callback) = target else {
        session.clear_on_output();
        return;
    };
    session.on_output(move |output: Output| {
        Python::attach(|py| {
            let data = PyBytes::new(py, &output.data);
            if let Err(err) = callback.call1(py, (output.mime_type, data, output.text)) {
                // A failing output callback must not end the guest's run.
                err.print(py);
            }
        });
    });
}

type Guard<'a> = std::sync::MutexGuard<'a, Option<Session>>;

/// How long a call waits for a cancelled run to end in its own thread: the
/// run polls its cancellation every 20 ms and then kills its worker.
const CANCELLED_RUN_ENDS: std::time::Duration = std::time::Duration::from_secs(5);

impl NativeSession {
    /// Wraps a session the host library made (a pool's checkout).
    pub fn from_session(session: Session) -> Self {
        Self {
            session: Mutex::new(Some(session)),
            cancelled: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The session, unless it is closed or busy in another thread. A run
    /// that was cancelled is still ending in its thread (its worker is
    /// being killed): that one is waited for, briefly, with the GIL
    /// released, rather than reported as a second thread.
    fn lock(&self, py: Python<'_>) -> PyResult<Guard<'_>> {
        let waited_from = std::time::Instant::now();
        let guard = loop {
            match self.session.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                Err(std::sync::TryLockError::WouldBlock)
                    if self.cancelled.load(Ordering::Relaxed)
                        && waited_from.elapsed() < CANCELLED_RUN_ENDS =>
                {
                    py.detach(|| std::thread::sleep(std::time::Duration::from_millis(1)));
                }
                Err(std::sync::TryLockError::WouldBlock) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(
                        "the sandbox is running code in another thread; use one sandbox per thread",
                    ));
                }
            }
        };
        if guard.is_none() {
            return Err(crate::errors::configuration(
                py,
                "the sandbox is closed".into(),
            ));
        }
        Ok(guard)
    }
}

/// The seal dumps are made and opened with, or a ConfigurationError.
fn sealed_with(py: Python<'_>, keys: &[Vec<u8>], context: Vec<u8>) -> PyResult<DumpSeal> {
    DumpSeal::new(keys, context).map_err(|err| to_pyerr(py, err, None))
}

/// The inputs of a feed, converted, or refused with a ConversionError.
fn guest_inputs(
    py: Python<'_>,
    inputs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(String, stockade::Value)>> {
    let mut bound = Vec::new();
    if let Some(inputs) = inputs {
        for (name, value) in inputs.iter() {
            let name: String = name
                .extract()
                .map_err(|_| conversion(py, "input names must be str".into()))?;
            let value = match from_python(&value, &format!("inputs[{}]", quoted(&name))) {
                Ok(value) => value,
                Err(Refusal::Refused(message)) => return Err(conversion(py, message)),
                Err(Refusal::Raised(err)) => return Err(err),
            };
            bound.push((name, value));
        }
    }
    Ok(bound)
}

/// Where the interrupt check leaves the KeyboardInterrupt it caught.
type Caught = Arc<Mutex<Option<PyErr>>>;

/// The KeyboardInterrupt the interrupt check caught, if any.
fn taken(caught: &Caught) -> Option<PyErr> {
    caught.lock().ok().and_then(|mut slot| slot.take())
}

impl NativeSession {
    /// Lets Ctrl-C (a pending signal) or `cancel` end the call about to
    /// wait on the worker; returns where a caught KeyboardInterrupt lands.
    fn arm_interrupt(&self, session: &mut Session) -> Caught {
        let caught: Caught = Arc::new(Mutex::new(None));
        let stash = Arc::clone(&caught);
        let cancelled = Arc::clone(&self.cancelled);
        session.set_interrupt(move || {
            if cancelled.load(Ordering::Relaxed) {
                return true;
            }
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(err) => {
                    if let Ok(mut slot) = stash.lock() {
                        *slot = Some(err);
                    }
                    true
                }
            })
        });
        caught
    }
}

/// The session behind a guard `lock` returned.
fn open<'a>(guard: &'a mut Guard<'_>) -> PyResult<&'a mut Session> {
    guard
        .as_mut()
        .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the sandbox is closed"))
}

#[pymethods]
impl NativeSession {
    #[new]
    fn new(py: Python<'_>, language: &str, options: &Bound<'_, PyDict>) -> PyResult<Self> {
        let options = session_options(language, options)?;
        let session = py
            .detach(|| Session::new(options))
            .map_err(|err| to_pyerr(py, err, None))?;
        Ok(Self::from_session(session))
    }

    /// Runs `code` after binding `inputs`; returns the result as Python.
    #[pyo3(signature = (code, inputs=None, print=None, max_result_bytes=None, output=None))]
    fn run(
        &self,
        py: Python<'_>,
        code: &str,
        inputs: Option<&Bound<'_, PyDict>>,
        print: Option<Py<PyAny>>,
        max_result_bytes: Option<u64>,
        output: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let bound = guest_inputs(py, inputs)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        session.on_print(print_to(print));
        outputs_to(session, output);
        let interrupted = self.arm_interrupt(session);
        let code = code.to_owned();
        let limits = RunLimits { max_result_bytes };
        let result = py.detach(|| session.run_with_limits(&code, bound, limits));
        match result {
            Ok(value) => to_python(py, value).map(Bound::unbind),
            Err(err) => Err(to_pyerr(py, err, taken(&interrupted))),
        }
    }

    /// Runs `code` as `Session::execute` does, never raising for the run's
    /// own failure: returns `(stdout, stderr, truncated, outputs, result,
    /// error, error_type)`, the outputs as `(mime_type, data, text)` and
    /// the error as the exception `run` would raise (None on success).
    /// Without `print` the output is only kept; a Ctrl-C during the run
    /// is raised as `run` raises it.
    #[pyo3(signature = (code, inputs, print, max_result_bytes, max_stream_bytes, output))]
    #[allow(clippy::too_many_arguments)]
    fn execute(
        &self,
        py: Python<'_>,
        code: &str,
        inputs: Option<&Bound<'_, PyDict>>,
        print: Option<Py<PyAny>>,
        max_result_bytes: u64,
        max_stream_bytes: usize,
        output: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let bound = guest_inputs(py, inputs)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        match print {
            Some(print) => session.on_print(print_to(Some(print))),
            None => session.clear_on_print(),
        }
        outputs_to(session, output);
        let interrupted = self.arm_interrupt(session);
        let code = code.to_owned();
        let limits = ExecuteLimits {
            max_result_bytes,
            max_stream_bytes,
        };
        let done = py.detach(|| session.execute(&code, bound, limits));
        let truncated = done.truncated();
        let error_type = done.error_type().map(str::to_owned);
        let outputs = PyList::empty(py);
        for shown in &done.outputs {
            let data = PyBytes::new(py, &shown.data);
            outputs.append((shown.mime_type.as_str(), data, shown.text.as_str()))?;
        }
        let (result, error) = match done.outcome {
            Ok(value) => (to_python(py, value)?.unbind(), py.None()),
            Err(err) => {
                if let Some(interrupt) = taken(&interrupted) {
                    return Err(interrupt);
                }
                let raised = to_pyerr(py, err, None);
                (py.None(), raised.into_value(py).into_any())
            }
        };
        let parts = (
            done.stdout.text,
            done.stderr.text,
            truncated,
            outputs,
            result,
            error,
            error_type,
        );
        Ok(parts.into_pyobject(py)?.into_any().unbind())
    }

    /// Starts `code` as a stepped feed, `functions` declared as names only
    /// the host answers; returns where it stopped (see `stepping.rs`).
    #[pyo3(signature = (code, inputs=None, print=None, functions=None, output=None))]
    fn start(
        &self,
        py: Python<'_>,
        code: &str,
        inputs: Option<&Bound<'_, PyDict>>,
        print: Option<Py<PyAny>>,
        functions: Option<Vec<String>>,
        output: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let bound = guest_inputs(py, inputs)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        for name in functions.unwrap_or_default() {
            session.declare_function(&name);
        }
        session.on_print(print_to(print));
        outputs_to(session, output);
        let interrupted = self.arm_interrupt(session);
        let code = code.to_owned();
        match py.detach(|| session.start(&code, bound)) {
            Ok(progress) => progress_tuple(py, progress),
            Err(err) => Err(to_pyerr(py, err, taken(&interrupted))),
        }
    }

    /// Answers cursor `cursor` (`how` says with what); returns where the
    /// feed stopped next.
    #[pyo3(signature = (cursor, how, value=None, error=None, results=None, errors=None))]
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        py: Python<'_>,
        cursor: u64,
        how: &str,
        value: Option<&Bound<'_, PyAny>>,
        error: Option<(String, String)>,
        results: Option<&Bound<'_, PyDict>>,
        errors: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let answer = answer_from(py, how, value, error, results, errors)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        let interrupted = self.arm_interrupt(session);
        match py.detach(|| session.answer_cursor(cursor, answer)) {
            Ok(progress) => progress_tuple(py, progress),
            Err(err) => Err(to_pyerr(py, err, taken(&interrupted))),
        }
    }

    /// The session (idle, or suspended at its cursor) as sealed bytes.
    fn dump<'py>(
        &self,
        py: Python<'py>,
        keys: Vec<Vec<u8>>,
        context: Vec<u8>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let seal = sealed_with(py, &keys, context)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        match py.detach(|| session.dump(&seal)) {
            Ok(bytes) => Ok(PyBytes::new(py, &bytes)),
            Err(err) => Err(to_pyerr(py, err, None)),
        }
    }

    /// A session rebuilt from `data` in a fresh worker; the dump is checked
    /// before any worker starts.
    #[staticmethod]
    fn restore(
        py: Python<'_>,
        language: &str,
        options: &Bound<'_, PyDict>,
        keys: Vec<Vec<u8>>,
        context: Vec<u8>,
        data: Vec<u8>,
    ) -> PyResult<Self> {
        let options = session_options(language, options)?;
        let seal = sealed_with(py, &keys, context)?;
        let session = py
            .detach(|| Session::restore(options, &seal, &data))
            .map_err(|err| to_pyerr(py, err, None))?;
        Ok(Self::from_session(session))
    }

    /// Restores `data` into this session, which must not have run anything.
    fn restore_into(
        &self,
        py: Python<'_>,
        keys: Vec<Vec<u8>>,
        context: Vec<u8>,
        data: Vec<u8>,
    ) -> PyResult<()> {
        let seal = sealed_with(py, &keys, context)?;
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        py.detach(|| session.restore_into(&seal, &data))
            .map_err(|err| to_pyerr(py, err, None))
    }

    /// Makes `requirements` importable by a CPython guest, before its
    /// first run.
    fn install_dependencies(&self, py: Python<'_>, requirements: Vec<String>) -> PyResult<()> {
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        py.detach(|| session.install_dependencies(&requirements))
            .map_err(|err| to_pyerr(py, err, None))
    }

    /// Where a suspended feed waits, again; None when none is suspended.
    fn pending(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        session
            .pending()
            .map(|progress| progress_tuple(py, progress))
            .transpose()
    }

    /// Makes `callable` a host function; a coroutine function runs on
    /// `event_loop` and the guest awaits it.
    #[pyo3(signature = (name, callable, event_loop=None))]
    fn register(
        &self,
        py: Python<'_>,
        name: &str,
        callable: Py<PyAny>,
        event_loop: Option<Py<PyAny>>,
    ) -> PyResult<()> {
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        match event_loop {
            None => session.register_function(name, sync_function(callable)),
            Some(event_loop) => {
                let runtime = runtime_handle().map_err(|err| {
                    pyo3::exceptions::PyRuntimeError::new_err(format!(
                        "cannot start the runtime for async host functions: {err}"
                    ))
                })?;
                session.register_async_function(
                    name,
                    runtime,
                    async_function(callable, event_loop),
                );
            }
        }
        Ok(())
    }

    /// Makes `callable(name, args, kwargs)` the answer to OS calls no
    /// mount, environ or clock covers (docs/files.md).
    fn set_os_handler(&self, py: Python<'_>, callable: Py<PyAny>) -> PyResult<()> {
        let mut guard = self.lock(py)?;
        let session = open(&mut guard)?;
        let mut call = sync_function(callable);
        session.set_os_handler(move |name, args| {
            let keyword = args
                .keyword
                .into_iter()
                .map(|(key, value)| (stockade::Value::Str(key), value))
                .collect();
            call(stockade::Args {
                positional: vec![
                    stockade::Value::Str(name.to_owned()),
                    stockade::Value::List(args.positional),
                    stockade::Value::Dict(keyword),
                ],
                keyword: Vec::new(),
            })
        });
        Ok(())
    }

    /// Ends the call running in another thread, killing the worker (the
    /// session is lost); does nothing when no call runs.
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Removes a host function; returns whether it was registered.
    fn unregister(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        let mut guard = self.lock(py)?;
        Ok(open(&mut guard)?.unregister_function(name))
    }

    /// Ends the session and its worker; closing twice does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let session = match self.lock(py) {
            Ok(mut guard) => guard.take(),
            Err(_) if self.closed() => None,
            Err(err) => return Err(err),
        };
        if let Some(session) = session {
            py.detach(|| session.close());
        }
        Ok(())
    }

    #[getter]
    fn closed(&self) -> bool {
        self.session.try_lock().is_ok_and(|guard| guard.is_none())
    }

    #[getter]
    fn is_lost(&self, py: Python<'_>) -> PyResult<bool> {
        let guard = self.lock(py)?;
        Ok(guard.as_ref().is_none_or(Session::is_lost))
    }

    #[getter]
    fn worker_pid(&self, py: Python<'_>) -> PyResult<u32> {
        let mut guard = self.lock(py)?;
        Ok(open(&mut guard)?.worker_pid())
    }

    /// Whether the worker was started ahead of this session (pool or spare).
    #[getter]
    fn prestarted(&self, py: Python<'_>) -> PyResult<bool> {
        let mut guard = self.lock(py)?;
        Ok(open(&mut guard)?.prestarted())
    }

    #[getter]
    fn engine(&self, py: Python<'_>) -> PyResult<String> {
        let mut guard = self.lock(py)?;
        Ok(open(&mut guard)?.worker_info().engine.clone())
    }

    /// Which sandbox layers are in force: mode, applied, missing, notes.
    #[getter]
    fn sandbox_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut guard = self.lock(py)?;
        let report = open(&mut guard)?.worker_info().sandbox.clone();
        let dict = PyDict::new(py);
        let mode = match report.mode {
            stockade::SandboxMode::Off => "off",
            stockade::SandboxMode::Auto => "auto",
            stockade::SandboxMode::Require => "require",
        };
        dict.set_item("mode", PyString::new(py, mode))?;
        dict.set_item("applied", PyList::new(py, report.applied)?)?;
        let missing = PyDict::new(py);
        for (layer, reason) in report.missing {
            missing.set_item(layer, reason)?;
        }
        dict.set_item("missing", missing)?;
        dict.set_item("notes", PyList::new(py, report.extras)?)?;
        Ok(dict)
    }
}
