//! Fuzzes the Python package's conversions, the host side of every value
//! a guest sends or a host function returns: wire values to Python objects
//! and back, and Python object graphs (shared, cyclic, colliding) built
//! from a recipe to wire values and back. Neither direction may panic or
//! run past its budget: each input gets `BUDGET` decoded bytes and
//! `TIME` (libFuzzer's `-timeout` and `-rss_limit_mb` back both up), and
//! whatever converts to a wire value must encode.
#![no_main]

mod common;

use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDelta, PyDateTime, PyDict, PyFloat, PyFrozenSet, PyList, PySet, PyString, PyTuple, PyTzInfo};
// The package's extension crate: its library is named after the module it builds.
use _native::fuzzing::{Refusal, from_python_within, to_python};
use stockade_wire::{WireLimits, decode_value, encode_value};

/// Decoded bytes one input's Python graph may become.
const BUDGET: u64 = 1 << 24;
/// Wall time one input may take.
const TIME: Duration = Duration::from_secs(2);

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    Python::attach(|py| {
        let started = Instant::now();
        if mode % 2 == 0 {
            // A guest's value: to Python, and back as a host function's result.
            let Ok(value) = decode_value(rest, &common::limits()) else {
                return;
            };
            if let Ok(object) = to_python(py, value) {
                back_to_wire(&object);
            }
        } else {
            // A host's object graph: to the wire, and back to Python.
            let object = build(py, rest);
            if let Some(value) = back_to_wire(&object) {
                let _ = to_python(py, value);
            }
        }
        assert!(
            started.elapsed() < TIME,
            "one input took {:?}",
            started.elapsed()
        );
    });
});

/// Converts `object` for the wire; what converts must also encode.
fn back_to_wire(object: &Bound<'_, PyAny>) -> Option<stockade_wire::Value> {
    match from_python_within(object, "value", BUDGET) {
        Ok(value) => {
            if let Err(err) = encode_value(&value, &WireLimits::default()) {
                panic!("a converted value does not encode: {err}");
            }
            Some(value)
        }
        Err(Refusal::Refused(_)) => None,
        Err(Refusal::Raised(err)) => panic!("a conversion raised {err}"),
    }
}

/// Builds a Python object graph from a recipe: each byte pushes a value or
/// combines the values on top of a small stack (sharing and cycles allowed).
fn build<'py>(py: Python<'py>, recipe: &[u8]) -> Bound<'py, PyAny> {
    let mut stack: Vec<Bound<'py, PyAny>> = Vec::new();
    let mut bytes = recipe.iter().copied();
    while let Some(op) = bytes.next() {
        let arg = usize::from(bytes.next().unwrap_or(0));
        let top = |stack: &mut Vec<Bound<'py, PyAny>>, n: usize| -> Vec<Bound<'py, PyAny>> {
            let n = n.min(stack.len());
            stack.split_off(stack.len() - n)
        };
        let made: Option<Bound<'py, PyAny>> = match op % 16 {
            0 => Some(py.None().into_bound(py)),
            1 => (arg as i64 - 128).into_pyobject(py).ok().map(Bound::into_any),
            // Ints that all hash to 0: the collision a guest would send.
            2 => num_bigint::BigInt::from((1u64 << 61) - 1)
                .checked_mul(&num_bigint::BigInt::from(arg + 1))
                .and_then(|big| big.into_pyobject(py).ok())
                .map(Bound::into_any),
            3 => Some(PyString::new(py, &"é".repeat(arg)).into_any()),
            4 => Some(PyFloat::new(py, arg as f64 / 7.0).into_any()),
            5 => Some(PyBytes::new(py, &vec![arg as u8; arg]).into_any()),
            6 => PyList::new(py, top(&mut stack, arg % 8)).ok().map(Bound::into_any),
            7 => PyTuple::new(py, top(&mut stack, arg % 8)).ok().map(Bound::into_any),
            8 => {
                let dict = PyDict::new(py);
                let items = top(&mut stack, 2 * (arg % 8));
                for pair in items.chunks(2) {
                    if let [key, value] = pair {
                        let _ = dict.set_item(key, value);
                    }
                }
                let _ = PyErr::take(py);
                Some(dict.into_any())
            }
            9 => PySet::new(py, top(&mut stack, arg % 8)).ok().map(Bound::into_any),
            10 => PyFrozenSet::new(py, top(&mut stack, arg % 8))
                .ok()
                .map(Bound::into_any),
            // Sharing: the same object twice, so graphs grow as they nest.
            11 => stack.last().cloned(),
            12 => stack
                .last()
                .cloned()
                .and_then(|top| PyList::new(py, [top.clone(), top]).ok())
                .map(Bound::into_any),
            13 => PyDelta::new(py, 0, (arg as i32 - 128) * 600, 0, true)
                .and_then(|delta| PyTzInfo::fixed_offset(py, delta))
                .and_then(|tz| PyDateTime::new(py, 2000 + arg as i32, 1, 1, 0, 0, 0, 0, Some(&tz)))
                .ok()
                .map(Bound::into_any),
            // A cycle: a list that holds itself.
            14 => {
                let list = PyList::empty(py);
                list.append(&list).ok().map(|()| list.into_any())
            }
            _ => Some(PyDict::new(py).into_any()),
        };
        let _ = PyErr::take(py);
        if let Some(made) = made
            && stack.len() < 64
        {
            stack.push(made);
        }
    }
    stack.pop().unwrap_or_else(|| py.None().into_bound(py))
}
