//! A compromised worker, for the red-team tests only (an example: never
//! part of a release build). It applies the production sandbox exactly as
//! the worker does, then fires system calls directly and prints one line per
//! attempt: `<label> ok <return>` or `<label> err <errno>`.
//!
//! Usage: `redteam [--forked] [--cpu SECONDS] [--skip LAYER]...
//! [--readable PATH]... [--hidden PATH]... <command> [args]`, where
//! `--forked` applies a template's sandbox and runs the command in a
//! worker forked from it (the way the host's templates fork workers),
//! beside a sibling worker, with the attacks on the template and the
//! sibling added to `attacks`; and command is
//! `report`, `fire NAME [PATTERN]` (one call from the kill list, with one
//! of the junk argument patterns), `denied`, `attacks`, `files PATH...`
//! (for each path: read it, list it, write into it, create beside it),
//! `allowed`, `hold` (wait, so the test can look at the process), `burn`
//! (spin until RLIMIT_CPU, set with `--cpu SECONDS`, stops it) or
//! `sweep [LAST [DIR...]]` (every system-call number, each in a fresh
//! sandboxed child, with DIRs as readable trees).

use std::ffi::CString;

use stockade_sandbox::{Layer, SandboxConfig, SandboxMode, seccomp::KILLED};

/// Junk argument patterns each denied call is fired with.
const JUNK: [[u64; 6]; 4] = [
    [0; 6],
    [u64::MAX; 6],
    [1, 2, 3, 4, 5, 6],
    [0x7fff_0000_0000, 0xdead_beef, 0x1000, 0xffff_ffff, 0, 1],
];

/// Calls that must answer EPERM (or ENOSYS where noted), by group.
const DENIED: &[(&str, i64)] = &[
    // new processes and other processes
    ("fork", libc::SYS_fork),
    ("vfork", libc::SYS_vfork),
    ("pidfd_open", libc::SYS_pidfd_open),
    ("pidfd_send_signal", libc::SYS_pidfd_send_signal),
    ("tkill", libc::SYS_tkill),
    ("wait4", libc::SYS_wait4),
    // sockets
    ("socket", libc::SYS_socket),
    ("socketpair", libc::SYS_socketpair),
    ("connect", libc::SYS_connect),
    ("bind", libc::SYS_bind),
    ("listen", libc::SYS_listen),
    ("accept", libc::SYS_accept),
    ("accept4", libc::SYS_accept4),
    ("sendto", libc::SYS_sendto),
    ("recvfrom", libc::SYS_recvfrom),
    ("sendmsg", libc::SYS_sendmsg),
    // files
    ("open", libc::SYS_open),
    ("openat", libc::SYS_openat),
    ("openat2", libc::SYS_openat2),
    ("creat", libc::SYS_creat),
    ("stat", libc::SYS_stat),
    ("newfstatat", libc::SYS_newfstatat),
    ("statx", libc::SYS_statx),
    ("unlink", libc::SYS_unlink),
    ("rename", libc::SYS_rename),
    ("mkdir", libc::SYS_mkdir),
    ("symlink", libc::SYS_symlink),
    ("link", libc::SYS_link),
    ("truncate", libc::SYS_truncate),
    ("memfd_create", libc::SYS_memfd_create),
    ("dup", libc::SYS_dup),
    ("ioctl", libc::SYS_ioctl),
    // SysV and POSIX IPC, inotify, fanotify
    ("shmget", libc::SYS_shmget),
    ("shmat", libc::SYS_shmat),
    ("shmctl", libc::SYS_shmctl),
    ("semget", libc::SYS_semget),
    ("semop", libc::SYS_semop),
    ("msgget", libc::SYS_msgget),
    ("msgsnd", libc::SYS_msgsnd),
    ("mq_open", libc::SYS_mq_open),
    ("mq_unlink", libc::SYS_mq_unlink),
    ("inotify_init1", libc::SYS_inotify_init1),
    ("inotify_add_watch", libc::SYS_inotify_add_watch),
    ("fanotify_init", libc::SYS_fanotify_init),
    ("fanotify_mark", libc::SYS_fanotify_mark),
    // permissions, times, extended attributes
    ("chmod", libc::SYS_chmod),
    ("fchmod", libc::SYS_fchmod),
    ("fchmodat", libc::SYS_fchmodat),
    ("chown", libc::SYS_chown),
    ("fchown", libc::SYS_fchown),
    ("lchown", libc::SYS_lchown),
    ("fchownat", libc::SYS_fchownat),
    ("utime", libc::SYS_utime),
    ("utimes", libc::SYS_utimes),
    ("utimensat", libc::SYS_utimensat),
    ("setxattr", libc::SYS_setxattr),
    ("fsetxattr", libc::SYS_fsetxattr),
    ("getxattr", libc::SYS_getxattr),
    ("removexattr", libc::SYS_removexattr),
    // identity, clocks, host names, sync
    ("setuid", libc::SYS_setuid),
    ("setgid", libc::SYS_setgid),
    ("setreuid", libc::SYS_setreuid),
    ("setresuid", libc::SYS_setresuid),
    ("setresgid", libc::SYS_setresgid),
    ("setgroups", libc::SYS_setgroups),
    ("setfsuid", libc::SYS_setfsuid),
    ("capset", libc::SYS_capset),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("adjtimex", libc::SYS_adjtimex),
    ("sethostname", libc::SYS_sethostname),
    ("setdomainname", libc::SYS_setdomainname),
    ("sync", libc::SYS_sync),
    ("syncfs", libc::SYS_syncfs),
    // sandbox and scheduling controls
    ("landlock_create_ruleset", libc::SYS_landlock_create_ruleset),
    ("sched_setaffinity", libc::SYS_sched_setaffinity),
    ("setpriority", libc::SYS_setpriority),
    ("mlock", libc::SYS_mlock),
    ("uname", libc::SYS_uname),
];

