//! Drives the real worker binary frame by frame: the handshake, turns,
//! protocol violations, print ordering and the execution clock.

use std::io::Write;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use stockade_wire::{
    CallOutcome, ConfigureLimits, EngineConfig, ErrorKind, Language, LookupOutcome,
    MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION, Request, Response, SandboxMode, Value,
    WireLimits, WorkerInfo, decode_response, encode_request, read_frame,
};

struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

fn limits() -> ConfigureLimits {
    ConfigureLimits {
        max_duration_us: None,
        max_memory: None,
        max_recursion_depth: 1000,
        print_flush_bytes: 8192,
        print_flush_interval_us: 5000,
        cpu_seconds: Some(120),
        max_output_bytes: u64::MAX,
    }
}

fn configure(version: u32, language: Language, limits: ConfigureLimits) -> Request {
    Request::Configure {
        protocol_version: version,
        package_version: "test".into(),
        engine: match language {
            Language::Python => EngineConfig::Python,
            Language::JavaScript => EngineConfig::JavaScript(Default::default()),
        },
        sandbox: SandboxMode::Require,
        limits,
        verified_seccomp: None,
    }
}

impl Worker {
    fn spawn() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stockade-worker"))
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the worker starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        Self {
            child,
            stdin,
            stdout,
        }
    }

    /// A worker that has answered Configure with Ready.
    fn ready(limits: ConfigureLimits) -> Self {
        let mut worker = Self::spawn();
        worker.send(&configure(PROTOCOL_VERSION, Language::Python, limits));
        assert!(matches!(worker.recv(), Response::Ready(_)));
        worker
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the worker reads its input");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, request: &Request) {
        let frame = encode_request(request, &WireLimits::default()).expect("request encodes");
        self.send_raw(&frame);
    }

    fn recv(&mut self) -> Response {
        let payload = read_frame(&mut self.stdout, &WireLimits::default())
            .expect("a frame")
            .expect("not the end of output");
        decode_response(&payload, &WireLimits::default()).expect("a valid response")
    }

    /// Receives until a reply that is not Print, collecting printed text.
    fn recv_reply(&mut self, printed: &mut String) -> Response {
        loop {
            match self.recv() {
                Response::Print { text, .. } => printed.push_str(&text),
                other => return other,
            }
        }
    }

    fn feed(&mut self, code: &str) -> Response {
        self.send(&Request::Feed {
            code: code.into(),
            inputs: vec![],
            functions: vec![],
        });
        self.recv_reply(&mut String::new())
    }

    fn exit_code(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("the worker exits").code()
    }
}

