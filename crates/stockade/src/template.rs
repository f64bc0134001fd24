//! Template interpreters, the host's side: one CPython process per launch
//! (interpreter and engine module) that has paid its start-up once and
//! forks workers on request (stockade-cpython's `template.rs` says what a
//! forked worker shares with it and why that is safe). A worker forked
//! this way is the host's child, with its own pipes, and reads its own
//! Configure and applies its own sandbox, as any worker.
//!
//! The template is asked over a Unix socket (its stdin): one byte with the
//! worker's stdin, stdout and stderr attached; it answers with the worker's
//! pid. A template that is gone is started again once; failing that, the
//! caller starts the worker from scratch.

use std::ffi::OsString;
use std::io::{IoSlice, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags, sendmsg};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::Pid;

use crate::launch::Launch;

/// How long a template may take to fork one worker.
const FORK_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a new template may take before its first fork is answered.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A worker a template forked, with the host's ends of its pipes.
#[derive(Debug)]
pub(crate) struct Forked {
    pub pid: Pid,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

#[derive(Debug)]
struct Template {
    launch: Launch,
    process: Child,
    control: UnixStream,
    /// Whether it has forked a worker yet (the first answer waits for its
    /// start-up).
    started: bool,
}

impl Drop for Template {
    fn drop(&mut self) {
        // Closing the socket ends it; this reaps it.
        let _ = self.control.shutdown(std::net::Shutdown::Both);
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// The templates of this process.
static TEMPLATES: Mutex<Vec<Template>> = Mutex::new(Vec::new());
/// The process whose templates `TEMPLATES` holds (0 until the first use).
/// Read without the lock: a forked child of that process, where another
/// thread may have held the lock at the fork, never takes it, and starts
/// its workers from scratch.
static OWNER: AtomicU32 = AtomicU32::new(0);

fn usable() -> bool {
    let me = std::process::id();
    match OWNER.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => true,
        Err(owner) => owner == me,
    }
}

/// The code a template runs: as the worker's boot code, calling `template`.
fn template_args(launch: &Launch) -> Vec<OsString> {
    launch
        .args
        .iter()
        .map(|arg| {
            if arg == crate::launch::BOOT {
                crate::launch::BOOT
                    .replace("m.serve()", "m.template()")
                    .into()
            } else {
                arg.clone()
            }
        })
        .collect()
}

fn start(launch: &Launch) -> std::io::Result<Template> {
    let (ours, theirs) = UnixStream::pair()?;
    let process = Command::new(&launch.program)
        .args(template_args(launch))
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    Ok(Template {
        launch: launch.clone(),
        process,
        control: ours,
        started: false,
    })
}

/// Asks `template` for a worker.
fn ask(template: &mut Template) -> std::io::Result<Forked> {
    let cloexec = PipeFlags::CLOEXEC;
    let (worker_stdin, host_stdin) = pipe_with(cloexec)?;
    let (host_stdout, worker_stdout) = pipe_with(cloexec)?;
    let (host_stderr, worker_stderr) = pipe_with(cloexec)?;
    let fds = [
        worker_stdin.as_fd(),
        worker_stdout.as_fd(),
        worker_stderr.as_fd(),
    ];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut ancillary = SendAncillaryBuffer::new(&mut space);
    if !ancillary.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(std::io::Error::other("cannot attach the worker's pipes"));
    }
    sendmsg(
        &template.control,
        &[IoSlice::new(b"F")],
        &mut ancillary,
        SendFlags::NOSIGNAL,
    )?;
    // The worker has its own copies now.
    drop((worker_stdin, worker_stdout, worker_stderr));
    template
        .control
        .set_read_timeout(Some(if template.started {
            FORK_TIMEOUT
        } else {
            START_TIMEOUT
        }))?;
    let mut answer = [0u8; 8];
    template.control.read_exact(&mut answer)?;
    template.started = true;
    let pid = i64::from_le_bytes(answer);
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| std::io::Error::other("the template could not fork a worker"))?;
    Ok(Forked {
        pid,
        stdin: host_stdin,
        stdout: host_stdout,
        stderr: host_stderr,
    })
}

/// A worker for `launch`, forked from its template (started if need be).
pub(crate) fn fork(launch: &Launch) -> std::io::Result<Forked> {
    if !usable() {
        return Err(std::io::Error::other(
            "this process is a fork of the one whose templates these are",
        ));
    }
    let mut list = TEMPLATES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = list.iter().position(|t| t.launch == *launch) {
        match ask(&mut list[at]) {
            Ok(forked) => return Ok(forked),
            // Gone or broken: start it again, once.
            Err(_) => drop(list.remove(at)),
        }
    }
    let mut template = start(launch)?;
    let forked = ask(&mut template)?;
    list.push(template);
    Ok(forked)
}
