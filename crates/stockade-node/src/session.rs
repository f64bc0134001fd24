//! One session for `index.js`: started and run on threads of its own (a
//! thread a call, so a long run never holds one of Node's), each call
//! answered with a promise of tagged JSON: `{ok: true, value}` or `{ok:
//! false, error}`; output goes to Node as it is printed. Dropping the
//! object (or `close`) ends the
//! worker.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use napi::bindgen_prelude::{Env, Function, Object, PromiseRaw};
use napi_derive::napi;
use serde_json::{Value as Json, json};
use stockade::{Error, Language, OptionValue, PrintStream, Session, SessionOptions};

use crate::functions::{self, Dispatcher, dispatcher, host_function};
use crate::{errors, values};

/// A session, or why it did not start.
type Slot = Arc<Mutex<Result<Option<Session>, Error>>>;

#[napi]
pub struct NativeSession {
    slot: Slot,
    dispatcher: Arc<Dispatcher>,
    /// Host-function names registered with the session.
    registered: Arc<Mutex<HashSet<String>>>,
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
    dispatch: Function<'_, (String, Json), PromiseRaw<'static, Json>>,
) -> napi::Result<Object<'env>> {
    let options = session_options(&language, &options).map_err(napi::Error::from_reason)?;
    resolve_session(env, dispatch, move || Session::new(options))
}

/// A promise of the session `start` makes on a thread of its own, whose
/// host functions `dispatch` answers.
fn resolve_session<'env>(
    env: &'env Env,
    dispatch: Function<'_, (String, Json), PromiseRaw<'static, Json>>,
    start: impl FnOnce() -> Result<Session, Error> + Send + 'static,
) -> napi::Result<Object<'env>> {
    let dispatcher = dispatcher(dispatch)?;
    let (deferred, promise) = env.create_deferred()?;
    spawn(move || {
        let started = start().map(Some);
        deferred.resolve(move |_| {
            Ok(NativeSession {
                slot: Arc::new(Mutex::new(started)),
                dispatcher,
                registered: Arc::new(Mutex::new(HashSet::new())),
            })
        });
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

    /// Runs `code` after binding `inputs` (tagged JSON, a dict of names),
    /// the guest able to call the host functions `functions` names;
    /// resolves to the envelope.
    #[napi(ts_return_type = "Promise<any>")]
    pub fn run<'env>(
        &self,
        env: &'env Env,
        code: String,
        inputs: Option<Json>,
        functions: Vec<String>,
    ) -> napi::Result<Object<'env>> {
        let inputs = match inputs {
            Some(inputs) => named_inputs(&inputs).map_err(napi::Error::from_reason)?,
            None => Vec::new(),
        };
        let slot = Arc::clone(&self.slot);
        let dispatcher = Arc::clone(&self.dispatcher);
        let registered = Arc::clone(&self.registered);
        let (deferred, promise) = env.create_deferred()?;
        spawn(move || {
            register(&slot, &dispatcher, &registered, functions);
            let answer = run(&slot, &dispatcher, &code, inputs);
            deferred.resolve(move |_| Ok(answer));
        })?;
        Ok(promise)
    }

    /// Ends the worker (at once; it is reaped off this thread).
    #[napi]
    pub fn close(&self) {
        if let Ok(session) = &mut *lock(&self.slot) {
            session.take();
        }
    }
}

impl std::fmt::Debug for NativeSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSession").finish_non_exhaustive()
    }
}

/// Registers the host functions not registered yet.
fn register(
    slot: &Slot,
    dispatcher: &Arc<Dispatcher>,
    registered: &Mutex<HashSet<String>>,
    functions: Vec<String>,
) {
    let mut known = registered.lock().unwrap_or_else(|p| p.into_inner());
    if let Ok(Some(session)) = &mut *lock(slot) {
        for name in functions {
            if known.insert(name.clone()) {
                let function = host_function(Arc::clone(dispatcher), name.clone());
                session.register_function(&name, function);
            }
        }
    }
}

fn lock(slot: &Slot) -> MutexGuard<'_, Result<Option<Session>, Error>> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn spawn(work: impl FnOnce() + Send + 'static) -> napi::Result<()> {
    std::thread::Builder::new()
        .name("stockade-node".into())
        .spawn(work)
        .map(drop)
        .map_err(|err| napi::Error::from_reason(format!("cannot start a thread: {err}")))
}