fn raw(nr: i64, args: [u64; 6]) -> Result<i64, i32> {
    // SAFETY: a compromised worker firing raw system calls is the point of
    // this program. Every call here is denied by the sandbox before it can
    // touch memory; the allowed ones are given valid arguments by callers.
    let rc = unsafe { libc::syscall(nr, args[0], args[1], args[2], args[3], args[4], args[5]) };
    if rc < 0 {
        Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
    } else {
        Ok(rc)
    }
}

/// Reports a process-creating call; a child that was created leaves at once.
fn say_spawn(label: &str, result: Result<i64, i32>) {
    if result == Ok(0) {
        // SAFETY: the freshly created child ends at once, touching nothing.
        unsafe { libc::_exit(0) }
    }
    say(label, result);
}

fn say(label: &str, result: Result<i64, i32>) {
    match result {
        Ok(rc) => println!("{label} ok {rc}"),
        Err(errno) => println!("{label} err {errno}"),
    }
}

fn path(p: &str) -> CString {
    CString::new(p).unwrap_or_default()
}

/// The kernel's id of `pid`'s CPU clock (of its thread `pid` when
/// `thread`): `(~pid << 3) | CPUCLOCK_SCHED`, as a 32-bit `clockid_t`.
fn cpu_clock(pid: i64, thread: bool) -> u64 {
    let id = ((!pid) << 3) | 2 | if thread { 4 } else { 0 };
    u64::from(id as u32)
}

