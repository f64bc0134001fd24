//! `stockade serve` with the host library's remote sessions: sessions of
//! both languages across the hop, tokens, the server's ceilings and
//! capacity, the idle timeout, the drain on SIGTERM, and the endpoints.

mod server;

use std::time::Duration;

use server::{OTHER_TOKEN, Server, TOKEN, TokenFile};
use stockade::{Error, Interpreter, Language, Session, SessionOptions, Value};

fn remote(server: &Server, language: Language) -> SessionOptions {
    SessionOptions::new(language).remote(server.url.clone(), Some(TOKEN.to_owned()))
}

#[test]
fn remote_sessions_of_every_engine_keep_state_and_call_host_functions_on_the_client() {
    let (server, _tokens) = Server::with_tokens(&[]);
    for (language, engine, code) in [
        (
            Language::JavaScript,
            Interpreter::QuickJs,
            "let x = 40; x + add(1, 1)",
        ),
        (
            Language::Python,
            Interpreter::Monty,
            "x = 40\nx + add(1, 1)",
        ),
        (
            Language::Python,
            Interpreter::CPython,
            "x = 40\nx + add(1, 1)",
        ),
    ] {
        let mut session =
            Session::new(remote(&server, language).engine(engine)).expect("a remote session");
        let printed = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = std::sync::Arc::clone(&printed);
        session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
        session.register_function("add", |args| match (args.get(0), args.get(1)) {
            (Some(Value::Int(a)), Some(Value::Int(b))) => Ok(Value::Int(a + b)),
            _ => Err(stockade::HostError::type_error("add takes two ints")),
        });
        assert_eq!(session.run(code).unwrap(), Value::Int(42), "{engine}");
        assert_eq!(session.run("x + 2").unwrap(), Value::Int(42), "{engine}");
        session
            .run(if language == Language::JavaScript {
                "console.log('hi')"
            } else {
                "print('hi')"
            })
            .unwrap();
        assert_eq!(printed.lock().unwrap().as_str(), "hi\n", "{engine}");
        assert_eq!(session.worker_pid(), 0);
        assert!(
            session.worker_info().engine.contains(engine.name()) || engine == Interpreter::QuickJs,
            "{:?}",
            session.worker_info()
        );
        assert!(
            server.wait_for_workers(1),
            "the session's worker runs on the server"
        );
        drop(session);
        assert!(
            server.wait_for_workers(0),
            "closing the session ends its worker on the server"
        );
    }
}

#[test]
fn a_missing_or_wrong_token_is_refused_before_the_upgrade() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let missing =
        Session::new(SessionOptions::new(Language::Python).remote(server.url.clone(), None));
    assert!(
        matches!(missing, Err(Error::Unauthorized(_))),
        "{missing:?}"
    );
    let wrong = Session::new(
        SessionOptions::new(Language::Python)
            .remote(server.url.clone(), Some("not-the-token-0123456789".into())),
    );
    assert!(matches!(wrong, Err(Error::Unauthorized(_))), "{wrong:?}");
    assert_eq!(
        server.workers(),
        0,
        "no worker started for a refused caller"
    );
    let (status, body) = server.get(stockade_wire::SESSION_PATH);
    assert_eq!((status, body.as_str()), (401, ""), "401 without a body");
    let mut right = Session::new(remote(&server, Language::Python)).expect("the right token");
    assert_eq!(right.run("1 + 1").unwrap(), Value::Int(2));
}

#[test]
fn a_web_page_cannot_open_a_session_on_a_server_without_tokens() {
    let server = Server::start(&[]);
    let upgrade = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let (status, body) = server.get_with(
        stockade_wire::SESSION_PATH,
        &format!("{upgrade}Origin: http://attacker.example\r\n"),
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("web page"), "{body}");
    assert_eq!(server.workers(), 0, "no worker started for a web page");
    // A client of ours sends no Origin.
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).remote(server.url.clone(), None))
            .expect("a client without a token, on loopback");
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

