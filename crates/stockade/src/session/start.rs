//! Starting a session: spawning the worker, the Configure/Ready handshake
//! (with the seccomp policy a worker of this process already verified),
//! and the checks and supervisor thread that run before the first feed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use stockade_wire::{
    ConfigureLimits, Interpreter, Layer, PROTOCOL_VERSION, Request, Response, SandboxMode,
    SandboxReport, WireLimits, WorkerExit, encode_request,
};

use crate::error::{ConfigurationError, ConfigurationKind, Error};
#[cfg(feature = "tokio")]
use crate::inflight::Inflight;
use crate::launch::{ConfigureFrames, Launch};
use crate::link::Link;
use crate::options::SessionOptions;
use crate::process::WorkerProcess;
use crate::remote::RemoteWorker;
use crate::supervisor::{SupervisionLimits, all_threads_filtered, usage};

use super::{Reply, Session, Turn, WorkerInfo};

/// Seccomp policies workers of this process verified with a test-fire (0:
/// an empty slot): one for each allow-list (the closed workers', the
/// interpreters'), each as a worker's and as a template's, so that
/// neither undoes another's. Atomics, not a lock, so a forked child can
/// always read them.
static VERIFIED_SECCOMP: [AtomicU64; 4] = [const { AtomicU64::new(0) }; 4];

fn seccomp_slot(interpreter: bool, template: bool) -> usize {
    usize::from(interpreter) * 2 + usize::from(template)
}

/// The policy to offer a new worker or template: it skips its test-fire
/// if its own is this one (Configure carries it).
fn verified_seccomp(interpreter: bool, template: bool) -> Option<u64> {
    match VERIFIED_SECCOMP[seccomp_slot(interpreter, template)].load(Ordering::Relaxed) {
        0 => None,
        policy => Some(policy),
    }
}

/// Notes the policy a worker's (or a template's) Ready says it verified.
fn remember_seccomp(report: &SandboxReport, interpreter: bool, template: bool) {
    if let Some(policy) = report.seccomp_policy
        && report.has(Layer::Seccomp)
    {
        VERIFIED_SECCOMP[seccomp_slot(interpreter, template)].store(policy, Ordering::Relaxed);
    }
}

/// The Configure a worker for `options` is sent, offering `verified` as
/// the seccomp policy already test-fired.
fn configure_request(options: &SessionOptions, verified: Option<u64>) -> Result<Request, Error> {
    if let Some(relayed) = &options.relayed_configure {
        let mut request = (**relayed).clone();
        if let Request::Configure {
            verified_seccomp, ..
        } = &mut request
        {
            *verified_seccomp = verified;
        }
        return Ok(request);
    }
    let limits = &options.limits;
    Ok(Request::Configure {
        protocol_version: PROTOCOL_VERSION,
        package_version: env!("CARGO_PKG_VERSION").into(),
        engine: options.engine_config().map_err(Error::invalid_option)?,
        sandbox: options.sandbox,
        limits: ConfigureLimits {
            max_duration_us: limits
                .max_duration
                .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX)),
            max_memory: limits.max_memory,
            max_recursion_depth: limits.max_recursion_depth,
            print_flush_bytes: limits.print_flush_bytes,
            print_flush_interval_us: u32::try_from(limits.print_flush_interval.as_micros())
                .unwrap_or(u32::MAX),
            cpu_seconds: Some(options.cpu_seconds()),
            max_output_bytes: limits.max_output_bytes,
        },
        verified_seccomp: verified,
    })
}

fn configure_frames(options: &SessionOptions, wire: &WireLimits) -> Result<ConfigureFrames, Error> {
    let interpreter = options.interpreter() == Interpreter::CPython;
    let encode = |verified| {
        encode_request(&configure_request(options, verified)?, wire)
            .map_err(|e| Error::invalid_option(e.to_string()))
    };
    Ok(ConfigureFrames {
        worker: encode(verified_seccomp(interpreter, false))?,
        template: encode(verified_seccomp(interpreter, true))?,
        key: encode(None)?,
    })
}

impl Session {
    /// Starts a new worker and configures it: a cold start.
    pub(crate) fn launch(options: SessionOptions) -> Result<Self, Error> {
        let template = options.spare;
        Self::launch_from(options, template)
    }

