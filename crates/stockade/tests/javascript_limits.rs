//! JavaScript limits on real workers: the heap limit, the buffer cap, the
//! stack limit, and hostile inputs that must each end within a limit with a
//! clear error while the host (and, where it can, the session) stays intact.

use std::time::Duration;

use stockade::{Error, JavaScriptOptions, Language, Session, SessionOptions, Value};

const MIB: u64 = 1024 * 1024;

fn session(options: SessionOptions) -> Session {
    Session::new(options).expect("a JavaScript session starts")
}

fn js(javascript: JavaScriptOptions) -> Session {
    session(SessionOptions::new(Language::JavaScript).javascript(javascript))
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

#[test]
fn max_heap_size_ends_the_worker_even_if_the_guest_catches_and_the_next_session_works() {
    let mut session = js(JavaScriptOptions {
        max_heap_size: Some(32 * MIB),
        ..Default::default()
    });
    session.run("globalThis.before = 'set'").unwrap();
    let code = "
        let kept = [];
        try { while (true) kept.push('x'.repeat(1 << 16) + kept.length); }
        catch (e) { kept = null; }
        'the guest finished'";
    match session.run(code) {
        Err(Error::Memory {
            detail,
            worker_died: true,
        }) => assert!(detail.contains("max_heap_size"), "{detail}"),
        other => panic!("expected a heap limit error, got {other:?}"),
    }
    // A heap that ran out is not trusted again: the session is lost.
    assert!(matches!(session.run("before"), Err(Error::Memory { .. })));
    let mut next = js(JavaScriptOptions::default());
    assert_eq!(next.run("6 * 7").unwrap(), Value::Int(42));
}

#[test]
fn max_buffer_bytes_is_a_catchable_range_error_for_every_way_to_allocate() {
    let mut session = js(JavaScriptOptions {
        max_buffer_bytes: Some(16 * MIB),
        ..Default::default()
    });
    let attempts = [
        "new ArrayBuffer(32 * 1024 * 1024)",
        "new Uint8Array(32 * 1024 * 1024)",
        "new Float64Array(4 * 1024 * 1024 + 1)",
        "Uint8Array.from({length: 17 * 1024 * 1024})",
        "new (new Uint8Array(1).constructor)(32 * 1024 * 1024)",
        "new (class Big extends Uint8Array {})(32 * 1024 * 1024)",
        "new ArrayBuffer(8, {maxByteLength: 64 * 1024 * 1024}).resize(32 * 1024 * 1024)",
        "new ArrayBuffer(8).transfer(32 * 1024 * 1024)",
        "const keep = new Uint8Array(10 * 1024 * 1024); keep.slice()",
    ];
    for code in attempts {
        let caught = format!(
            "(() => {{ try {{ {code}; return 'allocated' }} catch (e) {{ return e.name }} }})()"
        );
        assert_eq!(session.run(&caught).unwrap(), s("RangeError"), "{code}");
    }
    // Buffers the guest dropped stop counting: 20 × 8 MiB under a 16 MiB cap.
    assert_eq!(
        session
            .run("let n = 0; for (let i = 0; i < 20; i++) { n += new Uint8Array(8 * 1024 * 1024).length } n")
            .unwrap(),
        Value::Int(20 * 8 * MIB as i64)
    );
    // Kept ones do.
    let kept = "const held = []; let r; try { for (let i = 0; i < 4; i++) held.push(new ArrayBuffer(6 * 1024 * 1024)) } catch (e) { r = [e.name, held.length] } r";
    assert_eq!(
        session.run(kept).unwrap(),
        Value::List(vec![s("RangeError"), Value::Int(2)])
    );
}

#[test]
fn max_buffer_bytes_defaults_to_a_quarter_of_max_memory() {
    let mut session = session(SessionOptions::new(Language::JavaScript).max_memory(256 * MIB));
    let code = "try { new Uint8Array(100 * 1024 * 1024); 'allocated' } catch (e) { e.name }";
    assert_eq!(session.run(code).unwrap(), s("RangeError"));
    assert_eq!(
        session
            .run("new Uint8Array(32 * 1024 * 1024).length")
            .unwrap(),
        Value::Int(32 * MIB as i64)
    );
}

fn deepest(max_stack_bytes: Option<u32>) -> i64 {
    let mut session = js(JavaScriptOptions {
        max_stack_bytes,
        ..Default::default()
    });
    let code = "let depth = 0; function down() { depth++; down() } try { down() } catch (e) { if (e.name !== 'RangeError') throw e } depth";
    match session.run(code).unwrap() {
        Value::Int(depth) => depth,
        other => panic!("expected a depth, got {other:?}"),
    }
}

#[test]
fn max_stack_bytes_bounds_recursion_with_a_catchable_range_error() {
    let small = deepest(Some(256 * 1024));
    let default = deepest(None);
    assert!(small > 100, "{small}");
    assert!(default > small * 4, "default {default}, small {small}");
}

#[test]
fn out_of_range_javascript_options_are_configuration_errors() {
    for (options, mentions) in [
        (
            JavaScriptOptions {
                max_stack_bytes: Some(1024),
                ..Default::default()
            },
            "max_stack_bytes",
        ),
        (
            JavaScriptOptions {
                max_heap_size: Some(0),
                ..Default::default()
            },
            "max_heap_size",
        ),
        (
            JavaScriptOptions {
                modules: vec![("m".into(), "".into()), ("m".into(), "".into())],
                ..Default::default()
            },
            "registered twice",
        ),
    ] {
        match Session::new(SessionOptions::new(Language::JavaScript).javascript(options)) {
            Err(Error::Configuration(err)) => {
                assert!(err.message().contains(mentions), "{err}")
            }
            other => panic!(
                "expected a configuration error, got {:?}",
                other.map(|_| ())
            ),
        }
    }
}

/// Runs hostile code with a short max_duration; returns the error.
fn hostile(code: &str) -> Error {
    let options = SessionOptions::new(Language::JavaScript)
        .max_duration(Duration::from_secs(2))
        .max_memory(256 * MIB)
        .javascript(JavaScriptOptions {
            web_polyfills: true,
            ..Default::default()
        });
    let mut session = session(options);
    let error = match session.run(code) {
        Err(error) => error,
        Ok(value) => panic!("{code} finished with {value:?}"),
    };
    // The host is intact: a new session works.
    let mut next = js(JavaScriptOptions::default());
    assert_eq!(next.run("1 + 1").unwrap(), Value::Int(2));
    error
}

#[test]
fn a_catastrophic_regular_expression_ends_at_max_duration() {
    let error = hostile("/^(a+)+$/.test('a'.repeat(40) + 'b')");
    assert!(matches!(error, Error::Timeout { .. }), "{error:?}");
}

#[test]
fn filling_an_array_of_two_to_the_32_minus_one_ends_within_a_limit() {
    let error = hostile("new Array(2 ** 32 - 1).fill(0)");
    assert!(
        matches!(error, Error::Memory { .. } | Error::Timeout { .. }),
        "{error:?}"
    );
}

#[test]
fn sorting_a_huge_sparse_array_ends_within_a_limit() {
    // QuickJS sorts a sparse array in a native loop over every index, where
    // the interrupt handler never runs; the host's max_duration backstop
    // (the budget plus duration_grace) kills the worker instead.
    let error = hostile("const a = []; a[2 ** 32 - 2] = 1; a[0] = 2; a.sort(); a.length");
    match error {
        Error::Timeout { .. } => {}
        Error::Crashed(crash) => assert!(crash.timed_out, "{crash:?}"),
        other => panic!("expected a time limit, got {other:?}"),
    }
}

#[test]
fn a_microtask_flood_ends_at_max_duration() {
    let error = hostile("function again() { Promise.resolve().then(again) } again(); 'queued'");
    assert!(matches!(error, Error::Timeout { .. }), "{error:?}");
    let error = hostile("function again() { queueMicrotask(again) } again(); 'queued'");
    assert!(matches!(error, Error::Timeout { .. }), "{error:?}");
}

#[test]
fn a_string_doubling_loop_ends_with_a_clear_error() {
    let error = hostile("let s = 'x'; while (true) s += s;");
    match error {
        Error::Guest(guest) => assert!(
            guest.message.contains("string too long") || guest.type_name == "RangeError",
            "{guest:?}"
        ),
        Error::Memory { .. } => {}
        other => panic!("expected a RangeError or a memory error, got {other:?}"),
    }
}

#[test]
fn a_thrown_out_of_memory_message_is_a_guest_exception_not_the_memory_limit() {
    let mut session = js(JavaScriptOptions::default());
    for code in [
        "throw new Error('out of memory')",
        "throw new InternalError('out of memory')",
        "throw 'out of memory'",
    ] {
        match session.run(code) {
            Err(Error::Guest(guest)) => assert!(guest.message.contains("out of memory")),
            other => panic!("{code}: expected a guest exception, got {other:?}"),
        }
    }
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn out_of_time(result: Result<Value, Error>) {
    match result {
        Err(Error::Timeout {
            limit: stockade::TimeLimit::MaxDuration,
            ..
        }) => {}
        other => panic!("expected max_duration to end the run, got {other:?}"),
    }
}

#[test]
fn getters_and_inspect_hooks_in_a_result_run_under_max_duration() {
    for code in [
        "({ get spin() { while (true) {} } })",
        // A function crosses as the text util.inspect gives it, which runs
        // the guest's own inspect hook.
        "const f = () => 1; f[Symbol.for('nodejs.util.inspect.custom')] = () => { while (true) {} }; [f]",
        "new Map([[1, { get spin() { while (true) {} } }]])",
        "const m = new Map([[1, 2]]); m.entries = function* () { while (true) yield [1, 2]; }; m",
    ] {
        let mut session = session(
            SessionOptions::new(Language::JavaScript)
                .max_duration(Duration::from_millis(500))
                .request_timeout(Duration::from_secs(10)),
        );
        let started = std::time::Instant::now();
        out_of_time(session.run(code));
        // The worker's own limit ended it, well before the host's deadline.
        assert!(started.elapsed() < Duration::from_secs(5), "{code}");
        assert!(!session.is_lost(), "{code}: the worker was not killed");
    }
}

#[test]
fn getters_of_a_thrown_value_run_under_max_duration() {
    for code in [
        "throw { get message() { while (true) {} } }",
        "throw { get name() { while (true) {} } }",
        "class E extends Error { get stack() { while (true) {} } } throw new E('x')",
    ] {
        let mut session = session(
            SessionOptions::new(Language::JavaScript)
                .max_duration(Duration::from_millis(500))
                .request_timeout(Duration::from_secs(10)),
        );
        out_of_time(session.run(code));
        assert!(!session.is_lost(), "{code}: the worker was not killed");
    }
}
