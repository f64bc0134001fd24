//! Sessions on real workers: state, inputs, host functions, lookups, prints
//! and values, each on both Python engines (CPython and monty), and most of
//! them also on a loopback server of sessions.

#[macro_use]
mod engines;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use stockade::{
    BigInt, Date, DateTime, Error, HostError, Interpreter, Language, PrintStream, SandboxMode,
    Session, SessionOptions, Time, TimeDelta, Value,
};

fn options(engine: Interpreter) -> SessionOptions {
    engines::remote::maybe_remote(SessionOptions::new(Language::Python).engine(engine))
}

fn python(engine: Interpreter) -> Session {
    Session::new(options(engine)).expect("a Python session starts")
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn state_persists_across_feeds(engine: Interpreter) {
    let mut session = python(engine);
    assert_eq!(
        session
            .run("x = 40\ndef inc(n):\n    return n + 1")
            .unwrap(),
        Value::None
    );
    assert_eq!(session.run("x = inc(x)").unwrap(), Value::None);
    assert_eq!(session.run("inc(x)").unwrap(), Value::Int(42));
}

fn the_trailing_expression_is_the_result(engine: Interpreter) {
    let mut session = python(engine);
    assert_eq!(session.run("a = 2\na * 21").unwrap(), Value::Int(42));
    assert_eq!(session.run("b = 1").unwrap(), Value::None);
}

fn inputs_are_bound_as_globals_and_persist(engine: Interpreter) {
    let mut session = python(engine);
    let inputs = vec![(
        "items".to_owned(),
        Value::List(vec![Value::Int(1), Value::Int(2)]),
    )];
    assert_eq!(
        session.run_with_inputs("sum(items)", inputs).unwrap(),
        Value::Int(3)
    );
    assert_eq!(session.run("len(items)").unwrap(), Value::Int(2));
}

fn host_functions_receive_positional_and_keyword_arguments(engine: Interpreter) {
    let mut session = python(engine);
    session.register_function("describe", |args| {
        let positional: Vec<String> = args.positional.iter().map(ToString::to_string).collect();
        let keyword: Vec<String> = args
            .keyword
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        Ok(Value::Str(format!(
            "{} | {}",
            positional.join(","),
            keyword.join(",")
        )))
    });
    assert_eq!(
        session
            .run("describe(1, 'two', [3], flag=True, n=None)")
            .unwrap(),
        s("1,'two',[3] | flag=True,n=None")
    );
}

fn a_host_function_can_be_passed_around_and_called_by_reference(engine: Interpreter) {
    let mut session = python(engine);
    session.register_function("double", |args| match args.get(0) {
        Some(Value::Int(i)) => Ok(Value::Int(i * 2)),
        other => Err(HostError::type_error(format!(
            "double() takes an int, not {other:?}"
        ))),
    });
    assert_eq!(
        session.run("g = double\n[g(i) for i in range(3)]").unwrap(),
        Value::List(vec![Value::Int(0), Value::Int(2), Value::Int(4)])
    );
}

fn an_exception_raised_by_a_host_function_is_catchable_in_the_guest(engine: Interpreter) {
    let mut session = Session::new(options(engine).show_host_errors()).unwrap();
    session.register_function("fetch", |_| {
        Err(HostError::new("KeyError", "no such record"))
    });
    let code =
        "try:\n    fetch('x')\nexcept KeyError as e:\n    result = 'caught: ' + str(e)\nresult";
    assert_eq!(session.run(code).unwrap(), s("caught: 'no such record'"));
    match session.run("fetch('y')") {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "KeyError");
            assert!(
                guest.traceback.contains("fetch('y')"),
                "{}",
                guest.traceback
            );
        }
        other => panic!("expected the KeyError to reach the host, got {other:?}"),
    }
    assert_eq!(
        session.run("1 + 1").unwrap(),
        Value::Int(2),
        "the session lives"
    );
}

fn a_panicking_host_function_raises_in_the_guest_and_the_host_survives(engine: Interpreter) {
    let mut session = Session::new(options(engine).show_host_errors()).unwrap();
    session.register_function("bad", |_| panic!("host bug"));
    match session.run("bad()") {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RuntimeError");
            assert!(guest.message.contains("panicked"), "{}", guest.message);
        }
        other => panic!("expected a RuntimeError, got {other:?}"),
    }
    assert_eq!(session.run("'still here'").unwrap(), s("still here"));
}

