//! JavaScript sessions on real workers (QuickJS): state, values, host
//! functions, console output, and the limits.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use stockade::{
    BigInt, Error, HostError, Language, PrintStream, Session, SessionOptions, TimeLimit, Value,
};

fn js() -> Session {
    Session::new(SessionOptions::new(Language::JavaScript)).expect("a JavaScript session starts")
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

#[test]
fn globals_persist_across_feeds() {
    let mut session = js();
    session
        .run("let total = 40; function inc(n) { return n + 1 }")
        .unwrap();
    session.run("total = inc(total)").unwrap();
    assert_eq!(session.run("inc(total)").unwrap(), Value::Int(42));
}

#[test]
fn snippets_run_in_sloppy_mode_unless_they_opt_into_strict_mode() {
    let mut session = js();
    assert_eq!(
        session.run("undeclared = 41; undeclared + 1").unwrap(),
        Value::Int(42)
    );
    match session.run("'use strict'; alsoUndeclared = 1") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "ReferenceError"),
        other => panic!("expected a ReferenceError, got {other:?}"),
    }
}

#[test]
fn results_keep_their_javascript_kinds() {
    let mut session = js();
    assert_eq!(session.run("undefined").unwrap(), Value::Undefined);
    assert_eq!(session.run("null").unwrap(), Value::None);
    assert_eq!(
        session.run("[1, 'a', true, 1.5]").unwrap(),
        Value::List(vec![
            Value::Int(1),
            s("a"),
            Value::Bool(true),
            Value::Float(1.5)
        ])
    );
    assert_eq!(
        session.run("2n ** 70n").unwrap(),
        Value::BigInt(BigInt::from(2).pow(70))
    );
    assert_eq!(
        session.run("({a: {b: [null]}})").unwrap(),
        Value::Dict(vec![(
            s("a"),
            Value::Dict(vec![(s("b"), Value::List(vec![Value::None]))])
        )])
    );
    match session
        .run("new Date(Date.UTC(2024, 1, 29, 12, 30))")
        .unwrap()
    {
        Value::DateTime(dt) => {
            assert_eq!(
                (
                    dt.date.year,
                    dt.date.month,
                    dt.date.day,
                    dt.time.hour,
                    dt.time.minute
                ),
                (2024, 2, 29, 12, 30)
            );
            assert_eq!(dt.time.offset_seconds, Some(0));
        }
        other => panic!("expected a datetime, got {other:?}"),
    }
    assert_eq!(
        session.run("const o = {}; o.self = o; o").unwrap(),
        Value::Dict(vec![(s("self"), Value::Cycle("{...}".into()))])
    );
}

#[test]
fn a_promise_result_is_awaited_and_top_level_await_works() {
    let mut session = js();
    assert_eq!(
        session.run("Promise.resolve(41).then(x => x + 1)").unwrap(),
        Value::Int(42)
    );
    assert_eq!(
        session
            .run("const v = await Promise.resolve(7); v * 6")
            .unwrap(),
        Value::Int(42)
    );
    match session.run("Promise.reject(new RangeError('no'))") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "RangeError"),
        other => panic!("expected the rejection, got {other:?}"),
    }
}

#[test]
fn inputs_are_bound_as_globals() {
    let mut session = js();
    let inputs = vec![
        (
            "items".to_owned(),
            Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)]),
        ),
        ("big".to_owned(), Value::BigInt(BigInt::from(2).pow(80))),
    ];
    assert_eq!(
        session
            .run_with_inputs("items.reduce((a, b) => a + b) + Number(big > 0n)", inputs)
            .unwrap(),
        Value::Int(7)
    );
}

#[test]
fn host_functions_are_called_with_their_arguments() {
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).show_host_errors()).unwrap();
    session.register_function("lookup", |args| match args.get(0) {
        Some(Value::Str(key)) => Ok(Value::Dict(vec![(s("key"), Value::Str(key.clone()))])),
        _ => Err(HostError::type_error("lookup() takes a string")),
    });
    assert_eq!(session.run("lookup('k').key").unwrap(), s("k"));
    let code = "let r; try { lookup(1) } catch (e) { r = `${e.name}: ${e.message}` } r";
    assert_eq!(
        session.run(code).unwrap(),
        s("TypeError: lookup() takes a string")
    );
    match session.run("nothere(1)") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "ReferenceError"),
        other => panic!("expected a ReferenceError, got {other:?}"),
    }
}

#[test]
fn console_output_goes_to_the_print_stream_in_order() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let mut session = js();
    let sink = Arc::clone(&events);
    session.on_print(move |stream, text| sink.lock().unwrap().push((stream, text.to_owned())));
    session
        .run("console.log('a', 1, {b: 2}); console.error('oops'); console.info('c')")
        .unwrap();
    let events = events.lock().unwrap().clone();
    assert_eq!(
        events,
        vec![
            (PrintStream::Stdout, "a 1 { b: 2 }\n".to_owned()),
            (PrintStream::Stderr, "oops\n".to_owned()),
            (PrintStream::Stdout, "c\n".to_owned()),
        ]
    );
}

