//! The sealed envelope: a header anyone can read, then the body encrypted
//! and authenticated together with the header and the host's context.
//!
//! ```text
//! magic        8 bytes   "STKDUMP\0"
//! version      u16 LE    FORMAT_VERSION
//! kind         u8        1 idle, 2 suspended
//! engine       u8 length, then UTF-8 (at most MAX_NAME_BYTES)
//! engine ver.  u8 length, then UTF-8 (at most MAX_NAME_BYTES)
//! body length  u64 LE    bytes of ciphertext, tag included
//! nonce        24 bytes  random, one per dump
//! body         XChaCha20-Poly1305(key, nonce, plaintext, aad = header || context)
//! ```
//!
//! Opening checks, in order, what can be checked without trusting the
//! bytes: the magic (else "not a dump"), the version (else
//! `VersionMismatch`, naming both), the header's shape and the body's
//! length (else "truncated" or "trailing bytes"), and then the tag under
//! each key. Only a body that authenticates is decrypted and returned.

use chacha20poly1305::aead::{Aead, Generate, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::error::DumpError;
use crate::keys::SealKeys;

const MAGIC: &[u8; 8] = b"STKDUMP\0";

/// The envelope format this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;

/// The longest engine name or version the header holds, in bytes.
pub const MAX_NAME_BYTES: usize = 64;

const NONCE_BYTES: usize = 24;
const TAG_BYTES: usize = 16;

/// What a dump holds: a session between feeds, or one suspended at a cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Idle,
    Suspended,
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Kind::Idle => 1,
            Kind::Suspended => 2,
        }
    }

    fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            1 => Some(Kind::Idle),
            2 => Some(Kind::Suspended),
            _ => None,
        }
    }

    /// The kind in words: "idle", "suspended".
    pub fn name(self) -> &'static str {
        match self {
            Kind::Idle => "idle",
            Kind::Suspended => "suspended",
        }
    }
}

/// The part of a dump readable without the key (and authenticated with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    /// The engine that made the session: "monty", "cpython", "quickjs".
    pub engine: String,
    /// That engine's version, which a restoring worker must match.
    pub engine_version: String,
    /// Bytes of the sealed body, tag included.
    pub body_bytes: u64,
}

impl Header {
    fn write(&self, nonce: &[u8; NONCE_BYTES]) -> Result<Vec<u8>, DumpError> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(self.kind.byte());
        for (what, text) in [
            ("engine", &self.engine),
            ("engine version", &self.engine_version),
        ] {
            let len = u8::try_from(text.len())
                .ok()
                .filter(|len| usize::from(*len) <= MAX_NAME_BYTES)
                .ok_or_else(|| {
                    DumpError::Header(format!(
                        "the {what} takes {} bytes; at most {MAX_NAME_BYTES} fit",
                        text.len()
                    ))
                })?;
            out.push(len);
            out.extend_from_slice(text.as_bytes());
        }
        out.extend_from_slice(&self.body_bytes.to_le_bytes());
        out.extend_from_slice(nonce);
        Ok(out)
    }
}

/// Reads the header of `bytes` without a key (its fields are not yet
/// authenticated: trust them only to decide what to do next).
pub fn peek(bytes: &[u8]) -> Result<Header, DumpError> {
    parse(bytes).map(|parsed| parsed.header)
}

/// A parsed envelope: its header, and where its parts lie.
struct Parsed<'a> {
    header: Header,
    /// The header's bytes, nonce included: authenticated with the body.
    header_bytes: &'a [u8],
    nonce: &'a [u8],
    body: &'a [u8],
}

fn rejected(why: impl Into<String>) -> DumpError {
    DumpError::Rejected(why.into())
}

/// Reads fields off the front of a byte slice.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DumpError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len());
        let Some(end) = end else {
            return Err(rejected(format!(
                "truncated: the header ends inside its {what} ({} bytes in all)",
                self.bytes.len()
            )));
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn name(&mut self, what: &str) -> Result<String, DumpError> {
        let len = usize::from(self.take(1, what)?[0]);
        if len > MAX_NAME_BYTES {
            return Err(rejected(format!("the header's {what} is {len} bytes long")));
        }
        let text = self.take(len, what)?;
        String::from_utf8(text.to_vec())
            .map_err(|_| rejected(format!("the header's {what} is not UTF-8")))
    }
}