fn undefined_names_are_looked_up_on_the_host(engine: Interpreter) {
    let mut session = python(engine);
    session
        .set_global("config", Value::Dict(vec![(s("mode"), s("fast"))]))
        .unwrap();
    assert_eq!(session.run("config['mode']").unwrap(), s("fast"));
    match session.run("missing_name + 1") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "NameError"),
        other => panic!("expected NameError, got {other:?}"),
    }
    match session.run("missing_function(1)") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "NameError"),
        other => panic!("expected NameError for an unknown function, got {other:?}"),
    }
    match session.run("config(1)") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "TypeError"),
        other => panic!("expected TypeError for calling a value, got {other:?}"),
    }
}

fn prints_reach_the_callback_in_order_around_host_calls(engine: Interpreter) {
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut session = python(engine);
    let printed = Arc::clone(&events);
    session.on_print(move |stream, text| {
        assert_eq!(stream, PrintStream::Stdout);
        printed.lock().unwrap().push(format!("print:{text}"));
    });
    let called = Arc::clone(&events);
    session.register_function("step", move |args| {
        called
            .lock()
            .unwrap()
            .push(format!("call:{}", args.positional[0]));
        Ok(Value::None)
    });
    session
        .run("print('a')\nstep(1)\nprint('b', 'c')\nstep(2)\nprint('d')")
        .unwrap();
    let events = events.lock().unwrap().concat();
    assert_eq!(events, "print:a\ncall:1print:b c\ncall:2print:d\n");
}

fn all_kinds() -> Vec<(String, Value)> {
    let big: BigInt = BigInt::from(2).pow(100) * -1;
    vec![
        ("none".into(), Value::None),
        ("flag".into(), Value::Bool(true)),
        ("small".into(), Value::Int(-7)),
        ("big".into(), Value::BigInt(big)),
        ("real".into(), Value::Float(2.5)),
        ("text".into(), s("naïve ☃")),
        ("blob".into(), Value::Bytes(vec![0, 255, 10])),
        (
            "items".into(),
            Value::List(vec![Value::Int(1), s("x"), Value::None]),
        ),
        (
            "pair".into(),
            Value::Tuple(vec![Value::Int(1), Value::Float(0.5)]),
        ),
        (
            "mapping".into(),
            Value::Dict(vec![
                (
                    Value::Tuple(vec![Value::Int(1), Value::Int(2)]),
                    s("tuple key"),
                ),
                (Value::Int(3), Value::List(vec![])),
            ]),
        ),
        ("members".into(), Value::Set(vec![Value::Int(5)])),
        ("frozen".into(), Value::FrozenSet(vec![s("f")])),
        (
            "day".into(),
            Value::Date(Date {
                year: 2024,
                month: 2,
                day: 29,
            }),
        ),
        (
            "moment".into(),
            Value::DateTime(DateTime {
                date: Date {
                    year: 2026,
                    month: 11,
                    day: 30,
                },
                time: Time {
                    hour: 1,
                    minute: 2,
                    second: 3,
                    microsecond: 456,
                    offset_seconds: Some(3600),
                },
            }),
        ),
        (
            "clock".into(),
            Value::Time(Time {
                hour: 23,
                minute: 59,
                second: 0,
                microsecond: 0,
                offset_seconds: None,
            }),
        ),
        (
            "span".into(),
            Value::TimeDelta(TimeDelta {
                days: -2,
                seconds: 30,
                microseconds: 7,
            }),
        ),
    ]
}

fn every_value_kind_round_trips_through_the_guest(engine: Interpreter) {
    let mut session = python(engine);
    for (name, value) in all_kinds() {
        let back = session
            .run_with_inputs(&name, vec![(name.clone(), value.clone())])
            .unwrap();
        assert_eq!(back, value, "{name} came back changed");
    }
}

fn every_value_kind_round_trips_through_a_host_function(engine: Interpreter) {
    let mut session = python(engine);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    session.register_function("echo", move |args| {
        sink.lock().unwrap().push(args.positional[0].clone());
        Ok(args.positional[0].clone())
    });
    for (name, value) in all_kinds() {
        let back = session
            .run_with_inputs(
                &format!("echo({name})"),
                vec![(name.clone(), value.clone())],
            )
            .unwrap();
        assert_eq!(back, value, "{name} came back changed");
    }
    assert_eq!(seen.lock().unwrap().len(), all_kinds().len());
}

