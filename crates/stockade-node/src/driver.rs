//! The thread a session's calls run on: one per session, taking its jobs
//! in order. Between jobs it spins a moment before it sleeps, so a host
//! that awaits one run and starts the next hands it over without waking a
//! sleeping thread (on a virtual machine, the larger part of a warm round
//! trip's cost).

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
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

fn next(receiver: &Receiver<Job>) -> Option<Job> {
    let spin_until = Instant::now() + NEXT_JOB_SPIN;
    loop {
        match receiver.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Empty) if Instant::now() < spin_until => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => return receiver.recv().ok(),
            Err(TryRecvError::Disconnected) => return None,
        }
    }
}
