//! The one queue from a session's thread to Node's: `index.js`'s
//! dispatcher, as a threadsafe function, takes the guest's host calls, its
//! output and each call's answer, in the order they were sent, each as a
//! name and JSON text (text, so that no value is held to napi's limits on
//! nesting and size). It is weak, so an idle session never keeps Node
//! alive.
//!
//! A host function that answers at once (no promise) is answered from
//! inside the dispatcher's callback, and Node's thread then waits there a
//! moment for the next message (a guest calling in a loop sends one every
//! few microseconds): Node takes a message queued meanwhile without going
//! back to sleep, which on a virtual machine costs far more than the call.
//! Those waits stop after `BURST_BUDGET` and rest for `REST`, so that the
//! event loop turns while a guest calls in a loop.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use napi::JsValue;
use napi::bindgen_prelude::{CallbackContext, Function, PromiseRaw, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use serde_json::{Value as Json, json};
use stockade::HostError;

use crate::driver::spin_until;

/// How long Node's thread waits in the callback for the next message.
const NEXT_MESSAGE_SPIN: Duration = Duration::from_micros(60);
/// The longest Node's thread goes on taking messages that way...
const BURST_BUDGET: Duration = Duration::from_millis(2);
/// ...before it rests from waiting for this long: long enough that the
/// messages already queued are taken without waiting and its event loop
/// turns (timers, I/O) while a guest calls in a loop.
const REST: Duration = Duration::from_micros(200);
/// A gap between callbacks longer than this ends a burst.
const BURST_GAP: Duration = Duration::from_micros(500);

/// The name under which the dispatcher is handed guest output (no guest
/// function can have it).
const PRINT: &str = "\u{0}print";
/// The name under which the dispatcher is handed a rich output.
const OUTPUT: &str = "\u{0}output";
/// The name under which the dispatcher is handed a call's answer.
const SETTLE: &str = "\u{0}settle";

/// A message: its name and its JSON text.
type Message = (String, String);
type Queue = ThreadsafeFunction<Message, Unknown<'static>, Message, napi::Status, false, true>;

/// `index.js`'s dispatcher, callable from any thread.
pub struct Dispatcher {
    queue: Queue,
    counts: Arc<Counts>,
}

/// Messages queued, and messages Node's thread has taken.
#[derive(Debug, Default)]
struct Counts {
    sent: AtomicU64,
    taken: AtomicU64,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher").finish_non_exhaustive()
    }
}

impl Dispatcher {
    /// Whether Node's thread has taken every message queued so far: an
    /// answer handed to it directly then lands after all of them.
    pub fn drained(&self) -> bool {
        self.counts.taken.load(Ordering::Acquire) == self.counts.sent.load(Ordering::Acquire)
    }
}

/// The dispatcher as a threadsafe function.
pub fn dispatcher(
    dispatch: Function<'_, Message, Unknown<'static>>,
) -> napi::Result<Arc<Dispatcher>> {
    let queue = dispatch
        .build_threadsafe_function::<Message>()
        .callee_handled::<false>()
        .weak::<true>()
        .build()?;
    Ok(Arc::new(Dispatcher {
        queue,
        counts: Arc::new(Counts::default()),
    }))
}

/// Where Node's thread is in taking messages back to back.
#[derive(Debug, Clone, Copy)]
enum Burst {
    /// Not waiting for messages since.
    Idle,
    /// Taking them since `began`; the last one was done at `last`.
    Taking { began: Instant, last: Instant },
    /// Not waiting again until `REST` after `since`.
    Resting { since: Instant },
}

thread_local! {
    static BURST: Cell<Burst> = const { Cell::new(Burst::Idle) };
}

/// On Node's thread, after answering a message: waits a moment for the
/// next one (one queued after the `seen`th), within the burst's budget.
fn wait_for_next(counts: &Counts, seen: u64) {
    let now = Instant::now();
    let began = match BURST.with(Cell::get) {
        Burst::Resting { since } if now.duration_since(since) < REST => return,
        Burst::Taking { began, last } if now.duration_since(last) < BURST_GAP => began,
        _ => now,
    };
    if now.duration_since(began) >= BURST_BUDGET {
        BURST.with(|burst| burst.set(Burst::Resting { since: now }));
        return;
    }
    spin_until(NEXT_MESSAGE_SPIN, || {
        counts.sent.load(Ordering::Acquire) != seen
    });
    let last = Instant::now();
    BURST.with(|burst| burst.set(Burst::Taking { began, last }));
}

