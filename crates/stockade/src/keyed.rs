//! Options by name, for bindings that receive them as a dict or an object:
//! `SessionOptions::set` and `get` go through each option's row of the
//! table (`contract/table.rs`), so a binding only turns its own values
//! into an [`OptionValue`] and passes them on; `CheckoutOptions::set` takes
//! the per-checkout ones.

use crate::contract::{CHECKOUT_OPTIONS, Kind, Named, OPTIONS, OptionValue, SESSION_OPTIONS, spec};
use crate::options::SessionOptions;
use crate::pool::CheckoutOptions;

impl SessionOptions {
    /// Sets one option by the name bindings use (`SESSION_OPTIONS`):
    /// seconds for times, bytes for sizes (`max_memory` 0 removes the
    /// limit), `"off"`, `"auto"` or `"require"` for `sandbox`. The
    /// message of a refusal names the option; `validate` (run when a
    /// session starts) checks the ranges (`check_ranges`) and what
    /// depends on more than one option. Each option's row of the table
    /// (`contract/table.rs`) says how.
    pub fn set(&mut self, key: &str, value: OptionValue) -> Result<(), String> {
        let spec = spec(key).ok_or_else(|| unknown(key, SESSION_OPTIONS))?;
        (spec.write)(self, &Named { key, value })
    }

    /// An option's value by the name bindings use, as `set` takes it;
    /// `None` when it is unset (an empty list or mapping is unset too),
    /// so that the table's default holds. An unknown name is refused.
    pub fn get(&self, key: &str) -> Result<Option<OptionValue>, String> {
        let spec = spec(key).ok_or_else(|| unknown(key, SESSION_OPTIONS))?;
        Ok((spec.read)(self))
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
            // Every row reads back what it set: none keeps the table's
            // placeholder accessors.
            assert!(options.get(key)?.is_some(), "{key} reads back unset");
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
