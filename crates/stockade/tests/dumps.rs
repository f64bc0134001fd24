//! Session dumps: a monty session, idle or suspended at a cursor, sealed to
//! bytes and restored in a fresh worker, in this process and in another;
//! and every way a dump can be wrong, refused before a worker sees it.

use std::time::{Duration, Instant};

use stockade::{
    DumpSeal, Error, Interpreter, Language, Progress, Session, SessionOptions, TimeLimit, Value,
};

const KEY: [u8; 32] = [0x5a; 32];

fn monty() -> SessionOptions {
    SessionOptions::new(Language::Python).engine(Interpreter::Monty)
}

fn seal() -> DumpSeal {
    DumpSeal::new(&[KEY], "conversation-1").unwrap()
}

const STATE: &str = "\
class Counter:
    def __init__(self, start):
        self.n = start
    def bump(self):
        self.n += 1
        return self.n

def make_adder(k):
    def add(x):
        return x + k
    return add

add5 = make_adder(5)
counter = Counter(10)
counter.bump()
table = {i: i * i for i in range(100000)}
";

const CHECK: &str = "[add5(1), counter.bump(), len(table), table[99999], Counter(1).bump()]";

fn checked() -> Value {
    Value::List(vec![
        Value::Int(6),
        Value::Int(12),
        Value::Int(100_000),
        Value::Int(99_999 * 99_999),
        Value::Int(2),
    ])
}

#[test]
fn an_idle_session_with_functions_classes_closures_and_a_big_dict_restores_and_continues() {
    let mut session = Session::new(monty()).unwrap();
    session.run(STATE).unwrap();
    let bytes = session.dump(&seal()).unwrap();
    // The dumped session goes on as before.
    assert_eq!(session.run(CHECK).unwrap(), checked());

    let mut restored = Session::restore(monty(), &seal(), &bytes).unwrap();
    assert_ne!(restored.worker_pid(), session.worker_pid());
    assert!(restored.pending().is_none());
    assert_eq!(restored.run(CHECK).unwrap(), checked());
    assert_eq!(restored.run("counter.bump()").unwrap(), Value::Int(13));
}

