//! Reaping ended workers off the caller's path. A session that closes (or
//! is dropped) kills its worker at once, with SIGKILL, so it runs no more
//! guest code, and hands the process here; one background thread stops
//! its supervisor and waits for it. At most `MAX_UNREAPED` wait at a time:
//! past that a caller reaps its own, so a flood of closes cannot pile up
//! zombies. `unreaped_workers` (and `PoolStats::unreaped`) show the count.
//! A forked host reaps its own workers where it closes them (it has no
//! reaper thread, and takes no lock the fork may have copied held).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::mpsc::{Sender, channel};

use crate::supervisor::Supervisor;
use crate::worker_child::WorkerChild;

/// The most killed workers that may wait to be reaped.
pub const MAX_UNREAPED: usize = 256;

/// Killed workers not yet reaped.
static UNREAPED: AtomicUsize = AtomicUsize::new(0);

/// The process the reaper thread runs in: set once, before its queue is
/// first locked, so a forked child (whose copy of the queue's lock may be
/// held, and which has no reaper thread) sees another pid and never takes
/// the lock: it reaps its own workers.
static REAPER_PID: AtomicU32 = AtomicU32::new(0);

/// The reaper thread's queue.
static QUEUE: Mutex<Option<Sender<Dead>>> = Mutex::new(None);

/// A killed worker and its supervisor.
struct Dead {
    child: WorkerChild,
    supervisor: Option<Supervisor>,
}

impl Dead {
    fn reap(mut self) {
        // The supervisor reads the worker's /proc entry by pid: it stops
        // before the pid is released.
        if let Some(mut supervisor) = self.supervisor.take() {
            supervisor.stop();
        }
        let _ = self.child.wait();
    }
}

/// Killed workers waiting to be reaped, in this process.
pub fn unreaped_workers() -> usize {
    UNREAPED.load(Ordering::Relaxed)
}

/// Kills `child` now and reaps it in the background (or here, when too
/// many already wait or no reaper thread can run).
pub(crate) fn kill_and_reap_later(mut child: WorkerChild, supervisor: Option<Supervisor>) {
    let _ = child.kill();
    let dead = Dead { child, supervisor };
    if UNREAPED.fetch_add(1, Ordering::AcqRel) >= MAX_UNREAPED {
        UNREAPED.fetch_sub(1, Ordering::AcqRel);
        dead.reap();
        return;
    }
    if let Err(dead) = send(dead) {
        UNREAPED.fetch_sub(1, Ordering::AcqRel);
        dead.reap();
    }
}

/// Queues `dead` for the reaper thread, starting it if none runs yet;
/// gives it back in a forked child, or when no thread can start.
fn send(dead: Dead) -> Result<(), Dead> {
    let here = std::process::id();
    match REAPER_PID.compare_exchange(0, here, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => {}
        Err(owner) if owner == here => {}
        Err(_) => return Err(dead),
    }
    let mut queue = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
    if queue.is_none() {
        let (sender, receiver) = channel::<Dead>();
        let started = std::thread::Builder::new()
            .name("stockade-reaper".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                crate::background::yield_when_woken();
                for dead in receiver {
                    dead.reap();
                    UNREAPED.fetch_sub(1, Ordering::AcqRel);
                }
            });
        if started.is_err() {
            return Err(dead);
        }
        *queue = Some(sender);
    }
    match queue.as_ref() {
        Some(sender) => sender.send(dead).map_err(|failed| failed.0),
        None => Err(dead),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that would run for a while: the worker stand-in.
    fn sleeping() -> std::io::Result<(WorkerChild, u32)> {
        let child = std::process::Command::new("sleep").arg("30").spawn()?;
        let pid = child.id();
        Ok((WorkerChild::Spawned(child), pid))
    }

    #[test]
    fn past_max_unreaped_a_close_reaps_its_own_worker() -> std::io::Result<()> {
        // As if MAX_UNREAPED killed workers already waited for the reaper.
        UNREAPED.fetch_add(MAX_UNREAPED, Ordering::AcqRel);
        let (child, pid) = sleeping()?;
        kill_and_reap_later(child, None);
        // Reaped before the call returned: no process, not even a zombie.
        let gone = std::fs::metadata(format!("/proc/{pid}")).is_err();
        UNREAPED.fetch_sub(MAX_UNREAPED, Ordering::AcqRel);
        assert!(
            gone,
            "process {pid} was left to the reaper past MAX_UNREAPED"
        );
        Ok(())
    }

    #[test]
    fn a_forked_host_reaps_its_own_workers_without_the_reapers_lock() -> std::io::Result<()> {
        // As if this process were a child forked from the reaper's: the
        // queue's lock (which the fork may have copied held) is not taken.
        let before = REAPER_PID.swap(u32::MAX, Ordering::AcqRel);
        let guard = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
        let (child, pid) = sleeping()?;
        kill_and_reap_later(child, None);
        let gone = std::fs::metadata(format!("/proc/{pid}")).is_err();
        drop(guard);
        REAPER_PID.store(before, Ordering::Release);
        assert!(gone, "process {pid} was not reaped where it was closed");
        Ok(())
    }
}
