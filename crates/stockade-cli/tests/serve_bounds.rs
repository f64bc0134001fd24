//! What one client, or the guest code it sends, can cost a server of
//! sessions (docs/security.md, "Remote sessions"): a worker's values are
//! held to the session's `max_result_bytes` while the server reads them,
//! so a guest's huge result costs the server no more than a local host
//! would pay, and the client is told it was too large as a local host
//! tells its caller.

mod server;

use server::{Server, TOKEN};
use stockade::{Error, HostError, Interpreter, Language, Session, SessionOptions, Value};

fn remote_python(server: &Server) -> SessionOptions {
    SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .remote(server.url.clone(), Some(TOKEN.to_owned()))
}

/// The most the server's peak resident memory may rise under an attack.
const SERVER_RISE_KIB: u64 = 200 * 1024;

#[test]
fn a_guests_sixteen_million_element_result_costs_the_server_no_more_than_its_budget() {
    let (server, _tokens) = Server::with_tokens(&[]);
    // The server's own figure once a session has run: what it costs idle.
    let mut warm = Session::new(remote_python(&server)).expect("a remote session starts");
    assert_eq!(warm.run("1 + 1").unwrap(), Value::Int(2));
    let idle = server.peak_rss_kib();
    // Two sessions at once, each returning sixteen million Nones (about
    // 16 MB on the wire, 760 MiB built as values).
    let attackers: Vec<_> = (0..2)
        .map(|_| {
            let options = remote_python(&server);
            std::thread::spawn(move || {
                let mut session = Session::new(options).expect("a remote session starts");
                let refused = session.run("[None] * 16_000_000");
                let after = session.run("'still here'");
                (refused, after)
            })
        })
        .collect();
    for attacker in attackers {
        let (refused, after) = attacker.join().unwrap();
        match refused {
            Err(Error::ResultTooLarge { limit }) => {
                assert_eq!(limit, SessionOptions::DEFAULT_MAX_RESULT_BYTES);
            }
            other => panic!("expected ResultTooLarge, got {other:?}"),
        }
        assert_eq!(after.unwrap(), Value::Str("still here".into()));
    }
    let peak = server.peak_rss_kib();
    assert!(
        peak <= idle + SERVER_RISE_KIB,
        "the server's peak rose from {idle} KiB to {peak} KiB"
    );
    assert_eq!(warm.run("2 + 2").unwrap(), Value::Int(4));
}

#[test]
fn the_server_holds_a_worker_to_the_clients_max_result_bytes_or_its_own_ceiling() {
    // A client's own limit, below the server's ceiling.
    let (server, _tokens) = Server::with_tokens(&[]);
    let mut session =
        Session::new(remote_python(&server).max_result_bytes(1 << 20)).expect("starts");
    match session.run("'x' * 2_000_000") {
        Err(Error::ResultTooLarge { limit }) => assert_eq!(limit, 1 << 20),
        other => panic!("expected ResultTooLarge, got {other:?}"),
    }
    assert_eq!(
        session.run("len('x' * 500_000)").unwrap(),
        Value::Int(500_000)
    );
    // A server whose ceiling is below the client's: the client is held
    // to the server's, and told that figure.
    let (server, _tokens) = Server::with_tokens(&["--max-result-bytes", "1M"]);
    let mut session = Session::new(remote_python(&server)).expect("starts");
    match session.run("'x' * 2_000_000") {
        Err(Error::ResultTooLarge { limit }) => assert_eq!(limit, 1 << 20),
        other => panic!("expected ResultTooLarge, got {other:?}"),
    }
    // A host function's arguments past the limit: the guest gets an
    // exception it can catch, the call is never made, the session lives.
    session.register_function("save", |_| Err(HostError::new("RuntimeError", "called")));
    let caught = session
        .run(
            "try:\n    save('x' * 2_000_000)\n    r = 'sent'\nexcept ValueError as e:\n    r = str(e)\nr",
        )
        .unwrap();
    let Value::Str(caught) = caught else {
        panic!("expected the message, got {caught:?}");
    };
    assert!(caught.contains("max_result_bytes"), "{caught}");
    assert_eq!(
        session.run("'still here'").unwrap(),
        Value::Str("still here".into())
    );
}
