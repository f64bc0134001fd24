//! A worker as a template: it reads the host's Configure, prepares its
//! engine and applies its sandbox once (a template's seccomp filter,
//! `stockade_sandbox::seccomp::Target::Template`), answers Ready, and then
//! forks workers on the host's request, each of which narrows the filter
//! to itself, checks it is sent the same Configure, and serves its session
//! as any worker. A worker started this way pays none of the sandbox's
//! start (namespaces, the empty root, Landlock, the filters' compilation)
//! nor `execve` and the dynamic loader.
//!
//! The host asks over the template's control socket (its stdin): one byte
//! with the new worker's stdin, stdout and stderr attached (SCM_RIGHTS);
//! the template forks with CLONE_PARENT, so the worker is the host's own
//! child (the host reaps, kills and supervises it as any worker), and
//! answers with the worker's pid as eight little-endian bytes (0: the
//! fork failed). When the socket closes, the template exits.
//!
//! What a forked worker shares with the template and its siblings, and why
//! that is safe, is in docs/security.md ("Workers forked from a template").

use std::io::IoSliceMut;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, recvmsg};
use stockade_wire::{
    Layer, PROTOCOL_VERSION, Response, SandboxMode, SandboxReport, WorkerExit, WorkerInfo,
};

use crate::link::Link;
use crate::serve::{Configured, configure, fatal};
use crate::{LinkEnds, Worker};

/// The argument that starts a worker binary as a template.
pub const FLAG: &str = "--template";

/// The engine name a template's Ready carries: it runs no engine itself.
pub const TEMPLATE_ENGINE: &str = "template";

/// Forks the calling single-threaded process with CLONE_PARENT (the new
/// process is the caller's parent's child); returns 0 in the child, the
/// child's pid in the parent, and a negative number on failure.
pub fn fork_beside() -> i64 {
    // SAFETY: clone with no new stack runs the child on a copy of this
    // one, as fork does; the caller is single-threaded (a template runs
    // no thread), so no lock another thread held is copied held.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::CLONE_PARENT | libc::SIGCHLD,
            0,
            0,
            0,
            0,
        )
    }
}

