//! The error taxonomy every failure of a session maps into: `Error`, a
//! `kind()` to match on, and the causes it keeps (`source()`).

use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;

/// An exception raised by guest code, with the worker's traceback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestError {
    /// The exception class, such as `ValueError`.
    pub type_name: String,
    /// The exception's message (may be empty).
    pub message: String,
    /// The formatted traceback, ending with the `Type: message` line.
    pub traceback: String,
}

impl std::fmt::Display for GuestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        stockade_wire::write_exception_line(f, &self.type_name, &self.message)
    }
}

/// Which time limit ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeLimit {
    /// The cumulative guest execution budget (`max_duration`), enforced inside
    /// the worker: the guest got an uncatchable TimeoutError and the session
    /// stays out of time.
    MaxDuration,
    /// The hard per-turn wall clock (`request_timeout`), enforced by the host:
    /// the worker was killed and the session is lost.
    RequestTimeout,
}

/// How a worker process ended, as far as the host could tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashInfo {
    /// What the host saw: why it gave up on the worker.
    pub reason: String,
    /// The exit status, when the worker exited.
    pub exit_code: Option<i32>,
    /// The signal that ended the worker, when one did.
    pub signal: Option<i32>,
    /// The worker's own last word: its Fatal message, or the last line it
    /// wrote to stderr.
    pub detail: Option<String>,
    /// The host killed the worker because the `max_duration` backstop expired.
    pub timed_out: bool,
}

impl std::fmt::Display for CrashInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)?;
        match (self.exit_code, self.signal) {
            (Some(code), _) => write!(f, " (exit status {code})")?,
            (None, Some(signal)) => write!(f, " (signal {signal})")?,
            (None, None) => {}
        }
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        Ok(())
    }
}

/// What a configuration error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigurationKind {
    /// An option is out of range, of the wrong kind, or unknown.
    InvalidOption,
    /// No worker binary where the options and the environment point.
    WorkerNotFound,
    /// The worker binary could not be started, or the host could not start
    /// what supervises it (a thread, a task).
    CannotStart,
    /// The worker refused its configuration: a language it lacks, or
    /// `require` on a kernel without every layer; or the host could not
    /// measure what `require` needs.
    Refused,
    /// The pool was closed.
    PoolClosed,
    /// The session's packages could not be installed: no uv, no index
    /// reachable, no wheel for this interpreter, or a requirement that
    /// cannot be met (the message names them and says what uv said).
    PackagesUnavailable,
}

/// An option that cannot be honoured, or a worker that cannot be started:
/// what about (`kind`), in words, and the OS error behind it, if any.
#[derive(Debug, Clone, Error)]
#[error("{message}")]
pub struct ConfigurationError {
    kind: ConfigurationKind,
    message: String,
    #[source]
    source: Option<Arc<std::io::Error>>,
}

impl ConfigurationError {
    pub fn new(kind: ConfigurationKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// With the OS error that caused it, kept as `source()`.
    pub(crate) fn caused_by(mut self, err: std::io::Error) -> Self {
        self.source = Some(Arc::new(err));
        self
    }

    pub fn kind(&self) -> ConfigurationKind {
        self.kind
    }

    /// What went wrong, in words (also the `Display`).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl PartialEq for ConfigurationError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for ConfigurationError {}

/// What kind of failure an [`Error`] is, for callers (and bindings) that
/// match on it without its details. A new kind goes into
/// [`ErrorKind::ALL`] too, its row into `contract/errors.rs` (class,
/// session, exit status, advice), and into docs/limits.md's error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    Guest,
    Syntax,
    Timeout,
    Memory,
    ResultTooLarge,
    Crashed,
    Disconnected,
    Unauthorized,
    OverCapacity,
    ServerShutdown,
    Conversion,
    Configuration,
    Protocol,
    Interrupted,
    Forked,
    Cursor,
    DumpRejected,
    DumpVersionMismatch,
    ReplayDiverged,
}

impl ErrorKind {
    /// Every kind, in the order of the error table (docs/limits.md).
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::Guest,
        ErrorKind::Syntax,
        ErrorKind::Timeout,
        ErrorKind::Memory,
        ErrorKind::ResultTooLarge,
        ErrorKind::Crashed,
        ErrorKind::Disconnected,
        ErrorKind::Unauthorized,
        ErrorKind::OverCapacity,
        ErrorKind::ServerShutdown,
        ErrorKind::Conversion,
        ErrorKind::Configuration,
        ErrorKind::Protocol,
        ErrorKind::Interrupted,
        ErrorKind::Forked,
        ErrorKind::Cursor,
        ErrorKind::DumpRejected,
        ErrorKind::DumpVersionMismatch,
        ErrorKind::ReplayDiverged,
    ];
}

