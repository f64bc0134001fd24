//! What a row of the options table (`table.rs`) holds: an option's kind,
//! default, range, scope, engines, flags, doc line and accessors, the
//! builders a row is written with, and the range check each row makes.

use std::time::Duration;

use super::value::{Named, OptionValue};
use crate::options::SessionOptions;

/// What kind of value an option takes, as every binding passes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Seconds, a number greater than zero and under 10^9.
    Seconds,
    /// Bytes, a whole number.
    Bytes,
    /// A whole number of things.
    Count,
    /// True or false.
    Flag,
    /// A path, URL or token.
    Text,
    /// One of these words.
    Word(&'static [&'static str]),
    /// Texts in order (one text is a list of one).
    Texts,
    /// Names to texts.
    Pairs,
    /// `"real"`, or the instant to freeze at in seconds since the Unix epoch.
    Clock,
}

/// What an option is when nobody sets it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OptionDefault {
    /// No value; the words say what holds instead.
    Unset(&'static str),
    Seconds(Duration),
    Bytes(u64),
    Count(u64),
    Flag(bool),
    Word(&'static str),
    /// Unset, and then `share` of another option's value (`share` is
    /// empty for all of it).
    Follows {
        option: &'static str,
        share: &'static str,
    },
}

/// Who holds an option, and so where it may be set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Fixed when the worker starts (its Configure or its process):
    /// sessions with different values never share prestarted workers, and
    /// a pool sets it for all its workers.
    Worker,
    /// The host's, fixed for the session.
    Session,
    /// The host's, per turn: a pool's checkout may set its own.
    Checkout,
    /// Where the worker runs: on a server of sessions.
    Remote,
}

/// The engines an option applies to; set for another, it is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engines {
    All,
    /// The cpython engine only.
    CPython,
    /// QuickJS only.
    JavaScript,
}

/// One option, as every binding, the CLI and the docs give it.
#[derive(Clone, Copy)]
pub struct OptionSpec {
    /// The name bindings pass (Python's keyword; Node's is its camel case).
    pub name: &'static str,
    pub kind: Kind,
    pub default: OptionDefault,
    /// The least and greatest value of a number (bytes, a count); `None`:
    /// any the field holds. Seconds are always above zero.
    pub range: Option<(u64, u64)>,
    /// What 0 means where it is taken below the range (`max_memory`: no
    /// limit).
    pub zero: Option<&'static str>,
    pub scope: Scope,
    pub engines: Engines,
    /// One of the limits Python's `Limits` and Node's `limits` hold.
    pub limit: bool,
    /// The `stockade serve` flag that sets a server of sessions' ceiling
    /// on it, where a server holds it to one.
    pub server_ceiling: Option<&'static str>,
    /// The `stockade run`/`repl` flag that sets it.
    pub cli_flag: Option<&'static str>,
    /// What it is, in one line.
    pub doc: &'static str,
    /// Reads the option's value, as bindings pass it; None: unset.
    pub(crate) read: fn(&SessionOptions) -> Option<OptionValue>,
    /// Sets it from a binding's value, naming it in any refusal.
    pub(crate) write: fn(&mut SessionOptions, &Named<'_>) -> Result<(), String>,
}

impl std::fmt::Debug for OptionSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptionSpec")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl OptionSpec {
    /// The refusal of `value`, outside the range.
    pub(crate) fn out_of_range(&self, value: impl std::fmt::Display) -> String {
        let (least, most) = self.range.unwrap_or((0, u64::MAX));
        let show = |n| super::render::number_text(self.kind, n);
        let zero = match self.zero {
            Some(meaning) => format!(", or 0 ({meaning})"),
            None => String::new(),
        };
        format!(
            "{} must be between {} and {}{zero}, not {value}",
            self.name,
            show(least),
            show(most)
        )
    }

    /// Checks a number the option holds against its range.
    pub(crate) fn check(&self, value: u64) -> Result<(), String> {
        let (least, most) = self.range.unwrap_or((0, u64::MAX));
        if (value == 0 && self.zero.is_some()) || (least..=most).contains(&value) {
            Ok(())
        } else {
            Err(self.out_of_range(value))
        }
    }
}

/// A row of the table with the fields most options leave at their usual
/// values, so that each row says only what is its own.
pub(super) const fn option(
    name: &'static str,
    kind: Kind,
    default: OptionDefault,
    scope: Scope,
    doc: &'static str,
) -> OptionSpec {
    OptionSpec {
        name,
        kind,
        default,
        range: None,
        zero: None,
        scope,
        engines: Engines::All,
        limit: false,
        server_ceiling: None,
        cli_flag: None,
        doc,
        // Every row gives its own (`access`); a test sets and reads each.
        read: |_| None,
        write: |_, v| Err(format!("{} cannot be set by name", v.key)),
    }
}

impl OptionSpec {
    pub(super) const fn range(mut self, least: u64, most: u64) -> Self {
        self.range = Some((least, most));
        self
    }
    pub(super) const fn zero(mut self, meaning: &'static str) -> Self {
        self.zero = Some(meaning);
        self
    }
    pub(super) const fn engines(mut self, engines: Engines) -> Self {
        self.engines = engines;
        self
    }
    pub(super) const fn limit(mut self) -> Self {
        self.limit = true;
        self
    }
    pub(super) const fn ceiling(mut self, serve_flag: &'static str) -> Self {
        self.server_ceiling = Some(serve_flag);
        self
    }
    /// How the option is read and set on `SessionOptions`.
    pub(super) const fn access(
        mut self,
        read: fn(&SessionOptions) -> Option<OptionValue>,
        write: fn(&mut SessionOptions, &Named<'_>) -> Result<(), String>,
    ) -> Self {
        self.read = read;
        self.write = write;
        self
    }
    pub(super) const fn flag(mut self, flag: &'static str) -> Self {
        self.cli_flag = Some(flag);
        self
    }
}
