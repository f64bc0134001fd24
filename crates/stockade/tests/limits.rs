//! Every limit trips with its documented error, and the host and the next
//! session survive, on both Python engines (CPython and monty).

#[macro_use]
mod engines;

use std::time::{Duration, Instant};

use stockade::{Error, Interpreter, Language, Session, SessionOptions, TimeLimit, Value};

fn options(engine: Interpreter) -> SessionOptions {
    engines::remote::maybe_remote(SessionOptions::new(Language::Python).engine(engine))
}

fn next_session_works() {
    let mut session = Session::new(SessionOptions::new(Language::Python)).unwrap();
    assert_eq!(session.run("6 * 7").unwrap(), Value::Int(42));
}

fn a_busy_loop_trips_max_duration_and_the_session_stays_out_of_time(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).max_duration(Duration::from_millis(300))).unwrap();
    match session.run("while True:\n    pass") {
        Err(Error::Timeout { limit, after }) => {
            assert_eq!(limit, TimeLimit::MaxDuration);
            assert_eq!(after, Duration::from_millis(300));
        }
        other => panic!("expected a max_duration timeout, got {other:?}"),
    }
    assert!(session.elapsed() >= Duration::from_millis(300));
    // The budget is cumulative: the next feed is out of time at once.
    assert!(matches!(
        session.run("1"),
        Err(Error::Timeout {
            limit: TimeLimit::MaxDuration,
            ..
        })
    ));
    next_session_works();
}

fn the_guest_cannot_catch_the_time_limit(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).max_duration(Duration::from_millis(200))).unwrap();
    let code = "try:\n    while True:\n        pass\nexcept BaseException:\n    caught = True";
    assert!(matches!(session.run(code), Err(Error::Timeout { .. })));
}

fn max_duration_is_cumulative_across_feeds(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).max_duration(Duration::from_millis(400))).unwrap();
    let spin = "n = 0\nfor i in range(300000):\n    n += i";
    let mut feeds = 0;
    let err = loop {
        match session.run(spin) {
            Ok(_) => feeds += 1,
            Err(err) => break err,
        }
        assert!(feeds < 10_000, "the budget never ran out");
    };
    assert!(
        matches!(
            err,
            Error::Timeout {
                limit: TimeLimit::MaxDuration,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(feeds >= 1, "one short feed should fit in the budget");
}

fn time_in_host_functions_does_not_count_toward_max_duration(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).max_duration(Duration::from_millis(300))).unwrap();
    session.register_function("slow", |_| {
        std::thread::sleep(Duration::from_millis(600));
        Ok(Value::Int(1))
    });
    assert_eq!(session.run("slow() + 1").unwrap(), Value::Int(2));
    assert!(
        session.elapsed() < Duration::from_millis(300),
        "{:?}",
        session.elapsed()
    );
}

fn request_timeout_kills_the_worker_and_the_session_stays_lost(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).request_timeout(Duration::from_millis(500))).unwrap();
    let pid = session.worker_pid();
    let started = Instant::now();
    let err = session.run("while True:\n    pass").unwrap_err();
    assert!(
        matches!(
            err,
            Error::Timeout {
                limit: TimeLimit::RequestTimeout,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.loses_session());
    assert!(
        std::fs::read_to_string(format!("/proc/{pid}/status")).is_err(),
        "the worker still runs"
    );
    // Every later call fails at once with the same error.
    let again = Instant::now();
    assert_eq!(session.run("1").unwrap_err(), err);
    assert!(again.elapsed() < started.elapsed());
    next_session_works();
}

fn time_in_host_functions_does_not_count_toward_request_timeout(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).request_timeout(Duration::from_millis(500))).unwrap();
    session.register_function("slow", |_| {
        std::thread::sleep(Duration::from_millis(900));
        Ok(Value::Str("done".into()))
    });
    assert_eq!(session.run("slow()").unwrap(), Value::Str("done".into()));
}

fn a_huge_list_is_a_memory_error_and_the_next_session_works(engine: Interpreter) {
    let mut session = Session::new(options(engine)).unwrap();
    match session.run("x = [0] * 10**10") {
        Err(Error::Memory { detail, .. }) => assert!(detail.contains("memory"), "{detail}"),
        other => panic!("expected a memory error, got {other:?}"),
    }
    next_session_works();
}

#[test]
fn the_guest_cannot_catch_the_memory_limit() {
    // On monty; CPython's MemoryError is catchable by design
    // (cpython_max_memory_is_a_catchable_memory_error_and_the_session_lives).
    let mut session =
        Session::new(options(Interpreter::Monty).max_memory(64 * 1024 * 1024)).unwrap();
    let code = "try:\n    x = 'a' * (10**9)\nexcept BaseException:\n    caught = True";
    assert!(matches!(session.run(code), Err(Error::Memory { .. })));
}

