//! The stockade Python package's native extension: sessions over the host
//! library (never over an engine), value conversions and host functions.
//! The Python layer (`python/stockade`) builds the public API on it.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod errors;
mod from_python;
mod functions;
mod mounts;
mod options;
mod pool;
mod runtime;
mod session;
mod stepping;
mod to_python;

use pyo3::prelude::*;

/// The conversions, for the fuzz target that attacks them
/// (`fuzz/fuzz_targets/python_conversion.rs`); not the package's API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::from_python::{Refusal, from_python_within};
    pub use crate::to_python::to_python;
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<session::NativeSession>()?;
    m.add_class::<pool::NativePool>()?;
    m.add_class::<mounts::NativeMount>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SESSION_OPTIONS", stockade::SESSION_OPTIONS.to_vec())?;
    m.add("CHECKOUT_OPTIONS", stockade::CHECKOUT_OPTIONS.to_vec())?;
    // The host library's error kinds, by the class names errors.rs sends.
    let error_classes: Vec<&str> = stockade::ErrorKind::ALL
        .iter()
        .map(|kind| kind.class_name())
        .collect();
    m.add("ERROR_CLASSES", error_classes)?;
    // What to do next after each kind, as the host library words it.
    let advice: std::collections::HashMap<&str, &str> = stockade::ErrorKind::ALL
        .iter()
        .map(|kind| (kind.class_name(), kind.spec().advice))
        .collect();
    m.add("ERROR_ADVICE", advice)?;
    m.add(
        "DEFAULT_MAX_STREAM_BYTES",
        stockade::DEFAULT_MAX_STREAM_BYTES,
    )?;
    m.add(
        "DEFAULT_EXECUTE_RESULT_BYTES",
        stockade::DEFAULT_EXECUTE_RESULT_BYTES,
    )?;
    Ok(())
}
