//! `NativePool`: the host library's pool of ready workers, for Python.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stockade::{CheckoutOptions, Pool, PoolOptions};

use crate::errors::{configuration, to_pyerr};
use crate::options::session_options;
use crate::session::NativeSession;

#[pyclass(module = "stockade._native")]
#[derive(Debug)]
pub struct NativePool {
    pool: Pool,
}

fn seconds(py: Python<'_>, key: &str, value: Option<f64>) -> PyResult<Option<Duration>> {
    match value {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
        Some(s) => Err(configuration(
            py,
            format!("{key} must be a positive number of seconds, not {s}"),
        )),
    }
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
    /// parent-side limits.
    #[pyo3(signature = (request_timeout=None, duration_grace=None, write_stall_timeout=None,
        max_host_calls=None, max_inflight_host_calls=None, max_host_wait=None,
        redact_host_errors=None, max_result_bytes=None))]
    #[allow(clippy::too_many_arguments)]
    fn checkout(
        &self,
        py: Python<'_>,
        request_timeout: Option<f64>,
        duration_grace: Option<f64>,
        write_stall_timeout: Option<f64>,
        max_host_calls: Option<u32>,
        max_inflight_host_calls: Option<u32>,
        max_host_wait: Option<f64>,
        redact_host_errors: Option<bool>,
        max_result_bytes: Option<u64>,
    ) -> PyResult<NativeSession> {
        let checkout = CheckoutOptions {
            request_timeout: seconds(py, "request_timeout", request_timeout)?,
            duration_grace: seconds(py, "duration_grace", duration_grace)?,
            write_stall_timeout: seconds(py, "write_stall_timeout", write_stall_timeout)?,
            max_host_calls,
            max_inflight_host_calls,
            max_host_wait: seconds(py, "max_host_wait", max_host_wait)?,
            redact_host_errors,
            max_result_bytes,
        };
        let session = py
            .detach(|| self.pool.checkout_with(&checkout))
            .map_err(|err| to_pyerr(py, err, None))?;
        Ok(NativeSession::from_session(session))
    }

    /// ready, starting, checkouts, cold_starts, discarded, last_error.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.pool.stats();
        let dict = PyDict::new(py);
        dict.set_item("ready", stats.ready)?;
        dict.set_item("starting", stats.starting)?;
        dict.set_item("checkouts", stats.checkouts)?;
        dict.set_item("cold_starts", stats.cold_starts)?;
        dict.set_item("discarded", stats.discarded)?;
        dict.set_item("last_error", stats.last_error)?;
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
