//! A session: one worker, driven turn by turn, supervised by deadlines.
//! This file is the public API; the parts live beside it: `start` (spawn,
//! Configure and Ready, supervision), `turn` (serving a feed: prints,
//! calls, lookups, awaits), `outputs` (rich outputs to the host's
//! callback), `io` (one request out, one reply in, under a
//! deadline) and `end` (how a worker's end becomes an `Error`). A new
//! session normally comes through `spare.rs`, which holds `Session::new`.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use stockade_wire::{Output, PrintStream, Request, Response, ResponseHead, Value, WireLimits};

use crate::error::Error;
#[cfg(feature = "tokio")]
use crate::host::HostFuture;
use crate::host::{Args, HostFunction, HostResult};
#[cfg(feature = "tokio")]
use crate::inflight::Inflight;
use crate::link::Link;
use crate::options::SessionOptions;

mod dump;
mod end;
mod install;
mod io;
mod journal;
mod outputs;
mod relay;
mod start;
mod step;
mod turn;

pub use dump::DumpSeal;
pub use outputs::unclaimed_output_note;
pub(crate) use relay::Relayed;
pub(crate) use step::Pause;

use turn::Turn;

pub(crate) type PrintFn = dyn FnMut(PrintStream, &str) + Send;
pub(crate) type OutputFn = dyn FnMut(Output) + Send;
/// A host's interrupt check; see `Session::set_interrupt`.
type InterruptFn = dyn FnMut() -> bool + Send;

/// What the worker said about itself in Ready.
pub use stockade_wire::WorkerInfo;

/// Limits of one run, tighter than the session's own (a larger value than
/// the session's is held to the session's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// The most host memory the run's result may take, as
    /// `SessionOptions::max_result_bytes` counts it.
    pub max_result_bytes: Option<u64>,
}

/// A guest session in its own worker process. Globals persist across
/// [`run`](Self::run) calls. Dropping the session kills the worker.
pub struct Session {
    worker: Box<dyn Link>,
    options: SessionOptions,
    /// Set when the session is lost; every later call returns it at once.
    lost: Option<Error>,
    functions: HashMap<String, HostFunction>,
    #[cfg(feature = "tokio")]
    inflight: Inflight,
    /// Every host-function name a Feed ever listed: the worker may hold any
    /// of them as a callable even after the host removed it.
    listed: HashSet<String>,
    globals: HashMap<String, Value>,
    print: Option<Box<PrintFn>>,
    output: Option<Box<OutputFn>>,
    interrupt: Option<Box<InterruptFn>>,
    /// Guest execution time the worker last reported.
    elapsed: Duration,
    info: WorkerInfo,
    wire: WireLimits,
    /// The worker was started before this session asked for it (a pool's
    /// or the spare).
    prestarted: bool,
    /// A stepped feed waiting for the host's answer at a cursor.
    suspended: Option<step::Suspended>,
    /// Cursors handed out so far (each cursor's number is unique).
    cursors: u64,
    /// Calls of the stepped feed the host deferred as futures.
    step_futures: step::StepFutures,
    /// The session has run (or restored) something: a dump restores only
    /// into a session that has not.
    fed: bool,
    /// The package requirements the session was made with (its options
    /// hold their installed directory instead, once installed).
    packages: Vec<String>,
    /// What a dump of a dumpable QuickJS or CPython session replays.
    journal: Option<journal::Journal>,
    /// The session was restored from a journal: its randomness takes a
    /// fresh seed before the next feed (`Session::reseed`).
    reseed_before_feed: bool,
    /// A journal is being replayed: OS calls are answered from it.
    replaying: bool,
    /// The mounts as this session sees them, made at its first OS call.
    files: Option<crate::files::SessionFiles>,
    /// The host's answer to OS calls nothing else covers.
    os_handler: Option<Box<OsHandler>>,
}

/// A host's fallback for OS calls no mount, environment or clock answers:
/// the call's name (as monty names them) and its arguments.
pub type OsHandler = dyn FnMut(&str, Args) -> crate::host::HostResult + Send;

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("pid", &self.worker.pid())
            .field("language", &self.options.language)
            .field("lost", &self.lost)
            .field("elapsed", &self.elapsed)
            .finish_non_exhaustive()
    }
}

/// What the worker sent: a message, or one whose values were too large
/// to take (skipped unread, or decoded no further).
#[derive(Debug)]
enum Reply {
    Message(Response),
    TooLarge { head: ResponseHead, encoded: u64 },
}

