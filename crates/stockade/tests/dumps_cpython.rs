//! Journaled dumps of CPython sessions: the clock (`time`, `datetime`),
//! the randomness (`random`, `os.urandom`, `uuid`) and the string hash a
//! session used replay identically in a fresh worker, in this process or
//! another, without running a host function; a replay that goes another
//! way is caught.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use stockade::{DumpSeal, Error, Interpreter, Language, Progress, Session, SessionOptions, Value};

fn seal() -> DumpSeal {
    DumpSeal::new(&[[7u8; 32]], "cpython-journal").unwrap()
}

fn dumpable() -> SessionOptions {
    SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .dumpable(true)
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

/// What the session drew from outside, read back.
const DRAWN: &str = "[t0, t0_ns, m0, p0, others, repr(d0), repr(dz), str(today), r, u, b, token, names, t1, d, stamp]";

const FIRST: &str = "\
import time, datetime, random, uuid, os, secrets
t0 = time.time()
others = [time.perf_counter_ns(), time.monotonic_ns(), time.process_time(), time.thread_time(),
          list(time.localtime()), list(time.gmtime()), time.ctime(), time.asctime()]
t0_ns = time.time_ns()
m0 = time.monotonic()
p0 = time.perf_counter()
d0 = datetime.datetime.now()
dz = datetime.datetime.now(datetime.timezone.utc)
today = datetime.date.today()
r = [random.random(), random.randrange(10**6), random.Random().random()]
u = str(uuid.uuid4())
b = os.urandom(12).hex()
token = [secrets.token_hex(8), random.SystemRandom().random(), os.getrandom(4).hex()]
names = list({'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'})
";

#[test]
fn a_cpython_session_that_read_the_clock_and_random_replays_identically() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = with_double(dumpable(), &calls);
    session.run(FIRST).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    session
        .run("t1 = time.time(); stamp = time.strftime('%Y-%m-%d %H:%M:%S'); d = double(21)")
        .unwrap();
    let before = session.run(DRAWN).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let bytes = session.dump(&seal()).unwrap();

    let restored_calls = Arc::new(AtomicUsize::new(0));
    let mut restored = Session::restore(dumpable(), &seal(), &bytes).unwrap();
    assert_ne!(restored.worker_pid(), session.worker_pid());
    let counter = Arc::clone(&restored_calls);
    restored.register_function("double", move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
        Ok(Value::None)
    });
    assert_eq!(restored.run(DRAWN).unwrap(), before);
    // The replay answered `double` from the journal: the host ran nothing.
    assert_eq!(restored_calls.load(Ordering::SeqCst), 0);
    // From here on the copy draws numbers and bytes of its own: two
    // restores of one dump never share them.
    let after = "after = [random.random(), os.urandom(4).hex(), str(uuid.uuid4()), random.Random().random()]\nafter";
    assert_ne!(restored.run(after).unwrap(), session.run(after).unwrap());
    // And the restored session can be dumped and restored again: its
    // reseed replays too, so the third session drew what the second did.
    let again = restored.dump(&seal()).unwrap();
    let mut third = Session::restore(dumpable(), &seal(), &again).unwrap();
    assert_eq!(
        third.run("[t0, d, b, after]").unwrap(),
        restored.run("[t0, d, b, after]").unwrap()
    );
}

#[test]
fn two_dumpable_cpython_sessions_draw_different_randomness() {
    let draw = "import os, random; [os.urandom(16).hex(), random.random()]";
    let first = Session::new(dumpable()).unwrap().run(draw).unwrap();
    let second = Session::new(dumpable()).unwrap().run(draw).unwrap();
    assert_ne!(first, second);
}

#[test]
fn a_cpython_session_with_functions_classes_closures_and_a_large_dict_restores() {
    let mut session = Session::new(dumpable()).unwrap();
    session
        .run(
            "class Counter:\n    def __init__(self, start):\n        self.n = start\n    def bump(self):\n        self.n += 1\n        return self.n\n\
             def adder(k):\n    return lambda x: x + k\n\
             add5 = adder(5)\n\
             counter = Counter(10)\n\
             big = {i: str(i) for i in range(100_000)}\n\
             counter.bump()",
        )
        .unwrap();
    let check = "[counter.bump(), add5(37), len(big), big[99_999]]";
    let bytes = session.dump(&seal()).unwrap();
    let mut restored = Session::restore(dumpable(), &seal(), &bytes).unwrap();
    let expected = Value::List(vec![
        Value::Int(12),
        Value::Int(42),
        Value::Int(100_000),
        Value::Str("99999".into()),
    ]);
    assert_eq!(restored.run(check).unwrap(), expected);
    assert_eq!(session.run(check).unwrap(), expected);
}

