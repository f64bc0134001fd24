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
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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
/// dispatcher's answer, at once or once its promise settles.
pub fn ask(
    dispatcher: &Dispatcher,
    name: &str,
    args: Json,
    reply: impl FnOnce(Json) + Send + 'static,
) -> Result<(), HostError> {
    let sent = Arc::clone(&dispatcher.sent);
    let seen = sent.fetch_add(1, Ordering::AcqRel) + 1;
    let status = dispatcher.queue.call_with_return_value(
        (name.to_owned(), args),
        ThreadsafeFunctionCallMode::NonBlocking,
        move |returned, _env| {
            let returned = returned?;
            if returned.is_promise()? {
                // SAFETY: the value was just checked to be a promise.
                let promise: PromiseRaw<'_, Json> = unsafe { returned.cast()? };
                promise.then(move |settled| {
                    reply(settled.value);
                    Ok(())
                })?;
            } else {
                // SAFETY: any JavaScript value converts to JSON (an
                // unconvertible one is an error, not undefined behaviour).
                let answer: Json = unsafe { returned.cast()? };
                reply(answer);
                wait_for_next(&sent, seen);
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
