//! Session options from the dict the Python layer builds; an unknown key
//! or a value of the wrong type is a ConfigurationError naming it.

use std::time::{Duration, UNIX_EPOCH};

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stockade::{JavaScriptOptions, Language, SandboxMode, SessionOptions};

use crate::errors::configuration;

const KEYS: &[&str] = &[
    "worker",
    "sandbox",
    "request_timeout",
    "duration_grace",
    "write_stall_timeout",
    "max_threads",
    "max_host_calls",
    "max_inflight_host_calls",
    "max_host_wait",
    "redact_host_errors",
    "max_result_bytes",
    "spare",
    "max_duration",
    "max_memory",
    "max_recursion_depth",
    "max_output_bytes",
    "max_heap_size",
    "max_buffer_bytes",
    "max_stack_bytes",
    "strict_eval",
    "web_polyfills",
    "frozen_clock",
    "random_seed",
    "modules",
];

struct Reader<'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
}

impl<'py> Reader<'_, 'py> {
    fn get<T: for<'a> FromPyObject<'a, 'py>>(&self, key: &str) -> PyResult<Option<T>> {
        let py = self.dict.py();
        match self.dict.get_item(key)? {
            None => Ok(None),
            Some(value) if value.is_none() => Ok(None),
            Some(value) => value.extract::<T>().map(Some).map_err(|_| {
                let shown = value
                    .repr()
                    .map(|r| r.to_string())
                    .unwrap_or_else(|_| "?".into());
                configuration(py, format!("{key}={shown} has the wrong type"))
            }),
        }
    }

    fn seconds(&self, key: &str) -> PyResult<Option<Duration>> {
        let py = self.dict.py();
        match self.get::<f64>(key)? {
            None => Ok(None),
            Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
            Some(s) => Err(configuration(
                py,
                format!("{key} must be a positive number of seconds, not {s}"),
            )),
        }
    }
}

/// Builds the session options for `language` from `dict`.
pub fn session_options(language: &str, dict: &Bound<'_, PyDict>) -> PyResult<SessionOptions> {
    let py = dict.py();
    for key in dict.keys() {
        let key: String = key.extract()?;
        if !KEYS.contains(&key.as_str()) {
            return Err(configuration(py, format!("unknown option {key:?}")));
        }
    }
    let language = match language {
        "python" => Language::Python,
        "javascript" => Language::JavaScript,
        other => {
            return Err(configuration(
                py,
                format!("language must be \"python\" or \"javascript\", not {other:?}"),
            ));
        }
    };
    let r = Reader { dict };
    let mut options = SessionOptions::new(language);
    if let Some(worker) = r.get::<String>("worker")? {
        options = options.worker(worker);
    }
    if let Some(mode) = r.get::<String>("sandbox")? {
        options.sandbox = match mode.as_str() {
            "auto" => SandboxMode::Auto,
            "require" => SandboxMode::Require,
            "off" => SandboxMode::Off,
            other => {
                return Err(configuration(
                    py,
                    format!("sandbox must be \"auto\", \"require\" or \"off\", not {other:?}"),
                ));
            }
        };
    }
    if let Some(d) = r.seconds("request_timeout")? {
        options.request_timeout = d;
    }
    if let Some(d) = r.seconds("duration_grace")? {
        options.duration_grace = d;
    }
    if let Some(d) = r.seconds("write_stall_timeout")? {
        options.write_stall_timeout = d;
    }
    if let Some(d) = r.seconds("max_host_wait")? {
        options.max_host_wait = d;
    }
    if let Some(n) = r.get::<u32>("max_threads")? {
        options.max_threads = n;
    }
    if let Some(n) = r.get::<u32>("max_host_calls")? {
        options.max_host_calls = n;
    }
    if let Some(n) = r.get::<u32>("max_inflight_host_calls")? {
        options.max_inflight_host_calls = n;
    }
    if let Some(b) = r.get::<bool>("redact_host_errors")? {
        options.redact_host_errors = b;
    }
    if let Some(bytes) = r.get::<u64>("max_result_bytes")? {
        options.max_result_bytes = bytes;
    }
    if let Some(b) = r.get::<bool>("spare")? {
        options.spare = b;
    }
    options.limits.max_duration = r.seconds("max_duration")?;
    // Absent means the default; the Python layer passes 0 for "no limit".
    match r.get::<u64>("max_memory")? {
        Some(0) => options.limits.max_memory = None,
        Some(bytes) => options.limits.max_memory = Some(bytes),
        None => {}
    }
    if let Some(n) = r.get::<u32>("max_recursion_depth")? {
        options.limits.max_recursion_depth = n;
    }
    if let Some(n) = r.get::<u64>("max_output_bytes")? {
        options.limits.max_output_bytes = n;
    }
    let frozen_clock = r.get::<f64>("frozen_clock")?.map(|seconds| {
        let offset = Duration::from_secs_f64(seconds.abs().min(1e15));
        if seconds >= 0.0 {
            UNIX_EPOCH + offset
        } else {
            UNIX_EPOCH - offset
        }
    });
    options.javascript = JavaScriptOptions {
        max_heap_size: r.get("max_heap_size")?,
        max_buffer_bytes: r.get("max_buffer_bytes")?,
        max_stack_bytes: r.get("max_stack_bytes")?,
        strict_eval: r.get("strict_eval")?.unwrap_or(false),
        web_polyfills: r.get("web_polyfills")?.unwrap_or(false),
        frozen_clock,
        random_seed: r.get("random_seed")?,
        modules: r
            .get::<std::collections::BTreeMap<String, String>>("modules")?
            .map(|modules| modules.into_iter().collect())
            .unwrap_or_default(),
    };
    Ok(options)
}