/// Every way a session call can fail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The guest raised an exception it did not catch. The session lives.
    #[error("guest raised {0}")]
    Guest(GuestError),
    /// The code did not parse or compile. The session lives.
    #[error("syntax error in guest code: {}", .0.message)]
    Syntax(GuestError),
    /// A time limit ran out.
    #[error("{}", timeout_text(*.limit, *.after))]
    Timeout {
        limit: TimeLimit,
        /// The limit's configured value.
        after: Duration,
    },
    /// The memory limit (`max_memory`) stopped the guest. When the worker's
    /// allocator refused outright, the worker is dead and the session lost.
    #[error("max_memory exceeded: {detail}")]
    Memory { detail: String, worker_died: bool },
    /// The worker died or broke the protocol; the session is lost.
    #[error("worker crashed: {0}")]
    Crashed(CrashInfo),
    /// A remote worker's connection went away; the session is lost.
    #[error("disconnected: {0}")]
    Disconnected(String),
    /// The server of a remote session shut down and ended it. The session
    /// is lost, but `Session::dump` still makes its dump (from the image
    /// the server sent, or the session's journal) where its engine allows
    /// one, to restore here or on another server.
    #[error("server shutdown: {0}")]
    ServerShutdown(String),
    /// A server of sessions refused the token (or the lack of one).
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// A server of sessions is running all the sessions it takes (or all
    /// this token may hold); nothing was started. Try again later or
    /// elsewhere.
    #[error("over capacity: {0}")]
    OverCapacity(String),
    /// A value from the worker (a run's result, or a host call's
    /// arguments) would take more than `limit` bytes of host memory
    /// (`max_result_bytes`); it was read past, never built. The session lives.
    #[error(
        "result too large: the value would take more than max_result_bytes ({limit} bytes) in the host; return less, or raise max_result_bytes"
    )]
    ResultTooLarge { limit: u64 },
    /// A host value cannot cross to the guest (or a guest value to the host).
    #[error("conversion error: {0}")]
    Conversion(String),
    /// An option is invalid, or the worker cannot be found or started.
    #[error("configuration error: {0}")]
    Configuration(#[source] ConfigurationError),
    /// The worker rejected a request as malformed or out of turn. The session lives.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The host's interrupt check (`Session::set_interrupt`) asked to stop
    /// while the session waited on its worker; the worker was killed and the
    /// session is lost.
    #[error("interrupted: the worker was killed")]
    Interrupted,
    /// The session was made by another process (this one is a fork of it);
    /// its worker belongs to that process and cannot be used here.
    #[error("this session belongs to process {owner}; a forked process must start its own")]
    Forked { owner: u32 },
    /// A stepped feed's cursor was misused: resumed twice, resumed with an
    /// answer that does not fit, or the session fed while it is suspended.
    /// Nothing reached the worker; the session lives (and stays suspended
    /// where it was).
    #[error("{0}")]
    Cursor(String),
    /// A dump did not open: not a dump, altered, truncated, sealed under
    /// none of the keys or for another context, or for another kind of
    /// session. Nothing reached a worker.
    #[error("dump rejected: {0}")]
    DumpRejected(String),
    /// A dump written by another version of the dump format or of the
    /// engine than this build runs.
    #[error("dump version mismatch: the dump is {found}, this build runs {expected}")]
    DumpVersionMismatch { found: String, expected: String },
    /// Replaying a journaled dump, the guest did something other than what
    /// the journal holds (the first differing step is named). The restored
    /// session is lost.
    #[error("replay diverged: {0}")]
    ReplayDiverged(String),
}

impl TimeLimit {
    /// The option's name: `max_duration`, `request_timeout`.
    pub fn name(self) -> &'static str {
        match self {
            TimeLimit::MaxDuration => "max_duration",
            TimeLimit::RequestTimeout => "request_timeout",
        }
    }
}

fn timeout_text(limit: TimeLimit, after: Duration) -> String {
    match limit {
        TimeLimit::MaxDuration => {
            format!("time limit: max_duration of {after:?} of guest execution exceeded")
        }
        TimeLimit::RequestTimeout => {
            format!("time limit: request_timeout of {after:?} exceeded; the worker was killed")
        }
    }
}

impl Error {
    /// A configuration error of `kind`.
    pub(crate) fn configuration(kind: ConfigurationKind, message: impl Into<String>) -> Self {
        Error::Configuration(ConfigurationError::new(kind, message))
    }

