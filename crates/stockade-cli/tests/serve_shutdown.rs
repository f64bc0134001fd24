//! A server that shuts down ends its sessions with their dumps: a remote
//! session lost to `ServerShutdown` still dumps (from the image the server
//! sent, or its own journal), and the dump goes on here or on another
//! server.

mod server;

use std::time::Duration;

use server::{Server, TOKEN};
use stockade::{DumpSeal, Error, Interpreter, Session, SessionOptions, Value};

fn remote(server: &Server, engine: Interpreter) -> SessionOptions {
    SessionOptions::new(engine.language())
        .engine(engine)
        .dumpable(true)
        .remote(server.url.clone(), Some(TOKEN.to_owned()))
}

#[test]
fn a_session_ended_by_a_shutdown_dumps_and_goes_on_here_or_on_another_server() {
    let (first, _first_tokens) = Server::with_tokens(&["--grace", "1"]);
    let (second, _second_tokens) = Server::with_tokens(&[]);
    let seal = DumpSeal::new(&[[7u8; 32]], "a tenant").expect("a seal");
    // monty sends an image of itself; QuickJS and CPython are journaled.
    let cases = [
        (Interpreter::Monty, "x = 41", "x + 1"),
        (Interpreter::QuickJs, "var x = 41", "x + 1"),
        (Interpreter::CPython, "x = 41", "x + 1"),
    ];
    let mut sessions: Vec<Session> = cases
        .iter()
        .map(|(engine, code, _)| {
            let mut session = Session::new(remote(&first, *engine)).expect("a remote session");
            session.run(code).expect("the first feed");
            session
        })
        .collect();
    first.signal("TERM");
    // Past the grace, each idle session is ended at its next wait.
    std::thread::sleep(Duration::from_millis(2500));
    for ((engine, _, next), session) in cases.iter().zip(&mut sessions) {
        match session.run(next) {
            Err(Error::ServerShutdown(text)) => {
                assert!(text.contains("shutting down"), "{engine}: {text}")
            }
            other => panic!("{engine}: the shutdown was not reported: {other:?}"),
        }
        assert!(matches!(session.run("1"), Err(Error::ServerShutdown(_))));
        let dump = session.dump(&seal).expect("a dump of the lost session");
        let local = SessionOptions::new(engine.language())
            .engine(*engine)
            .dumpable(true);
        let mut here = Session::restore(local, &seal, &dump).expect("restored here");
        assert_eq!(here.run(next).unwrap(), Value::Int(42), "{engine} here");
        let mut there =
            Session::restore(remote(&second, *engine), &seal, &dump).expect("restored there");
        assert_eq!(
            there.run(next).unwrap(),
            Value::Int(42),
            "{engine} on another server"
        );
    }
}
