//! One server under load (bounded, loopback only): two hundred remote
//! sessions at once each keep their state through every turn, and the
//! sessions past the server's capacity are refused cleanly, never half
//! started. The figures are `benches/remote.rs`'s business.

mod server;

use std::sync::{Arc, Barrier};

use server::{Server, TOKEN};
use stockade::{Error, Interpreter, Language, Session, SessionOptions, Value};

const SESSIONS: usize = 200;
const TURNS: i64 = 5;

#[test]
fn two_hundred_remote_sessions_at_once_lose_nothing_and_the_next_are_refused_cleanly() {
    let (server, _tokens) = Server::with_tokens(&["--max-sessions", &SESSIONS.to_string()]);
    let options = || {
        SessionOptions::new(Language::Python)
            .engine(Interpreter::Monty)
            .remote(server.url.clone(), Some(TOKEN.to_owned()))
    };
    let all_open = Arc::new(Barrier::new(SESSIONS + 1));
    let refusals_checked = Arc::new(Barrier::new(SESSIONS + 1));
    // Why any of the sessions failed to open, for the report should the
    // capacity then not be full.
    let not_opened = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let clients: Vec<_> = (0..SESSIONS)
        .map(|n| {
            let options = options();
            let all_open = Arc::clone(&all_open);
            let refusals_checked = Arc::clone(&refusals_checked);
            let not_opened = Arc::clone(&not_opened);
            std::thread::spawn(move || -> Result<(), String> {
                let opened = Session::new(options).map_err(|err| format!("session {n}: {err}"));
                if let Err(why) = &opened {
                    not_opened.lock().unwrap().push(why.clone());
                }
                all_open.wait();
                refusals_checked.wait();
                let mut session = opened?;
                session
                    .run_with_inputs("x = n", vec![("n".into(), Value::Int(n as i64))])
                    .map_err(|err| format!("session {n}: {err}"))?;
                for _ in 0..TURNS {
                    session
                        .run("x += 1")
                        .map_err(|err| format!("session {n}: {err}"))?;
                }
                match session.run("x") {
                    Ok(Value::Int(x)) if x == n as i64 + TURNS => Ok(()),
                    other => Err(format!("session {n} lost its state: {other:?}")),
                }
            })
        })
        .collect();
    all_open.wait();
    // The server is full: more are refused before any worker starts.
    for _ in 0..10 {
        match Session::new(options()) {
            Err(Error::OverCapacity(text)) => assert!(text.contains("most sessions"), "{text}"),
            other => panic!(
                "a session past the capacity was not refused: {other:?}; sessions that did not open: {:?}",
                not_opened.lock().unwrap()
            ),
        }
    }
    assert_eq!(server.workers(), SESSIONS);
    refusals_checked.wait();
    let failures: Vec<String> = clients
        .into_iter()
        .filter_map(|client| client.join().expect("a client thread").err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} sessions failed: {failures:?}",
        failures.len()
    );
    assert!(server.wait_for_workers(0));
    server.metrics_show(&[&format!(
        "stockade_sessions_ended_total{{reason=\"closed\"}} {SESSIONS}\n"
    )]);
}
