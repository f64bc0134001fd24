//! The one queue from a session's thread to Node's: `index.js`'s
//! dispatcher, as a threadsafe function, takes the guest's host calls, its
//! output and each call's answer, in the order they were sent. It is weak,
//! so an idle session never keeps Node alive.
//!
//! A host function that answers at once (no promise) is answered from
//! inside the dispatcher's callback, and Node's thread then waits there a
//! moment for the next message (a guest calling in a loop sends one every
//! few microseconds): Node takes a message queued meanwhile without going
//! back to sleep, which on a virtual machine costs far more than the call.
//! Those waits stop after `BURST_BUDGET`, so the event loop is never held
//! longer than that.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use napi::JsValue;
use napi::bindgen_prelude::{Function, PromiseRaw, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use serde_json::{Value as Json, json};
use stockade::HostError;

/// How long Node's thread waits in the callback for the next message.
const NEXT_MESSAGE_SPIN: Duration = Duration::from_micros(60);
/// The longest Node's thread goes on taking messages that way before it
/// returns to its event loop.
const BURST_BUDGET: Duration = Duration::from_millis(1);

/// The name under which the dispatcher is handed guest output (no guest
/// function can have it).
const PRINT: &str = "\u{0}print";
/// The name under which the dispatcher is handed a call's answer.
const SETTLE: &str = "\u{0}settle";

type Queue =
    ThreadsafeFunction<(String, Json), Unknown<'static>, (String, Json), napi::Status, false, true>;

/// `index.js`'s dispatcher, callable from any thread.
pub struct Dispatcher {
    queue: Queue,
    /// Messages queued so far: Node's thread watches it for the next one.
    sent: Arc<AtomicU64>,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher").finish_non_exhaustive()
    }
}

/// The dispatcher as a threadsafe function.
pub fn dispatcher(
    dispatch: Function<'_, (String, Json), Unknown<'static>>,
) -> napi::Result<Arc<Dispatcher>> {
    let queue = dispatch
        .build_threadsafe_function::<(String, Json)>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()?;
    Ok(Arc::new(Dispatcher {
        queue,
        sent: Arc::new(AtomicU64::new(0)),
    }))
}

thread_local! {
    /// When Node's thread began taking messages without returning to its
    /// event loop (`BURST_BUDGET`); None when it is not.
    static BURST: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// On Node's thread, after answering a message: waits a moment for the
/// next one (one queued after the `seen`th), within the burst's budget.
fn wait_for_next(sent: &AtomicU64, seen: u64) {
    let now = Instant::now();
    let began = BURST.with(|burst| burst.get()).unwrap_or(now);
    if now.duration_since(began) >= BURST_BUDGET {
        BURST.with(|burst| burst.set(None));
        return;
    }
    let spin_until = now + NEXT_MESSAGE_SPIN;
    while sent.load(Ordering::Acquire) == seen && Instant::now() < spin_until {
        std::hint::spin_loop();
    }
    let next_came = sent.load(Ordering::Acquire) != seen;
    BURST.with(|burst| burst.set(next_came.then_some(began)));
}

/// Hands the call `name(args)` to Node's thread; `reply` gets the
/// dispatcher's answer, at once or once its promise settles, and an error
/// answer if the dispatcher failed, so a call is never left waiting.
pub fn ask(
    dispatcher: &Dispatcher,
    name: &str,
    args: Json,
    reply: impl FnOnce(Json) + Send + 'static,
) -> Result<(), HostError> {
    let sent = Arc::clone(&dispatcher.sent);
    let seen = sent.fetch_add(1, Ordering::AcqRel) + 1;
    let reply = Replier::new(reply);
    let status = dispatcher.queue.call_with_return_value(
        (name.to_owned(), args),
        ThreadsafeFunctionCallMode::NonBlocking,
        move |returned, _env| {
            if let Err(err) = answer(returned, &reply, &sent, seen) {
                reply.give(
                    json!({ "ok": false, "type": "RuntimeError", "message": err.to_string() }),
                );
            }
            Ok(())
        },
    );
    if status == napi::Status::Ok {
        Ok(())
    } else {
        Err(HostError::runtime_error(format!(
            "the host could not call {name}: {status}"
        )))
    }
}

/// On Node's thread: replies with what the dispatcher returned, or once
/// the promise it returned settles.
fn answer(
    returned: napi::Result<Unknown<'_>>,
    reply: &Replier,
    sent: &AtomicU64,
    seen: u64,
) -> napi::Result<()> {
    let returned = returned?;
    if returned.is_promise()? {
        // SAFETY: the value was just checked to be a promise.
        let promise: PromiseRaw<'_, Json> = unsafe { returned.cast()? };
        let settled = reply.clone();
        let rejected = reply.clone();
        promise
            .then(move |answer| {
                settled.give(answer.value);
                Ok(())
            })?
            .catch(
                move |why: napi::bindgen_prelude::CallbackContext<Unknown<'_>>| {
                    let message = why
                        .value
                        .coerce_to_string()
                        .and_then(|text| text.into_utf8())
                        .map(|text| text.as_str().map(str::to_owned));
                    let message = match message {
                        Ok(Ok(text)) => text,
                        _ => "the host's dispatcher failed".to_owned(),
                    };
                    rejected
                        .give(json!({ "ok": false, "type": "RuntimeError", "message": message }));
                    Ok(())
                },
            )?;
    } else {
        // SAFETY: FromNapiValue for JSON reads any value, refusing with an
        // error one JSON cannot hold.
        let answer: Json = unsafe { returned.cast()? };
        reply.give(answer);
        wait_for_next(sent, seen);
    }
    Ok(())
}

/// Where one call's answer goes.
type ReplyOnce = Box<dyn FnOnce(Json) + Send>;

/// A call's reply, given once: whichever path settles it first.
#[derive(Clone)]
struct Replier(Arc<Mutex<Option<ReplyOnce>>>);

impl Replier {
    fn new(reply: impl FnOnce(Json) + Send + 'static) -> Self {
        Self(Arc::new(Mutex::new(Some(Box::new(reply)))))
    }

    fn give(&self, answer: Json) {
        let taken = self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(reply) = taken {
            reply(answer);
        }
    }
}

/// Hands guest output to Node, without waiting.
pub fn print(dispatcher: &Dispatcher, stream: &str, text: &str) {
    send(dispatcher, PRINT, json!([stream, text]));
}

/// Hands Node a session call's answer, after everything queued before it.
pub fn settle(dispatcher: &Dispatcher, envelope: Json) {
    send(dispatcher, SETTLE, envelope);
}

fn send(dispatcher: &Dispatcher, name: &str, args: Json) {
    dispatcher.sent.fetch_add(1, Ordering::AcqRel);
    let _ = dispatcher.queue.call(
        (name.to_owned(), args),
        ThreadsafeFunctionCallMode::NonBlocking,
    );
}
