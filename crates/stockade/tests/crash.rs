//! Workers that die or misbehave: the session is lost with a clear error,
//! and the host never aborts or hangs. Fake workers are shell scripts that
//! write prepared frames; the rest are real workers killed from outside.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use stockade::{Error, Language, Session, SessionOptions, TimeLimit, Value};
use stockade_wire::{
    Response, SandboxMode, SandboxReport, WireLimits, WorkerInfo, encode_response,
};

static FAKES: AtomicUsize = AtomicUsize::new(0);

/// Writes a fake worker that prints `frames` then runs `then` (shell).
fn fake_worker(frames: &[u8], then: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "stockade-fake-{}-{}",
        std::process::id(),
        FAKES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let frames_path = dir.join("frames.bin");
    std::fs::write(&frames_path, frames).unwrap();
    let script = dir.join("worker.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ncat '{}'\n{then}\n", frames_path.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn frame(response: &Response) -> Vec<u8> {
    encode_response(response, &WireLimits::default()).unwrap()
}

fn ready() -> Vec<u8> {
    frame(&Response::Ready(WorkerInfo {
        protocol_version: 1,
        worker_version: "fake".into(),
        engine: "fake".into(),
        sandbox: SandboxReport::unsandboxed(),
    }))
}

fn options(worker: PathBuf) -> SessionOptions {
    // A fake worker binary stands in for the monty worker.
    SessionOptions::new(Language::Python)
        .engine(stockade::Interpreter::Monty)
        .worker(worker)
        .request_timeout(Duration::from_secs(10))
}

fn crash_of(result: Result<Value, Error>) -> stockade::CrashInfo {
    match result {
        Err(Error::Crashed(info)) => info,
        other => panic!("expected a crash, got {other:?}"),
    }
}

fn host_still_works() {
    let mut session = Session::new(SessionOptions::new(Language::Python)).unwrap();
    assert_eq!(session.run("'alive'").unwrap(), Value::Str("alive".into()));
}

#[test]
fn a_worker_that_writes_garbage_is_killed_and_the_session_lost() {
    let mut bytes = ready();
    bytes.extend_from_slice(&[5, 0, 0, 0, 0xee, 0xee, 0xee, 0xee, 0xee]);
    let mut session = Session::new(options(fake_worker(&bytes, "exec sleep 30"))).unwrap();
    let info = crash_of(session.run("1"));
    assert!(info.reason.contains("malformed frame"), "{info}");
    assert!(info.reason.contains("unknown message tag 0xee"), "{info}");
    assert_eq!(info.signal, Some(9), "the host killed it");
    assert!(session.is_lost());
    assert_eq!(
        crash_of(session.run("1")),
        info,
        "later calls fail at once with the same error"
    );
    host_still_works();
}

#[test]
fn a_worker_that_announces_an_oversized_frame_is_killed_before_the_body() {
    let mut bytes = ready();
    bytes.extend_from_slice(&u32::MAX.to_le_bytes());
    let mut session = Session::new(options(fake_worker(&bytes, "exec sleep 30"))).unwrap();
    let info = crash_of(session.run("1"));
    assert!(info.reason.contains("frame limit"), "{info}");
    host_still_works();
}

#[test]
fn a_worker_that_exits_at_once_reports_its_status_and_last_words() {
    let worker = fake_worker(b"", "echo 'fake worker: cannot go on' >&2\nexit 3");
    match Session::new(options(worker)) {
        Err(Error::Crashed(info)) => {
            assert_eq!(info.exit_code, Some(3));
            assert_eq!(info.detail.as_deref(), Some("fake worker: cannot go on"));
        }
        other => panic!("expected a crash, got {other:?}"),
    }
}

#[test]
fn a_worker_that_never_answers_hits_request_timeout() {
    let worker = fake_worker(&ready(), "exec sleep 30");
    let mut session =
        Session::new(options(worker).request_timeout(Duration::from_millis(300))).unwrap();
    assert!(matches!(
        session.run("1"),
        Err(Error::Timeout {
            limit: TimeLimit::RequestTimeout,
            ..
        })
    ));
    assert!(session.is_lost());
}

#[test]
fn the_max_duration_backstop_kills_a_worker_that_does_not_stop_itself() {
    let worker = fake_worker(&ready(), "exec sleep 30");
    let options = options(worker).max_duration(Duration::from_millis(200));
    let mut session = Session::new(options).unwrap();
    let err = session.run("1").unwrap_err();
    assert!(err.is_time_limit(), "{err:?}");
    let Error::Crashed(info) = err else {
        panic!("expected a crash")
    };
    assert!(info.timed_out);
    assert!(info.reason.contains("max_duration"), "{info}");
}

#[test]
fn a_worker_that_calls_a_function_it_was_never_given_is_killed() {
    let mut bytes = ready();
    bytes.extend(frame(&Response::Call {
        elapsed_us: 0,
        call_id: 0,
        name: "delete_everything".into(),
        args: vec![],
        kwargs: vec![],
    }));
    let mut session = Session::new(options(fake_worker(&bytes, "exec sleep 30"))).unwrap();
    session.register_function("harmless", |_| Ok(Value::None));
    let info = crash_of(session.run("harmless()"));
    assert!(
        info.reason
            .contains("\"delete_everything\", which it was never given"),
        "{info}"
    );
}

#[test]
fn a_worker_that_sends_ready_mid_turn_is_killed() {
    let mut bytes = ready();
    bytes.extend(ready());
    let mut session = Session::new(options(fake_worker(&bytes, "exec sleep 30"))).unwrap();
    let info = crash_of(session.run("1"));
    assert!(
        info.reason.contains("Ready in the middle of a turn"),
        "{info}"
    );
}

#[test]
fn a_fatal_message_is_carried_in_the_crash() {
    let mut bytes = ready();
    bytes.extend(frame(&Response::Fatal {
        message: "engine state corrupted".into(),
    }));
    // The fake exits once it has read Configure (41 bytes) and the Feed of
    // "1" (14 bytes), so the Fatal frame is what answers the feed.
    let mut session = Session::new(options(fake_worker(
        &bytes,
        "head -c 55 >/dev/null\nexit 70",
    )))
    .unwrap();
    let info = crash_of(session.run("1"));
    assert_eq!(info.detail.as_deref(), Some("engine state corrupted"));
    assert_eq!(info.exit_code, Some(70));
}

#[test]
fn a_worker_killed_mid_turn_is_reported_as_crashed_with_its_signal() {
    let mut session = Session::new(SessionOptions::new(Language::Python)).unwrap();
    let pid = session.worker_pid();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    });
    let info = crash_of(session.run("while True:\n    pass"));
    killer.join().unwrap();
    assert_eq!(info.signal, Some(9));
    assert!(info.reason.contains("killed by signal 9"), "{info}");
    assert!(session.is_lost());
    assert!(matches!(session.run("1"), Err(Error::Crashed(_))));
    host_still_works();
}