/// Hands the call `name(args)` to Node's thread; `reply` gets the
/// dispatcher's answer, at once or once its promise settles, and an error
/// answer if the dispatcher failed, so a call is never left waiting.
pub fn ask(
    dispatcher: &Dispatcher,
    name: &str,
    args: &Json,
    reply: impl FnOnce(Json) + Send + 'static,
) -> Result<(), HostError> {
    let counts = Arc::clone(&dispatcher.counts);
    let seen = counts.sent.fetch_add(1, Ordering::AcqRel) + 1;
    let reply = Replier::new(reply);
    let status = dispatcher.queue.call_with_return_value(
        (name.to_owned(), args.to_string()),
        ThreadsafeFunctionCallMode::NonBlocking,
        move |returned, _env| {
            counts.taken.fetch_add(1, Ordering::AcqRel);
            if let Err(err) = answer(returned, &reply, &counts, seen) {
                reply.give(failure(&err.to_string()));
            }
            Ok(())
        },
    );
    if status == napi::Status::Ok {
        Ok(())
    } else {
        dispatcher.counts.taken.fetch_add(1, Ordering::AcqRel);
        Err(HostError::runtime_error(format!(
            "the host could not call {name}: {status}"
        )))
    }
}

/// On Node's thread: replies with the answer (JSON text) the dispatcher
/// returned, or once the promise of one it returned settles.
fn answer(
    returned: napi::Result<Unknown<'_>>,
    reply: &Replier,
    counts: &Counts,
    seen: u64,
) -> napi::Result<()> {
    let returned = returned?;
    if returned.is_promise()? {
        // SAFETY: the value was just checked to be a promise.
        let promise: PromiseRaw<'_, String> = unsafe { returned.cast()? };
        let settled = reply.clone();
        let rejected = reply.clone();
        promise
            .then(move |answer| {
                settled.give(parsed(&answer.value));
                Ok(())
            })?
            .catch(move |why: CallbackContext<Unknown<'_>>| {
                let message = why
                    .value
                    .coerce_to_string()
                    .and_then(|text| text.into_utf8())
                    .and_then(|text| text.as_str().map(str::to_owned))
                    .unwrap_or_else(|_| "the host's dispatcher failed".to_owned());
                rejected.give(failure(&message));
                Ok(())
            })?;
    } else {
        // SAFETY: a string converts; anything else is an error, not
        // undefined behaviour.
        let answer: String = unsafe { returned.cast()? };
        reply.give(parsed(&answer));
        wait_for_next(counts, seen);
    }
    Ok(())
}

/// An answer's JSON text, or the failure to read it.
fn parsed(text: &str) -> Json {
    crate::values::parse(text)
        .unwrap_or_else(|err| failure(&format!("the host's answer was not JSON: {err}")))
}

fn failure(message: &str) -> Json {
    json!({ "ok": false, "type": "RuntimeError", "message": message })
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
    send(dispatcher, PRINT, &json!([stream, text]));
}

/// Hands a rich output to Node, without waiting: its MIME type, its bytes
/// in base64 (the queue carries text), its text form, the note to show on
/// stderr when the caller takes no outputs, and the file-name extension
/// its type is written with (the wire's one table).
pub fn output(dispatcher: &Dispatcher, output: &stockade::Output) {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(&output.data);
    let note = stockade::unclaimed_output_note(output);
    send(
        dispatcher,
        OUTPUT,
        &json!([
            output.mime_type,
            data,
            output.text,
            note,
            output.extension()
        ]),
    );
}

/// Hands Node a session call's answer (JSON text), after everything
/// queued before it.
pub fn settle_text(dispatcher: &Dispatcher, envelope: String) {
    send_text(dispatcher, SETTLE, envelope);
}

fn send(dispatcher: &Dispatcher, name: &str, args: &Json) {
    send_text(dispatcher, name, args.to_string());
}

fn send_text(dispatcher: &Dispatcher, name: &str, text: String) {
    let counts = Arc::clone(&dispatcher.counts);
    counts.sent.fetch_add(1, Ordering::AcqRel);
    let status = dispatcher.queue.call_with_return_value(
        (name.to_owned(), text),
        ThreadsafeFunctionCallMode::NonBlocking,
        move |returned, _env| {
            counts.taken.fetch_add(1, Ordering::AcqRel);
            // What the dispatcher threw (a `print` callback's error, say)
            // goes on to Node as its uncaught exception.
            returned.map(drop)
        },
    );
    if status != napi::Status::Ok {
        dispatcher.counts.taken.fetch_add(1, Ordering::AcqRel);
    }
}