#[test]
fn a_dump_restores_in_another_process() {
    if let Ok(path) = std::env::var("STOCKADE_TEST_RESTORE_FROM") {
        // The child: restore what the parent wrote and print what it finds.
        let bytes = std::fs::read(path).unwrap();
        let mut restored = Session::restore(monty(), &seal(), &bytes).unwrap();
        println!("RESTORED {}", restored.run(CHECK).unwrap());
        return;
    }
    let mut session = Session::new(monty()).unwrap();
    session.run(STATE).unwrap();
    let dir = std::env::temp_dir().join(format!("stockade-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.dump");
    std::fs::write(&path, session.dump(&seal()).unwrap()).unwrap();
    drop(session);
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_dump_restores_in_another_process",
            "--nocapture",
        ])
        .env("STOCKADE_TEST_RESTORE_FROM", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(
        stdout.contains(&format!("RESTORED {}", checked())),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_suspended_session_restores_at_its_cursor_and_both_go_on() {
    let mut session = Session::new(monty()).unwrap();
    session.declare_function("approve");
    session.run("total = 40").unwrap();
    let (cursor, bytes) = match session
        .start(
            "answer = approve('transfer', amount=2)\ntotal + answer",
            Vec::new(),
        )
        .unwrap()
    {
        Progress::FunctionCall(call) => (call.cursor(), session_dump(call)),
        other => panic!("expected the call, got {other:?}"),
    };

    let mut restored = Session::restore(monty(), &seal(), &bytes).unwrap();
    let Some(Progress::FunctionCall(call)) = restored.pending() else {
        panic!("the restored session waits at the call");
    };
    assert_eq!(call.cursor(), cursor);
    assert_eq!(call.name(), "approve");
    assert_eq!(call.args().positional, [Value::Str("transfer".into())]);
    assert_eq!(call.args().kwarg("amount"), Some(&Value::Int(2)));
    let Progress::Complete(value) = call.resume(Value::Int(2)).unwrap() else {
        panic!("expected the feed to complete");
    };
    assert_eq!(value, Value::Int(42));
    assert_eq!(restored.run("answer").unwrap(), Value::Int(2));

    // The original was unaffected by the dump and answers its own way.
    let Some(Progress::FunctionCall(call)) = session.pending() else {
        panic!("the original still waits at the call");
    };
    let Progress::Complete(value) = call.resume(Value::Int(-40)).unwrap() else {
        panic!("expected the feed to complete");
    };
    assert_eq!(value, Value::Int(0));
}

/// A cursor's dump: the session's, taken while it waits there.
fn session_dump(mut call: stockade::FunctionCall<'_>) -> Vec<u8> {
    call.dump(&seal()).unwrap()
}

#[test]
fn a_session_awaiting_deferred_calls_restores_with_them_pending() {
    let mut session = Session::new(monty()).unwrap();
    session.declare_function("fetch");
    let code = "import asyncio\nasync def main():\n    return await asyncio.gather(fetch(1), fetch(2))\nawait main()";
    let mut progress = session.start(code, Vec::new()).unwrap();
    while let Progress::FunctionCall(call) = progress {
        progress = call.resume_pending().unwrap();
    }
    let Progress::PendingFutures(mut futures) = progress else {
        panic!("expected the guest to await");
    };
    let ids = futures.call_ids().to_vec();
    let bytes = futures.dump(&seal()).unwrap();
    let mut restored = Session::restore(monty(), &seal(), &bytes).unwrap();
    let Some(Progress::PendingFutures(futures)) = restored.pending() else {
        panic!("the restored session awaits the calls");
    };
    assert_eq!(futures.call_ids(), ids);
    let results = ids
        .iter()
        .map(|id| (*id, Ok(Value::Int(i64::from(*id) * 10))))
        .collect();
    let Progress::Complete(Value::List(values)) = futures.resolve(results).unwrap() else {
        panic!("expected the list");
    };
    assert_eq!(values.len(), 2);
}

#[test]
fn cumulative_guest_time_travels_in_the_dump() {
    let mut session = Session::new(monty()).unwrap();
    session
        .run("n = 0\nwhile n < 3_000_000:\n    n += 1")
        .unwrap();
    let used = session.elapsed();
    assert!(used > Duration::from_millis(50), "{used:?}");
    let bytes = session.dump(&seal()).unwrap();
    let budget = used + Duration::from_millis(150);
    let mut restored = Session::restore(monty().max_duration(budget), &seal(), &bytes).unwrap();
    assert!(restored.elapsed() >= used);
    let started = Instant::now();
    match restored.run("while True:\n    pass") {
        Err(Error::Timeout { limit, .. }) => assert_eq!(limit, TimeLimit::MaxDuration),
        other => panic!("expected max_duration to end the loop, got {other:?}"),
    }
    // Only what was left of the budget ran, not the whole of it.
    assert!(
        started.elapsed() < budget,
        "{:?} of {budget:?}",
        started.elapsed()
    );
}

fn small_dump() -> Vec<u8> {
    let mut session = Session::new(monty()).unwrap();
    session.run("x = 1").unwrap();
    session.dump(&seal()).unwrap()
}

/// Options whose worker cannot start: a restore that got as far as a worker
/// would fail with a configuration error instead.
fn no_worker() -> SessionOptions {
    monty().worker("/nonexistent/stockade-worker").spare(false)
}

#[test]
fn every_flipped_byte_truncation_wrong_key_and_context_is_refused_before_any_worker() {
    let bytes = small_dump();
    for at in 0..bytes.len() {
        let mut altered = bytes.clone();
        altered[at] ^= 0x01;
        match Session::restore(no_worker(), &seal(), &altered) {
            Err(Error::DumpVersionMismatch { found, .. }) => {
                assert!((8..10).contains(&at), "byte {at}: {found}");
            }
            Err(Error::DumpRejected(_)) => assert!(!(8..10).contains(&at), "byte {at}"),
            other => panic!("byte {at} flipped: {other:?}"),
        }
    }
    for len in [0, 7, 20, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(
                Session::restore(no_worker(), &seal(), &bytes[..len]),
                Err(Error::DumpRejected(_))
            ),
            "cut at {len}"
        );
    }
    let other_key = DumpSeal::new(&[[0x11u8; 32]], "conversation-1").unwrap();
    let other_context = DumpSeal::new(&[KEY], "conversation-2").unwrap();
    for wrong in [other_key, other_context] {
        assert!(matches!(
            Session::restore(no_worker(), &wrong, &bytes),
            Err(Error::DumpRejected(_))
        ));
    }
    // Rotation: a new first key, the old one still opens.
    let rotated = DumpSeal::new(&[[0x11u8; 32], KEY], "conversation-1").unwrap();
    let mut restored = Session::restore(monty(), &rotated, &bytes).unwrap();
    assert_eq!(restored.run("x").unwrap(), Value::Int(1));
}

#[test]
fn a_dump_of_another_engine_or_format_version_is_refused_naming_both() {
    let bytes = small_dump();
    let javascript = SessionOptions::new(Language::JavaScript);
    match Session::restore(javascript, &seal(), &bytes) {
        Err(Error::DumpRejected(message)) => {
            assert!(
                message.contains("monty") && message.contains("quickjs"),
                "{message}"
            );
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
    let mut old = bytes.clone();
    old[8..10].copy_from_slice(&0u16.to_le_bytes());
    match Session::restore(no_worker(), &seal(), &old) {
        Err(Error::DumpVersionMismatch { found, expected }) => {
            assert_eq!(found, "dump format 0");
            assert_eq!(expected, "dump format 1");
        }
        other => panic!("expected a version mismatch, got {other:?}"),
    }
}

#[test]
fn short_or_missing_keys_are_refused() {
    assert!(matches!(
        DumpSeal::new(&[[0u8; 16]], "c"),
        Err(Error::Configuration(_))
    ));
    assert!(matches!(
        DumpSeal::new::<[u8; 32]>(&[], "c"),
        Err(Error::Configuration(_))
    ));
}

#[test]
fn a_dump_past_the_frame_limit_is_an_error_and_the_session_lives() {
    let mut session = Session::new(monty().max_memory(2 << 30)).unwrap();
    session.run("big = 'x' * 300_000_000").unwrap();
    match session.dump(&seal()) {
        Err(Error::Protocol(message) | Error::Conversion(message)) => {
            assert!(
                message.contains("cross") || message.contains("frame"),
                "{message}"
            );
        }
        other => panic!("expected the dump to be refused, got {other:?}"),
    }
    assert_eq!(session.run("len(big)").unwrap(), Value::Int(300_000_000));
}

#[test]
fn a_dump_restores_into_a_fresh_pool_checkout_but_not_into_a_used_session() {
    let bytes = small_dump();
    let pool = stockade::Pool::new(monty(), stockade::PoolOptions::default()).unwrap();
    let mut checkout = pool.checkout().unwrap();
    checkout.restore_into(&seal(), &bytes).unwrap();
    assert_eq!(checkout.run("x + 1").unwrap(), Value::Int(2));
    // Restoring again, or into a session that ran code, is refused.
    for mut used in [checkout, {
        let mut s = Session::new(monty()).unwrap();
        s.run("y = 2").unwrap();
        s
    }] {
        match used.restore_into(&seal(), &bytes) {
            Err(Error::DumpRejected(message)) => assert!(message.contains("fresh"), "{message}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

#[test]
fn a_suspended_call_with_a_nan_argument_restores() {
    let mut session = Session::new(monty()).unwrap();
    session.declare_function("approve");
    let bytes = match session.start("approve(float('nan'))", Vec::new()).unwrap() {
        Progress::FunctionCall(mut call) => call.dump(&seal()).unwrap(),
        other => panic!("expected the call, got {other:?}"),
    };
    let mut restored = Session::restore(monty(), &seal(), &bytes).unwrap();
    assert!(matches!(
        restored.pending(),
        Some(Progress::FunctionCall(_))
    ));
}
