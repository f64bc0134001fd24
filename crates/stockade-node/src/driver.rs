//! The thread a session's calls run on: one per session, taking its jobs
//! in order. Between jobs it spins a moment before it sleeps, so a host
//! that awaits one run and starts the next hands it over without waking a
//! sleeping thread; and Node's thread waits a moment, spinning, for a
//! call's answer before it goes back to its event loop (`Reply`). Waking a
//! sleeping thread is, on a virtual machine, the larger part of a warm
//! round trip's cost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One call on the session.
pub type Job = Box<dyn FnOnce() + Send>;

/// How long the thread spins for its next job before it sleeps: about the
/// time Node takes to settle one run's promise and start the next.
const NEXT_JOB_SPIN: Duration = Duration::from_micros(100);

/// Where a session's jobs go; the thread ends once this is dropped and its
/// last job is done.
#[derive(Debug)]
pub struct Driver {
    jobs: Sender<Job>,
}

impl Driver {
    /// A driver and the receiving end its thread serves (`serve`).
    pub fn new() -> (Self, Receiver<Job>) {
        let (jobs, receiver) = channel();
        (Self { jobs }, receiver)
    }

    /// Queues `job`; false when the thread is gone.
    pub fn send(&self, job: Job) -> bool {
        self.jobs.send(job).is_ok()
    }
}

/// Runs the jobs `receiver` brings, in order, until its driver is dropped.
pub fn serve(receiver: &Receiver<Job>) {
    while let Some(job) = next(receiver) {
        job();
    }
}

/// Whether waiting by spinning can pay: not on one core, where the spinner
/// holds the core the thread it waits for needs.
fn spins() -> bool {
    static SPINS: OnceLock<bool> = OnceLock::new();
    *SPINS.get_or_init(|| std::thread::available_parallelism().is_ok_and(|cores| cores.get() > 1))
}

fn next(receiver: &Receiver<Job>) -> Option<Job> {
    let (mut job, mut gone) = (None, false);
    spin_until(NEXT_JOB_SPIN, || match receiver.try_recv() {
        Ok(next) => {
            job = Some(next);
            true
        }
        Err(TryRecvError::Empty) => false,
        Err(TryRecvError::Disconnected) => {
            gone = true;
            true
        }
    });
    if job.is_some() || gone {
        return job;
    }
    receiver.recv().ok()
}

/// How long Node's thread waits, spinning, for a call's answer before it
/// returns to its event loop and lets the answer come through the
/// dispatcher: long enough for a short run, short enough to be no more
/// than a small JavaScript callback's time.
pub const ANSWER_SPIN: Duration = Duration::from_micros(60);

/// One call's answer: handed straight back to Node's thread while it still
/// waits for it (no thread to wake), else through the dispatcher.
#[derive(Debug, Default)]
pub struct Reply {
    state: Mutex<ReplyState>,
    settled: AtomicBool,
}

#[derive(Debug, Default)]
enum ReplyState {
    /// Node's thread is waiting.
    #[default]
    Awaited,
    /// The answer, for Node's thread to take.
    Ready(String),
    /// The answer goes through the dispatcher.
    Queued,
}

impl Reply {
    /// On Node's thread: the answer, if it comes within `ANSWER_SPIN`;
    /// otherwise None, and it comes through the dispatcher.
    pub fn wait_briefly(&self) -> Option<String> {
        spin_until(ANSWER_SPIN, || self.settled.load(Ordering::Acquire));
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match std::mem::replace(&mut *state, ReplyState::Queued) {
            ReplyState::Ready(answer) => Some(answer),
            ReplyState::Awaited | ReplyState::Queued => None,
        }
    }

    /// On the session's thread: hands `answer` to Node's thread if it is
    /// still waiting and nothing else is queued before it (`direct`);
    /// otherwise gives it back, for the dispatcher.
    pub fn give(&self, answer: String, direct: bool) -> Option<String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let given = match *state {
            ReplyState::Awaited if direct => {
                *state = ReplyState::Ready(answer);
                None
            }
            _ => {
                *state = ReplyState::Queued;
                Some(answer)
            }
        };
        self.settled.store(true, Ordering::Release);
        given
    }
}

/// Waits up to `window` for `done()`, spinning: mostly a pause, and every
/// eighth turn a yield of the core, so that a thread woken on it (the
/// worker this wait is for, say) runs at once rather than at the next
/// timer tick. Returns whether `done()` came true; on one core it does not
/// wait (`spins`).
pub fn spin_until(window: Duration, mut done: impl FnMut() -> bool) -> bool {
    if done() {
        return true;
    }
    if !spins() {
        return false;
    }
    let until = Instant::now() + window;
    let mut turn: u32 = 0;
    while Instant::now() < until {
        turn = turn.wrapping_add(1);
        if turn.is_multiple_of(8) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
        if done() {
            return true;
        }
    }
    false
}
