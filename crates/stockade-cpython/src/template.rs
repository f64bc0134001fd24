//! The template interpreter: an interpreter that has paid its start-up once
//! (the standard library's common modules imported, its native libraries
//! found) and forks single-use workers on the host's request, each of which
//! then reads its own Configure and applies its own sandbox exactly as a
//! worker started from scratch does.
//!
//! The host asks over the template's stdin, a Unix socket: one byte with
//! the new worker's stdin, stdout and stderr attached (SCM_RIGHTS); the
//! template forks with CLONE_PARENT, so the worker is the host's own child
//! (the host reaps, kills and supervises it as any worker), and answers
//! with the worker's pid as eight little-endian bytes (0: the fork failed).
//! When the socket closes, the template exits.
//!
//! What a forked worker shares with the template and its siblings, and why
//! that is safe: the template runs only this module and the standard
//! library, never guest code, with an empty environment, so its memory
//! holds nothing of the host's or of another guest's. Forked workers share
//! its address-space layout (ASLR is per exec) and Python's hash secret
//! (fixed at interpreter start); a guest could learn both, but neither
//! reaches another worker: workers cannot see, signal or trace each other
//! (namespaces, seccomp, Landlock scopes). `random` reseeds itself in each
//! fork (Python's own after-fork hook). The fork is a raw `clone`, so the C
//! library's own fork handlers do not run (the template is single-threaded
//! and holds no lock they would reset; the child's cached thread id is the
//! template's, which matters only to `pthread_kill` on glibc before 2.34).
//! The template sets `TZ=UTC` and blocks ssl before its imports, so its
//! workers see the world as a worker started from scratch does.

use std::io::IoSliceMut;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use pyo3::prelude::*;
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};

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

/// The descriptor the host asks on.
const CONTROL: RawFd = 0;

/// One request: the new worker's stdin, stdout and stderr; None at the end.
fn next_request() -> Result<Option<[OwnedFd; 3]>, String> {
    // SAFETY: descriptor 0 is the control socket the host gave the
    // template; it is borrowed for this call only.
    let control = unsafe { rustix::fd::BorrowedFd::borrow_raw(CONTROL) };
    let mut byte = [0u8; 1];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut ancillary = RecvAncillaryBuffer::new(&mut space);
    let received = loop {
        match recvmsg(
            control,
            &mut [IoSliceMut::new(&mut byte)],
            &mut ancillary,
            RecvFlags::CMSG_CLOEXEC,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            other => break other.map_err(|e| format!("cannot read a request: {e}"))?,
        }
    };
    if received.bytes == 0 {
        return Ok(None);
    }
    let mut fds: Vec<OwnedFd> = Vec::new();
    for message in ancillary.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    fds.try_into()
        .map(Some)
        .map_err(|got: Vec<OwnedFd>| format!("a request carried {} descriptors, not 3", got.len()))
}

fn answer(pid: i64) {
    // SAFETY: writes eight bytes from a local to the control socket.
    unsafe {
        libc::write(CONTROL, pid.to_le_bytes().as_ptr().cast(), 8);
    }
}

/// Serves fork requests until the host closes the socket; returns in each
/// forked worker (true) with its stdio in place, and in the template (false)
/// when it should exit.
pub fn serve_requests(py: Python<'_>) -> bool {
    // Nothing the host held beyond the control socket and the null
    // streams may pass to the workers.
    stockade_worker_core::close_inherited_descriptors();
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
    loop {
        let fds = match next_request() {
            Ok(Some(fds)) => fds,
            Ok(None) | Err(_) => return false,
        };
        // SAFETY: the template is single-threaded (it starts no thread and
        // runs no guest code), so forking it is safe; Python's before/after
        // fork hooks keep the interpreter's state right on both sides.
        // CLONE_PARENT makes the worker the host's child; with no new
        // stack given, the child runs on a copy of this one, as after fork.
        let pid = unsafe {
            pyo3::ffi::PyOS_BeforeFork();
            let pid = libc::syscall(
                libc::SYS_clone,
                libc::CLONE_PARENT | libc::SIGCHLD,
                0,
                0,
                0,
                0,
            );
            if pid == 0 {
                pyo3::ffi::PyOS_AfterFork_Child();
            } else {
                pyo3::ffi::PyOS_AfterFork_Parent();
            }
            pid
        };
        if pid == 0 {
            // The worker: its stdio are the host's pipes (the control
            // socket on 0 is replaced, so it never reaches guest code).
            for (fd, target) in fds.iter().zip([0, 1, 2]) {
                // SAFETY: dup2 onto the standard descriptors of this new
                // process; the received descriptors close when dropped.
                unsafe {
                    libc::dup2(fd.as_raw_fd(), target);
                }
            }
            drop(fds);
            return true;
        }
        drop(fds);
        answer(pid.max(0));
    }
}
