//! Closed sets of names (languages, sandbox modes, layers) read from text:
//! one error for a name that is none of them, saying which are.

use thiserror::Error;

/// A name that is none of a closed set's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} must be {expected}, not {name:?}")]
pub struct UnknownName {
    /// What was being named: "language", "sandbox".
    pub what: &'static str,
    pub name: String,
    /// The names there are, quoted: `"python" or "javascript"`.
    pub expected: String,
}

impl UnknownName {
    /// The member of `all` called `name`, or the error listing them.
    pub(crate) fn find<T: Copy>(
        what: &'static str,
        name: &str,
        all: &[T],
        name_of: impl Fn(T) -> &'static str,
    ) -> Result<T, Self> {
        if let Some(found) = all.iter().copied().find(|item| name_of(*item) == name) {
            return Ok(found);
        }
        let quoted: Vec<String> = all
            .iter()
            .map(|item| format!("{:?}", name_of(*item)))
            .collect();
        let expected = match quoted.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => quoted.join(""),
        };
        Err(Self {
            what,
            name: name.to_owned(),
            expected,
        })
    }
}
