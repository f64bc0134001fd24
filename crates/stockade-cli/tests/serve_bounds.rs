//! What one client, or the guest code it sends, can cost a server of
//! sessions (docs/security.md, "Remote sessions"): a worker's values are
//! held to the session's `max_result_bytes` while the server reads them,
//! so a guest's huge result costs the server no more than a local host
//! would pay, and the client is told it was too large as a local host
//! tells its caller; connections that show no token are on a budget of
//! their own, so they never take the places of clients that have one.

mod server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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

/// Sends `GET path` on `stream`, keeping the connection alive.
fn get_keep_alive(stream: &mut TcpStream, addr: &str, path: &str) -> std::io::Result<()> {
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n")
}

/// Until `stop`: keeps a connection alive with a cheap request without a
/// token every 200 ms (`GET /healthz`: the attack of a keep-alive
/// connection answered without a token, forty times faster), on a new
/// connection whenever the server closes the last.
fn keep_alive_flood(addr: String, stop: Arc<AtomicBool>) {
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = TcpStream::connect(&addr) else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
        while !stop.load(Ordering::Relaxed) {
            if get_keep_alive(&mut stream, &addr, "/healthz").is_err() {
                break;
            }
            let answered = matches!(stream.read(&mut buf), Ok(n) if n > 0);
            std::thread::sleep(Duration::from_millis(200));
            if !answered {
                break;
            }
        }
    }
}

/// A connection to `addr` from `from` (an address of loopback's own).
fn connect_from(from: &str, addr: &str) -> std::io::Result<TcpStream> {
    let to: std::net::SocketAddr = addr.parse().map_err(std::io::Error::other)?;
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    let from: std::net::SocketAddr = format!("{from}:0").parse().map_err(std::io::Error::other)?;
    socket.bind(&from.into())?;
    socket.connect(&to.into())?;
    Ok(socket.into())
}

/// Until `stop`: holds a connection from `from` that sends nothing, and
/// opens another as soon as the server closes it. How many it opened.
fn silent_flood(from: &str, addr: String, stop: Arc<AtomicBool>) -> usize {
    let mut buf = [0u8; 64];
    let mut opened = 0;
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = connect_from(from, &addr) else {
            continue;
        };
        opened += 1;
        let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
        while !stop.load(Ordering::Relaxed) {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Err(err)
                    if err.kind() == std::io::ErrorKind::WouldBlock
                        || err.kind() == std::io::ErrorKind::TimedOut => {}
                _ => break,
            }
        }
    }
    opened
}

#[test]
fn connections_without_a_token_cannot_hold_the_places_of_clients_with_one() {
    let (server, _tokens) = Server::with_tokens(&["--max-connections", "16"]);
    let options = || {
        SessionOptions::new(Language::Python)
            .engine(Interpreter::Monty)
            .remote(server.url.clone(), Some(TOKEN.to_owned()))
    };
    let mut warm = Session::new(options()).expect("a remote session starts");
    assert_eq!(warm.run("1 + 1").unwrap(), Value::Int(2));
    // A connection without a token is answered once, then closed: a second
    // request on it (sent with the first, so both are in) is never served.
    let mut stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let get = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    stream.write_all(get.repeat(2).as_bytes()).unwrap();
    let mut answers = String::new();
    let _ = stream.read_to_string(&mut answers);
    assert_eq!(answers.matches("HTTP/1.1 200").count(), 1, "{answers}");
    // Sixty-four connections without a token, four times --max-connections:
    // keep-alive ones from the address the client connects from, and
    // silent ones, reopened the moment they close, from another.
    let stop = Arc::new(AtomicBool::new(false));
    let flood: Vec<_> = (0..64)
        .map(|n| {
            let (addr, stop) = (server.addr.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                if n % 2 == 0 {
                    keep_alive_flood(addr, stop);
                    0
                } else {
                    silent_flood("127.0.0.2", addr, stop)
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    for _ in 0..5 {
        let began = Instant::now();
        let mut session = Session::new(options()).expect("a client with a token connects");
        let took = began.elapsed();
        assert!(
            took < Duration::from_secs(1),
            "the client took {took:?} to connect"
        );
        assert_eq!(session.run("6 * 7").unwrap(), Value::Int(42));
    }
    stop.store(true, Ordering::Relaxed);
    let silent: usize = flood.into_iter().map(|thread| thread.join().unwrap()).sum();
    // Each silent one held its place until closed for room: more were
    // opened than the budget holds.
    assert!(
        silent > 64,
        "the silent flood opened only {silent} connections"
    );
    assert_eq!(warm.run("2 + 2").unwrap(), Value::Int(4));
}

#[test]
fn status_pages_can_require_a_token() {
    let (server, _tokens) = Server::with_tokens(&["--status-needs-token"]);
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");
    for path in ["/readyz", "/metrics"] {
        assert_eq!(server.get(path).0, 401, "{path}");
        assert_eq!(
            server
                .get_with(path, "Authorization: Bearer wrong-token-000000\r\n")
                .0,
            401
        );
        assert_eq!(server.get_with(path, &bearer).0, 200, "{path}");
    }
    // Liveness probes carry no token.
    assert_eq!(server.get("/healthz").0, 200);
    // Without the flag, anyone who can connect reads them, as before.
    let (open, _tokens) = Server::with_tokens(&[]);
    assert_eq!(open.get("/readyz").0, 200);
    assert_eq!(open.get("/metrics").0, 200);
}

/// A stand-in for a server past its budget of anonymous connections: it
/// closes the first `closing` connections with a reset once their upgrade
/// request is in, unanswered, and passes the rest to `server`.
fn closing_proxy(server: String, closing: usize) -> (String, std::thread::JoinHandle<usize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address").to_string();
    let proxy = std::thread::spawn(move || {
        let mut seen = 0;
        for client in listener.incoming() {
            let Ok(mut client) = client else { break };
            seen += 1;
            if seen <= closing {
                let mut request = [0u8; 4096];
                let _ = client.read(&mut request);
                // SO_LINGER 0: the close is a reset, as the server's is.
                let _ = socket2::SockRef::from(&client).set_linger(Some(Duration::ZERO));
                continue;
            }
            let upstream = TcpStream::connect(&server).expect("the server");
            let (mut client_in, mut upstream_out) =
                (client.try_clone().unwrap(), upstream.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut client_in, &mut upstream_out));
            let (mut upstream_in, mut client_out) = (upstream, client);
            std::thread::spawn(move || std::io::copy(&mut upstream_in, &mut client_out));
            return seen;
        }
        seen
    });
    (addr, proxy)
}

#[test]
fn a_connection_closed_before_its_upgrade_was_answered_is_made_again() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let (addr, proxy) = closing_proxy(server.addr.clone(), 2);
    let mut session = Session::new(
        SessionOptions::new(Language::Python)
            .engine(Interpreter::Monty)
            .remote(format!("ws://{addr}"), Some(TOKEN.to_owned())),
    )
    .expect("the third connection opens the session");
    assert_eq!(session.run("6 * 7").unwrap(), Value::Int(42));
    assert_eq!(proxy.join().unwrap(), 3);
    // One that is closed every time is an error that says so, in time.
    let (addr, _proxy) = closing_proxy(server.addr.clone(), usize::MAX);
    let err = Session::new(
        SessionOptions::new(Language::Python)
            .engine(Interpreter::Monty)
            .remote(format!("ws://{addr}"), Some(TOKEN.to_owned())),
    )
    .expect_err("a server that always closes opens no session");
    assert!(
        matches!(&err, Error::Disconnected(text) if text.contains("refused the WebSocket upgrade")),
        "{err:?}"
    );
}