fn parse(bytes: &[u8]) -> Result<Parsed<'_>, DumpError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(rejected(
            "not a stockade dump (its first bytes are not the dump magic)",
        ));
    }
    let mut cursor = Cursor {
        bytes,
        at: MAGIC.len(),
    };
    let version = cursor.take(2, "format version")?;
    let version = u16::from_le_bytes([version[0], version[1]]);
    if version != FORMAT_VERSION {
        return Err(DumpError::VersionMismatch {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let kind_byte = cursor.take(1, "kind")?[0];
    let kind = Kind::from_byte(kind_byte).ok_or_else(|| {
        rejected(format!(
            "the header's kind {kind_byte} is not a kind of dump"
        ))
    })?;
    let engine = cursor.name("engine")?;
    let engine_version = cursor.name("engine version")?;
    let length = cursor.take(8, "body length")?;
    let mut word = [0u8; 8];
    word.copy_from_slice(length);
    let body_bytes = u64::from_le_bytes(word);
    let nonce = cursor.take(NONCE_BYTES, "nonce")?;
    let header_bytes = &bytes[..cursor.at];
    let rest = &bytes[cursor.at..];
    let present = rest.len() as u64;
    if present < body_bytes {
        return Err(rejected(format!(
            "truncated: the header promises a {body_bytes}-byte body, {present} bytes are present"
        )));
    }
    if present > body_bytes {
        return Err(rejected(format!(
            "{} trailing bytes after the {body_bytes}-byte body",
            present - body_bytes
        )));
    }
    if rest.len() < TAG_BYTES {
        return Err(rejected("the body is shorter than its authentication tag"));
    }
    Ok(Parsed {
        header: Header {
            kind,
            engine,
            engine_version,
            body_bytes,
        },
        header_bytes,
        nonce,
        body: rest,
    })
}

/// Seals `plaintext` as a dump of `kind` made by `engine` (at
/// `engine_version`), bound to `context`, under the first of `keys`. A
/// dump larger than `limit` bytes is refused.
pub fn seal(
    keys: &SealKeys,
    context: &[u8],
    kind: Kind,
    engine: &str,
    engine_version: &str,
    plaintext: &[u8],
    limit: u64,
) -> Result<Vec<u8>, DumpError> {
    let nonce = XNonce::try_generate().map_err(|err| {
        DumpError::Keys(format!("the operating system gave no random bytes: {err}"))
    })?;
    let body_bytes = plaintext.len() as u64 + TAG_BYTES as u64;
    let header = Header {
        kind,
        engine: engine.to_owned(),
        engine_version: engine_version.to_owned(),
        body_bytes,
    };
    let mut nonce_bytes = [0u8; NONCE_BYTES];
    nonce_bytes.copy_from_slice(&nonce);
    let mut out = header.write(&nonce_bytes)?;
    let size = out.len() as u64 + body_bytes;
    if size > limit {
        return Err(DumpError::TooLarge { size, limit });
    }
    let aad = [out.as_slice(), context].concat();
    let cipher = XChaCha20Poly1305::new(keys.sealing().into());
    let body = cipher
        .encrypt(
            &nonce,
            Payload {
                msg: plaintext,
                aad: &aad,
            },
        )
        .map_err(|_| DumpError::TooLarge { size, limit })?;
    out.extend_from_slice(&body);
    Ok(out)
}

/// Opens `bytes`, sealed for `context` under any of `keys`: its header and
/// its plaintext body.
pub fn open(keys: &SealKeys, context: &[u8], bytes: &[u8]) -> Result<(Header, Vec<u8>), DumpError> {
    let parsed = parse(bytes)?;
    let nonce = XNonce::try_from(parsed.nonce).map_err(|_| rejected("the nonce is cut short"))?;
    let aad = [parsed.header_bytes, context].concat();
    for key in keys.opening() {
        let cipher = XChaCha20Poly1305::new(key.into());
        let payload = Payload {
            msg: parsed.body,
            aad: &aad,
        };
        if let Ok(plaintext) = cipher.decrypt(&nonce, payload) {
            return Ok((parsed.header, plaintext));
        }
    }
    Err(rejected(
        "it was not sealed under any of the given keys for this context, or it was altered after sealing",
    ))
}
