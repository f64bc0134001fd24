//! The tokio runtime async host functions' futures run on: one per
//! process, made again in a forked child (whose copy has no threads).

use std::sync::Mutex;

use tokio::runtime::{Builder, Handle, Runtime};

static RUNTIME: Mutex<Option<(u32, &'static Runtime)>> = Mutex::new(None);

/// A handle to this process's runtime, started on first use.
pub fn runtime_handle() -> std::io::Result<Handle> {
    let pid = std::process::id();
    let mut slot = RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((owner, runtime)) = *slot
        && owner == pid
    {
        return Ok(runtime.handle().clone());
    }
    // A runtime inherited through fork has no threads and must not be
    // dropped (that would join them); it is left as it is.
    let runtime: &'static Runtime = Box::leak(Box::new(
        Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("stockade-host-calls")
            .enable_all()
            .build()?,
    ));
    *slot = Some((pid, runtime));
    Ok(runtime.handle().clone())
}