    /// A cold start, whose worker is forked from a sandboxed template
    /// when `template` says so (a pool's workers, a session's that keeps
    /// spares).
    pub(crate) fn launch_from(mut options: SessionOptions, template: bool) -> Result<Self, Error> {
        // The default engine is decided once (it looks for an interpreter).
        options.engine = Some(options.interpreter());
        options.validate().map_err(Error::invalid_option)?;
        let packages = options.cpython.packages.clone();
        install_packages(&mut options)?;
        // A dumpable session's randomness is seeded by the host (QuickJS's
        // Math.random; CPython's os.urandom, random and string hash), so
        // that a replay draws the same numbers; its journal keeps the seed.
        let journal_limit = options.max_result_bytes;
        let seed = match options.engine {
            _ if !options.dumpable => None,
            Some(Interpreter::QuickJs) => Some(&mut options.javascript.random_seed),
            Some(Interpreter::CPython) => Some(&mut options.journal_seed),
            _ => None,
        };
        let journal = seed.map(|seed| {
            let seed = *seed.get_or_insert_with(super::journal::fresh_seed);
            super::journal::Journal::seeded(seed, journal_limit)
        });
        let wire = WireLimits::default();
        let (worker, configure) = match &options.remote {
            // The server applies its own sandbox and checks its own policy.
            Some(remote) => {
                let remote = RemoteWorker::connect(
                    remote,
                    options.request_timeout,
                    options.max_result_bytes,
                    wire,
                )?;
                // The server holds the worker's values to its own ceiling
                // when that is lower: the session's limit says so.
                options.max_result_bytes = options.max_result_bytes.min(remote.result_ceiling());
                (
                    Box::new(remote) as Box<dyn Link>,
                    configure_frames(&options, &wire)?.key,
                )
            }
            None => Self::spawn(&options, template && journal.is_none(), wire)?,
        };
        let mut session = Self {
            worker,
            options,
            lost: None,
            functions: HashMap::new(),
            #[cfg(feature = "tokio")]
            inflight: Inflight::new(),
            listed: HashSet::new(),
            globals: HashMap::new(),
            print: None,
            output: None,
            interrupt: None,
            elapsed: Duration::ZERO,
            info: WorkerInfo {
                protocol_version: 0,
                worker_version: String::new(),
                engine: String::new(),
                sandbox: SandboxReport::unsandboxed(),
            },
            wire,
            prestarted: false,
            suspended: None,
            cursors: 0,
            step_futures: Default::default(),
            fed: false,
            packages,
            journal,
            reseed_before_feed: false,
            replaying: false,
            files: None,
            os_handler: None,
        };
        session.configure(&configure)?;
        session.start_supervision()?;
        Ok(session)
    }

    /// Starts a worker process for `options` (forked from a template when
    /// `template` says so); returns it with the Configure to send it.
    fn spawn(
        options: &SessionOptions,
        template: bool,
        wire: WireLimits,
    ) -> Result<(Box<dyn Link>, Vec<u8>), Error> {
        let mut launch = Launch::resolve(options)?;
        // A template's workers share its Configure (a journaled session's
        // carries its own seed) and, for CPython, its string hash seed.
        launch.template = template;
        let frames = configure_frames(options, &wire)?;
        let (worker, configure) = WorkerProcess::spawn(&launch, wire, frames).map_err(|err| {
            Error::Configuration(
                ConfigurationError::new(
                    ConfigurationKind::CannotStart,
                    format!(
                        "cannot start the worker {}: {err}",
                        launch.program.display()
                    ),
                )
                .caused_by(err),
            )
        })?;
        Ok((Box::new(worker), configure))
    }

    /// Checks the worker from outside and starts its supervisor. A limit
    /// that cannot be measured fails closed in `require` mode and is
    /// logged in `auto` mode.
    fn start_supervision(&mut self) -> Result<(), Error> {
        // A remote worker is its server's to check and supervise.
        if self.worker.is_remote() {
            return Ok(());
        }
        let pid = self.worker.pid();
        // A forked worker's checks were made on its template when it
        // started (template.rs): its process is a copy of a template
        // thread that was under the filter, which no copy can shed, and
        // the host could read the template's /proc as it can its
        // siblings'. Looking again at each worker would cost a third of a
        // short session's (the kernel flushes each /proc entry looked at
        // when the process ends).
        if self.worker.is_forked() {
            return self.supervise();
        }
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
        self.supervise()
    }

    /// Starts the supervisor thread.
    fn supervise(&mut self) -> Result<(), Error> {
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

    /// Sends `frame` (a Configure) and waits for Ready.
    fn configure(&mut self, frame: &[u8]) -> Result<(), Error> {
        self.send(frame)?;
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
            Response::Ready(info) => {
                self.worker.mark_started();
                let sandbox = &info.sandbox;
                remember_seccomp(
                    sandbox,
                    self.options.interpreter() == Interpreter::CPython,
                    self.worker.is_forked(),
                );
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
                self.info = info;
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
}

/// Installs a local CPython session's `packages` (or finds them in the
/// cache) and puts their directory last among its `site_packages`, once:
/// the list is emptied, so a later launch with these options (a spare, a
/// pool's next worker) shows the same directory without asking again.
fn install_packages(options: &mut SessionOptions) -> Result<(), Error> {
    if options.cpython.packages.is_empty() {
        return Ok(());
    }
    if options.interpreter() != Interpreter::CPython {
        return Err(Error::invalid_option(format!(
            "packages need the cpython engine, not {}",
            options.interpreter()
        )));
    }
    // A remote session's are the server's to install, from its allow-list.
    if options.remote.is_some() {
        return Ok(());
    }
    let python = crate::cpython::find_python(options.cpython.python.as_deref())?;
    if let Some(site) = crate::packages::installed(&options.cpython.packages, &python)?
        && !options.cpython.site_packages.contains(&site)
    {
        options.cpython.site_packages.push(site);
    }
    options.cpython.packages.clear();
    Ok(())
}

/// `options` as they were before `install_packages`: `packages` named
/// again, and the directory they were installed into no longer in
/// `site_packages` (a session made anew from them installs afresh).
pub(super) fn before_install(mut options: SessionOptions, packages: &[String]) -> SessionOptions {
    if options.cpython.packages.is_empty() && !packages.is_empty() {
        if let Ok(python) = crate::cpython::find_python(options.cpython.python.as_deref())
            && let Ok(Some(site)) = crate::packages::installed(packages, &python)
        {
            options.cpython.site_packages.retain(|dir| *dir != site);
        }
        options.cpython.packages = packages.to_vec();
    }
    options
}
