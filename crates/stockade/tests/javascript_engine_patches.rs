//! The two changes the worker's QuickJS carries (third_party/rquickjs-sys):
//! object spread of a string, and V8's words for the commonest TypeErrors.
//! Each expected text is what `node` (20) prints for the same code.

use stockade::{Error, JavaScriptOptions, Language, Session, SessionOptions, Value};

fn js() -> Session {
    Session::new(SessionOptions::new(Language::JavaScript)).expect("a JavaScript session starts")
}

/// What `code` evaluates to, as Node's `util.inspect` shows it.
fn shown(session: &mut Session, code: &str) -> String {
    match session.run(code) {
        Ok(Value::Repr(text)) => text,
        other => panic!("`{code}` gave {other:?}"),
    }
}

/// The `name: message` of the error `code` throws, caught inside the guest.
fn thrown(session: &mut Session, code: &str) -> String {
    let wrapped = format!(
        "(() => {{ try {{ {code}; return 'no error'; }} \
         catch (e) {{ return e.name + ': ' + e.message; }} }})()"
    );
    match session.run(&wrapped) {
        Ok(Value::Str(text)) => text,
        other => panic!("`{code}` gave {other:?}"),
    }
}

#[test]
fn object_spread_of_a_string_copies_its_indices_as_node_does() {
    let mut session = Session::new(SessionOptions::new(Language::JavaScript).javascript(
        JavaScriptOptions {
            inspect_results: true,
            ..JavaScriptOptions::default()
        },
    ))
    .expect("a JavaScript session starts");
    let cases = [
        (r#"({ ..."hi" })"#, "{ '0': 'h', '1': 'i' }"),
        (r#"({ a: 1, ..."z" })"#, "{ '0': 'z', a: 1 }"),
        (r#"({ ..."" })"#, "{}"),
        ("({ ...5, ...null, ...undefined, ...true, ...10n })", "{}"),
        (
            r#"(() => { const { 0: a, ...rest } = "hey"; return [a, rest]; })()"#,
            "[ 'h', { '1': 'e', '2': 'y' } ]",
        ),
        (
            r#"((...args) => ({ ...args[0] }))("xy")"#,
            "{ '0': 'x', '1': 'y' }",
        ),
        (
            r#"({ ...new String("ab"), ...["c"] })"#,
            "{ '0': 'c', '1': 'b' }",
        ),
    ];
    for (code, node) in cases {
        assert_eq!(shown(&mut session, code), node, "for `{code}`");
    }
}

#[test]
fn common_type_errors_use_v8_words() {
    let mut session = js();
    let cases = [
        (
            "const o = null; o.foo",
            "TypeError: Cannot read properties of null (reading 'foo')",
        ),
        (
            "let u; u.bar",
            "TypeError: Cannot read properties of undefined (reading 'bar')",
        ),
        (
            "let u; u[3]",
            "TypeError: Cannot read properties of undefined (reading '3')",
        ),
        (
            "const o = null; o.x = 1",
            "TypeError: Cannot set properties of null (setting 'x')",
        ),
        (
            "let u; u.y = 2",
            "TypeError: Cannot set properties of undefined (setting 'y')",
        ),
    ];
    for (code, node) in cases {
        assert_eq!(thrown(&mut session, code), node, "for `{code}`");
    }
}

#[test]
fn mixing_bigint_and_number_uses_v8_words() {
    let mut session = js();
    let mix = "TypeError: Cannot mix BigInt and other types, use explicit conversions";
    let to_number = "TypeError: Cannot convert a BigInt value to a number";
    let cases = [
        ("1n + 1", mix),
        ("2 * 3n", mix),
        ("1n - undefined", mix),
        ("1n | 1", mix),
        ("1 << 2n", mix),
        ("1n ** 0.5", mix),
        ("5 % 2n", mix),
        (
            "1n >>> 1n",
            "TypeError: BigInts have no unsigned right shift, use >> instead",
        ),
        ("Math.sqrt(4n)", to_number),
        ("+1n", to_number),
        ("+(2n ** 100n)", to_number),
    ];
    for (code, node) in cases {
        assert_eq!(thrown(&mut session, code), node, "for `{code}`");
    }
    // What still works must keep working: the same kinds together, and
    // strings with either.
    assert_eq!(
        session
            .run("String(2n ** 64n + 1n) + ' ' + (1n + 'x') + (1 + 'y')")
            .unwrap(),
        Value::Str("18446744073709551617 1x1y".into())
    );
    match session.run("1n + 1") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "TypeError"),
        other => panic!("expected a TypeError, got {other:?}"),
    }
}

#[test]
fn spreading_a_huge_string_trips_max_memory_cleanly() {
    let mut session =
        Session::new(SessionOptions::new(Language::JavaScript).max_memory(64 * 1024 * 1024))
            .expect("a JavaScript session starts");
    match session.run("const o = { ...'x'.repeat(20_000_000) }; Object.keys(o).length") {
        Err(Error::Memory { .. }) => {}
        other => panic!("expected max_memory to end the feed, got {other:?}"),
    }
    // The session is over, and a fresh one is unaffected.
    assert_eq!(
        js().run("({ ...'ok' })[1]").unwrap(),
        Value::Str("k".into())
    );
}