#[test]
fn sighup_reloads_the_token_file() {
    let (server, tokens) = Server::with_tokens(&[]);
    let fresh = "a-newer-token-9876543210";
    tokens.write(&format!("{fresh}\n"));
    server.signal("HUP");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let attempt = Session::new(
            SessionOptions::new(Language::JavaScript)
                .remote(server.url.clone(), Some(fresh.into())),
        );
        match attempt {
            Ok(mut session) => {
                assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
                break;
            }
            Err(Error::Unauthorized(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(err) => panic!("the new token was never taken: {err}"),
        }
    }
    let old = Session::new(remote(&server, Language::JavaScript));
    assert!(
        matches!(old, Err(Error::Unauthorized(_))),
        "the old token still works: {old:?}"
    );
}

#[test]
fn a_limit_above_the_servers_ceiling_is_refused_naming_it() {
    let (server, _tokens) = Server::with_tokens(&[
        "--max-memory",
        "256M",
        "--max-duration",
        "10",
        "--request-timeout",
        "20",
        "--max-scratch",
        "8M",
    ]);
    let within = || {
        remote(&server, Language::Python)
            .max_memory(200 << 20)
            .max_scratch_bytes(4 << 20)
            .request_timeout(Duration::from_secs(20))
    };
    for (options, named) in [
        (within().max_memory(512 << 20), "max_memory"),
        (
            within().max_duration(Duration::from_secs(11)),
            "max_duration",
        ),
        (
            within().request_timeout(Duration::from_secs(30)),
            "request_timeout",
        ),
        (
            within()
                .engine(Interpreter::CPython)
                .max_scratch_bytes(16 << 20),
            "max_scratch_bytes",
        ),
    ] {
        match Session::new(options) {
            Err(Error::Configuration(err)) => {
                let text = err.to_string();
                assert!(text.contains(named) && text.contains("ceiling"), "{text}");
            }
            other => panic!("{named} above the ceiling was not refused: {other:?}"),
        }
    }
    let mut session = Session::new(within()).expect("limits within the ceilings");
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
    // A CPython session's scratch within the ceiling is the one it asked.
    let mut session =
        Session::new(within().engine(Interpreter::CPython)).expect("a scratch within the ceiling");
    let fill = "import errno\ntry:\n    open('/tmp/big', 'wb').write(b'x' * (6 << 20))\n    r = 'written'\nexcept OSError as e:\n    r = errno.errorcode[e.errno]\nr";
    assert_eq!(session.run(fill).unwrap(), Value::Str("ENOSPC".into()));
}

#[test]
fn sessions_past_the_servers_capacity_are_refused_as_over_capacity() {
    let (server, _tokens) =
        Server::with_tokens(&["--max-sessions", "2", "--max-sessions-per-token", "1"]);
    let mut first = Session::new(remote(&server, Language::JavaScript)).expect("the first session");
    first.run("1").unwrap();
    let second = Session::new(remote(&server, Language::JavaScript));
    match second {
        Err(Error::OverCapacity(text)) => assert!(text.contains("this token"), "{text}"),
        other => panic!("a second session of one token was let in: {other:?}"),
    }
    drop(first);
    // The slot comes back once the first session's connection ends.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match Session::new(remote(&server, Language::JavaScript)) {
            Ok(mut session) => {
                assert_eq!(session.run("2").unwrap(), Value::Int(2));
                break;
            }
            Err(Error::OverCapacity(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(err) => panic!("the slot never came back: {err}"),
        }
    }
    let (_, metrics) = server.get("/metrics");
    assert!(
        !metrics.contains("stockade_connections_refused_total{reason=\"over-capacity\"} 0\n"),
        "{metrics}"
    );
}

#[test]
fn readiness_goes_false_while_the_server_is_full() {
    let (server, _tokens) = Server::with_tokens(&["--max-sessions", "1"]);
    assert_eq!(server.get("/readyz"), (200, "ready\n".into()));
    let mut session = Session::new(remote(&server, Language::JavaScript)).expect("a session");
    session.run("1").unwrap();
    // Full: a balancer sends new sessions to another server.
    assert_eq!(server.get("/readyz"), (503, "full\n".into()));
    server.metrics_show(&["stockade_ready 0\n", "stockade_sessions_capacity 1\n"]);
    drop(session);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.get("/readyz").0 != 200 {
        assert!(
            std::time::Instant::now() < deadline,
            "readiness never came back"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_silent_client_holds_no_worker_past_the_idle_timeout() {
    let (server, _tokens) = Server::with_tokens(&["--idle-timeout", "1"]);
    let mut session = Session::new(remote(&server, Language::Python)).expect("a session");
    session.run("x = 1").unwrap();
    assert_eq!(server.workers(), 1);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        server.wait_for_workers(0),
        "the worker outlived the idle timeout"
    );
    match session.run("x") {
        Err(Error::Disconnected(text)) => assert!(text.contains("idle timeout"), "{text}"),
        other => panic!("a session past the idle timeout went on: {other:?}"),
    }
}

#[test]
fn host_function_time_is_the_clients_and_counts_toward_no_server_deadline() {
    let (server, _tokens) = Server::with_tokens(&["--request-timeout", "1"]);
    let mut session = Session::new(
        remote(&server, Language::Python)
            .engine(Interpreter::Monty)
            .request_timeout(Duration::from_secs(1)),
    )
    .expect("a session");
    session.register_function("slow", |_| {
        std::thread::sleep(Duration::from_millis(1500));
        Ok(Value::Int(7))
    });
    assert_eq!(session.run("slow() + slow()").unwrap(), Value::Int(14));
    match session.run("while True:\n    pass") {
        Err(err @ Error::Timeout { .. }) => assert!(err.loses_session()),
        other => panic!("a busy loop outlived the request timeout: {other:?}"),
    }
    assert!(server.wait_for_workers(0));
}

#[test]
fn the_server_reports_health_readiness_and_metrics() {
    let (server, _tokens) = Server::with_tokens(&[]);
    assert_eq!(server.get("/healthz"), (200, "ok\n".into()));
    assert_eq!(server.get("/readyz").0, 200);
    let mut session = Session::new(remote(&server, Language::JavaScript)).expect("a session");
    session.run("1").unwrap();
    session.run("2").unwrap();
    // The relay counts a turn just after the client has its reply.
    server.metrics_show(&[
        "stockade_sessions_active 1\n",
        "stockade_sessions_started_total 1\n",
        "stockade_turn_seconds_count 2\n",
    ]);
    drop(session);
    assert!(server.wait_for_workers(0));
    server.metrics_show(&[
        "stockade_sessions_ended_total{reason=\"closed\"} 1\n",
        "stockade_sessions_active 0\n",
    ]);
}

#[test]
fn sigterm_drains_running_sessions_then_ends_them() {
    let (server, _tokens) = Server::with_tokens(&["--grace", "3"]);
    let mut session = Session::new(remote(&server, Language::Python)).expect("a session");
    session.run("x = 5").unwrap();
    server.signal("TERM");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while server.get("/readyz").0 != 503 {
        assert!(
            std::time::Instant::now() < deadline,
            "readiness never went false"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        matches!(
            Session::new(remote(&server, Language::Python)),
            Err(Error::OverCapacity(_))
        ),
        "a new session was let in while draining"
    );
    // Within the grace the running session goes on.
    assert_eq!(session.run("x + 1").unwrap(), Value::Int(6));
    std::thread::sleep(Duration::from_millis(3300));
    match session.run("x") {
        Err(Error::ServerShutdown(text)) => assert!(text.contains("shutting down"), "{text}"),
        other => panic!("a session outlived the drain: {other:?}"),
    }
}

#[test]
fn plain_websocket_off_loopback_or_tokens_missing_there_is_refused_at_start() {
    let output = std::process::Command::new(server::STOCKADE)
        .args(["serve", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("not a loopback address") && text.contains("--insecure"),
        "{text}"
    );
    let output = std::process::Command::new(server::STOCKADE)
        .args(["serve", "--listen", "0.0.0.0:0", "--insecure"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--tokens"));
    let short = TokenFile::new("short\n");
    let output = std::process::Command::new(server::STOCKADE)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--tokens",
            &short.path(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("shorter than 16"));
}

#[test]
fn stockade_run_with_remote_runs_the_file_on_the_server() {
    let (server, tokens) = Server::with_tokens(&[]);
    let dir = std::env::temp_dir().join(format!("stockade-remote-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("guest.py");
    std::fs::write(&script, "print('hello from afar')\n6 * 7\n").unwrap();
    let run = |token_file: &str| {
        std::process::Command::new(server::STOCKADE)
            .args(["run", "--remote", &server.url, "--token-file", token_file])
            .arg(&script)
            .output()
            .unwrap()
    };
    let output = run(&tokens.path());
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "hello from afar\n42\n"
    );
    let wrong = TokenFile::new("not-the-servers-token-0000\n");
    let output = run(&wrong.path());
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unauthorized"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn workers_of_different_tokens_never_come_from_one_template() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let session = |token: &str| {
        let mut session = Session::new(
            SessionOptions::new(Language::JavaScript)
                .remote(server.url.clone(), Some(token.into())),
        )
        .expect("a session");
        session.run("1").unwrap();
        session
    };
    // The server's own start-up check leaves no template behind, though
    // its worker may take a moment to go.
    assert!(
        server.wait_for_templates(0),
        "the start-up check left a template behind"
    );
    let first = session(TOKEN);
    let second = session(TOKEN);
    assert_eq!(server.templates(), 1, "one tenant, one template");
    let other = session(OTHER_TOKEN);
    assert_eq!(
        server.templates(),
        2,
        "another tenant's worker came from the first tenant's template"
    );
    drop((first, second, other));
}

#[test]
fn connections_past_max_connections_wait_unaccepted() {
    use std::io::{Read, Write};
    let (server, _tokens) = Server::with_tokens(&["--max-connections", "2"]);
    // Both places are held by clients with a token, kept alive after an
    // answer (a connection without one would be closed to make room:
    // `connections_without_a_token_cannot_hold_the_places_of_clients_with_one`).
    let idle: Vec<_> = (0..2)
        .map(|_| {
            let mut client = std::net::TcpStream::connect(&server.addr).expect("a connection");
            write!(
                client,
                "GET /v1/session HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
            )
            .unwrap();
            let mut answer = [0u8; 1024];
            assert!(client.read(&mut answer).unwrap() > 0);
            client
        })
        .collect();
    let mut third = std::net::TcpStream::connect(&server.addr).expect("the kernel queues it");
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    write!(
        third,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    assert!(
        third.read_to_string(&mut answer).is_err(),
        "a connection past the bound was served: {answer:?}"
    );
    drop(idle);
    third
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    third.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn a_client_that_trickles_its_headers_gives_its_connection_up() {
    use std::io::{Read, Write};
    let (server, _tokens) = Server::with_tokens(&["--max-connections", "1"]);
    // Holds the one connection, sending a header line and then nothing.
    let mut slow = std::net::TcpStream::connect(&server.addr).expect("a connection");
    write!(slow, "GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
    let began = std::time::Instant::now();
    // The next connection waits unaccepted until the slow one's headers
    // time out (10 s), then is served.
    let mut next = std::net::TcpStream::connect(&server.addr).expect("the kernel queues it");
    write!(
        next,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    next.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = String::new();
    next.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(25),
        "served after {waited:?}"
    );
    // The slow connection was closed by the server.
    slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
}

#[test]
fn a_server_installs_only_the_packages_on_its_allow_list() {
    assert!(
        std::env::var_os("STOCKADE_UV").is_some(),
        "the server installs packages with uv: set STOCKADE_UV (scripts/test does)"
    );
    let (server, _tokens) = Server::with_tokens(&["--allow-package", "Tabulate"]);
    let cpython = |packages: &[&str]| {
        remote(&server, Language::Python)
            .engine(Interpreter::CPython)
            .packages(packages.iter().map(|p| (*p).to_owned()).collect())
    };
    let mut session = Session::new(cpython(&["tabulate==0.10.0"])).expect("an allowed package");
    assert_eq!(
        session
            .run("import tabulate\ntabulate.__version__")
            .unwrap(),
        Value::Str("0.10.0".into())
    );
    match Session::new(cpython(&["tabulate==0.10.0", "requests"])) {
        Err(Error::Configuration(err)) => {
            let text = err.to_string();
            assert!(
                text.contains("requests") && text.contains("allow-list"),
                "{text}"
            );
        }
        other => panic!("a package off the allow-list was installed: {other:?}"),
    }
    // A version range would make the server install set after set.
    match Session::new(cpython(&["tabulate>=0.9"])) {
        Err(Error::Configuration(err)) => {
            assert!(err.to_string().contains("pinned"), "{err}");
        }
        other => panic!("a version range was installed: {other:?}"),
    }
}
