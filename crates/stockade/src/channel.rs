//! The channel to a worker, whether a process of this host's or one on a
//! server of sessions: how receiving and sending fail, how a worker ended,
//! and the budgeted decoding of its responses, which both ends share.

use stockade_wire::{
    DecodeError, Response, ResponseHead, WireLimits, decode_response, peek_response_head,
};

/// Decoded bytes every message may take whatever the value limit: a
/// 64 KiB Print, an Error's 64 KiB message and 64 KiB traceback, with room.
const MESSAGE_ALLOWANCE: u64 = 256 * 1024;

/// Why no response arrived.
#[derive(Debug)]
pub(crate) enum RecvError {
    /// The deadline passed first.
    Deadline,
    /// The worker closed its output.
    Closed,
    /// The worker sent bytes that are not a valid frame or response.
    Malformed(DecodeError),
    /// Reading the pipe failed.
    Io(std::io::Error),
    /// A frame's values would take more than the value limit: the frame
    /// was read past (or decoded no further) and the stream is intact.
    TooLarge { head: ResponseHead, encoded: u64 },
    /// This process is a fork of the one that started the worker.
    Forked,
}

/// Why a request could not be written.
#[derive(Debug)]
pub(crate) enum SendError {
    /// The worker stopped reading until the deadline passed.
    Stalled,
    /// The worker's input is closed.
    Closed,
    Io(std::io::Error),
    /// This process is a fork of the one that started the worker.
    Forked,
}

/// How the process ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

/// The decoded-bytes budget a message gets when values may take `bytes`:
/// never less than `MESSAGE_ALLOWANCE`, never more than the wire's.
pub(crate) fn value_budget(bytes: u64) -> u64 {
    bytes.clamp(MESSAGE_ALLOWANCE, WireLimits::DEFAULT_MAX_DECODED_BYTES)
}

/// Decodes one response; a frame whose values run past the budget is
/// reported with its head (read only then), so the session can answer it.
pub(crate) fn decode(payload: &[u8], limits: &WireLimits) -> Result<Response, RecvError> {
    decode_response(payload, limits).map_err(|err| match err {
        DecodeError::BudgetExceeded { .. } | DecodeError::TooManyNodes { .. } => {
            let end = payload.len().min(stockade_wire::SKIPPED_HEAD_LEN);
            RecvError::TooLarge {
                head: peek_response_head(&payload[..end]),
                encoded: payload.len() as u64,
            }
        }
        err => RecvError::Malformed(err),
    })
}
