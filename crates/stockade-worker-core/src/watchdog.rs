//! The worker's watchdog thread: ends the worker when its resident memory
//! passes the ceiling, or when its parent is gone (an orphaned worker would
//! otherwise compute on, unsupervised, until a limit stopped it), and sends
//! guest output that has waited its flush interval while the guest prints
//! nothing more (a guest that prints and then hangs).
//!
//! A Landlocked worker cannot open its own /proc entries, so the statm file
//! is opened before the sandbox and read with pread afterwards.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::Duration;

use rustix::process::{Pid, getppid};
use stockade_wire::WorkerExit;

use crate::print::Printer;
/// How often the watchdog looks.
const PERIOD: Duration = Duration::from_millis(20);

/// What the watchdog needs, gathered before the sandbox closes /proc.
#[derive(Debug)]
pub struct Watchdog {
    statm: File,
    parent: Option<Pid>,
    page_size: u64,
}

impl Watchdog {
    /// Opens /proc/self/statm and notes the parent. Runs before the sandbox.
    pub fn prepare() -> std::io::Result<Self> {
        Ok(Self {
            statm: File::open("/proc/self/statm")?,
            parent: getppid(),
            page_size: rustix::param::page_size() as u64,
        })
    }

    /// Resident bytes, from the second field of statm.
    fn resident(&self, buf: &mut [u8; 128]) -> Option<u64> {
        let n = self.statm.read_at(buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages * self.page_size)
    }

    /// Starts the thread. `rss_ceiling` is in bytes.
    pub fn start(self, rss_ceiling: Option<u64>, printer: Printer) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("watchdog".into())
            .stack_size(64 * 1024)
            .spawn(move || self.watch(rss_ceiling, printer))
            .map(drop)
    }

    fn watch(self, rss_ceiling: Option<u64>, printer: Printer) {
        let mut buf = [0u8; 128];
        loop {
            std::thread::sleep(PERIOD);
            printer.poll();
            if getppid() != self.parent {
                exit_now(
                    WorkerExit::Orphaned,
                    b"stockade-worker: the parent is gone; exiting\n",
                );
            }
            if let (Some(ceiling), Some(resident)) = (rss_ceiling, self.resident(&mut buf))
                && resident > ceiling
            {
                exit_now(
                    WorkerExit::Rss,
                    b"stockade-worker: max_memory exceeded: resident memory passed the RSS ceiling\n",
                );
            }
        }
    }
}

/// Ends the process at once: the session thread may be in any state, so no
/// destructor or allocation may run.
fn exit_now(exit: WorkerExit, message: &[u8]) -> ! {
    // SAFETY: write(2) of a valid static buffer to fd 2, then _exit, which
    // runs no destructors or atexit handlers.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::_exit(exit.code())
    }
}
