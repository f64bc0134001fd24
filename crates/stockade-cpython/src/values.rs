//! Guest objects to wire values and back, for results, inputs, host-call
//! arguments and answers.
//!
//! Types are recognised by the interpreter's own checks (not by attributes
//! the guest could redefine); subclasses of the built-in containers cross
//! as the built-in (a namedtuple as a tuple, a Counter as a dict), objects
//! with no wire equivalent as their repr, and a container met again inside
//! itself as a cycle marker. Nesting is bounded by the wire's own depth, so
//! the walk's recursion is too.

use num_bigint::BigInt;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::type_object::PyTypeCheck;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString,
    PyTuple,
};
use stockade_wire::{
    Date, DateTime, GuestException, KNOWN_EXCEPTION_TYPES, Time, TimeDelta, Value, WireLimits,
};

/// Converts a guest object for the wire.
pub fn to_wire(object: &Bound<'_, PyAny>) -> Result<Value, String> {
    Walk {
        py: object.py(),
        ancestors: Vec::new(),
        calendar: std::cell::OnceCell::new(),
    }
    .value(object)
}

/// The datetime module's classes, to recognise and build calendar values.
struct Calendar<'py> {
    datetime: Bound<'py, PyAny>,
    date: Bound<'py, PyAny>,
    time: Bound<'py, PyAny>,
    timedelta: Bound<'py, PyAny>,
    timezone: Bound<'py, PyAny>,
}

impl<'py> Calendar<'py> {
    /// The classes, if the datetime module is loaded: when it is not, no
    /// calendar value can exist (and loading it costs every start).
    fn if_loaded(py: Python<'py>) -> PyResult<Option<Self>> {
        let modules = py.import("sys")?.getattr("modules")?;
        if modules.contains("datetime")? || modules.contains("_datetime")? {
            return Self::import(py).map(Some);
        }
        Ok(None)
    }

    fn import(py: Python<'py>) -> PyResult<Self> {
        let module = py.import("datetime")?;
        Ok(Self {
            datetime: module.getattr("datetime")?,
            date: module.getattr("date")?,
            time: module.getattr("time")?,
            timedelta: module.getattr("timedelta")?,
            timezone: module.getattr("timezone")?,
        })
    }
}

struct Walk<'py> {
    py: Python<'py>,
    /// Containers on the path from the root: a repeat is a cycle.
    ancestors: Vec<usize>,
    /// Looked for at the first value that is not a plain scalar.
    calendar: std::cell::OnceCell<Option<Calendar<'py>>>,
}

fn int_attr<T: for<'a> FromPyObject<'a, 'a>>(
    object: &Bound<'_, PyAny>,
    name: &str,
) -> Result<T, String>
where
    for<'a> <T as FromPyObject<'a, 'a>>::Error: Into<PyErr>,
{
    object
        .getattr(name)
        .map_err(|e| e.to_string())?
        .extract::<T>()
        .map_err(|e| Into::<PyErr>::into(e).to_string())
}

/// A UTC offset in whole seconds, from an aware value's `utcoffset()`.
fn offset(object: &Bound<'_, PyAny>) -> Result<Option<i32>, String> {
    let offset = object
        .call_method0("utcoffset")
        .map_err(|e| e.to_string())?;
    if offset.is_none() {
        return Ok(None);
    }
    let days: i32 = int_attr(&offset, "days")?;
    let seconds: i32 = int_attr(&offset, "seconds")?;
    days.checked_mul(86_400)
        .and_then(|d| d.checked_add(seconds))
        .map(Some)
        .ok_or_else(|| "a UTC offset out of range".to_owned())
}

fn time_of(object: &Bound<'_, PyAny>) -> Result<Time, String> {
    Ok(Time {
        hour: int_attr(object, "hour")?,
        minute: int_attr(object, "minute")?,
        second: int_attr(object, "second")?,
        microsecond: int_attr(object, "microsecond")?,
        offset_seconds: offset(object)?,
    })
}

