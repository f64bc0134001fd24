//! Host-library errors as the package's Python exceptions, which
//! `stockade._errors` defines: the class's name, the message, the fields
//! and the host library's advice (`Error::advice`), which the package
//! appends but where it names Python's own types and calls.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stockade::Error;

/// Builds the Python exception for `kind` through `stockade._errors`.
fn raise(
    py: Python<'_>,
    kind: &str,
    message: String,
    fields: &Bound<'_, PyDict>,
    advice: &str,
) -> PyErr {
    let made = py
        .import("stockade._errors")
        .and_then(|errors| errors.getattr("_from_native"))
        .and_then(|make| make.call1((kind, message, fields, advice)));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(err) => err,
    }
}

/// A stockade error as a Python exception. `interrupted` is the
/// KeyboardInterrupt the interrupt check caught, re-raised as it was.
pub fn to_pyerr(py: Python<'_>, err: Error, interrupted: Option<PyErr>) -> PyErr {
    let fields = PyDict::new(py);
    let message = err.to_string();
    let set = |key: &str, value: Bound<'_, PyAny>| {
        let _ = fields.set_item(key, value);
    };
    match &err {
        Error::Guest(guest) | Error::Syntax(guest) => {
            set(
                "type",
                guest
                    .type_name
                    .clone()
                    .into_pyobject(py)
                    .map(Bound::into_any)
                    .unwrap_or_else(|_| py.None().into_bound(py)),
            );
            set(
                "message",
                pyo3::types::PyString::new(py, &guest.message).into_any(),
            );
            set(
                "traceback",
                pyo3::types::PyString::new(py, &guest.traceback).into_any(),
            );
        }
        Error::Timeout { limit, after } => {
            set(
                "limit",
                pyo3::types::PyString::new(py, limit.name()).into_any(),
            );
            set(
                "seconds",
                pyo3::types::PyFloat::new(py, after.as_secs_f64()).into_any(),
            );
            set(
                "session_lost",
                pyo3::types::PyBool::new(py, err.loses_session())
                    .to_owned()
                    .into_any(),
            );
        }
        Error::Memory {
            detail,
            worker_died,
        } => {
            set("detail", pyo3::types::PyString::new(py, detail).into_any());
            set(
                "worker_died",
                pyo3::types::PyBool::new(py, *worker_died)
                    .to_owned()
                    .into_any(),
            );
        }
        Error::Crashed(info) => {
            if let Some(code) = info.exit_code
                && let Ok(code) = code.into_pyobject(py)
            {
                set("exit_code", code.into_any());
            }
            if let Some(signal) = info.signal
                && let Ok(signal) = signal.into_pyobject(py)
            {
                set("signal", signal.into_any());
            }
            if let Some(detail) = &info.detail {
                set("detail", pyo3::types::PyString::new(py, detail).into_any());
            }
            set(
                "timed_out",
                pyo3::types::PyBool::new(py, info.timed_out)
                    .to_owned()
                    .into_any(),
            );
        }
        Error::Disconnected(detail) => {
            set("detail", pyo3::types::PyString::new(py, detail).into_any());
        }
        Error::ServerShutdown(detail) => {
            set("detail", pyo3::types::PyString::new(py, detail).into_any());
        }
        Error::ResultTooLarge { limit } => {
            set("limit", pyo3::types::PyInt::new(py, *limit).into_any());
        }
        // The run Ctrl-C stopped re-raises its KeyboardInterrupt; later
        // calls on the lost sandbox say what happened to it.
        Error::Interrupted => match interrupted {
            Some(interrupt) => return interrupt,
            None => {
                return raise(
                    py,
                    err.kind().class_name(),
                    "an earlier run was interrupted and its worker killed".into(),
                    &fields,
                    err.advice(),
                );
            }
        },
        Error::DumpVersionMismatch { found, expected } => {
            set("found", pyo3::types::PyString::new(py, found).into_any());
            set(
                "expected",
                pyo3::types::PyString::new(py, expected).into_any(),
            );
        }
        _ => {}
    }
    raise(py, err.kind().class_name(), message, &fields, err.advice())
}

/// A ConversionError for a value that cannot cross.
pub fn conversion(py: Python<'_>, message: String) -> PyErr {
    raise(
        py,
        stockade::ErrorKind::Conversion.class_name(),
        message,
        &PyDict::new(py),
        stockade::ErrorKind::Conversion.spec().advice,
    )
}

/// A ConfigurationError for an option that is out of range.
pub fn configuration(py: Python<'_>, message: String) -> PyErr {
    raise(
        py,
        stockade::ErrorKind::Configuration.class_name(),
        message,
        &PyDict::new(py),
        stockade::ErrorKind::Configuration.spec().advice,
    )
}
