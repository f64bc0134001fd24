//! `ctypes` in CPython guests (docs/security.md, "The CPython worker"):
//! guest code that calls the C library and the kernel directly, as native
//! code in any extension module could. What contains it is the sandbox's
//! OS layers, so each test here plays a guest firing raw system calls at
//! them, under `require`, in a worker forked from a template and in one
//! started from scratch.

use std::collections::BTreeSet;

use stockade::{Error, Interpreter, Language, SandboxMode, Session, SessionOptions, Value};
use stockade_sandbox::seccomp::KILLED;

fn require(spare: bool) -> Session {
    Session::new(
        SessionOptions::new(Language::Python)
            .engine(Interpreter::CPython)
            .sandbox(SandboxMode::Require)
            .spare(spare),
    )
    .expect("a CPython session starts under require")
}

/// `syscall(nr, *args)`: the kernel's answer, or minus the errno.
const SYSCALL: &str = "\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def syscall(nr, *args):
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *args)
    return -ctypes.get_errno() if r == -1 else r
def cpu_clock(pid, thread=False):
    return ((~pid) << 3) | 2 | (4 if thread else 0)
buf = ctypes.create_string_buffer(4096)
";

#[test]
fn ctypes_imports_and_calls_the_c_library() {
    for spare in [true, false] {
        let mut session = require(spare);
        let seen = session
            .run(&format!(
                "{SYSCALL}\n\
                 class Point(ctypes.Structure):\n    _fields_ = [('x', ctypes.c_int), ('y', ctypes.c_double)]\n\
                 p = Point(3, 0.5)\n\
                 [libc.getpid() == os.getpid(), libc.strlen(b'hello'), ctypes.sizeof(Point), p.x + p.y,\n\
                  syscall(39) == os.getpid()]"
            ))
            .unwrap();
        assert_eq!(
            seen,
            Value::List(vec![
                Value::Bool(true),
                Value::Int(5),
                Value::Int(16),
                Value::Float(3.5),
                Value::Bool(true),
            ]),
            "spare {spare}"
        );
    }
}

/// Calls the policy answers with an errno, each with what it must answer:
/// the network, other processes (the host is the parent), files of the
/// host, writable and executable memory, privileges, processes.
const DENIED: &str = "\
import socket
host = os.getppid()
# A pair of local sockets the guest may make, and an address it names.
ours, theirs = socket.socketpair()
pair = ours.fileno()
unix_address = ctypes.create_string_buffer(b'\\x01\\x00/tmp/sock', 110)
O_WRONLY, O_CREAT, AT_FDCWD = 0o1, 0o100, -100
answers = {
  'socket inet': syscall(41, 2, 1, 0),
  'socket unix': syscall(41, 1, 1, 0),
  'socketpair inet': syscall(53, 2, 1, 0, buf),
  'socketpair netlink': syscall(53, 16, 3, 0, buf),
  'connect a pair to a path': syscall(42, pair, unix_address, 110),
  'bind a pair to a path': syscall(49, pair, unix_address, 110),
  'send to an address': syscall(44, pair, b'x', 1, 0, unix_address, 110),
  'send out of band': syscall(44, pair, b'x', 1, 1, 0, 0),
  'receive out of band': syscall(45, pair, buf, 1, 1, 0, 0),
  'send a message (descriptors ride in those)': syscall(46, pair, buf, 0),
  'receive a message': syscall(47, pair, buf, 0),
  'set a socket option': syscall(54, pair, 1, 16, buf, 4),
  'kill the host': syscall(62, host, 9),
  'signal pid 1': syscall(62, 1, 0),
  'tgkill the host': syscall(234, host, host, 9),
  'prlimit the host': syscall(302, host, 7, 0, buf),
  'the host cpu clock': syscall(228, cpu_clock(host), buf),
  'pid 1 thread clock': syscall(228, cpu_clock(1, True), buf),
  'the host affinity': syscall(204, host, 128, buf),
  'open etc passwd': syscall(257, AT_FDCWD, b'/etc/passwd', 0),
  'create a file outside the scratch': syscall(257, AT_FDCWD, b'/owned', O_WRONLY | O_CREAT, 0o644),
  'a device in the scratch': syscall(259, AT_FDCWD, b'/tmp/null', 0o020600, (1 << 8) | 3),
  'a fifo in the scratch': syscall(259, AT_FDCWD, b'/tmp/fifo', 0o010600, 0),
  'hard link a library file into the scratch': syscall(265, AT_FDCWD, os.__file__.encode(), AT_FDCWD, b'/tmp/linked', 0),
  'chown in the scratch': syscall(92, b'/tmp', 0, 0),
  'write and exec memory': syscall(9, 0, 4096, 7, 0x22, -1, 0),
  'memfd': syscall(319, b'x', 0),
  'make dumpable': syscall(157, 4, 1),
  'setuid root': syscall(105, 0),
  'fork': syscall(57),
  'clone a process': syscall(56, 17, 0, 0, 0, 0),
  'sethostname': syscall(170, b'x', 1),
}
answers";

