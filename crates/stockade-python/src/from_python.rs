//! Python objects to wire values (inputs, host-function results).
//!
//! A successful conversion runs no Python code of the value's own (no
//! `__repr__`, `__hash__`, properties or `__iter__`: everything is read
//! through the C API) and builds no path string: the path to a refused part
//! is put together on the way out, only when something is refused. What it
//! builds is charged as the wire would decode it, so a structure that
//! shares one object many times cannot make the host build more than the
//! wire could carry; and Ctrl-C is honoured as it goes. Containers are
//! snapshotted before their items are converted, so code that does run (a
//! custom tzinfo) and mutates them cannot reach PyO3's mutation panic.

use std::panic::{AssertUnwindSafe, catch_unwind};

use num_bigint::BigInt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDate, PyDateTime, PyDelta, PyDict, PyFloat, PyFrozenSet, PyInt,
    PyList, PySet, PyString, PyTime, PyTuple, PyType, PyTzInfoAccess,
};
use stockade::{Date, DateTime, MAX_RESULT_BYTES, Time, TimeDelta, Value};

/// Deepest Python value converted; the wire refuses more anyway.
const MAX_DEPTH: usize = 64;
/// What one value costs the budget before its payload, as on the wire.
const VALUE_SLOT: u64 = size_of::<Value>() as u64;
/// Values converted between checks for a pending signal (Ctrl-C).
const SIGNAL_INTERVAL: u64 = 1 << 16;
/// Longest key shown in a refusal's path.
const SHOWN_KEY: usize = 40;

/// Why a value could not be converted.
#[derive(Debug)]
pub enum Refusal {
    /// Part of the value cannot cross; the message names where it sits.
    Refused(String),
    /// A signal handler raised (Ctrl-C's KeyboardInterrupt) mid-conversion.
    Raised(PyErr),
}

