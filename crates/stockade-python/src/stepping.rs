//! Stepped feeds from Python: where a feed stopped crosses as a tuple,
//! which `stockade._progress` wraps in FunctionCall, NameLookup,
//! PendingFutures or Complete, and the host's answer comes back by the
//! cursor's number with a word for its kind.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use stockade::{CursorAnswer, HostError, Progress, Value};

use crate::errors::conversion;
use crate::from_python::{Refusal, from_python};
use crate::to_python::to_python;

/// `("call", cursor, name, args, kwargs, call_id)`, `("lookup", cursor,
/// name)`, `("futures", cursor, call_ids)` or `("complete", value)`.
pub fn progress_tuple(py: Python<'_>, progress: Progress<'_>) -> PyResult<Py<PyAny>> {
    let tuple = match progress {
        Progress::FunctionCall(call) => {
            let args = PyList::empty(py);
            for value in &call.args().positional {
                args.append(to_python(py, value.clone())?)?;
            }
            let kwargs = PyDict::new(py);
            for (name, value) in &call.args().keyword {
                kwargs.set_item(name, to_python(py, value.clone())?)?;
            }
            PyTuple::new(
                py,
                [
                    PyString::new(py, "call").into_any(),
                    call.cursor().into_pyobject(py)?.into_any(),
                    PyString::new(py, call.name()).into_any(),
                    args.into_any(),
                    kwargs.into_any(),
                    call.call_id().into_pyobject(py)?.into_any(),
                ],
            )?
        }
        Progress::NameLookup(lookup) => PyTuple::new(
            py,
            [
                PyString::new(py, "lookup").into_any(),
                lookup.cursor().into_pyobject(py)?.into_any(),
                PyString::new(py, lookup.name()).into_any(),
            ],
        )?,
        Progress::PendingFutures(futures) => PyTuple::new(
            py,
            [
                PyString::new(py, "futures").into_any(),
                futures.cursor().into_pyobject(py)?.into_any(),
                PyList::new(py, futures.call_ids())?.into_any(),
            ],
        )?,
        Progress::Complete(value) => PyTuple::new(
            py,
            [
                PyString::new(py, "complete").into_any(),
                to_python(py, value)?,
            ],
        )?,
    };
    Ok(tuple.into_any().unbind())
}

/// A Python value the guest is to receive, converted or refused with a
/// ConversionError naming `what`.
fn guest_value(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    match from_python(value, what) {
        Ok(value) => Ok(value),
        Err(Refusal::Refused(message)) => Err(conversion(py, message)),
        Err(Refusal::Raised(err)) => Err(err),
    }
}

/// The answer `how` (with its value, error or results) as the host
/// library's: "return", "raise", "pending", "bind", "function",
/// "not_found", "resolve".
pub fn answer_from(
    py: Python<'_>,
    how: &str,
    value: Option<&Bound<'_, PyAny>>,
    error: Option<(String, String)>,
    results: Option<&Bound<'_, PyDict>>,
    errors: Option<&Bound<'_, PyDict>>,
) -> PyResult<CursorAnswer> {
    let none = py.None().into_bound(py);
    let value = value.unwrap_or(&none);
    Ok(match how {
        "return" => CursorAnswer::Return(guest_value(py, value, "the call's result")?),
        "bind" => CursorAnswer::Bind(guest_value(py, value, "the name's value")?),
        "raise" => {
            let (type_name, message) = error.unwrap_or_default();
            CursorAnswer::Raise(HostError::new(&type_name, message))
        }
        "pending" => CursorAnswer::Defer,
        "function" => CursorAnswer::Function,
        "not_found" => CursorAnswer::NotFound,
        "resolve" => {
            let mut outcomes = Vec::new();
            if let Some(results) = results {
                for (id, value) in results.iter() {
                    let id: u32 = id.extract()?;
                    let what = format!("the result of call {id}");
                    outcomes.push((id, Ok(guest_value(py, &value, &what)?)));
                }
            }
            if let Some(errors) = errors {
                for (id, error) in errors.iter() {
                    let id: u32 = id.extract()?;
                    let (type_name, message): (String, String) = error.extract()?;
                    outcomes.push((id, Err(HostError::new(&type_name, message))));
                }
            }
            outcomes.sort_by_key(|(id, _)| *id);
            CursorAnswer::Resolve(outcomes)
        }
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown answer {other:?}"
            )));
        }
    })
}
