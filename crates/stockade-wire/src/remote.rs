//! The remote hop: what a server of sessions (`stockade serve`) adds to the
//! frames it relays between a client and a worker. Every message of the hop
//! is one WebSocket binary message holding one whole frame (header
//! included). Requests and responses cross unchanged; the server adds one
//! message of its own, [`RemoteEnd`], telling the client how the worker
//! ended, because the client cannot see the worker's exit status or the
//! server's supervisor. Its tag is outside the responses' range, so no
//! worker frame (which the server decodes before relaying) can be one.

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::limits::WireLimits;
use crate::message::{check_payload, finish_frame, start_frame};
use crate::names::named_set;

/// The path a server of sessions upgrades to WebSocket.
pub const SESSION_PATH: &str = "/v1/session";
/// The upgrade's header naming the client's request timeout, in whole
/// milliseconds: the server bounds each exchange by it, or refuses one
/// above its ceiling.
pub const REQUEST_TIMEOUT_HEADER: &str = "stockade-request-timeout-ms";

/// The tag of [`RemoteEnd`]'s frame.
const REMOTE_END: u8 = 0xe0;
/// Longest text a [`RemoteEnd`] carries.
pub const MAX_END_DETAIL: usize = 8 * 1024;

named_set! {
    /// Why a server ended a remote session's worker, or saw it end.
    pub enum EndCause, named as "end cause", on the wire as "end cause" {
        /// The worker exited or died by itself (its status says how).
        Exited = "exited" => 0,
        /// A memory limit ended the worker (its allocator's, or the
        /// server's supervisor's resident-memory ceiling).
        Memory = "memory" => 1,
        /// A turn ran past the server's request timeout.
        RequestTimeout = "request-timeout" => 2,
        /// The client was silent past the server's idle timeout.
        IdleTimeout = "idle-timeout" => 3,
        /// The server killed the worker: it broke the protocol, or a limit
        /// the host enforces ended it (the detail says which).
        Killed = "killed" => 4,
        /// The server refused the session's Configure (the detail says why).
        Refused = "refused" => 5,
        /// The server is shutting down.
        Shutdown = "shutdown" => 6,
    }
}

/// How the worker of a remote session ended, as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteEnd {
    pub cause: EndCause,
    /// The worker's exit status, when it exited.
    pub code: Option<i32>,
    /// The signal that ended the worker, when one did.
    pub signal: Option<i32>,
    /// What the server knows beyond the cause: the error it recorded.
    pub detail: Option<String>,
    /// The limit that ran out, for the timeouts, in microseconds.
    pub limit_us: Option<u64>,
    /// For a shutdown: the image the worker made of its session just
    /// before (engines that image themselves), from which the client can
    /// make a dump and go on elsewhere.
    pub image: Option<Vec<u8>>,
}

/// Encodes a [`RemoteEnd`] as a whole frame (header included).
pub fn encode_remote_end(end: &RemoteEnd, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    w.u8(REMOTE_END);
    w.closed(end.cause);
    write_opt_i32(&mut w, end.code);
    write_opt_i32(&mut w, end.signal);
    match &end.detail {
        Some(detail) => {
            w.bool(true);
            w.str(cut(detail, MAX_END_DETAIL))?;
        }
        None => w.bool(false),
    }
    w.opt_u64(end.limit_us);
    match &end.image {
        Some(image) => {
            w.bool(true);
            w.bytes(image)?;
        }
        None => w.bool(false),
    }
    finish_frame(w, limits)
}

/// Whether a payload (the frame without its header) is a [`RemoteEnd`].
pub fn is_remote_end(payload: &[u8]) -> bool {
    payload.first() == Some(&REMOTE_END)
}

/// Decodes a [`RemoteEnd`] payload.
pub fn decode_remote_end(payload: &[u8], limits: &WireLimits) -> Result<RemoteEnd, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let tag = r.u8()?;
    if tag != REMOTE_END {
        return Err(DecodeError::UnknownMessage { tag });
    }
    let end = RemoteEnd {
        cause: r.closed()?,
        code: r.opt(Reader::i32)?,
        signal: r.opt(Reader::i32)?,
        detail: r.opt(|r| r.str_capped("end detail", MAX_END_DETAIL))?,
        limit_us: r.opt_u64()?,
        image: r.opt(Reader::bytes)?,
    };
    r.finish()?;
    Ok(end)
}

fn write_opt_i32(w: &mut Writer, value: Option<i32>) {
    match value {
        Some(v) => {
            w.bool(true);
            w.i32(v);
        }
        None => w.bool(false),
    }
}

/// `text` cut to at most `max` bytes on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_end_round_trips_and_is_told_apart_from_responses()
    -> Result<(), Box<dyn std::error::Error>> {
        let limits = WireLimits::default();
        let end = RemoteEnd {
            cause: EndCause::RequestTimeout,
            code: None,
            signal: Some(9),
            detail: Some("é".repeat(MAX_END_DETAIL)),
            limit_us: Some(1_000_000),
            image: Some(vec![1, 2, 3]),
        };
        let frame = encode_remote_end(&end, &limits)?;
        let payload = &frame[crate::FRAME_HEADER_LEN..];
        assert!(is_remote_end(payload));
        let back = decode_remote_end(payload, &limits)?;
        assert_eq!(back.cause, end.cause);
        assert_eq!(back.signal, Some(9));
        assert!(back.detail.is_some_and(|d| d.len() <= MAX_END_DETAIL));
        assert_eq!(back.image, Some(vec![1, 2, 3]));
        assert!(crate::decode_response(payload, &limits).is_err());
        Ok(())
    }

    #[test]
    fn a_cut_remote_end_is_refused() -> Result<(), crate::EncodeError> {
        let limits = WireLimits::default();
        let end = RemoteEnd {
            cause: EndCause::Exited,
            code: Some(0),
            signal: None,
            detail: None,
            limit_us: None,
            image: None,
        };
        let frame = encode_remote_end(&end, &limits)?;
        let payload = &frame[crate::FRAME_HEADER_LEN..];
        assert!(decode_remote_end(&payload[..payload.len() - 1], &limits).is_err());
        Ok(())
    }
}
