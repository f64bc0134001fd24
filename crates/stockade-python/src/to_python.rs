//! Wire values to Python objects (results, host-function arguments), in
//! time linear in the value, whatever the guest made of it.
//!
//! Building a dict or set is quadratic when its keys share one Python hash
//! (ints `k * (2**61 - 1)` all hash to 0, and the guest chooses the keys), so
//! a dict, set or frozenset in which more than `MAX_SAME_HASH` keys share a
//! hash is refused with a ConversionError before it is built; hashes are
//! counted in a map keyed by Rust's randomly seeded hasher, which the guest
//! cannot aim at. Ctrl-C is checked as the conversion goes.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDelta, PyDict, PyFloat, PyFrozenSet, PyList, PySet,
    PyString, PyTime, PyTuple, PyTzInfo,
};
use stockade::{GuestException, Value};

/// Keys of one dict or set that may share a Python hash. Real data almost
/// never has more than two (`1`, `1.0` and `True` do); a collision attack
/// needs thousands.
pub const MAX_SAME_HASH: u32 = 16;
/// Values converted between checks for a pending signal (Ctrl-C).
const SIGNAL_INTERVAL: u64 = 1 << 16;

/// Converts a wire value for Python. A dict or set whose keys collide is a
/// ConversionError; a signal handler's exception (KeyboardInterrupt) is
/// raised as it is.
pub fn to_python(py: Python<'_>, value: Value) -> PyResult<Bound<'_, PyAny>> {
    Builder {
        py,
        converted: 0,
        repr: None,
        cycle: None,
    }
    .value(value)
}

struct Builder<'py> {
    py: Python<'py>,
    converted: u64,
    repr: Option<Bound<'py, PyAny>>,
    cycle: Option<Bound<'py, PyAny>>,
}

impl<'py> Builder<'py> {
    fn value(&mut self, value: Value) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        self.converted += 1;
        if self.converted.is_multiple_of(SIGNAL_INTERVAL) {
            py.check_signals()?;
        }
        Ok(match value {
            Value::None | Value::Undefined => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
            Value::Int(i) => i.into_pyobject(py)?.into_any(),
            Value::BigInt(big) => big.into_pyobject(py)?.into_any(),
            Value::Float(x) => PyFloat::new(py, x).into_any(),
            Value::Str(s) => PyString::new(py, &s).into_any(),
            Value::Bytes(b) => PyBytes::new(py, &b).into_any(),
            Value::List(items) => PyList::new(py, self.all(items)?)?.into_any(),
            Value::Tuple(items) => PyTuple::new(py, self.all(items)?)?.into_any(),
            Value::Dict(pairs) => {
                let mut keys = Vec::with_capacity(pairs.len());
                let mut items = Vec::with_capacity(pairs.len());
                for (key, item) in pairs {
                    keys.push(self.value(key)?);
                    items.push(self.value(item)?);
                }
                check_hashes(&keys, "dict")?;
                let dict = PyDict::new(py);
                for (key, item) in keys.into_iter().zip(items) {
                    dict.set_item(key, item)?;
                }
                dict.into_any()
            }
            Value::Set(items) => {
                let members = self.all(items)?;
                check_hashes(&members, "set")?;
                PySet::new(py, members)?.into_any()
            }
            Value::FrozenSet(items) => {
                let members = self.all(items)?;
                check_hashes(&members, "frozenset")?;
                PyFrozenSet::new(py, members)?.into_any()
            }
            Value::Date(d) => PyDate::new(py, d.year, d.month, d.day)?.into_any(),
            Value::Time(t) => {
                let tz = timezone(py, t.offset_seconds)?;
                PyTime::new(py, t.hour, t.minute, t.second, t.microsecond, tz.as_ref())?.into_any()
            }
            Value::DateTime(dt) => {
                let tz = timezone(py, dt.time.offset_seconds)?;
                PyDateTime::new(
                    py,
                    dt.date.year,
                    dt.date.month,
                    dt.date.day,
                    dt.time.hour,
                    dt.time.minute,
                    dt.time.second,
                    dt.time.microsecond,
                    tz.as_ref(),
                )?
                .into_any()
            }
            Value::TimeDelta(td) => {
                PyDelta::new(py, td.days, td.seconds, td.microseconds, true)?.into_any()
            }
            Value::Exception(e) => exception_instance(py, &e)?,
            Value::Repr(text) => {
                let class = cached(py, &mut self.repr, "Repr")?;
                class.call1((text,))?
            }
            Value::Cycle(text) => {
                let class = cached(py, &mut self.cycle, "Cycle")?;
                class.call1((text,))?
            }
        })
    }

    fn all(&mut self, items: Vec<Value>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        items.into_iter().map(|item| self.value(item)).collect()
    }
}

/// A class of `stockade._values`, looked up once per conversion.
fn cached<'py>(
    py: Python<'py>,
    slot: &mut Option<Bound<'py, PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(class) = slot {
        return Ok(class.clone());
    }
    let class = py.import("stockade._values")?.getattr(name)?;
    *slot = Some(class.clone());
    Ok(class)
}

/// Refuses keys of which more than `MAX_SAME_HASH` share one hash. Small
/// containers cannot collide past the budget and skip the count.
fn check_hashes(keys: &[Bound<'_, PyAny>], kind: &str) -> PyResult<()> {
    if keys.len() <= MAX_SAME_HASH as usize {
        return Ok(());
    }
    let mut seen: HashMap<isize, u32> = HashMap::with_capacity(keys.len());
    for key in keys {
        let same = seen.entry(key.hash()?).or_insert(0);
        *same += 1;
        if *same > MAX_SAME_HASH {
            return Err(crate::errors::conversion(
                key.py(),
                format!(
                    "a {kind} of {} keys from the guest has more than {MAX_SAME_HASH} keys with the same hash; it was refused, since building it would take time quadratic in its size (a hash-collision attack)",
                    keys.len()
                ),
            ));
        }
    }
    Ok(())
}

fn timezone(py: Python<'_>, offset: Option<i32>) -> PyResult<Option<Bound<'_, PyTzInfo>>> {
    match offset {
        None => Ok(None),
        Some(seconds) => {
            let delta = PyDelta::new(py, 0, seconds, 0, true)?;
            PyTzInfo::fixed_offset(py, delta).map(Some)
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
