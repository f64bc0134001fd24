//! Conversions between Python objects and wire values, naming the path
//! inside a value that cannot cross.

use num_bigint::BigInt;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString,
    PyTuple,
};
use stockade::{Date, DateTime, Time, TimeDelta, Value};
use stockade_wire::GuestException;

/// Deepest Python value converted; the wire refuses more anyway.
const MAX_DEPTH: usize = 64;

/// A str as Python shows it in an index: `'name'`.
pub fn quoted(name: &str) -> String {
    format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// Converts a Python value for the wire. `path` names the value in
/// messages (`inputs['rows'][3]`).
pub fn from_python(value: &Bound<'_, PyAny>, path: &str) -> Result<Value, String> {
    let mut ancestors = Vec::new();
    convert_in(value, path, &mut ancestors)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .qualname()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn convert_in(
    value: &Bound<'_, PyAny>,
    path: &str,
    ancestors: &mut Vec<usize>,
) -> Result<Value, String> {
    let py = value.py();
    if value.is_none() {
        return Ok(Value::None);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(small) = value.extract::<i64>() {
            return Ok(Value::Int(small));
        }
        return value
            .extract::<BigInt>()
            .map(Value::from)
            .map_err(|err| format!("{path}: {err}"));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return s
            .to_str()
            .map(|s| Value::Str(s.to_owned()))
            .map_err(|err| format!("{path}: a str that is not valid UTF-8: {err}"));
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = value.cast::<PyByteArray>() {
        return Ok(Value::Bytes(b.to_vec()));
    }
    let datetime = py.import("datetime").map_err(|err| err.to_string())?;
    let is = |class: &str| -> bool {
        datetime
            .getattr(class)
            .and_then(|class| value.is_instance(&class))
            .unwrap_or(false)
    };
    // datetime before date: a datetime is a date too.
    if is("datetime") {
        return datetime_in(value, path).map(Value::DateTime);
    }
    if is("date") {
        return date_in(value, path).map(Value::Date);
    }
    if is("time") {
        return time_in(value, None, path).map(Value::Time);
    }
    if is("timedelta") {
        let get = |name: &str| -> Result<i32, String> {
            value
                .getattr(name)
                .and_then(|v| v.extract::<i32>())
                .map_err(|err| format!("{path}: {err}"))
        };
        return Ok(Value::TimeDelta(TimeDelta {
            days: get("days")?,
            seconds: get("seconds")?,
            microseconds: get("microseconds")?,
        }));
    }
    let is_container = value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>()
        || value.is_instance_of::<PyDict>()
        || value.is_instance_of::<PySet>()
        || value.is_instance_of::<PyFrozenSet>();
    if !is_container {
        return Err(format!(
            "{path}: a value of type {} cannot cross",
            type_name(value)
        ));
    }
    let id = value.as_ptr() as usize;
    if ancestors.contains(&id) {
        return Err(format!("{path}: the value contains itself (a cycle)"));
    }
    if ancestors.len() >= MAX_DEPTH {
        return Err(format!("{path}: nested deeper than {MAX_DEPTH} containers"));
    }
    ancestors.push(id);
    let converted = container_in(value, path, ancestors);
    ancestors.pop();
    converted
}

fn container_in(
    value: &Bound<'_, PyAny>,
    path: &str,
    ancestors: &mut Vec<usize>,
) -> Result<Value, String> {
    if let Ok(list) = value.cast::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            items.push(convert_in(&item, &format!("{path}[{i}]"), ancestors)?);
        }
        return Ok(Value::List(items));
    }
    if let Ok(tuple) = value.cast::<PyTuple>() {
        let mut items = Vec::with_capacity(tuple.len());
        for (i, item) in tuple.iter().enumerate() {
            items.push(convert_in(&item, &format!("{path}[{i}]"), ancestors)?);
        }
        return Ok(Value::Tuple(items));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let shown = key
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into());
            let at = format!("{path}[{shown}]");
            let key = convert_in(&key, &format!("{at} (the key)"), ancestors)?;
            pairs.push((key, convert_in(&item, &at, ancestors)?));
        }
        return Ok(Value::Dict(pairs));
    }
    let frozen = value.is_instance_of::<PyFrozenSet>();
    let mut members = Vec::new();
    for (i, item) in value.try_iter().map_err(|e| e.to_string())?.enumerate() {
        let item = item.map_err(|e| e.to_string())?;
        members.push(convert_in(
            &item,
            &format!("{path}{{member {i}}}"),
            ancestors,
        )?);
    }
    Ok(if frozen {
        Value::FrozenSet(members)
    } else {
        Value::Set(members)
    })
}

fn int_attr<T: TryFrom<i64>>(
    value: &Bound<'_, PyAny>,
    name: &str,
    path: &str,
) -> Result<T, String> {
    let number = value
        .getattr(name)
        .and_then(|v| v.extract::<i64>())
        .map_err(|err| format!("{path}: {name}: {err}"))?;
    T::try_from(number).map_err(|_| format!("{path}: {name} {number} is out of range"))
}

