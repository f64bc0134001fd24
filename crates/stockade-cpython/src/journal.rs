//! A dumpable session's outside world, made replayable: the clock readings
//! guest code makes go through the worker-core journal (reported to the
//! host, given back by a replay), and guest.py's `journal` puts the
//! journaled clock and a seeded randomness in place of the interpreter's.
//!
//! Readings are seconds as the `time` module gives them; `kind` tells the
//! clocks apart (guest.py's `_CLOCKS`).

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::types::PyType;
use stockade_worker_core::clock_journal::{self, ClockJournal};
use stockade_worker_core::engine::SharedLink;

/// Clock kinds, as guest.py's `_CLOCKS` numbers them: the wall clock (0),
/// the steady ones (1 to 3: monotonic, perf_counter, process_time), and
/// the per-thread one (4), which no one offset could keep steady.
const STEADY: std::ops::RangeInclusive<u32> = 1..=3;
const KINDS: u32 = 5;

/// The session's journal, once the host asked for one. A Mutex: guest
/// threads read the clock too (their readings join the session thread's,
/// in the order they were made).
static JOURNAL: Mutex<Option<ClockJournal>> = Mutex::new(None);

fn journal() -> MutexGuard<'static, Option<ClockJournal>> {
    // A poisoned lock only means a panic elsewhere; the state is plain data.
    JOURNAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts journaling: from now on `read_clock` keeps what it gives.
pub fn start() {
    *journal() = Some(ClockJournal::new());
}

/// A clock reading the guest gets: the next replayed one, or `live` (what
/// the interpreter's own clock just read), kept for the host.
#[pyfunction]
pub fn read_clock(kind: u32, live: f64) -> PyResult<f64> {
    if kind >= KINDS {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "no clock of kind {kind}"
        )));
    }
    Ok(match journal().as_mut() {
        Some(journal) => journal.read(kind, STEADY.contains(&kind), || live),
        None => live,
    })
}

/// Replaces attribute `name` of `class`, an extension type whose dict
/// Python code cannot write (`datetime.datetime.now`): `dict` is the
/// type's own dict (what its `__dict__` proxies), and the type's attribute
/// cache is told.
#[pyfunction]
pub fn replace_class_attribute(
    class: &Bound<'_, PyType>,
    dict: &Bound<'_, pyo3::types::PyDict>,
    name: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    dict.set_item(name, value)?;
    // SAFETY: `class` is a live type object (the Bound keeps it alive) and
    // the GIL is held; PyType_Modified only invalidates its caches.
    unsafe { pyo3::ffi::PyType_Modified(class.as_ptr().cast()) };
    Ok(())
}

/// The next feed's readings, from the host's Replay.
pub fn replay(readings: Vec<f64>) -> Result<(), String> {
    match journal().as_mut() {
        Some(journal) => {
            journal.replay(readings);
            Ok(())
        }
        None => Err("this session does not journal its clock".into()),
    }
}

/// Sends the readings made since the last report (all of the feed's,
/// `at_end`); false when they cannot be sent.
pub fn report(link: &SharedLink, at_end: bool) -> bool {
    let readings = match journal().as_mut() {
        Some(journal) => journal.take(at_end),
        None => return true,
    };
    // The lock is not held while sending: a guest thread may read the
    // clock meanwhile.
    match clock_journal::report(link, readings) {
        Ok(()) => true,
        Err(unsent) => {
            if let Some(journal) = journal().as_mut() {
                journal.unsent(unsent);
            }
            false
        }
    }
}