/// One request: the new worker's stdin, stdout and stderr; None at the end.
fn next_request(control: BorrowedFd<'_>) -> Result<Option<[OwnedFd; 3]>, String> {
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

fn answer(control: BorrowedFd<'_>, pid: i64) {
    // A host that stopped listening closes the socket; the next request
    // then reads the end.
    let _ = rustix::io::write(control, &pid.to_le_bytes());
}

/// Why a template with this sandbox must not fork workers, if it must
/// not: its workers share its namespaces and Landlock domain, and only
/// each one's narrowing of the seccomp filter keeps them from signalling
/// each other and the template, so without seccomp there is no template
/// (the host starts each worker from scratch instead). With no sandbox
/// at all (`off`) there is nothing to keep apart.
pub fn refusal(sandbox: &SandboxReport) -> Option<String> {
    (sandbox.mode != SandboxMode::Off && !sandbox.has(Layer::Seccomp))
        .then(|| "a template needs seccomp in force to keep its workers apart".to_owned())
}

/// Puts `fd` at descriptor number `target` (closing what was there).
fn place(fd: &OwnedFd, target: RawFd) -> Result<(), String> {
    // SAFETY: dup3 onto a descriptor number this process owns; what it
    // replaces (the control socket, a null stream) is closed atomically.
    let rc = unsafe { libc::dup3(fd.as_raw_fd(), target, 0) };
    if rc < 0 {
        return Err(format!(
            "cannot place descriptor {target}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// In a new worker: takes the host's pipes in place of the control
/// socket, narrows the filter to this process, and reads its Configure,
/// which must be the template's.
fn become_worker(
    ends: LinkEnds,
    control: RawFd,
    pipes: [OwnedFd; 3],
    configured: &mut Configured,
) -> Result<Link, i32> {
    let [stdin, stdout, stderr] = pipes;
    let placed = (|| -> Result<(), String> {
        match ends {
            LinkEnds::Stdio => {
                place(&stdin, 0)?;
                place(&stdout, 1)?;
            }
            LinkEnds::Moved { .. } => {
                // SAFETY: the control socket's descriptor belongs to the
                // template's code only, which this process leaves now.
                unsafe { libc::close(control) };
            }
        }
        place(&stderr, 2)
    })();
    let mut link = Link::new(
        std::fs::File::from(stdin),
        std::fs::File::from(stdout),
        stockade_wire::WireLimits::default(),
    );
    if let Err(why) = placed {
        return Err(fatal(&mut link, WorkerExit::Internal, why));
    }
    drop(stderr);
    if configured.sandbox.mode != SandboxMode::Off
        && let Some(seconds) = configured.limits.cpu_seconds
        && let Err(why) = stockade_sandbox::rlimits::cpu(seconds)
    {
        return Err(fatal(&mut link, WorkerExit::Config, why));
    }
    if let Err(err) = stockade_sandbox::narrow_forked_worker(configured.sandbox.has(Layer::Seccomp))
    {
        return Err(fatal(&mut link, WorkerExit::Config, err.to_string()));
    }
    configured.sandbox.extras.push(
        "forked from a template: its sandbox, with the seccomp filter narrowed to this worker"
            .into(),
    );
    match link.read_frame() {
        Ok(Some(payload)) if payload == configured.payload => Ok(link),
        Ok(None) => Err(0),
        Ok(Some(_)) => Err(fatal(
            &mut link,
            WorkerExit::Protocol,
            "a worker forked from a template must be configured as the template was".into(),
        )),
        Err(err) => Err(fatal(
            &mut link,
            WorkerExit::Protocol,
            format!("cannot read Configure: {err}"),
        )),
    }
}

/// Runs the template: configures and sandboxes it, then forks workers
/// until the host closes the control socket. Returns in each worker, with
/// its link and configuration, ready for its session thread; in the
/// template, returns the status to exit with.
pub(crate) fn serve_requests(worker: &Worker) -> Result<(Configured, Link), i32> {
    let control: RawFd = match worker.link {
        LinkEnds::Stdio => 0,
        LinkEnds::Moved { input, output } => {
            // The host gave the socket as stdout too; the template answers
            // on `input`.
            // SAFETY: `output` is the worker's own copy of the socket,
            // used by nothing else.
            unsafe { libc::close(output) };
            input
        }
    };
    // SAFETY: `control` is the template's control socket, open for the
    // template's life; borrowed for each use only.
    let socket = unsafe { BorrowedFd::borrow_raw(control) };
    // The Configure and the Ready travel over copies of the socket, so
    // that closing the link afterwards leaves the socket itself open.
    let copies = socket
        .try_clone_to_owned()
        .and_then(|input| Ok((input, socket.try_clone_to_owned()?)));
    let Ok((input, output)) = copies else {
        crate::note(format_args!("template: cannot copy the control socket"));
        return Err(WorkerExit::Internal.code());
    };
    let mut link = Link::new(
        std::fs::File::from(input),
        std::fs::File::from(output),
        stockade_wire::WireLimits::default(),
    );
    let mut configured = configure(worker, &mut link, true)?;
    // Workers of one template share its namespaces and Landlock domain:
    // only each one's narrowing of the seccomp filter keeps them from
    // signalling each other and the template. Without seccomp there is
    // no template; the host starts each worker from scratch instead.
    if let Some(why) = refusal(&configured.sandbox) {
        return Err(fatal(&mut link, WorkerExit::Config, why));
    }
    link.out.send_or_exit(&Response::Ready(WorkerInfo {
        protocol_version: PROTOCOL_VERSION,
        worker_version: env!("CARGO_PKG_VERSION").into(),
        engine: TEMPLATE_ENGINE.into(),
        sandbox: configured.sandbox.clone(),
    }));
    // The template's requests come as messages with descriptors, read
    // from the socket itself, not through the link's buffer.
    drop(link);
    loop {
        let pipes = match next_request(socket) {
            Ok(Some(pipes)) => pipes,
            Ok(None) => return Err(0),
            Err(why) => {
                crate::note(format_args!("template: {why}"));
                return Err(WorkerExit::Protocol.code());
            }
        };
        let pid = (worker.fork)();
        if pid == 0 {
            let link = become_worker(worker.link, control, pipes, &mut configured)?;
            return Ok((configured, link));
        }
        drop(pipes);
        answer(socket, pid.max(0));
    }
}
