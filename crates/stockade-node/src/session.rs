//! One session for `index.js`: started, then driven on a thread of its own
//! (`driver.rs`), so a long run never holds Node's. Each call's answer
//! reaches `index.js`'s dispatcher as `{ok, value}` or `{ok: false,
//! error}` through the queue its output and host calls take, so it lands
//! after them. Runs, stepped runs (`stepping.rs`), dumps and restores.
//! Dropping the object (or `close`) ends the worker.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use napi::bindgen_prelude::{Buffer, Env, Function, Object, Unknown};

use crate::driver::{self, Driver, Reply};
use napi_derive::napi;
use serde_json::{Value as Json, json};
use stockade::{DumpSeal, Error, PrintStream, Session, Stepped, Value};

use crate::dispatch::{self, Dispatcher, dispatcher};
use crate::functions::{self, async_host_function, host_function};
use crate::options::{named_inputs, session_options};
use crate::{errors, stepping, values};

/// A session, or why it did not start.
type Slot = Arc<Mutex<Result<Option<Session>, Error>>>;

#[napi]
pub struct NativeSession {
    slot: Slot,
    dispatcher: Arc<Dispatcher>,
    /// Host functions registered with the session: whether each is async.
    registered: Arc<Mutex<HashMap<String, bool>>>,
    /// Set by `close`: a call under way ends, its worker killed.
    closing: Arc<AtomicBool>,
    /// The worker's pid and sandbox report, as the session started.
    info: Json,
    /// The session's own thread, until `close`.
    driver: Mutex<Option<Driver>>,
    /// The longest a host function is waited for.
    max_host_wait: Duration,
}

/// Starts a session for `language` with `options` (the host library's
/// options by name, as `SESSION_OPTIONS` lists them), whose host
/// functions `dispatch` answers; resolves to the session, whose
/// `failure()` says why if it did not start.
#[napi(ts_return_type = "Promise<NativeSession>")]
pub fn open<'env>(
    env: &'env Env,
    language: String,
    options: Json,
    dispatch: Function<'_, (String, String), Unknown<'static>>,
) -> napi::Result<Object<'env>> {
    let options = session_options(&language, &options).map_err(napi::Error::from_reason)?;
    let max_host_wait = options.max_host_wait;
    resolve_session(env, dispatch, max_host_wait, move || Session::new(options))
}

/// A session rebuilt from the dump `data` in a fresh worker, checked with
/// `keys` and `context` before any worker starts; as `open` resolves.
#[napi(ts_return_type = "Promise<NativeSession>")]
pub fn restore<'env>(
    env: &'env Env,
    language: String,
    options: Json,
    keys: Vec<Buffer>,
    context: Buffer,
    data: Buffer,
    dispatch: Function<'_, (String, String), Unknown<'static>>,
) -> napi::Result<Object<'env>> {
    let options = session_options(&language, &options).map_err(napi::Error::from_reason)?;
    let (keys, context, data) = (owned(&keys), context.to_vec(), data.to_vec());
    let max_host_wait = options.max_host_wait;
    resolve_session(env, dispatch, max_host_wait, move || {
        let seal = DumpSeal::new(&keys, context)?;
        Session::restore(options, &seal, &data)
    })
}

/// A promise of the session `start` makes on a thread of its own, whose
/// host functions `dispatch` answers within `max_host_wait`.
pub(crate) fn resolve_session<'env>(
    env: &'env Env,
    dispatch: Function<'_, (String, String), Unknown<'static>>,
    max_host_wait: Duration,
    start: impl FnOnce() -> Result<Session, Error> + Send + 'static,
) -> napi::Result<Object<'env>> {
    let dispatcher = dispatcher(dispatch)?;
    let (deferred, promise) = env.create_deferred()?;
    let (driver, jobs) = Driver::new();
    spawn(move || {
        let closing = Arc::new(AtomicBool::new(false));
        let mut info = Json::Null;
        let started = start().map(|mut session| {
            let closed = Arc::clone(&closing);
            session.set_interrupt(move || closed.load(Ordering::Relaxed));
            info = info_json(&session);
            Some(session)
        });
        deferred.resolve(move |_| {
            Ok(NativeSession {
                slot: Arc::new(Mutex::new(started)),
                dispatcher,
                registered: Arc::new(Mutex::new(HashMap::new())),
                closing,
                info,
                driver: Mutex::new(Some(driver)),
                max_host_wait,
            })
        });
        // This thread drives the session from now on.
        driver::serve(&jobs);
    })?;
    Ok(promise)
}

