//! Host functions: a guest's call, made on the session's own thread, goes
//! to Node's thread through a threadsafe function to `index.js`'s
//! dispatcher, which calls the bound JavaScript function (awaiting it if it
//! returns a promise) and resolves with `{ok, value}` or `{ok: false,
//! type, message}`; the session's thread waits for that answer.

use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use napi::bindgen_prelude::{Function, PromiseRaw};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use serde_json::{Value as Json, json};
use stockade::{Args, HostError, HostResult};

use crate::values;

/// Longest a host function's answer is waited for here; the session's own
/// `max_host_wait` (600 s by default) holds the guest to less.
const LONGEST_WAIT: Duration = Duration::from_secs(3600);

/// `index.js`'s dispatcher, callable from any thread; weak, so an idle
/// session does not keep Node alive.
pub type Dispatcher = ThreadsafeFunction<
    (String, Json),
    PromiseRaw<'static, Json>,
    (String, Json),
    napi::Status,
    false,
    true,
>;

/// The dispatcher as a threadsafe function.
pub fn dispatcher(
    dispatch: Function<'_, (String, Json), PromiseRaw<'static, Json>>,
) -> napi::Result<Arc<Dispatcher>> {
    let tsfn = dispatch
        .build_threadsafe_function::<(String, Json)>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()?;
    Ok(Arc::new(tsfn))
}

/// The host function `name`, answered by the dispatcher.
pub fn host_function(
    dispatcher: Arc<Dispatcher>,
    name: String,
) -> impl FnMut(Args) -> HostResult + Send + 'static {
    move |args: Args| {
        let mut positional: Vec<Json> = args.positional.iter().map(values::to_json).collect();
        if !args.keyword.is_empty() {
            let keyword: Vec<Json> = args
                .keyword
                .iter()
                .map(|(name, value)| json!([name, values::to_json(value)]))
                .collect();
            positional.push(json!({ "dict": keyword }));
        }
        let (answer, answered) = channel::<Json>();
        let status = dispatcher.call_with_return_value(
            (name.clone(), Json::Array(positional)),
            ThreadsafeFunctionCallMode::NonBlocking,
            move |returned, _env| {
                let promise = returned?;
                promise.then(move |settled| {
                    let _ = answer.send(settled.value);
                    Ok(())
                })?;
                Ok(())
            },
        );
        if status != napi::Status::Ok {
            return Err(HostError::runtime_error(format!(
                "the host could not call {name}: {status}"
            )));
        }
        let reply = match answered.recv_timeout(LONGEST_WAIT) {
            Ok(reply) => reply,
            Err(RecvTimeoutError::Timeout) => {
                return Err(HostError::new(
                    "TimeoutError",
                    format!("{name} did not answer"),
                ));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(HostError::runtime_error(format!(
                    "{name} never answered (the host is shutting down?)"
                )));
            }
        };
        answer_of(&name, &reply)
    }
}

/// The name under which the dispatcher is handed guest output (no guest
/// function can have it).
const PRINT: &str = "\u{0}print";
/// The name of the call that returns once everything queued before it
/// has been handled.
const FLUSH: &str = "\u{0}flush";
/// Longest a run's answer waits for its output to land in Node.
const FLUSH_WAIT: Duration = Duration::from_secs(10);

/// Hands guest output to Node, without waiting.
pub fn print(dispatcher: &Dispatcher, stream: &str, text: &str) {
    let _ = dispatcher.call(
        (PRINT.to_owned(), json!([stream, text])),
        ThreadsafeFunctionCallMode::NonBlocking,
    );
}

/// Waits until Node has handled everything handed to it so far.
pub fn flush(dispatcher: &Dispatcher) {
    let (done, landed) = channel::<Json>();
    let status = dispatcher.call_with_return_value(
        (FLUSH.to_owned(), Json::Null),
        ThreadsafeFunctionCallMode::NonBlocking,
        move |returned, _env| {
            returned?.then(move |settled| {
                let _ = done.send(settled.value);
                Ok(())
            })?;
            Ok(())
        },
    );
    if status == napi::Status::Ok {
        let _ = landed.recv_timeout(FLUSH_WAIT);
    }
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
