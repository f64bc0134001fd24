//! Workers for a server of sessions (`stockade serve`): one is started for
//! a remote client's Configure, held to the server's policy (its sandbox
//! mode at least, its ceilings, no directory of the server's shown), and
//! the client's frames are relayed to it turn by turn under the server's
//! own deadlines and supervision. How it ends becomes the `RemoteEnd` the
//! client is told.

use std::path::PathBuf;
use std::time::Duration;

use stockade_wire::{
    EndCause, EngineConfig, Request, Response, SandboxMode, WireLimits, check_protocol_version,
    decode_request, encode_response, peek_configure_version, whole_frame_payload,
};

pub use stockade_wire::RemoteEnd;

use crate::error::{ConfigurationKind, Error, TimeLimit};
use crate::options::SessionOptions;
use crate::session::{Relayed, Session};

/// What a server holds every relayed worker to.
#[derive(Debug, Clone)]
pub struct RelayPolicy {
    /// The least sandbox every worker runs with: a client asking for less
    /// gets this; one asking for more gets what it asked.
    pub sandbox: SandboxMode,
    /// The worker binary; None: found as for a local session.
    pub worker: Option<PathBuf>,
    /// The Python interpreter CPython workers run; None: as for a local
    /// session.
    pub python: Option<PathBuf>,
    /// Longest the worker may speak in one exchange (a feed's computing
    /// between two host calls); also the ceiling of the client's own.
    pub request_timeout: Duration,
    /// Ceiling of the guest time a session may ask for (`max_duration`);
    /// a session that asks for none gets this.
    pub max_duration: Duration,
    /// Ceiling of the guest heap a session may ask for (`max_memory`); a
    /// session that asks for none gets this.
    pub max_memory: u64,
    /// Ceiling of the print output one feed may send.
    pub max_output_bytes: u64,
    /// Ceiling of a CPython session's scratch directory
    /// (`max_scratch_bytes`): a session asking more is refused.
    pub max_scratch_bytes: u64,
    /// Ceiling of what one value from a worker may take in the server (a
    /// result, a call's arguments, an image), as the wire counts decoded
    /// bytes: a client's own `max_result_bytes` above it is held to it. A
    /// message past it is read past, never built, and the client told so.
    pub max_result_bytes: u64,
    /// Threads a worker may run before it is killed.
    pub max_threads: u32,
    /// Packages a CPython session may ask the server to install (names,
    /// any version; compared as the index compares them): the server
    /// installs them with uv, wheels only, and shows them to the guest.
    /// Empty: none.
    pub allowed_packages: Vec<String>,
}

/// What a client asked for beside its Configure (in its upgrade's
/// headers): None leaves it to the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientAsks {
    /// Its request timeout; one above the server's ceiling is refused.
    pub request_timeout: Option<Duration>,
    /// Its `max_result_bytes`; one above the server's ceiling is held to it.
    pub max_result_bytes: Option<u64>,
}

impl RelayPolicy {
    /// The most a value from a worker may take for a client that asked for
    /// `asked`: its own figure, at most the server's ceiling.
    pub fn result_bytes_for(&self, asked: Option<u64>) -> u64 {
        asked
            .unwrap_or(self.max_result_bytes)
            .min(self.max_result_bytes)
            .max(1)
    }
}

impl Default for RelayPolicy {
    fn default() -> Self {
        Self {
            sandbox: SandboxMode::Require,
            worker: None,
            python: None,
            request_timeout: SessionOptions::DEFAULT_REQUEST_TIMEOUT,
            max_duration: Duration::from_secs(300),
            max_memory: crate::options::Limits::DEFAULT_MAX_MEMORY,
            max_output_bytes: crate::options::Limits::DEFAULT_MAX_OUTPUT_BYTES,
            max_scratch_bytes: crate::options::Limits::DEFAULT_MAX_SCRATCH_BYTES,
            max_result_bytes: SessionOptions::DEFAULT_MAX_RESULT_BYTES,
            max_threads: SessionOptions::DEFAULT_MAX_THREADS,
            allowed_packages: Vec::new(),
        }
    }
}

