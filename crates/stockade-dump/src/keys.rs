//! The host's sealing keys: at least one, each at least 32 bytes; the
//! first seals, any of them opens (so keys can rotate). What seals is not
//! the key itself but a key derived from it for this one purpose (HKDF with
//! SHA-256), so a host may reuse a master secret without the dump cipher
//! ever holding it.

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::error::DumpError;

/// The shortest key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

/// Binds derived keys to dump sealing and to this format's first version.
const SALT: &[u8] = b"stockade dump seal v1";
const INFO: &[u8] = b"xchacha20-poly1305 key";

/// Keys that seal (the first) and open (any) dumps.
pub struct SealKeys {
    sealing: Zeroizing<[u8; 32]>,
    /// Keys that only open: older ones, kept while their dumps live.
    older: Vec<Zeroizing<[u8; 32]>>,
}

impl std::fmt::Debug for SealKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealKeys({} keys, redacted)", 1 + self.older.len())
    }
}

impl SealKeys {
    /// Checks and derives `keys`: there must be at least one, and each must
    /// have at least [`MIN_KEY_BYTES`] bytes.
    pub fn new<K: AsRef<[u8]>>(keys: &[K]) -> Result<Self, DumpError> {
        if keys.is_empty() {
            return Err(DumpError::Keys(
                "no key given: dumps are always sealed, so give at least one key".into(),
            ));
        }
        let mut derived = Vec::with_capacity(keys.len());
        for (index, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            if key.len() < MIN_KEY_BYTES {
                return Err(DumpError::Keys(format!(
                    "key {index} has {} bytes; a key needs at least {MIN_KEY_BYTES} random bytes",
                    key.len()
                )));
            }
            let mut out = Zeroizing::new([0u8; 32]);
            Hkdf::<Sha256>::new(Some(SALT), key)
                .expand(INFO, out.as_mut())
                .map_err(|_| DumpError::Keys("cannot derive a sealing key".into()))?;
            derived.push(out);
        }
        let mut derived = derived.into_iter();
        let Some(sealing) = derived.next() else {
            return Err(DumpError::Keys("no key given".into()));
        };
        Ok(Self {
            sealing,
            older: derived.collect(),
        })
    }

    /// The key that seals.
    pub(crate) fn sealing(&self) -> &[u8; 32] {
        &self.sealing
    }

    /// Every key that may open, the sealing one first.
    pub(crate) fn opening(&self) -> impl Iterator<Item = &[u8; 32]> {
        std::iter::once(&*self.sealing).chain(self.older.iter().map(|key| &**key))
    }
}
