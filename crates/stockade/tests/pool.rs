//! The pool of ready workers, with real workers: single use, exhaustion as
//! a cold start, dead idle workers discarded, background refill, stats,
//! failing starts retried, close with sessions in use, many threads at
//! once; and the spare worker a standalone session keeps.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use stockade::{
    CheckoutOptions, Error, Language, Pool, PoolOptions, REFILL_DEFERRED_BY, Session,
    SessionOptions, Value,
};

fn pool(size: usize) -> Pool {
    let pool = Pool::new(
        SessionOptions::new(Language::Python),
        PoolOptions {
            size,
            max_concurrent_starts: 2,
        },
    )
    .expect("the pool starts");
    assert!(
        pool.wait_ready(Duration::from_secs(20)),
        "the pool never filled"
    );
    pool
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .is_ok_and(|status| !status.contains("State:\tZ"))
}

/// Whether `pid` stops running soon: a closed worker is killed at once,
/// though the kernel may take a moment to finish it.
fn stops_soon(pid: u32) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while running(pid) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}

#[test]
fn a_checked_out_worker_serves_one_session_and_dies_with_it() {
    let pool = pool(2);
    let mut seen = HashSet::new();
    for _ in 0..5 {
        let mut session = pool.checkout().unwrap();
        assert!(session.prestarted() || pool.stats().cold_starts > 0);
        let pid = session.worker_pid();
        assert!(seen.insert(pid), "worker {pid} was handed out twice");
        session.run("x = 1").unwrap();
        // Nothing the last session left behind is visible.
        drop(session);
        assert!(stops_soon(pid), "worker {pid} outlived its session");
        let mut next = pool.checkout().unwrap();
        assert!(matches!(next.run("x"), Err(Error::Guest(g)) if g.type_name == "NameError"));
        seen.insert(next.worker_pid());
    }
}

#[test]
fn an_empty_pool_is_a_cold_start_not_an_error() {
    let pool = pool(1);
    let first = pool.checkout().unwrap();
    let mut second = pool.checkout().unwrap();
    assert_eq!(second.run("1 + 1").unwrap(), Value::Int(2));
    let stats = pool.stats();
    assert_eq!(stats.checkouts, 2);
    assert!(stats.cold_starts >= 1, "{stats:?}");
    assert!(first.prestarted());
}

#[test]
fn a_pooled_worker_that_dies_while_idle_is_discarded_never_handed_out() {
    let pool = pool(2);
    let idle = pool.idle_worker_pids();
    assert_eq!(idle.len(), 2);
    for pid in &idle {
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(*pid as i32).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
    }
    std::thread::sleep(Duration::from_millis(100));
    let mut session = pool.checkout().unwrap();
    assert!(!idle.contains(&session.worker_pid()));
    assert_eq!(session.run("2 * 21").unwrap(), Value::Int(42));
    assert!(pool.stats().discarded >= 1, "{:?}", pool.stats());
}

#[test]
fn the_pool_refills_in_the_background_and_counts_what_it_did() {
    let pool = pool(3);
    assert_eq!(pool.stats().ready, 3);
    let sessions: Vec<Session> = (0..3).map(|_| pool.checkout().unwrap()).collect();
    assert!(pool.wait_ready(Duration::from_secs(20)));
    let stats = pool.stats();
    assert_eq!((stats.ready, stats.checkouts), (3, 3), "{stats:?}");
    assert_eq!(stats.last_error, None);
    drop(sessions);
}

