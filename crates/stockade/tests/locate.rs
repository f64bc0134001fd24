//! Worker resolution through `STOCKADE_WORKER`. One test in its own binary,
//! because it changes the process environment.

use stockade::{Error, Language, Session, SessionOptions, Value, WORKER_ENV, locate_worker};

#[test]
fn the_worker_env_variable_is_used_and_a_bad_one_is_named() {
    let found = locate_worker(None).expect("the worker is beside the test binary's directory");
    // SAFETY: this test binary runs this single test, so no other thread
    // reads the environment while it changes.
    unsafe { std::env::set_var(WORKER_ENV, "/no/such/worker") };
    // The monty worker binary is what STOCKADE_WORKER names.
    let monty = || SessionOptions::new(Language::Python).engine(stockade::Interpreter::Monty);
    match Session::new(monty()) {
        Err(Error::Configuration(err)) => {
            assert_eq!(err.kind(), stockade::ConfigurationKind::WorkerNotFound);
            let message = err.message();
            assert!(
                message.contains(WORKER_ENV) && message.contains("/no/such/worker"),
                "{message}"
            );
        }
        other => panic!("expected a configuration error, got {other:?}"),
    }
    // SAFETY: as above.
    unsafe { std::env::set_var(WORKER_ENV, &found) };
    let mut session = Session::new(monty()).unwrap();
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}
