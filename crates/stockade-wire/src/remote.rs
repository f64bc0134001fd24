//! The remote hop: what a server of sessions (`stockade serve`) adds to the
//! frames it relays between a client and a worker. Every message of the hop
//! is one WebSocket binary message holding one whole frame (header
//! included). Requests and responses cross unchanged; the server adds one
//! message of its own, [`RemoteEnd`], telling the client how the worker
//! ended, because the client cannot see the worker's exit status or the
//! server's supervisor; and [`RemoteTooLarge`], in place of a worker's
//! message the server read past rather than hold (its values ran past the
//! session's `max_result_bytes` there). Their tags are outside the
//! responses' range, so no worker frame (which the server decodes before
//! relaying) can be one.

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::limits::WireLimits;
use crate::message::{MAX_NAME, ResponseHead, check_payload, finish_frame, start_frame};
use crate::names::named_set;

/// The path a server of sessions upgrades to WebSocket.
pub const SESSION_PATH: &str = "/v1/session";
/// The upgrade's header naming the client's request timeout, in whole
/// milliseconds: the server bounds each exchange by it, or refuses one
/// above its ceiling.
pub const REQUEST_TIMEOUT_HEADER: &str = "stockade-request-timeout-ms";

/// The upgrade's header naming the most a value from the worker may take
/// in the client (its `max_result_bytes`), in bytes as the wire counts
/// them: the server holds each of the worker's frames to it (at most its
/// own ceiling), and answers the upgrade with the figure it holds them to.
pub const MAX_RESULT_BYTES_HEADER: &str = "stockade-max-result-bytes";

/// The tag of [`RemoteEnd`]'s frame.
const REMOTE_END: u8 = 0xe0;
/// The tag of [`RemoteTooLarge`]'s frame.
const REMOTE_TOO_LARGE: u8 = 0xe1;
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

/// How `peek_response_head` names an Image and an Output, the messages
/// besides those with a head of their own that a [`RemoteTooLarge`] may
/// stand for.
const IMAGE: &str = "Image";
const OUTPUT: &str = "Output";

/// A worker's message that the server read past, unbuilt, because its
/// values would take more than the session's `max_result_bytes` there: its
/// head, so that the client answers it as a local host answers a message
/// it read past (a result is `ResultTooLarge`, a call's arguments an
/// exception the guest can catch, a session's image a failed dump, an
/// output a note on stderr), and its encoded size. Only a result, a
/// host-function call, an OS call, an image or an output (protocol 6) is
/// ever sent so; any other message that large ends the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteTooLarge {
    pub head: ResponseHead,
    pub encoded: u64,
}

/// Encodes a [`RemoteTooLarge`] as a whole frame (header included); a head
/// other than a result, a call, an OS call or an image cannot be sent.
pub fn encode_remote_too_large(
    too_large: &RemoteTooLarge,
    limits: &WireLimits,
) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    w.u8(REMOTE_TOO_LARGE);
    let name = match &too_large.head {
        ResponseHead::Complete => {
            w.u8(0);
            None
        }
        ResponseHead::Call { call_id, name } => {
            w.u8(1);
            w.u32(*call_id);
            name.as_deref()
        }
        ResponseHead::OsCall { name } => {
            w.u8(2);
            name.as_deref()
        }
        ResponseHead::Other(IMAGE) => {
            w.u8(3);
            None
        }
        ResponseHead::Other(OUTPUT) => {
            w.u8(4);
            None
        }
        ResponseHead::Other(what) => {
            return Err(EncodeError::Invalid(format!(
                "{what} cannot be sent as too large"
            )));
        }
    };
    if matches!(
        too_large.head,
        ResponseHead::Call { .. } | ResponseHead::OsCall { .. }
    ) {
        match name {
            Some(name) => {
                w.bool(true);
                w.str(cut(name, MAX_NAME))?;
            }
            None => w.bool(false),
        }
    }
    w.u64(too_large.encoded);
    finish_frame(w, limits)
}

/// Whether a payload (the frame without its header) is a [`RemoteTooLarge`].
pub fn is_remote_too_large(payload: &[u8]) -> bool {
    payload.first() == Some(&REMOTE_TOO_LARGE)
}

/// Decodes a [`RemoteTooLarge`] payload.
pub fn decode_remote_too_large(
    payload: &[u8],
    limits: &WireLimits,
) -> Result<RemoteTooLarge, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let tag = r.u8()?;
    if tag != REMOTE_TOO_LARGE {
        return Err(DecodeError::UnknownMessage { tag });
    }
    let head = match r.u8()? {
        0 => ResponseHead::Complete,
        1 => {
            let call_id = r.u32()?;
            ResponseHead::Call {
                call_id,
                name: r.opt(|r| r.str_capped("function name", MAX_NAME))?,
            }
        }
        2 => ResponseHead::OsCall {
            name: r.opt(|r| r.str_capped("OS call name", MAX_NAME))?,
        },
        3 => ResponseHead::Other(IMAGE),
        4 => ResponseHead::Other(OUTPUT),
        kind => return Err(DecodeError::UnknownMessage { tag: kind }),
    };
    let too_large = RemoteTooLarge {
        head,
        encoded: r.u64()?,
    };
    r.finish()?;
    Ok(too_large)
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
    fn a_remote_too_large_round_trips_for_each_head_it_may_carry()
    -> Result<(), Box<dyn std::error::Error>> {
        let limits = WireLimits::default();
        for head in [
            ResponseHead::Complete,
            ResponseHead::Call {
                call_id: 7,
                name: Some("fetch".into()),
            },
            ResponseHead::Call {
                call_id: 8,
                name: None,
            },
            ResponseHead::OsCall {
                name: Some("Path.write_text".into()),
            },
            ResponseHead::Other("Image"),
            ResponseHead::Other("Output"),
        ] {
            let too_large = RemoteTooLarge {
                head,
                encoded: 1 << 30,
            };
            let frame = encode_remote_too_large(&too_large, &limits)?;
            let payload = &frame[crate::FRAME_HEADER_LEN..];
            assert!(is_remote_too_large(payload) && !is_remote_end(payload));
            assert_eq!(decode_remote_too_large(payload, &limits)?, too_large);
            assert!(decode_remote_too_large(&payload[..payload.len() - 1], &limits).is_err());
            assert!(crate::decode_response(payload, &limits).is_err());
        }
        let other = RemoteTooLarge {
            head: ResponseHead::Other("Print"),
            encoded: 1,
        };
        assert!(encode_remote_too_large(&other, &limits).is_err());
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
