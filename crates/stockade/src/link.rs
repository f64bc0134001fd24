//! What a session talks to: a worker process of its own (`process.rs`), or
//! a worker on a server of sessions (`remote.rs`). Both move the same
//! frames under the same deadlines; only a local worker has a pid, a
//! supervisor and a stderr of its host's.

use std::time::Instant;

use stockade_wire::Response;

use crate::channel::{ExitInfo, RecvError, SendError};
use crate::error::Error;
use crate::process::WorkerProcess;
use crate::remote::RemoteWorker;
use crate::supervisor::{SupervisionLimits, Violation};

#[derive(Debug)]
pub(crate) enum Link {
    Local(WorkerProcess),
    Remote(RemoteWorker),
}

impl Link {
    /// The worker's process id; 0 for a remote worker (its pid is the
    /// server's business).
    pub(crate) fn pid(&self) -> u32 {
        match self {
            Link::Local(worker) => worker.pid(),
            Link::Remote(_) => 0,
        }
    }

    pub(crate) fn is_remote(&self) -> bool {
        matches!(self, Link::Remote(_))
    }

    pub(crate) fn is_forked(&self) -> bool {
        match self {
            Link::Local(worker) => worker.is_forked(),
            Link::Remote(_) => false,
        }
    }

    pub(crate) fn mark_started(&mut self) {
        if let Link::Local(worker) = self {
            worker.mark_started();
        }
    }

    pub(crate) fn supervise(&mut self, limits: SupervisionLimits) -> std::io::Result<()> {
        match self {
            Link::Local(worker) => worker.supervise(limits),
            Link::Remote(_) => Ok(()),
        }
    }

    pub(crate) fn arm_supervisor(&self) {
        if let Link::Local(worker) = self {
            worker.arm_supervisor();
        }
    }

    pub(crate) fn violation(&self) -> Option<Violation> {
        match self {
            Link::Local(worker) => worker.violation(),
            Link::Remote(_) => None,
        }
    }

    pub(crate) fn owned(&self) -> bool {
        match self {
            Link::Local(worker) => worker.owned(),
            Link::Remote(remote) => remote.owned(),
        }
    }

    pub(crate) fn owner(&self) -> u32 {
        match self {
            Link::Local(worker) => worker.owner(),
            Link::Remote(remote) => remote.owner(),
        }
    }

    pub(crate) fn alive(&mut self) -> bool {
        match self {
            Link::Local(worker) => worker.alive(),
            Link::Remote(remote) => remote.alive(),
        }
    }

    pub(crate) fn limit_values(&mut self, bytes: u64) {
        match self {
            Link::Local(worker) => worker.limit_values(bytes),
            Link::Remote(remote) => {
                remote.limits_mut().max_decoded_bytes = crate::channel::value_budget(bytes);
            }
        }
    }

    pub(crate) fn value_budget(&self) -> u64 {
        match self {
            Link::Local(worker) => worker.value_budget(),
            Link::Remote(remote) => remote.limits().max_decoded_bytes,
        }
    }

    pub(crate) fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError> {
        match self {
            Link::Local(worker) => worker.send(frame, deadline),
            Link::Remote(remote) => remote.send(frame, deadline),
        }
    }

    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError> {
        match self {
            Link::Local(worker) => worker.recv(deadline),
            Link::Remote(remote) => remote.recv(deadline),
        }
    }

    pub(crate) fn recv_sent(&mut self) -> Result<Response, RecvError> {
        match self {
            Link::Local(worker) => worker.recv_sent(),
            Link::Remote(remote) => remote.recv_sent(),
        }
    }

    pub(crate) fn kill(&mut self) -> ExitInfo {
        match self {
            Link::Local(worker) => worker.kill(),
            Link::Remote(remote) => remote.kill(),
        }
    }

    pub(crate) fn reap(&mut self) -> ExitInfo {
        match self {
            Link::Local(worker) => worker.reap(),
            Link::Remote(remote) => remote.reap(),
        }
    }

    /// The worker's last words: its stderr's last line, or what the server
    /// said of its end.
    pub(crate) fn last_stderr_line(&self) -> Option<String> {
        match self {
            Link::Local(worker) => worker.last_stderr_line(),
            Link::Remote(remote) => remote.detail(),
        }
    }

    /// The image a server sent with a shutdown, for a remote worker.
    pub(crate) fn shutdown_image(&self) -> Option<Vec<u8>> {
        match self {
            Link::Local(_) => None,
            Link::Remote(remote) => remote.shutdown_image(),
        }
    }

    /// For a remote worker whose end the server named (or whose connection
    /// went away), the session's error; None for a local worker, or a
    /// remote one that exited by itself (named from its status).
    pub(crate) fn remote_loss(&mut self) -> Option<Error> {
        match self {
            Link::Local(_) => None,
            Link::Remote(remote) => {
                remote.reap();
                remote.loss()
            }
        }
    }
}
