//! How a worker's end becomes the session's `Error`: a guest failure it
//! reported, a Fatal it announced, an exit or signal (and which limit
//! caused it), or a protocol break that makes the host kill it. Every path
//! records the error, so a lost session answers every later call with it.

use stockade_wire::{ErrorKind, GuestException, Response, WorkerExit};

use crate::channel::ExitInfo;
use crate::error::{CrashInfo, Error, GuestError, TimeLimit};
use crate::supervisor::Violation;

use super::Session;

/// The signal RLIMIT_CPU's soft limit sends.
const SIGXCPU: i32 = 24;

impl Session {
    pub(super) fn guest_failure(
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

    /// The worker announced a fatal error and is exiting.
    pub(super) fn fatal(&mut self, message: String) -> Error {
        if let Some(err) = self.worker.remote_loss() {
            return self.record_lost(err);
        }
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
    pub(super) fn exited(&mut self, what: &str) -> Error {
        // A worker that announced Fatal before exiting may still have that
        // frame unread in the pipe (a write to it can fail first).
        let mut fatal = None;
        while let Ok(response) = self.worker.recv_sent() {
            if let Response::Fatal { message } = response {
                fatal = Some(message);
            }
        }
        if let Some(err) = self.worker.remote_loss() {
            return self.record_lost(err);
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
    pub(super) fn broken(&mut self, reason: String) -> Error {
        self.lose(CrashInfo {
            reason,
            ..CrashInfo::default_killed()
        })
    }

    pub(super) fn lose(&mut self, mut info: CrashInfo) -> Error {
        let exit = self.worker.kill();
        info.exit_code = exit.code;
        info.signal = exit.signal;
        if info.detail.is_none() {
            info.detail = printable(self.worker.last_stderr_line());
        }
        self.record_lost(Error::Crashed(info))
    }

    pub(super) fn record_lost(&mut self, err: Error) -> Error {
        self.lost = Some(err.clone());
        err
    }
}

/// The worker's own words with its control characters escaped: whatever it
/// wrote (a guest may write to its stderr) reaches logs and terminals as
/// text, never as cursor moves or lines of its own.
fn printable(detail: Option<String>) -> Option<String> {
    detail.map(|text| crate::text::escape_controls(&text).into_owned())
}

fn crash_info(what: &str, exit: ExitInfo, detail: Option<String>) -> CrashInfo {
    let detail = printable(detail);
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
    pub(super) fn default_killed() -> Self {
        CrashInfo {
            reason: String::new(),
            exit_code: None,
            signal: None,
            detail: None,
            timed_out: false,
        }
    }
}
