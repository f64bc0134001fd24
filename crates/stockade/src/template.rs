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
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
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
pub const MAX_TEMPLATES: usize = 4;

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
    /// The Configure the template's workers share (with no test-fire
    /// offer).
    key: Vec<u8>,
    /// The Configure frame the template was sent, which each of its
    /// workers is sent too.
    configure: Vec<u8>,
    process: Child,
    control: UnixStream,
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
/// Templates that failed to start, and when: not tried again for
/// [`RETRY_AFTER`], so each worker does not pay a failed start first.
static FAILED: Mutex<Vec<(Launch, Vec<u8>, Instant)>> = Mutex::new(Vec::new());
/// How long a template that failed to start is not tried again.
const RETRY_AFTER: Duration = Duration::from_secs(30);
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

/// The arguments that start `launch` as a template: the worker binary's
/// flag, or for CPython its boot code calling `template`.
fn template_args(launch: &Launch) -> Vec<OsString> {
    if !launch.args.iter().any(|arg| arg == crate::launch::BOOT) {
        let mut args = vec![OsString::from(TEMPLATE_FLAG)];
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

/// worker-core's `template::FLAG`: the worker binary's template mode.
const TEMPLATE_FLAG: &str = "--template";

/// Starts a template for `launch` and sends it `configure`; returns it
/// once it answers Ready.
fn start(launch: &Launch, key: &[u8], configure: Vec<u8>) -> std::io::Result<Template> {
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
        launch: launch.clone(),
        key: key.to_vec(),
        configure,
        process,
        control: ours,
    };
    template.control.set_read_timeout(Some(START_TIMEOUT))?;
    template.control.write_all(&template.configure)?;
    let limits = WireLimits::default();
    let answer = read_frame(&mut template.control, &limits)?
        .ok_or_else(|| std::io::Error::other("the template ended before it was ready"))?;
    match decode_response(&answer, &limits) {
        Ok(Response::Ready(_)) => Ok(template),
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
    let mut list = TEMPLATES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(at) = list
        .iter()
        .position(|t| t.launch == *launch && t.key == key)
    {
        // The most recently used goes last.
        let mut template = list.remove(at);
        match ask(&mut template) {
            Ok(forked) => {
                let frame = template.configure.clone();
                list.push(template);
                return Ok((forked, frame));
            }
            // Gone or broken: start it again, once.
            Err(_) => drop(template),
        }
    }
    let mut failed = FAILED.lock().unwrap_or_else(|e| e.into_inner());
    failed.retain(|(_, _, when)| when.elapsed() < RETRY_AFTER);
    if failed.iter().any(|(l, k, _)| l == launch && k == key) {
        return Err(std::io::Error::other(
            "the template for these options failed to start a short while ago",
        ));
    }
    let started = start(launch, key, configure).and_then(|mut template| {
        let forked = ask(&mut template)?;
        Ok((template, forked))
    });
    let (template, forked) = match started {
        Ok(started) => started,
        Err(err) => {
            // Bounded: one entry per distinct set of options.
            if failed.len() >= 4 * MAX_TEMPLATES {
                failed.remove(0);
            }
            failed.push((launch.clone(), key.to_vec(), Instant::now()));
            return Err(err);
        }
    };
    drop(failed);
    let frame = template.configure.clone();
    if list.len() >= MAX_TEMPLATES {
        drop(list.remove(0));
    }
    list.push(template);
    Ok((forked, frame))
}