fn python_values_are_built_in_the_guest_and_read_on_the_host(engine: Interpreter) {
    let mut session = python(engine);
    let value = session
        .run("import datetime\n{'d': datetime.date(2020, 1, 31), 'big': 2**70, 'set': {1}, 'exc': ValueError('v')}")
        .unwrap();
    let Value::Dict(pairs) = value else {
        panic!("expected a dict")
    };
    assert_eq!(
        pairs[0],
        (
            s("d"),
            Value::Date(Date {
                year: 2020,
                month: 1,
                day: 31
            })
        )
    );
    assert_eq!(pairs[1].1, Value::BigInt(BigInt::from(2).pow(70)));
    assert_eq!(pairs[2].1, Value::Set(vec![Value::Int(1)]));
    assert!(
        matches!(&pairs[3].1, Value::Exception(e) if e.type_name == "ValueError" && e.message == "v")
    );
}

fn guest_values_with_no_equivalent_cross_as_their_repr_and_cycles_as_markers(engine: Interpreter) {
    let mut session = python(engine);
    match session.run("def f():\n    pass\nf").unwrap() {
        Value::Repr(text) => assert!(text.contains("function"), "{text}"),
        other => panic!("expected a repr, got {other:?}"),
    }
    let cyclic = session.run("a = [1]\na.append(a)\na").unwrap();
    assert_eq!(
        cyclic,
        Value::List(vec![Value::Int(1), Value::Cycle("[...]".into())])
    );
}

fn output_only_values_are_refused_as_inputs_naming_the_path(engine: Interpreter) {
    let mut session = python(engine);
    let input = Value::Dict(vec![(s("k"), Value::List(vec![Value::Repr("<x>".into())]))]);
    match session.run_with_inputs("data", vec![("data".into(), input)]) {
        Err(Error::Conversion(message)) => assert!(message.contains("data['k'][0]"), "{message}"),
        other => panic!("expected a conversion error, got {other:?}"),
    }
    assert_eq!(
        session.run("1").unwrap(),
        Value::Int(1),
        "the session lives"
    );
}

fn a_host_function_result_too_deep_for_the_wire_is_a_catchable_error_in_the_guest(
    engine: Interpreter,
) {
    let mut session = python(engine);
    session.register_function("deep", |_| {
        let mut value = Value::None;
        for _ in 0..100 {
            value = Value::List(vec![value]);
        }
        Ok(value)
    });
    let code =
        "try:\n    deep()\n    r = 'no error'\nexcept TypeError as e:\n    r = 'TypeError'\nr";
    assert_eq!(session.run(code).unwrap(), s("TypeError"));
}

fn a_syntax_error_is_its_own_error_and_the_session_lives(engine: Interpreter) {
    let mut session = python(engine);
    session.run("kept = 1").unwrap();
    assert!(matches!(session.run("def broken(:"), Err(Error::Syntax(_))));
    assert_eq!(session.run("kept").unwrap(), Value::Int(1));
}

fn the_worker_starts_with_an_empty_environment(engine: Interpreter) {
    let session = python(engine);
    let environ = std::fs::read(format!("/proc/{}/environ", session.worker_pid())).unwrap();
    assert!(
        environ.is_empty(),
        "the worker inherited {:?}",
        String::from_utf8_lossy(&environ)
    );
}

fn the_worker_reports_itself_in_ready(engine: Interpreter) {
    let session = python(engine);
    let info = session.worker_info();
    assert_eq!(info.protocol_version, stockade::PROTOCOL_VERSION);
    assert!(info.engine.starts_with("python"), "{}", info.engine);
}

#[test]
fn operating_system_calls_reach_only_what_the_host_gave() {
    // monty asks the host for every OS call; with no mount and no environ
    // given, files outside its scratch are refused and the environment
    // names only that scratch (docs/files.md).
    // CPython has the OS calls and the sandbox under them
    // (cpython_guests_reach_nothing_outside_the_sandbox).
    let mut session =
        Session::new(SessionOptions::new(Language::Python).engine(stockade::Interpreter::Monty))
            .unwrap();
    let code = "import os\nfrom pathlib import Path\ntry:\n    Path('/etc/hostname').read_text()\n    r = 'allowed'\nexcept PermissionError as e:\n    r = 'refused'\n[r, os.getenv('HOME')]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![s("refused"), s("/tmp")])
    );
}