fn a_guest_raised_memory_error_is_a_guest_exception_not_the_memory_limit(engine: Interpreter) {
    let mut session = Session::new(options(engine).max_memory(64 * 1024 * 1024)).unwrap();
    // The very words monty's limit check writes, with the real limit in them.
    for code in [
        "raise MemoryError('memory limit exceeded: 2000000000 bytes > 67108864 bytes')",
        "raise MemoryError('memory limit exceeded: 2000000000 bytes > 1073741824 bytes')",
        "raise MemoryError('max_memory exceeded')",
    ] {
        match session.run(code) {
            Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "MemoryError"),
            other => panic!("{code}: expected a guest exception, got {other:?}"),
        }
    }
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn the_memory_limit_is_known_from_the_tracker_and_names_max_memory(engine: Interpreter) {
    let mut session = Session::new(options(engine).max_memory(64 * 1024 * 1024)).unwrap();
    match session.run("x = 'a' * (10**9)") {
        Err(Error::Memory {
            detail,
            worker_died: false,
        }) => assert!(
            detail.ends_with("> 67108864 bytes (max_memory)"),
            "{detail}"
        ),
        other => panic!("expected the memory limit, got {other:?}"),
    }
    // Gradual growth trips the same check.
    match session.run("chunks = []\nwhile True:\n    chunks.append('b' * 1000000)") {
        Err(Error::Memory { detail, .. }) => assert!(detail.contains("(max_memory)"), "{detail}"),
        other => panic!("expected the memory limit, got {other:?}"),
    }
}

fn a_refused_allocation_ends_the_worker_with_a_memory_error(engine: Interpreter) {
    // A feed larger than the allocator's cap cannot even be received.
    let mut session = Session::new(options(engine).max_memory(1024 * 1024)).unwrap();
    let code = format!("s = '{}'", "x".repeat(40 * 1024 * 1024));
    match session.run(&code) {
        Err(Error::Memory {
            worker_died,
            detail,
        }) => {
            assert!(worker_died);
            assert!(detail.contains("max_memory"), "{detail}");
        }
        other => panic!("expected the allocator to refuse, got {other:?}"),
    }
    assert!(session.is_lost());
    assert!(matches!(
        session.run("1"),
        Err(Error::Memory {
            worker_died: true,
            ..
        })
    ));
    next_session_works();
}

fn deep_recursion_is_a_catchable_recursion_error(engine: Interpreter) {
    let mut session = Session::new(options(engine)).unwrap();
    let code = "def down(n):\n    return down(n + 1)\ndown(0)";
    match session.run(code) {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "RecursionError"),
        other => panic!("expected RecursionError, got {other:?}"),
    }
    let caught = "try:\n    down(0)\nexcept RecursionError:\n    r = 'caught'\nr";
    assert_eq!(session.run(caught).unwrap(), Value::Str("caught".into()));
}

fn the_recursion_limit_is_configurable(engine: Interpreter) {
    let mut session = Session::new(options(engine).max_recursion_depth(50)).unwrap();
    let code = "def depth(n):\n    return n if n == 0 else depth(n - 1)\n";
    session.run(code).unwrap();
    assert_eq!(session.run("depth(40)").unwrap(), Value::Int(0));
    assert!(
        matches!(session.run("depth(60)"), Err(Error::Guest(g)) if g.type_name == "RecursionError")
    );
}

#[test]
fn invalid_options_are_configuration_errors_naming_the_option() {
    let bad = options(Interpreter::CPython).request_timeout(Duration::ZERO);
    assert!(
        matches!(Session::new(bad), Err(Error::Configuration(m)) if m.message().contains("request_timeout"))
    );
    let bad = options(Interpreter::CPython).max_memory(0);
    assert!(
        matches!(Session::new(bad), Err(Error::Configuration(m)) if m.message().contains("max_memory"))
    );
    let bad = options(Interpreter::CPython).max_recursion_depth(0);
    assert!(
        matches!(Session::new(bad), Err(Error::Configuration(m)) if m.message().contains("max_recursion_depth"))
    );
}

on_both_python_engines_and_remote!(
    a_busy_loop_trips_max_duration_and_the_session_stays_out_of_time,
    the_guest_cannot_catch_the_time_limit,
    max_duration_is_cumulative_across_feeds,
    time_in_host_functions_does_not_count_toward_max_duration,
    request_timeout_kills_the_worker_and_the_session_stays_lost,
    time_in_host_functions_does_not_count_toward_request_timeout,
    a_huge_list_is_a_memory_error_and_the_next_session_works,
    a_guest_raised_memory_error_is_a_guest_exception_not_the_memory_limit,
    the_memory_limit_is_known_from_the_tracker_and_names_max_memory,
    a_refused_allocation_ends_the_worker_with_a_memory_error,
    deep_recursion_is_a_catchable_recursion_error,
    the_recursion_limit_is_configurable,
);