/// The directory holding `requirements`, each on the server's allow-list,
/// installed (or found in the cache) for the server's interpreter.
fn server_packages(policy: &RelayPolicy, requirements: &[String]) -> Result<Vec<String>, String> {
    let requirements = crate::packages::normalise(requirements)?;
    for requirement in &requirements {
        if !crate::packages::is_pinned_or_bare(requirement) {
            return Err(format!(
                "package requirement {requirement:?}: this server installs a package by name, or pinned to one version (name==version)"
            ));
        }
        let name = crate::packages::package_name(requirement);
        if !policy
            .allowed_packages
            .iter()
            .any(|allowed| crate::packages::package_name(allowed) == name)
        {
            return Err(format!(
                "package {name} is not on this server's allow-list (stockade serve --allow-package NAME)"
            ));
        }
    }
    // What went wrong names the server's paths and index: its log says it,
    // the client is told which packages.
    let listed = requirements.join(", ");
    let hidden = |err: crate::Error| {
        tracing::warn!(packages = %listed, "cannot install a remote session's packages: {err}");
        format!("cannot install the packages {listed} on this server (its log says why)")
    };
    let python = crate::cpython::find_python(policy.python.as_deref()).map_err(hidden)?;
    let site = crate::packages::installed(&requirements, &python).map_err(hidden)?;
    Ok(site
        .into_iter()
        .map(|dir| dir.to_string_lossy().into_owned())
        .collect())
}

/// A relayed worker's end: an optional Fatal frame the client is sent
/// first (a refused Configure gets one naming why, as a worker's own
/// refusal would), then the server's word on the end.
#[derive(Debug, Clone)]
pub struct Ended {
    pub fatal: Option<Vec<u8>>,
    pub end: RemoteEnd,
}

impl Ended {
    fn refused(detail: String) -> Self {
        let fatal = encode_response(
            &Response::Fatal {
                message: detail.clone(),
            },
            &WireLimits::default(),
        )
        .ok();
        Self {
            fatal,
            end: end(EndCause::Refused, None, None, Some(detail), None),
        }
    }
}

/// One remote client's worker.
#[derive(Debug)]
pub struct RelayedWorker {
    session: Session,
    /// The worker is between feeds (not suspended at a host call).
    idle: bool,
    /// Print bytes of the feed running now.
    output: u64,
}

impl RelayedWorker {
    /// Starts a worker for the client's `configure` frame (header
    /// included) and what it `asked` beside it (each exchange bounded by
    /// its request timeout, each value by its `max_result_bytes`, both
    /// held to the server's ceilings), for `tenant` (an identity of the
    /// client's token: workers of different tenants never come from one
    /// template). Returns it with the Ready frame the client is sent.
    pub fn start(
        configure: &[u8],
        asked: ClientAsks,
        tenant: [u8; 32],
        policy: &RelayPolicy,
    ) -> Result<(Self, Vec<u8>), Ended> {
        let payload = whole_frame_payload(configure).map_err(Ended::refused)?;
        let version = peek_configure_version(payload).ok_or_else(|| {
            Ended::refused("the first message of a session must be Configure".into())
        })?;
        check_protocol_version(version)
            .map_err(|err| Ended::refused(err.replace("this worker", "this server")))?;
        let request = decode_request(payload, &WireLimits::default())
            .map_err(|err| Ended::refused(format!("malformed Configure: {err}")))?;
        let mut options =
            held_to_policy(request, asked.request_timeout, policy).map_err(Ended::refused)?;
        options.max_result_bytes = policy.result_bytes_for(asked.max_result_bytes);
        options.tenant = Some(tenant);
        let mut session = Session::launch_from(options, true).map_err(|err| ended(&err))?;
        session.open_relay();
        let ready = session.ready_frame().map_err(|err| ended(&err))?;
        Ok((
            Self {
                session,
                idle: true,
                output: 0,
            },
            ready,
        ))
    }

