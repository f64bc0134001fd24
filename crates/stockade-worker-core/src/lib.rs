//! What every stockade worker binary shares, whatever engines it carries:
//! the protocol state machine (`serve`), the link to the parent (`link`,
//! `out`), the print buffer (`print`), the capped allocator (`alloc`), the
//! watchdog, a dumpable session's journaled clock (`clock_journal`), and
//! the engine seam (`engine`). A worker binary installs the
//! allocator, names its engines and calls [`run`].

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod alloc;
pub mod clock_journal;
pub mod engine;
pub mod link;
pub mod out;
pub mod print;
mod serve;
pub mod template;
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
    /// Forks a template into a new worker, the host's child
    /// ([`template::fork_beside`], wrapped in what the engine must do
    /// around a fork).
    pub fork: fn() -> i64,
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

/// Ends the worker with `exit`'s status at once, from any thread: no
/// destructor or exit handler runs (a C extension's, while other threads
/// still use it), and nothing is buffered that it would lose.
pub fn exit_now(exit: WorkerExit) -> ! {
    // SAFETY: _exit ends the process; nothing runs after it.
    unsafe { libc::_exit(exit.code()) }
}

/// Writes `message` to stderr for the host's log: a stderr nobody reads
/// any more (a host that closed it) is no reason to fail, so errors are
/// ignored, as `eprintln!` (which panics on them) would not.
pub(crate) fn note(message: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "stockade-worker: {message}");
}

/// Closes every descriptor above stderr that the worker inherited: one the
/// host's process held without close-on-exec (a jobserver pipe, a socket it
/// was handed) must not reach guest code, which may read and write any
/// descriptor it holds. Runs first, before the worker opens anything.
pub fn close_inherited_descriptors() {
    // SAFETY: close_range closes descriptors of this process only; nothing
    // is open above 2 that the worker needs yet.
    let rc = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    if rc != 0 {
        // Kernels before 5.9: one at a time, up to the soft limit.
        let most = rustix::process::getrlimit(rustix::process::Resource::Nofile)
            .current
            .unwrap_or(1024)
            .min(1 << 20);
        for fd in 3..most {
            // SAFETY: as above; closing a descriptor that is not open fails
            // harmlessly.
            unsafe {
                libc::close(fd as libc::c_int);
            }
        }
    }
}

/// Stack of the thread that runs the session: guest code, the parser and the
/// value converters all recurse, and a deep stack keeps a deep (but bounded)
/// guest from overflowing it.
pub(crate) const SESSION_STACK: usize = 256 * 1024 * 1024;

/// Serves one session over stdin and stdout; returns the exit status.
///
/// Configure and the sandbox run on the calling thread, which must be the
/// process's only one (namespaces and Landlock bind only the calling thread
/// and its children); the session then runs on a thread of its own.
pub fn run(worker: Worker) -> i32 {
    normal_scheduling();
    guest_zone();
    let configured = serve::open_link(worker.link).and_then(|mut link| {
        serve::configure(&worker, &mut link, false).map(|configured| (configured, link))
    });
    match configured {
        Err(code) => code,
        Ok((configured, link)) => run_session(configured, link),
    }
}

/// Runs as a template (`template.rs`): returns the template's exit status
/// when the host is done with it, and in each worker it forked, that
/// worker's.
pub fn run_template(worker: Worker) -> i32 {
    normal_scheduling();
    guest_zone();
    template::serve_requests(&worker)
}

/// A worker runs in the normal scheduling class, whatever its starter's:
/// the host's background threads that start workers run as SCHED_BATCH
/// (which a process they start would otherwise inherit), and a worker
/// woken by a feed must preempt as any interactive thread does. Before the
/// sandbox, and before any other thread exists (threads inherit it).
fn normal_scheduling() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler reads `param`, alive for the call; pid 0
    // is the calling thread. Moving between the normal classes needs no
    // privilege; a refusal leaves the class as it was.
    let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) };
}

/// Guests see UTC whatever the machine's zone: the C library reads TZ
/// before it looks for /etc/localtime.
fn guest_zone() {
    // SAFETY: no other thread exists yet, so nothing reads the environment
    // while it changes.
    unsafe { std::env::set_var("TZ", "UTC") };
}

/// The session, on a thread of its own with a deep stack.
fn run_session(configured: serve::Configured, link: link::Link) -> i32 {
    let session = std::thread::Builder::new()
        .name("session".into())
        .stack_size(SESSION_STACK)
        .spawn(move || serve::serve(configured, link));
    match session {
        Ok(handle) => handle.join().unwrap_or(WorkerExit::Internal.code()),
        Err(err) => {
            note(format_args!("cannot start the session thread: {err}"));
            WorkerExit::Internal.code()
        }
    }
}
