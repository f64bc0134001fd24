//! Errors of the codec: what was wrong with the bytes, or with the value.

use thiserror::Error;

/// Why a frame or value could not be decoded. Every variant names the bound
/// or rule that was broken, and the offset where the decoder stood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    #[error("frame of {len} bytes exceeds the {max}-byte frame limit")]
    FrameTooLarge { len: u64, max: usize },
    #[error("empty frame")]
    EmptyFrame,
    #[error("truncated at byte {at}: needed {needed} more bytes")]
    Truncated { at: usize, needed: usize },
    #[error("unknown message tag 0x{tag:02x}")]
    UnknownMessage { tag: u8 },
    #[error("unknown value tag 0x{tag:02x} at byte {at}")]
    UnknownValue { tag: u8, at: usize },
    #[error("unknown {what} 0x{code:02x} at byte {at}")]
    UnknownCode {
        what: &'static str,
        code: u8,
        at: usize,
    },
    #[error("nesting deeper than {max} containers at byte {at}")]
    TooDeep { max: u32, at: usize },
    #[error("more than {max} values in one frame")]
    TooManyNodes { max: u64 },
    #[error("decoded values would exceed the {max}-byte budget")]
    BudgetExceeded { max: u64 },
    #[error("invalid UTF-8 in a string at byte {at}")]
    InvalidUtf8 { at: usize },
    #[error("invalid {what} at byte {at}: {detail}")]
    Invalid {
        what: &'static str,
        at: usize,
        detail: String,
    },
    #[error("unhashable {kind} used as a dict key or set member at byte {at}")]
    Unhashable { kind: &'static str, at: usize },
    #[error("{count} trailing bytes after the message")]
    TrailingBytes { count: usize },
}

/// Why a value or message could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EncodeError {
    #[error("encoded frame would exceed the {max}-byte frame limit")]
    FrameTooLarge { max: usize },
    #[error("value nested deeper than {max} containers")]
    TooDeep { max: u32 },
    #[error("value has more than {max} parts")]
    TooManyNodes { max: u64 },
    #[error("value would exceed the {max}-byte decoded budget")]
    BudgetExceeded { max: u64 },
    #[error("{0}")]
    Invalid(String),
    #[error("unhashable {kind} used as a dict key or set member")]
    Unhashable { kind: &'static str },
}
