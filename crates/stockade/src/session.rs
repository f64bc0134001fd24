//! A session: one worker, driven turn by turn, supervised by deadlines.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use stockade_wire::{
    ConfigureLimits, ErrorKind, GuestException, JavaScriptConfig, Layer, PROTOCOL_VERSION,
    PrintStream, Request, Response, ResponseHead, SandboxMode, SandboxReport, Value, WireLimits,
    WorkerExit, decoded_size, encode_request,
};

use crate::error::{
    ConfigurationError, ConfigurationKind, CrashInfo, Error, GuestError, TimeLimit,
};
#[cfg(feature = "tokio")]
use crate::host::HostFuture;
use crate::host::{Args, HostFunction, HostResult};
#[cfg(feature = "tokio")]
use crate::inflight::Inflight;
use crate::locate::locate_worker;
use crate::options::{Language, SessionOptions};
use crate::process::{ExitInfo, RecvError, SendError, WorkerProcess};
use crate::spare;
use crate::supervisor::{SupervisionLimits, Violation, all_threads_filtered, usage};

mod turn;

use turn::Turn;

/// The signal RLIMIT_CPU's soft limit sends.
const SIGXCPU: i32 = 24;

/// How often a waiting session asks its interrupt check.
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

type PrintFn = dyn FnMut(PrintStream, &str) + Send;
/// A host's interrupt check; see `Session::set_interrupt`.
type InterruptFn = dyn FnMut() -> bool + Send;

/// What the worker said about itself in Ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerInfo {
    pub protocol_version: u32,
    pub worker_version: String,
    pub engine: String,
    /// Which OS sandbox layers are in force in the worker.
    pub sandbox: SandboxReport,
}

/// The seccomp policy a worker of this process verified with a test-fire
/// (0: none yet); later workers with the same policy on this kernel skip
/// theirs. An atomic, not a lock, so a forked child can always read it.
static VERIFIED_SECCOMP: AtomicU64 = AtomicU64::new(0);

fn verified_seccomp() -> Option<u64> {
    match VERIFIED_SECCOMP.load(Ordering::Relaxed) {
        0 => None,
        policy => Some(policy),
    }
}

