//! Session options: the language, the worker binary, and every limit with its default.

use std::path::PathBuf;
use std::time::Duration;

use stockade_wire::EngineConfig;
pub use stockade_wire::{Interpreter, Language, SandboxMode};

use crate::cpython::CPythonOptions;
use crate::javascript_options::JavaScriptOptions;

/// Builder methods, each setting one option (the field documents it) and
/// handing the options back.
macro_rules! builders {
    ($( $(#[$doc:meta])* $name:ident($value:ident: $ty:ty) => $($field:ident).+ = $set:expr; )*) => {
        $(
            $(#[$doc])*
            pub fn $name(mut self, $value: $ty) -> Self {
                self.$($field).+ = $set;
                self
            }
        )*
    };
}

/// The largest `max_result_bytes`: what the wire decodes of one frame at most.
pub const MAX_RESULT_BYTES: u64 = stockade_wire::WireLimits::DEFAULT_MAX_DECODED_BYTES;

/// A time option given in seconds, as every binding and the CLI take one:
/// positive, finite and under 10^9 seconds, else `None`.
pub fn duration_from_secs(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds > 0.0 && seconds < 1e9)
        .then(|| Duration::from_secs_f64(seconds))
}

/// Limits enforced inside the worker (sent to it in Configure).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Cumulative guest execution time across all feeds (time suspended in
    /// host functions and between feeds does not count). Default: none; each
    /// turn is still bounded by `request_timeout`.
    pub max_duration: Option<Duration>,
    /// Live heap bytes of the guest. Default: 1 GiB.
    pub max_memory: Option<u64>,
    /// Deepest guest call stack. Default: 1000.
    pub max_recursion_depth: u32,
    /// Print output is sent once this much is buffered. Default: 8 KiB.
    pub print_flush_bytes: u32,
    /// Print output is sent once it has waited this long. Default: 5 ms.
    pub print_flush_interval: Duration,
    /// Print output one feed may send; the rest is cut with a marker line.
    /// Default: 8 MiB.
    pub max_output_bytes: u64,
    /// Bytes the guest's private scratch directory (`/tmp`, also its
    /// `TMPDIR`, `HOME` and working directory) may hold: a tmpfs in a
    /// CPython worker, the host's memory for monty and QuickJS, whose
    /// files the host serves; a write past it fails with ENOSPC. 0: no
    /// scratch directory. Default: 256 MiB.
    pub max_scratch_bytes: u64,
}

impl Limits {
    pub const DEFAULT_MAX_MEMORY: u64 = 1024 * 1024 * 1024;
    pub const DEFAULT_MAX_RECURSION_DEPTH: u32 = 1000;
    pub const DEFAULT_PRINT_FLUSH_BYTES: u32 = 8 * 1024;
    pub const DEFAULT_PRINT_FLUSH_INTERVAL: Duration = Duration::from_millis(5);
    pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 8 * 1024 * 1024;
    pub const DEFAULT_MAX_SCRATCH_BYTES: u64 = 256 * 1024 * 1024;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_duration: None,
            max_memory: Some(Self::DEFAULT_MAX_MEMORY),
            max_recursion_depth: Self::DEFAULT_MAX_RECURSION_DEPTH,
            print_flush_bytes: Self::DEFAULT_PRINT_FLUSH_BYTES,
            print_flush_interval: Self::DEFAULT_PRINT_FLUSH_INTERVAL,
            max_output_bytes: Self::DEFAULT_MAX_OUTPUT_BYTES,
            max_scratch_bytes: Self::DEFAULT_MAX_SCRATCH_BYTES,
        }
    }
}

