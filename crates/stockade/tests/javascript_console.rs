//! A JavaScript guest's console and shown values behave as Node 20's: the
//! expected text in each test is what `node` prints for the same code.

use std::sync::{Arc, Mutex};

use stockade::{JavaScriptOptions, Language, PrintStream, Session, SessionOptions, Value};

fn js(options: JavaScriptOptions) -> Session {
    Session::new(SessionOptions::new(Language::JavaScript).javascript(options))
        .expect("a JavaScript session starts")
}

/// What `code` printed to each stream, in one session with `options`.
fn printed_with(options: JavaScriptOptions, code: &str) -> (String, String) {
    let out = Arc::new(Mutex::new((String::new(), String::new())));
    let sink = Arc::clone(&out);
    let mut session = js(options);
    session.on_print(move |stream, text| {
        let mut out = sink.lock().unwrap();
        match stream {
            PrintStream::Stdout => out.0.push_str(text),
            PrintStream::Stderr => out.1.push_str(text),
        }
    });
    session.run(code).unwrap();
    out.lock().unwrap().clone()
}

fn printed(code: &str) -> String {
    printed_with(JavaScriptOptions::default(), code).0
}

#[test]
fn console_log_formats_values_as_node_util_inspect() {
    let code = "class Point { constructor(x, y) { this.x = x; this.y = y; } }\n\
        console.log(new Map([['a', 1]]), new Set([1, 2]), { deep: { a: { b: { c: 1 } } } }, \
        new Point(1, 2), -0, [1, , 3]);\n\
        console.log(['a'.repeat(30), 'b'.repeat(30), 'c'.repeat(30)]);\n\
        console.log(Array.from({ length: 120 }, (_, i) => i).length, 'x'.repeat(3), 10n ** 20n);\n\
        const o = { name: 'x' }; o.self = o; console.log(o, [undefined, null, NaN], \"it's\");\n\
        console.log(function foo() {}, class A {}, new Uint8Array([1, 2, 3]), \
        new Date(Date.UTC(2024, 0, 2)));";
    assert_eq!(
        printed(code),
        "Map(1) { 'a' => 1 } Set(2) { 1, 2 } { deep: { a: { b: [Object] } } } \
         Point { x: 1, y: 2 } -0 [ 1, <1 empty item>, 3 ]\n\
         [\n  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n  'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',\n  \
         'cccccccccccccccccccccccccccccc'\n]\n\
         120 xxx 100000000000000000000n\n\
         <ref *1> { name: 'x', self: [Circular *1] } [ undefined, null, NaN ] it's\n\
         [Function: foo] [class A] Uint8Array(3) [ 1, 2, 3 ] 2024-01-02T00:00:00.000Z\n"
    );
}

#[test]
fn console_format_specifiers_table_group_dir_and_count_match_node() {
    let code = "console.log('%s has %d items costing %i, %f, %j %o %O %%', 'cart', 3, 42.9, 1.5, \
        { a: 1 }, [1], { b: 2 });\n\
        console.table([{ name: 'a', n: 1 }, { name: 'b', n: 22 }]);\n\
        console.group('outer'); console.info('inside'); console.group(); console.log({ x: 1 });\n\
        console.groupEnd(); console.groupEnd(); console.log('back');\n\
        console.dir({ a: { b: { c: {} } } }, { depth: 0 });\n\
        console.count(); console.count(); console.count('k');";
    assert_eq!(
        printed(code),
        "cart has 3 items costing 42, 1.5, {\"a\":1} [ 1, [length]: 1 ] { b: 2 } %\n\
         ┌─────────┬──────┬────┐\n\
         │ (index) │ name │ n  │\n\
         ├─────────┼──────┼────┤\n\
         │ 0       │ 'a'  │ 1  │\n\
         │ 1       │ 'b'  │ 22 │\n\
         └─────────┴──────┴────┘\n\
         outer\n  inside\n    { x: 1 }\nback\n\
         { a: [Object] }\n\
         default: 1\ndefault: 2\nk: 1\n"
    );
}

#[test]
fn console_warn_error_and_assert_go_to_stderr() {
    let (out, err) = printed_with(
        JavaScriptOptions::default(),
        "console.warn('w', { a: 1 }); console.error(new Map()); console.assert(1 === 2, 'no'); \
         console.assert(true, 'never'); console.log('out')",
    );
    assert_eq!(out, "out\n");
    assert_eq!(err, "w { a: 1 }\nMap(0) {}\nAssertion failed: no\n");
}

#[test]
fn console_is_a_plain_writable_object() {
    let mut session = js(JavaScriptOptions::default());
    let code = "const seen = []; const original = console.log;\n\
        console.log = (...args) => seen.push(args.join('|'));\n\
        console.log('a', 1); console.extra = 5;\n\
        console.log = original;\n\
        [seen, console.extra, Object.isFrozen(console)]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::List(vec![Value::Str("a|1".into())]),
            Value::Int(5),
            Value::Bool(false),
        ])
    );
}

#[test]
fn values_that_cannot_cross_are_shown_as_node_inspects_them() {
    let mut session = js(JavaScriptOptions::default());
    assert_eq!(
        session
            .run("[function named() { return 1 }, Symbol('s')]")
            .unwrap(),
        Value::List(vec![
            Value::Repr("[Function: named]".into()),
            Value::Repr("Symbol(s)".into()),
        ])
    );
}

#[test]
fn inspect_results_gives_the_inspect_text_and_keeps_undefined() {
    let mut session = js(JavaScriptOptions {
        inspect_results: true,
        ..JavaScriptOptions::default()
    });
    assert_eq!(
        session.run("new Map([[1, { a: [1, 2] }]])").unwrap(),
        Value::Repr("Map(1) { 1 => { a: [ 1, 2 ] } }".into())
    );
    assert_eq!(session.run("'s'").unwrap(), Value::Repr("'s'".into()));
    assert_eq!(session.run("let x = 1").unwrap(), Value::Undefined);
}

#[test]
fn a_final_promise_is_awaited_in_script_and_top_level_await_mode() {
    let mut session = js(JavaScriptOptions::default());
    for code in [
        "async function f() { return 41 }; (async () => (await f()) + 1)()",
        "async function main() { await null; return 42 }\nmain().then(r => r)",
        "async function g() { return 42 }\ng()",
        "await Promise.resolve(0); Promise.resolve(42)",
    ] {
        assert_eq!(session.run(code).unwrap(), Value::Int(42), "{code}");
    }
}

#[test]
fn console_prints_lone_surrogates_as_replacement_characters_and_survives_a_frozen_world() {
    assert_eq!(printed("console.log('a\\uD800b')"), "a\u{fffd}b\n");
    // Node's inspect cannot load where the guest froze the global object:
    // values are then shown as String shows them, and printing goes on.
    assert_eq!(
        printed("Object.freeze(globalThis); console.log([1, 2], 'x'); console.log('still')"),
        "1,2 x\nstill\n"
    );
}