fn elapsed_guest_time_is_reported(engine: Interpreter) {
    let mut session = python(engine);
    session
        .run("n = 0\nfor i in range(100000):\n    n += i")
        .unwrap();
    assert!(session.elapsed() > Duration::ZERO);
}

fn closing_a_session_ends_its_worker(engine: Interpreter) {
    let session = python(engine);
    let pid = session.worker_pid();
    session.close();
    // Killed at once (SIGKILL), and reaped off the caller's path: it is
    // gone soon after, whatever state the kernel shows on the way.
    let state = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                status
                    .lines()
                    .find_map(|line| line.strip_prefix("State:").map(|s| s.trim().to_owned()))
            })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while state(pid).is_some() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(state(pid).is_none(), "worker {pid} was never reaped");
}

fn a_large_print_arrives_whole_and_in_order(engine: Interpreter) {
    let printed = Arc::new(Mutex::new(String::new()));
    let mut session = python(engine);
    let sink = Arc::clone(&printed);
    session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
    session
        .run("print('a' * 200000)\nprint('é' * 70000)")
        .unwrap();
    let expected = format!("{}\n{}\n", "a".repeat(200_000), "é".repeat(70_000));
    assert_eq!(*printed.lock().unwrap(), expected);
}

fn an_input_name_that_is_not_an_identifier_is_refused_and_the_session_lives(engine: Interpreter) {
    let mut session = python(engine);
    for name in ["not valid", "1st", "class", ""] {
        match session.run_with_inputs("1", vec![(name.into(), Value::Int(1))]) {
            Err(Error::Conversion(message)) => {
                assert!(message.contains("not a Python identifier"), "{message}")
            }
            other => panic!("expected a conversion error for {name:?}, got {other:?}"),
        }
    }
    let ok = vec![
        ("_private".into(), Value::Int(1)),
        ("naïve2".into(), Value::Int(2)),
    ];
    assert_eq!(
        session.run_with_inputs("_private + naïve2", ok).unwrap(),
        Value::Int(3)
    );
}

fn a_default_session_runs_under_every_sandbox_layer_as_nobody(engine: Interpreter) {
    let session = python(engine);
    let report = &session.worker_info().sandbox;
    assert!(report.is_complete(), "missing layers: {:?}", report.missing);
    for layer in [
        "namespaces",
        "empty-root",
        "landlock-filesystem",
        "seccomp",
        "self-test",
    ] {
        assert!(
            report.applied.iter().any(|l| l == layer),
            "{layer} not applied: {report:?}"
        );
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", session.worker_pid())).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(field("Seccomp:").ends_with('2'), "{}", field("Seccomp:"));
    assert!(field("NoNewPrivs:").ends_with('1'));
    assert!(field("CapEff:").ends_with("0000000000000000"));
    if rustix::process::geteuid().is_root() {
        assert!(field("Uid:").contains("65534"), "{}", field("Uid:"));
    }
}

fn require_mode_starts_on_this_kernel_and_off_mode_applies_nothing(engine: Interpreter) {
    let mut strict = Session::new(options(engine).sandbox(SandboxMode::Require)).unwrap();
    assert!(strict.worker_info().sandbox.is_complete());
    assert_eq!(strict.run("1 + 1").unwrap(), Value::Int(2));
    let mut off = Session::new(options(engine).sandbox(SandboxMode::Off)).unwrap();
    assert!(off.worker_info().sandbox.applied.is_empty());
    assert!(!off.worker_info().sandbox.is_complete());
    assert_eq!(off.run("1 + 1").unwrap(), Value::Int(2));
}

fn host_function_errors_are_redacted_by_default_keeping_their_class(engine: Interpreter) {
    let mut session = python(engine);
    session.register_function("secret", |_| {
        Err(HostError::new("KeyError", "db password is hunter2"))
    });
    session.register_function("boom", |_| panic!("internal path /srv/app leaked"));
    let code = "try:\n    secret()\nexcept KeyError as e:\n    r = str(e)\nr";
    assert_eq!(session.run(code).unwrap(), s("'host function failed'"));
    match session.run("boom()") {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RuntimeError");
            assert_eq!(guest.message, stockade::REDACTED);
            assert!(!guest.traceback.contains("/srv/app"));
        }
        other => panic!("expected a redacted RuntimeError, got {other:?}"),
    }
}