/// Everything a session is created with.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub language: Language,
    /// The interpreter guest code runs on: for Python `Monty` (a subset
    /// interpreter inside the worker binary, the fastest to start) or
    /// `CPython` (the real interpreter with its standard library); for
    /// JavaScript only `QuickJs`. `None`: the language's default (monty
    /// for Python, QuickJS for JavaScript).
    pub engine: Option<Interpreter>,
    /// How strictly the worker applies its OS sandbox. Default: `Auto`
    /// (every layer the kernel gives, missing ones reported and logged);
    /// use `Require` in production.
    pub sandbox: SandboxMode,
    /// The worker binary; when `None` it is found as `locate_worker` describes.
    pub worker: Option<PathBuf>,
    pub limits: Limits,
    /// Hard wall-clock bound on each turn (from a request to the worker's next
    /// reply; time inside host functions does not count). The worker is
    /// killed when it passes. Default: 60 s.
    pub request_timeout: Duration,
    /// Extra time past the remaining `max_duration` budget after which the
    /// host kills a worker that has not stopped itself. Default: 1 s.
    pub duration_grace: Duration,
    /// How long the worker may leave a request unread before it is killed.
    /// Default: 10 s.
    pub write_stall_timeout: Duration,
    /// Threads the worker may run before it is killed. Default: 64.
    pub max_threads: u32,
    /// Host-function calls and lookups of undefined names one feed may make;
    /// the next one ends the feed with an uncatchable RuntimeError.
    /// Default: 10,000.
    pub max_host_calls: u32,
    /// Async host calls that may be in flight at once; the next one ends the
    /// feed with an uncatchable RuntimeError. Default: 64.
    pub max_inflight_host_calls: u32,
    /// Longest a host-function call may take; a later answer is replaced by
    /// a TimeoutError in the guest (async functions are abandoned at this
    /// point). Default: 600 s.
    pub max_host_wait: Duration,
    /// Replace host-function exception messages with "host function failed"
    /// (the exception class is kept), so host internals never reach the
    /// guest. Default: true.
    pub redact_host_errors: bool,
    /// The most host memory one value from the worker (a run's result, a
    /// host call's arguments) may take, counted as the wire decodes it:
    /// 48 bytes a value plus its string, bytes or big-int data. Enforced on
    /// the frame header and while decoding, before the memory is spent; a
    /// result past it is `Error::ResultTooLarge` (the session lives), a
    /// call's arguments past it a catchable ValueError in the guest.
    /// Default: 64 MiB; at most 1 GiB (the wire's decoded-bytes bound).
    pub max_result_bytes: u64,
    /// JavaScript-only options (heap, buffers, strict eval, clock, modules...).
    pub javascript: JavaScriptOptions,
    /// CPython-only options (the interpreter, package directories).
    pub cpython: CPythonOptions,
    /// Keep what a dump of this session needs from its start: QuickJS and
    /// CPython sessions keep a journal (every feed, every answer the host
    /// gave, every clock reading) and seed their randomness (Math.random;
    /// `os.urandom`, `random` and the string hash), so that a restore can
    /// replay them (see docs/sessions.md). monty sessions dump without it.
    /// Default: false.
    pub dumpable: bool,
    /// Keep one spare worker with these options started in the background,
    /// so that the next `Session::new` with the same worker options takes
    /// it instead of paying a cold start. Default: true.
    pub spare: bool,
    /// Host directories the guest sees at paths of its own, each read
    /// only, read-write or as an overlay (docs/files.md). Fixed for the
    /// session; each session gets its own overlays. Default: none.
    pub mounts: Vec<crate::files::Mount>,
    /// Host memory a session's files may take: the overlays' data, and any
    /// one read or write; past it the guest meets MemoryError. Default:
    /// `DEFAULT_MAX_FILE_MEMORY` (100 MiB).
    pub max_file_memory: u64,
    /// The environment the guest sees (`os.getenv`, `os.environ`): these
    /// names and values only. Default: empty.
    pub environ: Vec<(String, String)>,
    /// The time the guest reads (`datetime.now()`, `date.today()`,
    /// JavaScript's `Date`): the real clock in UTC, or a frozen instant.
    /// Default: real.
    pub clock: crate::files::GuestClock,
    /// Run the session's worker on a server of sessions (`stockade
    /// serve`) instead of in a process of this host's: host functions,
    /// mounts and the session's own limits stay here, and the server's
    /// limits win over these. Default: none (a local worker).
    pub remote: Option<crate::remote_options::Remote>,
    /// A dumpable CPython session's seed: chosen when its worker starts,
    /// or the dump's when one is restored.
    pub(crate) journal_seed: Option<u64>,
    /// The Configure a server of sessions relays for its client, sent
    /// instead of one made from these options (`relay.rs`).
    pub(crate) relayed_configure: Option<Box<stockade_wire::Request>>,
    /// The tenant a server of sessions starts this worker for (`Launch`).
    pub(crate) tenant: Option<[u8; 32]>,
}

