//! Host functions: a guest's call, made on the session's own thread, goes
//! to `index.js`'s dispatcher on Node's thread (`dispatch.rs`), which calls
//! the bound JavaScript function and answers `{ok, value}` or `{ok: false,
//! type, message}`, at once or through a promise. A plain function's call
//! waits for that answer on the session's thread; an async function's is a
//! future the guest awaits, several in flight at once.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, TryRecvError, channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};
use stockade::{Args, HostError, HostResult};
use tokio::runtime::{Builder, Handle, Runtime};
use tokio::sync::oneshot;

use crate::dispatch::{Dispatcher, ask};
use crate::driver::{ANSWER_SPIN, spin_until};
use crate::values;

/// How often a waiting host call looks whether its sandbox was closed.
const CLOSING_POLL: Duration = Duration::from_millis(20);

/// The guest's arguments as the dispatcher takes them: tagged values, the
/// keyword ones (if any) last, as one dict.
fn args_json(args: &Args) -> Json {
    let mut positional: Vec<Json> = args.positional.iter().map(values::to_json).collect();
    if !args.keyword.is_empty() {
        let keyword: Vec<Json> = args
            .keyword
            .iter()
            .map(|(name, value)| json!([name, values::to_json(value)]))
            .collect();
        positional.push(json!({ "dict": keyword }));
    }
    Json::Array(positional)
}

/// The host function `name`, answered by the dispatcher while the guest
/// waits at the call, at most `max_wait` (the session's `max_host_wait`:
/// the host library can only time a plain function once it returns, and a
/// promise that never settles would otherwise hold the guest for ever); a
/// sandbox `closing` stops the wait.
pub fn host_function(
    dispatcher: Arc<Dispatcher>,
    name: String,
    closing: Arc<AtomicBool>,
    max_wait: Duration,
) -> impl FnMut(Args) -> HostResult + Send + 'static {
    move |args: Args| {
        let asked = Instant::now();
        let (answer, answered) = channel::<Json>();
        ask(&dispatcher, &name, &args_json(&args), move |reply| {
            let _ = answer.send(reply);
        })?;
        // A function that answers at once (most do) is waited for spinning,
        // so that this thread need not be woken.
        let mut early = None;
        spin_until(ANSWER_SPIN, || match answered.try_recv() {
            Ok(reply) => {
                early = Some(reply);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => true,
        });
        if let Some(reply) = early {
            return answer_of(&name, &reply);
        }
        let deadline = asked + max_wait;
        loop {
            if closing.load(Ordering::Relaxed) {
                return Err(HostError::runtime_error("the sandbox was closed"));
            }
            match answered.recv_timeout(CLOSING_POLL) {
                Ok(reply) => return answer_of(&name, &reply),
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => continue,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(HostError::new(
                        "TimeoutError",
                        format!("host function {name:?} did not answer within max_host_wait"),
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(never_answered(&name)),
            }
        }
    }
}

/// The host function `name` as an async one: the guest awaits it, and
/// several of its calls may be in flight at once, each its own promise on
/// Node's thread; a sandbox `closing` ends the wait.
pub fn async_host_function(
    dispatcher: Arc<Dispatcher>,
    name: String,
    closing: Arc<AtomicBool>,
) -> impl Fn(Args) -> Pin<Box<dyn Future<Output = HostResult> + Send>> + Send + 'static {
    move |args: Args| {
        let (answer, answered) = oneshot::channel::<Json>();
        let asked = ask(&dispatcher, &name, &args_json(&args), move |reply| {
            let _ = answer.send(reply);
        });
        let name = name.clone();
        let closing = Arc::clone(&closing);
        Box::pin(async move {
            asked?;
            let closed = async {
                while !closing.load(Ordering::Relaxed) {
                    tokio::time::sleep(CLOSING_POLL).await;
                }
            };
            tokio::select! {
                reply = answered => match reply {
                    Ok(reply) => answer_of(&name, &reply),
                    Err(_) => Err(never_answered(&name)),
                },
                () = closed => Err(HostError::runtime_error("the sandbox was closed")),
            }
        })
    }
}

fn never_answered(name: &str) -> HostError {
    HostError::runtime_error(format!(
        "{name} never answered (the host is shutting down?)"
    ))
}

/// The runtime async host functions' futures wait on: one for the
/// process, started on first use. The futures only wait for Node's
/// answers, so one thread serves them all.
pub fn runtime() -> Result<Handle, String> {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime.handle().clone());
    }
    let started = Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("stockade-node-calls")
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the runtime for async host functions: {err}"))?;
    // A runtime another thread set first wins; this one is dropped here,
    // off any runtime, which is allowed.
    Ok(RUNTIME.get_or_init(|| started).handle().clone())
}

fn answer_of(name: &str, reply: &Json) -> HostResult {
    if reply.get("ok").and_then(Json::as_bool) == Some(true) {
        let value = reply.get("value").unwrap_or(&Json::Null);
        return values::from_json(value, &format!("the result of {name}"), 0)
            .map_err(HostError::type_error);
    }
    let text = |key: &str| reply.get(key).and_then(Json::as_str).unwrap_or_default();
    Err(HostError::new(
        if text("type").is_empty() {
            "Error"
        } else {
            text("type")
        },
        text("message"),
    ))
}