/// The outcome of a feed `max_host_calls` ended: the uncatchable
/// RuntimeError naming the limit, whatever the guest caught.
fn assert_ended_past_max_host_calls(outcome: Result<Value, Error>) {
    match outcome {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RuntimeError");
            assert!(
                guest.message.contains("max_host_calls"),
                "{}",
                guest.message
            );
        }
        other => panic!("expected the feed to end, got {other:?}"),
    }
}

fn max_host_calls_ends_the_feed_uncatchably_and_the_session_lives(engine: Interpreter) {
    let mut session = Session::new(options(engine).max_host_calls(5)).unwrap();
    let count = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&count);
    session.register_function("tick", move |_| {
        *counter.lock().unwrap() += 1;
        Ok(Value::None)
    });
    let code = "n = 0\nwhile True:\n    try:\n        tick()\n        n += 1\n    except BaseException:\n        pass";
    assert_ended_past_max_host_calls(session.run(code));
    // The Feed names `tick`, so it needs no lookup: five calls run and the
    // sixth, over the limit, never does.
    assert_eq!(
        *count.lock().unwrap(),
        5,
        "the call over the limit must not run"
    );
    assert_eq!(session.run("n").unwrap(), Value::Int(5));
    assert_eq!(
        session.run("tick()\n'again'").unwrap(),
        s("again"),
        "the count is per feed"
    );
}

fn a_feed_the_host_ended_stays_ended_however_its_handlers_nest(engine: Interpreter) {
    let options = options(engine)
        .max_host_calls(3)
        .request_timeout(Duration::from_secs(20));
    let mut session = Session::new(options).unwrap();
    session.register_function("tick", |_| Ok(Value::None));
    // Three loops of handlers that catch everything, one inside the other,
    // a `finally` that asks the host again, and a count of the catches.
    let code = "caught = 0\nwhile True:\n    try:\n        while True:\n            try:\n                while True:\n                    try:\n                        tick()\n                    except BaseException:\n                        caught += 1\n            except BaseException:\n                caught += 1\n            finally:\n                try:\n                    tick()\n                except BaseException:\n                    caught += 1\n    except BaseException:\n        caught += 1";
    assert_ended_past_max_host_calls(session.run(code));
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
    assert_eq!(session.run("tick()\n'again'").unwrap(), s("again"));
}

fn a_sync_host_function_past_max_host_wait_is_a_timeout_in_the_guest(engine: Interpreter) {
    let options = options(engine).max_host_wait(Duration::from_millis(100));
    let mut session = Session::new(options).unwrap();
    session.register_function("slow", |_| {
        std::thread::sleep(Duration::from_millis(300));
        Ok(Value::Int(1))
    });
    match session.run("slow()") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "TimeoutError"),
        other => panic!("expected a TimeoutError, got {other:?}"),
    }
}

fn output_past_max_output_bytes_is_cut_with_a_marker(engine: Interpreter) {
    let printed = Arc::new(Mutex::new(String::new()));
    let options = options(engine).max_output_bytes(1000);
    let mut session = Session::new(options).unwrap();
    let sink = Arc::clone(&printed);
    session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
    session
        .run("for i in range(100000):\n    print('x' * 50)\n'done'")
        .unwrap();
    let text = printed.lock().unwrap().clone();
    assert!(text.starts_with(&"x".repeat(50)));
    assert!(
        text.ends_with("[stockade: output truncated after 1000 bytes]\n"),
        "{}",
        &text[text.len() - 80..]
    );
    assert!(text.len() < 1200, "{} bytes arrived", text.len());
    printed.lock().unwrap().clear();
    session.run("print('fresh feed')").unwrap();
    assert_eq!(
        *printed.lock().unwrap(),
        "fresh feed\n",
        "the budget is per feed"
    );
}

