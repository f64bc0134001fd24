//! `stockade-worker`: serves one guest session over stdin/stdout frames.
//!
//! The parent starts it with an empty environment, sends Configure, and then
//! drives turns; the worker exits when its input closes or on Close. Exit
//! statuses follow sysexits.h where one fits (see `docs/limits.md`).

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod alloc;
mod engine;
mod link;
mod out;
mod print;
mod serve;
mod watchdog;

#[global_allocator]
static ALLOCATOR: alloc::CappedAllocator = alloc::CappedAllocator;

/// Stack of the thread that runs the session: guest code, the parser and the
/// value converters all recurse, and a deep stack keeps a deep (but bounded)
/// guest from overflowing it.
const SESSION_STACK: usize = 256 * 1024 * 1024;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("stockade-worker {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    // Guests see UTC whatever the machine's zone: the C library reads TZ
    // before it looks for /etc/localtime.
    // SAFETY: no other thread exists yet, so nothing reads the environment
    // while it changes.
    unsafe { std::env::set_var("TZ", "UTC") };
    // Configure and the sandbox run here, while the process has one thread:
    // namespaces and Landlock bind only the calling thread and its children.
    let code = match serve::configure() {
        Err(code) => code,
        Ok(configured) => {
            let session = std::thread::Builder::new()
                .name("session".into())
                .stack_size(SESSION_STACK)
                .spawn(move || serve::serve(configured));
            match session {
                Ok(handle) => handle
                    .join()
                    .unwrap_or(stockade_wire::WorkerExit::Internal.code()),
                Err(err) => {
                    eprintln!("stockade-worker: cannot start the session thread: {err}");
                    stockade_wire::WorkerExit::Internal.code()
                }
            }
        }
    };
    std::process::exit(code);
}
