//! AsyncSession on tokio: async host functions the guest awaits, several in
//! flight at once, their limits, several sessions at once, and stepped
//! feeds answered by cursor number.

use std::time::{Duration, Instant};

use stockade::{
    AsyncSession, CursorAnswer, DumpSeal, Error, HostError, Interpreter, Language, SessionOptions,
    Stepped, Value,
};

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

async fn session_with_fetch(options: SessionOptions) -> AsyncSession {
    let session = AsyncSession::new(options).await.unwrap();
    session.register_async_function("fetch", |args| async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        match args.get(0) {
            Some(Value::Str(key)) => Ok(Value::Str(format!("value of {key}"))),
            _ => Err(HostError::type_error("fetch() takes a key")),
        }
    });
    session
}

#[tokio::test(flavor = "current_thread")]
async fn async_host_functions_are_awaited_by_the_guest() {
    let session =
        session_with_fetch(SessionOptions::new(Language::Python).show_host_errors()).await;
    assert_eq!(
        session.run("await fetch('a')").await.unwrap(),
        s("value of a")
    );
    let code = "try:\n    await fetch(1)\nexcept TypeError as e:\n    r = str(e)\nr";
    assert_eq!(session.run(code).await.unwrap(), s("fetch() takes a key"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_async_host_calls_run_at_once() {
    let session = session_with_fetch(SessionOptions::new(Language::Python)).await;
    let code = "import asyncio\nasync def main():\n    return await asyncio.gather(fetch('a'), fetch('b'), fetch('c'))\nawait main()";
    let started = Instant::now();
    let result = session.run(code).await.unwrap();
    let took = started.elapsed();
    assert_eq!(
        result,
        Value::List(vec![s("value of a"), s("value of b"), s("value of c")])
    );
    // Three 300 ms calls one after another would take 900 ms.
    assert!(
        took < Duration::from_millis(800),
        "the calls did not overlap: {took:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn max_inflight_host_calls_ends_the_feed_and_the_session_lives() {
    let options = SessionOptions::new(Language::Python).max_inflight_host_calls(2);
    let session = session_with_fetch(options).await;
    let code = "import asyncio\nasync def main():\n    return await asyncio.gather(fetch('a'), fetch('b'), fetch('c'))\nawait main()";
    match session.run(code).await {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RuntimeError");
            assert!(
                guest.message.contains("max_inflight_host_calls"),
                "{}",
                guest.message
            );
        }
        other => panic!("expected the feed to end, got {other:?}"),
    }
    assert_eq!(
        session.run("await fetch('d')").await.unwrap(),
        s("value of d")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_async_host_function_past_max_host_wait_is_a_timeout_in_the_guest() {
    let options = SessionOptions::new(Language::Python).max_host_wait(Duration::from_millis(200));
    let session = AsyncSession::new(options).await.unwrap();
    session.register_async_function("hang", |_| async move {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(Value::None)
    });
    let code =
        "try:\n    await hang()\n    r = 'answered'\nexcept TimeoutError:\n    r = 'timed out'\nr";
    let started = Instant::now();
    assert_eq!(session.run(code).await.unwrap(), s("timed out"));
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test(flavor = "current_thread")]
async fn a_panicking_async_host_function_raises_in_the_guest() {
    let session = AsyncSession::new(SessionOptions::new(Language::Python))
        .await
        .unwrap();
    session.register_async_function("bad", |_| async move {
        if true {
            panic!("async host bug");
        }
        Ok(Value::None)
    });
    match session.run("await bad()").await {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RuntimeError");
            assert_eq!(guest.message, stockade::REDACTED);
        }
        other => panic!("expected a RuntimeError, got {other:?}"),
    }
    assert_eq!(session.run("1").await.unwrap(), Value::Int(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_async_sessions_run_concurrently() {
    let mut tasks = Vec::new();
    for i in 0..4i64 {
        tasks.push(tokio::spawn(async move {
            let session = AsyncSession::new(SessionOptions::new(Language::Python))
                .await
                .unwrap();
            session.run(&format!("x = {i}")).await.unwrap();
            session.run("x * 10").await.unwrap()
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), Value::Int(i as i64 * 10));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_async_host_functions_are_promises_several_in_flight() {
    let session =
        session_with_fetch(SessionOptions::new(Language::JavaScript).show_host_errors()).await;
    session.register_function("add", |args| match (args.get(0), args.get(1)) {
        (Some(Value::Int(a)), Some(Value::Int(b))) => Ok(Value::Int(a + b)),
        _ => Err(HostError::type_error("add() takes two ints")),
    });
    let started = Instant::now();
    let result = session
        .run("const p = fetch('a'); [p instanceof Promise, await Promise.all([p, fetch('b'), fetch('c')]), add(40, 2)]")
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(
        result,
        Value::List(vec![
            Value::Bool(true),
            Value::List(vec![s("value of a"), s("value of b"), s("value of c")]),
            Value::Int(42),
        ])
    );
    assert!(
        took < Duration::from_millis(800),
        "the calls did not overlap: {took:?}"
    );
    let code = "try { await fetch(1) } catch (e) { `${e.name}: ${e.message}` }";
    assert_eq!(
        session.run(code).await.unwrap(),
        s("TypeError: fetch() takes a key")
    );
    // A promise result without top-level await is awaited too.
    assert_eq!(
        session
            .run("fetch('d').then((v) => v.toUpperCase())")
            .await
            .unwrap(),
        s("VALUE OF D")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn an_async_run_may_tighten_max_result_bytes() {
    let session = AsyncSession::new(SessionOptions::new(Language::Python))
        .await
        .unwrap();
    let tight = stockade::RunLimits {
        max_result_bytes: Some(1000),
    };
    assert!(matches!(
        session
            .run_with_limits("'x' * 5000", Vec::new(), tight)
            .await,
        Err(Error::ResultTooLarge { limit: 1000 })
    ));
    assert_eq!(session.run("'ok'").await.unwrap(), s("ok"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_async_session_dumps_and_restores_without_blocking_the_runtime() {
    let seal = std::sync::Arc::new(stockade::DumpSeal::new(&[[3u8; 32]], "async").unwrap());
    let monty =
        SessionOptions::new(stockade::Language::Python).engine(stockade::Interpreter::Monty);
    let session = AsyncSession::new(monty.clone()).await.unwrap();
    session.run("total = 41").await.unwrap();
    let bytes = session.dump(std::sync::Arc::clone(&seal)).await.unwrap();
    let restored = AsyncSession::restore(monty, seal, bytes).await.unwrap();
    assert_eq!(restored.run("total + 1").await.unwrap(), Value::Int(42));
}

/// Drives a stepped feed to its end: `price` returns 20, `fetch` is
/// deferred and resolved with 2 at the next PendingFutures cursor.
async fn drive(session: &AsyncSession, mut step: Stepped, log: &mut Vec<String>) -> Value {
    loop {
        step = match step {
            Stepped::FunctionCall {
                cursor, name, args, ..
            } => {
                log.push(format!("{name}{:?}", args.positional));
                let answer = if name == "price" {
                    CursorAnswer::Return(Value::Int(20))
                } else {
                    CursorAnswer::Defer
                };
                session.answer_cursor(cursor, answer).await.unwrap()
            }
            Stepped::PendingFutures { cursor, call_ids } => {
                log.push(format!("await {call_ids:?}"));
                let results = call_ids.iter().map(|id| (*id, Ok(Value::Int(2)))).collect();
                session
                    .answer_cursor(cursor, CursorAnswer::Resolve(results))
                    .await
                    .unwrap()
            }
            Stepped::NameLookup { cursor, name } => {
                log.push(format!("lookup {name}"));
                session
                    .answer_cursor(cursor, CursorAnswer::NotFound)
                    .await
                    .unwrap()
            }
            Stepped::Complete(value) => return value,
            other => panic!("unexpected {other:?}"),
        };
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_session_steps_through_sync_and_async_calls_by_cursor_number() {
    for engine in [
        Interpreter::Monty,
        Interpreter::CPython,
        Interpreter::QuickJs,
    ] {
        let session = AsyncSession::new(SessionOptions::new(engine.language()).engine(engine))
            .await
            .unwrap();
        session.declare_function("price");
        session.declare_function("fetch");
        let code = match engine.language() {
            Language::Python => "a = price('apple')\nb = await fetch('x')\na * 2 + b",
            Language::JavaScript => {
                "const a = price('apple'); const b = await fetch('x'); a * 2 + b"
            }
        };
        let first = session.start(code, Vec::new()).await.unwrap();
        let Some(cursor) = first.cursor() else {
            panic!("{engine}: expected a suspension, got {first:?}");
        };
        // Feeding while suspended is refused; the cursor is given back.
        assert!(matches!(session.run("1").await, Err(Error::Cursor(_))));
        assert_eq!(session.pending().await.unwrap().as_ref(), Some(&first));
        let mut log = Vec::new();
        assert_eq!(
            drive(&session, first, &mut log).await,
            Value::Int(42),
            "{engine}"
        );
        assert_eq!(log[0], "price[Str(\"apple\")]", "{engine}: {log:?}");
        assert!(
            log.iter().any(|line| line.starts_with("await")),
            "{engine}: {log:?}"
        );
        // The first cursor was answered: answering it again names it.
        match session
            .answer_cursor(cursor, CursorAnswer::Return(Value::None))
            .await
        {
            Err(Error::Cursor(message)) => {
                assert!(message.contains(&cursor.to_string()), "{message}")
            }
            other => panic!("{engine}: expected a cursor error, got {other:?}"),
        }
        assert_eq!(session.pending().await.unwrap(), None);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_session_dumped_at_a_cursor_restores_waiting_there() {
    let seal = std::sync::Arc::new(DumpSeal::new(&[[3u8; 32]], "async-steps").unwrap());
    let options = SessionOptions::new(Language::JavaScript).dumpable(true);
    let session = AsyncSession::new(options.clone()).await.unwrap();
    session.declare_function("price");
    session.declare_function("fetch");
    let first = session
        .start("const a = price('apple'); a * 2 + 2", Vec::new())
        .await
        .unwrap();
    let bytes = session.dump(std::sync::Arc::clone(&seal)).await.unwrap();
    let restored = AsyncSession::restore(options, seal, bytes).await.unwrap();
    let pending = restored.pending().await.unwrap();
    assert_eq!(pending.as_ref(), Some(&first));
    let mut log = Vec::new();
    let value = drive(&restored, pending.unwrap(), &mut log).await;
    assert_eq!(value, Value::Int(42));
}
