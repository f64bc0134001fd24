//! The bearer tokens a server accepts: read from a file (one a line, blank
//! lines and `#` comments skipped), read again on SIGHUP, and checked in
//! time that does not depend on how much of a token a guess got right:
//! both sides are hashed, and every known hash is compared in full.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use sha2::{Digest, Sha256};

use crate::ServeError;

/// A token's identity for counting its sessions: its hash, never the token.
pub type TokenId = [u8; 32];

/// Shortest token a file may hold: a guessable one is refused at load.
const MIN_TOKEN_LEN: usize = 16;

#[derive(Debug)]
pub struct Tokens {
    file: Option<PathBuf>,
    hashes: RwLock<Vec<TokenId>>,
}

impl Tokens {
    /// No file: every connection is let in (loopback only; `serve` checks).
    pub fn open() -> Self {
        Self {
            file: None,
            hashes: RwLock::new(Vec::new()),
        }
    }

    /// The tokens in `file`.
    pub fn from_file(file: &Path) -> Result<Self, ServeError> {
        let tokens = Self {
            file: Some(file.to_owned()),
            hashes: RwLock::new(Vec::new()),
        };
        tokens.reload()?;
        Ok(tokens)
    }

    /// Whether connections must present a token.
    pub fn required(&self) -> bool {
        self.file.is_some()
    }

    /// Reads the file again; on an error the tokens held stay as they were.
    pub fn reload(&self) -> Result<usize, ServeError> {
        let Some(file) = &self.file else {
            return Ok(0);
        };
        let text = std::fs::read_to_string(file).map_err(|err| ServeError::Tokens {
            file: file.clone(),
            why: err.to_string(),
        })?;
        let mut hashes = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let token = line.trim();
            if token.is_empty() || token.starts_with('#') {
                continue;
            }
            if token.len() < MIN_TOKEN_LEN {
                return Err(ServeError::Tokens {
                    file: file.clone(),
                    why: format!(
                        "line {} holds a token shorter than {MIN_TOKEN_LEN} characters",
                        number + 1
                    ),
                });
            }
            hashes.push(hash(token));
        }
        if hashes.is_empty() {
            return Err(ServeError::Tokens {
                file: file.clone(),
                why: "it holds no token".into(),
            });
        }
        let count = hashes.len();
        *self.hashes.write().unwrap_or_else(|e| e.into_inner()) = hashes;
        Ok(count)
    }

    /// The identity of the token an `Authorization` header presents, if it
    /// is one of ours; with no token file, every caller is one anonymous
    /// identity.
    pub fn check(&self, authorization: Option<&[u8]>) -> Option<TokenId> {
        if !self.required() {
            return Some([0; 32]);
        }
        // The scheme's name is case-insensitive (RFC 9110).
        let header = authorization?;
        let (scheme, presented) = header.split_at_checked(7)?;
        if !scheme.eq_ignore_ascii_case(b"bearer ") {
            return None;
        }
        let presented = hash_bytes(presented.trim_ascii());
        let hashes = self.hashes.read().unwrap_or_else(|e| e.into_inner());
        let mut found = None;
        for known in hashes.iter() {
            if constant_time_eq(known, &presented) {
                found = Some(*known);
            }
        }
        found
    }
}

fn hash(token: &str) -> TokenId {
    hash_bytes(token.as_bytes())
}

fn hash_bytes(bytes: &[u8]) -> TokenId {
    Sha256::digest(bytes).into()
}

/// Compares every byte, whatever the first difference.
fn constant_time_eq(a: &TokenId, b: &TokenId) -> bool {
    let mut difference = 0u8;
    for (x, y) in a.iter().zip(b) {
        difference |= x ^ y;
    }
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> std::io::Result<tempfile_path::Path> {
        tempfile_path::Path::with(text)
    }

    /// A file in the test's temporary directory, removed on drop.
    mod tempfile_path {
        pub struct Path(pub std::path::PathBuf);
        impl Path {
            pub fn with(text: &str) -> std::io::Result<Self> {
                static NEXT: std::sync::atomic::AtomicUsize =
                    std::sync::atomic::AtomicUsize::new(0);
                let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let path = std::env::temp_dir()
                    .join(format!("stockade-tokens-{}-{n}", std::process::id()));
                std::fs::write(&path, text)?;
                Ok(Self(path))
            }
        }
        impl Drop for Path {
            fn drop(&mut self) {
                let _ = std::fs::remove_file(&self.0);
            }
        }
    }

    #[test]
    fn only_a_listed_bearer_token_is_let_in() -> Result<(), Box<dyn std::error::Error>> {
        let f = file("# the team's\nthe-first-token-0123\n\nthe-second-token-456\n")?;
        let tokens = Tokens::from_file(&f.0)?;
        assert!(tokens.check(Some(b"Bearer the-first-token-0123")).is_some());
        assert!(tokens.check(Some(b"Bearer the-second-token-456")).is_some());
        assert_ne!(
            tokens.check(Some(b"Bearer the-first-token-0123")),
            tokens.check(Some(b"Bearer the-second-token-456"))
        );
        assert!(tokens.check(Some(b"Bearer the-first-token-012")).is_none());
        assert!(tokens.check(Some(b"the-first-token-0123")).is_none());
        assert!(tokens.check(Some(b"bearer the-first-token-0123")).is_some());
        assert!(tokens.check(Some(b"Basic the-first-token-0123")).is_none());
        assert!(tokens.check(None).is_none());
        Ok(())
    }

    #[test]
    fn a_short_token_or_an_empty_file_is_refused_at_load() -> std::io::Result<()> {
        let short = file("short\n")?;
        assert!(Tokens::from_file(&short.0).is_err());
        let empty = file("# nothing here yet\n\n\n")?;
        assert!(Tokens::from_file(&empty.0).is_err());
        Ok(())
    }
}
