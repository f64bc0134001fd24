//! Journaled dumps (QuickJS): a dumpable session's feeds, host answers and
//! clock readings replay in a fresh worker, identically, without running a
//! host function; a replay that goes another way is caught.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use stockade::{
    DumpSeal, Error, JavaScriptOptions, Language, Progress, Session, SessionOptions, Value,
};

fn seal() -> DumpSeal {
    DumpSeal::new(&[[9u8; 32]], "js-journal").unwrap()
}

fn dumpable_js() -> SessionOptions {
    SessionOptions::new(Language::JavaScript).dumpable(true)
}

/// A session with `double`, which counts its calls.
fn with_double(options: SessionOptions, calls: &Arc<AtomicUsize>) -> Session {
    let mut session = Session::new(options).unwrap();
    let counter = Arc::clone(calls);
    session.register_function("double", move |args| {
        counter.fetch_add(1, Ordering::SeqCst);
        match args.get(0) {
            Some(Value::Int(n)) => Ok(Value::Int(n * 2)),
            _ => Ok(Value::None),
        }
    });
    session
}

#[test]
fn a_javascript_session_that_read_the_clock_and_random_replays_identically() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = with_double(dumpable_js(), &calls);
    session
        .run("globalThis.t0 = Date.now(); globalThis.r = [Math.random(), Math.random()]")
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    session
        .run("globalThis.t1 = new Date().getTime(); globalThis.p = performance.now(); globalThis.d = double(21)")
        .unwrap();
    let state = "[t0, t1, r, p, d, String(new Date(t0).getTime() === t0)]";
    let before = session.run(state).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let bytes = session.dump(&seal()).unwrap();

    let restored_calls = Arc::new(AtomicUsize::new(0));
    let mut restored = Session::restore(dumpable_js(), &seal(), &bytes).unwrap();
    let counter = Arc::clone(&restored_calls);
    restored.register_function("double", move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok(Value::None)
    });
    assert_eq!(restored.run(state).unwrap(), before);
    // The replay answered `double` from the journal: the host ran nothing.
    assert_eq!(restored_calls.load(Ordering::SeqCst), 0);
    // From here on the copy draws numbers of its own: two restores of
    // one dump never share them.
    let after = "globalThis.after = [Math.random(), Math.random()]; after";
    assert_ne!(restored.run(after).unwrap(), session.run(after).unwrap());
    // And the restored session can be dumped and restored again: its
    // reseed replays too, so the third session drew what the second did.
    let again = restored.dump(&seal()).unwrap();
    let mut third = Session::restore(dumpable_js(), &seal(), &again).unwrap();
    assert_eq!(
        third.run("[t0, d, after]").unwrap(),
        restored.run("[t0, d, after]").unwrap()
    );
}

#[test]
fn a_stepped_javascript_session_restores_at_its_cursor() {
    let mut session = Session::new(dumpable_js()).unwrap();
    session.declare_function("approve");
    session
        .run("globalThis.base = Math.random() > 2 ? 0 : 40")
        .unwrap();
    let bytes = match session
        .start("const got = approve('ok'); base + got", Vec::new())
        .unwrap()
    {
        Progress::FunctionCall(mut call) => call.dump(&seal()).unwrap(),
        other => panic!("expected the call, got {other:?}"),
    };
    let mut restored = Session::restore(dumpable_js(), &seal(), &bytes).unwrap();
    let Some(Progress::FunctionCall(call)) = restored.pending() else {
        panic!("the restored session waits at the call");
    };
    assert_eq!(call.name(), "approve");
    let Progress::Complete(value) = call.resume(Value::Int(2)).unwrap() else {
        panic!("expected the feed to complete");
    };
    assert_eq!(value, Value::Int(42));
}

#[test]
fn a_replay_that_goes_another_way_is_caught_and_the_session_is_lost() {
    let calls = Arc::new(AtomicUsize::new(0));
    let polyfilled = dumpable_js().javascript(JavaScriptOptions {
        web_polyfills: true,
        ..JavaScriptOptions::default()
    });
    let mut session = with_double(polyfilled, &calls);
    session
        .run("globalThis.x = double(typeof setTimeout === 'function' ? 1 : 2)")
        .unwrap();
    let bytes = session.dump(&seal()).unwrap();
    // Without the polyfills the guest calls double(2), not double(1).
    match Session::restore(dumpable_js(), &seal(), &bytes) {
        Err(Error::ReplayDiverged(message)) => {
            assert!(message.contains("double"), "{message}");
            assert!(message.contains("feed 1"), "{message}");
        }
        other => panic!("expected a divergence, got {other:?}"),
    }
}

