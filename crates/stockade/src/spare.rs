//! The spare worker: one prestarted worker per set of worker options, kept
//! for the next `Session::new`, so a session made after a pause does not
//! pay a cold start. Filled in the background after each session starts.
//! `Session::new` lives here, above the session, which knows nothing of
//! spares: the arrow between the two files points one way.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::Error;
use crate::launch::Launch;
use crate::options::{SessionOptions, WorkerKey};
use crate::session::Session;

/// Most option sets a process keeps a spare for; the oldest is dropped.
const MAX_SPARES: usize = 4;

struct Spares {
    ready: Vec<(WorkerKey, Session)>,
    /// Keys whose spare is being started now.
    starting: Vec<WorkerKey>,
}

static SPARES: Mutex<Option<Spares>> = Mutex::new(None);
/// The process whose spares `SPARES` holds (0 until the first use). Read
/// without the lock, so a forked child, where another thread may have held
/// the lock at the fork, never takes it.
static SPARES_OWNER: AtomicU32 = AtomicU32::new(0);

/// Whether this process may use the spares: false in a forked child of the
/// process that made them (its sessions start cold).
pub(crate) fn usable() -> bool {
    let pid = std::process::id();
    match SPARES_OWNER.compare_exchange(0, pid, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => true,
        Err(owner) => owner == pid,
    }
}

fn with_spares<T>(f: impl FnOnce(&mut Spares) -> T) -> T {
    let mut slot = SPARES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let spares = slot.get_or_insert_with(|| Spares {
        ready: Vec::new(),
        starting: Vec::new(),
    });
    f(spares)
}

/// The ready spare for `key`, if it is still alive.
pub(crate) fn take(key: &WorkerKey) -> Option<Session> {
    let found = with_spares(|spares| {
        let at = spares.ready.iter().position(|(k, _)| k == key)?;
        Some(spares.ready.remove(at).1)
    });
    let mut session = found?;
    session.alive().then_some(session)
}

/// Starts a spare for `key` in the background unless one is ready or
/// starting. A failed start is dropped: the next session starts cold.
pub(crate) fn refill(key: WorkerKey, options: SessionOptions) {
    let wanted = with_spares(|spares| {
        let known = spares.ready.iter().any(|(k, _)| *k == key) || spares.starting.contains(&key);
        if !known {
            spares.starting.push(key.clone());
        }
        !known
    });
    if !wanted {
        return;
    }
    let claimed = key.clone();
    let started = std::thread::Builder::new()
        .name("stockade-spare".into())
        .spawn(move || {
            crate::background::yield_when_woken();
            let session = Session::launch(options);
            with_spares(|spares| {
                spares.starting.retain(|k| *k != key);
                match session {
                    Ok(session) => {
                        if spares.ready.len() >= MAX_SPARES {
                            spares.ready.remove(0);
                        }
                        spares.ready.push((key, session));
                    }
                    Err(err) => tracing::debug!("the spare worker did not start: {err}"),
                }
            });
        });
    if started.is_err() {
        with_spares(|spares| spares.starting.retain(|k| *k != claimed));
    }
}

impl Session {
    /// A session in a worker configured with `options`: the spare worker
    /// started for the same worker options if one is ready (see
    /// `SessionOptions::spare`), else a new one.
    pub fn new(options: SessionOptions) -> Result<Self, Error> {
        options.validate().map_err(Error::invalid_option)?;
        if !options.spare || !usable() || options.remote.is_some() {
            return Self::launch(options);
        }
        // The spare is matched on the files actually used, so a change of
        // $STOCKADE_WORKER (or PATH) never hands out an older worker.
        let options = Launch::resolve(&options)?.pin(options);
        let key = options.worker_key();
        let prestarted = take(&key);
        let session = match prestarted {
            Some(mut session) => {
                session.adopt(options.clone());
                Ok(session)
            }
            None => Self::launch(options.clone()),
        };
        // The next session with these options will find one ready.
        if session.is_ok() {
            refill(key, options);
        }
        session
    }
}
