//! A compromised worker attacks the host (`examples/hostile_worker.rs`):
//! whatever it sends, the host ends the turn by its deadline, never builds
//! more than `max_result_bytes` of what it sent, and kills it for breaking
//! the protocol; and real guests meet `max_result_bytes` the same way.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use stockade::{
    ConfigurationKind, Error, Language, RunLimits, Session, SessionOptions, TimeLimit, Value,
};

static LINKS: AtomicUsize = AtomicUsize::new(0);

/// A worker binary that runs the hostile worker in `mode`: a link named
/// after the mode.
fn hostile(mode: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let binary = profile_dir.join("examples").join("hostile_worker");
    assert!(
        binary.is_file(),
        "build the example first: {}",
        binary.display()
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "stockade-hostile-{}-{}",
        std::process::id(),
        LINKS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join(format!("hostile-{mode}"));
    std::os::unix::fs::symlink(&binary, &link).unwrap();
    link
}

fn session(mode: &str, options: impl FnOnce(SessionOptions) -> SessionOptions) -> Session {
    // The hostile worker stands in for the monty worker.
    let base = SessionOptions::new(Language::Python)
        .engine(stockade::Interpreter::Monty)
        .worker(hostile(mode))
        .spare(false)
        .request_timeout(Duration::from_secs(10));
    let mut session = Session::new(options(base)).unwrap();
    session.register_function("f", |_| Ok(Value::None));
    session
}

fn crash_reason(result: Result<Value, Error>) -> String {
    match result {
        Err(Error::Crashed(info)) => info.reason,
        other => panic!("expected the worker to be killed, got {other:?}"),
    }
}

#[test]
fn a_call_after_an_abort_kills_the_worker() {
    let mut session = session("calls-after-abort", |o| o.max_host_calls(3));
    let reason = crash_reason(session.run("f()"));
    assert!(
        reason.contains("sent a Call after the host ended its feed"),
        "{reason}"
    );
    assert!(session.is_lost());
}

#[test]
fn a_lookup_after_an_abort_kills_the_worker() {
    let mut session = session("lookups-after-abort", |o| o.max_host_calls(3));
    let reason = crash_reason(session.run("missing"));
    assert!(
        reason.contains("sent a Lookup after the host ended its feed"),
        "{reason}"
    );
}

#[test]
fn the_turn_deadline_is_never_reset_by_the_workers_own_traffic() {
    let mut session = session("slow-lookups", |o| {
        o.request_timeout(Duration::from_secs(1))
            .max_host_calls(u32::MAX)
    });
    let started = Instant::now();
    let result = session.run("missing");
    assert!(
        matches!(
            result,
            Err(Error::Timeout {
                limit: TimeLimit::RequestTimeout,
                ..
            })
        ),
        "{result:?}"
    );
    // A lookup every 50 ms used to restart the clock each time.
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn the_max_duration_backstop_ignores_the_time_the_worker_reports() {
    // The worker claims no guest time at every lookup; the backstop still
    // fires at max_duration + grace of the turn's wall clock.
    let mut session = session("slow-lookups", |o| {
        o.max_duration(Duration::from_millis(500))
            .duration_grace(Duration::from_millis(500))
            .max_host_calls(u32::MAX)
    });
    let started = Instant::now();
    match session.run("missing") {
        Err(Error::Crashed(info)) => assert!(info.timed_out, "{info:?}"),
        other => panic!("expected the backstop, got {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn an_empty_print_kills_the_worker() {
    let mut session = session("empty-prints", |o| o);
    let reason = crash_reason(session.run("1"));
    assert!(reason.contains("empty Print"), "{reason}");
}

#[test]
fn a_print_flood_never_holds_the_host_past_its_deadline() {
    // One-byte frames for ever, with an output allowance the flood never
    // reaches in time, and a print callback slower than the worker writes,
    // so the pipe never runs dry: only the deadline, checked between
    // frames, ends it.
    let mut session = session("tiny-prints", |o| {
        o.request_timeout(Duration::from_secs(1))
            .max_output_bytes(1 << 40)
    });
    let printed = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&printed);
    session.on_print(move |_, text| {
        counter.fetch_add(text.len() as u64, Ordering::Relaxed);
        std::thread::sleep(Duration::from_micros(20));
    });
    let started = Instant::now();
    let result = session.run("1");
    assert!(
        matches!(
            result,
            Err(Error::Timeout {
                limit: TimeLimit::RequestTimeout,
                ..
            })
        ),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(
        printed.load(Ordering::Relaxed) > 0,
        "the flood was received"
    );
}

#[test]
fn an_oversized_result_frame_is_skipped_unread_and_the_session_lives() {
    let mut session = session("oversized-result", |o| o);
    match session.run("1") {
        Err(Error::ResultTooLarge { limit }) => {
            assert_eq!(limit, SessionOptions::DEFAULT_MAX_RESULT_BYTES);
        }
        other => panic!("expected ResultTooLarge, got {other:?}"),
    }
    assert!(!session.is_lost());
    // The stream is still in step: the next feed gets its own answer.
    assert_eq!(session.run("2").unwrap(), Value::Int(7));
}

#[test]
fn sixteen_million_nones_are_refused_while_decoding_before_memory_is_spent() {
    let mut session = session("nones", |o| o);
    assert!(
        matches!(session.run("1"), Err(Error::ResultTooLarge { .. })),
        "a 16 MiB frame of Nones would take 768 MiB decoded"
    );
    assert_eq!(session.run("2").unwrap(), Value::Int(7));
}

#[test]
fn host_call_arguments_past_max_result_bytes_are_a_catchable_error_in_the_guest() {
    let mut session = session("huge-call-args", |o| o);
    let answer = session.run("f(big)").unwrap();
    let Value::Str(answer) = answer else {
        panic!("expected the worker's report, got {answer:?}");
    };
    assert!(
        answer.starts_with(
            "ValueError: the arguments of host function \"f\" would take more than max_result_bytes"
        ),
        "{answer}"
    );
}

fn real(language: Language, options: impl FnOnce(SessionOptions) -> SessionOptions) -> Session {
    Session::new(options(SessionOptions::new(language))).unwrap()
}

#[test]
fn max_result_bytes_refuses_a_real_result_and_the_session_lives() {
    for (language, big) in [
        (Language::Python, "list(range(100000))"),
        (
            Language::JavaScript,
            "Array.from({length: 100000}, (_, i) => i)",
        ),
    ] {
        let mut session = real(language, |o| o.max_result_bytes(1024 * 1024));
        match session.run(big) {
            Err(Error::ResultTooLarge { limit }) => assert_eq!(limit, 1024 * 1024),
            other => panic!("{language:?}: expected ResultTooLarge, got {other:?}"),
        }
        assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
    }
}

#[test]
fn a_run_may_tighten_max_result_bytes_but_never_loosen_it() {
    let mut session = real(Language::Python, |o| o.max_result_bytes(4096));
    let tight = RunLimits {
        max_result_bytes: Some(100),
    };
    assert!(matches!(
        session.run_with_limits("'x' * 200", Vec::new(), tight),
        Err(Error::ResultTooLarge { limit: 100 })
    ));
    assert_eq!(
        session
            .run_with_limits("'x' * 10", Vec::new(), tight)
            .unwrap(),
        Value::Str("x".repeat(10))
    );
    let loose = RunLimits {
        max_result_bytes: Some(1 << 30),
    };
    assert!(matches!(
        session.run_with_limits("'x' * 8000", Vec::new(), loose),
        Err(Error::ResultTooLarge { limit: 4096 })
    ));
}

#[test]
fn host_call_arguments_past_max_result_bytes_are_refused_for_real_guests() {
    let mut session = real(Language::Python, |o| o.max_result_bytes(64 * 1024));
    session.register_function("f", |_| Ok(Value::Int(1)));
    let caught = session
        .run("try:\n    f('x' * 100000)\nexcept ValueError as e:\n    r = str(e)\nr")
        .unwrap();
    assert!(
        matches!(&caught, Value::Str(text) if text.contains("max_result_bytes")),
        "{caught:?}"
    );
    assert_eq!(session.run("f('small')").unwrap(), Value::Int(1));
}

#[test]
fn max_result_bytes_out_of_range_is_a_configuration_error() {
    for bytes in [0, stockade::MAX_RESULT_BYTES + 1] {
        let options = SessionOptions::new(Language::Python).max_result_bytes(bytes);
        assert!(matches!(
            Session::new(options),
            Err(Error::Configuration(err))
                if err.kind() == ConfigurationKind::InvalidOption
                    && err.message().contains("max_result_bytes")
        ));
    }
}
