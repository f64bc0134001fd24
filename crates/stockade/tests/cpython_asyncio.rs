//! The CPython engine and asyncio: async host functions are awaitable in
//! the guest's own event loops (top-level `await`, `asyncio.run`,
//! `run_until_complete`), and a call cannot outlive its feed.

use std::time::Duration;

use stockade::{Error, HostError, Interpreter, Language, SessionOptions, Value};

fn options() -> SessionOptions {
    SessionOptions::new(Language::Python).engine(Interpreter::CPython)
}

fn s(text: &str) -> Value {
    Value::Str(text.to_owned())
}

fn guest_error(result: Result<Value, Error>) -> stockade::GuestError {
    match result {
        Err(Error::Guest(guest)) => guest,
        other => panic!("expected a guest exception, got {other:?}"),
    }
}

async fn cpython_with_fetch() -> stockade::AsyncSession {
    let session = stockade::AsyncSession::new(options().show_host_errors())
        .await
        .expect("starts");
    session.register_async_function("fetch", |args| async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        match args.get(0) {
            Some(Value::Str(key)) => Ok(Value::Str(format!("value of {key}"))),
            _ => Err(HostError::type_error("fetch() takes a key")),
        }
    });
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpython_guests_await_async_host_functions_with_asyncio() {
    let session = cpython_with_fetch().await;
    assert_eq!(
        session.run("await fetch('a')").await.unwrap(),
        s("value of a")
    );
    let caught = "try:\n    await fetch(1)\nexcept TypeError as e:\n    r = str(e)\nr";
    assert_eq!(session.run(caught).await.unwrap(), s("fetch() takes a key"));
    // gather, tasks and sleep: the guest's asyncio runs on the host's calls.
    let code = "import asyncio\n\
        async def both():\n    return await asyncio.gather(fetch('a'), fetch('b'), fetch('c'))\n\
        task = asyncio.ensure_future(both())\n\
        await asyncio.sleep(0.01)\n\
        await task";
    let started = std::time::Instant::now();
    let result = session.run(code).await.unwrap();
    assert_eq!(
        result,
        Value::List(vec![s("value of a"), s("value of b"), s("value of c")])
    );
    // Three calls one after another would take three times one call.
    // Run one after another, the three calls take at least 600 ms.
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "the calls did not overlap"
    );
    let deadlock = guest_error(
        session
            .run("import asyncio\nawait asyncio.get_running_loop().create_future()")
            .await,
    );
    assert!(deadlock.message.contains("deadlock"), "{deadlock:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpython_asyncio_run_and_run_until_complete_work_with_async_host_functions() {
    let session = cpython_with_fetch().await;
    // What scripts do: asyncio.run(main()), feed after feed.
    let script = "import asyncio\n\
        async def main():\n    return await asyncio.gather(fetch('x'), fetch('y'))\n\
        asyncio.run(main())";
    for _ in 0..2 {
        assert_eq!(
            session.run(script).await.unwrap(),
            Value::List(vec![s("value of x"), s("value of y")])
        );
    }
    // And the older style.
    let older = "import asyncio\nloop = asyncio.new_event_loop()\n\
        r = loop.run_until_complete(fetch('z'))\nloop.close()\nr";
    assert_eq!(session.run(older).await.unwrap(), s("value of z"));
    // Top-level await still runs on the session's own loop afterwards.
    assert_eq!(
        session.run("await fetch('w')").await.unwrap(),
        s("value of w")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpython_an_async_call_left_unawaited_cannot_be_awaited_in_a_later_feed() {
    let session = cpython_with_fetch().await;
    assert_eq!(
        session.run("later = fetch('kept')\n'left'").await.unwrap(),
        s("left")
    );
    let err = guest_error(session.run("await later").await);
    assert_eq!(err.type_name, "RuntimeError");
    assert!(err.message.contains("earlier feed"), "{err:?}");
    // The worker lives, and new calls work.
    assert_eq!(
        session.run("await fetch('new')").await.unwrap(),
        s("value of new")
    );
}

/// What asyncio code written for a laptop does besides host calls: work
/// handed to threads, a thread waking the loop, pipes and socket pairs
/// watched by the loop, streams over a pair, a loop made by hand; under
/// `require`, in a worker forked from a template and in one started alone.
const LAPTOP_ASYNCIO: &str = r#"
import asyncio, os, socket, threading, time

def slow_square(x):
    time.sleep(0.05)
    return x * x

async def main():
    loop = asyncio.get_running_loop()
    seen = {}
    seen["to_thread"] = await asyncio.to_thread(slow_square, 3)
    seen["executor"] = await loop.run_in_executor(None, slow_square, 4)
    # A thread of the guest's own puts items on the loop's queue.
    queue = asyncio.Queue()
    def producer():
        for n in range(3):
            time.sleep(0.01)
            loop.call_soon_threadsafe(queue.put_nowait, n)
    threading.Thread(target=producer).start()
    seen["queue"] = [await queue.get() for _ in range(3)]
    # A pipe the loop watches, written by a thread.
    r, w = os.pipe()
    ready = loop.create_future()
    loop.add_reader(r, lambda: ready.set_result(os.read(r, 5)))
    threading.Timer(0.02, os.write, (w, b"piped")).start()
    seen["pipe"] = await ready
    loop.remove_reader(r)
    # A socket pair, low level and as streams.
    a, b = socket.socketpair()
    a.setblocking(False)
    b.setblocking(False)
    await loop.sock_sendall(a, b"ping")
    seen["sock"] = await loop.sock_recv(b, 4)
    reader, writer = await asyncio.open_connection(sock=a)
    b.send(b"line one\n")
    seen["stream"] = await reader.readline()
    writer.close()
    await writer.wait_closed()
    b.close()
    # A host call and a thread at once.
    seen["both"] = await asyncio.gather(fetch("k"), asyncio.to_thread(slow_square, 5))
    return seen

result = asyncio.run(main())
# A loop made by hand, as asyncio makes it.
own = asyncio.SelectorEventLoop()
result["own loop"] = own.run_until_complete(asyncio.to_thread(slow_square, 6))
own.close()
try:
    socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    result["network"] = "opened"
except PermissionError:
    result["network"] = "refused"
result
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpython_asyncio_loops_wake_from_threads_pipes_and_socket_pairs_as_on_a_laptop() {
    for spare in [true, false] {
        let session = stockade::AsyncSession::new(
            options()
                .sandbox(stockade::SandboxMode::Require)
                .spare(spare)
                .show_host_errors(),
        )
        .await
        .expect("starts under require");
        session.register_async_function("fetch", |_args| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(s("fetched"))
        });
        let Value::Dict(seen) = session.run(LAPTOP_ASYNCIO).await.unwrap() else {
            panic!("expected what the guest saw");
        };
        let get = |key: &str| {
            seen.iter()
                .find(|(k, _)| *k == s(key))
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{key} missing (spare {spare})"))
        };
        assert_eq!(get("to_thread"), Value::Int(9), "spare {spare}");
        assert_eq!(get("executor"), Value::Int(16));
        assert_eq!(
            get("queue"),
            Value::List(vec![Value::Int(0), Value::Int(1), Value::Int(2)])
        );
        assert_eq!(get("pipe"), Value::Bytes(b"piped".to_vec()));
        assert_eq!(get("sock"), Value::Bytes(b"ping".to_vec()));
        assert_eq!(get("stream"), Value::Bytes(b"line one\n".to_vec()));
        assert_eq!(get("both"), Value::List(vec![s("fetched"), Value::Int(25)]));
        assert_eq!(get("own loop"), Value::Int(36));
        assert_eq!(get("network"), s("refused"));
    }
}
