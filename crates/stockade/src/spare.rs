//! The spare worker: one prestarted worker per set of worker options, kept
//! for the next `Session::new`, so a session made after a pause does not
//! pay a cold start. Filled in the background after each session starts.

use std::sync::Mutex;

use crate::options::{SessionOptions, WorkerKey};
use crate::session::Session;

/// Most option sets a process keeps a spare for; the oldest is dropped.
const MAX_SPARES: usize = 4;

struct Spares {
    /// The process these workers belong to; a forked child forgets them.
    owner: u32,
    ready: Vec<(WorkerKey, Session)>,
    /// Keys whose spare is being started now.
    starting: Vec<WorkerKey>,
}

static SPARES: Mutex<Option<Spares>> = Mutex::new(None);

fn with_spares<T>(f: impl FnOnce(&mut Spares) -> T) -> T {
    let mut slot = SPARES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let pid = std::process::id();
    let spares = slot.get_or_insert_with(|| Spares {
        owner: pid,
        ready: Vec::new(),
        starting: Vec::new(),
    });
    if spares.owner != pid {
        // Inherited through fork: the workers are the parent's. Dropping
        // them only closes this process's copies of their pipes.
        spares.ready.clear();
        spares.starting.clear();
        spares.owner = pid;
    }
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
            let session = Session::start(options);
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
