//! The worker's process as the host holds it: one the host spawned, or one
//! a template interpreter forked for it (with CLONE_PARENT, so it is the
//! host's child all the same: the host reaps it, kills it and reads its
//! exit status).

use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};

use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};

/// A worker process.
#[derive(Debug)]
pub(crate) enum WorkerChild {
    Spawned(Child),
    Forked {
        pid: Pid,
        /// Set once reaped: the pid may name another process after that.
        reaped: Option<ExitStatus>,
    },
    /// Killed and handed to the reaper (`reaper.rs`): nothing is left here.
    Handed,
}

impl WorkerChild {
    pub(crate) fn forked(pid: Pid) -> Self {
        WorkerChild::Forked { pid, reaped: None }
    }

    pub(crate) fn id(&self) -> u32 {
        match self {
            WorkerChild::Spawned(child) => child.id(),
            WorkerChild::Forked { pid, .. } => pid.as_raw_nonzero().get().unsigned_abs(),
            WorkerChild::Handed => 0,
        }
    }

    pub(crate) fn kill(&mut self) -> std::io::Result<()> {
        match self {
            WorkerChild::Spawned(child) => child.kill(),
            WorkerChild::Forked {
                reaped: Some(_), ..
            }
            | WorkerChild::Handed => Ok(()),
            WorkerChild::Forked { pid, .. } => {
                kill_process(*pid, Signal::KILL).map_err(std::io::Error::from)
            }
        }
    }

    fn wait_with(&mut self, options: WaitOptions) -> std::io::Result<Option<ExitStatus>> {
        match self {
            WorkerChild::Spawned(child) if options.contains(WaitOptions::NOHANG) => {
                child.try_wait()
            }
            WorkerChild::Spawned(child) => child.wait().map(Some),
            WorkerChild::Forked {
                reaped: Some(status),
                ..
            } => Ok(Some(*status)),
            WorkerChild::Handed => Err(std::io::Error::other("the worker went to the reaper")),
            WorkerChild::Forked { pid, reaped } => loop {
                // A signal handler without SA_RESTART (a Python host's for
                // Ctrl-C) interrupts the wait; it is retried, as std's is.
                match waitpid(Some(*pid), options) {
                    Ok(Some((_, status))) => {
                        let status = ExitStatus::from_raw(status.as_raw());
                        *reaped = Some(status);
                        return Ok(Some(status));
                    }
                    Ok(None) => return Ok(None),
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(err) => return Err(err.into()),
                }
            },
        }
    }

    pub(crate) fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.wait_with(WaitOptions::NOHANG)
    }

    pub(crate) fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.wait_with(WaitOptions::empty())?
            .ok_or_else(|| std::io::Error::other("the worker was not reaped"))
    }
}