#[test]
fn system_calls_the_policy_denies_are_refused_to_ctypes() {
    for spare in [true, false] {
        let mut session = require(spare);
        let Value::Dict(answers) = session.run(&format!("{SYSCALL}\n{DENIED}")).unwrap() else {
            panic!("expected the answers");
        };
        for (call, answer) in &answers {
            let Value::Str(call) = call else {
                panic!("{call:?}")
            };
            // No such file in the empty root; the root is a read-only
            // mount; a link across mounts is refused by the kernel; every
            // other one EPERM (from the filter).
            let expected = match call.as_str() {
                "open etc passwd" => -2,
                "create a file outside the scratch" => -30,
                "hard link a library file into the scratch" => -18,
                _ => -1,
            };
            assert_eq!(answer, &Value::Int(expected), "{call} (spare {spare})");
        }
        assert_eq!(answers.len(), 32);
        assert_eq!(
            session.run("'still here'").unwrap(),
            Value::Str("still here".into())
        );
    }
}

/// Calls no worker makes legitimately, which kill it.
const KILLING: &[(&str, &str)] = &[
    ("ptrace", "syscall(101, 16, os.getppid(), 0, 0)"),
    ("mount", "syscall(165, b'none', b'/', b'tmpfs', 0, 0)"),
    ("unshare", "syscall(272, 0x10000000)"),
    ("bpf", "syscall(321, 0, buf, 64)"),
    ("io_uring_setup", "syscall(425, 8, buf)"),
    ("perf_event_open", "syscall(298, buf, 0, -1, -1, 0)"),
    ("execve", "syscall(59, b'/bin/sh', 0, 0)"),
    (
        "process_vm_readv",
        "syscall(310, os.getppid(), buf, 1, buf, 1, 0)",
    ),
    ("keyctl", "syscall(250, 0, 0, 0, 0, 0)"),
];

#[test]
fn system_calls_that_kill_a_worker_kill_it_from_ctypes_too() {
    for (name, call) in KILLING {
        let mut session = require(true);
        match session.run(&format!("{SYSCALL}\n{call}")) {
            Err(Error::Crashed(info)) => {
                assert_eq!(info.signal, Some(libc::SIGSYS), "{name}: {info:?}");
            }
            other => panic!("{name} should kill the worker, got {other:?}"),
        }
    }
    assert_eq!(require(true).run("6 * 7").unwrap(), Value::Int(42));
}

/// `uprobe`'s number.
const UPROBE: u32 = 336;

/// The call numbers a table of `docs/security.md`'s sweep lists, and
/// those of them whose result is `ended`.
fn documented(text: &str) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let mut listed = BTreeSet::new();
    let mut ended = BTreeSet::new();
    for line in text.lines() {
        let mut cells = line.split('|').map(str::trim).skip(1);
        let (Some(nr), Some(_), Some(result)) = (cells.next(), cells.next(), cells.next()) else {
            continue;
        };
        let Ok(nr) = nr.parse::<u32>() else {
            continue;
        };
        listed.insert(nr);
        // Those that end the caller, or wait forever with zero arguments.
        if result == "ended" || result == "blocked" {
            ended.insert(nr);
        }
    }
    (listed, ended)
}

#[test]
fn a_cpython_guests_own_sweep_lets_through_exactly_what_docs_security_md_lists() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/security.md"),
    )
    .unwrap();
    let section = doc
        .split("## The system-call sweep")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/security.md has the sweep's section");
    // The calls an interpreter's policy lets through: the table of every
    // worker's, and the one of what readable trees add.
    let (listed, ended) = documented(section);
    // Fired by the guest, in its own process: all but those that end it
    // (the kill list, and those the table says end the caller).
    let skipped: BTreeSet<u32> = KILLED
        .iter()
        .map(|(_, nr)| *nr as u32)
        .chain(ended.iter().copied())
        .collect();
    let skip: Vec<String> = skipped.iter().map(u32::to_string).collect();
    // Descriptor 0 closed, as the sweep of docs/security.md closes it, so
    // a call on it answers EBADF whatever it was.
    let code = format!(
        "{SYSCALL}\nos.close(0)\nskip = {{{}}}\n[[nr, syscall(nr, 0, 0, 0, 0, 0, 0)] for nr in range(512) if nr not in skip]",
        skip.join(", ")
    );
    for spare in [true, false] {
        let mut session = require(spare);
        let Value::List(fired) = session.run(&code).unwrap() else {
            panic!("expected the sweep");
        };
        let through: BTreeSet<u32> = fired
            .iter()
            .filter_map(|pair| match pair {
                Value::List(pair) => match (&pair[0], &pair[1]) {
                    // EPERM: denied by the filter; ENOSYS: clone3, answered so.
                    (Value::Int(nr), Value::Int(answer)) if ![-1, -38].contains(answer) => {
                        Some(*nr as u32)
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        // `uprobe` is let through by the kernels that have it, denied by
        // the rest: left out.
        let through: BTreeSet<u32> = through.into_iter().filter(|nr| *nr != UPROBE).collect();
        let expected: BTreeSet<u32> = listed
            .difference(&ended)
            .copied()
            .filter(|nr| *nr != UPROBE)
            .collect();
        assert_eq!(
            through, expected,
            "what the guest's sweep let through (spare {spare}) differs from docs/security.md"
        );
        assert_eq!(
            session.run("'still here'").unwrap(),
            Value::Str("still here".into())
        );
    }
}
