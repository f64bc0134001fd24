//! Where a remote session's worker runs: the server's URL, the token and
//! the certificates trusted for it, as options; `remote/` is the
//! connection itself.

use std::path::PathBuf;

/// Where a remote session's worker runs, and the token that lets it in.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Remote {
    /// `ws://HOST:PORT` (a path other than `/` is used as given).
    pub url: String,
    /// The bearer token the server checks; None sends none.
    pub token: Option<String>,
    /// Certificates (PEM) trusted for `wss://` besides the system's roots:
    /// a private CA's.
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A token never reaches a log.
        f.debug_struct("Remote")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("ca_file", &self.ca_file)
            .finish()
    }
}