#[test]
fn name_lookups_count_toward_max_host_calls() {
    // monty asks each time the line runs; CPython asks once, before the
    // feed (cpython_names_nothing_defines_are_asked_before_the_feed_and_count).
    let mut session = Session::new(
        SessionOptions::new(Language::Python)
            .engine(stockade::Interpreter::Monty)
            .max_host_calls(20),
    )
    .unwrap();
    let code = "misses = 0\nwhile True:\n    try:\n        undefined_name\n    except BaseException:\n        misses += 1";
    assert_ended_past_max_host_calls(session.run(code));
    assert_eq!(session.run("misses").unwrap(), Value::Int(20));
}

fn an_interrupt_check_kills_a_running_worker_and_loses_the_session(engine: Interpreter) {
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut session = python(engine);
    let pid = session.worker_pid();
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    session.set_interrupt(move || flag.load(Ordering::Relaxed));
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        stop.store(true, Ordering::Relaxed);
    });
    let started = std::time::Instant::now();
    assert_eq!(
        session.run("while True:\n    pass"),
        Err(Error::Interrupted)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    setter.join().unwrap();
    assert_eq!(session.run("1"), Err(Error::Interrupted));
    // The worker is gone.
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}/status")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/status"))
                .unwrap_or_default()
                .contains("State:\tZ")
    );
}

fn an_unregistered_function_the_guest_still_holds_raises_name_error(engine: Interpreter) {
    let mut session = python(engine);
    session.register_function("temp", |_| Ok(Value::Int(1)));
    session.run("held = temp\nfirst = held()").unwrap();
    assert!(session.unregister_function("temp"));
    assert!(!session.unregister_function("temp"));
    let code = "try:\n    held()\n    r = 'called'\nexcept NameError as e:\n    r = str(e)\nr";
    assert_eq!(
        session.run(code).unwrap(),
        s("host function \"temp\" is no longer available")
    );
    assert_eq!(session.run("first").unwrap(), Value::Int(1));
}

#[test]
fn the_workers_warm_up_leaves_no_state_and_no_guest_time() {
    for (language, probe) in [
        (
            Language::Python,
            "try:\n    f\n    r = 'leaked'\nexcept NameError:\n    r = 'clean'\nr",
        ),
        (
            Language::JavaScript,
            "typeof f === 'undefined' ? 'clean' : 'leaked'",
        ),
    ] {
        let mut session = Session::new(SessionOptions::new(language).spare(false)).unwrap();
        assert_eq!(session.elapsed(), Duration::ZERO);
        assert_eq!(session.run(probe).unwrap(), s("clean"));
    }
}

fn a_later_worker_skips_the_seccomp_test_fire_an_earlier_one_verified(engine: Interpreter) {
    let options = || options(engine).spare(false);
    let first = Session::new(options()).unwrap();
    let policy = first.worker_info().sandbox.seccomp_policy;
    assert!(policy.is_some(), "{:?}", first.worker_info().sandbox);
    let mut second = Session::new(options()).unwrap();
    let report = &second.worker_info().sandbox;
    assert_eq!(report.seccomp_policy, policy);
    assert!(report.applied.iter().any(|layer| layer == "seccomp"));
    assert!(
        report
            .extras
            .iter()
            .any(|note| note.contains("test-fire skipped")),
        "{report:?}"
    );
    // The host runs no feed unless every worker thread is under seccomp,
    // so this run shows the filter is in force without the test-fire.
    assert_eq!(second.run("1 + 1").unwrap(), Value::Int(2));
}

fn a_line_printed_before_a_hang_reaches_the_host(engine: Interpreter) {
    let mut session =
        Session::new(options(engine).request_timeout(Duration::from_millis(800))).unwrap();
    let printed = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&printed);
    session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
    let outcome = session.run("print('before the hang')\nwhile True:\n    pass");
    assert!(matches!(outcome, Err(Error::Timeout { .. })), "{outcome:?}");
    assert_eq!(*printed.lock().unwrap(), "before the hang\n");
}

