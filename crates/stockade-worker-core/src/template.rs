//! A worker as a template: it reads the host's Configure, prepares its
//! engine and applies its sandbox once (a template's seccomp filter,
//! `stockade_sandbox::seccomp::Target::Template`), starts its engine and
//! warms it up, answers Ready, and then forks workers on the host's
//! request, each of which narrows the filter to itself, checks it is sent
//! the same Configure, makes its randomness anew (`Engine::forked`),
//! starts the engine's threads (`Engine::before_ready`) and serves its
//! session as any worker. A worker started this way pays none of the
//! sandbox's start (namespaces, the empty root, Landlock, the filters'
//! compilation), nor `execve` and the dynamic loader, nor the engine's
//! own start.
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
    ConfigureLimits, Layer, PROTOCOL_VERSION, Response, SandboxMode, SandboxReport,
    TEMPLATE_ENGINE, WorkerExit, WorkerInfo,
};

use crate::link::Link;
use crate::serve::{Configured, Started, configure, fatal, serve_started, start};
use crate::{LinkEnds, Worker};

/// Eight bytes from the kernel's random source, for an engine's
/// [`forked`](crate::engine::Engine::forked): whatever the template drew
/// before the fork is every worker's alike.
pub fn fresh_seed() -> Result<u64, String> {
    let mut bytes = [0u8; 8];
    let mut filled = 0;
    while filled < bytes.len() {
        match rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(err) => return Err(format!("cannot draw a seed: {err}")),
        }
    }
    Ok(u64::from_le_bytes(bytes))
}

/// Forks the calling process with CLONE_PARENT (the new process is the
/// caller's parent's child), from a template's session thread; returns 0
/// in the child, the child's pid in the parent, and a negative number on
/// failure.
pub fn fork_beside() -> i64 {
    // SAFETY: clone with no new stack runs the child on a copy of this
    // one, as fork does. The template's one other thread, its main
    // thread, is blocked joining this one and holds no lock, so none is
    // copied held; the child has only this thread.
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
    sandbox: &mut SandboxReport,
    limits: &ConfigureLimits,
    payload: &[u8],
    forked: Option<&stockade_sandbox::Forked>,
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
    if sandbox.mode != SandboxMode::Off
        && let Some(seconds) = limits.cpu_seconds
        && let Err(why) = stockade_sandbox::rlimits::cpu(seconds)
    {
        return Err(fatal(&mut link, WorkerExit::Config, why));
    }
    match stockade_sandbox::enter_forked_worker(sandbox.has(Layer::Seccomp), forked) {
        Ok(notes) if notes.is_empty() => {
            sandbox
                .extras
                .push("forked from a template: its sandbox".into());
        }
        Ok(notes) => sandbox.extras.push(format!(
            "forked from a template: its sandbox, with {}",
            notes.join(", ")
        )),
        Err(err) => return Err(fatal(&mut link, WorkerExit::Config, err.to_string())),
    }
    match link.read_frame() {
        Ok(Some(sent)) if sent == payload => Ok(link),
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

/// Runs the template: configures and sandboxes it, starts its engine on a
/// thread with the session's deep stack, and forks workers from that
/// thread until the host closes the control socket: each worker's only
/// thread is a copy of it, engine and all, and serves its session and
/// ends the process. Returns the template's exit status.
pub(crate) fn serve_requests(worker: &Worker) -> i32 {
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
        return WorkerExit::Internal.code();
    };
    let mut link = Link::new(
        std::fs::File::from(input),
        std::fs::File::from(output),
        stockade_wire::WireLimits::default(),
    );
    let configured = match configure(worker, &mut link, true) {
        Ok(configured) => configured,
        Err(code) => return code,
    };
    if let Some(why) = refusal(&configured.sandbox) {
        return fatal(&mut link, WorkerExit::Config, why);
    }
    let (ends, fork) = (worker.link, worker.fork);
    let forking = std::thread::Builder::new()
        .name("session".into())
        .stack_size(crate::SESSION_STACK)
        .spawn(move || fork_started(configured, link, ends, control, fork));
    match forking {
        Ok(handle) => handle.join().unwrap_or(WorkerExit::Internal.code()),
        Err(err) => {
            crate::note(format_args!("template: cannot start its thread: {err}"));
            WorkerExit::Internal.code()
        }
    }
}

/// Tells the host the template is ready to fork, then closes `link`: the
/// requests come as messages with descriptors, read from the socket
/// itself, not through the link's buffer.
fn ready(link: Link, sandbox: &SandboxReport) {
    link.out.send_or_exit(&Response::Ready(WorkerInfo {
        protocol_version: PROTOCOL_VERSION,
        worker_version: env!("CARGO_PKG_VERSION").into(),
        engine: TEMPLATE_ENGINE.into(),
        sandbox: sandbox.clone(),
    }));
}

/// Forks a worker for each request: returns in each new worker with its
/// pipes, and in the template with its exit status once the host closes
/// the socket.
fn next_worker(socket: BorrowedFd<'_>, fork: fn() -> i64) -> Result<[OwnedFd; 3], i32> {
    loop {
        let pipes = match next_request(socket) {
            Ok(Some(pipes)) => pipes,
            Ok(None) => return Err(0),
            Err(why) => {
                crate::note(format_args!("template: {why}"));
                return Err(WorkerExit::Protocol.code());
            }
        };
        let pid = fork();
        if pid == 0 {
            return Ok(pipes);
        }
        drop(pipes);
        answer(socket, pid.max(0));
    }
}

/// On the template's session thread: starts the engine, answers Ready,
/// then forks a worker for each request. Returns only in the template.
fn fork_started(
    configured: Configured,
    mut link: Link,
    ends: LinkEnds,
    control: RawFd,
    fork: fn() -> i64,
) -> i32 {
    let mut started = match start(configured) {
        Ok(started) => started,
        Err(why) => return fatal(&mut link, WorkerExit::Config, why),
    };
    ready(link, &started.sandbox);
    // SAFETY: as in `serve_requests`.
    let socket = unsafe { BorrowedFd::borrow_raw(control) };
    let pipes = match next_worker(socket, fork) {
        Ok(pipes) => pipes,
        Err(status) => return status,
    };
    let Started {
        sandbox,
        limits,
        payload,
        forked,
        ..
    } = &mut started;
    let status = match become_worker(
        ends,
        control,
        pipes,
        sandbox,
        limits,
        payload,
        forked.as_ref(),
    ) {
        Ok(mut link) => match started.engine.forked() {
            Ok(()) => {
                // Again, in this copy: the pages the first feed writes are
                // still the template's, and copying them (a page fault
                // each) would otherwise fall to the session's first feed.
                started.engine.warm_up();
                serve_started(started, link)
            }
            Err(why) => fatal(&mut link, WorkerExit::Config, why),
        },
        Err(code) => code,
    };
    // This thread is the worker's only one (the template's main thread
    // was not copied): the process ends here.
    // SAFETY: _exit ends the process; nothing runs after it.
    unsafe { libc::_exit(status) }
}