/// A str as Python shows it in an index: `'name'`.
pub fn quoted(name: &str) -> String {
    format!("'{}'", name.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// Converts a Python value for the wire. `root` names the value in
/// messages (`inputs['rows']`), followed by the path inside it.
pub fn from_python(value: &Bound<'_, PyAny>, root: &str) -> Result<Value, Refusal> {
    from_python_within(value, root, MAX_RESULT_BYTES)
}

/// As `from_python`, refusing a value that would take more than `budget`
/// bytes as the wire decodes it.
pub fn from_python_within(
    value: &Bound<'_, PyAny>,
    root: &str,
    budget: u64,
) -> Result<Value, Refusal> {
    let mut converter = Converter {
        budget,
        allowed: budget,
        converted: 0,
        ancestors: Vec::new(),
    };
    let converted = catch_unwind(AssertUnwindSafe(|| converter.value(value)));
    match converted {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(Failure::Raised(err))) => Err(Refusal::Raised(err)),
        Ok(Err(Failure::At { mut path, message })) => {
            path.reverse();
            Err(Refusal::Refused(format!(
                "{root}{}: {message}",
                path.concat()
            )))
        }
        Err(_) => Err(Refusal::Refused(format!(
            "{root}: the value changed while it was being converted"
        ))),
    }
}

/// A refusal on its way out of the conversion.
enum Failure {
    /// `path` holds the steps from the refused part outwards.
    At {
        path: Vec<String>,
        message: String,
    },
    Raised(PyErr),
}

impl Failure {
    fn new(message: impl Into<String>) -> Self {
        Failure::At {
            path: Vec::new(),
            message: message.into(),
        }
    }

    /// Adds the step from the enclosing value to the refused part.
    fn within(mut self, step: impl FnOnce() -> String) -> Self {
        if let Failure::At { path, .. } = &mut self {
            path.push(step());
        }
        self
    }
}

struct Converter {
    /// Decoded bytes left before the value is larger than allowed.
    budget: u64,
    /// The whole allowance, for the message.
    allowed: u64,
    converted: u64,
    /// Containers being converted, by address: a cycle's tell.
    ancestors: Vec<usize>,
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .qualname()
        .map(|name| name.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A dict key as a refusal's path shows it, read without running its code.
fn shown_key(key: &Bound<'_, PyAny>) -> String {
    let shown = if let Ok(text) = key.cast::<PyString>() {
        match text.to_cow() {
            Ok(text) => quoted(&text),
            Err(_) => "<str>".into(),
        }
    } else if let Ok(b) = key.cast::<PyBool>() {
        if b.is_true() { "True" } else { "False" }.into()
    } else if key.is_instance_of::<PyInt>() {
        key.extract::<i64>()
            .map_or_else(|_| "<int>".into(), |i| i.to_string())
    } else if let Ok(f) = key.cast::<PyFloat>() {
        format!("{:?}", f.value())
    } else if key.is_none() {
        "None".into()
    } else {
        format!("<{} key>", type_name(key))
    };
    match shown.char_indices().nth(SHOWN_KEY) {
        Some((end, _)) => format!("{}…", &shown[..end]),
        None => shown,
    }
}

impl Converter {
    /// Charges one value and its payload; checks for Ctrl-C now and then.
    fn charge(&mut self, py: Python<'_>, payload: usize) -> Result<(), Failure> {
        let cost = VALUE_SLOT.saturating_add(payload as u64);
        if cost > self.budget {
            return Err(Failure::new(format!(
                "the value would take more than {} bytes as the wire decodes it",
                self.allowed
            )));
        }
        self.budget -= cost;
        self.converted += 1;
        if self.converted.is_multiple_of(SIGNAL_INTERVAL) {
            py.check_signals().map_err(Failure::Raised)?;
        }
        Ok(())
    }

    fn value(&mut self, value: &Bound<'_, PyAny>) -> Result<Value, Failure> {
        let py = value.py();
        if value.is_none() {
            self.charge(py, 0)?;
            return Ok(Value::None);
        }
        if let Ok(b) = value.cast::<PyBool>() {
            self.charge(py, 0)?;
            return Ok(Value::Bool(b.is_true()));
        }
        if value.is_instance_of::<PyInt>() {
            if let Ok(small) = value.extract::<i64>() {
                self.charge(py, 0)?;
                return Ok(Value::Int(small));
            }
            let big = value
                .extract::<BigInt>()
                .map_err(|err| Failure::new(err.to_string()))?;
            self.charge(
                py,
                usize::try_from(big.bits().div_ceil(8)).unwrap_or(usize::MAX),
            )?;
            return Ok(Value::from(big));
        }
        if let Ok(f) = value.cast::<PyFloat>() {
            self.charge(py, 0)?;
            return Ok(Value::Float(f.value()));
        }
        if let Ok(s) = value.cast::<PyString>() {
            let text = s
                .to_cow()
                .map_err(|err| Failure::new(format!("a str that is not valid UTF-8: {err}")))?;
            self.charge(py, text.len())?;
            return Ok(Value::Str(text.into_owned()));
        }
        if let Ok(b) = value.cast::<PyBytes>() {
            self.charge(py, b.as_bytes().len())?;
            return Ok(Value::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = value.cast::<PyByteArray>() {
            self.charge(py, b.len())?;
            return Ok(Value::Bytes(b.to_vec()));
        }
        // datetime before date: a datetime is a date too.
        if let Ok(dt) = value.cast::<PyDateTime>() {
            self.charge(py, 0)?;
            return datetime_in(dt).map(Value::DateTime);
        }
        if let Ok(d) = value.cast::<PyDate>() {
            self.charge(py, 0)?;
            return date_in(d).map(Value::Date);
        }
        if let Ok(t) = value.cast::<PyTime>() {
            self.charge(py, 0)?;
            return time_in(t).map(Value::Time);
        }
        if let Ok(delta) = value.cast::<PyDelta>() {
            self.charge(py, 0)?;
            let of = py.get_type::<PyDelta>();
            return Ok(Value::TimeDelta(TimeDelta {
                days: field_of(delta, &of, intern!(delta.py(), "days"))?,
                seconds: field_of(delta, &of, intern!(delta.py(), "seconds"))?,
                microseconds: field_of(delta, &of, intern!(delta.py(), "microseconds"))?,
            }));
        }
        let is_container = value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
            || value.is_instance_of::<PyDict>()
            || value.is_instance_of::<PySet>()
            || value.is_instance_of::<PyFrozenSet>();
        if !is_container {
            return Err(Failure::new(format!(
                "a value of type {} cannot cross",
                type_name(value)
            )));
        }
        let id = value.as_ptr() as usize;
        if self.ancestors.contains(&id) {
            return Err(Failure::new("the value contains itself (a cycle)"));
        }
        if self.ancestors.len() >= MAX_DEPTH {
            return Err(Failure::new(format!(
                "nested deeper than {MAX_DEPTH} containers"
            )));
        }
        self.charge(py, 0)?;
        self.ancestors.push(id);
        let converted = self.container(value);
        self.ancestors.pop();
        converted
    }

    fn items(&mut self, items: Vec<Bound<'_, PyAny>>) -> Result<Vec<Value>, Failure> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(
                self.value(item)
                    .map_err(|f| f.within(|| format!("[{i}]")))?,
            );
        }
        Ok(out)
    }

    fn container(&mut self, value: &Bound<'_, PyAny>) -> Result<Value, Failure> {
        if let Ok(list) = value.cast::<PyList>() {
            // A snapshot: nothing the items run can change what is walked.
            let items: Vec<_> = list.iter().collect();
            return self.items(items).map(Value::List);
        }
        if let Ok(tuple) = value.cast::<PyTuple>() {
            let items: Vec<_> = tuple.iter().collect();
            return self.items(items).map(Value::Tuple);
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            // Collecting runs no Python code, so PyO3's iterator cannot see
            // the dict change under it.
            let pairs: Vec<_> = dict.iter().collect();
            let mut out = Vec::with_capacity(pairs.len());
            for (key, item) in &pairs {
                let converted_key = self
                    .value(key)
                    .map_err(|f| f.within(|| format!("[{}] (the key)", shown_key(key))))?;
                let converted = self
                    .value(item)
                    .map_err(|f| f.within(|| format!("[{}]", shown_key(key))))?;
                out.push((converted_key, converted));
            }
            return Ok(Value::Dict(out));
        }
        let members: Vec<Bound<'_, PyAny>> = if let Ok(set) = value.cast::<PySet>() {
            set.iter().collect()
        } else if let Ok(frozen) = value.cast::<PyFrozenSet>() {
            frozen.iter().collect()
        } else {
            return Err(Failure::new(format!(
                "a value of type {} cannot cross",
                type_name(value)
            )));
        };
        let mut out = Vec::with_capacity(members.len());
        for (i, member) in members.iter().enumerate() {
            out.push(
                self.value(member)
                    .map_err(|f| f.within(|| format!("{{member {i}}}")))?,
            );
        }
        Ok(if value.is_instance_of::<PyFrozenSet>() {
            Value::FrozenSet(out)
        } else {
            Value::Set(out)
        })
    }
}

fn field<T: TryFrom<i64>>(name: &str, number: i64) -> Result<T, Failure> {
    T::try_from(number).map_err(|_| Failure::new(format!("{name} {number} is out of range")))
}

/// A field of a date, time, datetime or timedelta (the stable ABI, which
/// the package is built for, has no accessor functions): of the datetime
/// type itself, its attribute, a C getter; of a subclass, through the
/// datetime type's own descriptor, never a property the subclass put in
/// its place, so that no code of the value's own runs.
fn field_of<'py, T, V>(
    value: &Bound<'py, V>,
    of: &Bound<'py, PyType>,
    name: &Bound<'py, PyString>,
) -> Result<T, Failure>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    let value = value.as_any();
    let field = if value.get_type().is(of) {
        value.getattr(name)
    } else {
        of.getattr(name).and_then(|descriptor| {
            descriptor.call_method1(intern!(value.py(), "__get__"), (value,))
        })
    };
    field
        .map_err(|err| Failure::new(format!("{name}: {err}")))?
        .extract::<T>()
        .map_err(|_| Failure::new(format!("{name} is not a small integer")))
}