/// Which deadline bounds the current wait.
#[derive(Debug, Clone, Copy)]
struct TurnDeadline {
    at: Instant,
    /// True when the `max_duration` backstop, not `request_timeout`, is nearer.
    backstop: bool,
}

impl Session {
    /// What the worker said about itself when it started.
    pub fn worker_info(&self) -> &WorkerInfo {
        &self.info
    }

    /// The worker's process id.
    pub fn worker_pid(&self) -> u32 {
        self.worker.pid()
    }

    /// Guest execution time consumed so far, as the worker reported it.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Whether the session can take no more calls.
    pub fn is_lost(&self) -> bool {
        self.lost.is_some()
    }

    /// Whether the worker was started ahead of this session (by a pool or
    /// as the spare), so the session did not pay a cold start.
    pub fn prestarted(&self) -> bool {
        self.prestarted
    }

    /// Whether the worker still runs and can serve (checked without a
    /// turn): false once it died, was killed or broke a limit while idle.
    pub(crate) fn alive(&mut self) -> bool {
        self.lost.is_none() && self.worker.owned() && self.worker.alive()
    }

    /// Kills the worker; the session is lost.
    pub(crate) fn kill_worker(&mut self) {
        self.worker.kill();
        if self.lost.is_none() {
            self.lost = Some(Error::Disconnected("the session was ended".into()));
        }
    }

    /// Takes over a prestarted worker with `options`, whose worker key
    /// matches the one it was started with.
    pub(crate) fn adopt(&mut self, options: SessionOptions) {
        self.packages = options.cpython.packages.clone();
        self.options = options;
        self.prestarted = true;
    }

    /// Makes `name` callable from the guest for the life of the session.
    pub fn register_function(
        &mut self,
        name: &str,
        function: impl FnMut(Args) -> HostResult + Send + 'static,
    ) {
        self.functions
            .insert(name.to_owned(), HostFunction::Sync(Box::new(function)));
    }

    /// Makes `name` an async host function: the guest awaits it
    /// (`await name(...)`), and its future runs on `runtime`, several at once
    /// when the guest gathers them (up to `max_inflight_host_calls`). Drive
    /// the session from outside that runtime's own threads (from async code,
    /// use `AsyncSession`, which does).
    #[cfg(feature = "tokio")]
    pub fn register_async_function<F, Fut>(
        &mut self,
        name: &str,
        runtime: tokio::runtime::Handle,
        function: F,
    ) where
        F: Fn(Args) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = HostResult> + Send + 'static,
    {
        let start = move |args: Args| -> HostFuture { Box::pin(function(args)) };
        self.functions.insert(
            name.to_owned(),
            HostFunction::Async {
                start: Box::new(start),
                runtime,
            },
        );
    }

    /// Answers the guest's OS calls that no mount, `environ` or `clock`
    /// covers (a file outside every mount, say): `handler` gets the call's
    /// name, as monty names OS calls (`Path.read_text`, `open`, ...), and
    /// its arguments, and returns the value the guest gets or the error it
    /// raises (redacted unless `show_host_errors`). Without one, those
    /// calls are PermissionError. Its time is the host's, never the guest's.
    pub fn set_os_handler(
        &mut self,
        handler: impl FnMut(&str, Args) -> crate::host::HostResult + Send + 'static,
    ) {
        self.os_handler = Some(Box::new(handler));
    }

    /// Makes `name` callable from the guest with no function behind it:
    /// a stepped feed (`start`) hands each call to the host at a cursor,
    /// and `run` raises NameError for it. A registered function keeps its
    /// body (its calls come to a stepped feed's cursors too, unrun).
    pub fn declare_function(&mut self, name: &str) {
        self.functions
            .entry(name.to_owned())
            .or_insert(HostFunction::Declared);
    }

    /// Removes a host function. A guest that still holds it and calls it
    /// gets a NameError; returns whether it was registered.
    pub fn unregister_function(&mut self, name: &str) -> bool {
        self.functions.remove(name).is_some()
    }

    /// Polls `check` about every 20 ms while the session waits on its
    /// worker (not while a host function runs); when it returns true the
    /// worker is killed and the call returns `Error::Interrupted`. Hosts use
    /// it to let Ctrl-C end a run.
    pub fn set_interrupt(&mut self, check: impl FnMut() -> bool + Send + 'static) {
        self.interrupt = Some(Box::new(check));
    }

