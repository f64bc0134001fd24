//! The JavaScript guest's world, option by option, on real workers: strict
//! eval attacked every way it can be reached, a frozen clock, a seeded
//! Math.random, UTC, host-registered modules, and the web polyfills.

use std::time::{Duration, UNIX_EPOCH};

use stockade::{Error, JavaScriptOptions, Language, Session, SessionOptions, Value};

fn js_with(javascript: JavaScriptOptions) -> Session {
    Session::new(SessionOptions::new(Language::JavaScript).javascript(javascript))
        .expect("a JavaScript session starts")
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn strict() -> Session {
    js_with(JavaScriptOptions {
        strict_eval: true,
        ..Default::default()
    })
}

/// Each way guest code can reach a code generator from strings.
const CODE_GENERATORS: &[&str] = &[
    "eval('1 + 1')",
    "(0, eval)('1 + 1')",
    "globalThis.eval('1 + 1')",
    "new Function('return 1')()",
    "Function('return 1')()",
    "(function(){}).constructor('return 1')()",
    "[].constructor.constructor('return 1')()",
    "Reflect.construct(Function, ['return 1'])()",
    "Reflect.apply(Function, null, ['return 1'])()",
    "(class extends Function {}).prototype.constructor; new (class F extends Function {})('return 1')()",
    "Object.getPrototypeOf(async function(){}).constructor('return 1')",
    "Object.getPrototypeOf(function*(){}).constructor('yield 1')().next()",
    "Object.getPrototypeOf(async function*(){}).constructor('yield 1')",
    "Object.getOwnPropertyDescriptor(Function.prototype, 'constructor').value('return 1')()",
    "(() => {}).constructor('return 1')()",
    "(async () => {}).constructor('return 1')",
    "Function.prototype.constructor.call(null, 'return 1')()",
    "Function.prototype.constructor.bind(null, 'return 1')()()",
];

#[test]
fn strict_eval_refuses_code_from_strings_however_it_is_reached() {
    let mut session = strict();
    for code in CODE_GENERATORS {
        let caught = format!(
            "(() => {{ try {{ {code}; return 'ran'; }} catch (e) {{ return `${{e.name}}: ${{e.message}}` }} }})()"
        );
        assert_eq!(
            session.run(&caught).unwrap(),
            s("EvalError: Code generation from strings disallowed for this context"),
            "{code}"
        );
    }
}

#[test]
fn strict_eval_cannot_be_switched_back_off_by_the_guest() {
    let mut session = strict();
    let attempts = "
        const results = [];
        results.push(delete globalThis.eval);
        try { Object.defineProperty(globalThis, 'Function', {value: 1}); } catch (e) { results.push(e.name); }
        try { Object.defineProperty(Function.prototype, 'constructor', {value: 1}); } catch (e) { results.push(e.name); }
        results.push(typeof eval, typeof Function);
        results";
    assert_eq!(
        session.run(attempts).unwrap(),
        Value::List(vec![
            Value::Bool(false),
            s("TypeError"),
            s("TypeError"),
            s("function"),
            s("function")
        ])
    );
    // An alias taken in one feed is still the refusing function in the next.
    session.run("var early = eval").unwrap();
    match session.run("early('1')") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "EvalError"),
        other => panic!("expected EvalError, got {other:?}"),
    }
}

#[test]
fn without_strict_eval_code_from_strings_runs() {
    let mut session = js_with(JavaScriptOptions::default());
    assert_eq!(
        session
            .run("eval('20 + 1') + new Function('return 21')()")
            .unwrap(),
        Value::Int(42)
    );
}

#[test]
fn a_frozen_clock_never_advances() {
    let at = UNIX_EPOCH + Duration::from_secs(1_767_225_600); // 2026-01-01T00:00:00Z
    // A session on the real clock leaves a spare worker behind, which a
    // frozen one must not take.
    Session::new(SessionOptions::new(Language::JavaScript))
        .unwrap()
        .close();
    let mut options = SessionOptions::new(Language::JavaScript);
    options.clock = stockade::GuestClock::Frozen(at);
    let mut session = Session::new(options).unwrap();
    let code = "
        const first = Date.now();
        let spin = 0; for (let i = 0; i < 2e6; i++) spin += i;
        [first, Date.now(), new Date().toISOString(), Date().includes('2026'),
         performance.now(), new Date(0).getTime(), new Date() instanceof Date]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Int(1_767_225_600_000),
            Value::Int(1_767_225_600_000),
            s("2026-01-01T00:00:00.000Z"),
            Value::Bool(true),
            Value::Int(0),
            Value::Int(0),
            Value::Bool(true),
        ])
    );
}