fn remember_seccomp(report: &SandboxReport) {
    if let Some(policy) = report.seccomp_policy
        && report.has(Layer::Seccomp)
    {
        VERIFIED_SECCOMP.store(policy, Ordering::Relaxed);
    }
}

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
    worker: WorkerProcess,
    options: SessionOptions,
    /// Set when the session is lost; every later call returns it at once.
    lost: Option<Error>,
    functions: HashMap<String, HostFunction>,
    #[cfg(feature = "tokio")]
    inflight: Inflight,
    /// Every host-function name a Feed ever listed: the worker may hold any
    /// of them as a callable even after the host removed it.
    listed: std::collections::HashSet<String>,
    globals: HashMap<String, Value>,
    print: Option<Box<PrintFn>>,
    interrupt: Option<Box<InterruptFn>>,
    /// Guest execution time the worker last reported.
    elapsed: Duration,
    info: WorkerInfo,
    wire: WireLimits,
    /// The worker was started before this session asked for it (a pool's
    /// or the spare).
    prestarted: bool,
}

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
    /// A session in a worker configured with `options`: the spare worker
    /// started for the same worker options if one is ready (see
    /// `SessionOptions::spare`), else a new one.
    pub fn new(options: SessionOptions) -> Result<Self, Error> {
        options.validate().map_err(Error::invalid_option)?;
        if !options.spare || !spare::usable() {
            return Self::start(options);
        }
        // The spare is matched on the binary actually used, so a change of
        // $STOCKADE_WORKER (or PATH) never hands out an older worker.
        let worker = locate_worker(options.worker.as_deref())?;
        let options = options.worker(worker);
        let key = options.worker_key();
        let prestarted = spare::take(&key);
        let session = match prestarted {
            Some(mut session) => {
                session.adopt(options.clone());
                Ok(session)
            }
            None => Self::start(options.clone()),
        };
        // The next session with these options will find one ready.
        if session.is_ok() {
            spare::refill(key, options);
        }
        session
    }

    /// Starts a new worker and configures it: a cold start.
    pub(crate) fn start(options: SessionOptions) -> Result<Self, Error> {
        options.validate().map_err(Error::invalid_option)?;
        let path = locate_worker(options.worker.as_deref())?;
        let wire = WireLimits::default();
        let worker = WorkerProcess::spawn(&path, wire).map_err(|err| {
            Error::Configuration(
                ConfigurationError::new(
                    ConfigurationKind::CannotStart,
                    format!("cannot start the worker {}: {err}", path.display()),
                )
                .caused_by(err),
            )
        })?;
        let mut session = Self {
            worker,
            options,
            lost: None,
            functions: HashMap::new(),
            #[cfg(feature = "tokio")]
            inflight: Inflight::new(),
            listed: std::collections::HashSet::new(),
            globals: HashMap::new(),
            print: None,
            interrupt: None,
            elapsed: Duration::ZERO,
            info: WorkerInfo {
                protocol_version: 0,
                worker_version: String::new(),
                engine: String::new(),
                sandbox: SandboxReport {
                    mode: SandboxMode::Off,
                    applied: Vec::new(),
                    missing: Vec::new(),
                    extras: Vec::new(),
                    seccomp_policy: None,
                },
            },
            wire,
            prestarted: false,
        };
        session.configure()?;
        session.start_supervision()?;
        Ok(session)
    }

    /// Checks the worker from outside and starts its supervisor. A limit
    /// that cannot be measured fails closed in `require` mode and is
    /// logged in `auto` mode.
    fn start_supervision(&mut self) -> Result<(), Error> {
        let pid = self.worker.pid();
        if let Err(err) = usage(pid) {
            let message = format!("cannot read the worker's memory and threads in /proc: {err}");
            if self.options.sandbox == SandboxMode::Require {
                return Err(self.refuse(message));
            }
            tracing::warn!(
                worker = pid,
                "{message}; RSS and thread limits are not enforced by the host"
            );
            return Ok(());
        }
        if self.info.sandbox.has(Layer::Seccomp) {
            match all_threads_filtered(pid) {
                Ok(true) => {}
                Ok(false) => {
                    return Err(
                        self.broken("a worker thread runs without the seccomp filter".into())
                    );
                }
                Err(err) => {
                    return Err(self.broken(format!("cannot check the worker's threads: {err}")));
                }
            }
        }
        let limits = SupervisionLimits {
            rss_ceiling: self
                .options
                .limits
                .max_memory
                .map(stockade_wire::rss_ceiling),
            max_threads: self.options.max_threads,
        };
        self.worker.supervise(limits).map_err(|err| {
            Error::Configuration(
                ConfigurationError::new(
                    ConfigurationKind::CannotStart,
                    format!("cannot start the supervisor thread: {err}"),
                )
                .caused_by(err),
            )
        })
    }

    /// Kills the worker and reports a configuration that cannot be honoured.
    fn refuse(&mut self, message: String) -> Error {
        self.worker.kill();
        self.record_lost(Error::configuration(ConfigurationKind::Refused, message))
    }

    fn configure(&mut self) -> Result<(), Error> {
        let limits = &self.options.limits;
        let configure = Request::Configure {
            protocol_version: PROTOCOL_VERSION,
            package_version: env!("CARGO_PKG_VERSION").into(),
            language: self.options.language,
            sandbox: self.options.sandbox,
            limits: ConfigureLimits {
                max_duration_us: limits
                    .max_duration
                    .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX)),
                max_memory: limits.max_memory,
                max_recursion_depth: limits.max_recursion_depth,
                print_flush_bytes: limits.print_flush_bytes,
                print_flush_interval_us: u32::try_from(limits.print_flush_interval.as_micros())
                    .unwrap_or(u32::MAX),
                cpu_seconds: Some(self.options.cpu_seconds()),
                max_output_bytes: limits.max_output_bytes,
            },
            javascript: match self.options.language {
                Language::JavaScript => self
                    .options
                    .javascript
                    .to_wire(limits.max_memory)
                    .map_err(Error::invalid_option)?,
                Language::Python => JavaScriptConfig::default(),
            },
            verified_seccomp: verified_seccomp(),
        };
        let frame = encode_request(&configure, &self.wire)
            .map_err(|e| Error::invalid_option(e.to_string()))?;
        self.send(&frame)?;
        let deadline =
            self.turn_deadline(&Turn::new(Duration::ZERO, self.options.max_result_bytes));
        let reply = match self.recv_within(deadline, self.options.max_result_bytes)? {
            Reply::Message(response) => response,
            Reply::TooLarge { .. } => {
                return Err(
                    self.broken("the worker answered Configure with an oversized frame".into())
                );
            }
        };
        match reply {
            Response::Ready {
                protocol_version,
                worker_version,
                engine,
                sandbox,
            } => {
                remember_seccomp(&sandbox);
                if sandbox.mode == SandboxMode::Auto && !sandbox.missing.is_empty() {
                    let missing: Vec<String> = sandbox
                        .missing
                        .iter()
                        .map(|(l, why)| format!("{l} ({why})"))
                        .collect();
                    tracing::warn!(
                        worker = self.worker.pid(),
                        "stockade worker runs without these sandbox layers: {}",
                        missing.join("; ")
                    );
                }
                self.info = WorkerInfo {
                    protocol_version,
                    worker_version,
                    engine,
                    sandbox,
                };
                Ok(())
            }
            Response::Fatal { message } => {
                let err = self.fatal(message);
                match err {
                    // The worker refused the configuration itself (EX_CONFIG).
                    Error::Crashed(ref info)
                        if info.exit_code == Some(WorkerExit::Config.code()) =>
                    {
                        let message = info.detail.clone().unwrap_or_else(|| info.reason.clone());
                        Err(self
                            .record_lost(Error::configuration(ConfigurationKind::Refused, message)))
                    }
                    err => Err(err),
                }
            }
            other => Err(self.broken(format!(
                "the worker answered Configure with {}",
                other.name()
            ))),
        }
    }

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

    /// Takes over a prestarted worker with `options`, whose worker key
    /// matches the one it was started with.
    pub(crate) fn adopt(&mut self, options: SessionOptions) {
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

    /// Receives guest print output as it arrives.
    pub fn on_print(&mut self, callback: impl FnMut(PrintStream, &str) + Send + 'static) {
        self.print = Some(Box::new(callback));
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
        if let Some(err) = &self.lost {
            return Err(err.clone());
        }
        if !self.worker.owned() {
            return Err(Error::Forked {
                owner: self.worker.owner(),
            });
        }
        for (name, value) in &inputs {
            check_input(name, value, &self.wire)?;
        }
        let functions = self.function_names();
        self.listed.extend(functions.iter().cloned());
        let frame = encode_request(
            &Request::Feed {
                code: code.to_owned(),
                inputs,
                functions,
            },
            &self.wire,
        )
        .map_err(|err| Error::Conversion(format!("the feed cannot be sent: {err}")))?;
        let result_limit = limits
            .max_result_bytes
            .unwrap_or(self.options.max_result_bytes)
            .min(self.options.max_result_bytes);
        self.worker.limit_values(result_limit);
        let turn = Turn::new(self.elapsed, result_limit);
        self.send(&frame)?;
        let result = self.serve_turn(turn);
        // Async calls the feed left unawaited are abandoned with it.
        #[cfg(feature = "tokio")]
        self.inflight.clear();
        result
    }

    /// Ends the session: asks the worker to exit, then reaps it.
    pub fn close(mut self) {
        if self.lost.is_none()
            && self.worker.owned()
            && let Ok(frame) = encode_request(&Request::Close, &self.wire)
        {
            let _ = self
                .worker
                .send(&frame, Instant::now() + Duration::from_millis(100));
            self.worker.reap();
        }
    }

    fn guest_failure(
        &self,
        kind: ErrorKind,
        exception: GuestException,
        traceback: String,
    ) -> Error {
        let guest = GuestError {
            type_name: exception.type_name,
            message: exception.message,
            traceback,
        };
        match kind {
            ErrorKind::Exception => Error::Guest(guest),
            ErrorKind::Syntax => Error::Syntax(guest),
            ErrorKind::Timeout => Error::Timeout {
                limit: TimeLimit::MaxDuration,
                after: self.options.limits.max_duration.unwrap_or_default(),
            },
            ErrorKind::Memory => Error::Memory {
                detail: guest.message,
                worker_died: false,
            },
            ErrorKind::Protocol => Error::Protocol(guest.message),
            ErrorKind::Conversion => Error::Conversion(guest.message),
        }
    }

    fn send(&mut self, frame: &[u8]) -> Result<(), Error> {
        let deadline = Instant::now()
            + self
                .options
                .write_stall_timeout
                .min(self.options.request_timeout);
        match self.worker.send(frame, deadline) {
            Ok(()) => Ok(()),
            Err(SendError::Stalled) => Err(self.lose(CrashInfo {
                reason: format!(
                    "the worker stopped reading its input for {:?}; it was killed",
                    self.options.write_stall_timeout
                ),
                ..CrashInfo::default_killed()
            })),
            Err(SendError::Closed) => Err(self.exited("the worker closed its input")),
            Err(SendError::Io(err)) => {
                Err(self.broken(format!("cannot write to the worker: {err}")))
            }
            Err(SendError::Forked) => Err(Error::Forked {
                owner: self.worker.owner(),
            }),
        }
    }

    /// Waits for the worker's next message, polling the interrupt check in
    /// slices when one is set. A message whose values take more than
    /// `result_limit` decoded bytes arrives as `Reply::TooLarge`, with the
    /// stream intact.
    fn recv_within(&mut self, deadline: TurnDeadline, result_limit: u64) -> Result<Reply, Error> {
        let received = loop {
            let Some(check) = &mut self.interrupt else {
                break self.worker.recv(Some(deadline.at));
            };
            let slice = (Instant::now() + INTERRUPT_POLL).min(deadline.at);
            match self.worker.recv(Some(slice)) {
                Err(RecvError::Deadline) if slice < deadline.at => {
                    if check() {
                        self.worker.kill();
                        self.lost = Some(Error::Interrupted);
                        return Err(Error::Interrupted);
                    }
                }
                other => break other,
            }
        };
        match received {
            Ok(response) => Ok(self.measured(response, result_limit)),
            Err(RecvError::TooLarge { head, encoded }) => Ok(Reply::TooLarge { head, encoded }),
            Err(RecvError::Forked) => Err(Error::Forked {
                owner: self.worker.owner(),
            }),
            Err(RecvError::Deadline) if deadline.backstop => {
                let budget = self.options.limits.max_duration.unwrap_or_default();
                Err(self.lose(CrashInfo {
                    reason: format!(
                        "the worker ran past its max_duration budget of {budget:?} plus {:?} grace; it was killed",
                        self.options.duration_grace
                    ),
                    timed_out: true,
                    ..CrashInfo::default_killed()
                }))
            }
            Err(RecvError::Deadline) => {
                self.worker.kill();
                let err = Error::Timeout {
                    limit: TimeLimit::RequestTimeout,
                    after: self.options.request_timeout,
                };
                self.lost = Some(err.clone());
                Err(err)
            }
            Err(RecvError::Closed) => Err(self.exited("the worker closed its output")),
            Err(RecvError::Malformed(err)) => {
                Err(self.broken(format!("the worker sent a malformed frame: {err}")))
            }
            Err(RecvError::Io(err)) => {
                Err(self.broken(format!("cannot read from the worker: {err}")))
            }
        }
    }

    /// A message as a reply, measured against `result_limit` when that is
    /// tighter than what the wire already held its values to.
    fn measured(&self, response: Response, result_limit: u64) -> Reply {
        if result_limit >= self.worker.value_budget() {
            return Reply::Message(response);
        }
        let (size, head) = match &response {
            Response::Complete { value, .. } => (decoded_size(value), ResponseHead::Complete),
            Response::Call {
                call_id,
                name,
                args,
                kwargs,
                ..
            } => (
                args.iter()
                    .map(decoded_size)
                    .chain(kwargs.iter().map(|(k, v)| k.len() as u64 + decoded_size(v)))
                    .fold(0u64, u64::saturating_add),
                ResponseHead::Call {
                    call_id: *call_id,
                    name: Some(name.clone()),
                },
            ),
            _ => return Reply::Message(response),
        };
        if size > result_limit {
            Reply::TooLarge {
                head,
                encoded: size,
            }
        } else {
            Reply::Message(response)
        }
    }

    /// The worker announced a fatal error and is exiting.
    fn fatal(&mut self, message: String) -> Error {
        let exit = self.worker.reap();
        if exit.code == Some(WorkerExit::Memory.code()) {
            // A memory limit the engine cannot recover from (the JavaScript
            // heap): the worker said which, then ended itself.
            return self.record_lost(Error::Memory {
                detail: message,
                worker_died: true,
            });
        }
        self.record_lost(Error::Crashed(CrashInfo {
            reason: "the worker stopped with a fatal error".into(),
            exit_code: exit.code,
            signal: exit.signal,
            detail: Some(message),
            timed_out: false,
        }))
    }

    /// The worker's pipe closed: find out how it ended and name the cause.
    fn exited(&mut self, what: &str) -> Error {
        // A worker that announced Fatal before exiting may still have that
        // frame unread in the pipe (a write to it can fail first).
        let mut fatal = None;
        while let Ok(response) = self.worker.recv_sent() {
            if let Response::Fatal { message } = response {
                fatal = Some(message);
            }
        }
        let exit = self.worker.reap();
        let detail = fatal.or_else(|| self.worker.last_stderr_line());
        match self.worker.violation() {
            Some(Violation::Rss { resident, ceiling }) => {
                return self.record_lost(Error::Memory {
                    detail: format!(
                        "the worker's resident memory ({resident} bytes) passed its ceiling of {ceiling} bytes; it was killed"
                    ),
                    worker_died: true,
                });
            }
            Some(Violation::Threads { count, max }) => {
                return self.record_lost(Error::Crashed(CrashInfo {
                    reason: format!(
                        "the worker ran {count} threads, above the cap of {max}; it was killed"
                    ),
                    exit_code: exit.code,
                    signal: exit.signal,
                    detail,
                    timed_out: false,
                }));
            }
            None => {}
        }
        if let Some(WorkerExit::Memory | WorkerExit::Rss) =
            exit.code.and_then(WorkerExit::from_code)
        {
            return self.record_lost(Error::Memory {
                detail: detail
                    .unwrap_or_else(|| "the worker's allocator refused an allocation".into()),
                worker_died: true,
            });
        }
        self.record_lost(Error::Crashed(crash_info(what, exit, detail)))
    }

    /// The worker broke the protocol: kill it and lose the session.
    fn broken(&mut self, reason: String) -> Error {
        self.lose(CrashInfo {
            reason,
            ..CrashInfo::default_killed()
        })
    }

    fn lose(&mut self, mut info: CrashInfo) -> Error {
        let exit = self.worker.kill();
        info.exit_code = exit.code;
        info.signal = exit.signal;
        if info.detail.is_none() {
            info.detail = self.worker.last_stderr_line();
        }
        self.record_lost(Error::Crashed(info))
    }

    fn record_lost(&mut self, err: Error) -> Error {
        self.lost = Some(err.clone());
        err
    }
}

