//! Options by name, for bindings that receive them as a dict or an object:
//! one list of names and one check of each value, so a binding only turns
//! its own values into an [`OptionValue`] and passes them on.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::options::{SessionOptions, duration_from_secs};
use crate::pool::CheckoutOptions;

/// An option's value as a binding received it.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    /// Any whole number a binding can hold (u64 and i64 both fit).
    Int(i128),
    Float(f64),
    Str(String),
    /// Names to texts (JavaScript modules).
    Map(Vec<(String, String)>),
    /// Texts in order (package directories).
    List(Vec<String>),
}

impl OptionValue {
    fn kind(&self) -> &'static str {
        match self {
            OptionValue::Bool(_) => "a bool",
            OptionValue::Int(_) => "an int",
            OptionValue::Float(_) => "a float",
            OptionValue::Str(_) => "a str",
            OptionValue::Map(_) => "a mapping",
            OptionValue::List(_) => "a list",
        }
    }
}

/// The names [`SessionOptions::set`] takes.
pub const SESSION_OPTIONS: &[&str] = &[
    "worker",
    "engine",
    "python",
    "site_packages",
    "packages",
    "preload",
    "script_packages",
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
    "dumpable",
    "max_file_memory",
    "environ",
    "clock",
    "max_duration",
    "max_memory",
    "max_recursion_depth",
    "max_output_bytes",
    "max_scratch_bytes",
    "max_heap_size",
    "max_buffer_bytes",
    "max_stack_bytes",
    "strict_eval",
    "web_polyfills",
    "inspect_results",
    "random_seed",
    "modules",
    "remote",
    "token",
    "remote_ca",
];

/// The names [`CheckoutOptions::set`] takes: the limits only the parent
/// enforces, which may differ per checkout.
pub const CHECKOUT_OPTIONS: &[&str] = &[
    "request_timeout",
    "duration_grace",
    "write_stall_timeout",
    "max_host_calls",
    "max_inflight_host_calls",
    "max_host_wait",
    "redact_host_errors",
    "max_result_bytes",
];

/// Reads one option's value as the type it needs, naming the option in
/// every refusal.
struct Named<'a> {
    key: &'a str,
    value: OptionValue,
}

impl Named<'_> {
    fn wrong(&self, wanted: &str) -> String {
        format!("{} must be {wanted}, not {}", self.key, self.value.kind())
    }

    fn seconds(&self) -> Result<Duration, String> {
        let seconds = match self.value {
            OptionValue::Int(i) => i as f64,
            OptionValue::Float(x) => x,
            _ => return Err(self.wrong("a number of seconds")),
        };
        duration_from_secs(seconds).ok_or_else(|| {
            format!(
                "{} must be a positive number of seconds, not {seconds}",
                self.key
            )
        })
    }

    fn count<T: TryFrom<i128>>(&self) -> Result<T, String> {
        match self.value {
            OptionValue::Int(i) => {
                T::try_from(i).map_err(|_| format!("{} is out of range: {i}", self.key))
            }
            _ => Err(self.wrong("an int")),
        }
    }

    fn flag(&self) -> Result<bool, String> {
        match self.value {
            OptionValue::Bool(b) => Ok(b),
            _ => Err(self.wrong("a bool")),
        }
    }

    fn text(&self) -> Result<&str, String> {
        match &self.value {
            OptionValue::Str(s) => Ok(s),
            _ => Err(self.wrong("a str")),
        }
    }

    /// Seconds since the Unix epoch, either side of it.
    fn instant(&self) -> Result<SystemTime, String> {
        let seconds = match self.value {
            OptionValue::Int(i) => i as f64,
            OptionValue::Float(x) if x.is_finite() => x,
            _ => return Err(self.wrong("a number of seconds since the Unix epoch")),
        };
        let offset = Duration::from_secs_f64(seconds.abs().min(1e15));
        Ok(if seconds >= 0.0 {
            UNIX_EPOCH + offset
        } else {
            UNIX_EPOCH - offset
        })
    }
}

