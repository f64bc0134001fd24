//! Templates, the host's side: one worker process per launch and
//! Configure that has started, prepared its engine and applied its
//! sandbox once, and forks workers on request (worker-core's `template.rs`
//! is the other side; docs/security.md says what a forked worker shares
//! with it and why that is safe). A worker forked this way is the host's
//! child, with its own pipes; it is sent the template's Configure and
//! answers Ready as any worker.
//!
//! The template is asked over a Unix socket (its stdin and stdout): first
//! its Configure, which it answers with Ready (or Fatal); then, for each
//! worker, one byte with the worker's stdin, stdout and stderr attached,
//! which it answers with the worker's pid. A template that is gone is
//! started again once; failing that, the caller starts the worker from
//! scratch. A process keeps at most [`MAX_TEMPLATES`], the least recently
//! used ending first.

use std::ffi::OsString;
use std::io::{IoSlice, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags, sendmsg};
use rustix::pipe::{PipeFlags, pipe_with};
use rustix::process::Pid;

use stockade_wire::{Response, WireLimits, decode_response, read_frame};

use crate::launch::Launch;

/// How long a template may take to fork one worker.
const FORK_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a new template may take to answer its Configure.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Templates one process keeps (each an idle process holding its engine).
pub(crate) const MAX_TEMPLATES: usize = 4;

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
    /// The Configure frame the template was sent, which each of its
    /// workers is sent too.
    configure: Vec<u8>,
    process: Child,
    control: UnixStream,
    born: Instant,
    forks: u32,
}

impl Template {
    /// Whether it has served long enough: its workers share its address
    /// layout and whatever secrets were drawn before the fork (docs/
    /// security.md), so each template serves a bounded share of them.
    fn retired(&self) -> bool {
        self.forks >= MAX_FORKS || self.born.elapsed() >= MAX_AGE
    }
}