fn run(
    slot: &Slot,
    dispatcher: &Arc<Dispatcher>,
    code: &str,
    inputs: Vec<(String, stockade::Value)>,
) -> Json {
    let mut guard = lock(slot);
    let session = match &mut *guard {
        Ok(Some(session)) => session,
        Ok(None) => {
            return json!({ "ok": false, "error": {
                "kind": "Closed",
                "message": "the sandbox is closed",
                "sessionLost": true,
            }});
        }
        Err(err) => return json!({ "ok": false, "error": errors::to_json(err) }),
    };
    // Output goes to Node as it is printed, in order with host calls (one
    // queue carries both); the run's answer waits until it has all landed.
    let printer = Arc::clone(dispatcher);
    session.on_print(move |stream, text| {
        let name = match stream {
            PrintStream::Stderr => "stderr",
            _ => "stdout",
        };
        functions::print(&printer, name, text);
    });
    let result = session.run_with_inputs(code, inputs);
    functions::flush(dispatcher);
    match result {
        Ok(value) => json!({ "ok": true, "value": values::to_json(&value) }),
        Err(err) => json!({ "ok": false, "error": errors::to_json(&err) }),
    }
}

/// Inputs as `index.js` sends them: a tagged dict of names to values.
fn named_inputs(inputs: &Json) -> Result<Vec<(String, stockade::Value)>, String> {
    match values::from_json(inputs, "inputs", 0)? {
        stockade::Value::Dict(pairs) => pairs
            .into_iter()
            .map(|(name, value)| match name {
                stockade::Value::Str(name) => Ok((name, value)),
                other => Err(format!("inputs: a name must be a string, not {other:?}")),
            })
            .collect(),
        _ => Err("inputs must be an object of names to values".into()),
    }
}

/// The session options `options` names (a plain object).
fn session_options(language: &str, options: &Json) -> Result<SessionOptions, String> {
    let language: Language = language.parse().map_err(|err| format!("language: {err}"))?;
    let mut session = SessionOptions::new(language);
    let Json::Object(options) = options else {
        return Err("options must be an object".into());
    };
    for (key, value) in options {
        if value.is_null() {
            continue;
        }
        session.set(key, option_value(key, value)?)?;
    }
    Ok(session)
}

fn option_value(key: &str, value: &Json) -> Result<OptionValue, String> {
    Ok(match value {
        Json::Bool(b) => OptionValue::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => OptionValue::Int(i128::from(i)),
            (None, Some(f)) => OptionValue::Float(f),
            _ => return Err(format!("{key}: a number out of range")),
        },
        Json::String(s) => OptionValue::Str(s.clone()),
        Json::Array(items) => OptionValue::List(
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("{key}: a list of strings"))
                })
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(map) => OptionValue::Map(
            map.iter()
                .map(|(name, text)| {
                    text.as_str()
                        .map(|text| (name.clone(), text.to_owned()))
                        .ok_or_else(|| format!("{key}: an object of strings"))
                })
                .collect::<Result<_, _>>()?,
        ),
        Json::Null => return Err(format!("{key}: null")),
    })
}

/// A pool of ready workers (`stockade::Pool`), or why it did not start.
#[napi]
pub struct NativePool {
    pool: Result<Arc<stockade::Pool>, Error>,
}

impl std::fmt::Debug for NativePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativePool").finish_non_exhaustive()
    }
}

/// Starts a pool of `size` workers for `language` with `options`;
/// resolves to the pool, whose `failure()` says why if it did not start.
#[napi(ts_return_type = "Promise<NativePool>")]
pub fn open_pool<'env>(
    env: &'env Env,
    language: String,
    options: Json,
    size: u32,
) -> napi::Result<Object<'env>> {
    let options = session_options(&language, &options).map_err(napi::Error::from_reason)?;
    let (deferred, promise) = env.create_deferred()?;
    spawn(move || {
        let shape = stockade::PoolOptions {
            size: usize::try_from(size).unwrap_or(usize::MAX).max(1),
            ..Default::default()
        };
        let pool = stockade::Pool::new(options, shape).map(Arc::new);
        deferred.resolve(move |_| Ok(NativePool { pool }));
    })?;
    Ok(promise)
}

#[napi]
impl NativePool {
    /// Why the pool did not start, as an error envelope; null if it did.
    #[napi]
    pub fn failure(&self) -> Option<Json> {
        self.pool.as_ref().err().map(errors::to_json)
    }

    /// A fresh worker's session, whose host functions `dispatch` answers.
    #[napi(ts_return_type = "Promise<NativeSession>")]
    pub fn checkout<'env>(
        &self,
        env: &'env Env,
        dispatch: Function<'_, (String, Json), PromiseRaw<'static, Json>>,
    ) -> napi::Result<Object<'env>> {
        let pool = self.pool.clone();
        resolve_session(env, dispatch, move || pool.and_then(|pool| pool.checkout()))
    }

    /// Ends the idle workers; checked-out sessions go on.
    #[napi]
    pub fn close(&self) {
        if let Ok(pool) = &self.pool {
            pool.close();
        }
    }
}