impl SessionOptions {
    /// Sets one option by the name bindings use (`SESSION_OPTIONS`):
    /// seconds for times, bytes for sizes (`max_memory` 0 removes the
    /// limit), `"off"`, `"auto"` or `"require"` for `sandbox`. The
    /// message of a refusal names the option; `validate` (run when a
    /// session starts) checks ranges that depend on more than one option.
    pub fn set(&mut self, key: &str, value: OptionValue) -> Result<(), String> {
        let v = Named { key, value };
        let js = &mut self.javascript;
        match key {
            "worker" => self.worker = Some(v.text()?.into()),
            "engine" => self.engine = Some(v.text()?.parse().map_err(|err| format!("{err}"))?),
            "python" => self.cpython.python = Some(v.text()?.into()),
            "site_packages" => match v.value {
                OptionValue::List(dirs) => {
                    self.cpython.site_packages = dirs.into_iter().map(Into::into).collect()
                }
                OptionValue::Str(dir) => self.cpython.site_packages = vec![dir.into()],
                _ => return Err(v.wrong("a list of directories")),
            },
            "script_packages" => match v.value {
                OptionValue::List(names) => self.cpython.script_packages = names,
                OptionValue::Str(name) => self.cpython.script_packages = vec![name],
                _ => return Err(v.wrong("a list of package names")),
            },
            "preload" => match v.value {
                OptionValue::List(modules) => self.cpython.preload = modules,
                OptionValue::Str(module) => self.cpython.preload = vec![module],
                _ => return Err(v.wrong("a list of module names")),
            },
            "packages" => match v.value {
                OptionValue::List(requirements) => self.cpython.packages = requirements,
                OptionValue::Str(requirement) => self.cpython.packages = vec![requirement],
                _ => return Err(v.wrong("a list of package requirements")),
            },
            "sandbox" => self.sandbox = v.text()?.parse().map_err(|err| format!("{err}"))?,
            "request_timeout" => self.request_timeout = v.seconds()?,
            "duration_grace" => self.duration_grace = v.seconds()?,
            "write_stall_timeout" => self.write_stall_timeout = v.seconds()?,
            "max_host_wait" => self.max_host_wait = v.seconds()?,
            "max_threads" => self.max_threads = v.count()?,
            "max_host_calls" => self.max_host_calls = v.count()?,
            "max_inflight_host_calls" => self.max_inflight_host_calls = v.count()?,
            "redact_host_errors" => self.redact_host_errors = v.flag()?,
            "max_result_bytes" => self.max_result_bytes = v.count()?,
            "spare" => self.spare = v.flag()?,
            "dumpable" => self.dumpable = v.flag()?,
            "max_file_memory" => self.max_file_memory = v.count()?,
            "environ" => match v.value {
                OptionValue::Map(pairs) => self.environ = pairs,
                _ => return Err(v.wrong("a mapping of names to values")),
            },
            "clock" => {
                self.clock = match &v.value {
                    OptionValue::Str(word) if word == "real" => crate::files::GuestClock::Real,
                    OptionValue::Int(_) | OptionValue::Float(_) => {
                        crate::files::GuestClock::Frozen(v.instant()?)
                    }
                    _ => {
                        return Err(v.wrong(
                            "\"real\", or the instant to freeze at in seconds since the Unix epoch",
                        ));
                    }
                }
            }
            "max_duration" => self.limits.max_duration = Some(v.seconds()?),
            "max_memory" => {
                self.limits.max_memory = match v.count()? {
                    0 => None,
                    bytes => Some(bytes),
                }
            }
            "max_recursion_depth" => self.limits.max_recursion_depth = v.count()?,
            "max_output_bytes" => self.limits.max_output_bytes = v.count()?,
            "max_scratch_bytes" => self.limits.max_scratch_bytes = v.count()?,
            "max_heap_size" => js.max_heap_size = Some(v.count()?),
            "max_buffer_bytes" => js.max_buffer_bytes = Some(v.count()?),
            "max_stack_bytes" => js.max_stack_bytes = Some(v.count()?),
            "strict_eval" => js.strict_eval = v.flag()?,
            "web_polyfills" => js.web_polyfills = v.flag()?,
            "inspect_results" => js.inspect_results = v.flag()?,
            "random_seed" => js.random_seed = Some(v.count()?),
            "modules" => match v.value {
                OptionValue::Map(modules) => js.modules = modules,
                _ => return Err(v.wrong("a mapping of module names to sources")),
            },
            // Either may come first; `validate` checks a token has a URL.
            "remote" => {
                let url = v.text()?.to_owned();
                let remote = self.remote.get_or_insert_with(Default::default);
                remote.url = url;
            }
            "token" => {
                let token = v.text()?.to_owned();
                self.remote.get_or_insert_with(Default::default).token = Some(token);
            }
            "remote_ca" => {
                let file = v.text()?.into();
                self.remote.get_or_insert_with(Default::default).ca_file = Some(file);
            }
            _ => return Err(unknown(key, SESSION_OPTIONS)),
        }
        Ok(())
    }
}

