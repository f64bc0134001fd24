//! An option's value as a binding passes it (`OptionValue`), read as the
//! type its field needs with the option named in every refusal (`Named`),
//! and a field's value given back in the same form.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::options::duration_from_secs;

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
    pub(crate) fn kind(&self) -> &'static str {
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
pub(crate) struct Named<'a> {
    pub(crate) key: &'a str,
    pub(crate) value: OptionValue,
}

impl Named<'_> {
    pub(crate) fn wrong(&self, wanted: &str) -> String {
        format!("{} must be {wanted}, not {}", self.key, self.value.kind())
    }

    pub(crate) fn seconds(&self) -> Result<Duration, String> {
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
    pub(crate) fn count<T: TryFrom<i128>>(&self) -> Result<T, String> {
        match self.value {
            OptionValue::Int(i) => T::try_from(i).map_err(|_| match super::spec(self.key) {
                Some(spec) => spec.out_of_range(i),
                None => format!("{} is out of range: {i}", self.key),
            }),
            _ => Err(self.wrong("an int")),
        }
    }

    pub(crate) fn flag(&self) -> Result<bool, String> {
        match self.value {
            OptionValue::Bool(b) => Ok(b),
            _ => Err(self.wrong("a bool")),
        }
    }

    pub(crate) fn text(&self) -> Result<&str, String> {
        match &self.value {
            OptionValue::Str(s) => Ok(s),
            _ => Err(self.wrong("a str")),
        }
    }

    /// Seconds since the Unix epoch, either side of it.
    pub(crate) fn instant(&self) -> Result<SystemTime, String> {
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

impl Named<'_> {
    /// Texts in order; one text is a list of one. `what` names the texts.
    pub(crate) fn texts(&self, what: &str) -> Result<Vec<String>, String> {
        match &self.value {
            OptionValue::List(texts) => Ok(texts.clone()),
            OptionValue::Str(text) => Ok(vec![text.clone()]),
            _ => Err(self.wrong(&format!("a list of {what}"))),
        }
    }

    /// Paths in order; one path is a list of one.
    pub(crate) fn paths(&self) -> Result<Vec<PathBuf>, String> {
        Ok(self
            .texts("directories")?
            .into_iter()
            .map(PathBuf::from)
            .collect())
    }

    /// Names to texts; `what` says what they are.
    pub(crate) fn pairs(&self, what: &str) -> Result<Vec<(String, String)>, String> {
        match &self.value {
            OptionValue::Map(pairs) => Ok(pairs.clone()),
            _ => Err(self.wrong(what)),
        }
    }
}

/// A time, as bindings pass one: seconds.
pub(crate) fn seconds(duration: Duration) -> Option<OptionValue> {
    Some(OptionValue::Float(duration.as_secs_f64()))
}

/// A number of bytes or things.
pub(crate) fn number(n: impl Into<u64>) -> Option<OptionValue> {
    Some(OptionValue::Int(i128::from(n.into())))
}

pub(crate) fn flag(on: bool) -> Option<OptionValue> {
    Some(OptionValue::Bool(on))
}

pub(crate) fn path(path: &Path) -> OptionValue {
    OptionValue::Str(path.to_string_lossy().into_owned())
}

/// Texts; none is unset.
pub(crate) fn texts(texts: &[String]) -> Option<OptionValue> {
    (!texts.is_empty()).then(|| OptionValue::List(texts.to_vec()))
}

/// Paths; none is unset.
pub(crate) fn paths(paths: &[PathBuf]) -> Option<OptionValue> {
    (!paths.is_empty()).then(|| {
        OptionValue::List(
            paths
                .iter()
                .map(|dir| dir.to_string_lossy().into_owned())
                .collect(),
        )
    })
}

/// Names to texts; none is unset.
pub(crate) fn pairs(pairs: &[(String, String)]) -> Option<OptionValue> {
    (!pairs.is_empty()).then(|| OptionValue::Map(pairs.to_vec()))
}
