//! `stockade serve` over TLS: a `wss://` session with the server's private
//! CA named by the client, refused without it and to a plain client, and
//! TLS letting the server listen off loopback.

mod server;

use std::path::PathBuf;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use server::{Server, TOKEN};
use stockade::{Error, Language, Session, SessionOptions, Value};

/// A CA, and a certificate it signed for localhost and 127.0.0.1, as PEM
/// files in a directory of the test's own.
struct Certificates {
    dir: PathBuf,
}

impl Certificates {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("stockade-tls-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let server = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap()
            .signed_by(&server_key, &ca)
            .unwrap();
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        std::fs::write(dir.join("server.pem"), server.pem()).unwrap();
        std::fs::write(dir.join("server.key"), server_key.serialize_pem()).unwrap();
        Self { dir }
    }

    fn path(&self, file: &str) -> String {
        self.dir.join(file).display().to_string()
    }

    fn flags(&self) -> [String; 4] {
        [
            "--tls-cert".into(),
            self.path("server.pem"),
            "--tls-key".into(),
            self.path("server.key"),
        ]
    }
}

impl Drop for Certificates {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn start(certificates: &Certificates, listen: &str) -> (Server, server::TokenFile) {
    let flags = certificates.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    Server::with_tokens_at(listen, &flags)
}

#[test]
fn a_wss_session_trusts_the_ca_it_names_and_no_other() {
    let certificates = Certificates::new("trust");
    let (server, _tokens) = start(&certificates, "127.0.0.1:0");
    assert!(server.url.starts_with("wss://"), "{}", server.url);
    let options =
        || SessionOptions::new(Language::Python).remote(server.url.clone(), Some(TOKEN.to_owned()));
    let mut session = Session::new(options().remote_ca(certificates.path("ca.pem")))
        .expect("a wss:// session with the server's CA");
    assert_eq!(session.run("6 * 7").unwrap(), Value::Int(42));
    drop(session);
    match Session::new(options()) {
        Err(Error::Disconnected(text)) => assert!(text.contains("certificate"), "{text}"),
        other => panic!("a server no root vouches for was trusted: {other:?}"),
    }
    // A plain client gets no session from a TLS server.
    let plain = server.url.replacen("wss://", "ws://", 1);
    let attempt =
        Session::new(SessionOptions::new(Language::Python).remote(plain, Some(TOKEN.into())));
    assert!(
        matches!(attempt, Err(Error::Disconnected(_))),
        "{attempt:?}"
    );
    assert!(server.wait_for_workers(0));
}

#[test]
fn with_tls_the_server_may_listen_off_loopback() {
    let certificates = Certificates::new("wide");
    let (server, _tokens) = start(&certificates, "0.0.0.0:0");
    let mut session = Session::new(
        SessionOptions::new(Language::JavaScript)
            .remote(server.url.clone(), Some(TOKEN.to_owned()))
            .remote_ca(certificates.path("ca.pem")),
    )
    .expect("a wss:// session");
    assert_eq!(session.run("40 + 2").unwrap(), Value::Int(42));
}

#[test]
fn a_key_that_does_not_go_with_its_certificate_is_refused_at_start() {
    let certificates = Certificates::new("mismatch");
    let other = KeyPair::generate().unwrap();
    let wrong_key = certificates.dir.join("other.key");
    std::fs::write(&wrong_key, other.serialize_pem()).unwrap();
    let output = std::process::Command::new(server::STOCKADE)
        .args(["serve", "--listen", "127.0.0.1:0", "--tls-cert"])
        .arg(certificates.path("server.pem"))
        .arg("--tls-key")
        .arg(&wrong_key)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("TLS") && stderr.contains("other.key"),
        "{stderr}"
    );
}
