//! Options by name, for bindings that receive them as a dict or an object:
//! one list of names and one check of each value, so a binding only turns
//! its own values into an [`OptionValue`] and passes them on.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::contract::{CHECKOUT_OPTIONS, Kind, OPTIONS, SESSION_OPTIONS};
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

    /// A whole number the field's type holds; past it, the refusal names
    /// the option's range as the table gives it.
    fn count<T: TryFrom<i128>>(&self) -> Result<T, String> {
        match self.value {
            OptionValue::Int(i) => {
                T::try_from(i).map_err(|_| match crate::contract::spec(self.key) {
                    Some(spec) => spec.out_of_range(i),
                    None => format!("{} is out of range: {i}", self.key),
                })
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

impl SessionOptions {
    /// An option's value by the name bindings use, as `set` takes it;
    /// `None` when it is unset (an empty list or mapping is unset too),
    /// so that the table's default holds. An unknown name is refused.
    pub fn get(&self, key: &str) -> Result<Option<OptionValue>, String> {
        use OptionValue::{Bool, Float, Int, List, Map, Str};
        let seconds = |duration: Duration| Float(duration.as_secs_f64());
        let number = |n: u64| Int(i128::from(n));
        let path = |path: &std::path::Path| Str(path.to_string_lossy().into_owned());
        let texts = |texts: &[String]| (!texts.is_empty()).then(|| List(texts.to_vec()));
        let pairs = |pairs: &[(String, String)]| (!pairs.is_empty()).then(|| Map(pairs.to_vec()));
        let (js, py, remote) = (&self.javascript, &self.cpython, self.remote.as_ref());
        Ok(match key {
            "worker" => self.worker.as_deref().map(path),
            "engine" => self.engine.map(|engine| Str(engine.name().into())),
            "python" => py.python.as_deref().map(path),
            "site_packages" => (!py.site_packages.is_empty()).then(|| {
                List(
                    py.site_packages
                        .iter()
                        .map(|dir| dir.to_string_lossy().into_owned())
                        .collect(),
                )
            }),
            "packages" => texts(&py.packages),
            "preload" => texts(&py.preload),
            "script_packages" => texts(&py.script_packages),
            "sandbox" => Some(Str(self.sandbox.name().into())),
            "request_timeout" => Some(seconds(self.request_timeout)),
            "duration_grace" => Some(seconds(self.duration_grace)),
            "write_stall_timeout" => Some(seconds(self.write_stall_timeout)),
            "max_host_wait" => Some(seconds(self.max_host_wait)),
            "max_threads" => Some(number(self.max_threads.into())),
            "max_host_calls" => Some(number(self.max_host_calls.into())),
            "max_inflight_host_calls" => Some(number(self.max_inflight_host_calls.into())),
            "redact_host_errors" => Some(Bool(self.redact_host_errors)),
            "max_result_bytes" => Some(number(self.max_result_bytes)),
            "spare" => Some(Bool(self.spare)),
            "dumpable" => Some(Bool(self.dumpable)),
            "max_file_memory" => Some(number(self.max_file_memory)),
            "environ" => pairs(&self.environ),
            "clock" => Some(match self.clock.frozen_us() {
                None => Str("real".into()),
                Some(micros) => Float(micros as f64 / 1e6),
            }),
            "max_duration" => self.limits.max_duration.map(seconds),
            // Bindings spell "no limit" 0, as `set` reads it.
            "max_memory" => Some(number(self.limits.max_memory.unwrap_or(0))),
            "max_recursion_depth" => Some(number(self.limits.max_recursion_depth.into())),
            "max_output_bytes" => Some(number(self.limits.max_output_bytes)),
            "max_scratch_bytes" => Some(number(self.limits.max_scratch_bytes)),
            "max_heap_size" => js.max_heap_size.map(number),
            "max_buffer_bytes" => js.max_buffer_bytes.map(number),
            "max_stack_bytes" => Some(number(
                js.max_stack_bytes
                    .unwrap_or(stockade_wire::DEFAULT_MAX_STACK_BYTES)
                    .into(),
            )),
            "strict_eval" => Some(Bool(js.strict_eval)),
            "web_polyfills" => Some(Bool(js.web_polyfills)),
            "inspect_results" => Some(Bool(js.inspect_results)),
            "random_seed" => js.random_seed.map(number),
            "modules" => pairs(&js.modules),
            "remote" => remote
                .filter(|remote| !remote.url.is_empty())
                .map(|remote| Str(remote.url.clone())),
            "token" => remote.and_then(|remote| remote.token.clone()).map(Str),
            "remote_ca" => remote
                .and_then(|remote| remote.ca_file.as_deref())
                .map(path),
            _ => return Err(unknown(key, SESSION_OPTIONS)),
        })
    }

    /// Holds every number to the table's range, and every time above
    /// zero, naming the first option outside: the one range check, for
    /// values set by name and by the builders alike.
    pub(crate) fn check_ranges(&self) -> Result<(), String> {
        // Only numbers have ranges; reading the others would copy them.
        let numbers = OPTIONS
            .iter()
            .filter(|spec| matches!(spec.kind, Kind::Seconds | Kind::Bytes | Kind::Count));
        for spec in numbers {
            match (spec.kind, self.get(spec.name)?) {
                (Kind::Seconds, Some(OptionValue::Float(seconds))) if seconds <= 0.0 => {
                    return Err(format!("{} must be greater than zero", spec.name));
                }
                (Kind::Bytes | Kind::Count, Some(OptionValue::Int(n))) => {
                    spec.check(u64::try_from(n).unwrap_or(u64::MAX))?
                }
                _ => {}
            }
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
    fn every_option_reads_back_as_it_was_set() -> Result<(), String> {
        let mut options = SessionOptions::new(Language::JavaScript);
        let values = [
            ("worker", OptionValue::Str("/bin/true".into())),
            ("engine", OptionValue::Str("quickjs".into())),
            ("python", OptionValue::Str("/usr/bin/python3".into())),
            ("site_packages", OptionValue::List(vec!["/usr".into()])),
            ("sandbox", OptionValue::Str("require".into())),
            ("request_timeout", OptionValue::Float(2.5)),
            ("max_threads", OptionValue::Int(9)),
            ("redact_host_errors", OptionValue::Bool(false)),
            ("environ", OptionValue::Map(vec![("A".into(), "b".into())])),
            ("clock", OptionValue::Float(-1.5)),
            ("max_memory", OptionValue::Int(0)),
            ("max_stack_bytes", OptionValue::Int(1 << 20)),
            ("random_seed", OptionValue::Int(7)),
            ("remote", OptionValue::Str("ws://127.0.0.1:7341".into())),
            ("token", OptionValue::Str("a-token-of-sixteen".into())),
        ];
        for (key, value) in values {
            options.set(key, value.clone())?;
            assert_eq!(options.get(key)?, Some(value), "{key}");
        }
        assert!(options.get("colour").is_err());
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
                "max_host_calls must be between 0 and 4,294,967,295, not -3",
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