#[test]
fn a_seeded_random_repeats_across_workers_and_seeds_differ() {
    let draw = |seed: u64| {
        let mut session = js_with(JavaScriptOptions {
            random_seed: Some(seed),
            ..Default::default()
        });
        session
            .run("Array.from({length: 5}, () => Math.random())")
            .unwrap()
    };
    let first = draw(7);
    assert_eq!(first, draw(7));
    assert_ne!(first, draw(8));
    let Value::List(numbers) = first else {
        panic!("expected a list")
    };
    for number in numbers {
        let Value::Float(x) = number else {
            panic!("expected a float, got {number:?}")
        };
        assert!((0.0..1.0).contains(&x), "{x}");
    }
}

#[test]
fn the_timezone_is_utc() {
    let mut session = js_with(JavaScriptOptions::default());
    assert_eq!(
        session
            .run(
                "[new Date(0).getTimezoneOffset(), new Date(0).getHours(), new Date(0).toString()]"
            )
            .unwrap(),
        Value::List(vec![
            Value::Int(0),
            Value::Int(0),
            s("Thu Jan 01 1970 00:00:00 GMT+0000")
        ])
    );
}

fn with_modules() -> Session {
    js_with(JavaScriptOptions {
        modules: vec![
            (
                "geometry".into(),
                "export const area = (w, h) => w * h; export default 'geo';".into(),
            ),
            (
                "shapes".into(),
                "import { area } from 'geometry'; export const square = (n) => area(n, n);".into(),
            ),
        ],
        ..Default::default()
    })
}

#[test]
fn registered_modules_import_statically_and_dynamically() {
    let mut session = with_modules();
    assert_eq!(
        session
            .run("import { square } from 'shapes';\nexport default square(6) + 6;")
            .unwrap(),
        Value::Int(42)
    );
    assert_eq!(
        session
            .run("const m = await import('geometry'); [m.default, m.area(2, 3)]")
            .unwrap(),
        Value::List(vec![s("geo"), Value::Int(6)])
    );
}