#[test]
fn a_missing_worker_binary_is_a_configuration_error_naming_it() {
    let options = SessionOptions::new(Language::Python)
        .engine(stockade::Interpreter::Monty)
        .worker("/nonexistent/stockade-worker");
    match Session::new(options) {
        Err(Error::Configuration(err)) => {
            assert_eq!(err.kind(), stockade::ConfigurationKind::WorkerNotFound);
            assert!(
                err.message().contains("/nonexistent/stockade-worker"),
                "{err}"
            );
        }
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn a_worker_that_stops_reading_is_killed_after_the_write_stall_timeout() {
    // The fake never reads its input, so a feed larger than the pipe's
    // buffer cannot be written in full.
    let worker = fake_worker(&ready(), "exec sleep 30");
    let options = options(worker).write_stall_timeout(Duration::from_millis(300));
    let mut session = Session::new(options).unwrap();
    let code = format!("x = '{}'", "y".repeat(1024 * 1024));
    let info = crash_of(session.run(&code));
    assert!(info.reason.contains("stopped reading its input"), "{info}");
    assert_eq!(info.signal, Some(9));
    host_still_works();
}

/// The absolute path of a python3 for fakes that need real memory or
/// threads (a fake starts with an empty environment, so no PATH).
fn python3() -> String {
    let paths = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&paths)
        .map(|dir| dir.join("python3"))
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p).display().to_string())
        .expect("python3 is on PATH")
}