fn date_in(value: &Bound<'_, PyAny>, path: &str) -> Result<Date, String> {
    Ok(Date {
        year: int_attr(value, "year", path)?,
        month: int_attr(value, "month", path)?,
        day: int_attr(value, "day", path)?,
    })
}

fn time_in(
    value: &Bound<'_, PyAny>,
    aware: Option<&Bound<'_, PyAny>>,
    path: &str,
) -> Result<Time, String> {
    let offset = aware
        .unwrap_or(value)
        .call_method0("utcoffset")
        .map_err(|err| format!("{path}: {err}"))?;
    let offset_seconds = if offset.is_none() {
        None
    } else {
        let seconds: f64 = offset
            .call_method0("total_seconds")
            .and_then(|s| s.extract())
            .map_err(|err| format!("{path}: {err}"))?;
        Some(seconds as i32)
    };
    Ok(Time {
        hour: int_attr(value, "hour", path)?,
        minute: int_attr(value, "minute", path)?,
        second: int_attr(value, "second", path)?,
        microsecond: int_attr(value, "microsecond", path)?,
        offset_seconds,
    })
}

fn datetime_in(value: &Bound<'_, PyAny>, path: &str) -> Result<DateTime, String> {
    Ok(DateTime {
        date: date_in(value, path)?,
        time: time_in(value, Some(value), path)?,
    })
}

/// Converts a wire value for Python.
pub fn to_python<'py>(py: Python<'py>, value: Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::None | Value::Undefined => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py)?.into_any(),
        Value::BigInt(big) => big.into_pyobject(py)?.into_any(),
        Value::Float(x) => PyFloat::new(py, x).into_any(),
        Value::Str(s) => PyString::new(py, &s).into_any(),
        Value::Bytes(b) => PyBytes::new(py, &b).into_any(),
        Value::List(items) => PyList::new(py, all_to_python(py, items)?)?.into_any(),
        Value::Tuple(items) => PyTuple::new(py, all_to_python(py, items)?)?.into_any(),
        Value::Dict(pairs) => {
            let dict = PyDict::new(py);
            for (key, item) in pairs {
                dict.set_item(to_python(py, key)?, to_python(py, item)?)?;
            }
            dict.into_any()
        }
        Value::Set(items) => PySet::new(py, all_to_python(py, items)?)?.into_any(),
        Value::FrozenSet(items) => PyFrozenSet::new(py, all_to_python(py, items)?)?.into_any(),
        Value::Date(d) => py
            .import("datetime")?
            .getattr("date")?
            .call1((d.year, d.month, d.day))?,
        Value::Time(t) => {
            let tz = timezone(py, t.offset_seconds)?;
            py.import("datetime")?.getattr("time")?.call1((
                t.hour,
                t.minute,
                t.second,
                t.microsecond,
                tz,
            ))?
        }
        Value::DateTime(dt) => {
            let tz = timezone(py, dt.time.offset_seconds)?;
            py.import("datetime")?.getattr("datetime")?.call1((
                dt.date.year,
                dt.date.month,
                dt.date.day,
                dt.time.hour,
                dt.time.minute,
                dt.time.second,
                dt.time.microsecond,
                tz,
            ))?
        }
        Value::TimeDelta(td) => py.import("datetime")?.getattr("timedelta")?.call1((
            td.days,
            td.seconds,
            td.microseconds,
        ))?,
        Value::Exception(e) => exception_instance(py, &e)?,
        Value::Repr(text) => py
            .import("stockade._values")?
            .getattr("Repr")?
            .call1((text,))?,
        Value::Cycle(text) => py
            .import("stockade._values")?
            .getattr("Cycle")?
            .call1((text,))?,
    })
}

fn all_to_python(py: Python<'_>, items: Vec<Value>) -> PyResult<Vec<Bound<'_, PyAny>>> {
    items.into_iter().map(|item| to_python(py, item)).collect()
}

fn timezone<'py>(py: Python<'py>, offset: Option<i32>) -> PyResult<Bound<'py, PyAny>> {
    match offset {
        None => Ok(py.None().into_bound(py)),
        Some(seconds) => {
            let datetime = py.import("datetime")?;
            let delta = datetime.getattr("timedelta")?.call1((0, seconds))?;
            datetime.getattr("timezone")?.call1((delta,))
        }
    }
}

/// A guest exception value as an instance of the builtin class of that
/// name (every name on the wire is a builtin), else Exception.
fn exception_instance<'py>(py: Python<'py>, e: &GuestException) -> PyResult<Bound<'py, PyAny>> {
    let builtins = py.import("builtins")?;
    let class = builtins
        .getattr(e.type_name.as_str())
        .ok()
        .filter(|class| {
            class.cast::<pyo3::types::PyType>().is_ok_and(|t| {
                t.is_subclass_of::<pyo3::exceptions::PyBaseException>()
                    .unwrap_or(false)
            })
        })
        .map_or_else(|| builtins.getattr("Exception"), Ok)?;
    class.call1((e.message.clone(),))
}