/// The options a worker is started with (or that size its limits): two
/// sessions with equal keys can use each other's prestarted workers. What
/// only the parent enforces per turn is left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WorkerKey {
    engine: Interpreter,
    sandbox: SandboxMode,
    worker: Option<PathBuf>,
    limits: Limits,
    javascript: JavaScriptOptions,
    cpython: CPythonOptions,
    cpu_seconds: u64,
    max_threads: u32,
    dumpable: bool,
    journal_seed: Option<u64>,
    /// A frozen clock is part of a JavaScript or CPython worker's
    /// configuration, and the environment of a CPython one.
    frozen_clock_us: Option<i64>,
    environ: Vec<(String, String)>,
}

impl SessionOptions {
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
    pub const DEFAULT_DURATION_GRACE: Duration = Duration::from_secs(1);
    pub const DEFAULT_WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(10);
    pub const DEFAULT_MAX_THREADS: u32 = 64;
    pub const DEFAULT_MAX_HOST_CALLS: u32 = 10_000;
    pub const DEFAULT_MAX_HOST_WAIT: Duration = Duration::from_secs(600);
    pub const DEFAULT_MAX_INFLIGHT_HOST_CALLS: u32 = 64;
    pub const DEFAULT_MAX_RESULT_BYTES: u64 = 64 * 1024 * 1024;

    /// Defaults for `language`.
    pub fn new(language: Language) -> Self {
        Self {
            language,
            engine: None,
            sandbox: SandboxMode::Auto,
            worker: None,
            limits: Limits::default(),
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            duration_grace: Self::DEFAULT_DURATION_GRACE,
            write_stall_timeout: Self::DEFAULT_WRITE_STALL_TIMEOUT,
            max_threads: Self::DEFAULT_MAX_THREADS,
            max_host_calls: Self::DEFAULT_MAX_HOST_CALLS,
            max_host_wait: Self::DEFAULT_MAX_HOST_WAIT,
            max_inflight_host_calls: Self::DEFAULT_MAX_INFLIGHT_HOST_CALLS,
            redact_host_errors: true,
            max_result_bytes: Self::DEFAULT_MAX_RESULT_BYTES,
            javascript: JavaScriptOptions::default(),
            cpython: CPythonOptions::default(),
            spare: true,
            dumpable: false,
            mounts: Vec::new(),
            max_file_memory: crate::files::DEFAULT_MAX_FILE_MEMORY,
            environ: Vec::new(),
            clock: crate::files::GuestClock::Real,
            remote: None,
            journal_seed: None,
            relayed_configure: None,
            tenant: None,
        }
    }

    /// RLIMIT_CPU for the worker: twice the longest a session may compute,
    /// `max_duration` if set, else `request_timeout`, in whole seconds.
    pub fn cpu_seconds(&self) -> u64 {
        let longest = self
            .limits
            .max_duration
            .unwrap_or(self.request_timeout)
            .max(self.request_timeout);
        longest
            .as_secs_f64()
            .mul_add(2.0, 0.999)
            .min(u64::MAX as f64) as u64
    }

