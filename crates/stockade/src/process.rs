//! One worker process: spawning it with an empty environment, and moving
//! frames over its pipes under deadlines without ever blocking past them.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::io::Errno;
use stockade_wire::{Frame, FrameReader, Response, WireLimits, peek_response_head};

use crate::channel::{ExitInfo, RecvError, SendError, decode, value_budget};
use crate::launch::{ConfigureFrames, Launch};
use crate::supervisor::{SupervisionLimits, Supervisor, Violation};
use crate::worker_child::WorkerChild;

/// How much of the worker's stderr is kept for error reports.
const STDERR_TAIL: usize = 8 * 1024;
/// How long the reader keeps trying non-blocking reads before it sleeps in
/// poll. A reply to a short turn usually lands within this window, and
/// catching it awake spares the host a sleep and a wake-up (a third of a
/// host call's cost, measured); a long turn pays at most this much CPU.
const RECV_SPIN: Duration = Duration::from_micros(50);
/// How long an exiting worker gets to be reaped before it is killed.
const REAP_GRACE: Duration = Duration::from_millis(200);
/// Encoded bytes a frame may have beyond its decoded budget: the fixed
/// fields of a message (a value never encodes larger than it decodes).
const FRAME_SLACK: u64 = 4 * 1024;

/// A spawned worker and the host's ends of its pipes.
#[derive(Debug)]
pub(crate) struct WorkerProcess {
    child: WorkerChild,
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: Option<OwnedFd>,
    frames: FrameReader,
    limits: WireLimits,
    stderr_tail: Vec<u8>,
    exit: Option<ExitInfo>,
    read_buf: Box<[u8]>,
    supervisor: Option<Supervisor>,
    /// The process that started the worker. A forked child inherits this
    /// value (and the pipes) but must never signal or reap the worker.
    owner: u32,
    /// Whether waiting for its replies may spin: not before its Ready,
    /// which takes a start far longer than a spin.
    started: bool,
}

/// Host threads now waiting for a worker's reply. Each waits for a worker
/// that needs a core to answer, so a thread spins only while the spinners
/// and their workers fit the machine's cores: past that, spinning takes
/// the core a worker needs (two threads running short sessions on two
/// cores made 15 to 20 % fewer of them with both spinning).
static RECEIVING: AtomicUsize = AtomicUsize::new(0);

/// Counts one thread in [`RECEIVING`] while it lives.
struct Receiving;

impl Receiving {
    /// Enters, and says how long this thread may spin.
    fn enter() -> (Self, Duration) {
        static SPINNERS: OnceLock<usize> = OnceLock::new();
        let spinners = *SPINNERS.get_or_init(|| {
            std::thread::available_parallelism().map_or(1, |cores| (cores.get() / 2).max(1))
        });
        let waiting = RECEIVING.fetch_add(1, Ordering::Relaxed) + 1;
        let spin = if waiting <= spinners {
            RECV_SPIN
        } else {
            Duration::ZERO
        };
        (Self, spin)
    }
}

impl Drop for Receiving {
    fn drop(&mut self) {
        RECEIVING.fetch_sub(1, Ordering::Relaxed);
    }
}

fn set_nonblocking(fd: &OwnedFd) -> std::io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

fn timespec(d: Duration) -> Timespec {
    Timespec {
        tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(d.subsec_nanos()),
    }
}