#[test]
fn imports_of_anything_not_registered_are_refused() {
    let mut session = with_modules();
    for specifier in [
        "child_process",
        "./geometry",
        "/etc/passwd",
        "https://example.com/x.js",
        "data:text/javascript,export default 1",
    ] {
        let code = format!(
            "try {{ await import('{specifier}'); 'loaded' }} catch (e) {{ String(e.message) }}"
        );
        let Value::Str(message) = session.run(&code).unwrap() else {
            panic!("expected a message for {specifier}")
        };
        assert!(
            message.contains("only modules the host registered"),
            "{specifier}: {message}"
        );
    }
    match session.run("import x from 'os';\nexport default x;") {
        Err(Error::Guest(guest)) => {
            assert!(
                guest.message.contains("only modules the host registered"),
                "{guest:?}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // The session lives.
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn polyfilled() -> Session {
    js_with(JavaScriptOptions {
        web_polyfills: true,
        ..Default::default()
    })
}

#[test]
fn polyfill_timers_run_on_virtual_time_in_order() {
    let mut session = polyfilled();
    let code = "
        const order = [];
        setTimeout(() => order.push('b200'), 200);
        setTimeout(() => order.push('a100'), 100);
        const cancelled = setTimeout(() => order.push('never'), 50);
        clearTimeout(cancelled);
        queueMicrotask(() => order.push('micro'));
        await new Promise((resolve) => setTimeout(resolve, 1000 * 60 * 60));
        let ticks = 0;
        await new Promise((resolve) => {
          const id = setInterval(() => { if (++ticks === 3) { clearInterval(id); resolve(); } }, 10);
        });
        [...order, ticks]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![s("micro"), s("a100"), s("b200"), Value::Int(3)])
    );
}

#[test]
fn a_runaway_set_interval_is_cut_off_and_the_session_lives() {
    let mut session = polyfilled();
    let printed = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = std::sync::Arc::clone(&printed);
    session.on_print(move |_, text| sink.lock().unwrap().push_str(text));
    assert_eq!(
        session
            .run("globalThis.n = 0; setInterval(() => { n++ }, 1); 'started'")
            .unwrap(),
        s("started")
    );
    assert_eq!(session.run("n").unwrap(), Value::Int(100_000));
    assert!(
        printed.lock().unwrap().contains("timers cut off"),
        "{}",
        printed.lock().unwrap()
    );
    assert_eq!(session.run("n").unwrap(), Value::Int(100_000));
}

#[test]
fn polyfills_cover_text_base64_clone_events_abort_and_blob() {
    let mut session = polyfilled();
    let code = r#"
        const bytes = new TextEncoder().encode('héllo €𝄞');
        const text = new TextDecoder().decode(bytes);
        const b64 = btoa('hello');
        const back = atob(b64);
        let bad; try { atob('***'); } catch (e) { bad = e.name; }
        const original = { d: new Date(0), m: new Map([[1, 'x']]), list: [1, 2] };
        original.self = original;
        const copy = structuredClone(original);
        let uncloneable; try { structuredClone({ f() {} }); } catch (e) { uncloneable = e.name; }
        const target = new EventTarget();
        const seen = [];
        target.addEventListener('ping', (e) => seen.push(e.type), { once: true });
        target.dispatchEvent(new Event('ping'));
        target.dispatchEvent(new Event('ping'));
        const controller = new AbortController();
        controller.signal.addEventListener('abort', () => seen.push('aborted'));
        controller.abort();
        const blob = new Blob(['ab', new Uint8Array([99])], { type: 'Text/Plain' });
        [Array.from(bytes).length, text, b64, back, bad,
         copy !== original && copy.self === copy && copy.m.get(1) === 'x' && copy.d.getTime() === 0,
         uncloneable, seen, controller.signal.aborted, controller.signal.reason.name,
         blob.size, blob.type, await blob.text(), await blob.slice(1).text(),
         typeof window, typeof document]"#;
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Int(14),
            s("héllo €𝄞"),
            s("aGVsbG8="),
            s("hello"),
            s("InvalidCharacterError"),
            Value::Bool(true),
            s("DataCloneError"),
            Value::List(vec![s("ping"), s("aborted")]),
            Value::Bool(true),
            s("AbortError"),
            Value::Int(3),
            s("text/plain"),
            s("abc"),
            s("bc"),
            s("undefined"),
            s("undefined"),
        ])
    );
}

#[test]
fn polyfills_leave_the_built_in_intl_whole() {
    let mut session = polyfilled();
    let code = r#"
        const d = new Date(Date.UTC(2024, 2, 14, 16, 0, 5));
        [new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Paris', timeStyle: 'short' }).format(d),
         new Intl.NumberFormat('de-DE', { style: 'percent' }).format(0.256),
         String(new Intl.Locale('de-latn-de-u-ca-gregory')), new Intl.Locale('en-US').region,
         typeof setTimeout]"#;
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            s("5:00 PM"),
            s("26\u{a0}%"),
            s("de-Latn-DE-u-ca-gregory"),
            s("US"),
            s("function"),
        ])
    );
}

#[test]
fn without_polyfills_there_are_no_timers() {
    let mut session = js_with(JavaScriptOptions::default());
    assert_eq!(
        session
            .run("[typeof setTimeout, typeof TextEncoder, typeof structuredClone, typeof Intl]")
            .unwrap(),
        // Intl is every guest's, polyfills or not.
        Value::List(vec![
            s("undefined"),
            s("undefined"),
            s("undefined"),
            s("object")
        ])
    );
}

#[test]
fn javascript_options_on_a_python_session_are_a_configuration_error() {
    let options = SessionOptions::new(Language::Python).javascript(JavaScriptOptions {
        strict_eval: true,
        ..Default::default()
    });
    match Session::new(options) {
        Err(Error::Configuration(err)) => {
            assert!(err.message().contains("javascript options"), "{err}")
        }
        other => panic!(
            "expected a configuration error, got {:?}",
            other.map(|_| ())
        ),
    }
}