#[test]
fn a_checkout_from_a_full_pool_defers_its_refill_and_an_emptied_pool_refills_at_once() {
    let pool = pool(2);
    let mut deferred = 0;
    let mut at_once = 0;
    for _ in 0..10 {
        assert!(pool.wait_ready(Duration::from_secs(20)));
        // The deferral counts from the checkout, which is after `taken`: a
        // look within REFILL_DEFERRED_BY of `taken` is inside it.
        let taken = Instant::now();
        let first = pool.checkout().expect("checkout");
        std::thread::sleep(REFILL_DEFERRED_BY / 2);
        let stats = pool.stats();
        if taken.elapsed() < REFILL_DEFERRED_BY {
            assert_eq!((stats.ready, stats.starting), (1, 0), "{stats:?}");
            deferred += 1;
        }
        // The last ready worker gone: the refill no longer waits.
        let emptied = Instant::now();
        let second = pool.checkout().expect("checkout");
        loop {
            let stats = pool.stats();
            if stats.starting + stats.ready > 0 {
                if emptied.elapsed() < REFILL_DEFERRED_BY / 2 {
                    at_once += 1;
                }
                break;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        drop((first, second));
    }
    assert!(deferred > 0, "no look landed inside the deferral");
    assert!(at_once > 0, "an emptied pool never refilled at once");
}

#[test]
fn checkout_options_set_parent_limits_and_cannot_raise_the_request_timeout() {
    let pool = pool(1);
    let mut session = pool
        .checkout_with(&CheckoutOptions {
            max_host_calls: Some(2),
            ..Default::default()
        })
        .unwrap();
    session.register_function("tick", |_| Ok(Value::None));
    assert!(matches!(
        session.run("for i in range(5):\n    tick()"),
        Err(Error::Guest(g)) if g.message.contains("max_host_calls")
    ));
    let too_long = CheckoutOptions {
        request_timeout: Some(Duration::from_secs(3600)),
        ..Default::default()
    };
    assert!(matches!(
        pool.checkout_with(&too_long),
        Err(Error::Configuration(m)) if m.message().contains("request_timeout")
    ));
}

#[test]
fn failing_starts_are_retried_with_backoff_and_reported() {
    // A worker that starts once (for the pool's constructor) and then fails,
    // and cannot be a template (so each start is a start from scratch).
    let real = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("stockade-worker");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("stockade-flaky-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("started");
    let script: PathBuf = dir.join("worker.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --template ]; then exit 1; fi\nif [ -e '{m}' ]; then echo 'no more workers' >&2; exit 1; fi\n: > '{m}'\nexec '{w}' \"$@\"\n",
            m = marker.display(),
            w = real.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let pool = Pool::new(
        SessionOptions::new(Language::Python)
            .engine(stockade::Interpreter::Monty)
            .worker(&script),
        PoolOptions {
            size: 2,
            max_concurrent_starts: 1,
        },
    )
    .unwrap();
    assert!(!pool.wait_ready(Duration::from_millis(500)));
    let stats = pool.stats();
    let error = stats.last_error.clone().unwrap_or_default();
    assert!(error.contains("no more workers"), "{stats:?}");
    // The one good worker is still handed out; the next checkout's cold
    // start fails with the same cause.
    let mut session = pool.checkout().unwrap();
    assert_eq!(session.run("1").unwrap(), Value::Int(1));
    assert!(pool.checkout().is_err());
}

#[test]
fn close_ends_idle_workers_and_leaves_checked_out_sessions_working() {
    let pool = pool(2);
    let mut mine = pool.checkout().unwrap();
    assert!(pool.wait_ready(Duration::from_secs(20)));
    let idle = pool.idle_worker_pids();
    assert_eq!(idle.len(), 2, "{idle:?}");
    assert!(!idle.contains(&mine.worker_pid()));
    pool.close();
    std::thread::sleep(Duration::from_millis(50));
    for pid in idle {
        assert!(stops_soon(pid), "idle worker {pid} survived close");
    }
    assert_eq!(mine.run("40 + 2").unwrap(), Value::Int(42));
    assert!(matches!(pool.checkout(), Err(Error::Configuration(_))));
}

#[test]
fn checkouts_from_several_threads_at_once_each_get_their_own_worker() {
    let pool = Arc::new(pool(4));
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                let mut session = pool.checkout().unwrap();
                let value = session.run_with_inputs("n * 2", vec![("n".into(), Value::Int(n))]);
                (session.worker_pid(), value.unwrap())
            })
        })
        .collect();
    let results: Vec<(u32, Value)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let pids: HashSet<u32> = results.iter().map(|(pid, _)| *pid).collect();
    assert_eq!(pids.len(), 8);
    let mut values: Vec<Value> = results.into_iter().map(|(_, v)| v).collect();
    values.sort_by_key(|v| match v {
        Value::Int(i) => *i,
        _ => -1,
    });
    assert_eq!(
        values,
        (0..8).map(|n| Value::Int(n * 2)).collect::<Vec<_>>()
    );
    assert_eq!(pool.stats().checkouts, 8);
}