#[napi]
impl NativeSession {
    /// Why the session did not start, as an error envelope; null if it did.
    #[napi]
    pub fn failure(&self) -> Option<Json> {
        match &*lock(&self.slot) {
            Err(err) => Some(errors::to_json(err)),
            Ok(_) => None,
        }
    }

    /// `{workerPid, sandbox: {mode, applied, missing, notes}}`: the worker
    /// and the OS sandbox layers in force; null if it did not start.
    #[napi]
    pub fn info(&self) -> Json {
        self.info.clone()
    }

    /// Runs `code` after binding `inputs` (tagged JSON, a dict of names),
    /// the guest able to call the host functions `functions` names (those
    /// in `asyncFunctions` as async ones, which it awaits); resolves to the
    /// result.
    #[napi]
    pub fn run(
        &self,
        code: String,
        inputs: Option<String>,
        functions: Vec<String>,
        async_functions: Vec<String>,
    ) -> napi::Result<Option<String>> {
        let inputs = inputs_of(inputs);
        let binder = self.binder();
        self.on_thread(move |session, dispatcher| {
            let inputs = binder.ready(session, dispatcher, inputs, functions, &async_functions)?;
            let value = session.run_with_inputs(&code, inputs)?;
            Ok(values::to_json(&value))
        })
    }

    /// As `run`, through the host library's `Session::execute`: never
    /// failing for the run's own failure, it resolves to `{stdout, stderr,
    /// truncated, result, error, errorType}`, the result tagged JSON and
    /// the error an envelope (`errors.rs`), null where there is none.
    #[napi]
    pub fn execute(
        &self,
        code: String,
        inputs: Option<String>,
        functions: Vec<String>,
        async_functions: Vec<String>,
        max_result_bytes: f64,
        max_stream_bytes: f64,
    ) -> napi::Result<Option<String>> {
        let inputs = inputs_of(inputs);
        let binder = self.binder();
        // index.js has checked both are whole numbers of bytes.
        let limits = stockade::ExecuteLimits {
            max_result_bytes: max_result_bytes as u64,
            max_stream_bytes: max_stream_bytes as usize,
        };
        self.on_thread(move |session, dispatcher| {
            let inputs = binder.ready(session, dispatcher, inputs, functions, &async_functions)?;
            let done = session.execute(&code, inputs, limits);
            let (result, error) = match &done.outcome {
                Ok(value) => (values::to_json(value), Json::Null),
                Err(err) => (Json::Null, errors::to_json(err)),
            };
            Ok(serde_json::json!({
                "stdout": done.stdout.text,
                "stderr": done.stderr.text,
                "truncated": done.truncated(),
                "result": result,
                "error": error,
                "errorType": done.error_type(),
            }))
        })
    }

    /// Starts `code` as a stepped run: it stops at each host call (the
    /// bound `functions`' too, unrun, and those `declared` names), name
    /// lookup and await; resolves to where it stopped (`stepping.rs`).
    #[napi]
    pub fn start(
        &self,
        code: String,
        inputs: Option<String>,
        declared: Vec<String>,
        functions: Vec<String>,
        async_functions: Vec<String>,
    ) -> napi::Result<Option<String>> {
        let inputs = inputs_of(inputs);
        let binder = self.binder();
        self.on_thread(move |session, dispatcher| {
            let inputs = binder.ready(session, dispatcher, inputs, functions, &async_functions)?;
            for name in &declared {
                session.declare_function(name);
            }
            let stepped = Stepped::from(session.start(&code, inputs)?);
            Ok(stepping::progress_json(&stepped))
        })
    }

    /// Answers a stepped run's cursor (`stepping.rs::answer_from`);
    /// resolves to where the run stopped next.
    #[napi]
    pub fn answer(&self, answer: String) -> napi::Result<Option<String>> {
        let answered = values::parse(&answer)
            .and_then(|answer| stepping::answer_from(&answer))
            .map_err(Error::Conversion);
        self.on_thread(move |session, _| {
            let (cursor, answer) = answered?;
            let stepped = Stepped::from(session.answer_cursor(cursor, answer)?);
            Ok(stepping::progress_json(&stepped))
        })
    }

    /// Where a suspended stepped run waits; null when none is.
    #[napi]
    pub fn pending(&self) -> napi::Result<Option<String>> {
        self.on_thread(|session, _| {
            let pending = session.pending().map(Stepped::from);
            Ok(pending.map_or(Json::Null, |stepped| stepping::progress_json(&stepped)))
        })
    }