#[test]
fn a_busy_loop_trips_max_duration_even_if_caught() {
    let mut session = Session::new(
        SessionOptions::new(Language::JavaScript).max_duration(Duration::from_millis(300)),
    )
    .unwrap();
    let code = "try { while (true) {} } catch (e) { 'caught' }";
    assert!(matches!(
        session.run(code),
        Err(Error::Timeout {
            limit: TimeLimit::MaxDuration,
            ..
        })
    ));
}

#[test]
fn host_call_time_does_not_count_toward_max_duration() {
    let mut session = Session::new(
        SessionOptions::new(Language::JavaScript).max_duration(Duration::from_millis(300)),
    )
    .unwrap();
    session.register_function("slow", |_| {
        std::thread::sleep(Duration::from_millis(500));
        Ok(Value::Int(1))
    });
    assert_eq!(session.run("slow() + 1").unwrap(), Value::Int(2));
}

#[test]
fn runaway_allocation_is_a_memory_error_and_the_next_session_works() {
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).max_memory(64 * 1024 * 1024))
            .unwrap();
    let code = "const parts = []; while (true) parts.push('x'.repeat(100000));";
    assert!(matches!(session.run(code), Err(Error::Memory { .. })));
    assert_eq!(js().run("1 + 1").unwrap(), Value::Int(2));
}

#[test]
fn deep_recursion_is_a_catchable_range_error() {
    let mut session = js();
    session
        .run("function down(n) { return down(n + 1) }")
        .unwrap();
    let code = "let r; try { down(0) } catch (e) { r = e.name } r";
    assert_eq!(session.run(code).unwrap(), s("RangeError"));
}

#[test]
fn syntax_errors_are_their_own_error_and_runtime_syntax_errors_are_not() {
    let mut session = js();
    assert!(matches!(session.run("let = ;"), Err(Error::Syntax(_))));
    assert!(
        matches!(session.run("JSON.parse('{bad')"), Err(Error::Guest(g)) if g.type_name == "SyntaxError")
    );
    assert_eq!(session.run("1").unwrap(), Value::Int(1));
}

#[test]
fn node_and_deno_globals_are_absent() {
    let mut session = js();
    assert_eq!(
        session
            .run("[typeof process, typeof Deno, typeof fetch, typeof WebAssembly, typeof window, typeof document].join(',')")
            .unwrap(),
        s("undefined,undefined,undefined,undefined,undefined,undefined")
    );
    // `require` gives Node's fs, fs/promises and path (docs/files.md), and
    // nothing else: not a module of the host's, not a file.
    assert_eq!(
        session
            .run("['child_process', 'os', 'net', 'http', '/etc/passwd', './x.js', 'node:vm'].map((name) => { try { require(name); return 'loaded'; } catch (e) { return e.code; } }).join(',')")
            .unwrap(),
        s("MODULE_NOT_FOUND,MODULE_NOT_FOUND,MODULE_NOT_FOUND,MODULE_NOT_FOUND,MODULE_NOT_FOUND,MODULE_NOT_FOUND,MODULE_NOT_FOUND")
    );
    assert_eq!(
        session
            .run("Object.keys(globalThis).includes('require')")
            .unwrap(),
        Value::Bool(false)
    );
}

#[test]
fn binary_data_crosses_by_its_native_storage_whatever_getters_say() {
    let mut session = js();
    let code = "
        const view = new Uint8Array([1, 2, 3]);
        Object.defineProperty(view, 'byteLength', { get() { return 1000 } });
        Object.defineProperty(view, 'buffer', { get() { return new ArrayBuffer(8) } });
        const typed = Object.getPrototypeOf(Uint8Array.prototype);
        Object.defineProperty(typed, 'byteOffset', { get() { return 2 }, configurable: true });
        Object.defineProperty(ArrayBuffer.prototype, 'byteLength', { get() { return 0 }, configurable: true });
        [view, new Uint8Array([9, 8, 7, 6]).subarray(1, 3), new Uint16Array([258]).buffer]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Bytes(vec![1, 2, 3]),
            Value::Bytes(vec![8, 7]),
            Value::Bytes(vec![2, 1]),
        ])
    );
}

#[test]
fn max_host_calls_ends_the_feed_even_if_the_guest_catches_and_finishes() {
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).max_host_calls(1)).unwrap();
    session.register_function("tick", |_| Ok(Value::None));
    let code =
        "let seen = 0; for (let i = 0; i < 3; i++) { try { tick(); seen++ } catch (e) {} } 'done'";
    match session.run(code) {
        Err(Error::Guest(guest)) => assert!(
            guest.message.contains("max_host_calls"),
            "{}",
            guest.message
        ),
        other => panic!("expected the feed to end, got {other:?}"),
    }
    assert_eq!(
        session.run("'next feed runs'").unwrap(),
        s("next feed runs")
    );
}