fn expect_protocol_error(response: Response, mentions: &str) {
    match response {
        Response::Error {
            kind, exception, ..
        } => {
            assert_eq!(kind, ErrorKind::Protocol);
            assert!(
                exception.message.starts_with("protocol violation:"),
                "{}",
                exception.message
            );
            assert!(
                exception.message.contains(mentions),
                "{} should mention {mentions}",
                exception.message
            );
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

fn expect_complete(response: Response) -> Value {
    match response {
        Response::Complete { value, .. } => value,
        other => panic!("expected Complete, got {other:?}"),
    }
}

#[test]
fn version_zero_is_refused_naming_the_supported_range() {
    let mut worker = Worker::spawn();
    worker.send(&configure(0, Language::Python, limits()));
    match worker.recv() {
        Response::Fatal { message } => {
            let range = format!("{MIN_SUPPORTED_PROTOCOL_VERSION}..={PROTOCOL_VERSION}");
            assert!(message.contains(&range), "{message}");
        }
        other => panic!("expected Fatal, got {other:?}"),
    }
    assert_eq!(worker.exit_code(), Some(76));
}

#[test]
fn a_version_above_the_range_is_refused() {
    let mut worker = Worker::spawn();
    worker.send(&configure(PROTOCOL_VERSION + 1, Language::Python, limits()));
    assert!(matches!(worker.recv(), Response::Fatal { message }
            if message.contains(&format!("unsupported protocol version {}", PROTOCOL_VERSION + 1))));
    assert_eq!(worker.exit_code(), Some(76));
}

#[test]
fn the_first_message_must_be_configure() {
    let mut worker = Worker::spawn();
    worker.send(&Request::Close);
    assert!(
        matches!(worker.recv(), Response::Fatal { message } if message.contains("must be Configure"))
    );
    assert_eq!(worker.exit_code(), Some(76));
}

#[test]
fn a_configure_naming_an_engine_this_worker_lacks_is_refused() {
    // Each engine brings its own configuration, so a worker never receives
    // options meant for another; an engine it does not know is a malformed
    // Configure.
    let mut worker = Worker::spawn();
    let mut frame = encode_request(
        &configure(PROTOCOL_VERSION, Language::Python, limits()),
        &WireLimits::default(),
    )
    .unwrap();
    // Header 4, tag 1, version 4, package version "test" 8: the engine byte.
    assert_eq!(frame[17], 0, "the Python engine's code");
    frame[17] = 7;
    worker.send_raw(&frame);
    assert!(
        matches!(worker.recv(), Response::Fatal { message } if message.contains("unknown engine 0x07")),
    );
    assert_eq!(worker.exit_code(), Some(76));
}

#[test]
fn a_javascript_worker_answers_ready() {
    let mut worker = Worker::spawn();
    worker.send(&configure(PROTOCOL_VERSION, Language::JavaScript, limits()));
    assert!(
        matches!(worker.recv(), Response::Ready(WorkerInfo { engine, .. }) if engine.starts_with("javascript"))
    );
    worker.send(&Request::Feed {
        code: "6 * 7".into(),
        inputs: vec![],
        functions: vec![],
    });
    assert_eq!(
        expect_complete(worker.recv_reply(&mut String::new())),
        Value::Int(42)
    );
}

#[test]
fn close_and_end_of_input_both_exit_zero() {
    let mut worker = Worker::ready(limits());
    worker.send(&Request::Close);
    assert_eq!(worker.exit_code(), Some(0));
    let worker = Worker::ready(limits());
    assert_eq!(worker.exit_code(), Some(0));
}

#[test]
fn a_malformed_request_between_feeds_gets_an_error_turn_and_the_session_lives() {
    let mut worker = Worker::ready(limits());
    worker.feed("x = 20");
    worker.send_raw(&[1, 0, 0, 0, 0x7f]);
    expect_protocol_error(worker.recv(), "malformed request: unknown message tag 0x7f");
    assert_eq!(expect_complete(worker.feed("x + 1")), Value::Int(21));
}

#[test]
fn answers_outside_a_suspension_are_protocol_violations() {
    let mut worker = Worker::ready(limits());
    worker.send(&Request::Resume {
        call_id: 0,
        outcome: CallOutcome::Return(Value::None),
    });
    expect_protocol_error(worker.recv(), "Resume is not expected between feeds");
    worker.send(&Request::LookupReply(LookupOutcome::Undefined));
    expect_protocol_error(worker.recv(), "LookupReply");
    worker.send(&configure(PROTOCOL_VERSION, Language::Python, limits()));
    expect_protocol_error(worker.recv(), "Configure");
    assert_eq!(expect_complete(worker.feed("2 * 21")), Value::Int(42));
}

#[test]
fn an_oversized_frame_header_is_fatal() {
    let mut worker = Worker::ready(limits());
    worker.send_raw(&u32::MAX.to_le_bytes());
    assert!(
        matches!(worker.recv(), Response::Fatal { message } if message.contains("frame limit"))
    );
    assert_eq!(worker.exit_code(), Some(76));
}

/// Feeds `code`, answers the lookup of `f` with a host function, and
/// returns the Call announcement.
fn suspend_on_call(worker: &mut Worker, code: &str) -> Response {
    worker.send(&Request::Feed {
        code: code.into(),
        inputs: vec![],
        functions: vec![],
    });
    match worker.recv_reply(&mut String::new()) {
        Response::Lookup { name, .. } => assert_eq!(name, "f"),
        other => panic!("expected a Lookup of f, got {other:?}"),
    }
    worker.send(&Request::LookupReply(LookupOutcome::Function));
    worker.recv_reply(&mut String::new())
}

#[test]
fn a_malformed_answer_to_a_call_ends_the_feed_uncatchably_and_the_session_lives() {
    let mut worker = Worker::ready(limits());
    let code = "try:\n    f()\nexcept BaseException:\n    caught = True\n'finished'";
    assert!(matches!(
        suspend_on_call(&mut worker, code),
        Response::Call { .. }
    ));
    worker.send_raw(&[2, 0, 0, 0, 0x03, 0x01]);
    expect_protocol_error(worker.recv(), "malformed request");
    // The handler never ran: `caught` is still undefined (the worker asks the host about it).
    assert!(matches!(worker.feed("caught"), Response::Lookup { name, .. } if name == "caught"));
    worker.send(&Request::LookupReply(LookupOutcome::Undefined));
    assert!(
        matches!(worker.recv(), Response::Error { kind: ErrorKind::Exception, exception, .. } if exception.type_name == "NameError")
    );
    assert_eq!(expect_complete(worker.feed("1")), Value::Int(1));
}

#[test]
fn a_resume_for_another_call_ends_the_feed() {
    let mut worker = Worker::ready(limits());
    let Response::Call { call_id, .. } = suspend_on_call(&mut worker, "f()") else {
        panic!("expected a call")
    };
    worker.send(&Request::Resume {
        call_id: call_id + 1,
        outcome: CallOutcome::Return(Value::None),
    });
    expect_protocol_error(worker.recv(), "expected a Resume for call");
}

#[test]
fn prints_are_flushed_before_each_suspension_and_never_reordered() {
    let mut worker = Worker::ready(limits());
    worker.send(&Request::Feed {
        code: "print('before')\nf(1)\nprint('after')\n'done'".into(),
        inputs: vec![],
        functions: vec![],
    });
    let mut printed = String::new();
    assert!(matches!(
        worker.recv_reply(&mut printed),
        Response::Lookup { .. }
    ));
    assert_eq!(printed, "before\n");
    worker.send(&Request::LookupReply(LookupOutcome::Function));
    assert!(matches!(
        worker.recv_reply(&mut printed),
        Response::Call { .. }
    ));
    worker.send(&Request::Resume {
        call_id: 0,
        outcome: CallOutcome::Return(Value::None),
    });
    let reply = worker.recv_reply(&mut printed);
    assert_eq!(printed, "before\nafter\n");
    assert_eq!(expect_complete(reply), Value::Str("done".into()));
}

#[test]
fn buffered_output_is_sent_at_the_flush_interval_while_the_guest_runs() {
    let mut worker = Worker::ready(ConfigureLimits {
        max_duration_us: Some(3_000_000),
        ..limits()
    });
    let start = Instant::now();
    worker.send(&Request::Feed {
        code: "print('early')\nwhile True:\n    pass".into(),
        inputs: vec![],
        functions: vec![],
    });
    let first = worker.recv();
    let printed_after = start.elapsed();
    assert!(
        matches!(&first, Response::Print { text, .. } if text == "early\n"),
        "{first:?}"
    );
    assert!(
        printed_after < Duration::from_millis(1500),
        "output waited {printed_after:?}, as if held until the feed ended"
    );
    assert!(matches!(
        worker.recv(),
        Response::Error {
            kind: ErrorKind::Timeout,
            ..
        }
    ));
}

#[test]
fn output_past_the_flush_size_is_sent_in_order() {
    let mut worker = Worker::ready(limits());
    worker.send(&Request::Feed {
        code: "for i in range(3000):\n    print(i)".into(),
        inputs: vec![],
        functions: vec![],
    });
    let mut frames = 0;
    let mut printed = String::new();
    loop {
        match worker.recv() {
            Response::Print { text, .. } => {
                frames += 1;
                printed.push_str(&text);
            }
            Response::Complete { .. } => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    let expected: String = (0..3000).map(|i| format!("{i}\n")).collect();
    assert_eq!(printed, expected);
    assert!(
        frames >= 2,
        "13 KiB of output should take more than one 8 KiB flush"
    );
}

#[test]
fn elapsed_time_accumulates_across_feeds_and_excludes_time_suspended() {
    let mut worker = Worker::ready(limits());
    let Response::Complete {
        elapsed_us: first, ..
    } = worker.feed("n = 0\nfor i in range(200000):\n    n += i")
    else {
        panic!("expected completion")
    };
    assert!(first > 0);
    let Response::Call {
        elapsed_us: at_call,
        call_id,
        ..
    } = suspend_on_call(&mut worker, "f()")
    else {
        panic!("expected a call")
    };
    assert!(at_call >= first, "elapsed went backwards");
    std::thread::sleep(Duration::from_millis(300));
    worker.send(&Request::Resume {
        call_id,
        outcome: CallOutcome::Return(Value::None),
    });
    let Response::Complete {
        elapsed_us: after, ..
    } = worker.recv_reply(&mut String::new())
    else {
        panic!("expected completion")
    };
    assert!(after >= at_call);
    assert!(
        after - first < 300_000,
        "300 ms spent suspended on the host was counted as guest time ({first} -> {after} µs)"
    );
}

#[test]
fn inputs_are_bound_before_the_feed() {
    let mut worker = Worker::ready(limits());
    worker.send(&Request::Feed {
        code: "a + len(b)".into(),
        inputs: vec![
            ("a".into(), Value::Int(40)),
            ("b".into(), Value::Str("xy".into())),
        ],
        functions: vec![],
    });
    assert_eq!(
        expect_complete(worker.recv_reply(&mut String::new())),
        Value::Int(42)
    );
}

#[test]
fn output_only_inputs_are_refused_and_the_session_lives() {
    for language in [Language::Python, Language::JavaScript] {
        let mut worker = Worker::spawn();
        worker.send(&configure(PROTOCOL_VERSION, language, limits()));
        assert!(matches!(worker.recv(), Response::Ready(_)));
        worker.send(&Request::Feed {
            code: "x".into(),
            inputs: vec![(
                "x".into(),
                Value::List(vec![
                    Value::Int(1),
                    Value::Dict(vec![(Value::Str("k".into()), Value::Repr("<f>".into()))]),
                ]),
            )],
            functions: vec![],
        });
        match worker.recv() {
            Response::Error {
                kind, exception, ..
            } => {
                assert_eq!(kind, ErrorKind::Conversion);
                assert!(
                    exception.message.contains("x[1]['k']") && exception.message.contains("repr"),
                    "{language:?}: {}",
                    exception.message
                );
            }
            other => panic!("expected a conversion error, got {other:?}"),
        }
        assert_eq!(expect_complete(worker.feed("3")), Value::Int(3));
    }
}
