//! Guest time and `max_duration`: a clock that runs while guest code does
//! (not while the host answers a call), and a timer thread that raises the
//! time-limit exception in the session thread once the budget is spent.
//!
//! CPython checks for an asynchronous exception between bytecodes, so a
//! guest inside one long C call (a huge `sorted`) sees it only when the call
//! returns; the host's turn deadline kills the worker if that is too late. A
//! guest that catches the exception is sent it again every `REFIRE` while
//! its feed runs on, and the host's deadline still stands behind that.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// How often a spent budget is raised again in a guest that caught it.
const REFIRE: Duration = Duration::from_millis(20);

#[derive(Debug, Default)]
struct State {
    /// Guest time before the current run.
    spent: Duration,
    /// When the current run started; None while stopped or paused.
    since: Option<Instant>,
    /// The session thread's Python thread id, once known.
    thread: Option<u64>,
    /// An exception was raised in the session thread from outside (the
    /// timer, or a feed the host ended) and may still be pending.
    raised: bool,
}

impl State {
    fn elapsed(&self) -> Duration {
        self.spent + self.since.map_or(Duration::ZERO, |since| since.elapsed())
    }
}

/// The session's guest clock, shared with the timer thread.
#[derive(Debug)]
pub struct Clock {
    state: Mutex<State>,
    changed: Condvar,
    max: Option<Duration>,
    /// What the timer raises, until `start_timer` hands it to the timer.
    timeout_type: Mutex<Option<Py<PyAny>>>,
}

impl Clock {
    /// A stopped clock; with a budget, `start_timer` starts the thread
    /// that watches it.
    pub fn new(max: Option<Duration>, timeout_type: Py<PyAny>) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            max,
            timeout_type: Mutex::new(Some(timeout_type)),
        })
    }

    /// Starts the timer thread (with a budget), once, in the process that
    /// serves the session: a template's fork would not copy it.
    pub fn start_timer(self: &Arc<Self>) -> Result<(), String> {
        let Some(max) = self.max else {
            return Ok(());
        };
        let taken = self
            .timeout_type
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(timeout_type) = taken else {
            return Ok(());
        };
        let watched = Arc::clone(self);
        std::thread::Builder::new()
            .name("guest-timer".into())
            .stack_size(128 * 1024)
            // The thread's interpreter state is made now, once, before the
            // memory budget is armed: made when the limit fires, it would be
            // allocated under the guest's budget, which a guest may have
            // spent.
            .spawn(move || Python::attach(|py| py.detach(|| watched.watch(max, timeout_type))))
            .map(drop)
            .map_err(|e| format!("cannot start the guest timer: {e}"))
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere; the state is plain data.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Guest time so far.
    pub fn elapsed(&self) -> Duration {
        self.lock().elapsed()
    }

    /// Whether the budget is spent.
    pub fn exceeded(&self) -> bool {
        self.max.is_some_and(|max| self.elapsed() > max)
    }

    /// Names the session thread (its Python thread id), where the limit
    /// is raised.
    pub fn set_thread(&self, thread: u64) {
        self.lock().thread = Some(thread);
    }

    /// The session thread's Python thread id, once named, noting that an
    /// exception is about to be raised in it (so `stop` withdraws it).
    pub fn raise_in(&self) -> Option<u64> {
        let mut state = self.lock();
        state.raised = true;
        state.thread
    }

    /// Starts (or resumes) counting.
    pub fn run(&self) {
        let mut state = self.lock();
        if state.since.is_none() {
            state.since = Some(Instant::now());
        }
        drop(state);
        // Only a timer thread waits on the condition, and only with a
        // budget; waking no one would still cost a system call per feed.
        if self.max.is_some() {
            self.changed.notify_all();
        }
    }

    /// Stops counting; returns whether it was running. The caller holds
    /// the GIL, so the timer is not in the middle of raising; any limit it
    /// raised but the guest has not met yet is withdrawn, so it cannot fall
    /// into the next run.
    pub fn stop(&self, _gil: Python<'_>) -> bool {
        let mut state = self.lock();
        let was_running = state.since.is_some();
        if let Some(since) = state.since.take() {
            state.spent += since.elapsed();
        }
        let thread = state.thread.filter(|_| std::mem::take(&mut state.raised));
        drop(state);
        if let Some(thread) = thread {
            // SAFETY: called with the GIL held (`_gil`); a null exception
            // clears the pending one for that thread, if any.
            unsafe {
                pyo3::ffi::PyThreadState_SetAsyncExc(thread as _, std::ptr::null_mut());
            }
        }
        was_running
    }

    /// The timer thread: sleeps until the running clock passes `max`, then
    /// raises `timeout_type` in the session thread, again every REFIRE
    /// while it keeps running.
    fn watch(&self, max: Duration, timeout_type: Py<PyAny>) {
        let mut state = self.lock();
        loop {
            let Some(since) = state.since else {
                state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let left = max.saturating_sub(state.spent + since.elapsed());
            if !left.is_zero() {
                state = self
                    .changed
                    .wait_timeout(state, left)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                continue;
            }
            drop(state);
            Python::attach(|py| {
                // Checked again under the GIL: the session may have stopped
                // the clock while this thread waited for it.
                let mut state = self.lock();
                if state.since.is_some()
                    && let Some(thread) = state.thread
                {
                    state.raised = true;
                    // SAFETY: the GIL is held; the exception type is a live
                    // class object kept alive by `timeout_type`.
                    unsafe {
                        pyo3::ffi::PyThreadState_SetAsyncExc(
                            thread as _,
                            timeout_type.bind(py).as_ptr(),
                        );
                    }
                }
            });
            std::thread::sleep(REFIRE);
            state = self.lock();
        }
    }
}