    /// Relays one client frame (header included) and forwards the worker's
    /// messages until it hands the turn back. `forward` returning false
    /// means the client is gone. Err: the worker ended (a Close included).
    pub fn exchange(
        &mut self,
        frame: &[u8],
        forward: &mut dyn FnMut(Vec<u8>) -> bool,
    ) -> Result<(), Ended> {
        if let Err(why) = whole_frame_payload(frame) {
            return Err(self.end(EndCause::Killed, format!("the client sent {why}")));
        }
        match self.session.relay(frame, &mut self.output, forward) {
            Ok(Relayed::Yielded { idle }) => {
                if let Some(idle) = idle {
                    self.idle = idle;
                }
                Ok(())
            }
            Ok(Relayed::Closed) => Err(Ended {
                fatal: None,
                end: end(EndCause::Exited, Some(0), None, None, None),
            }),
            Err(err) => Err(ended(&err)),
        }
    }

    /// Sets the check a running exchange polls (every 20 ms) for its
    /// client having gone: true kills the worker at once, mid-turn too.
    pub fn watch_client(&mut self, gone: impl FnMut() -> bool + Send + 'static) {
        self.session.set_interrupt(gone);
    }

    /// Ends the session because the server is shutting down: the worker,
    /// when it is between feeds, is asked for its image first (engines that
    /// image themselves), which the client is sent so that it can dump the
    /// session and go on elsewhere; then it is killed.
    pub fn shut_down(&mut self, detail: String) -> Ended {
        // An image of a feed suspended at a host call would restore as
        // idle: only a worker between feeds is imaged.
        let image = if self.idle {
            self.session.image_for_shutdown()
        } else {
            None
        };
        let mut ended = self.end(EndCause::Shutdown, detail);
        ended.end.image = image;
        ended
    }

    /// Kills the worker for `cause`; the end the client is told.
    pub fn end(&mut self, cause: EndCause, detail: String) -> Ended {
        self.session.kill_worker();
        Ended {
            fatal: None,
            end: end(cause, None, Some(9), Some(detail), None),
        }
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.session.worker_pid()
    }
}

