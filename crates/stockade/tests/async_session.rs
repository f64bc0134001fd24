//! AsyncSession on tokio: async host functions, several sessions at once.

use std::time::Duration;

use stockade::{AsyncSession, HostError, Language, SessionOptions, Value};

#[tokio::test(flavor = "current_thread")]
async fn async_host_functions_run_on_the_runtime() {
    let options = SessionOptions::new(Language::Python).show_host_errors();
    let session = AsyncSession::new(options).await.unwrap();
    session.register_async_function("fetch", |args| async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        match args.get(0) {
            Some(Value::Str(key)) => Ok(Value::Str(format!("value of {key}"))),
            _ => Err(HostError::type_error("fetch() takes a key")),
        }
    });
    assert_eq!(
        session.run("fetch('a')").await.unwrap(),
        Value::Str("value of a".into())
    );
    let code = "try:\n    fetch(1)\nexcept TypeError as e:\n    r = str(e)\nr";
    assert_eq!(
        session.run(code).await.unwrap(),
        Value::Str("fetch() takes a key".into())
    );
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

#[tokio::test(flavor = "current_thread")]
async fn an_async_host_function_past_max_host_wait_is_a_timeout_in_the_guest() {
    let options = SessionOptions::new(Language::Python).max_host_wait(Duration::from_millis(200));
    let session = AsyncSession::new(options).await.unwrap();
    session.register_async_function("hang", |_| async move {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(Value::None)
    });
    let code = "try:\n    hang()\n    r = 'answered'\nexcept TimeoutError:\n    r = 'timed out'\nr";
    let started = std::time::Instant::now();
    assert_eq!(
        session.run(code).await.unwrap(),
        Value::Str("timed out".into())
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