/// What another process's CPU clocks and affinity tell: each attempt on
/// `pid` (labels `NAME-clock`, `NAME-thread-clock`, `NAME-clock-res`,
/// `NAME-clock-sleep`, `NAME-futex-owner`, `NAME-affinity`).
fn process_probes(name: &str, pid: i64) {
    let mut time = [0u64; 2];
    let ts = time.as_mut_ptr() as u64;
    say(
        &format!("{name}-clock"),
        raw(
            libc::SYS_clock_gettime,
            [cpu_clock(pid, false), ts, 0, 0, 0, 0],
        ),
    );
    say(
        &format!("{name}-thread-clock"),
        raw(
            libc::SYS_clock_gettime,
            [cpu_clock(pid, true), ts, 0, 0, 0, 0],
        ),
    );
    say(
        &format!("{name}-clock-res"),
        raw(
            libc::SYS_clock_getres,
            [cpu_clock(pid, false), ts, 0, 0, 0, 0],
        ),
    );
    let zero = [0u64; 2];
    say(
        &format!("{name}-clock-sleep"),
        raw(
            libc::SYS_clock_nanosleep,
            [
                cpu_clock(pid, false),
                libc::TIMER_ABSTIME as u64,
                zero.as_ptr() as u64,
                0,
                0,
                0,
            ],
        ),
    );
    // A priority-inheritance futex whose word names `pid` as its owner:
    // the kernel looks the owner up among every task, and would answer
    // ESRCH for a pid that does not exist.
    let word = std::sync::atomic::AtomicU32::new(pid as u32);
    say(
        &format!("{name}-futex-owner"),
        raw(
            libc::SYS_futex,
            [
                word.as_ptr() as u64,
                (libc::FUTEX_TRYLOCK_PI | libc::FUTEX_PRIVATE_FLAG) as u64,
                0,
                0,
                0,
                0,
            ],
        ),
    );
    let mut mask = [0u8; 128];
    say(
        &format!("{name}-affinity"),
        raw(
            libc::SYS_sched_getaffinity,
            [pid as u64, 128, mask.as_mut_ptr() as u64, 0, 0, 0],
        ),
    );
}

fn attacks(seccomp_on: bool) {
    let parent = rustix::process::getppid().map_or(1, |p| p.as_raw_nonzero().get());
    process_probes("parent", i64::from(parent));
    process_probes("init", 1);
    let passwd = path("/etc/passwd");
    say(
        "open-etc-passwd",
        raw(
            libc::SYS_openat,
            [libc::AT_FDCWD as u64, passwd.as_ptr() as u64, 0, 0, 0, 0],
        ),
    );
    let new_file = path("/stockade-owned");
    say(
        "create-file",
        raw(
            libc::SYS_openat,
            [
                libc::AT_FDCWD as u64,
                new_file.as_ptr() as u64,
                (libc::O_CREAT | libc::O_WRONLY) as u64,
                0o644,
                0,
                0,
            ],
        ),
    );
    let mut stat = [0u8; 256];
    let usr = path("/usr");
    say(
        "stat-usr",
        raw(
            libc::SYS_newfstatat,
            [
                libc::AT_FDCWD as u64,
                usr.as_ptr() as u64,
                stat.as_mut_ptr() as u64,
                0,
                0,
                0,
            ],
        ),
    );
    say(
        "socket-inet",
        raw(
            libc::SYS_socket,
            [libc::AF_INET as u64, libc::SOCK_STREAM as u64, 0, 0, 0, 0],
        ),
    );
    say(
        "socket-unix",
        raw(
            libc::SYS_socket,
            [libc::AF_UNIX as u64, libc::SOCK_STREAM as u64, 0, 0, 0, 0],
        ),
    );
    match std::net::TcpStream::connect(("127.0.0.1", 9)) {
        Ok(_) => println!("connect-loopback ok 0"),
        Err(e) => println!("connect-loopback err {}", e.raw_os_error().unwrap_or(0)),
    }
    match std::net::TcpListener::bind(("127.0.0.1", 0)) {
        Ok(_) => println!("bind-port ok 0"),
        Err(e) => println!("bind-port err {}", e.raw_os_error().unwrap_or(0)),
    }
    say(
        "signal-parent",
        raw(
            libc::SYS_kill,
            [parent as u64, libc::SIGTERM as u64, 0, 0, 0, 0],
        ),
    );
    say("signal-init", raw(libc::SYS_kill, [1, 0, 0, 0, 0, 0]));
    say_spawn("fork", raw(libc::SYS_fork, [0; 6]));
    say_spawn(
        "clone-process",
        raw(libc::SYS_clone, [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]),
    );
    let from_thread = std::thread::spawn(|| raw(libc::SYS_fork, [0; 6])).join();
    match from_thread {
        Ok(result) => say_spawn("fork-from-thread", result),
        Err(_) => println!("fork-from-thread err 0"),
    }
    say(
        "clone-newuser",
        raw(
            libc::SYS_clone,
            [
                (libc::CLONE_THREAD | libc::CLONE_NEWUSER) as u64,
                0,
                0,
                0,
                0,
                0,
            ],
        ),
    );
    say("clone3", raw(libc::SYS_clone3, [0; 6]));
    let wx = (libc::PROT_READ | libc::PROT_WRITE | libc::PROT_EXEC) as u64;
    let anon = (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS) as u64;
    say(
        "mmap-write-exec",
        raw(libc::SYS_mmap, [0, 4096, wx, anon, u64::MAX, 0]),
    );
    if let Ok(addr) = raw(
        libc::SYS_mmap,
        [
            0,
            4096,
            (libc::PROT_READ | libc::PROT_WRITE) as u64,
            anon,
            u64::MAX,
            0,
        ],
    ) {
        say(
            "mprotect-write-exec",
            raw(libc::SYS_mprotect, [addr as u64, 4096, wx, 0, 0, 0]),
        );
    }
    say(
        "prlimit-parent",
        raw(
            libc::SYS_prlimit64,
            [parent as u64, libc::RLIMIT_NOFILE as u64, 0, 0, 0, 0],
        ),
    );
    say(
        "tgkill-parent",
        raw(libc::SYS_tgkill, [parent as u64, parent as u64, 0, 0, 0, 0]),
    );
    say(
        "prctl-set-dumpable",
        raw(
            libc::SYS_prctl,
            [libc::PR_SET_DUMPABLE as u64, 1, 0, 0, 0, 0],
        ),
    );
    // Without the filter strict mode would be let through and end the program.
    if seccomp_on {
        say(
            "seccomp-strict",
            raw(
                libc::SYS_seccomp,
                [libc::SECCOMP_SET_MODE_STRICT as u64, 0, 0, 0, 0, 0],
            ),
        );
    }
}

