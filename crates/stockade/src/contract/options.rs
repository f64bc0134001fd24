//! The table of session options: for each name a binding passes, its type,
//! default, range, scope and one line for the docs. `SESSION_OPTIONS`,
//! `CHECKOUT_OPTIONS` and the range checks of `SessionOptions::validate`
//! are read from it; a test holds every new session's values to its
//! defaults, and others hold Python's `Limits`, Node's declarations, the
//! CLI's flags and docs/limits.md to it.

use std::time::Duration;

use super::value::{Named, OptionValue, flag, number, pairs, path, paths, seconds, texts};
use crate::files::{DEFAULT_MAX_FILE_MEMORY, GuestClock, MAX_FILE_MEMORY};
use crate::javascript_options::MAX_STACK_BYTES;
use crate::options::{Limits, MAX_RESULT_BYTES, SessionOptions};

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
const fn option(
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
    const fn range(mut self, least: u64, most: u64) -> Self {
        self.range = Some((least, most));
        self
    }
    const fn zero(mut self, meaning: &'static str) -> Self {
        self.zero = Some(meaning);
        self
    }
    const fn engines(mut self, engines: Engines) -> Self {
        self.engines = engines;
        self
    }
    const fn limit(mut self) -> Self {
        self.limit = true;
        self
    }
    const fn ceiling(mut self, serve_flag: &'static str) -> Self {
        self.server_ceiling = Some(serve_flag);
        self
    }
    /// How the option is read and set on `SessionOptions`.
    const fn access(
        mut self,
        read: fn(&SessionOptions) -> Option<OptionValue>,
        write: fn(&mut SessionOptions, &Named<'_>) -> Result<(), String>,
    ) -> Self {
        self.read = read;
        self.write = write;
        self
    }
    const fn flag(mut self, flag: &'static str) -> Self {
        self.cli_flag = Some(flag);
        self
    }
}

const U32: u64 = u32::MAX as u64;
const NONE: OptionDefault = OptionDefault::Unset("none");

use Kind::{Bytes, Clock, Count, Flag, Pairs, Seconds, Text, Texts, Word};
use OptionDefault as D;
use Scope::{Checkout, Remote, Session, Worker};

/// Every option, in the order the docs list them.
pub const OPTIONS: &[OptionSpec] = &[
    option(
        "worker",
        Text,
        D::Unset("the package's own, else $STOCKADE_WORKER, beside the program, then PATH"),
        Worker,
        "The worker binary of the monty and QuickJS engines.",
    )
    .access(
        |o| o.worker.as_deref().map(path),
        |o, v| {
            o.worker = Some(v.text()?.into());
            Ok(())
        },
    )
    .flag("--worker"),
    option(
        "engine",
        Word(&["monty", "cpython", "quickjs"]),
        D::Unset("Python: cpython where an interpreter and the engine module are found, else monty; JavaScript: quickjs"),
        Worker,
        "The interpreter guest code runs on.",
    )
    .access(
        |o| o.engine.map(|engine| OptionValue::Str(engine.name().into())),
        |o, v| {
            o.engine = Some(v.text()?.parse().map_err(|err| format!("{err}"))?);
            Ok(())
        },
    )
    .flag("--engine"),
    option(
        "python",
        Text,
        D::Unset("python3 on PATH (the Python package: its own interpreter)"),
        Worker,
        "The interpreter of a CPython session, 3.9 or later.",
    )
    .access(
        |o| o.cpython.python.as_deref().map(path),
        |o, v| {
            o.cpython.python = Some(v.text()?.into());
            Ok(())
        },
    )
    .engines(Engines::CPython)
    .flag("--python"),
    option(
        "site_packages",
        Texts,
        NONE,
        Worker,
        "Package directories CPython guests may import from, read-only, after the standard library.",
    )
    .access(
        |o| paths(&o.cpython.site_packages),
        |o, v| {
            o.cpython.site_packages = v.paths()?;
            Ok(())
        },
    )
    .engines(Engines::CPython)
    .flag("--site-packages"),
    option(
        "packages",
        Texts,
        NONE,
        Worker,
        "Requirements installed on the host by uv (wheels only, cached) for CPython guests to import.",
    )
    .access(
        |o| texts(&o.cpython.packages),
        |o, v| {
            o.cpython.packages = v.texts("package requirements")?;
            Ok(())
        },
    )
    .engines(Engines::CPython)
    .flag("--with"),
    option(
        "preload",
        Texts,
        NONE,
        Worker,
        "Modules imported before the first feed (a pool's template imports them once for all).",
    )
    .access(
        |o| texts(&o.cpython.preload),
        |o, v| {
            o.cpython.preload = v.texts("module names")?;
            Ok(())
        },
    )
    .engines(Engines::CPython)
    .flag("--preload-module"),
    option(
        "script_packages",
        Texts,
        NONE,
        Worker,
        "Packages a feed's `# /// script` block may name (`*`: any); without, such a block is a comment.",
    )
    .access(
        |o| texts(&o.cpython.script_packages),
        |o, v| {
            o.cpython.script_packages = v.texts("package names")?;
            Ok(())
        },
    )
    .engines(Engines::CPython)
    .flag("--allow-script-package"),
    option(
        "sandbox",
        Word(&["off", "auto", "require"]),
        D::Word("auto"),
        Worker,
        "The OS sandbox: every layer or refuse (require), every layer the kernel gives (auto), none (off).",
    )
    .access(
        |o| Some(OptionValue::Str(o.sandbox.name().into())),
        |o, v| {
            o.sandbox = v.text()?.parse().map_err(|err| format!("{err}"))?;
            Ok(())
        },
    )
    .flag("--sandbox"),
    option(
        "request_timeout",
        Seconds,
        D::Seconds(SessionOptions::DEFAULT_REQUEST_TIMEOUT),
        Checkout,
        "Hard wall clock per turn; the worker is killed when it passes (time in host functions does not count).",
    )
    .access(
        |o| seconds(o.request_timeout),
        |o, v| {
            o.request_timeout = v.seconds()?;
            Ok(())
        },
    )
    .ceiling("--request-timeout")
    .flag("--timeout"),
    option(
        "duration_grace",
        Seconds,
        D::Seconds(SessionOptions::DEFAULT_DURATION_GRACE),
        Checkout,
        "Time past the `max_duration` budget left after which the host kills a worker that did not stop.",
    )
    .access(
        |o| seconds(o.duration_grace),
        |o, v| {
            o.duration_grace = v.seconds()?;
            Ok(())
        },
    ),
    option(
        "write_stall_timeout",
        Seconds,
        D::Seconds(SessionOptions::DEFAULT_WRITE_STALL_TIMEOUT),
        Checkout,
        "How long the worker may leave a request unread before it is killed.",
    )
    .access(
        |o| seconds(o.write_stall_timeout),
        |o, v| {
            o.write_stall_timeout = v.seconds()?;
            Ok(())
        },
    ),
    option(
        "max_threads",
        Count,
        D::Count(SessionOptions::DEFAULT_MAX_THREADS as u64),
        Worker,
        "Threads the worker may run before it is killed.",
    )
    .access(
        |o| number(o.max_threads),
        |o, v| {
            o.max_threads = v.count()?;
            Ok(())
        },
    )
    .range(1, U32),
    option(
        "max_host_calls",
        Count,
        D::Count(SessionOptions::DEFAULT_MAX_HOST_CALLS as u64),
        Checkout,
        "Host-function calls and lookups of undefined names one feed may make.",
    )
    .access(
        |o| number(o.max_host_calls),
        |o, v| {
            o.max_host_calls = v.count()?;
            Ok(())
        },
    )
    .range(0, U32),
    option(
        "max_inflight_host_calls",
        Count,
        D::Count(SessionOptions::DEFAULT_MAX_INFLIGHT_HOST_CALLS as u64),
        Checkout,
        "Async host calls in flight at once.",
    )
    .access(
        |o| number(o.max_inflight_host_calls),
        |o, v| {
            o.max_inflight_host_calls = v.count()?;
            Ok(())
        },
    )
    .range(0, U32),
    option(
        "max_host_wait",
        Seconds,
        D::Seconds(SessionOptions::DEFAULT_MAX_HOST_WAIT),
        Checkout,
        "Longest a host-function call may take; past it the guest gets a TimeoutError.",
    )
    .access(
        |o| seconds(o.max_host_wait),
        |o, v| {
            o.max_host_wait = v.seconds()?;
            Ok(())
        },
    ),
    option(
        "redact_host_errors",
        Flag,
        D::Flag(true),
        Checkout,
        "Host-function exceptions reach the guest as their class and \"host function failed\".",
    )
    .access(
        |o| flag(o.redact_host_errors),
        |o, v| {
            o.redact_host_errors = v.flag()?;
            Ok(())
        },
    ),
    option(
        "max_result_bytes",
        Bytes,
        D::Bytes(SessionOptions::DEFAULT_MAX_RESULT_BYTES),
        Checkout,
        "Host memory one value from the worker (a result, a host call's arguments) may take as it decodes.",
    )
    .access(
        |o| number(o.max_result_bytes),
        |o, v| {
            o.max_result_bytes = v.count()?;
            Ok(())
        },
    )
    .range(1, MAX_RESULT_BYTES)
    .ceiling("--max-result-bytes")
    .flag("--max-result-bytes"),
    option(
        "spare",
        Flag,
        D::Flag(true),
        Session,
        "Keep a spare worker started for the next session with the same worker options.",
    )
    .access(
        |o| flag(o.spare),
        |o, v| {
            o.spare = v.flag()?;
            Ok(())
        },
    ),
    option(
        "dumpable",
        Flag,
        D::Flag(false),
        Worker,
        "Keep what a dump needs from the start (QuickJS and CPython: a journal and seeded randomness).",
    )
    .access(
        |o| flag(o.dumpable),
        |o, v| {
            o.dumpable = v.flag()?;
            Ok(())
        },
    ),
    option(
        "max_file_memory",
        Bytes,
        D::Bytes(DEFAULT_MAX_FILE_MEMORY),
        Session,
        "Host memory the session's mounted files may take: overlay data and any one read or write.",
    )
    .access(
        |o| number(o.max_file_memory),
        |o, v| {
            o.max_file_memory = v.count()?;
            Ok(())
        },
    )
    .range(1, MAX_FILE_MEMORY)
    .flag("--max-file-memory"),
    option(
        "environ",
        Pairs,
        D::Unset("empty"),
        Worker,
        "The environment variables the guest sees, and no others.",
    )
    .access(
        |o| pairs(&o.environ),
        |o, v| {
            o.environ = v.pairs("a mapping of names to values")?;
            Ok(())
        },
    )
    .flag("--env"),
    option(
        "clock",
        Clock,
        D::Word("real"),
        Worker,
        "The time the guest reads: the real clock in UTC, or an instant it stays frozen at.",
    )
    .access(
        |o| {
            Some(match o.clock.frozen_us() {
                None => OptionValue::Str("real".into()),
                Some(micros) => OptionValue::Float(micros as f64 / 1e6),
            })
        },
        |o, v| {
            o.clock = match &v.value {
                OptionValue::Str(word) if word == "real" => GuestClock::Real,
                OptionValue::Int(_) | OptionValue::Float(_) => GuestClock::Frozen(v.instant()?),
                _ => {
                    return Err(v.wrong(
                        "\"real\", or the instant to freeze at in seconds since the Unix epoch",
                    ));
                }
            };
            Ok(())
        },
    )
    .flag("--clock"),
    option(
        "max_duration",
        Seconds,
        NONE,
        Worker,
        "Guest execution time, cumulative across feeds (time in host functions and between feeds does not count).",
    )
    .access(
        |o| o.limits.max_duration.and_then(seconds),
        |o, v| {
            o.limits.max_duration = Some(v.seconds()?);
            Ok(())
        },
    )
    .limit()
    .ceiling("--max-duration")
    .flag("--max-duration"),
    option(
        "max_memory",
        Bytes,
        D::Bytes(Limits::DEFAULT_MAX_MEMORY),
        Worker,
        "Live heap bytes of the guest.",
    )
    .access(
        |o| number(o.limits.max_memory.unwrap_or(0)),
        |o, v| {
            o.limits.max_memory = Some(v.count()?).filter(|&bytes: &u64| bytes > 0);
            Ok(())
        },
    )
    .range(1, u64::MAX)
    .zero("no limit")
    .limit()
    .ceiling("--max-memory")
    .flag("--max-memory"),
    option(
        "max_recursion_depth",
        Count,
        D::Count(Limits::DEFAULT_MAX_RECURSION_DEPTH as u64),
        Worker,
        "Deepest guest call stack of a Python guest.",
    )
    .access(
        |o| number(o.limits.max_recursion_depth),
        |o, v| {
            o.limits.max_recursion_depth = v.count()?;
            Ok(())
        },
    )
    .range(1, U32)
    .limit(),
    option(
        "max_output_bytes",
        Bytes,
        D::Bytes(Limits::DEFAULT_MAX_OUTPUT_BYTES),
        Worker,
        "Print output (and rich outputs) one feed may send; the rest is cut with a marker line.",
    )
    .access(
        |o| number(o.limits.max_output_bytes),
        |o, v| {
            o.limits.max_output_bytes = v.count()?;
            Ok(())
        },
    )
    .limit()
    .ceiling("--max-output-bytes"),
    option(
        "max_scratch_bytes",
        Bytes,
        D::Bytes(Limits::DEFAULT_MAX_SCRATCH_BYTES),
        Worker,
        "What the guest's private scratch directory (/tmp, HOME, TMPDIR, the working directory) may hold.",
    )
    .access(
        |o| number(o.limits.max_scratch_bytes),
        |o, v| {
            o.limits.max_scratch_bytes = v.count()?;
            Ok(())
        },
    )
    .range(1, u64::MAX)
    .zero("no scratch directory")
    .limit()
    .ceiling("--max-scratch")
    .flag("--max-scratch"),
    option(
        "max_heap_size",
        Bytes,
        D::Follows {
            option: "max_memory",
            share: "",
        },
        Worker,
        "Bytes QuickJS's heap may hold; past it the feed ends and the worker with it.",
    )
    .access(
        |o| o.javascript.max_heap_size.and_then(number),
        |o, v| {
            o.javascript.max_heap_size = Some(v.count()?);
            Ok(())
        },
    )
    .range(1, u64::MAX)
    .engines(Engines::JavaScript)
    .limit()
    .flag("--max-heap-size"),
    option(
        "max_buffer_bytes",
        Bytes,
        D::Follows {
            option: "max_memory",
            share: "a quarter of",
        },
        Worker,
        "Live ArrayBuffer bytes; past it allocating one is a catchable RangeError.",
    )
    .access(
        |o| o.javascript.max_buffer_bytes.and_then(number),
        |o, v| {
            o.javascript.max_buffer_bytes = Some(v.count()?);
            Ok(())
        },
    )
    .engines(Engines::JavaScript)
    .limit()
    .flag("--max-buffer-bytes"),
    option(
        "max_stack_bytes",
        Bytes,
        D::Bytes(stockade_wire::DEFAULT_MAX_STACK_BYTES as u64),
        Worker,
        "Native stack the interpreter may use; past it a catchable RangeError.",
    )
    .access(
        |o| number(o.javascript.max_stack_bytes.unwrap_or(stockade_wire::DEFAULT_MAX_STACK_BYTES)),
        |o, v| {
            o.javascript.max_stack_bytes = Some(v.count()?);
            Ok(())
        },
    )
    .range(64 * 1024, MAX_STACK_BYTES as u64)
    .engines(Engines::JavaScript)
    .limit(),
    option(
        "strict_eval",
        Flag,
        D::Flag(false),
        Worker,
        "eval, `new Function` and the other function constructors throw EvalError.",
    )
    .access(
        |o| flag(o.javascript.strict_eval),
        |o, v| {
            o.javascript.strict_eval = v.flag()?;
            Ok(())
        },
    )
    .engines(Engines::JavaScript)
    .flag("--strict-eval"),
    option(
        "web_polyfills",
        Flag,
        D::Flag(false),
        Worker,
        "Timers on virtual time, TextEncoder/TextDecoder, atob/btoa, structuredClone, EventTarget, AbortController, Blob.",
    )
    .access(
        |o| flag(o.javascript.web_polyfills),
        |o, v| {
            o.javascript.web_polyfills = v.flag()?;
            Ok(())
        },
    )
    .engines(Engines::JavaScript)
    .flag("--web-polyfills"),
    option(
        "inspect_results",
        Flag,
        D::Flag(false),
        Worker,
        "A result comes back as the text Node's `util.inspect` gives it, as Node's REPL shows it.",
    )
    .access(
        |o| flag(o.javascript.inspect_results),
        |o, v| {
            o.javascript.inspect_results = v.flag()?;
            Ok(())
        },
    )
    .engines(Engines::JavaScript),
    option(
        "random_seed",
        Count,
        D::Unset("unpredictable"),
        Worker,
        "The seed of Math.random.",
    )
    .access(
        |o| o.javascript.random_seed.and_then(number),
        |o, v| {
            o.javascript.random_seed = Some(v.count()?);
            Ok(())
        },
    )
    .engines(Engines::JavaScript)
    .flag("--random-seed"),
    option(
        "modules",
        Pairs,
        NONE,
        Worker,
        "Modules the guest may import, by name to source; any other import is refused.",
    )
    .access(
        |o| pairs(&o.javascript.modules),
        |o, v| {
            o.javascript.modules = v.pairs("a mapping of module names to sources")?;
            Ok(())
        },
    )
    .engines(Engines::JavaScript)
    .flag("--module"),
    option(
        "remote",
        Text,
        D::Unset("none: a worker of this host's"),
        Remote,
        "A server of sessions (`stockade serve`, ws:// or wss://) to run the worker on.",
    )
    .access(
        |o| {
            o.remote
                .as_ref()
                .filter(|remote| !remote.url.is_empty())
                .map(|remote| OptionValue::Str(remote.url.clone()))
        },
        |o, v| {
            o.remote.get_or_insert_with(Default::default).url = v.text()?.to_owned();
            Ok(())
        },
    )
    .flag("--remote"),
    option(
        "token",
        Text,
        NONE,
        Remote,
        "The bearer token shown to the server of sessions.",
    )
    .access(
        |o| {
            o.remote
                .as_ref()
                .and_then(|remote| remote.token.clone())
                .map(OptionValue::Str)
        },
        |o, v| {
            o.remote.get_or_insert_with(Default::default).token = Some(v.text()?.to_owned());
            Ok(())
        },
    )
    .flag("--token-file"),
    option(
        "remote_ca",
        Text,
        D::Unset("the system's roots only"),
        Remote,
        "Certificates (PEM) trusted for a wss:// server besides the system's roots.",
    )
    .access(
        |o| {
            o.remote
                .as_ref()
                .and_then(|remote| remote.ca_file.as_deref())
                .map(path)
        },
        |o, v| {
            o.remote.get_or_insert_with(Default::default).ca_file = Some(v.text()?.into());
            Ok(())
        },
    )
    .flag("--remote-ca"),
];

/// The option named `name`.
pub fn spec(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|spec| spec.name == name)
}

