//! Sealed session dumps. A dump leaves the host as untrusted bytes (it is
//! stored in databases and sent through clients), so every dump is sealed:
//! encrypted and authenticated (XChaCha20-Poly1305) under a key the host
//! supplies, with a host-given context (a tenant or conversation id) bound
//! into it. A dump that was altered, truncated, sealed under another key or
//! moved to another context is refused before anything reads its body.
//!
//! The header stays readable without the key (magic, format version, the
//! engine and its version, the kind of dump, the body's size), so a host
//! can tell a dump from another version from a corrupt one. The header is
//! authenticated with the body: changing it is also refused.
//!
//! `keys` holds the host's keys (several, for rotation: the first seals,
//! any opens); `envelope` the format. What the body carries is the host
//! library's business; this crate only seals and opens bytes.

// Nothing a stored dump (an attacker's bytes) holds may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod envelope;
mod error;
mod keys;

pub use envelope::{FORMAT_VERSION, Header, Kind, MAX_NAME_BYTES, open, peek, seal};
pub use error::DumpError;
pub use keys::{MIN_KEY_BYTES, SealKeys};
