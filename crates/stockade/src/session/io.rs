//! One request out and one reply in, under a deadline: a stall, a
//! deadline, a closed pipe or a malformed frame becomes the session's
//! `Error`, and a reply whose values are too large arrives as
//! `Reply::TooLarge` with the stream intact.

use std::time::{Duration, Instant};

use stockade_wire::{Request, Response, ResponseHead, decoded_size, encode_request};

use crate::channel::{RecvError, SendError};
use crate::error::{CrashInfo, Error, TimeLimit};

use super::{Reply, Session, TurnDeadline};

/// How often a waiting session asks its interrupt check.
const INTERRUPT_POLL: Duration = Duration::from_millis(20);

impl Session {
    /// Encodes and sends one request; one that cannot be encoded is a
    /// conversion error (nothing was sent, the session lives).
    pub(super) fn answer(&mut self, request: &Request) -> Result<(), Error> {
        let frame = encode_request(request, &self.wire).map_err(|err| {
            Error::Conversion(format!("{} cannot be sent: {err}", request.name()))
        })?;
        self.send_request(request, &frame)
    }

    /// Sends `request`, already encoded as `frame`, and journals it.
    pub(super) fn send_request(&mut self, request: &Request, frame: &[u8]) -> Result<(), Error> {
        self.send(frame)?;
        if let Some(journal) = &mut self.journal {
            journal.sent(request, frame);
        }
        Ok(())
    }

    pub(super) fn send(&mut self, frame: &[u8]) -> Result<(), Error> {
        // Work for the worker (Configure goes before its supervisor starts):
        // the supervisor looks from now on.
        self.worker.arm_supervisor();
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
    pub(super) fn recv_within(
        &mut self,
        deadline: TurnDeadline,
        result_limit: u64,
    ) -> Result<Reply, Error> {
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
            Response::Output(output) => (output.size(), ResponseHead::Other("Output")),
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
}
