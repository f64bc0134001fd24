//! Stepped feeds (`Session::start`) on every engine: the feed stops at each
//! host call, name lookup and await, and the host answers through cursors.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use stockade::{
    CursorAnswer, Error, HostError, Interpreter, Language, Progress, Session, SessionOptions, Value,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Engine {
    CPython,
    Monty,
    QuickJs,
}

impl Engine {
    fn options(self) -> SessionOptions {
        match self {
            Engine::CPython => SessionOptions::new(Language::Python).engine(Interpreter::CPython),
            Engine::Monty => SessionOptions::new(Language::Python).engine(Interpreter::Monty),
            Engine::QuickJs => SessionOptions::new(Language::JavaScript),
        }
    }

    /// A session where `fetch` is a declared host function.
    fn session(self) -> Session {
        with_fetch(self.options())
    }

    /// `python` or `javascript`, whichever this engine runs.
    fn pick<'a>(self, python: &'a str, javascript: &'a str) -> &'a str {
        if self == Engine::QuickJs {
            javascript
        } else {
            python
        }
    }
}

fn with_fetch(options: SessionOptions) -> Session {
    let mut session = Session::new(options).expect("a session starts");
    session.declare_function("fetch");
    session
}

/// Runs each named test function (which takes an engine) on every engine.
macro_rules! on_every_engine {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn cpython() {
                    super::$name(super::Engine::CPython)
                }

                #[test]
                fn monty() {
                    super::$name(super::Engine::Monty)
                }

                #[test]
                fn quickjs() {
                    super::$name(super::Engine::QuickJs)
                }
            }
        )*
    };
}

fn int(value: Option<&Value>) -> i64 {
    match value {
        Some(Value::Int(i)) => *i,
        other => panic!("expected an int argument, got {other:?}"),
    }
}

/// Answers every cursor as a small host would, logging what it saw:
/// `fetch` is a function that doubles its argument (deferred when `defer`),
/// `limit` is 10, any other name is not found; awaited calls are resolved
/// one at a time, oldest first.
fn drive(mut progress: Progress<'_>, defer: bool, log: &mut Vec<String>) -> Result<Value, Error> {
    let mut deferred: Vec<(u32, i64)> = Vec::new();
    loop {
        progress = match progress {
            Progress::Complete(value) => return Ok(value),
            Progress::NameLookup(lookup) => {
                log.push(format!("lookup {}", lookup.name()));
                match lookup.name() {
                    "fetch" => lookup.resume_function()?,
                    "limit" => lookup.resume(Value::Int(10))?,
                    _ => lookup.resume_not_found()?,
                }
            }
            Progress::FunctionCall(call) => {
                let n = int(call.args().get(0));
                log.push(format!("call {}({n})", call.name()));
                if defer {
                    deferred.push((call.call_id(), n));
                    call.resume_pending()?
                } else {
                    call.resume(Value::Int(n * 2))?
                }
            }
            Progress::PendingFutures(futures) => {
                log.push(format!("await {}", futures.call_ids().len()));
                let first = deferred
                    .iter()
                    .position(|(id, _)| futures.call_ids().contains(id))
                    .expect("an awaited call was deferred");
                let (id, n) = deferred.remove(first);
                futures.resolve(vec![(id, Ok(Value::Int(n * 2)))])?
            }
        };
    }
}

fn calls(log: &[String]) -> Vec<&str> {
    log.iter()
        .map(String::as_str)
        .filter(|line| line.starts_with("call "))
        .collect()
}

fn a_stepped_feed_stops_at_every_call_and_lookup(engine: Engine) {
    let mut session = engine.session();
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    session.register_function("double", move |_| {
        flag.store(true, Ordering::SeqCst);
        Ok(Value::None)
    });
    // JavaScript guests never ask the host for a name they lack (it is a
    // ReferenceError), so there `limit` is an input.
    let (code, inputs) = match engine {
        Engine::QuickJs => (
            "const a = fetch(1); const b = double(2); a + b + limit",
            vec![("limit".to_owned(), Value::Int(10))],
        ),
        _ => ("a = fetch(1)\nb = double(2)\na + b + limit", Vec::new()),
    };
    let mut log = Vec::new();
    let progress = session.start(code, inputs).unwrap();
    assert_eq!(drive(progress, false, &mut log).unwrap(), Value::Int(16));
    assert_eq!(calls(&log), ["call fetch(1)", "call double(2)"]);
    if engine != Engine::QuickJs {
        assert!(log.contains(&"lookup limit".to_owned()), "{log:?}");
    }
    // A stepped feed hands the host every call, registered or not.
    assert!(!ran.load(Ordering::SeqCst));
    // State persists, and the automatic path works on the same session,
    // where a declared function has nothing behind it.
    assert_eq!(session.run("a + b").unwrap(), Value::Int(6));
    match session.run("fetch(1)") {
        Err(Error::Guest(guest)) => assert!(guest.message.contains("stepped feed"), "{guest:?}"),
        other => panic!("expected the guest to raise, got {other:?}"),
    }
}