/// The session options of a relayed worker: the client's Configure, held
/// to the server's policy, or why it cannot be.
fn held_to_policy(
    request: Request,
    request_timeout: Option<Duration>,
    policy: &RelayPolicy,
) -> Result<SessionOptions, String> {
    let Request::Configure {
        protocol_version,
        package_version,
        mut engine,
        sandbox,
        mut limits,
        ..
    } = request
    else {
        return Err(format!(
            "the first message of a session must be Configure, not {}",
            request.name()
        ));
    };
    if let EngineConfig::CPython(config) = &engine
        && !config.site_packages.is_empty()
    {
        return Err(
            "site_packages names directories of the client's; this server shows none of its own to remote sessions"
                .into(),
        );
    }
    if let EngineConfig::CPython(config) = &mut engine
        && !config.packages.is_empty()
    {
        config.site_packages = server_packages(policy, &config.packages)?;
        config.packages.clear();
    }
    let request_timeout = match request_timeout {
        Some(asked) if asked > policy.request_timeout => {
            return Err(format!(
                "request_timeout of {asked:?} is above this server's ceiling of {:?}; ask for at most that",
                policy.request_timeout
            ));
        }
        Some(asked) => asked,
        None => policy.request_timeout,
    };
    let ceiling_us = u64::try_from(policy.max_duration.as_micros()).unwrap_or(u64::MAX);
    match limits.max_duration_us {
        Some(asked) if asked > ceiling_us => {
            return Err(format!(
                "max_duration of {:?} is above this server's ceiling of {:?}; ask for at most that",
                Duration::from_micros(asked),
                policy.max_duration
            ));
        }
        Some(_) => {}
        None => limits.max_duration_us = Some(ceiling_us),
    }
    match limits.max_memory {
        Some(asked) if asked > policy.max_memory => {
            return Err(format!(
                "max_memory of {asked} bytes is above this server's ceiling of {} bytes; ask for at most that",
                policy.max_memory
            ));
        }
        Some(_) => {}
        None => limits.max_memory = Some(policy.max_memory),
    }
    // The engine's own heap limits, as a local host would give them: none
    // asked is the session's max_memory, none may pass it.
    if let EngineConfig::JavaScript(config) = &mut engine {
        let memory = limits.max_memory.unwrap_or(policy.max_memory);
        for (name, asked, default) in [
            ("max_heap_size", &mut config.max_heap_size, memory),
            ("max_buffer_bytes", &mut config.max_buffer_bytes, memory / 4),
        ] {
            match *asked {
                Some(bytes) if bytes > memory => {
                    return Err(format!(
                        "{name} of {bytes} bytes is above the session's max_memory of {memory} bytes, this server's ceiling for it"
                    ));
                }
                Some(_) => {}
                None => *asked = Some(default),
            }
        }
    }
    if let EngineConfig::CPython(config) = &engine
        && let Some(asked) = config.max_scratch_bytes
        && asked > policy.max_scratch_bytes
    {
        return Err(format!(
            "max_scratch_bytes of {asked} bytes is above this server's ceiling of {} bytes; ask for at most that",
            policy.max_scratch_bytes
        ));
    }
    if limits.max_output_bytes > policy.max_output_bytes {
        return Err(format!(
            "max_output_bytes of {} is above this server's ceiling of {}; ask for at most that",
            limits.max_output_bytes, policy.max_output_bytes
        ));
    }
    // RLIMIT_CPU backs the deadlines up: twice the longest a session may
    // compute here, whatever the client's host would have given it.
    let longest = Duration::from_micros(limits.max_duration_us.unwrap_or(ceiling_us))
        .min(request_timeout)
        .max(Duration::from_secs(1));
    limits.cpu_seconds = Some(2 * longest.as_secs().max(1));
    let mut options = SessionOptions::new(engine.language());
    options.engine = Some(engine.interpreter());
    options.sandbox = sandbox.max(policy.sandbox);
    options.worker = policy.worker.clone();
    options.cpython.python = policy.python.clone();
    options.limits.max_duration = limits.max_duration_us.map(Duration::from_micros);
    options.limits.max_memory = limits.max_memory;
    options.limits.max_output_bytes = limits.max_output_bytes;
    if let EngineConfig::CPython(config) = &engine {
        options.limits.max_scratch_bytes = config.max_scratch_bytes.unwrap_or(0);
    }
    options.request_timeout = request_timeout;
    options.max_threads = policy.max_threads;
    options.spare = false;
    options.relayed_configure = Some(Box::new(Request::Configure {
        protocol_version,
        package_version,
        engine,
        sandbox: options.sandbox,
        limits,
        verified_seccomp: None,
    }));
    Ok(options)
}

fn end(
    cause: EndCause,
    code: Option<i32>,
    signal: Option<i32>,
    detail: Option<String>,
    limit_us: Option<u64>,
) -> RemoteEnd {
    RemoteEnd {
        cause,
        code,
        signal,
        detail,
        limit_us,
        image: None,
    }
}

/// The end a session's error is for the client.
fn ended(err: &Error) -> Ended {
    let text = err.to_string();
    let remote = match err {
        Error::Memory { detail, .. } => {
            end(EndCause::Memory, None, None, Some(detail.clone()), None)
        }
        Error::Timeout {
            limit: TimeLimit::RequestTimeout,
            after,
        } => end(
            EndCause::RequestTimeout,
            None,
            Some(9),
            Some(text),
            Some(u64::try_from(after.as_micros()).unwrap_or(u64::MAX)),
        ),
        Error::Crashed(info) if info.signal == Some(9) => end(
            EndCause::Killed,
            info.exit_code,
            info.signal,
            Some(text),
            None,
        ),
        Error::Crashed(info) => end(
            EndCause::Exited,
            info.exit_code,
            info.signal,
            info.detail.clone().or(Some(info.reason.clone())),
            None,
        ),
        Error::Interrupted => end(
            EndCause::Killed,
            None,
            Some(9),
            Some("the client went away mid-turn".into()),
            None,
        ),
        Error::Configuration(config) if config.kind() == ConfigurationKind::Refused => end(
            EndCause::Refused,
            None,
            None,
            Some(config.to_string()),
            None,
        ),
        _ => end(EndCause::Killed, None, None, Some(text), None),
    };
    Ended {
        fatal: None,
        end: remote,
    }
}
