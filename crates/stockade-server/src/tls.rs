//! TLS for `stockade serve` (`--tls-cert`, `--tls-key`): the certificate
//! chain and key read once at start. Each connection's handshake runs in
//! its own task under a deadline (`http.rs`), after the connection took
//! its place and inside the budget of connections that have shown no
//! token, so a client that stalls its handshake holds up nobody else's.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::ServeError;

/// Longest a TLS handshake may take.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's TLS configuration from PEM files.
pub fn config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, ServeError> {
    let bad = |file: &Path, why: String| ServeError::Tls {
        file: file.to_owned(),
        why,
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|err| bad(cert, err.to_string()))?;
    if chain.is_empty() {
        return Err(bad(cert, "it holds no certificate".into()));
    }
    let key_der = PrivateKeyDer::from_pem_file(key).map_err(|err| bad(key, err.to_string()))?;
    let mut config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|err| bad(cert, err.to_string()))?
            .with_no_client_auth()
            .with_single_cert(chain, key_der)
            .map_err(|err| bad(key, format!("does not go with the certificate: {err}")))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