    /// The session (idle, or suspended at its cursor) as sealed bytes.
    #[napi]
    pub fn dump(&self, keys: Vec<Buffer>, context: Buffer) -> napi::Result<Option<String>> {
        let (keys, context) = (owned(&keys), context.to_vec());
        self.on_thread(move |session, _| {
            let seal = DumpSeal::new(&keys, context)?;
            Ok(values::to_json(&Value::Bytes(session.dump(&seal)?)))
        })
    }

    /// Restores the dump `data` into this session, which must not have run
    /// anything yet.
    #[napi]
    pub fn restore_into(
        &self,
        keys: Vec<Buffer>,
        context: Buffer,
        data: Buffer,
    ) -> napi::Result<Option<String>> {
        let (keys, context, data) = (owned(&keys), context.to_vec(), data.to_vec());
        self.on_thread(move |session, _| {
            let seal = DumpSeal::new(&keys, context)?;
            session.restore_into(&seal, &data)?;
            Ok(Json::Null)
        })
    }

    /// Makes `requirements` importable by a CPython guest, before its
    /// first run (`Session::install_dependencies`).
    #[napi]
    pub fn install_dependencies(&self, requirements: Vec<String>) -> napi::Result<Option<String>> {
        self.on_thread(move |session, _| {
            session.install_dependencies(&requirements)?;
            Ok(Json::Null)
        })
    }

    /// Ends the worker at once, even mid-run (it is reaped off this
    /// thread); never waits for a call under way, which ends with the
    /// sandbox closed.
    #[napi]
    pub fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
        // The session's thread ends once its last job is done.
        let driver = lock(&self.driver).take();
        let mut guard = match self.slot.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                // The call under way sees `closing` and drops the session;
                // if it has looked already, this job, queued after it, does.
                if let Some(driver) = &driver {
                    let slot = Arc::clone(&self.slot);
                    driver.send(Box::new(move || {
                        if let Ok(session) = &mut *lock(&slot) {
                            session.take();
                        }
                    }));
                }
                return;
            }
        };
        if let Ok(session) = &mut *guard {
            session.take();
        }
    }

    fn binder(&self) -> Binder {
        Binder {
            registered: Arc::clone(&self.registered),
            closing: Arc::clone(&self.closing),
            max_host_wait: self.max_host_wait,
        }
    }

    /// Runs `work` on the session's thread, its output going to Node as it
    /// is printed, in order with host calls; its answer follows them
    /// through the same queue.
    fn on_thread(
        &self,
        work: impl FnOnce(&mut Session, &Arc<Dispatcher>) -> Result<Json, Error> + Send + 'static,
    ) -> napi::Result<Option<String>> {
        let slot = Arc::clone(&self.slot);
        let dispatcher = Arc::clone(&self.dispatcher);
        let closing = Arc::clone(&self.closing);
        let reply = Arc::new(Reply::default());
        let replied = Arc::clone(&reply);
        let job = Box::new(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                call(&slot, &dispatcher, &closing, work)
            }))
            .unwrap_or_else(|_| Err(closed("the session's thread failed; the sandbox is lost")));
            let envelope = match outcome {
                Ok(value) => json!({ "ok": true, "value": value }),
                Err(error) => json!({ "ok": false, "error": error }),
            };
            // Straight to Node's thread only once it has taken everything
            // queued before (output, host calls); else after them, through
            // the same queue.
            if let Some(envelope) = replied.give(envelope.to_string(), dispatcher.drained()) {
                dispatch::settle_text(&dispatcher, envelope);
            }
        });
        let queued = lock(&self.driver)
            .as_ref()
            .is_some_and(|driver| driver.send(job));
        if queued {
            Ok(reply.wait_briefly())
        } else {
            Ok(Some(
                json!({ "ok": false, "error": closed("the sandbox is closed") }).to_string(),
            ))
        }
    }
}