    builders! {
        sandbox(mode: SandboxMode) => sandbox = mode;
        worker(path: impl Into<PathBuf>) => worker = Some(path.into());
        limits(limits: Limits) => limits = limits;
        javascript(options: JavaScriptOptions) => javascript = options;
        /// The interpreter guest code runs on (see the field).
        engine(engine: Interpreter) => engine = Some(engine);
        cpython(options: CPythonOptions) => cpython = options;
        /// The Python interpreter of a CPython session.
        python(path: impl Into<PathBuf>) => cpython.python = Some(path.into());
        /// Package directories CPython guests may import from, read-only.
        site_packages(dirs: Vec<PathBuf>) => cpython.site_packages = dirs;
        /// Packages CPython guests may import, installed on the host by uv
        /// (wheels only) into a cache every later session reuses.
        packages(requirements: Vec<String>) => cpython.packages = requirements;
        /// Modules CPython guests find imported: a pool's template imports
        /// them once for every worker it forks.
        preload(modules: Vec<String>) => cpython.preload = modules;
        /// Packages a feed's `# /// script` block may name (`*`: any).
        script_packages(names: Vec<String>) => cpython.script_packages = names;
        max_duration(limit: Duration) => limits.max_duration = Some(limit);
        max_memory(bytes: u64) => limits.max_memory = Some(bytes);
        max_recursion_depth(depth: u32) => limits.max_recursion_depth = depth;
        max_output_bytes(bytes: u64) => limits.max_output_bytes = bytes;
        max_scratch_bytes(bytes: u64) => limits.max_scratch_bytes = bytes;
        request_timeout(timeout: Duration) => request_timeout = timeout;
        duration_grace(grace: Duration) => duration_grace = grace;
        write_stall_timeout(timeout: Duration) => write_stall_timeout = timeout;
        max_threads(threads: u32) => max_threads = threads;
        max_host_calls(calls: u32) => max_host_calls = calls;
        max_inflight_host_calls(calls: u32) => max_inflight_host_calls = calls;
        max_host_wait(wait: Duration) => max_host_wait = wait;
        max_result_bytes(bytes: u64) => max_result_bytes = bytes;
        /// Whether to keep a spare worker started for the next session.
        spare(keep: bool) => spare = keep;
        /// Whether the session keeps what a dump needs (see the field).
        dumpable(keep: bool) => dumpable = keep;
        /// Host memory the session's files may take (see the field).
        max_file_memory(bytes: u64) => max_file_memory = bytes;
    }

    /// Runs the session's worker on the server of sessions at `url`
    /// (`ws://HOST:PORT`), presenting `token`.
    pub fn remote(mut self, url: impl Into<String>, token: Option<String>) -> Self {
        self.remote = Some(crate::remote_options::Remote {
            url: url.into(),
            token,
            ca_file: None,
        });
        self
    }

    /// Trusts the certificates in `file` (PEM) for a `wss://` remote,
    /// besides the system's roots: a private CA's.
    pub fn remote_ca(mut self, file: impl Into<PathBuf>) -> Self {
        self.remote.get_or_insert_with(Default::default).ca_file = Some(file.into());
        self
    }

    /// Lets host-function exception messages reach the guest unchanged.
    pub fn show_host_errors(mut self) -> Self {
        self.redact_host_errors = false;
        self
    }

    /// The bytes of a scratch directory the host keeps for the guest: for
    /// engines whose every file call it serves (monty, QuickJS), None when
    /// `max_scratch_bytes` is 0. A CPython worker makes its own.
    pub(crate) fn host_scratch_bytes(&self) -> Option<u64> {
        (self.interpreter() != Interpreter::CPython && self.limits.max_scratch_bytes > 0)
            .then_some(self.limits.max_scratch_bytes)
    }

    /// The interpreter the session runs on: the one asked for; else, for
    /// Python, CPython when an interpreter and the engine module are found
    /// (or `python`/`site_packages` ask for it), monty otherwise; QuickJS
    /// for JavaScript.
    pub fn interpreter(&self) -> Interpreter {
        if let Some(engine) = self.engine {
            return engine;
        }
        match self.language {
            Language::JavaScript => Interpreter::QuickJs,
            // What this host has installed says nothing of the server's.
            Language::Python if self.remote.is_some() => Interpreter::CPython,
            Language::Python
                if self.cpython.python.is_some()
                    || !self.cpython.site_packages.is_empty()
                    || crate::cpython::available(&self.cpython, self.worker.as_deref()) =>
            {
                Interpreter::CPython
            }
            Language::Python => Interpreter::Monty,
        }
    }

