//! The worker's watchdog thread: ends the worker when its resident memory
//! passes the ceiling, or when its parent is gone (an orphaned worker would
//! otherwise compute on, unsupervised, until a limit stopped it), and sends
//! guest output that has waited its flush interval while the guest prints
//! nothing more (a guest that prints and then hangs).
//!
//! Resident memory is read as the process's peak (`getrusage`), which
//! needs no /proc: a worker forked from a template has none of its own to
//! open, and a peak past the ceiling is a passing of it, however brief.

use std::time::Duration;

use rustix::process::{Pid, getppid};
use stockade_wire::WorkerExit;

use crate::print::Printer;
/// How often the watchdog looks.
const PERIOD: Duration = Duration::from_millis(20);

/// What the watchdog needs: the parent it watches for.
#[derive(Debug)]
pub struct Watchdog {
    parent: Option<Pid>,
}

impl Watchdog {
    /// Notes the parent (the host): in the process that will be watched.
    pub fn new() -> Self {
        Self { parent: getppid() }
    }

    /// The process's peak resident bytes so far.
    fn peak_resident(&self) -> Option<u64> {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage fills the rusage it is given, which lives for
        // the call; zeroed is a valid rusage whatever it leaves.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: initialised (zeroed, then filled by the kernel).
        let usage = unsafe { usage.assume_init() };
        // Kibibytes.
        u64::try_from(usage.ru_maxrss).ok().map(|kib| kib * 1024)
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
        loop {
            std::thread::sleep(PERIOD);
            printer.poll();
            if getppid() != self.parent {
                exit_now(
                    WorkerExit::Orphaned,
                    b"stockade-worker: the parent is gone; exiting\n",
                );
            }
            if let (Some(ceiling), Some(resident)) = (rss_ceiling, self.peak_resident())
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
