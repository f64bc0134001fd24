//! The changes the worker's QuickJS carries (third_party/rquickjs-sys):
//! object spread of a string.
//! Each expected text is what `node` (20) prints for the same code.

use stockade::{JavaScriptOptions, Language, Session, SessionOptions, Value};

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