fn allowed() {
    let pid = std::process::id() as u64;
    say("getpid", raw(libc::SYS_getpid, [0; 6]));
    let mut time = [0u64; 2];
    let ts = time.as_mut_ptr() as u64;
    for (label, clock) in [
        ("clock-realtime", libc::CLOCK_REALTIME as u64),
        ("clock-monotonic", libc::CLOCK_MONOTONIC as u64),
        ("clock-boottime", libc::CLOCK_BOOTTIME as u64),
        (
            "clock-process-cputime",
            libc::CLOCK_PROCESS_CPUTIME_ID as u64,
        ),
        ("clock-thread-cputime", libc::CLOCK_THREAD_CPUTIME_ID as u64),
        ("clock-own-cpu", cpu_clock(0, false)),
        ("clock-own-thread-cpu", cpu_clock(0, true)),
    ] {
        say(label, raw(libc::SYS_clock_gettime, [clock, ts, 0, 0, 0, 0]));
    }
    let mut mask = [0u8; 128];
    let mask = mask.as_mut_ptr() as u64;
    say(
        "affinity-self-0",
        raw(libc::SYS_sched_getaffinity, [0, 128, mask, 0, 0, 0]),
    );
    say(
        "affinity-self",
        raw(libc::SYS_sched_getaffinity, [pid, 128, mask, 0, 0, 0]),
    );
    say("kill-self-0", raw(libc::SYS_kill, [pid, 0, 0, 0, 0, 0]));
    let tid = raw(libc::SYS_gettid, [0; 6]).unwrap_or(0) as u64;
    say(
        "tgkill-self-0",
        raw(libc::SYS_tgkill, [pid, tid, 0, 0, 0, 0]),
    );
    let mut old = [0u64; 2];
    say(
        "prlimit-self",
        raw(
            libc::SYS_prlimit64,
            [
                0,
                libc::RLIMIT_NOFILE as u64,
                0,
                old.as_mut_ptr() as u64,
                0,
                0,
            ],
        ),
    );
    let anon = (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS) as u64;
    let rw = (libc::PROT_READ | libc::PROT_WRITE) as u64;
    match raw(libc::SYS_mmap, [0, 4096, rw, anon, u64::MAX, 0]) {
        Ok(addr) => {
            println!("mmap-read-write ok 0");
            say(
                "mprotect-read",
                raw(
                    libc::SYS_mprotect,
                    [addr as u64, 4096, libc::PROT_READ as u64, 0, 0, 0],
                ),
            );
            say(
                "munmap",
                raw(libc::SYS_munmap, [addr as u64, 4096, 0, 0, 0, 0]),
            );
        }
        Err(errno) => println!("mmap-read-write err {errno}"),
    }
    let mut buf = [0u8; 16];
    say(
        "getrandom",
        raw(
            libc::SYS_getrandom,
            [buf.as_mut_ptr() as u64, 16, 0, 0, 0, 0],
        ),
    );
    let spawned = std::thread::spawn(|| std::thread::spawn(|| 7).join().unwrap_or(0)).join();
    match spawned {
        Ok(7) => println!("thread-in-thread ok 0"),
        _ => println!("thread-in-thread err 0"),
    }
    say(
        "write-stdout",
        raw(libc::SYS_write, [1, b"\n".as_ptr() as u64, 1, 0, 0, 0]),
    );
}

