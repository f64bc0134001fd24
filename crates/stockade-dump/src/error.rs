//! Why a dump could not be sealed or opened.

use thiserror::Error;

/// Every way sealing or opening a dump can fail.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DumpError {
    /// Not a dump, truncated, altered, sealed under none of the keys, or
    /// sealed for another context: which, the message says as far as it
    /// can be known without trusting the bytes.
    #[error("dump rejected: {0}")]
    Rejected(String),
    /// A dump written by another version of the format.
    #[error("dump format version {found}, but this build reads version {expected}")]
    VersionMismatch { found: u16, expected: u16 },
    /// The keys cannot seal or open anything (none given, or one too short).
    #[error("dump keys: {0}")]
    Keys(String),
    /// Sealing would make a dump larger than the caller allows.
    #[error("the dump would take {size} bytes, more than the {limit} allowed")]
    TooLarge { size: u64, limit: u64 },
    /// A header field cannot be written (a name too long for its field).
    #[error("dump header: {0}")]
    Header(String),
}