#[test]
fn a_standalone_session_made_after_a_pause_takes_the_spare_worker() {
    // Options no other test uses, so this test's spare is its own.
    let options = || SessionOptions::new(Language::JavaScript).max_recursion_depth(777);
    let first = Session::new(options()).unwrap();
    assert!(!first.prestarted());
    std::thread::sleep(Duration::from_millis(500));
    let mut second = Session::new(options()).unwrap();
    assert!(second.prestarted(), "the spare was not ready after a pause");
    assert_ne!(first.worker_pid(), second.worker_pid());
    assert_eq!(second.run("6 * 7").unwrap(), Value::Int(42));
    // Without a spare, a session always starts cold.
    let cold = Session::new(options().spare(false)).unwrap();
    assert!(!cold.prestarted());
}

#[test]
fn a_forked_child_uses_a_pool_of_its_own_even_if_a_lock_was_held_at_the_fork() {
    let pool = Arc::new(pool(1));
    let parent_idle = pool.idle_worker_pids();
    // Another thread takes the pool's lock over and over, so the fork
    // almost surely copies it held.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hammers: Vec<_> = (0..2)
        .map(|_| {
            let pool = Arc::clone(&pool);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = pool.stats();
                    let _ = pool.idle_worker_pids();
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    // SAFETY: fork; the child only uses the pool (which must not touch the
    // parent's locks) and leaves with _exit, and a deadlock there ends at
    // the alarm.
    let child = unsafe { libc::fork() };
    assert!(child >= 0, "fork failed");
    if child == 0 {
        // SAFETY: alarm only arms a timer for this process.
        unsafe { libc::alarm(20) };
        let ok = pool.checkout().ok().and_then(|mut session| {
            let fresh = !parent_idle.contains(&session.worker_pid());
            session
                .run("6 * 7")
                .ok()
                .map(|v| fresh && v == Value::Int(42))
        });
        // SAFETY: _exit leaves without running the parent's destructors.
        unsafe { libc::_exit(if ok == Some(true) { 0 } else { 1 }) };
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for hammer in hammers {
        hammer.join().unwrap();
    }
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out-pointer.
    let waited = unsafe { libc::waitpid(child, &mut status, 0) };
    assert_eq!(waited, child);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child failed or hung (status {status:#x})"
    );
    // The parent's pool is untouched.
    assert_eq!(pool.idle_worker_pids(), parent_idle);
    let mut session = pool.checkout().unwrap();
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

#[test]
fn closing_never_waits_for_a_worker_and_the_unreaped_drain() {
    let pool = pool(2);
    let mut pids = Vec::new();
    for _ in 0..12 {
        let mut session = pool.checkout().unwrap();
        session.run("1 + 1").unwrap();
        pids.push(session.worker_pid());
        session.close();
        assert!(pool.stats().unreaped <= stockade::MAX_UNREAPED);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while stockade::unreaped_workers() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Every closed worker was reaped by the background reaper: none is
    // left as a process or a zombie.
    for pid in pids {
        assert!(
            std::fs::metadata(format!("/proc/{pid}")).is_err(),
            "worker {pid} was never reaped"
        );
    }
}