/// Prints `<label> <path> ok <n>` (n: bytes read, entries listed, or 0)
/// or `<label> <path> err <errno>`.
fn io_outcome<T: Counted>(label: &str, path: &str, result: std::io::Result<T>) {
    match result {
        Ok(value) => println!("{label} {path} ok {}", value.count()),
        Err(e) => println!("{label} {path} err {}", e.raw_os_error().unwrap_or(0)),
    }
}

trait Counted {
    fn count(&self) -> usize;
}

impl Counted for Vec<u8> {
    fn count(&self) -> usize {
        self.len()
    }
}

impl Counted for usize {
    fn count(&self) -> usize {
        *self
    }
}

impl Counted for () {
    fn count(&self) -> usize {
        0
    }
}

impl Counted for std::fs::File {
    fn count(&self) -> usize {
        0
    }
}

/// Tries what a guest would do to a path: read it as a file, list it as a
/// directory, write into it, create a file beside it.
fn files(path: &str) {
    io_outcome("read", path, std::fs::read(path));
    io_outcome("list", path, std::fs::read_dir(path).map(|d| d.count()));
    io_outcome(
        "write",
        path,
        std::fs::OpenOptions::new().write(true).open(path),
    );
    let beside = format!("{path}.stockade-new");
    io_outcome("create", path, std::fs::write(&beside, b"x"));
    let inside = std::path::Path::new(path).join("stockade-new");
    io_outcome("create-in", path, std::fs::write(inside, b"x"));
}