impl CheckoutOptions {
    /// Sets one per-checkout limit by name (`CHECKOUT_OPTIONS`); an option
    /// a worker is started with is refused, naming where it belongs.
    pub fn set(&mut self, key: &str, value: OptionValue) -> Result<(), String> {
        let v = Named { key, value };
        match key {
            "request_timeout" => self.request_timeout = Some(v.seconds()?),
            "duration_grace" => self.duration_grace = Some(v.seconds()?),
            "write_stall_timeout" => self.write_stall_timeout = Some(v.seconds()?),
            "max_host_wait" => self.max_host_wait = Some(v.seconds()?),
            "max_host_calls" => self.max_host_calls = Some(v.count()?),
            "max_inflight_host_calls" => self.max_inflight_host_calls = Some(v.count()?),
            "redact_host_errors" => self.redact_host_errors = Some(v.flag()?),
            "max_result_bytes" => self.max_result_bytes = Some(v.count()?),
            _ if SESSION_OPTIONS.contains(&key) => {
                return Err(format!(
                    "{key} is fixed when a worker starts, so it is the pool's to set; per checkout: {}",
                    CHECKOUT_OPTIONS.join(", ")
                ));
            }
            _ => return Err(unknown(key, CHECKOUT_OPTIONS)),
        }
        Ok(())
    }
}

fn unknown(key: &str, names: &[&str]) -> String {
    format!(
        "unknown option {key:?}; the options are {}",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Language;

    #[test]
    fn every_listed_option_can_be_set_and_others_are_refused() -> Result<(), String> {
        let mut options = SessionOptions::new(Language::JavaScript);
        for key in SESSION_OPTIONS {
            let value = match *key {
                "worker" | "python" => OptionValue::Str("/bin/true".into()),
                "remote" => OptionValue::Str("ws://127.0.0.1:7341".into()),
                "token" => OptionValue::Str("a-token-of-sixteen".into()),
                "remote_ca" => OptionValue::Str("/etc/ssl/certs/ca-certificates.crt".into()),
                "engine" => OptionValue::Str("quickjs".into()),
                "site_packages" => OptionValue::List(vec!["/usr".into()]),
                "packages" => OptionValue::List(vec!["pandas==3.1.1".into()]),
                "preload" => OptionValue::List(vec!["json".into()]),
                "script_packages" => OptionValue::List(vec!["pandas".into()]),
                "sandbox" => OptionValue::Str("require".into()),
                "redact_host_errors" | "spare" | "dumpable" | "strict_eval" | "web_polyfills"
                | "inspect_results" => OptionValue::Bool(true),
                "modules" => OptionValue::Map(vec![("m".into(), "export default 1".into())]),
                "clock" => OptionValue::Float(-1.5),
                "environ" => OptionValue::Map(vec![("HOME".into(), "/home/guest".into())]),
                _ => OptionValue::Int(100_000),
            };
            options.set(key, value)?;
        }
        let mut checkout = CheckoutOptions::default();
        for key in CHECKOUT_OPTIONS {
            let value = match *key {
                "redact_host_errors" => OptionValue::Bool(false),
                _ => OptionValue::Int(5),
            };
            checkout.set(key, value)?;
        }
        let err = options.set("colour", OptionValue::Int(1)).unwrap_err();
        assert!(err.starts_with("unknown option \"colour\""), "{err}");
        let err = checkout.set("max_memory", OptionValue::Int(1)).unwrap_err();
        assert!(err.contains("pool's to set"), "{err}");
        Ok(())
    }

    #[test]
    fn a_value_of_the_wrong_kind_or_range_names_the_option() {
        let mut options = SessionOptions::new(Language::Python);
        let cases = [
            (
                "max_duration",
                OptionValue::Float(-1.0),
                "max_duration must be a positive number of seconds, not -1",
            ),
            (
                "max_host_calls",
                OptionValue::Int(-3),
                "max_host_calls is out of range: -3",
            ),
            (
                "spare",
                OptionValue::Int(1),
                "spare must be a bool, not an int",
            ),
            (
                "sandbox",
                OptionValue::Str("strict".into()),
                "sandbox must be \"off\", \"auto\" or \"require\", not \"strict\"",
            ),
        ];
        for (key, value, message) in cases {
            assert_eq!(options.set(key, value).unwrap_err(), message);
        }
    }
}
