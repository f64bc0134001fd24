//! What every stockade worker binary shares, whatever engines it carries:
//! the protocol state machine (`serve`), the link to the parent (`link`,
//! `out`), the print buffer (`print`), the capped allocator (`alloc`), the
//! watchdog, and the engine seam (`engine`). A worker binary installs the
//! allocator, names its engines and calls [`run`].

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod alloc;
pub mod engine;
pub mod link;
pub mod out;
pub mod print;
mod serve;
mod watchdog;

use stockade_wire::WorkerExit;

/// A worker binary: its allocator and its engines.
#[derive(Debug, Clone, Copy)]
pub struct Worker {
    /// The binary's `#[global_allocator]`.
    pub allocator: &'static alloc::CappedAllocator,
    /// Prepares the engine a Configure names.
    pub prepare: engine::Prepare,
    /// Where the link to the parent is.
    pub link: LinkEnds,
}

/// The descriptors the link to the parent uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkEnds {
    /// Stdin and stdout, as the parent started the worker.
    Stdio,
    /// Descriptors the worker moved the link to (reading, writing), so that
    /// guest code writing to stdout, or reading stdin, cannot touch it.
    Moved { input: i32, output: i32 },
}

/// Stack of the thread that runs the session: guest code, the parser and the
/// value converters all recurse, and a deep stack keeps a deep (but bounded)
/// guest from overflowing it.
const SESSION_STACK: usize = 256 * 1024 * 1024;

/// Serves one session over stdin and stdout; returns the exit status.
///
/// Configure and the sandbox run on the calling thread, which must be the
/// process's only one (namespaces and Landlock bind only the calling thread
/// and its children); the session then runs on a thread of its own.
pub fn run(worker: Worker) -> i32 {
    // Guests see UTC whatever the machine's zone: the C library reads TZ
    // before it looks for /etc/localtime.
    // SAFETY: no other thread exists yet, so nothing reads the environment
    // while it changes.
    unsafe { std::env::set_var("TZ", "UTC") };
    match serve::configure(worker) {
        Err(code) => code,
        Ok(configured) => {
            let session = std::thread::Builder::new()
                .name("session".into())
                .stack_size(SESSION_STACK)
                .spawn(move || serve::serve(configured));
            match session {
                Ok(handle) => handle.join().unwrap_or(WorkerExit::Internal.code()),
                Err(err) => {
                    eprintln!("stockade-worker: cannot start the session thread: {err}");
                    WorkerExit::Internal.code()
                }
            }
        }
    }
}