fn date_in(value: &Bound<'_, PyDate>) -> Result<Date, Failure> {
    let of = value.py().get_type::<PyDate>();
    Ok(Date {
        year: field_of(value, &of, intern!(value.py(), "year"))?,
        month: field_of(value, &of, intern!(value.py(), "month"))?,
        day: field_of(value, &of, intern!(value.py(), "day"))?,
    })
}

/// The UTC offset of an aware datetime or time, in seconds. A custom
/// tzinfo's `utcoffset` is the one piece of Python this may run.
fn offset_of(value: &Bound<'_, PyAny>, aware: bool) -> Result<Option<i32>, Failure> {
    if !aware {
        return Ok(None);
    }
    let offset = value
        .call_method0("utcoffset")
        .map_err(|err| Failure::new(err.to_string()))?;
    if offset.is_none() {
        return Ok(None);
    }
    let delta = offset
        .cast::<PyDelta>()
        .map_err(|_| Failure::new("utcoffset() did not return a timedelta"))?;
    let of = delta.py().get_type::<PyDelta>();
    let days: i64 = field_of(delta, &of, intern!(delta.py(), "days"))?;
    let seconds: i64 = field_of(delta, &of, intern!(delta.py(), "seconds"))?;
    let seconds = days * 86_400 + seconds;
    field("UTC offset", seconds).map(Some)
}

fn time_in(value: &Bound<'_, PyTime>) -> Result<Time, Failure> {
    let of = value.py().get_type::<PyTime>();
    Ok(Time {
        hour: field_of(value, &of, intern!(value.py(), "hour"))?,
        minute: field_of(value, &of, intern!(value.py(), "minute"))?,
        second: field_of(value, &of, intern!(value.py(), "second"))?,
        microsecond: field_of(value, &of, intern!(value.py(), "microsecond"))?,
        offset_seconds: offset_of(value.as_any(), value.get_tzinfo().is_some())?,
    })
}

fn datetime_in(value: &Bound<'_, PyDateTime>) -> Result<DateTime, Failure> {
    let of = value.py().get_type::<PyDateTime>();
    Ok(DateTime {
        date: Date {
            year: field_of(value, &of, intern!(value.py(), "year"))?,
            month: field_of(value, &of, intern!(value.py(), "month"))?,
            day: field_of(value, &of, intern!(value.py(), "day"))?,
        },
        time: Time {
            hour: field_of(value, &of, intern!(value.py(), "hour"))?,
            minute: field_of(value, &of, intern!(value.py(), "minute"))?,
            second: field_of(value, &of, intern!(value.py(), "second"))?,
            microsecond: field_of(value, &of, intern!(value.py(), "microsecond"))?,
            offset_seconds: offset_of(value.as_any(), value.get_tzinfo().is_some())?,
        },
    })
}