/// `work` on the session in `slot`, or why it cannot run: the error as
/// `errors.rs` describes it.
fn call(
    slot: &Slot,
    dispatcher: &Arc<Dispatcher>,
    closing: &AtomicBool,
    work: impl FnOnce(&mut Session, &Arc<Dispatcher>) -> Result<Json, Error>,
) -> Result<Json, Json> {
    let mut guard = lock(slot);
    if closing.load(Ordering::Relaxed)
        && let Ok(session) = &mut *guard
    {
        session.take();
    }
    let session = match &mut *guard {
        Ok(Some(session)) => session,
        Ok(None) => return Err(closed("the sandbox is closed")),
        Err(err) => return Err(errors::to_json(err)),
    };
    let printer = Arc::clone(dispatcher);
    session.on_print(move |stream, text| {
        let name = match stream {
            PrintStream::Stderr => "stderr",
            _ => "stdout",
        };
        dispatch::print(&printer, name, text);
    });
    let shower = Arc::clone(dispatcher);
    session.on_output(move |output| dispatch::output(&shower, &output));
    let outcome = work(session, dispatcher);
    if closing.load(Ordering::Relaxed) {
        *guard = Ok(None);
        return Err(closed("the sandbox was closed while the call ran"));
    }
    outcome.map_err(|err| errors::to_json(&err))
}

impl std::fmt::Debug for NativeSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSession").finish_non_exhaustive()
    }
}

fn info_json(session: &Session) -> Json {
    let report = &session.worker_info().sandbox;
    let mode = match report.mode {
        stockade::SandboxMode::Off => "off",
        stockade::SandboxMode::Auto => "auto",
        stockade::SandboxMode::Require => "require",
    };
    let missing: serde_json::Map<String, Json> = report
        .missing
        .iter()
        .map(|(layer, reason)| (layer.clone(), Json::String(reason.clone())))
        .collect();
    json!({
        "workerPid": session.worker_pid(),
        "sandbox": {
            "mode": mode,
            "applied": report.applied,
            "missing": missing,
            "notes": report.extras,
        },
    })
}

fn closed(message: &str) -> Json {
    json!({ "kind": "SandboxClosed", "message": message, "sessionLost": true })
}

/// A run's inputs (JSON text), or the ConversionError naming what cannot
/// cross.
fn inputs_of(inputs: Option<String>) -> Result<Vec<(String, Value)>, Error> {
    let Some(text) = inputs else {
        return Ok(Vec::new());
    };
    let inputs = values::parse(&text).map_err(|err| Error::Conversion(format!("inputs: {err}")))?;
    named_inputs(&inputs).map_err(Error::Conversion)
}

fn owned(keys: &[Buffer]) -> Vec<Vec<u8>> {
    keys.iter().map(|key| key.to_vec()).collect()
}

/// What registers a session's host functions, on the session's thread.
struct Binder {
    /// Host functions registered with the session: whether each is async.
    registered: Arc<Mutex<HashMap<String, bool>>>,
    closing: Arc<AtomicBool>,
    max_host_wait: Duration,
}

impl Binder {
    /// The host functions registered, and the feed's inputs, for a feed.
    fn ready(
        &self,
        session: &mut Session,
        dispatcher: &Arc<Dispatcher>,
        inputs: Result<Vec<(String, Value)>, Error>,
        functions: Vec<String>,
        async_functions: &[String],
    ) -> Result<Vec<(String, Value)>, Error> {
        let inputs = inputs?;
        self.register(session, dispatcher, functions, async_functions);
        Ok(inputs)
    }

    /// Registers the host functions not registered yet, or registered as
    /// the other kind (sync or async).
    fn register(
        &self,
        session: &mut Session,
        dispatcher: &Arc<Dispatcher>,
        functions: Vec<String>,
        async_functions: &[String],
    ) {
        let mut known = self.registered.lock().unwrap_or_else(|p| p.into_inner());
        for name in functions {
            let is_async = async_functions.contains(&name);
            if known.get(&name) == Some(&is_async) {
                continue;
            }
            let dispatcher = Arc::clone(dispatcher);
            if is_async {
                match functions::runtime() {
                    Ok(runtime) => {
                        let closing = Arc::clone(&self.closing);
                        let function = async_host_function(dispatcher, name.clone(), closing);
                        session.register_async_function(&name, runtime, function);
                    }
                    // The guest's calls raise why, rather than a NameError.
                    Err(why) => session.register_function(&name, move |_| {
                        Err(stockade::HostError::runtime_error(why.clone()))
                    }),
                }
            } else {
                let closing = Arc::clone(&self.closing);
                let function = host_function(dispatcher, name.clone(), closing, self.max_host_wait);
                session.register_function(&name, function);
            }
            known.insert(name, is_async);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn spawn(work: impl FnOnce() + Send + 'static) -> napi::Result<()> {
    std::thread::Builder::new()
        .name("stockade-node".into())
        .spawn(work)
        .map(drop)
        .map_err(|err| napi::Error::from_reason(format!("cannot start a thread: {err}")))
}
