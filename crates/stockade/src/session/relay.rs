//! A server of sessions' side of the remote hop, inside the session: one
//! request frame from the client out to the worker, and the worker's
//! messages back until the one that hands the turn back, each under the
//! session's own deadlines (the time the client spends on a host call is
//! between two such exchanges, so no deadline counts it).

use std::time::Duration;

use stockade_wire::{
    FRAME_HEADER_LEN, RemoteTooLarge, Response, ResponseHead, encode_remote_too_large,
    encode_response, is_close_request, is_feed_request,
};

use crate::error::Error;

use super::turn::OUTPUT_SLACK;
use super::{Reply, Session, Turn};

/// How one relayed exchange ended.
#[derive(Debug)]
pub(crate) enum Relayed {
    /// The worker handed the turn back: idle between feeds (a reply, a
    /// refusal), or not (suspended at a host call, a lookup, an await);
    /// None when it says nothing of that (an image, made of a session
    /// idle or suspended alike).
    Yielded { idle: Option<bool> },
    /// The client asked the worker to close, and it did.
    Closed,
}

impl Session {
    /// Readies a relayed session: the worker's frames are held to the
    /// session's `max_result_bytes` (the client's, at most the server's
    /// ceiling), so a value costs the server no more than it may cost the
    /// client.
    pub(crate) fn open_relay(&mut self) {
        self.worker.limit_values(self.options.max_result_bytes);
    }

    /// The worker's Ready, as the client is sent it.
    pub(crate) fn ready_frame(&self) -> Result<Vec<u8>, Error> {
        encode_response(&Response::Ready(self.info.clone()), &self.wire)
            .map_err(|err| Error::Protocol(format!("cannot encode Ready: {err}")))
    }

    /// Sends the client's `frame` (header included, checked by the caller)
    /// and forwards each of the worker's messages, re-encoded from what was
    /// decoded, until the turn is handed back. `forward` returning false
    /// means the client is gone. `output` counts the feed's print bytes
    /// (a Feed starts it again), which the worker must keep within
    /// `max_output_bytes` as it would for a local host.
    pub(crate) fn relay(
        &mut self,
        frame: &[u8],
        output: &mut u64,
        forward: &mut dyn FnMut(Vec<u8>) -> bool,
    ) -> Result<Relayed, Error> {
        let payload = &frame[FRAME_HEADER_LEN.min(frame.len())..];
        let closing = is_close_request(payload);
        if is_feed_request(payload) {
            *output = 0;
        }
        let allowance = self
            .options
            .limits
            .max_output_bytes
            .saturating_add(OUTPUT_SLACK);
        self.send(frame)?;
        if closing {
            let exit = self.worker.reap();
            self.lost = Some(Error::Disconnected("the client closed the session".into()));
            return match exit.code {
                Some(0) => Ok(Relayed::Closed),
                _ => Err(self.exited("the worker did not close cleanly")),
            };
        }
        let limit = self.options.max_result_bytes;
        let turn = Turn::new(self.elapsed, limit);
        loop {
            let deadline = self.turn_deadline(&turn);
            let response = match self.recv_within(deadline, limit)? {
                Reply::Message(response) => response,
                // An output the client could not take: it hears so, and
                // the worker goes on without waiting for an answer.
                Reply::TooLarge { head, encoded } if head == ResponseHead::Other("Output") => {
                    *output = output.saturating_add(encoded);
                    if *output > allowance {
                        return Err(self.broken(format!(
                            "the worker sent more than max_output_bytes ({}) of output in one feed",
                            self.options.limits.max_output_bytes
                        )));
                    }
                    self.tell_too_large(head, encoded, forward)?;
                    continue;
                }
                Reply::TooLarge { head, encoded } => {
                    return self.relay_too_large(head, encoded, forward);
                }
            };
            if let Some(us) = response.elapsed_us() {
                self.elapsed = Duration::from_micros(us);
            }
            let shown = match &response {
                Response::Print { text, .. } if text.is_empty() => None,
                Response::Print { text, .. } => Some(text.len() as u64),
                Response::Output(shown) => Some(shown.size()),
                _ => Some(0),
            };
            *output = output.saturating_add(shown.unwrap_or(0));
            if shown.is_none() || *output > allowance {
                return Err(self.broken(format!(
                    "the worker sent an empty Print, or more than max_output_bytes ({}) of output in one feed",
                    self.options.limits.max_output_bytes
                )));
            }
            let hands_back = !matches!(
                response,
                Response::Print { .. } | Response::Output(_) | Response::Clock { .. }
            );
            let idle = match response {
                Response::Image { .. } => None,
                Response::Call { .. }
                | Response::Lookup { .. }
                | Response::Await { .. }
                | Response::OsCall { .. } => Some(false),
                _ => Some(true),
            };
            let encoded = encode_response(&response, &self.wire).map_err(|err| {
                self.broken(format!("the worker's message cannot be relayed: {err}"))
            })?;
            if !forward(encoded) {
                self.worker.kill();
                return Err(
                    self.record_lost(Error::Disconnected("the client went away mid-turn".into()))
                );
            }
            if let Response::Fatal { message } = response {
                return Err(self.fatal(message));
            }
            if hands_back {
                return Ok(Relayed::Yielded { idle });
            }
        }
    }

    /// Tells the client of a message read past, unbuilt, whose values ran
    /// past `max_result_bytes`: it answers as a local host would (a result
    /// is ResultTooLarge and the worker is idle again; a call's arguments
    /// get an exception the worker waits for). Any other message that
    /// large has no business being so, and ends the worker.
    fn relay_too_large(
        &mut self,
        head: ResponseHead,
        encoded: u64,
        forward: &mut dyn FnMut(Vec<u8>) -> bool,
    ) -> Result<Relayed, Error> {
        let idle = match &head {
            ResponseHead::Complete => Some(true),
            ResponseHead::Other("Image") => None,
            ResponseHead::Call { .. } | ResponseHead::OsCall { .. } => Some(false),
            ResponseHead::Other(what) => {
                return Err(self.broken(format!(
                    "the worker sent {what} too large to read ({encoded} bytes)"
                )));
            }
        };
        self.tell_too_large(head, encoded, forward)?;
        Ok(Relayed::Yielded { idle })
    }

    /// Tells the client that the worker sent a frame (whose head is
    /// `head`) too large for it to take.
    fn tell_too_large(
        &mut self,
        head: ResponseHead,
        encoded: u64,
        forward: &mut dyn FnMut(Vec<u8>) -> bool,
    ) -> Result<(), Error> {
        let notice = encode_remote_too_large(&RemoteTooLarge { head, encoded }, &self.wire)
            .map_err(|err| {
                self.broken(format!("cannot tell the client of a large value: {err}"))
            })?;
        if !forward(notice) {
            self.worker.kill();
            return Err(
                self.record_lost(Error::Disconnected("the client went away mid-turn".into()))
            );
        }
        Ok(())
    }
}
