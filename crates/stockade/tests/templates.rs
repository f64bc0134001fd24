//! Templates: a worker started once, sandboxed once, that forks the
//! workers of library sessions and pools (docs/security.md, "Workers
//! forked from a template"). The attacks of a forked worker on its
//! template and siblings are in stockade-sandbox's red-team suite (raw
//! system calls) and cpython.rs (from guest code).

use std::io::{IoSlice, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags, sendmsg};
use rustix::pipe::{PipeFlags, pipe_with};
use stockade::{
    Interpreter, Language, Pool, PoolOptions, SandboxMode, Session, SessionOptions, Value,
};
use stockade_wire::{
    ConfigureLimits, EngineConfig, PROTOCOL_VERSION, Request, Response, WireLimits,
    decode_response, encode_request, read_frame,
};

fn worker_binary() -> std::path::PathBuf {
    std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("stockade-worker")
}

fn parent_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("PPid:").map(|p| p.trim().to_owned()))
        .unwrap_or_default()
}

#[test]
fn library_sessions_of_every_engine_fork_from_a_sandboxed_template() {
    for (language, engine) in [
        (Language::Python, Interpreter::Monty),
        (Language::JavaScript, Interpreter::QuickJs),
        (Language::Python, Interpreter::CPython),
    ] {
        let options = SessionOptions::new(language)
            .engine(engine)
            .sandbox(SandboxMode::Require);
        let mut session = Session::new(options).expect("starts");
        let info = session.worker_info().clone();
        assert!(info.sandbox.missing.is_empty(), "{engine:?}: {info:?}");
        assert!(
            info.sandbox
                .extras
                .iter()
                .any(|e| e.contains("forked from a template")),
            "{engine:?}: {info:?}"
        );
        assert_eq!(
            parent_of(session.worker_pid()),
            std::process::id().to_string()
        );
        let code = match language {
            Language::JavaScript => "[1, 2, 3].map(x => x * 2).length",
            Language::Python => "len([x * 2 for x in [1, 2, 3]])",
        };
        assert_eq!(session.run(code).unwrap(), Value::Int(3), "{engine:?}");
    }
}

#[test]
fn a_one_off_session_starts_its_worker_from_scratch() {
    let session = Session::new(SessionOptions::new(Language::JavaScript).spare(false)).unwrap();
    let extras = &session.worker_info().sandbox.extras;
    assert!(
        !extras.iter().any(|e| e.contains("forked from a template")),
        "{extras:?}"
    );
}

fn configure(max_output_bytes: u64) -> Vec<u8> {
    let request = Request::Configure {
        protocol_version: PROTOCOL_VERSION,
        package_version: "test".into(),
        engine: EngineConfig::Python,
        sandbox: SandboxMode::Require,
        limits: ConfigureLimits {
            max_duration_us: Some(5_000_000),
            max_memory: Some(64 << 20),
            max_recursion_depth: 200,
            print_flush_bytes: 8192,
            print_flush_interval_us: 5000,
            cpu_seconds: Some(30),
            max_output_bytes,
        },
        verified_seccomp: None,
    };
    encode_request(&request, &WireLimits::default()).unwrap()
}

/// Starts the worker binary as a template, configured with `configure`.
fn template() -> (std::process::Child, UnixStream) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let theirs = OwnedFd::from(theirs);
    let child = Command::new(worker_binary())
        .arg(stockade_wire::TEMPLATE_FLAG)
        .env_clear()
        .stdin(Stdio::from(theirs.try_clone().unwrap()))
        .stdout(Stdio::from(theirs))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut ours = ours;
    ours.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    ours.write_all(&configure(1 << 20)).unwrap();
    let ready = read_frame(&mut ours, &WireLimits::default())
        .unwrap()
        .unwrap();
    match decode_response(&ready, &WireLimits::default()).unwrap() {
        Response::Ready(info) => {
            assert_eq!(info.engine, stockade_wire::TEMPLATE_ENGINE);
            assert!(info.sandbox.missing.is_empty(), "{info:?}");
        }
        other => panic!("the template answered {other:?}"),
    }
    (child, ours)
}