impl WorkerProcess {
    /// Starts the worker with an empty environment and piped stdio: forked
    /// from a template when the launch asks for one and one can be had,
    /// else spawned. Returns it with the Configure frame to send it (a
    /// forked worker must be sent its template's).
    pub(crate) fn spawn(
        launch: &Launch,
        limits: WireLimits,
        configure: ConfigureFrames,
    ) -> std::io::Result<(Self, Vec<u8>)> {
        if launch.template {
            match crate::template::fork(launch, &configure.key, configure.template) {
                Ok((forked, frame)) => {
                    let worker = Self::with(
                        WorkerChild::forked(forked.pid),
                        forked.stdin,
                        forked.stdout,
                        forked.stderr,
                        limits,
                    )?;
                    return Ok((worker, frame));
                }
                Err(err) => {
                    tracing::debug!("no template ({err}); starting the worker from scratch")
                }
            }
        }
        let mut child = Command::new(&launch.program)
            .args(&launch.args)
            .env_clear()
            .envs(launch.env.iter().map(|(name, value)| (name, value)))
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr)) = pipes else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::other("the worker's pipes were not created"));
        };
        let worker = Self::with(
            WorkerChild::Spawned(child),
            OwnedFd::from(stdin),
            OwnedFd::from(stdout),
            OwnedFd::from(stderr),
            limits,
        )?;
        Ok((worker, configure.worker))
    }

    /// The worker answered Ready: waiting for its replies may spin now.
    pub(crate) fn mark_started(&mut self) {
        self.started = true;
    }

    /// Whether a template forked this worker.
    pub(crate) fn is_forked(&self) -> bool {
        matches!(self.child, WorkerChild::Forked { .. })
    }

    fn with(
        child: WorkerChild,
        stdin: OwnedFd,
        stdout: OwnedFd,
        stderr: OwnedFd,
        limits: WireLimits,
    ) -> std::io::Result<Self> {
        for fd in [&stdin, &stdout, &stderr] {
            set_nonblocking(fd)?;
        }
        Ok(Self {
            child,
            stdin,
            stdout,
            stderr: Some(stderr),
            frames: FrameReader::new(&limits),
            limits,
            stderr_tail: Vec::new(),
            exit: None,
            read_buf: vec![0u8; 64 * 1024].into_boxed_slice(),
            supervisor: None,
            owner: std::process::id(),
            started: false,
        })
    }

    /// The worker's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts the supervisor thread for this worker.
    pub(crate) fn supervise(&mut self, limits: SupervisionLimits) -> std::io::Result<()> {
        self.supervisor = Some(Supervisor::start(self.pid(), limits)?);
        Ok(())
    }

    /// The worker is sent work: its supervisor starts looking.
    pub(crate) fn arm_supervisor(&self) {
        if let Some(supervisor) = &self.supervisor {
            supervisor.arm();
        }
    }

    /// Why the supervisor killed the worker, if it did.
    pub(crate) fn violation(&self) -> Option<Violation> {
        self.supervisor.as_ref().and_then(Supervisor::verdict)
    }

    /// Stops the supervisor, which must not signal a pid that is reaped.
    fn stop_supervisor(&mut self) {
        if let Some(supervisor) = &mut self.supervisor {
            supervisor.stop();
        }
    }

    /// Waits until one of the fds is ready or the deadline passes; returns
    /// false on the deadline.
    fn wait_ready(&mut self, want_write: bool, deadline: Option<Instant>) -> std::io::Result<bool> {
        loop {
            let timeout = match deadline {
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Ok(false);
                    }
                    Some(timespec(deadline - now))
                }
                None => None,
            };
            let (main_fd, main_events) = if want_write {
                (self.stdin.as_fd(), PollFlags::OUT)
            } else {
                (self.stdout.as_fd(), PollFlags::IN)
            };
            let mut fds = Vec::with_capacity(2);
            fds.push(PollFd::from_borrowed_fd(main_fd, main_events));
            if let Some(stderr) = &self.stderr {
                fds.push(PollFd::from_borrowed_fd(stderr.as_fd(), PollFlags::IN));
            }
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) => continue,
                Ok(_) => {
                    let main_ready = !fds[0].revents().is_empty();
                    let stderr_ready = fds.get(1).is_some_and(|fd| !fd.revents().is_empty());
                    drop(fds);
                    if stderr_ready {
                        self.drain_stderr();
                    }
                    if main_ready {
                        return Ok(true);
                    }
                }
                Err(Errno::INTR) => continue,
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// Reads what stderr has, keeping the last few KiB.
    fn drain_stderr(&mut self) {
        let Some(stderr) = &self.stderr else { return };
        loop {
            match rustix::io::read(stderr, &mut self.read_buf[..]) {
                Ok(0) => {
                    self.stderr = None;
                    return;
                }
                Ok(n) => {
                    self.stderr_tail.extend_from_slice(&self.read_buf[..n]);
                    if self.stderr_tail.len() > STDERR_TAIL {
                        let cut = self.stderr_tail.len() - STDERR_TAIL;
                        self.stderr_tail.drain(..cut);
                    }
                }
                Err(Errno::INTR) => {}
                Err(_) => return,
            }
        }
    }

    /// Bounds the values of every later response to `bytes` decoded (as
    /// the wire counts them): a frame that could not decode within that is
    /// skipped as it arrives and reported as `RecvError::TooLarge`. Every
    /// message still gets `MESSAGE_ALLOWANCE`, so prints and errors pass
    /// whatever the limit; the caller checks smaller values itself.
    pub(crate) fn limit_values(&mut self, bytes: u64) {
        let budget = value_budget(bytes);
        self.limits.max_decoded_bytes = budget;
        self.frames
            .set_accept(usize::try_from(budget.saturating_add(FRAME_SLACK)).unwrap_or(usize::MAX));
    }

    /// The decoded bytes a value may take before the wire itself refuses it.
    pub(crate) fn value_budget(&self) -> u64 {
        self.limits.max_decoded_bytes
    }

    /// Writes a whole frame before `deadline`.
    pub(crate) fn send(&mut self, frame: &[u8], deadline: Instant) -> Result<(), SendError> {
        if !self.owned() {
            return Err(SendError::Forked);
        }
        let mut written = 0;
        while written < frame.len() {
            match rustix::io::write(&self.stdin, &frame[written..]) {
                Ok(n) => written += n,
                Err(Errno::AGAIN) => match self.wait_ready(true, Some(deadline)) {
                    Ok(true) => {}
                    Ok(false) => return Err(SendError::Stalled),
                    Err(err) => return Err(SendError::Io(err)),
                },
                Err(Errno::INTR) => {}
                Err(Errno::PIPE) => return Err(SendError::Closed),
                Err(err) => return Err(SendError::Io(err.into())),
            }
        }
        Ok(())
    }

    /// Receives the next response, waiting at most until `deadline`, which
    /// is checked between frames too: a worker that keeps its pipe full
    /// never holds the host past it.
    pub(crate) fn recv(&mut self, deadline: Option<Instant>) -> Result<Response, RecvError> {
        self.receive(deadline, true)
    }

    /// What the worker has already sent, without waiting: the next frame
    /// buffered or in the pipe, else `RecvError::Deadline`.
    pub(crate) fn recv_sent(&mut self) -> Result<Response, RecvError> {
        self.receive(Some(Instant::now()), false)
    }

    fn receive(
        &mut self,
        deadline: Option<Instant>,
        between_frames: bool,
    ) -> Result<Response, RecvError> {
        if !self.owned() {
            return Err(RecvError::Forked);
        }
        let (_receiving, spin) = Receiving::enter();
        let spin_until = Instant::now() + if self.started { spin } else { Duration::ZERO };
        loop {
            if between_frames && deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                return Err(RecvError::Deadline);
            }
            let limits = self.limits;
            let frame = self
                .frames
                .next_with(|payload| decode(payload, &limits))
                .map_err(RecvError::Malformed)?;
            match frame {
                Some(Frame::Whole(decoded)) => return decoded,
                Some(Frame::Skipped { head, len }) => {
                    return Err(RecvError::TooLarge {
                        head: peek_response_head(&head),
                        encoded: len as u64,
                    });
                }
                None => {}
            }
            match rustix::io::read(&self.stdout, &mut self.read_buf[..]) {
                Ok(0) => return Err(RecvError::Closed),
                Ok(n) => self.frames.extend(&self.read_buf[..n]),
                Err(Errno::AGAIN) if Instant::now() < spin_until => std::hint::spin_loop(),
                Err(Errno::AGAIN) => match self.wait_ready(false, deadline) {
                    Ok(true) => {}
                    Ok(false) => return Err(RecvError::Deadline),
                    Err(err) => return Err(RecvError::Io(err)),
                },
                Err(Errno::INTR) => {}
                Err(err) => return Err(RecvError::Io(err.into())),
            }
        }
    }

    /// Kills the worker (if it still runs) and reaps it. A forked child
    /// does neither: the worker is its parent's.
    pub(crate) fn kill(&mut self) -> ExitInfo {
        if let Some(exit) = self.exit {
            return exit;
        }
        if !self.owned() {
            return ExitInfo::default();
        }
        let _ = self.child.kill();
        self.reap_now()
    }

    /// Gives an exiting worker a moment to finish, then kills it; returns
    /// how it ended.
    pub(crate) fn reap(&mut self) -> ExitInfo {
        if let Some(exit) = self.exit {
            return exit;
        }
        if !self.owned() {
            return ExitInfo::default();
        }
        let deadline = Instant::now() + REAP_GRACE;
        self.stop_supervisor();
        // A worker told to close exits within a few hundred microseconds:
        // poll often at first, then back off.
        let mut pause = Duration::from_micros(20);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    let exit = ExitInfo {
                        code: status.code(),
                        signal: status.signal(),
                    };
                    self.exit = Some(exit);
                    self.drain_stderr();
                    return exit;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(1));
                }
                _ => return self.kill(),
            }
        }
    }

    fn reap_now(&mut self) -> ExitInfo {
        self.stop_supervisor();
        let exit = match self.child.wait() {
            Ok(status) => ExitInfo {
                code: status.code(),
                signal: status.signal(),
            },
            Err(_) => ExitInfo::default(),
        };
        self.exit = Some(exit);
        self.drain_stderr();
        exit
    }

    /// The last non-empty line the worker wrote to stderr.
    pub(crate) fn last_stderr_line(&self) -> Option<String> {
        let text = String::from_utf8_lossy(&self.stderr_tail);
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_owned())
    }
}