    /// The engine the worker runs and its configuration, as Configure
    /// carries it: the one place a session's options become an engine's.
    pub(crate) fn engine_config(&self) -> Result<EngineConfig, String> {
        Ok(match self.interpreter() {
            Interpreter::Monty => EngineConfig::Python,
            Interpreter::CPython => {
                let mut config = self.cpython.to_wire();
                config.journal_seed = self.journal_seed.filter(|_| self.dumpable);
                // The interpreter takes its environment and a frozen clock
                // before Ready: its first feed asks the host nothing.
                config.environ = self.environ.clone();
                config.frozen_clock_us = self.clock.frozen_us();
                config.max_scratch_bytes =
                    Some(self.limits.max_scratch_bytes).filter(|&bytes| bytes > 0);
                EngineConfig::CPython(config)
            }
            Interpreter::QuickJs => {
                let mut config = self
                    .javascript
                    .to_wire(self.limits.max_memory, self.clock)?;
                config.report_clock = self.dumpable;
                EngineConfig::JavaScript(config)
            }
        })
    }

    pub(crate) fn worker_key(&self) -> WorkerKey {
        WorkerKey {
            engine: self.interpreter(),
            sandbox: self.sandbox,
            worker: self.worker.clone(),
            limits: self.limits.clone(),
            javascript: self.javascript.clone(),
            cpython: self.cpython.clone(),
            cpu_seconds: self.cpu_seconds(),
            max_threads: self.max_threads,
            dumpable: self.dumpable,
            journal_seed: self.journal_seed,
            frozen_clock_us: match self.interpreter() {
                Interpreter::QuickJs | Interpreter::CPython => self.clock.frozen_us(),
                Interpreter::Monty => None,
            },
            environ: match self.interpreter() {
                Interpreter::CPython => self.environ.clone(),
                _ => Vec::new(),
            },
        }
    }

    /// Checks every option, naming the first one that is out of range.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if let Some(remote) = &self.remote
            && remote.url.is_empty()
        {
            return Err(
                "token and remote_ca are for a remote session: give remote= its ws:// or wss:// URL too"
                    .into(),
            );
        }
        self.check_ranges()?;
        // A Rust caller's own `Some(0)`; a binding's 0 is `None`, no limit.
        if self.limits.max_memory == Some(0) {
            return Err("max_memory must be greater than zero (None: no limit)".into());
        }
        if self.limits.print_flush_bytes == 0 {
            return Err("print_flush_bytes must be at least 1".into());
        }
        if u32::try_from(self.limits.print_flush_interval.as_micros()).is_err() {
            return Err("print_flush_interval must be under an hour".into());
        }
        if self.language != Language::JavaScript && !self.javascript.is_default() {
            return Err(format!(
                "javascript options were set for a {} session; they apply to JavaScript guests only",
                self.language.name()
            ));
        }
        let engine = self.interpreter();
        if engine.language() != self.language {
            return Err(format!(
                "engine {engine} runs {} guests, not {}",
                engine.language(),
                self.language
            ));
        }
        if engine != Interpreter::CPython && !self.cpython.is_default() {
            return Err(format!(
                "python, site_packages and the engine module apply to the cpython engine only, not {engine}"
            ));
        }
        self.cpython.validate()?;
        self.javascript.validate()?;
        if let crate::files::GuestClock::Frozen(_) = self.clock {
            let micros = self.clock.unix_micros();
            if stockade_wire::DateTime::from_unix_micros(micros, None).is_none() {
                return Err("clock: a frozen clock must be within the years 1 to 9999".into());
            }
        }
        if self
            .environ
            .iter()
            .any(|(name, _)| name.is_empty() || name.contains('='))
        {
            return Err("environ: a name must be non-empty and hold no =".into());
        }
        if self.environ.len() > stockade_wire::MAX_ENVIRON
            || self.environ.iter().any(|(name, value)| {
                name.len() > 1024
                    || value.len() > stockade_wire::MAX_ENVIRON_VALUE
                    || name.contains('\0')
                    || value.contains('\0')
            })
        {
            return Err(format!(
                "environ: at most {} names of at most 1024 bytes, values of at most {} bytes, no NUL",
                stockade_wire::MAX_ENVIRON,
                stockade_wire::MAX_ENVIRON_VALUE
            ));
        }
        for (i, mount) in self.mounts.iter().enumerate() {
            if self.mounts[..i]
                .iter()
                .any(|other| other.guest_path() == mount.guest_path())
            {
                return Err(format!("two mounts at {}", mount.guest_path()));
            }
        }
        Ok(())
    }
}