/// Fires every system-call number from 0 to `last` with zero arguments,
/// each in a fresh child that applies the production sandbox first (with
/// `readable` trees, as a CPython worker's), and prints `<nr> <outcome>`:
/// `ok N`, `err E`, `killed` (SIGSYS), or `ended` (the call ended the
/// child some other way, as exit does).
fn sweep(last: i64, readable: Vec<std::path::PathBuf>, scratch: bool) {
    for nr in 0..=last {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills the two-element array.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            println!("{nr} no-pipe");
            continue;
        }
        // SAFETY: the sweeping process is single-threaded; the child only
        // applies the sandbox, fires one call and leaves through _exit.
        let child = unsafe { libc::fork() };
        if child == 0 {
            // SAFETY: closes the child's copy of the read end; the alarm
            // (set before the filter, which refuses `alarm`) ends a call
            // that waits forever with zero arguments (`ppoll`).
            unsafe {
                libc::close(fds[0]);
                libc::alarm(2);
            }
            let config = SandboxConfig {
                readable: readable.clone(),
                scratch: scratch.then_some(1 << 20),
                ..SandboxConfig::new(SandboxMode::Require, Some(10))
            };
            if stockade_sandbox::apply(&config).is_err() {
                // SAFETY: ends the child.
                unsafe { libc::_exit(78) }
            }
            // Descriptor 0 closed, so a call on it (fchmod(0), read(0))
            // answers EBADF whatever this process's stdin is: the filter's
            // EPERM is then the only one (the CPython guest's own sweep
            // closes it too).
            // SAFETY: closes this child's own standard input.
            unsafe { libc::close(0) };
            let line = match raw(nr, [0; 6]) {
                Ok(rc) => format!("ok {rc}"),
                Err(errno) => format!("err {errno}"),
            };
            // SAFETY: writes the line to the pipe, then ends the child.
            unsafe {
                libc::write(fds[1], line.as_ptr().cast(), line.len());
                libc::_exit(0)
            }
        }
        // SAFETY: closes the parent's copy of the write end.
        unsafe { libc::close(fds[1]) };
        let mut buf = [0u8; 64];
        // SAFETY: reads into a buffer we own, then reaps our own child.
        let (n, status) = unsafe {
            let n = libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len());
            libc::close(fds[0]);
            let mut status = 0;
            libc::waitpid(child, &mut status, 0);
            (n, status)
        };
        let outcome = if n > 0 {
            String::from_utf8_lossy(&buf[..n as usize]).into_owned()
        } else if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSYS {
            "killed".to_owned()
        } else if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGALRM {
            "blocked".to_owned()
        } else if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 78 {
            "no-sandbox".to_owned()
        } else {
            "ended".to_owned()
        };
        println!("{nr} {outcome}");
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("sweep") {
        // `sweep LAST [--scratch] DIR...`: DIRs are readable trees;
        // `--scratch` mounts a scratch directory too.
        let scratch = args.get(2).is_some_and(|arg| arg == "--scratch");
        let readable = args
            .iter()
            .skip(if scratch { 3 } else { 2 })
            .map(std::path::PathBuf::from)
            .collect();
        sweep(
            args.get(1).and_then(|s| s.parse().ok()).unwrap_or(511),
            readable,
            scratch,
        );
        return;
    }
    let forked = args.first().map(String::as_str) == Some("--forked");
    if forked {
        args.remove(0);
    }
    let mut skip = Vec::new();
    let mut cpu_seconds = 60;
    if args.first().map(String::as_str) == Some("--cpu") {
        args.remove(0);
        cpu_seconds = args.first().and_then(|s| s.parse().ok()).unwrap_or(60);
        args.remove(0);
    }
    while args.first().map(String::as_str) == Some("--skip") {
        args.remove(0);
        let layer = match args.first().map(String::as_str) {
            Some("seccomp") => Layer::Seccomp,
            Some("landlock") => Layer::LandlockFilesystem,
            Some("namespaces") => Layer::Namespaces,
            other => {
                eprintln!("unknown layer {other:?}");
                std::process::exit(2);
            }
        };
        args.remove(0);
        skip.push(layer);
    }
    let mut readable = Vec::new();
    let mut hidden = Vec::new();
    while let Some(flag @ ("--readable" | "--hidden")) = args.first().map(String::as_str) {
        let list = if flag == "--readable" {
            &mut readable
        } else {
            &mut hidden
        };
        args.remove(0);
        if !args.is_empty() {
            list.push(std::path::PathBuf::from(args.remove(0)));
        }
    }
    let mode = if skip.is_empty() {
        SandboxMode::Require
    } else {
        SandboxMode::Auto
    };
    let config = SandboxConfig {
        skip,
        readable,
        hidden,
        template: forked,
        ..SandboxConfig::new(mode, Some(cpu_seconds))
    };
    let report = match stockade_sandbox::apply(&config) {
        Ok(report) => report,
        Err(err) => {
            eprintln!("sandbox refused: {err}");
            std::process::exit(78);
        }
    };
    let family = forked.then(|| fork_family(report.applied.contains(&Layer::Seccomp)));
    match args.first().map(String::as_str) {
        Some("report") => println!("{report:?}"),
        Some("fire") => {
            let name = args.get(1).cloned().unwrap_or_default();
            let Some(&(_, nr)) = KILLED.iter().find(|(n, _)| *n == name) else {
                eprintln!("{name} is not on the kill list");
                std::process::exit(2);
            };
            let pattern = args
                .get(2)
                .and_then(|p| p.parse::<usize>().ok())
                .unwrap_or(0);
            say(&name, raw(nr, JUNK[pattern % JUNK.len()]));
        }
        Some("denied") => {
            for &(name, nr) in DENIED {
                for (i, junk) in JUNK.iter().enumerate() {
                    say(&format!("{name}#{i}"), raw(nr, *junk));
                }
            }
        }
        Some("attacks") => {
            attacks(report.applied.contains(&Layer::Seccomp));
            if let Some(family) = &family {
                family_attacks(family);
            }
        }
        Some("burn") => {
            let mut n = 0u64;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Some("hold") => {
            println!("holding");
            std::thread::sleep(std::time::Duration::from_secs(10));
        }
        Some("allowed") => allowed(),
        Some("files") => args.iter().skip(1).for_each(|p| files(p)),
        other => {
            eprintln!("unknown command {other:?}");
            std::process::exit(2);
        }
    }
    if let Some(family) = family {
        family.done();
    }
}

