//! `NativePool`: the host library's pool of ready workers, for Python.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stockade::{CheckoutOptions, Pool, PoolOptions};

use crate::errors::to_pyerr;
use crate::options::{session_options, set_each};
use crate::session::NativeSession;

#[pyclass(module = "stockade._native")]
#[derive(Debug)]
pub struct NativePool {
    pool: Pool,
}

#[pymethods]
impl NativePool {
    #[new]
    fn new(
        py: Python<'_>,
        language: &str,
        options: &Bound<'_, PyDict>,
        size: usize,
        max_concurrent_starts: usize,
    ) -> PyResult<Self> {
        let options = session_options(language, options)?;
        let shape = PoolOptions {
            size,
            max_concurrent_starts,
        };
        let pool = py
            .detach(|| Pool::new(options, shape))
            .map_err(|err| to_pyerr(py, err, None))?;
        Ok(Self { pool })
    }

    /// A session in a ready worker (or a cold start), with this checkout's
    /// parent-side limits (`stockade.CHECKOUT_OPTIONS`).
    #[pyo3(signature = (options=None))]
    fn checkout(
        &self,
        py: Python<'_>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<NativeSession> {
        let mut checkout = CheckoutOptions::default();
        if let Some(options) = options {
            set_each(options, |key, value| checkout.set(key, value))?;
        }
        let session = py
            .detach(|| self.pool.checkout_with(&checkout))
            .map_err(|err| to_pyerr(py, err, None))?;
        Ok(NativeSession::from_session(session))
    }

    /// ready, starting, checkouts, cold_starts, discarded, last_error,
    /// unreaped.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.pool.stats();
        let dict = PyDict::new(py);
        dict.set_item("ready", stats.ready)?;
        dict.set_item("starting", stats.starting)?;
        dict.set_item("checkouts", stats.checkouts)?;
        dict.set_item("cold_starts", stats.cold_starts)?;
        dict.set_item("discarded", stats.discarded)?;
        dict.set_item("last_error", stats.last_error)?;
        dict.set_item("unreaped", stats.unreaped)?;
        Ok(dict)
    }

    fn idle_worker_pids(&self) -> Vec<u32> {
        self.pool.idle_worker_pids()
    }

    /// Waits until the pool is full; False if `timeout` seconds passed first.
    fn wait_ready(&self, py: Python<'_>, timeout: f64) -> bool {
        let timeout = Duration::from_secs_f64(timeout.clamp(0.0, 1e9));
        py.detach(|| self.pool.wait_ready(timeout))
    }

    fn close(&self, py: Python<'_>) {
        py.detach(|| self.pool.close());
    }
}