#[test]
fn a_feed_that_ended_at_a_time_limit_makes_the_session_undumpable() {
    let mut session = Session::new(dumpable_js().max_duration(Duration::from_millis(200))).unwrap();
    session.run("globalThis.n = 1").unwrap();
    assert!(matches!(
        session.run("for (;;) {}"),
        Err(Error::Timeout { .. })
    ));
    match session.dump(&seal()) {
        Err(Error::Configuration(err)) => {
            assert!(
                err.message().contains("time or memory limit"),
                "{}",
                err.message()
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_javascript_session_without_a_journal_says_how_to_get_one() {
    let mut session = Session::new(SessionOptions::new(Language::JavaScript)).unwrap();
    session.run("1").unwrap();
    match session.dump(&seal()) {
        Err(Error::Configuration(err)) => {
            assert!(err.message().contains("dumpable"), "{}", err.message())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn clock_readings_before_a_cursor_travel_in_its_dump() {
    let mut session = Session::new(dumpable_js()).unwrap();
    session.declare_function("approve");
    let code = "const t0 = Date.now(); const got = approve(NaN); [t0, got]";
    let bytes = match session.start(code, Vec::new()).unwrap() {
        Progress::FunctionCall(mut call) => call.dump(&seal()).unwrap(),
        other => panic!("expected the call, got {other:?}"),
    };
    let Some(Progress::FunctionCall(call)) = session.pending() else {
        panic!("still waiting");
    };
    let Progress::Complete(original) = call.resume(Value::Int(1)).unwrap() else {
        panic!("expected the feed to complete");
    };
    std::thread::sleep(Duration::from_millis(20));
    let mut restored = Session::restore(dumpable_js(), &seal(), &bytes).unwrap();
    // The pause's NaN argument matches itself, and t0 is the first session's.
    let Some(Progress::FunctionCall(call)) = restored.pending() else {
        panic!("the restored session waits at the call");
    };
    let Progress::Complete(replayed) = call.resume(Value::Int(1)).unwrap() else {
        panic!("expected the feed to complete");
    };
    assert_eq!(replayed, original);
}

#[test]
fn feeds_that_raised_any_kind_of_error_replay() {
    let mut session = Session::new(dumpable_js()).unwrap();
    session.run("globalThis.kept = 7").unwrap();
    assert!(matches!(
        session.run("throw new RangeError('no')"),
        Err(Error::Guest(_))
    ));
    let revoked = "const r = Proxy.revocable({}, {}); r.revoke(); r.proxy";
    assert!(session.run(revoked).is_err());
    let bytes = session.dump(&seal()).unwrap();
    let mut restored = Session::restore(dumpable_js(), &seal(), &bytes).unwrap();
    assert_eq!(restored.run("kept").unwrap(), Value::Int(7));
}

#[test]
fn a_value_too_large_to_take_makes_the_session_undumpable() {
    let mut session = Session::new(dumpable_js().max_result_bytes(4096)).unwrap();
    assert!(matches!(
        session.run("'x'.repeat(100000)"),
        Err(Error::ResultTooLarge { .. })
    ));
    match session.dump(&seal()) {
        Err(Error::Configuration(err)) => {
            assert!(err.message().contains("too large"), "{}", err.message())
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_feed_reading_the_clock_more_often_than_one_message_carries_replays() {
    // 2^20 readings fit one Clock message; this feed makes more, and so
    // does the next one, which must not be refused for the first's sake.
    let mut session = Session::new(dumpable_js()).unwrap();
    let code = "{ let last = 0; for (let i = 0; i < 1100000; i++) last = Date.now(); globalThis.t = last; } 1";
    assert_eq!(session.run(code).unwrap(), Value::Int(1));
    assert_eq!(session.run(code).unwrap(), Value::Int(1));
    let before = session.run("t").unwrap();
    let bytes = session.dump(&seal()).unwrap();
    let mut restored = Session::restore(dumpable_js(), &seal(), &bytes).unwrap();
    assert_eq!(restored.run("t").unwrap(), before);
}
