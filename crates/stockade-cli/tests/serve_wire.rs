//! `stockade serve` spoken to frame by frame, as a client of another
//! version or a broken or hostile one would: the version check, the
//! server's own request timeout, a client gone mid-turn, malformed and
//! oversized messages, and a client that stops reading. Each ends that
//! connection only.

mod server;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use server::{Server, TOKEN};
use stockade_wire::{
    ConfigureLimits, EndCause, EngineConfig, FRAME_HEADER_LEN, PROTOCOL_VERSION, RemoteEnd,
    Request, Response, SESSION_PATH, SandboxMode, WireLimits, decode_remote_end, decode_response,
    encode_request, is_remote_end,
};
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

type Socket = WebSocket<TcpStream>;

fn connect(server: &Server) -> Socket {
    let mut request = format!("{}{SESSION_PATH}", server.url)
        .into_client_request()
        .unwrap();
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let stream = TcpStream::connect(&server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (socket, _) = tungstenite::client::client(request, stream).expect("the upgrade");
    socket
}

fn configure(version: u32) -> Vec<u8> {
    configure_with(version, 1 << 20)
}

fn configure_with(version: u32, max_output_bytes: u64) -> Vec<u8> {
    configure_engine(version, max_output_bytes, EngineConfig::Python)
}

fn configure_engine(version: u32, max_output_bytes: u64, engine: EngineConfig) -> Vec<u8> {
    encode_request(
        &Request::Configure {
            protocol_version: version,
            package_version: "tests".into(),
            engine,
            sandbox: SandboxMode::Require,
            limits: ConfigureLimits {
                max_duration_us: None,
                max_memory: Some(256 << 20),
                max_recursion_depth: 200,
                print_flush_bytes: 8192,
                print_flush_interval_us: 5000,
                cpu_seconds: Some(60),
                max_output_bytes,
            },
            verified_seccomp: None,
        },
        &WireLimits::default(),
    )
    .unwrap()
}

fn feed(code: &str) -> Vec<u8> {
    encode_request(
        &Request::Feed {
            code: code.into(),
            inputs: Vec::new(),
            functions: Vec::new(),
        },
        &WireLimits::default(),
    )
    .unwrap()
}

/// What the server sent next: a worker's message or the server's end.
enum Next {
    Response(Response),
    End(RemoteEnd),
    Closed,
}

fn next(socket: &mut Socket) -> Next {
    loop {
        match socket.read() {
            Ok(Message::Binary(bytes)) => {
                let payload = &bytes[FRAME_HEADER_LEN..];
                return if is_remote_end(payload) {
                    Next::End(decode_remote_end(payload, &WireLimits::default()).unwrap())
                } else {
                    Next::Response(decode_response(payload, &WireLimits::default()).unwrap())
                };
            }
            Ok(Message::Close(_)) | Err(_) => return Next::Closed,
            Ok(_) => {}
        }
    }
}

fn send(socket: &mut Socket, frame: Vec<u8>) {
    socket.send(Message::Binary(frame.into())).unwrap();
}

/// A working session on the same server: the server outlived what the
/// test did to another connection.
fn still_serves(server: &Server) {
    let mut socket = connect(server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    send(&mut socket, feed("20 + 22"));
    match next(&mut socket) {
        Next::Response(Response::Complete { value, .. }) => {
            assert_eq!(value, stockade_wire::Value::Int(42));
        }
        _ => panic!("the server stopped serving sessions"),
    }
}

#[test]
fn a_client_outside_the_protocol_range_gets_a_fatal_naming_the_range() {
    let (server, _tokens) = Server::with_tokens(&[]);
    for version in [0, PROTOCOL_VERSION + 1] {
        let mut socket = connect(&server);
        send(&mut socket, configure(version));
        match next(&mut socket) {
            Next::Response(Response::Fatal { message }) => {
                assert!(
                    message.contains(&format!("2..={PROTOCOL_VERSION}"))
                        && message.contains("this server"),
                    "{message}"
                );
            }
            _ => panic!("version {version} got no Fatal"),
        }
        assert!(matches!(
            next(&mut socket),
            Next::End(RemoteEnd {
                cause: EndCause::Refused,
                ..
            })
        ));
    }
    assert_eq!(server.workers(), 0);
    still_serves(&server);
}

#[test]
fn the_servers_request_timeout_ends_a_turn_of_a_client_that_named_none() {
    let (server, _tokens) = Server::with_tokens(&["--request-timeout", "1"]);
    let mut socket = connect(&server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    let began = Instant::now();
    send(&mut socket, feed("while True:\n    pass"));
    match next(&mut socket) {
        Next::End(end) => {
            assert_eq!(end.cause, EndCause::RequestTimeout, "{end:?}");
            assert_eq!(end.limit_us, Some(1_000_000));
        }
        _ => panic!("the busy loop was not ended by the server"),
    }
    assert!(began.elapsed() < Duration::from_secs(10));
    assert!(server.wait_for_workers(0));
}

#[test]
fn a_client_gone_mid_turn_has_its_worker_killed_at_once() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let mut socket = connect(&server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    send(&mut socket, feed("while True:\n    pass"));
    assert!(server.wait_for_workers(1));
    drop(socket);
    // Well before the server's request timeout (60 s).
    assert!(server.wait_for_workers(0), "the worker outlived its client");
    server.metrics_show(&["stockade_sessions_ended_total{reason=\"disconnected\"} 1\n"]);
    still_serves(&server);
}

#[test]
fn malformed_and_oversized_messages_end_that_connection_only() {
    let (server, _tokens) = Server::with_tokens(&[]);
    // A text message where a frame belongs.
    let mut socket = connect(&server);
    socket.send(Message::Text("{\"run\": 1}".into())).unwrap();
    assert!(matches!(next(&mut socket), Next::Closed));
    // A frame whose header lies about its length, mid-session.
    let mut socket = connect(&server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    let mut lying = feed("1");
    lying[0] ^= 0x7f;
    send(&mut socket, lying);
    match next(&mut socket) {
        Next::End(end) => assert_eq!(end.cause, EndCause::Killed, "{end:?}"),
        _ => panic!("a frame with a lying header was relayed"),
    }
    assert!(server.wait_for_workers(0));
    // A message past the wire's frame bound never reaches a worker.
    let mut socket = connect(&server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    let huge = vec![0u8; WireLimits::default().max_frame + FRAME_HEADER_LEN + 1];
    let _ = socket.send(Message::Binary(huge.into()));
    assert!(matches!(next(&mut socket), Next::Closed));
    assert!(server.wait_for_workers(0));
    // A Configure that is not one.
    let mut socket = connect(&server);
    send(&mut socket, feed("1"));
    match next(&mut socket) {
        Next::Response(Response::Fatal { message }) => {
            assert!(message.contains("Configure"), "{message}")
        }
        _ => panic!("a session that did not start with Configure got no Fatal"),
    }
    still_serves(&server);
}

#[test]
fn a_client_that_stops_reading_holds_no_worker_past_the_idle_timeout() {
    let (server, _tokens) =
        Server::with_tokens(&["--idle-timeout", "1", "--max-output-bytes", "1G"]);
    let mut socket = connect(&server);
    send(&mut socket, configure_with(PROTOCOL_VERSION, 1 << 30));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    // Prints far more than the socket buffers hold, never read, and no
    // end of the turn in sight (the request timeout is a minute).
    send(&mut socket, feed("while True:\n    print('x' * 10000)"));
    assert!(server.wait_for_workers(1));
    let deadline = Instant::now() + Duration::from_secs(15);
    while server.workers() > 0 {
        assert!(
            Instant::now() < deadline,
            "a client that stopped reading held its worker"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    still_serves(&server);
}

#[test]
fn a_javascript_heap_above_the_sessions_memory_is_refused_and_none_asked_gets_it() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let javascript = |heap: Option<u64>| {
        EngineConfig::JavaScript(stockade_wire::JavaScriptConfig {
            max_heap_size: heap,
            ..Default::default()
        })
    };
    // The Configure asks max_memory 256 MiB.
    let mut socket = connect(&server);
    send(
        &mut socket,
        configure_engine(PROTOCOL_VERSION, 1 << 20, javascript(Some(1 << 30))),
    );
    match next(&mut socket) {
        Next::Response(Response::Fatal { message }) => {
            assert!(
                message.contains("max_heap_size") && message.contains("max_memory"),
                "{message}"
            )
        }
        _ => panic!("a heap above max_memory was not refused"),
    }
    // None asked: the engine's heap limit is the session's max_memory, so
    // a runaway allocation is the engine's catchable failure, not the RSS
    // ceiling's kill.
    let mut socket = connect(&server);
    send(
        &mut socket,
        configure_engine(PROTOCOL_VERSION, 1 << 20, javascript(None)),
    );
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    send(
        &mut socket,
        feed("let a = []; while (true) a.push(new Array(1e6).fill(1));"),
    );
    let mut saw = Vec::new();
    loop {
        match next(&mut socket) {
            Next::Response(Response::Fatal { message }) => {
                assert!(message.contains("max_heap_size"), "{message}");
                break;
            }
            Next::Response(other) => saw.push(other.name()),
            Next::End(end) => {
                panic!("the worker ended without the engine's own limit: {end:?} after {saw:?}")
            }
            Next::Closed => panic!("closed after {saw:?}"),
        }
    }
}

#[test]
fn a_message_past_max_message_size_ends_that_connection_only() {
    let (server, _tokens) = Server::with_tokens(&["--max-message-size", "1M"]);
    let mut socket = connect(&server);
    send(&mut socket, configure(PROTOCOL_VERSION));
    assert!(matches!(
        next(&mut socket),
        Next::Response(Response::Ready(_))
    ));
    let big = "x".repeat(2 << 20);
    let _ = socket.send(Message::Binary(feed(&format!("len('{big}')")).into()));
    assert!(matches!(next(&mut socket), Next::Closed));
    assert!(server.wait_for_workers(0));
    still_serves(&server);
}
