//! The tokio runtime async host functions' futures run on: one per
//! process, made again in a forked child (whose copy has no threads).

use std::sync::Mutex;

use tokio::runtime::{Builder, Handle, Runtime};

/// The runtime and the process it belongs to. The lock is held only to read
/// or swap this pair, never while a runtime starts, so a fork almost never
/// copies it held.
static RUNTIME: Mutex<Option<(u32, &'static Runtime)>> = Mutex::new(None);

fn current(pid: u32) -> Option<Handle> {
    let slot = RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match *slot {
        Some((owner, runtime)) if owner == pid => Some(runtime.handle().clone()),
        _ => None,
    }
}

/// A handle to this process's runtime, started on first use.
pub fn runtime_handle() -> std::io::Result<Handle> {
    let pid = std::process::id();
    if let Some(handle) = current(pid) {
        return Ok(handle);
    }
    // A runtime inherited through fork has no threads and must not be
    // dropped (that would join them); it is left as it is. One started
    // here and beaten by another thread's is leaked too: a rare, bounded
    // cost for never holding the lock while threads start.
    let started: &'static Runtime = Box::leak(Box::new(
        Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("stockade-host-calls")
            .enable_all()
            .build()?,
    ));
    let mut slot = RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match *slot {
        Some((owner, runtime)) if owner == pid => Ok(runtime.handle().clone()),
        _ => {
            *slot = Some((pid, started));
            Ok(started.handle().clone())
        }
    }
}
