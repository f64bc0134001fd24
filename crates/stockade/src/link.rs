//! What a session talks to: a worker process of its own (`process.rs`), or
//! a worker on a server of sessions (`remote/`). Both move the same frames
//! under the same deadlines; only a local worker has a pid, a supervisor
//! and a stderr of its host's, and only a remote one an end its server can
//! name, so those methods default to what a worker without them answers.

use std::time::Instant;

use stockade_wire::Response;

use crate::channel::{ExitInfo, RecvError, SendError};
use crate::error::Error;
use crate::process::WorkerProcess;
use crate::remote::RemoteWorker;
use crate::supervisor::{SupervisionLimits, Violation};

/// A session's worker, wherever it runs.
pub(crate) trait Link: std::fmt::Debug + Send {
    fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError>;
    fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError>;
    /// The answer to a request already sent, with no deadline of its own.
    fn recv_sent(&mut self) -> Result<Response, RecvError>;
    /// Bounds the values the next responses may hold (`max_result_bytes`).
    fn limit_values(&mut self, bytes: u64);
    /// The decoded bytes a response may take now.
    fn value_budget(&self) -> u64;
    fn kill(&mut self) -> ExitInfo;
    fn reap(&mut self) -> ExitInfo;
    fn alive(&mut self) -> bool;
    /// Whether this process made the worker (not a fork of it).
    fn owned(&self) -> bool;
    /// The process that made the worker.
    fn owner(&self) -> u32;
    /// The worker's last words: its stderr's last line, or what the server
    /// said of its end.
    fn last_stderr_line(&self) -> Option<String>;

    /// The worker's process id; 0 for a remote worker (its pid is the
    /// server's business).
    fn pid(&self) -> u32 {
        0
    }
    fn is_remote(&self) -> bool {
        false
    }
    /// Whether the worker was forked from a template.
    fn is_forked(&self) -> bool {
        false
    }
    fn mark_started(&mut self) {}
    /// Starts the host's supervisor of the worker's process.
    fn supervise(&mut self, _limits: SupervisionLimits) -> std::io::Result<()> {
        Ok(())
    }
    fn arm_supervisor(&self) {}
    /// What the supervisor killed the worker for.
    fn violation(&self) -> Option<Violation> {
        None
    }
    /// The image a server sent with a shutdown, for a remote worker.
    fn shutdown_image(&self) -> Option<Vec<u8>> {
        None
    }
    /// For a remote worker whose end the server named (or whose connection
    /// went away), the session's error; None for a local worker, or a
    /// remote one that exited by itself (named from its status).
    fn remote_loss(&mut self) -> Option<Error> {
        None
    }
}

impl Link for WorkerProcess {
    fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError> {
        WorkerProcess::send(self, frame, deadline)
    }
    fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError> {
        WorkerProcess::recv(self, deadline)
    }
    fn recv_sent(&mut self) -> Result<Response, RecvError> {
        WorkerProcess::recv_sent(self)
    }
    fn limit_values(&mut self, bytes: u64) {
        WorkerProcess::limit_values(self, bytes)
    }
    fn value_budget(&self) -> u64 {
        WorkerProcess::value_budget(self)
    }
    fn kill(&mut self) -> ExitInfo {
        WorkerProcess::kill(self)
    }
    fn reap(&mut self) -> ExitInfo {
        WorkerProcess::reap(self)
    }
    fn alive(&mut self) -> bool {
        WorkerProcess::alive(self)
    }
    fn owned(&self) -> bool {
        WorkerProcess::owned(self)
    }
    fn owner(&self) -> u32 {
        WorkerProcess::owner(self)
    }
    fn last_stderr_line(&self) -> Option<String> {
        WorkerProcess::last_stderr_line(self)
    }
    fn pid(&self) -> u32 {
        WorkerProcess::pid(self)
    }
    fn is_forked(&self) -> bool {
        WorkerProcess::is_forked(self)
    }
    fn mark_started(&mut self) {
        WorkerProcess::mark_started(self)
    }
    fn supervise(&mut self, limits: SupervisionLimits) -> std::io::Result<()> {
        WorkerProcess::supervise(self, limits)
    }
    fn arm_supervisor(&self) {
        WorkerProcess::arm_supervisor(self)
    }
    fn violation(&self) -> Option<Violation> {
        WorkerProcess::violation(self)
    }
}

impl Link for RemoteWorker {
    fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError> {
        RemoteWorker::send(self, frame, deadline)
    }
    fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError> {
        RemoteWorker::recv(self, deadline)
    }
    fn recv_sent(&mut self) -> Result<Response, RecvError> {
        RemoteWorker::recv_sent(self)
    }
    fn limit_values(&mut self, bytes: u64) {
        self.limits_mut().max_decoded_bytes = crate::channel::value_budget(bytes);
    }
    fn value_budget(&self) -> u64 {
        self.limits().max_decoded_bytes
    }
    fn kill(&mut self) -> ExitInfo {
        RemoteWorker::kill(self)
    }
    fn reap(&mut self) -> ExitInfo {
        RemoteWorker::reap(self)
    }
    fn alive(&mut self) -> bool {
        RemoteWorker::alive(self)
    }
    fn owned(&self) -> bool {
        RemoteWorker::owned(self)
    }
    fn owner(&self) -> u32 {
        RemoteWorker::owner(self)
    }
    fn last_stderr_line(&self) -> Option<String> {
        self.detail()
    }
    fn is_remote(&self) -> bool {
        true
    }
    fn shutdown_image(&self) -> Option<Vec<u8>> {
        RemoteWorker::shutdown_image(self)
    }
    fn remote_loss(&mut self) -> Option<Error> {
        RemoteWorker::reap(self);
        self.loss()
    }
}