fn date_of(object: &Bound<'_, PyAny>) -> Result<Date, String> {
    Ok(Date {
        year: int_attr(object, "year")?,
        month: int_attr(object, "month")?,
        day: int_attr(object, "day")?,
    })
}

/// The built-in containers a walk descends into (their subclasses too);
/// any other object crosses as its repr.
const CONTAINERS: [for<'a> fn(&Bound<'a, PyAny>) -> bool; 5] = [
    PyList::type_check,
    PyTuple::type_check,
    PyDict::type_check,
    PySet::type_check,
    PyFrozenSet::type_check,
];

/// The repr the guest gives a value, or a stand-in when its repr fails.
fn repr_of(object: &Bound<'_, PyAny>) -> String {
    match object.repr() {
        Ok(repr) => repr.to_string_lossy().into_owned(),
        Err(_) => format!("<unrepresentable {} object>", type_name(object)),
    }
}

fn type_name(object: &Bound<'_, PyAny>) -> String {
    let name = object.get_type().name();
    name.map_or_else(|_| "?".into(), |n| n.to_string())
}

impl<'py> Walk<'py> {
    fn value(&mut self, object: &Bound<'_, PyAny>) -> Result<Value, String> {
        if object.is_none() {
            return Ok(Value::None);
        }
        if let Ok(b) = object.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if object.is_instance_of::<PyInt>() {
            if let Ok(small) = object.extract::<i64>() {
                return Ok(Value::Int(small));
            }
            let big: BigInt = object.extract().map_err(|e: PyErr| e.to_string())?;
            return Ok(Value::from(big));
        }
        if let Ok(f) = object.cast::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        if let Ok(s) = object.cast::<PyString>() {
            // A str with lone surrogates has no UTF-8 form: they become U+FFFD.
            return Ok(Value::Str(s.to_string_lossy().into_owned()));
        }
        if let Ok(b) = object.cast::<PyBytes>() {
            return Ok(Value::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = object.cast::<PyByteArray>() {
            return Ok(Value::Bytes(b.to_vec()));
        }
        if let Some(value) = self.calendar_value(object)? {
            return Ok(value);
        }
        if object.is_instance_of::<pyo3::exceptions::PyBaseException>() {
            return Ok(Value::Exception(guest_exception(object)));
        }
        if !CONTAINERS.iter().any(|is| is(object)) {
            return Ok(Value::Repr(repr_of(object)));
        }
        let id = object.as_ptr() as usize;
        if self.ancestors.contains(&id) {
            return Ok(Value::Cycle(cycle_placeholder(object).into()));
        }
        if self.ancestors.len() >= WireLimits::DEFAULT_MAX_DEPTH as usize {
            return Err(format!(
                "nested deeper than {} containers",
                WireLimits::DEFAULT_MAX_DEPTH
            ));
        }
        self.ancestors.push(id);
        let converted = self.container(object);
        self.ancestors.pop();
        converted
    }

    fn calendar_value(&self, object: &Bound<'_, PyAny>) -> Result<Option<Value>, String> {
        let calendar = match self.calendar.get() {
            Some(calendar) => calendar,
            None => {
                let found = Calendar::if_loaded(self.py).map_err(|e| e.to_string())?;
                self.calendar.get_or_init(|| found)
            }
        };
        let Some(calendar) = calendar else {
            return Ok(None);
        };
        let is = |class: &Bound<'_, PyAny>| object.is_instance(class).unwrap_or(false);
        // datetime before date: a datetime is a date too.
        Ok(Some(if is(&calendar.datetime) {
            Value::DateTime(DateTime {
                date: date_of(object)?,
                time: time_of(object)?,
            })
        } else if is(&calendar.date) {
            Value::Date(date_of(object)?)
        } else if is(&calendar.time) {
            Value::Time(time_of(object)?)
        } else if is(&calendar.timedelta) {
            Value::TimeDelta(TimeDelta {
                days: int_attr(object, "days")?,
                seconds: int_attr(object, "seconds")?,
                microseconds: int_attr(object, "microseconds")?,
            })
        } else {
            return Ok(None);
        }))
    }

    fn items<'a>(
        &mut self,
        items: impl Iterator<Item = Bound<'a, PyAny>>,
    ) -> Result<Vec<Value>, String> {
        // A snapshot first: nothing an item's repr runs can change the walk.
        let items: Vec<_> = items.collect();
        items.iter().map(|item| self.value(item)).collect()
    }

    fn container(&mut self, object: &Bound<'_, PyAny>) -> Result<Value, String> {
        if let Ok(list) = object.cast::<PyList>() {
            return self.items(list.iter()).map(Value::List);
        }
        if let Ok(tuple) = object.cast::<PyTuple>() {
            return self.items(tuple.iter()).map(Value::Tuple);
        }
        if let Ok(dict) = object.cast::<PyDict>() {
            let pairs: Vec<_> = dict.iter().collect();
            let mut out = Vec::with_capacity(pairs.len());
            for (key, item) in &pairs {
                out.push((self.value(key)?, self.value(item)?));
            }
            return Ok(Value::Dict(out));
        }
        if let Ok(set) = object.cast::<PySet>() {
            return self.items(set.iter()).map(Value::Set);
        }
        if let Ok(frozen) = object.cast::<PyFrozenSet>() {
            return self.items(frozen.iter()).map(Value::FrozenSet);
        }
        Ok(Value::Repr(repr_of(object)))
    }
}

/// What Python prints where a container repeats inside itself.
fn cycle_placeholder(object: &Bound<'_, PyAny>) -> &'static str {
    if object.is_instance_of::<PyList>() {
        "[...]"
    } else if object.is_instance_of::<PyDict>() {
        "{...}"
    } else {
        "(...)"
    }
}

/// The nearest class in an exception's MRO that the wire knows by name,
/// so a guest's `class Invalid(ValueError)` reaches the host as ValueError.
pub fn known_type_name(exception: &Bound<'_, PyAny>) -> String {
    let Ok(mro) = exception.get_type().getattr("__mro__") else {
        return "Exception".into();
    };
    let Ok(mro) = mro.cast_into::<PyTuple>() else {
        return "Exception".into();
    };
    for class in mro.iter() {
        if let Ok(name) = class
            .getattr("__name__")
            .and_then(|n| n.extract::<String>())
            && KNOWN_EXCEPTION_TYPES.contains(&name.as_str())
        {
            return name;
        }
    }
    "Exception".into()
}

/// A guest exception object as the wire carries it.
pub fn guest_exception(exception: &Bound<'_, PyAny>) -> GuestException {
    let message = match exception.str() {
        Ok(text) => text.to_string_lossy().into_owned(),
        Err(_) => String::new(),
    };
    GuestException::new(&known_type_name(exception), &message)
}

/// The exception the guest meets for one the host raised: the built-in
/// class of that name, or RuntimeError.
pub fn exception_for(py: Python<'_>, exception: &GuestException) -> PyErr {
    let class = py
        .import("builtins")
        .and_then(|b| b.getattr(exception.type_name.as_str()))
        .ok()
        .filter(|class| {
            class.cast::<pyo3::types::PyType>().is_ok_and(|t| {
                t.is_subclass_of::<pyo3::exceptions::PyBaseException>()
                    .unwrap_or(false)
            })
        });
    match class.and_then(|class| class.call1((exception.message.as_str(),)).ok()) {
        Some(instance) => PyErr::from_value(instance),
        None => PyRuntimeError::new_err(exception.message.clone()),
    }
}

/// Converts a host value for the guest. Reprs and cycle markers are
/// output-only and refused.
pub fn to_python(py: Python<'_>, value: Value) -> Result<Bound<'_, PyAny>, String> {
    build(py, &LazyCalendar::default(), value)
}

/// The calendar classes, imported when the first calendar value is built.
#[derive(Default)]
struct LazyCalendar<'py>(std::cell::OnceCell<Calendar<'py>>);

impl<'py> LazyCalendar<'py> {
    fn get(&self, py: Python<'py>) -> Result<&Calendar<'py>, String> {
        if let Some(calendar) = self.0.get() {
            return Ok(calendar);
        }
        let calendar = Calendar::import(py).map_err(err)?;
        Ok(self.0.get_or_init(|| calendar))
    }
}

fn build<'py>(
    py: Python<'py>,
    calendar: &LazyCalendar<'py>,
    value: Value,
) -> Result<Bound<'py, PyAny>, String> {
    let seq = |items: Vec<Value>| -> Result<Vec<Bound<'py, PyAny>>, String> {
        items
            .into_iter()
            .map(|item| build(py, calendar, item))
            .collect()
    };
    Ok(match value {
        Value::None | Value::Undefined => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Value::Int(i) => i.into_pyobject(py).map_err(err)?.into_any(),
        Value::BigInt(i) => i.into_pyobject(py).map_err(err)?.into_any(),
        Value::Float(x) => PyFloat::new(py, x).into_any(),
        Value::Str(s) => PyString::new(py, &s).into_any(),
        Value::Bytes(b) => PyBytes::new(py, &b).into_any(),
        Value::List(items) => PyList::new(py, seq(items)?).map_err(err)?.into_any(),
        Value::Tuple(items) => PyTuple::new(py, seq(items)?).map_err(err)?.into_any(),
        Value::Set(items) => PySet::new(py, seq(items)?).map_err(err)?.into_any(),
        Value::FrozenSet(items) => PyFrozenSet::new(py, seq(items)?).map_err(err)?.into_any(),
        Value::Dict(pairs) => {
            let dict = PyDict::new(py);
            for (key, item) in pairs {
                dict.set_item(build(py, calendar, key)?, build(py, calendar, item)?)
                    .map_err(err)?;
            }
            dict.into_any()
        }
        Value::Date(d) => calendar
            .get(py)?
            .date
            .call1((d.year, d.month, d.day))
            .map_err(err)?,
        Value::Time(t) => calendar
            .get(py)?
            .time
            .call1((
                t.hour,
                t.minute,
                t.second,
                t.microsecond,
                zone(calendar.get(py)?, t.offset_seconds).map_err(err)?,
            ))
            .map_err(err)?,
        Value::DateTime(dt) => {
            // datetime.combine keeps the time's zone, so the two halves
            // are built as they would be alone.
            let date = build(py, calendar, Value::Date(dt.date))?;
            let time = build(py, calendar, Value::Time(dt.time))?;
            calendar
                .get(py)?
                .datetime
                .call_method1("combine", (date, time))
                .map_err(err)?
        }
        Value::TimeDelta(d) => calendar
            .get(py)?
            .timedelta
            .call1((d.days, d.seconds, d.microseconds))
            .map_err(err)?,
        Value::Exception(e) => exception_for(py, &e)
            .into_value(py)
            .into_bound(py)
            .into_any(),
        Value::Repr(_) | Value::Cycle(_) => {
            return Err(format!(
                "a {} is output-only and cannot be an input",
                value.kind()
            ));
        }
    })
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// A fixed-offset timezone, or None for a naive value.
fn zone<'py>(calendar: &Calendar<'py>, offset: Option<i32>) -> PyResult<Bound<'py, PyAny>> {
    match offset {
        None => Ok(calendar.date.py().None().into_bound(calendar.date.py())),
        Some(seconds) => {
            let delta = calendar.timedelta.call1((0, seconds))?;
            calendar.timezone.call1((delta,))
        }
    }
}
