//! The template interpreter: an interpreter that has paid its start-up once
//! (the standard library's common modules imported, its native libraries
//! found), then, as worker-core's template (its `template.rs`), reads the
//! host's Configure, prepares the engine (the guest side loaded), applies
//! its sandbox and starts the engine once, and forks single-use workers on
//! the host's request, each of which serves its session without paying any
//! of that.
//!
//! What CPython adds to worker-core's template: the imports below, and a
//! fork that keeps the interpreter's state right on both sides (Python's
//! before/after fork hooks, with the GIL held). Forked workers share the
//! template's address-space layout (ASLR is per exec) and Python's hash
//! secret (fixed at interpreter start); a guest could learn both, but
//! neither reaches another worker (docs/security.md, "Workers forked from
//! a template"). `random` reseeds itself in each fork (Python's own
//! after-fork hook). The fork is a raw `clone` from the template's session thread,
//! so the C library's own fork handlers do not run (its one other thread,
//! the main thread, is blocked joining the session thread and holds no
//! lock they would reset; the child's cached thread id is the template's
//! session thread's, which matters only to `pthread_kill` on glibc before
//! 2.34). The template sets
//! `TZ=UTC` and blocks ssl before its imports, so its workers see the world
//! as a worker started from scratch does.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;

/// Set when this interpreter is a template.
static TEMPLATE: AtomicBool = AtomicBool::new(false);

/// Thread pools that native libraries start when they load, sized by
/// these variables: a template sets each to 1 (unless the host's
/// environment already names a size) before it preloads modules, because
/// a worker forked from it has only the thread that forked, and a pool
/// the library believes it has would never answer.
const THREAD_POOL_SIZES: &[&str] = &[
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "POLARS_MAX_THREADS",
];

/// Modules every worker forked from the template finds imported: what the
/// engine loads at each start and what guest code most often imports.
const TEMPLATE_MODULES: &[&str] = &[
    "io",
    "opcode",
    "traceback",
    "linecache",
    "datetime",
    "keyword",
    "asyncio",
    "json",
    "re",
    "collections",
    "math",
];

/// Readies the interpreter to be a template: the zone, ssl blocked, the
/// common modules imported and the system libraries found.
pub fn preload(py: Python<'_>) {
    TEMPLATE.store(true, Ordering::Relaxed);
    // Guests see UTC: set before the modules below read the zone (a worker
    // started from scratch sets it at the same point of its start).
    // SAFETY: the template has one thread; nothing reads the environment
    // while it changes.
    unsafe { std::env::set_var("TZ", "UTC") };
    if let Ok(time) = py.import("time") {
        let _ = time.call_method0("tzset");
    }
    // A worker started from scratch cannot load ssl (its libraries are not
    // shown); one forked from here must not have it either (asyncio would
    // import it).
    if let Ok(modules) = py.import("sys").and_then(|sys| sys.getattr("modules")) {
        let _ = modules.set_item("ssl", py.None());
    }
    for module in TEMPLATE_MODULES {
        let _ = py.import(*module);
    }
    crate::natives::remember_system_libraries(py);
}

/// Whether this interpreter is a template.
pub fn is_template() -> bool {
    TEMPLATE.load(Ordering::Relaxed)
}

/// Imports the modules a session preloads (its `preload` option), under
/// the whole sandbox: in a template whose sandbox is complete (no layers
/// left to its workers) once, for every worker it forks (`in_template`);
/// otherwise in each worker before Ready, a forked one once it has put
/// its own layers in force (a template that still holds what its workers
/// need to mount their scratch must run no package's code). A module that
/// fails to import fails the worker's start, naming it.
pub fn import_preloaded(
    py: Python<'_>,
    modules: &[String],
    in_template: bool,
) -> Result<(), String> {
    if modules.is_empty() {
        return Ok(());
    }
    if in_template {
        for name in THREAD_POOL_SIZES {
            if std::env::var_os(name).is_none() {
                // SAFETY: the template has one running thread (the main
                // thread is blocked joining this one) and nothing reads
                // the environment while it changes.
                unsafe { std::env::set_var(name, "1") };
            }
        }
    }
    for module in modules {
        py.import(module.as_str())
            .map_err(|err| format!("cannot preload {module}: {err}"))?;
    }
    // What the imports made is the template's, shared with every fork.
    let _ = py.import("gc").and_then(|gc| gc.call_method0("collect"));
    Ok(())
}

/// Forks the template into a worker (worker-core's `fork_beside`) with
/// Python's fork hooks around it, under the GIL.
pub fn fork_interpreter() -> i64 {
    Python::attach(|py| {
        // Everything the template made moves to the collector's permanent
        // generation, which no collection in a worker walks: a walk would
        // write to every object's header, copying each page the worker
        // shares with the template.
        let _ = py.import("gc").and_then(|gc| gc.call_method0("freeze"));
        // SAFETY: the template's only other thread is blocked joining this
        // one and it runs no guest code, so forking it is safe; Python's before and
        // after fork hooks keep the interpreter's state right on both
        // sides, and run with the GIL held, as here.
        unsafe {
            pyo3::ffi::PyOS_BeforeFork();
            let pid = stockade_worker_core::template::fork_beside();
            if pid == 0 {
                pyo3::ffi::PyOS_AfterFork_Child();
            } else {
                pyo3::ffi::PyOS_AfterFork_Parent();
            }
            pid
        }
    })
}
