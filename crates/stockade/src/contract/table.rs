//! The table of session options, one row for each name a binding passes
//! (what a row holds is `options.rs`'s). `SESSION_OPTIONS`,
//! `CHECKOUT_OPTIONS`, `SessionOptions::set`/`get` and the range checks of
//! `SessionOptions::validate` are read from it; a test here holds every
//! new session's values to its defaults, and others hold Python's
//! `Limits`, Node's declarations, the CLI's flags and docs/limits.md to it.

use super::OptionValue;
use super::options::{Engines, Kind, OptionDefault, OptionSpec, Scope, option};
use super::value::{flag, number, pairs, path, paths, seconds, texts};
use crate::files::{DEFAULT_MAX_FILE_MEMORY, GuestClock, MAX_FILE_MEMORY};
use crate::javascript_options::MAX_STACK_BYTES;
use crate::options::{Limits, MAX_RESULT_BYTES, SessionOptions};

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