impl WorkerProcess {
    /// Whether this process started the worker (false in a forked child).
    pub(crate) fn owned(&self) -> bool {
        self.owner == std::process::id()
    }

    /// The process that started the worker.
    pub(crate) fn owner(&self) -> u32 {
        self.owner
    }

    /// Whether the worker still runs (and its supervisor saw nothing
    /// wrong); a worker found dead is reaped.
    pub(crate) fn alive(&mut self) -> bool {
        if self.exit.is_some() || self.violation().is_some() {
            return false;
        }
        match self.child.try_wait() {
            Ok(None) => true,
            Ok(Some(status)) => {
                self.exit = Some(ExitInfo {
                    code: status.code(),
                    signal: status.signal(),
                });
                self.stop_supervisor();
                false
            }
            Err(_) => false,
        }
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        // In a forked child the worker is the parent's: closing the child's
        // copies of the pipes is all it may do. The supervisor thread did
        // not survive the fork, so its handle must not be joined either.
        if self.owned() {
            // Killed now, reaped off the caller's path (reaper.rs).
            if self.exit.is_none() {
                let child = std::mem::replace(&mut self.child, WorkerChild::Handed);
                crate::reaper::kill_and_reap_later(child, self.supervisor.take());
            }
        } else if let Some(supervisor) = self.supervisor.take() {
            std::mem::forget(supervisor);
        }
    }
}