impl Drop for Template {
    fn drop(&mut self) {
        // Closing the socket ends it; this reaps it.
        let _ = self.control.shutdown(std::net::Shutdown::Both);
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// The template of one launch and Configure, behind a lock of its own, so
/// that asking one template (or starting it, which may take seconds)
/// never holds up the others.
#[derive(Debug)]
struct Slot {
    launch: Launch,
    /// The Configure the template's workers share (with no test-fire
    /// offer).
    key: Vec<u8>,
    state: Mutex<SlotState>,
}

#[derive(Debug, Default)]
struct SlotState {
    template: Option<Template>,
    /// When a start last failed: not tried again for [`RETRY_AFTER`], so
    /// each worker does not pay a failed start first.
    failed_at: Option<Instant>,
}

/// The slots of this process, the most recently used last.
static SLOTS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());
/// How long a template that failed to start is not tried again.
const RETRY_AFTER: Duration = Duration::from_secs(30);
/// Workers one template forks before a new one takes its place.
const MAX_FORKS: u32 = 10_000;
/// How long one template serves before a new one takes its place.
const MAX_AGE: Duration = Duration::from_secs(600);
/// The process whose templates `SLOTS` holds (0 until the first use).
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

/// The arguments that start `launch` as a template: the worker binary's
/// flag, or for CPython its boot code calling `template`.
fn template_args(launch: &Launch) -> Vec<OsString> {
    if !launch.args.iter().any(|arg| arg == crate::launch::BOOT) {
        let mut args = vec![OsString::from(stockade_wire::TEMPLATE_FLAG)];
        args.extend(launch.args.iter().cloned());
        return args;
    }
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

/// Starts a template for `launch` and sends it `configure`; returns it
/// once it answers Ready.
fn start(launch: &Launch, configure: Vec<u8>) -> std::io::Result<Template> {
    let (ours, theirs) = UnixStream::pair()?;
    let theirs = OwnedFd::from(theirs);
    let process = Command::new(&launch.program)
        .args(template_args(launch))
        .env_clear()
        .envs(launch.env.iter().map(|(name, value)| (name, value)))
        .current_dir("/")
        .stdin(Stdio::from(theirs.try_clone()?))
        .stdout(Stdio::from(theirs))
        .stderr(Stdio::null())
        .spawn()?;
    let mut template = Template {
        configure,
        process,
        control: ours,
        born: Instant::now(),
        forks: 0,
    };
    template.control.set_read_timeout(Some(START_TIMEOUT))?;
    template.control.set_write_timeout(Some(START_TIMEOUT))?;
    template.control.write_all(&template.configure)?;
    let limits = WireLimits::default();
    let answer = read_frame(&mut template.control, &limits)?
        .ok_or_else(|| std::io::Error::other("the template ended before it was ready"))?;
    match decode_response(&answer, &limits) {
        Ok(Response::Ready(info)) => {
            check(&template, &info.sandbox)?;
            Ok(template)
        }
        Ok(Response::Fatal { message }) => Err(std::io::Error::other(format!(
            "the template refused its Configure: {message}"
        ))),
        Ok(other) => Err(std::io::Error::other(format!(
            "the template answered Configure with {}",
            other.name()
        ))),
        Err(err) => Err(std::io::Error::other(format!(
            "the template's answer is malformed: {err}"
        ))),
    }
}

/// The checks the host makes on each worker it starts from scratch, made
/// once on a template, for every worker it will fork: the host can read
/// its /proc, and every thread of it runs under the worker's three
/// filters (each worker is a copy of one of them and cannot shed them;
/// the fourth, narrowing one, each worker probes itself).
fn check(template: &Template, sandbox: &stockade_wire::SandboxReport) -> std::io::Result<()> {
    let pid = template.process.id();
    crate::supervisor::usage(pid)?;
    if sandbox.has(stockade_wire::Layer::Seccomp) && !crate::supervisor::all_threads_filtered(pid)?
    {
        return Err(std::io::Error::other(
            "a thread of the template runs without the seccomp filter",
        ));
    }
    Ok(())
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
    template.control.set_read_timeout(Some(FORK_TIMEOUT))?;
    let mut answer = [0u8; 8];
    template.control.read_exact(&mut answer)?;
    template.forks = template.forks.saturating_add(1);
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

/// The slot of `launch` and `key`, made (and the least recently used
/// one let go, if there are too many) if need be.
fn slot(launch: &Launch, key: &[u8]) -> Arc<Slot> {
    let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    let slot = match slots
        .iter()
        .position(|slot| slot.launch == *launch && slot.key == key)
    {
        Some(at) => slots.remove(at),
        None => {
            if slots.len() >= MAX_TEMPLATES {
                // Its template ends when the last caller using it is done.
                slots.remove(0);
            }
            Arc::new(Slot {
                launch: launch.clone(),
                key: key.to_vec(),
                state: Mutex::new(SlotState::default()),
            })
        }
    };
    slots.push(Arc::clone(&slot));
    slot
}

/// A worker for `launch` whose Configure is `key` (without a test-fire
/// offer), forked from its template (started with `configure` if need
/// be), with the Configure frame to send it.
pub(crate) fn fork(
    launch: &Launch,
    key: &[u8],
    configure: Vec<u8>,
) -> std::io::Result<(Forked, Vec<u8>)> {
    if !usable() {
        return Err(std::io::Error::other(
            "this process is a fork of the one whose templates these are",
        ));
    }
    let slot = slot(launch, key);
    let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(template) = state.template.as_mut().filter(|t| !t.retired()) {
        match ask(template) {
            Ok(forked) => return Ok((forked, template.configure.clone())),
            // Gone or broken: start it again, once.
            Err(err) => tracing::debug!("a template failed ({err}); starting another"),
        }
    }
    state.template = None;
    if state
        .failed_at
        .is_some_and(|when| when.elapsed() < RETRY_AFTER)
    {
        return Err(std::io::Error::other(
            "the template for these options failed to start a short while ago",
        ));
    }
    let started = start(launch, configure).and_then(|mut template| {
        let forked = ask(&mut template)?;
        Ok((template, forked))
    });
    match started {
        Ok((template, forked)) => {
            let frame = template.configure.clone();
            state.template = Some(template);
            state.failed_at = None;
            Ok((forked, frame))
        }
        Err(err) => {
            state.failed_at = Some(Instant::now());
            Err(err)
        }
    }
}
