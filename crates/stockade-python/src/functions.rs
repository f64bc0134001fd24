//! Python callables as host functions: plain ones answer while the guest
//! waits; coroutine functions run on the caller's asyncio loop and the guest
//! awaits them, several at once.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use stockade::{Args, HostError, HostResult};
use tokio::sync::oneshot;

use crate::from_python::{Refusal, from_python};
use crate::to_python::to_python;

/// The exception a Python host function raised, for the guest. Ctrl-C in a
/// host function is the user's, not the guest's: the interrupt is raised
/// again so the session's interrupt check ends the run and kills the worker.
fn host_error(py: Python<'_>, err: PyErr) -> HostError {
    let type_name = err
        .get_type(py)
        .name()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let message = err
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_default();
    if err.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
        // Last, so that no Python code runs (and takes the signal) before
        // the interrupt check does.
        // SAFETY: PyErr_SetInterrupt only marks SIGINT as pending for the
        // interpreter; it is safe to call with the GIL held.
        unsafe { pyo3::ffi::PyErr_SetInterrupt() };
    }
    HostError::new(&type_name, message)
}

/// The guest's arguments as a Python tuple and keyword dict.
fn python_args<'py>(
    py: Python<'py>,
    args: Args,
) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyDict>)> {
    let positional = args
        .positional
        .into_iter()
        .map(|value| to_python(py, value))
        .collect::<PyResult<Vec<_>>>()?;
    let keyword = PyDict::new(py);
    for (name, value) in args.keyword {
        keyword.set_item(name, to_python(py, value)?)?;
    }
    Ok((PyTuple::new(py, positional)?, keyword))
}

/// A host function's Python result, for the wire.
fn returned(value: &Bound<'_, PyAny>) -> HostResult {
    match from_python(value, "the result") {
        Ok(value) => Ok(value),
        Err(Refusal::Refused(message)) => Err(HostError::type_error(format!(
            "the host function returned a value that cannot cross: {message}"
        ))),
        Err(Refusal::Raised(err)) => Err(host_error(value.py(), err)),
    }
}

/// A plain callable as a sync host function.
pub fn sync_function(callable: Py<PyAny>) -> impl FnMut(Args) -> HostResult + Send + 'static {
    move |args| {
        Python::attach(|py| {
            let (positional, keyword) = python_args(py, args).map_err(|err| host_error(py, err))?;
            match callable.call(py, positional, Some(&keyword)) {
                Ok(value) => returned(value.bind(py)),
                Err(err) => Err(host_error(py, err)),
            }
        })
    }
}

/// Settles one async call when its concurrent.futures.Future is done.
#[pyclass]
#[derive(Debug)]
struct Done {
    sender: Mutex<Option<oneshot::Sender<HostResult>>>,
}

#[pymethods]
impl Done {
    fn __call__(&self, py: Python<'_>, future: &Bound<'_, PyAny>) {
        let outcome = match future.call_method0("result") {
            Ok(value) => returned(&value),
            Err(err) => Err(host_error(py, err)),
        };
        if let Ok(mut sender) = self.sender.lock()
            && let Some(sender) = sender.take()
        {
            let _ = sender.send(outcome);
        }
    }
}

/// Starts the coroutine for one call on `event_loop`; the receiver gets
/// its outcome.
fn start_coroutine(
    py: Python<'_>,
    callable: &Py<PyAny>,
    event_loop: &Py<PyAny>,
    args: Args,
) -> PyResult<oneshot::Receiver<HostResult>> {
    let (positional, keyword) = python_args(py, args)?;
    let coroutine = callable.call(py, positional, Some(&keyword))?;
    let future = py
        .import("asyncio")?
        .call_method1("run_coroutine_threadsafe", (coroutine, event_loop.bind(py)))?;
    let (sender, receiver) = oneshot::channel();
    let done = Py::new(
        py,
        Done {
            sender: Mutex::new(Some(sender)),
        },
    )?;
    future.call_method1("add_done_callback", (done,))?;
    Ok(receiver)
}

/// A coroutine function as an async host function, run on `event_loop`.
pub fn async_function(
    callable: Py<PyAny>,
    event_loop: Py<PyAny>,
) -> impl Fn(Args) -> std::pin::Pin<Box<dyn std::future::Future<Output = HostResult> + Send>>
+ Send
+ 'static {
    move |args| {
        let started = Python::attach(|py| {
            start_coroutine(py, &callable, &event_loop, args).map_err(|err| host_error(py, err))
        });
        Box::pin(async move {
            match started {
                Ok(receiver) => receiver.await.unwrap_or_else(|_| {
                    Err(HostError::runtime_error(
                        "the host coroutine ended without an outcome",
                    ))
                }),
                Err(err) => Err(err),
            }
        })
    }
}