const fn names<const N: usize>(checkout_only: bool) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut from, mut to) = (0, 0);
    while from < OPTIONS.len() {
        if !checkout_only || matches!(OPTIONS[from].scope, Scope::Checkout) {
            out[to] = OPTIONS[from].name;
            to += 1;
        }
        from += 1;
    }
    out
}

const fn checkout_count() -> usize {
    let (mut at, mut count) = (0, 0);
    while at < OPTIONS.len() {
        if matches!(OPTIONS[at].scope, Scope::Checkout) {
            count += 1;
        }
        at += 1;
    }
    count
}

const SESSION_NAMES: [&str; OPTIONS.len()] = names(false);
const CHECKOUT_NAMES: [&str; checkout_count()] = names(true);

/// The names [`SessionOptions::set`] takes.
pub const SESSION_OPTIONS: &[&str] = &SESSION_NAMES;

/// The names [`crate::CheckoutOptions::set`] takes: the limits only the
/// parent enforces, which may differ per checkout.
pub const CHECKOUT_OPTIONS: &[&str] = &CHECKOUT_NAMES;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Language;

    /// The table's default of `spec` as `SessionOptions::get` gives it.
    fn expected(spec: &OptionSpec) -> Option<OptionValue> {
        match spec.default {
            OptionDefault::Unset(_) | OptionDefault::Follows { .. } => None,
            OptionDefault::Seconds(duration) => Some(OptionValue::Float(duration.as_secs_f64())),
            OptionDefault::Bytes(n) | OptionDefault::Count(n) => {
                Some(OptionValue::Int(i128::from(n)))
            }
            OptionDefault::Flag(on) => Some(OptionValue::Bool(on)),
            OptionDefault::Word(word) => Some(OptionValue::Str(word.into())),
        }
    }

    #[test]
    fn every_default_in_the_table_is_what_a_new_session_has() -> Result<(), String> {
        for language in [Language::Python, Language::JavaScript] {
            let options = SessionOptions::new(language);
            for spec in OPTIONS {
                assert_eq!(
                    options.get(spec.name)?,
                    expected(spec),
                    "{} of a new {language} session",
                    spec.name
                );
            }
        }
        Ok(())
    }

    /// A session of the language `spec` applies to, with one option set.
    fn with(spec: &OptionSpec, value: u64) -> Result<SessionOptions, String> {
        let language = match spec.engines {
            Engines::JavaScript => Language::JavaScript,
            _ => Language::Python,
        };
        let mut options = SessionOptions::new(language).engine(match language {
            Language::JavaScript => crate::Interpreter::QuickJs,
            _ => crate::Interpreter::Monty,
        });
        options.set(spec.name, OptionValue::Int(i128::from(value)))?;
        Ok(options)
    }

    #[test]
    fn every_range_in_the_table_is_enforced_at_both_ends() -> Result<(), String> {
        let mut checked = 0;
        for spec in OPTIONS {
            let Some((least, most)) = spec.range else {
                continue;
            };
            for edge in [least, most] {
                with(spec, edge)?
                    .validate()
                    .map_err(|err| format!("{} = {edge}: {err}", spec.name))?;
            }
            let mut outside = vec![];
            if least > 0 && spec.zero.is_none() {
                outside.push(least - 1);
            }
            if most < u64::MAX {
                outside.push(most + 1);
            }
            for value in outside {
                // Past the field's type, `set` refuses; within it, `validate`.
                let err = match with(spec, value) {
                    Err(err) => err,
                    Ok(options) => options.validate().err().ok_or_else(|| {
                        format!("{} = {value} was taken outside its range", spec.name)
                    })?,
                };
                assert_eq!(err, spec.out_of_range(value), "{}", spec.name);
                checked += 1;
            }
            if spec.zero.is_some() {
                with(spec, 0)?
                    .validate()
                    .map_err(|err| format!("{} = 0: {err}", spec.name))?;
            }
        }
        assert!(checked >= 8, "only {checked} ends were tried");
        Ok(())
    }

    #[test]
    fn times_at_zero_are_refused_naming_the_option() {
        let options = SessionOptions::new(Language::Python)
            .engine(crate::Interpreter::Monty)
            .duration_grace(Duration::ZERO);
        assert_eq!(
            options.validate(),
            Err("duration_grace must be greater than zero".into())
        );
    }

    #[test]
    fn the_names_bindings_pass_are_the_tables_and_each_once() {
        let mut names: Vec<&str> = SESSION_OPTIONS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPTIONS.len());
        assert!(CHECKOUT_OPTIONS.contains(&"max_result_bytes"));
        assert!(!CHECKOUT_OPTIONS.contains(&"max_memory"));
        for name in CHECKOUT_OPTIONS {
            assert_eq!(spec(name).map(|spec| spec.scope), Some(Scope::Checkout));
        }
    }
}