fn crash_info(what: &str, exit: ExitInfo, detail: Option<String>) -> CrashInfo {
    if exit.signal == Some(SIGXCPU) {
        return CrashInfo {
            reason: format!(
                "{what}: it used up its CPU time (RLIMIT_CPU, twice its longest deadline)"
            ),
            exit_code: exit.code,
            signal: exit.signal,
            detail,
            timed_out: true,
        };
    }
    let reason = match (exit.code, exit.signal) {
        (_, Some(signal)) => format!("{what}: it was killed by signal {signal}"),
        (Some(code), _) => format!("{what}: it exited with status {code}"),
        (None, None) => what.to_owned(),
    };
    CrashInfo {
        reason,
        exit_code: exit.code,
        signal: exit.signal,
        detail,
        timed_out: false,
    }
}

impl CrashInfo {
    fn default_killed() -> Self {
        CrashInfo {
            reason: String::new(),
            exit_code: None,
            signal: None,
            detail: None,
            timed_out: false,
        }
    }
}

/// Checks that a host value can be an input: no output-only parts, and
/// within the wire's bounds.
fn check_input(name: &str, value: &Value, wire: &WireLimits) -> Result<(), Error> {
    if let Some((path, kind)) = value.output_only_part() {
        return Err(Error::Conversion(format!(
            "input {name:?}: the value at {name}{path} is a {kind}, which is output-only and cannot be an input"
        )));
    }
    stockade_wire::encode_value(value, wire)
        .map(|_| ())
        .map_err(|err| Error::Conversion(format!("input {name:?}: {err}")))
}