// Each also on a loopback server of sessions (`engines/remote.rs`).
on_both_python_engines_and_remote!(
    a_line_printed_before_a_hang_reaches_the_host,
    state_persists_across_feeds,
    the_trailing_expression_is_the_result,
    inputs_are_bound_as_globals_and_persist,
    host_functions_receive_positional_and_keyword_arguments,
    a_host_function_can_be_passed_around_and_called_by_reference,
    an_exception_raised_by_a_host_function_is_catchable_in_the_guest,
    a_panicking_host_function_raises_in_the_guest_and_the_host_survives,
    undefined_names_are_looked_up_on_the_host,
    prints_reach_the_callback_in_order_around_host_calls,
    every_value_kind_round_trips_through_the_guest,
    every_value_kind_round_trips_through_a_host_function,
    python_values_are_built_in_the_guest_and_read_on_the_host,
    guest_values_with_no_equivalent_cross_as_their_repr_and_cycles_as_markers,
    output_only_values_are_refused_as_inputs_naming_the_path,
    a_host_function_result_too_deep_for_the_wire_is_a_catchable_error_in_the_guest,
    a_syntax_error_is_its_own_error_and_the_session_lives,
    the_worker_reports_itself_in_ready,
    elapsed_guest_time_is_reported,
    a_large_print_arrives_whole_and_in_order,
    an_input_name_that_is_not_an_identifier_is_refused_and_the_session_lives,
    host_function_errors_are_redacted_by_default_keeping_their_class,
    max_host_calls_ends_the_feed_uncatchably_and_the_session_lives,
    a_feed_the_host_ended_stays_ended_however_its_handlers_nest,
    a_sync_host_function_past_max_host_wait_is_a_timeout_in_the_guest,
    output_past_max_output_bytes_is_cut_with_a_marker,
    an_unregistered_function_the_guest_still_holds_raises_name_error,
);

fn execute_keeps_each_stream_to_its_cap_and_the_callbacks_see_it_all(engine: Interpreter) {
    let mut session = python(engine);
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&seen);
    session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
    let limits = stockade::ExecuteLimits {
        max_stream_bytes: 100,
        ..Default::default()
    };
    // monty's print takes no file=: its stderr is CPython's to show here.
    let (to_stderr, on_stderr) = match engine {
        Interpreter::CPython => ("import sys\nprint('é', file=sys.stderr)\n", "é\n"),
        _ => ("", ""),
    };
    let code = format!("print('x' * 5000)\n{to_stderr}7");
    let done = session.execute(&code, vec![], limits);
    assert_eq!(done.outcome, Ok(Value::Int(7)));
    assert_eq!(done.stdout.text, "x".repeat(100));
    assert_eq!(
        done.stdout.dropped, 4901,
        "the rest of the line and its newline"
    );
    assert_eq!(done.stderr.text, on_stderr);
    assert!(done.truncated() && done.ok() && done.error_type().is_none());
    assert_eq!(
        seen.lock().unwrap().len(),
        5001 + on_stderr.len(),
        "the callback saw it all, uncut"
    );
    // The session's own callback is back for the next run.
    session.run("print('after')").unwrap();
    assert!(seen.lock().unwrap().ends_with("after\n"));
}

fn execute_reports_the_runs_failure_by_its_class_and_the_session_lives(engine: Interpreter) {
    let mut session = python(engine);
    let limits = stockade::ExecuteLimits::default();
    let failed = session.execute("print('before')\n1 / 0", vec![], limits);
    assert_eq!(failed.error_type(), Some("ZeroDivisionError"));
    assert_eq!(failed.stdout.text, "before\n");
    let big = session.execute("'x' * (2 * 1024 * 1024)", vec![], limits);
    assert_eq!(
        big.error_type(),
        Some("ResultTooLarge"),
        "{:?}",
        big.outcome
    );
    let syntax = session.execute("1 +", vec![], limits);
    assert!(matches!(syntax.outcome, Err(Error::Syntax(_))));
    assert_eq!(
        session.execute("40 + 2", vec![], limits).outcome,
        Ok(Value::Int(42))
    );
}

on_both_python_engines_and_remote!(
    execute_keeps_each_stream_to_its_cap_and_the_callbacks_see_it_all,
    execute_reports_the_runs_failure_by_its_class_and_the_session_lives,
);

// These look at the worker process itself, or ask for a sandbox a server
// would not give: local sessions only.
on_both_python_engines!(
    the_worker_starts_with_an_empty_environment,
    closing_a_session_ends_its_worker,
    a_default_session_runs_under_every_sandbox_layer_as_nobody,
    require_mode_starts_on_this_kernel_and_off_mode_applies_nothing,
    an_interrupt_check_kills_a_running_worker_and_loses_the_session,
    a_later_worker_skips_the_seccomp_test_fire_an_earlier_one_verified,
);
