//! The supervisor of one worker: a thread that reads the worker's resident
//! memory and thread count from /proc about every 50 ms and kills it past
//! the limits. It runs whatever the session thread is doing, including
//! waiting inside a host function.
//!
//! The worker is killed by pid, so the supervisor must be stopped before the
//! worker is reaped (until then the pid cannot be reused).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the supervisor looks.
const PERIOD: Duration = Duration::from_millis(50);

/// What the supervisor enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SupervisionLimits {
    /// Resident bytes past which the worker is killed.
    pub rss_ceiling: Option<u64>,
    /// Threads past which the worker is killed.
    pub max_threads: u32,
}

/// Why the supervisor killed the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Violation {
    Rss { resident: u64, ceiling: u64 },
    Threads { count: u32, max: u32 },
}

/// One reading of /proc/<pid>/status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usage {
    pub resident: u64,
    pub threads: u32,
}

/// Reads resident bytes and the thread count of `pid`.
pub(crate) fn usage(pid: u32) -> std::io::Result<Usage> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    match (field("VmRSS:"), field("Threads:")) {
        (Some(kib), Some(threads)) => Ok(Usage {
            resident: kib * 1024,
            threads: u32::try_from(threads).unwrap_or(u32::MAX),
        }),
        // A zombie has no VmRSS line: nothing is resident any more.
        (None, Some(threads)) => Ok(Usage {
            resident: 0,
            threads: u32::try_from(threads).unwrap_or(u32::MAX),
        }),
        _ => Err(std::io::Error::other(format!(
            "/proc/{pid}/status has no Threads line"
        ))),
    }
}

/// The filters every worker installs (stockade-sandbox's `seccomp/install.rs`).
const WORKER_FILTERS: u32 = 3;

/// Whether every thread of `pid` runs under a seccomp filter (mode 2),
/// and under all of a worker's filters: a thread that started before the
/// filter would not be bound by it.
pub(crate) fn all_threads_filtered(pid: u32) -> std::io::Result<bool> {
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        let status = std::fs::read_to_string(task?.path().join("status"))?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
                .map(str::to_owned)
        };
        if field("Seccomp:").as_deref() != Some("2") {
            return Ok(false);
        }
        // Kernels before 5.9 do not say how many: the mode is all there is.
        if let Some(count) = field("Seccomp_filters:")
            && count
                .parse::<u32>()
                .map_or(true, |count| count < WORKER_FILTERS)
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A running supervisor thread.
#[derive(Debug)]
pub(crate) struct Supervisor {
    stop: Arc<AtomicBool>,
    armed: Arc<AtomicBool>,
    verdict: Arc<Mutex<Option<Violation>>>,
    handle: Option<JoinHandle<()>>,
}

impl Supervisor {
    /// Starts supervising `pid`.
    pub(crate) fn start(pid: u32, limits: SupervisionLimits) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let armed = Arc::new(AtomicBool::new(false));
        let verdict = Arc::new(Mutex::new(None));
        let (thread_stop, thread_armed, thread_verdict) =
            (Arc::clone(&stop), Arc::clone(&armed), Arc::clone(&verdict));
        let handle = std::thread::Builder::new()
            .name(format!("stockade-supervisor-{pid}"))
            .stack_size(64 * 1024)
            .spawn(move || watch(pid, limits, &thread_stop, &thread_armed, &thread_verdict))?;
        Ok(Self {
            stop,
            armed,
            verdict,
            handle: Some(handle),
        })
    }

    /// Starts looking: the worker has been sent work. Until then (a
    /// prestarted worker waiting in a pool) it runs no guest code and its
    /// memory and threads stay as they were at Ready, so the supervisor
    /// does not read its /proc (each entry read costs the kernel a flush
    /// when the worker ends).
    pub(crate) fn arm(&self) {
        self.armed.store(true, Ordering::Relaxed);
    }

    /// Why the worker was killed, if the supervisor killed it.
    pub(crate) fn verdict(&self) -> Option<Violation> {
        self.verdict.lock().map(|v| v.clone()).unwrap_or(None)
    }

    /// Stops the thread and waits for it; after this the pid may be reaped.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(handle) = self.handle.take() {
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

fn watch(
    pid: u32,
    limits: SupervisionLimits,
    stop: &AtomicBool,
    armed: &AtomicBool,
    verdict: &Mutex<Option<Violation>>,
) {
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(PERIOD);
        if stop.load(Ordering::Acquire) {
            return;
        }
        if !armed.load(Ordering::Relaxed) {
            continue;
        }
        let Ok(usage) = usage(pid) else { return };
        let violation = match limits.rss_ceiling {
            Some(ceiling) if usage.resident > ceiling => Some(Violation::Rss {
                resident: usage.resident,
                ceiling,
            }),
            _ if usage.threads > limits.max_threads => Some(Violation::Threads {
                count: usage.threads,
                max: limits.max_threads,
            }),
            _ => None,
        };
        if let Some(violation) = violation {
            if let Ok(mut slot) = verdict.lock() {
                *slot = Some(violation);
            }
            if let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            return;
        }
    }
}