#[test]
fn a_stepped_cpython_session_restores_at_its_cursor_in_another_process() {
    if let Ok(path) = std::env::var("STOCKADE_TEST_CPYTHON_RESTORE_FROM") {
        // The child: restore what the parent wrote, answer the call and
        // print what the feed gives.
        let bytes = std::fs::read(path).unwrap();
        let mut restored = Session::restore(dumpable(), &seal(), &bytes).unwrap();
        let Some(Progress::FunctionCall(call)) = restored.pending() else {
            panic!("the restored session waits at the call");
        };
        assert_eq!(call.name(), "approve");
        let Progress::Complete(value) = call.resume(Value::Int(2)).unwrap() else {
            panic!("expected the feed to complete");
        };
        println!("RESTORED {value:?}");
        return;
    }
    let mut session = Session::new(dumpable()).unwrap();
    session.declare_function("approve");
    session
        .run("import random, time\nbase = 40\nstarted = time.time()")
        .unwrap();
    // The call's arguments are what the replay checks: drawn from the
    // clock and the generator, they match only if both replay.
    let bytes = match session
        .start(
            "got = approve(random.random(), at=time.time() - started)\nbase + got",
            Vec::new(),
        )
        .unwrap()
    {
        Progress::FunctionCall(mut call) => call.dump(&seal()).unwrap(),
        other => panic!("expected the call, got {other:?}"),
    };
    drop(session);
    let dir = std::env::temp_dir().join(format!("stockade-cpython-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("session.dump");
    std::fs::write(&path, bytes).unwrap();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_stepped_cpython_session_restores_at_its_cursor_in_another_process",
            "--nocapture",
        ])
        .env("STOCKADE_TEST_CPYTHON_RESTORE_FROM", &path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(stdout.contains("RESTORED Int(42)"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cpython_replay_that_goes_another_way_is_caught_and_the_session_is_lost() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut session = with_double(dumpable().max_recursion_depth(200), &calls);
    session
        .run("import sys\nx = double(sys.getrecursionlimit())")
        .unwrap();
    let bytes = session.dump(&seal()).unwrap();
    // The restoring host's limits apply: the guest asks for another number.
    match Session::restore(dumpable().max_recursion_depth(300), &seal(), &bytes) {
        Err(Error::ReplayDiverged(message)) => {
            assert!(message.contains("double"), "{message}");
            assert!(message.contains("feed 1"), "{message}");
        }
        other => panic!("expected a divergence, got {other:?}"),
    }
}

#[test]
fn a_cpython_session_that_is_not_dumpable_says_how_to_make_one() {
    let plain = SessionOptions::new(Language::Python).engine(Interpreter::CPython);
    let mut session = Session::new(plain).unwrap();
    session.run("a = 1").unwrap();
    match session.dump(&seal()) {
        Err(Error::Configuration(err)) => {
            assert!(err.message().contains("dumpable"), "{}", err.message());
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(session.run("a + 1").unwrap(), Value::Int(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_asyncio_feed_with_sleeps_and_async_host_calls_replays() {
    let session = stockade::AsyncSession::new(dumpable()).await.unwrap();
    let made = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&made);
    session.register_async_function("fetch", move |args| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            match args.get(0) {
                Some(Value::Int(n)) => Ok(Value::Int(n * 10)),
                _ => Ok(Value::None),
            }
        }
    });
    let code = "import asyncio, time, random\n\
        async def one(n):\n    await asyncio.sleep(random.random() / 100)\n    return await fetch(n), time.monotonic()\n\
        got = await asyncio.gather(*(one(n) for n in range(4)))\n\
        [v for v, _ in got]";
    assert_eq!(
        session.run(code).await.unwrap(),
        Value::List((0..4).map(|n| Value::Int(n * 10)).collect())
    );
    assert_eq!(made.load(Ordering::SeqCst), 4);
    let before = session.run("got").await.unwrap();
    let bytes = session.dump(Arc::new(seal())).await.unwrap();
    let restored = stockade::AsyncSession::restore(dumpable(), Arc::new(seal()), bytes)
        .await
        .unwrap();
    assert_eq!(restored.run("got").await.unwrap(), before);
    assert_eq!(
        made.load(Ordering::SeqCst),
        4,
        "the replay ran no host function"
    );
}

#[test]
fn a_dumpable_cpython_guest_meets_the_functions_it_knows() {
    let mut session = Session::new(dumpable()).unwrap();
    let checks = "\
import os, pickle, random, sys, threading, time, datetime
def raises(kind, f, *args):
    try:
        f(*args)
    except kind:
        return True
    return False
drawn = []
def draw():
    for _ in range(200):
        drawn.append(os.urandom(16))
threads = [threading.Thread(target=draw) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
[
    [f.__name__ for f in (time.time, time.localtime, time.strftime, os.urandom, random.seed)],
    raises(TypeError, time.strftime, '%Y', None),
    raises(TypeError, time.asctime, None),
    raises(TypeError, os.urandom, 1.5),
    raises(ValueError, os.urandom, -1),
    list(time.gmtime(0))[:6] == [1970, 1, 1, 0, 0, 0],
    pickle.loads(pickle.dumps(os.urandom)) is os.urandom,
    'PYTHONHASHSEED' in os.environ,
    hasattr(sys.modules['stockade_cpython'], 'read_clock'),
    len(set(drawn)) == len(drawn) == 800,
    datetime.datetime.now(datetime.timezone.utc).tzinfo is datetime.timezone.utc,
]";
    let Value::List(got) = session.run(checks).unwrap() else {
        panic!("expected a list");
    };
    let names = Value::List(
        ["time", "localtime", "strftime", "urandom", "seed"]
            .map(|name| Value::Str(name.into()))
            .to_vec(),
    );
    let t = Value::Bool(true);
    let f = Value::Bool(false);
    assert_eq!(
        got,
        vec![
            names,
            t.clone(),
            t.clone(),
            t.clone(),
            t.clone(),
            t.clone(),
            t.clone(),
            f.clone(),
            f,
            t.clone(),
            t
        ]
    );
}