/// Asks the template for a worker: its pid and the host's ends of its
/// stdin and stdout.
fn fork(control: &UnixStream) -> (i32, OwnedFd, OwnedFd) {
    let (worker_in, host_in) = pipe_with(PipeFlags::CLOEXEC).unwrap();
    let (host_out, worker_out) = pipe_with(PipeFlags::CLOEXEC).unwrap();
    let (_host_err, worker_err) = pipe_with(PipeFlags::CLOEXEC).unwrap();
    let fds = [worker_in.as_fd(), worker_out.as_fd(), worker_err.as_fd()];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut ancillary = SendAncillaryBuffer::new(&mut space);
    assert!(ancillary.push(SendAncillaryMessage::ScmRights(&fds)));
    sendmsg(
        control,
        &[IoSlice::new(b"F")],
        &mut ancillary,
        SendFlags::empty(),
    )
    .unwrap();
    let mut pid = [0u8; 8];
    (&*control).read_exact(&mut pid).unwrap();
    (i64::from_le_bytes(pid) as i32, host_in, host_out)
}

fn reap(pid: i32) {
    let mut status = 0;
    // SAFETY: waits for this test's own child (the template forked it
    // beside itself, so this process is its parent).
    unsafe { libc::waitpid(pid, &mut status, 0) };
}

#[test]
fn a_worker_forked_from_a_template_must_be_configured_as_the_template_was() {
    let (mut process, control) = template();
    // Configured the same: Ready.
    let (pid, host_in, host_out) = fork(&control);
    assert!(pid > 0);
    std::fs::File::from(host_in)
        .write_all(&configure(1 << 20))
        .unwrap();
    let mut out = std::fs::File::from(host_out);
    let reply = read_frame(&mut out, &WireLimits::default())
        .unwrap()
        .unwrap();
    assert!(matches!(
        decode_response(&reply, &WireLimits::default()).unwrap(),
        Response::Ready(_)
    ));
    // Configured otherwise (another output limit): refused before Ready.
    let (other, host_in, host_out) = fork(&control);
    assert!(other > 0 && other != pid);
    std::fs::File::from(host_in)
        .write_all(&configure(1 << 10))
        .unwrap();
    let mut out = std::fs::File::from(host_out);
    let reply = read_frame(&mut out, &WireLimits::default())
        .unwrap()
        .unwrap();
    match decode_response(&reply, &WireLimits::default()).unwrap() {
        Response::Fatal { message } => {
            assert!(
                message.contains("configured as the template was"),
                "{message}"
            )
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // Closing the socket ends the template.
    drop(control);
    assert!(process.wait().unwrap().success());
    // SAFETY: ends this test's own child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    reap(pid);
    reap(other);
}

#[test]
fn javascript_workers_of_one_template_draw_their_own_random_numbers_and_clock() {
    let pool = Pool::new(
        SessionOptions::new(Language::JavaScript),
        PoolOptions {
            size: 1,
            max_concurrent_starts: 1,
        },
    )
    .unwrap();
    assert!(pool.wait_ready(Duration::from_secs(20)));
    // The template's context is more than a second old when the next
    // workers are forked...
    std::thread::sleep(Duration::from_millis(1100));
    let mut draws = Vec::new();
    for _ in 0..3 {
        let mut worker = pool.checkout().unwrap();
        draws.push(worker.run("Math.random()").unwrap());
        drop(worker);
        assert!(pool.wait_ready(Duration::from_secs(20)));
    }
    // ...and performance.now() counts from each worker's start, not its
    // template's (this one was forked a moment ago, to refill the pool).
    let mut fresh = pool.checkout().unwrap();
    match fresh.run("performance.now()").unwrap() {
        Value::Float(ms) => assert!((0.0..1000.0).contains(&ms), "{ms}"),
        Value::Int(ms) => assert!((0..1000).contains(&ms), "{ms}"),
        other => panic!("{other:?}"),
    }
    assert_ne!(draws[0], draws[1]);
    assert_ne!(draws[1], draws[2]);
    assert_ne!(draws[0], draws[2]);
}

#[test]
fn workers_run_in_the_normal_scheduling_class_whoever_started_them() {
    // The host's background starters run as SCHED_BATCH; a thread of the
    // application may too. A worker (and a template) started from such a
    // thread puts itself back in the normal class.
    let policies = std::thread::spawn(|| {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets this test thread's own policy; `param` lives for the call.
        let set = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
        assert_eq!(set, 0);
        [false, true].map(|spare| {
            let options = SessionOptions::new(Language::JavaScript)
                .max_duration(Duration::from_secs(31))
                .spare(spare);
            let mut session = Session::new(options).expect("starts");
            assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
            // SAFETY: reads the policy of this test's own child.
            unsafe { libc::sched_getscheduler(session.worker_pid() as i32) }
        })
    })
    .join()
    .unwrap();
    assert_eq!(policies, [libc::SCHED_OTHER, libc::SCHED_OTHER]);
}