fn async_calls_step_as_pending_futures_resolved_in_parts(engine: Engine) {
    let mut session = engine.session();
    let code = engine.pick(
        "import asyncio\nasync def main():\n    return await asyncio.gather(fetch(1), fetch(2), fetch(3))\nawait main()",
        "await Promise.all([fetch(1), fetch(2), fetch(3)])",
    );
    let mut log = Vec::new();
    let progress = session.start(code, Vec::new()).unwrap();
    let value = drive(progress, true, &mut log).unwrap();
    assert_eq!(
        value,
        Value::List(vec![Value::Int(2), Value::Int(4), Value::Int(6)])
    );
    assert_eq!(
        calls(&log),
        ["call fetch(1)", "call fetch(2)", "call fetch(3)"]
    );
    // One call resolved per cursor, so the guest awaited more than once.
    let awaits = log.iter().filter(|line| line.starts_with("await")).count();
    assert!(awaits >= 2, "{log:?}");
}

fn a_guest_error_ends_a_stepped_feed_and_the_session_lives(engine: Engine) {
    let mut session = engine.session();
    let code = engine.pick("fetch(1)", "fetch(1)");
    let Progress::FunctionCall(call) = session.start(code, Vec::new()).unwrap() else {
        panic!("expected the call");
    };
    match call.resume_error("ValueError", "no such record") {
        Err(Error::Guest(guest)) => {
            assert!(guest.message.contains("no such record"), "{guest:?}");
        }
        other => panic!("expected the guest to raise, got {other:?}"),
    }
    assert!(session.pending().is_none());
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn a_cursor_answers_once_and_the_session_refuses_feeds_while_suspended(engine: Engine) {
    let mut session = engine.session();
    let code = engine.pick("x = fetch(20)\nx + 1", "const x = fetch(20); x + 1");
    // The cursor's handle is let go unanswered.
    let cursor = match session.start(code, Vec::new()).unwrap() {
        Progress::FunctionCall(call) => call.cursor(),
        other => panic!("expected the call, got {other:?}"),
    };
    // Suspended: no feed, stepped or not, until the cursor is answered.
    for feed in [
        session.run("1").map(|_| ()),
        session.start("1", Vec::new()).map(|_| ()),
    ] {
        match feed {
            Err(Error::Cursor(message)) => {
                assert!(message.contains(&format!("cursor {cursor}")), "{message}");
                assert!(message.contains("fetch"), "{message}");
            }
            other => panic!("expected a cursor error, got {other:?}"),
        }
    }
    // An answer of the wrong kind or a value that cannot cross is refused,
    // and the feed stays where it was.
    assert!(matches!(
        session.answer_cursor(cursor, CursorAnswer::Function),
        Err(Error::Cursor(_))
    ));
    assert!(matches!(
        session.answer_cursor(cursor, CursorAnswer::Return(Value::Repr("<x>".into()))),
        Err(Error::Conversion(_))
    ));
    let Some(Progress::FunctionCall(again)) = session.pending() else {
        panic!("the dropped cursor is still pending");
    };
    assert_eq!((again.cursor(), again.name()), (cursor, "fetch"));
    assert_eq!(
        session
            .answer_cursor(cursor, CursorAnswer::Return(Value::Int(41)))
            .unwrap()
            .cursor(),
        None
    );
    // The same cursor again: it was answered.
    match session.answer_cursor(cursor, CursorAnswer::Return(Value::Int(0))) {
        Err(Error::Cursor(message)) => {
            assert!(
                message.contains(&format!("cursor {cursor} was already answered")),
                "{message}"
            );
        }
        other => panic!("expected a cursor error, got {other:?}"),
    }
    assert_eq!(session.run("x").unwrap(), Value::Int(41));
}

fn time_at_a_cursor_is_the_hosts_not_the_guests(engine: Engine) {
    let mut session = with_fetch(
        engine
            .options()
            .max_duration(Duration::from_millis(400))
            .request_timeout(Duration::from_millis(600)),
    );
    let code = engine.pick("fetch(1) + 1", "fetch(1) + 1");
    let Progress::FunctionCall(call) = session.start(code, Vec::new()).unwrap() else {
        panic!("expected the call");
    };
    // Longer than max_duration and request_timeout together.
    std::thread::sleep(Duration::from_millis(1200));
    let Progress::Complete(value) = call.resume(Value::Int(1)).unwrap() else {
        panic!("expected the feed to complete");
    };
    assert_eq!(value, Value::Int(2));
    assert!(session.elapsed() < Duration::from_millis(400));
}

fn max_host_calls_counts_suspensions_in_a_stepped_feed(engine: Engine) {
    let mut session = with_fetch(engine.options().max_host_calls(2));
    let code = engine.pick(
        "t = 0\nfor i in range(10):\n    t += fetch(i)\nt",
        "let t = 0; for (let i = 0; i < 10; i++) { t += fetch(i) } t",
    );
    let mut log = Vec::new();
    let progress = session.start(code, Vec::new()).unwrap();
    match drive(progress, false, &mut log) {
        Err(Error::Guest(guest)) => {
            assert!(guest.message.contains("max_host_calls"), "{guest:?}");
        }
        other => panic!("expected max_host_calls to end the feed, got {other:?}"),
    }
    // Two calls reached the host; the third suspension did not.
    assert_eq!(calls(&log), ["call fetch(0)", "call fetch(1)"]);
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

fn awaited_calls_are_resolved_only_by_their_ids(engine: Engine) {
    let mut session = engine.session();
    let code = engine.pick(
        "import asyncio\nasync def main():\n    return await fetch(5)\nawait main()",
        "await fetch(5)",
    );
    let Progress::FunctionCall(call) = session.start(code, Vec::new()).unwrap() else {
        panic!("expected the call");
    };
    let id = call.call_id();
    let Progress::PendingFutures(futures) = call.resume_pending().unwrap() else {
        panic!("expected the guest to await");
    };
    assert_eq!(futures.call_ids(), [id]);
    let cursor = futures.cursor();
    for bad in [vec![], vec![(id + 100, Ok(Value::Int(1)))]] {
        assert!(matches!(
            session.answer_cursor(cursor, CursorAnswer::Resolve(bad)),
            Err(Error::Cursor(_))
        ));
    }
    let answer = CursorAnswer::Resolve(vec![(id, Err(HostError::value_error("gone")))]);
    match session.answer_cursor(cursor, answer) {
        Err(Error::Guest(guest)) => assert!(guest.message.contains("gone"), "{guest:?}"),
        other => panic!("expected the guest to raise, got {other:?}"),
    }
}

on_every_engine!(
    a_stepped_feed_stops_at_every_call_and_lookup,
    async_calls_step_as_pending_futures_resolved_in_parts,
    a_guest_error_ends_a_stepped_feed_and_the_session_lives,
    a_cursor_answers_once_and_the_session_refuses_feeds_while_suspended,
    time_at_a_cursor_is_the_hosts_not_the_guests,
    max_host_calls_counts_suspensions_in_a_stepped_feed,
    awaited_calls_are_resolved_only_by_their_ids,
);

#[test]
fn a_name_answered_as_a_function_is_called_without_a_second_lookup() {
    let mut session = Session::new(Engine::Monty.options()).unwrap();
    let Progress::NameLookup(lookup) = session
        .start("f = price\n[f(1), f(2)]", Vec::new())
        .unwrap()
    else {
        panic!("expected the lookup of price");
    };
    let mut progress = lookup.resume_function().unwrap();
    let mut calls = 0;
    loop {
        progress = match progress {
            Progress::FunctionCall(call) => {
                calls += 1;
                let n = int(call.args().get(0));
                call.resume(Value::Int(n * 10)).unwrap()
            }
            Progress::Complete(value) => {
                assert_eq!(value, Value::List(vec![Value::Int(10), Value::Int(20)]));
                break;
            }
            other => panic!("expected only calls after the lookup, got {other:?}"),
        };
    }
    assert_eq!(calls, 2);
}