#[test]
fn maps_sets_and_binary_data_cross_as_dicts_sets_and_bytes() {
    let mut session = js();
    assert_eq!(
        session.run("new Map([[1, 'one'], ['two', 2]])").unwrap(),
        Value::Dict(vec![(Value::Int(1), s("one")), (s("two"), Value::Int(2))])
    );
    assert_eq!(
        session.run("new Set([3, 'x'])").unwrap(),
        Value::Set(vec![Value::Int(3), s("x")])
    );
    assert_eq!(
        session.run("new Uint8Array([1, 2, 255])").unwrap(),
        Value::Bytes(vec![1, 2, 255])
    );
    assert_eq!(
        session.run("new Uint16Array([258]).buffer").unwrap(),
        Value::Bytes(vec![2, 1])
    );
    assert_eq!(
        session
            .run("new DataView(new Uint8Array([9, 8, 7]).buffer, 1, 2)")
            .unwrap(),
        Value::Bytes(vec![8, 7])
    );
    let inputs = vec![
        ("data".to_owned(), Value::Bytes(vec![5, 6])),
        (
            "keys".to_owned(),
            Value::Dict(vec![(Value::Int(1), s("a"))]),
        ),
        ("members".to_owned(), Value::Set(vec![Value::Int(4)])),
    ];
    let code =
        "[data instanceof Uint8Array, data[1], keys instanceof Map, keys.get(1), members.has(4)]";
    assert_eq!(
        session.run_with_inputs(code, inputs).unwrap(),
        Value::List(vec![
            Value::Bool(true),
            Value::Int(6),
            Value::Bool(true),
            s("a"),
            Value::Bool(true)
        ])
    );
}

#[test]
fn shared_memory_and_weak_references_are_absent() {
    let mut session = js();
    assert_eq!(
        session
            .run("[typeof SharedArrayBuffer, typeof Atomics, typeof WeakRef, typeof FinalizationRegistry].join(',')")
            .unwrap(),
        s("undefined,undefined,undefined,undefined")
    );
}

#[test]
fn a_proxy_crosses_as_its_innermost_target_without_running_a_trap() {
    let mut session = js();
    session
        .run(
            "globalThis.trapped = 0;
             const count = () => { trapped++; };
             globalThis.handler = {
               get() { count(); return 'x' }, ownKeys() { count(); return [] },
               getOwnPropertyDescriptor() { count() }, has() { count(); return false },
               getPrototypeOf() { count(); return null }, apply() { count() },
             };",
        )
        .unwrap();
    assert_eq!(
        session.run("new Proxy({a: 1}, handler)").unwrap(),
        Value::Dict(vec![(s("a"), Value::Int(1))])
    );
    assert_eq!(
        session
            .run("new Proxy(new Proxy([1, 2], handler), handler)")
            .unwrap(),
        Value::List(vec![Value::Int(1), Value::Int(2)])
    );
    assert_eq!(
        session
            .run("({inner: new Proxy(new Map([[1, 2]]), handler)})")
            .unwrap(),
        Value::Dict(vec![(
            s("inner"),
            Value::Dict(vec![(Value::Int(1), Value::Int(2))])
        )])
    );
    assert_eq!(session.run("trapped").unwrap(), Value::Int(0));
}

#[test]
fn a_revoked_or_too_deeply_nested_proxy_is_refused() {
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).show_host_errors()).unwrap();
    session.register_function("echo", |args| {
        Ok(args.get(0).cloned().unwrap_or(Value::None))
    });
    session
        .run(
            "const r = Proxy.revocable({a: 1}, {}); r.revoke(); globalThis.revoked = r.proxy;
             globalThis.nest = (n) => { let p = {ok: true}; for (let i = 0; i < n; i++) p = new Proxy(p, {}); return p; };",
        )
        .unwrap();
    match session.run("revoked") {
        Err(Error::Conversion(message)) => assert!(message.contains("revoked Proxy"), "{message}"),
        other => panic!("expected a conversion error, got {other:?}"),
    }
    assert_eq!(
        session.run("nest(64)").unwrap(),
        Value::Dict(vec![(s("ok"), Value::Bool(true))])
    );
    match session.run("nest(65)") {
        Err(Error::Conversion(message)) => assert!(message.contains("more than 64"), "{message}"),
        other => panic!("expected a conversion error, got {other:?}"),
    }
    let code = "try { echo([revoked]); 'crossed' } catch (e) { `${e.name}: ${e.message}` }";
    assert_eq!(
        session.run(code).unwrap(),
        s("TypeError: argument 1 of echo cannot cross to the host: a revoked Proxy cannot cross")
    );
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}
