//! The byte stream under a remote session's WebSocket: plain TCP, or TLS
//! (rustls on ring) that trusts the system's roots and any CA file the
//! session names. Deadlines are set on the TCP stream beneath either.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use crate::error::Error;

#[derive(Debug)]
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Stream {
    /// The TCP stream beneath, where the deadlines are set.
    pub(crate) fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(tcp) => tcp,
            Stream::Tls(tls) => &tls.sock,
        }
    }

    /// TLS over `tcp` to `host`, trusting the system's roots and `ca_file`.
    /// The handshake happens with the WebSocket's first bytes.
    pub(crate) fn tls(tcp: TcpStream, host: &str, ca_file: Option<&Path>) -> Result<Self, Error> {
        let name = ServerName::try_from(host.to_owned()).map_err(|_| {
            Error::invalid_option(format!("remote: {host:?} is not a name TLS can check"))
        })?;
        let connection = ClientConnection::new(config(ca_file)?, name)
            .map_err(|err| Error::Disconnected(format!("cannot start TLS to {host}: {err}")))?;
        Ok(Stream::Tls(Box::new(StreamOwned::new(connection, tcp))))
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.read(buf),
            Stream::Tls(tls) => tls.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(tcp) => tcp.write(buf),
            Stream::Tls(tls) => tls.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(tcp) => tcp.flush(),
            Stream::Tls(tls) => tls.flush(),
        }
    }
}

/// Client configurations made so far, by CA file: reading the system's
/// roots costs milliseconds, and a host makes many sessions.
static CONFIGS: Mutex<Vec<(Option<PathBuf>, Arc<ClientConfig>)>> = Mutex::new(Vec::new());

fn config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, Error> {
    let key = ca_file.map(Path::to_path_buf);
    let mut configs = CONFIGS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, config)) = configs.iter().find(|(k, _)| *k == key) {
        return Ok(Arc::clone(config));
    }
    let mut roots = RootCertStore::empty();
    // Roots the system cannot give (none installed, one unreadable) leave
    // the CA file, if any, to vouch for the server.
    let native = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(native.certs);
    if let Some(file) = ca_file {
        let certs = CertificateDer::pem_file_iter(file)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|err| {
                Error::invalid_option(format!(
                    "remote_ca: cannot read certificates from {}: {err}",
                    file.display()
                ))
            })?;
        if certs.is_empty() {
            return Err(Error::invalid_option(format!(
                "remote_ca: {} holds no certificate",
                file.display()
            )));
        }
        for cert in certs {
            roots.add(cert).map_err(|err| {
                Error::invalid_option(format!(
                    "remote_ca: a certificate in {} cannot be a root: {err}",
                    file.display()
                ))
            })?;
        }
    }
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|err| Error::invalid_option(format!("remote: TLS: {err}")))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    let config = Arc::new(config);
    configs.push((key, Arc::clone(&config)));
    Ok(config)
}