#[test]
fn the_supervisor_kills_a_worker_past_its_rss_ceiling_even_during_a_host_call() {
    // The fake claims Ready, then grows to 300 MiB resident; with max_memory
    // of 1 MiB its ceiling is about 73 MiB.
    let grow = format!(
        "exec {} -c \"x = bytearray(300 * 1024 * 1024); import time; time.sleep(30)\"",
        python3()
    );
    let options = options(fake_worker(&ready(), &grow)).max_memory(1024 * 1024);
    let mut session = Session::new(options).unwrap();
    match session.run("1") {
        Err(Error::Memory {
            worker_died,
            detail,
        }) => {
            assert!(worker_died);
            assert!(detail.contains("resident memory"), "{detail}");
        }
        other => panic!("expected the RSS ceiling to trip, got {other:?}"),
    }
    host_still_works();
}

#[test]
fn the_supervisor_kills_a_worker_with_too_many_threads() {
    let spawn = format!(
        "exec {} -c \"import threading, time\nfor _ in range(100): threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\ntime.sleep(30)\"",
        python3()
    );
    let mut session = Session::new(options(fake_worker(&ready(), &spawn))).unwrap();
    let info = crash_of(session.run("1"));
    assert!(info.reason.contains("above the cap of 64"), "{info}");
}

#[test]
fn a_worker_claiming_seccomp_without_it_on_every_thread_is_refused() {
    let mut claims = Response::Ready(WorkerInfo {
        protocol_version: 1,
        worker_version: "fake".into(),
        engine: "fake".into(),
        sandbox: SandboxReport {
            mode: SandboxMode::Auto,
            applied: vec!["seccomp".into()],
            missing: vec![],
            extras: vec![],
            seccomp_policy: None,
        },
    });
    let bytes = frame(&claims);
    match Session::new(options(fake_worker(&bytes, "exec sleep 30"))) {
        Err(Error::Crashed(info)) => {
            assert!(info.reason.contains("without the seccomp filter"), "{info}")
        }
        other => panic!("expected the claim to be caught, got {other:?}"),
    }
    if let Response::Ready(WorkerInfo { sandbox, .. }) = &mut claims {
        sandbox.applied.clear();
    }
    assert!(Session::new(options(fake_worker(&frame(&claims), "exec sleep 30"))).is_ok());
}

#[test]
fn a_worker_that_drips_a_frame_is_cut_off_at_the_deadline() {
    // Ready, then the header and a few bytes of a Complete, then nothing.
    let mut bytes = ready();
    let complete = frame(&Response::Complete {
        elapsed_us: 0,
        value: Value::Int(1),
    });
    bytes.extend_from_slice(&complete[..7]);
    let options =
        options(fake_worker(&bytes, "exec sleep 30")).request_timeout(Duration::from_millis(300));
    let mut session = Session::new(options).unwrap();
    let started = std::time::Instant::now();
    assert!(matches!(
        session.run("1"),
        Err(Error::Timeout {
            limit: TimeLimit::RequestTimeout,
            ..
        })
    ));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_worker_that_refuses_its_configuration_is_a_configuration_error() {
    let refusal = frame(&Response::Fatal {
        message: "sandbox layer seccomp is required but unavailable: no seccomp here".into(),
    });
    let worker = fake_worker(&refusal, "head -c 1 >/dev/null\nexit 78");
    match Session::new(options(worker)) {
        Err(Error::Configuration(err)) => {
            assert_eq!(err.kind(), stockade::ConfigurationKind::Refused);
            assert!(err.message().contains("seccomp is required"), "{err}")
        }
        other => panic!("expected a configuration error, got {other:?}"),
    }
}