    /// An option that is out of range, of the wrong kind, or unknown.
    pub(crate) fn invalid_option(message: impl Into<String>) -> Self {
        Self::configuration(ConfigurationKind::InvalidOption, message)
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Guest(_) => ErrorKind::Guest,
            Error::Syntax(_) => ErrorKind::Syntax,
            Error::Timeout { .. } => ErrorKind::Timeout,
            Error::Memory { .. } => ErrorKind::Memory,
            Error::ResultTooLarge { .. } => ErrorKind::ResultTooLarge,
            Error::Crashed(_) => ErrorKind::Crashed,
            Error::Disconnected(_) => ErrorKind::Disconnected,
            Error::Unauthorized(_) => ErrorKind::Unauthorized,
            Error::OverCapacity(_) => ErrorKind::OverCapacity,
            Error::ServerShutdown(_) => ErrorKind::ServerShutdown,
            Error::Conversion(_) => ErrorKind::Conversion,
            Error::Configuration(_) => ErrorKind::Configuration,
            Error::Protocol(_) => ErrorKind::Protocol,
            Error::Interrupted => ErrorKind::Interrupted,
            Error::Forked { .. } => ErrorKind::Forked,
            Error::Cursor(_) => ErrorKind::Cursor,
            Error::DumpRejected(_) => ErrorKind::DumpRejected,
            Error::DumpVersionMismatch { .. } => ErrorKind::DumpVersionMismatch,
            Error::ReplayDiverged(_) => ErrorKind::ReplayDiverged,
        }
    }

    /// The class a failure is reported under in an execution's
    /// `error_type`: the guest's own exception class (`ZeroDivisionError`,
    /// `SyntaxError`) for a guest or syntax error, else its kind's
    /// [`ErrorKind::class_name`].
    pub fn error_type(&self) -> &str {
        match self {
            Error::Guest(guest) | Error::Syntax(guest) => &guest.type_name,
            other => other.kind().class_name(),
        }
    }

    /// Whether the session can take no more calls after this error.
    pub fn loses_session(&self) -> bool {
        match self {
            Error::Crashed(_) | Error::Disconnected(_) | Error::Interrupted => true,
            Error::Unauthorized(_) | Error::OverCapacity(_) | Error::ServerShutdown(_) => true,
            Error::Forked { .. } => true,
            Error::Timeout { limit, .. } => *limit == TimeLimit::RequestTimeout,
            Error::Memory { worker_died, .. } => *worker_died,
            _ => false,
        }
    }

    /// Whether any time limit (soft, hard or the backstop) caused this.
    pub fn is_time_limit(&self) -> bool {
        matches!(self, Error::Timeout { .. })
            || matches!(self, Error::Crashed(info) if info.timed_out)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    /// Exhaustive, so a new kind stops the build here until it has a
    /// place in `ALL`.
    fn place_in_all(kind: ErrorKind) -> usize {
        match kind {
            ErrorKind::Guest => 0,
            ErrorKind::Syntax => 1,
            ErrorKind::Timeout => 2,
            ErrorKind::Memory => 3,
            ErrorKind::ResultTooLarge => 4,
            ErrorKind::Crashed => 5,
            ErrorKind::Disconnected => 6,
            ErrorKind::Unauthorized => 7,
            ErrorKind::OverCapacity => 8,
            ErrorKind::ServerShutdown => 9,
            ErrorKind::Conversion => 10,
            ErrorKind::Configuration => 11,
            ErrorKind::Protocol => 12,
            ErrorKind::Interrupted => 13,
            ErrorKind::Forked => 14,
            ErrorKind::Cursor => 15,
            ErrorKind::DumpRejected => 16,
            ErrorKind::DumpVersionMismatch => 17,
            ErrorKind::ReplayDiverged => 18,
        }
    }

    #[test]
    fn every_kind_is_in_all_at_its_place() {
        for (place, kind) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(place_in_all(*kind), place, "{kind:?}");
        }
        assert_eq!(
            ErrorKind::ALL.len(),
            place_in_all(ErrorKind::ReplayDiverged) + 1
        );
    }

    #[test]
    fn every_kind_is_listed_once_and_named_once() {
        let kinds: std::collections::HashSet<ErrorKind> = ErrorKind::ALL.iter().copied().collect();
        assert_eq!(kinds.len(), ErrorKind::ALL.len());
        let mut names: Vec<&str> = ErrorKind::ALL
            .iter()
            .map(|kind| kind.class_name())
            .collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
    }
}