/// A template, the worker it forked to run the command, and a sibling
/// worker forked before it, which waits (as the template does) until the
/// command is done: `done` is a flag in memory the three share.
struct Family {
    template: i32,
    sibling: i32,
    done: *mut u32,
}

impl Family {
    fn done(&self) {
        // SAFETY: `done` points into the shared page mapped in
        // `fork_family`, which stays mapped for the process's life.
        unsafe { std::ptr::write_volatile(self.done, 1) };
    }
}

/// Waits (at most ten seconds) for the worker to set `done`, then leaves.
fn wait_then_exit(done: *mut u32) -> ! {
    for _ in 0..1000 {
        // SAFETY: as in `Family::done`.
        if unsafe { std::ptr::read_volatile(done) } != 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: ends this process at once.
    unsafe { libc::_exit(0) }
}

/// Forks, from this template, a sibling worker and then the worker that
/// goes on to run the command (returning in it); the template and the
/// sibling wait until it is done. Each worker narrows the template's
/// filter to itself first, as a forked stockade worker does.
fn fork_family(seccomp: bool) -> Family {
    let template = std::process::id() as i32;
    // SAFETY: maps one anonymous shared page, checked below.
    let page = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if page == libc::MAP_FAILED {
        eprintln!("cannot map the shared page");
        std::process::exit(2);
    }
    let done = page.cast::<u32>();
    let fork = || {
        let pid = raw(
            libc::SYS_clone,
            [(libc::CLONE_PARENT | libc::SIGCHLD) as u64, 0, 0, 0, 0, 0],
        );
        match pid {
            Ok(0) => {
                if let Err(err) = stockade_sandbox::enter_forked_worker(seccomp, None) {
                    eprintln!("{err}");
                    // SAFETY: ends the new worker at once.
                    unsafe { libc::_exit(3) }
                }
                0
            }
            Ok(pid) => pid as i32,
            Err(errno) => {
                eprintln!("the template cannot fork: errno {errno}");
                std::process::exit(2);
            }
        }
    };
    let sibling = fork();
    if sibling == 0 {
        // The sibling holds none of the output the test waits on.
        // SAFETY: closes this process's own stdout and stderr.
        unsafe {
            libc::close(1);
            libc::close(2);
        }
        wait_then_exit(done);
    }
    if fork() != 0 {
        wait_then_exit(done);
    }
    Family {
        template,
        sibling,
        done,
    }
}

/// What a worker forked from a template tries on the template, its
/// sibling, and the template's own extra calls.
fn family_attacks(family: &Family) {
    let (template, sibling) = (family.template as u64, family.sibling as u64);
    process_probes("template", i64::from(family.template));
    process_probes("sibling", i64::from(family.sibling));
    let term = libc::SIGTERM as u64;
    say(
        "signal-template",
        raw(libc::SYS_kill, [template, term, 0, 0, 0, 0]),
    );
    say(
        "signal-sibling",
        raw(libc::SYS_kill, [sibling, term, 0, 0, 0, 0]),
    );
    say(
        "tgkill-sibling",
        raw(libc::SYS_tgkill, [sibling, sibling, term, 0, 0, 0]),
    );
    let mut old = [0u64; 2];
    say(
        "prlimit-sibling",
        raw(
            libc::SYS_prlimit64,
            [
                sibling,
                libc::RLIMIT_CPU as u64,
                0,
                old.as_mut_ptr() as u64,
                0,
                0,
            ],
        ),
    );
    say_spawn(
        "fork-as-template",
        raw(
            libc::SYS_clone,
            [(libc::CLONE_PARENT | libc::SIGCHLD) as u64, 0, 0, 0, 0, 0],
        ),
    );
    say("recvmsg", raw(libc::SYS_recvmsg, [0, 0, 0, 0, 0, 0]));
    say("dup3", raw(libc::SYS_dup3, [1, 9, 0, 0, 0, 0]));
}
