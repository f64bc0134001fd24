//! stockade's CPython engine: an extension module that the host's chosen
//! interpreter loads (`python -I -S -c BOOT path/to/libstockade_cpython.so`,
//! BOOT being the host's `cpython::BOOT`), and whose `serve()` reads Configure, sandboxes the interpreter's own
//! process and serves one session in it, over the same protocol state
//! machine as every worker (`stockade-worker-core`).
//!
//! The interpreter's start-up (before `serve`) runs no guest code and reads
//! only its own files; the sandbox locks before the first guest byte is
//! compiled. Why a module loaded by the interpreter rather than an
//! interpreter embedded in a worker binary: docs/architecture.md.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod clock;
mod ending;
mod engine;
mod host;
mod journal;
mod memory;
mod natives;
mod prepare;
mod template;
mod values;

use std::sync::atomic::AtomicUsize;

use pyo3::prelude::*;
use stockade_worker_core::alloc::CappedAllocator;
use stockade_worker_core::{LinkEnds, Worker};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static BASELINE: AtomicUsize = AtomicUsize::new(0);

/// Counts the module's own Rust allocations (the link, frames, converted
/// values); the interpreter's heap is CPython's own.
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::new(&LIVE, &BASELINE);

/// Moves the link off stdin and stdout (to descriptors above 2, closed on
/// exec) and puts /dev/null there: guest code owns the process, and a
/// write to `sys.__stdout__` or a read of `sys.__stdin__` must not reach
/// the parent as protocol. Stays on stdio if anything fails.
fn move_link() -> LinkEnds {
    stockade_worker_core::close_inherited_descriptors();
    // SAFETY: plain descriptor calls on the process's own descriptors,
    // before any other thread exists; every result is checked.
    unsafe {
        let input = libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 3);
        let output = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if input < 0 || output < 0 || null < 0 || libc::dup2(null, 0) < 0 || libc::dup2(null, 1) < 0
        {
            for fd in [input, output, null] {
                if fd > 2 {
                    libc::close(fd);
                }
            }
            return LinkEnds::Stdio;
        }
        libc::close(null);
        LinkEnds::Moved { input, output }
    }
}

#[pymodule]
mod stockade_cpython {
    use super::*;

    #[pymodule_export]
    use crate::host::{await_calls, emit, os_call, show};
    #[pymodule_export]
    use crate::journal::{read_clock, replace_class_attribute};

    /// Serves one session on this interpreter and ends the process with
    /// the worker's exit status. Called once, by the boot code, before any
    /// other thread exists.
    #[pyfunction]
    fn serve(py: Python<'_>) -> i32 {
        serve_worker(py, false)
    }

    /// Runs as the template interpreter (see `template.rs`): sandboxed
    /// once, it forks workers on request, each of which serves one
    /// session; it ends when the host closes the template's socket.
    #[pyfunction]
    fn template(py: Python<'_>) -> i32 {
        crate::template::preload(py);
        serve_worker(py, true)
    }
}

/// Serves one session in this process and ends it; as a `template`, serves
/// the host's fork requests first, and the session in each worker forked.
fn serve_worker(py: Python<'_>, template: bool) -> i32 {
    // The main thread holds no interpreter state while it serves: the
    // session runs on a thread of its own, which takes the GIL and keeps
    // it; so the process ends here, without this thread ever asking for
    // the GIL back.
    py.detach(|| {
        let worker = Worker {
            allocator: &ALLOCATOR,
            prepare: prepare::prepare,
            link: move_link(),
            fork: crate::template::fork_interpreter,
        };
        let status = if template {
            stockade_worker_core::run_template(worker)
        } else {
            stockade_worker_core::run(worker)
        };
        // Everything the worker sends is written by now (nothing buffers
        // guest output), so the interpreter's finalisation (collecting,
        // tearing modules down, joining guest threads) would only delay
        // the end the host waits for, and run guest code (`atexit`,
        // `__del__`) after the session closed.
        // SAFETY: _exit ends the process at once; no Rust or Python state
        // is used after it.
        unsafe { libc::_exit(status) }
    })
}