    /// The registered host functions' names, in a stable order.
    fn function_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.functions.keys().cloned().collect();
        names.sort_unstable();
        names
    }

    /// Answers guest lookups of the undefined name `name` with `value`. The
    /// value is checked now, so a value that cannot cross fails here.
    pub fn set_global(&mut self, name: &str, value: Value) -> Result<(), Error> {
        check_input(name, &value, &self.wire)?;
        self.globals.insert(name.to_owned(), value);
        Ok(())
    }

    /// Forgets the `on_print` callback: guest output is dropped (or only
    /// kept, by `execute`).
    pub fn clear_on_print(&mut self) {
        self.print = None;
    }

    /// Receives guest print output as it arrives.
    pub fn on_print(&mut self, callback: impl FnMut(PrintStream, &str) + Send + 'static) {
        self.print = Some(Box::new(callback));
    }

    /// Receives the guest's rich outputs (`display(obj)`, a matplotlib
    /// figure) as they arrive, in order with its prints. Without this,
    /// each output is noted on the guest's stderr instead (docs/data.md).
    pub fn on_output(&mut self, callback: impl FnMut(Output) + Send + 'static) {
        self.output = Some(Box::new(callback));
    }

    /// Takes the print and output callbacks out, leaving none: `execute`
    /// puts its capture in their place and hands them what it sees.
    pub(crate) fn take_callbacks(&mut self) -> (Option<Box<PrintFn>>, Option<Box<OutputFn>>) {
        (self.print.take(), self.output.take())
    }

    /// Puts back the callbacks `take_callbacks` took (dropping any set since).
    pub(crate) fn restore_callbacks(
        &mut self,
        print: Option<Box<PrintFn>>,
        output: Option<Box<OutputFn>>,
    ) {
        self.print = print;
        self.output = output;
    }

    /// Forgets the `on_output` callback: outputs are noted on the guest's
    /// stderr again, as before one was set.
    pub fn clear_on_output(&mut self) {
        self.output = None;
    }

    /// Runs `code`; returns the value of its trailing expression (`None` if it has none).
    pub fn run(&mut self, code: &str) -> Result<Value, Error> {
        self.run_with_inputs(code, Vec::new())
    }

    /// Binds `inputs` as globals, then runs `code`.
    pub fn run_with_inputs(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
    ) -> Result<Value, Error> {
        self.run_with_limits(code, inputs, RunLimits::default())
    }

    /// As `run_with_inputs`, with limits of this run that are tighter than
    /// the session's.
    pub fn run_with_limits(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
        limits: RunLimits,
    ) -> Result<Value, Error> {
        self.install_script_packages(code)?;
        let (turn, feed) = self.prepare_feed(code, inputs, limits)?;
        self.answer(&feed)?;
        let result = self.serve_turn(turn);
        // Async calls the feed left unawaited are abandoned with it.
        #[cfg(feature = "tokio")]
        self.inflight.clear();
        result
    }

    /// Checks that the session can take a feed of `code` and `inputs`, and
    /// makes its Feed request and its turn (nothing is sent yet).
    fn prepare_feed(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
        limits: RunLimits,
    ) -> Result<(Turn, Request), Error> {
        if let Some(err) = &self.lost {
            return Err(err.clone());
        }
        if !self.worker.owned() {
            return Err(Error::Forked {
                owner: self.worker.owner(),
            });
        }
        self.refuse_if_suspended()?;
        for (name, value) in &inputs {
            check_input(name, value, &self.wire)?;
        }
        if std::mem::take(&mut self.reseed_before_feed) {
            self.reseed()?;
        }
        self.fed = true;
        let functions = self.function_names();
        self.listed.extend(functions.iter().cloned());
        let feed = Request::Feed {
            code: code.to_owned(),
            inputs,
            functions,
        };
        let result_limit = limits
            .max_result_bytes
            .unwrap_or(self.options.max_result_bytes)
            .min(self.options.max_result_bytes);
        self.worker.limit_values(result_limit);
        Ok((Turn::new(self.elapsed, result_limit), feed))
    }

    /// Ends the session without waiting for the worker: it is killed at
    /// once (SIGKILL: it runs no more guest code) and reaped in the
    /// background (`unreaped_workers` counts those waiting). Dropping a
    /// session does the same.
    pub fn close(self) {
        drop(self);
    }
}

/// Checks that a host value can be an input: no output-only parts, and
/// within the wire's bounds.
pub(crate) fn check_input(name: &str, value: &Value, wire: &WireLimits) -> Result<(), Error> {
    if let Some((path, kind)) = value.output_only_part() {
        return Err(Error::Conversion(format!(
            "input {name:?}: the value at {name}{path} is a {kind}, which is output-only and cannot be an input"
        )));
    }
    stockade_wire::encode_value(value, wire)
        .map(|_| ())
        .map_err(|err| Error::Conversion(format!("input {name:?}: {err}")))
}
