//! The stockade Python package's native extension: sessions over the host
//! library (never over an engine), value conversions and host functions.
//! The Python layer (`python/stockade`) builds the public API on it.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod errors;
mod from_python;
mod functions;
mod options;
mod pool;
mod runtime;
mod session;
mod to_python;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<session::NativeSession>()?;
    m.add_class::<pool::NativePool>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
