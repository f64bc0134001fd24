//! The worker's system-call policy: an allow-list measured from what the
//! worker and its engines call, argument checks where a call is dangerous in
//! some modes, a list of calls that kill the worker, and EPERM for the rest.

use std::collections::BTreeMap;

use seccompiler::{BackendError, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompRule};

/// Calls a worker never legitimately makes: they kill it with SIGSYS.
#[cfg(target_arch = "x86_64")]
pub const KILLED: &[(&str, i64)] = &[
    ("execve", libc::SYS_execve),
    ("execveat", libc::SYS_execveat),
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("process_madvise", libc::SYS_process_madvise),
    ("kcmp", libc::SYS_kcmp),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("reboot", libc::SYS_reboot),
    ("personality", libc::SYS_personality),
    ("quotactl", libc::SYS_quotactl),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("iopl", libc::SYS_iopl),
    ("ioperm", libc::SYS_ioperm),
    ("acct", libc::SYS_acct),
];

#[cfg(not(target_arch = "x86_64"))]
pub const KILLED: &[(&str, i64)] = &[];

/// The compiled-to-be rules of the three filters.
#[derive(Debug)]
pub struct Policy {
    /// Allowed calls, each with the argument rules of which one must hold
    /// (no rules: any arguments).
    pub allowed: BTreeMap<i64, Vec<SeccompRule>>,
    /// Calls answered with success without running (their rules as for
    /// `allowed`); they must be allowed too.
    pub faked: BTreeMap<i64, Vec<SeccompRule>>,
    /// Calls that kill the worker.
    pub killed: Vec<i64>,
    /// Calls answered with ENOSYS so the C library falls back to an older
    /// call the filter can inspect (clone3's flags sit in memory; clone's
    /// are an argument).
    pub enosys: Vec<i64>,
}

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, BackendError> {
    SeccompCondition::new(index, SeccompCmpArgLen::Qword, op, value)
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, BackendError> {
    SeccompRule::new(conditions)
}

/// `prot` (argument `index`) never both writable and executable.
fn not_write_and_exec(index: u8) -> Result<Vec<SeccompRule>, BackendError> {
    let wx = (libc::PROT_WRITE | libc::PROT_EXEC) as u64;
    Ok(vec![
        rule(vec![arg(index, SeccompCmpOp::MaskedEq(wx), 0)?])?,
        rule(vec![arg(
            index,
            SeccompCmpOp::MaskedEq(wx),
            libc::PROT_WRITE as u64,
        )?])?,
        rule(vec![arg(
            index,
            SeccompCmpOp::MaskedEq(wx),
            libc::PROT_EXEC as u64,
        )?])?,
    ])
}

/// The first argument is `value`.
fn first_is(values: &[u64]) -> Result<Vec<SeccompRule>, BackendError> {
    values
        .iter()
        .map(|&v| rule(vec![arg(0, SeccompCmpOp::Eq, v)?]))
        .collect()
}

/// The largest id of a system clock (`CLOCK_TAI`); CLOCK_REALTIME is 0.
const LAST_SYSTEM_CLOCK: u64 = 11;
/// The least id that names a CPU clock of the caller itself: the kernel
/// encodes process and thread CPU clocks as `(~pid << 3) | kind` (32 bits),
/// and pid 0 means the calling process or thread. Any other pid's clock
/// would tell a guest the CPU time of the host, the server, or another
/// tenant's worker, live.
const FIRST_OWN_CPU_CLOCK: u64 = 0xffff_fff8;

/// Clock ids (argument 0, a 32-bit `clockid_t`) that name a system clock
/// or a CPU clock of the caller's own; a clock of another process or
/// thread answers EPERM.
fn own_clocks() -> Result<Vec<SeccompRule>, BackendError> {
    Ok(vec![
        rule(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Le,
            LAST_SYSTEM_CLOCK,
        )?])?,
        rule(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ge,
            FIRST_OWN_CPU_CLOCK,
        )?])?,
    ])
}

/// The futex operations (argument 1, less its private and clock flags)
/// that name no other task: wait, wake, requeue, wake-op and the bitset
/// pair. The priority-inheritance operations read an owner's thread id
/// from the futex word and look it up among every task on the machine,
/// answering differently for one that exists, so they answer EPERM (only
/// `PTHREAD_PRIO_INHERIT` mutexes use them).
fn futex_without_owners() -> Result<Vec<SeccompRule>, BackendError> {
    const FUTEX_CMD_MASK: u64 = 0x7f;
    [
        libc::FUTEX_WAIT,
        libc::FUTEX_WAKE,
        libc::FUTEX_REQUEUE,
        libc::FUTEX_CMP_REQUEUE,
        libc::FUTEX_WAKE_OP,
        libc::FUTEX_WAIT_BITSET,
        libc::FUTEX_WAKE_BITSET,
    ]
    .into_iter()
    .map(|op| {
        rule(vec![SeccompCondition::new(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(FUTEX_CMD_MASK),
            op as u64,
        )?])
    })
    .collect()
}

/// Which allow-list a worker gets, by what its engine is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// An engine inside a stockade binary (monty, QuickJS): no file may be
    /// opened, examined or listed, and the system is not asked its name.
    Closed,
    /// A real interpreter (CPython) with readable trees: files may be
    /// opened for reading only, examined and listed (the empty root and
    /// Landlock decide which exist), and `uname` answers (for the worker's
    /// own UTS namespace, whose host name is `stockade`).
    Interpreter,
    /// [`Profile::Interpreter`] with a scratch directory mounted (only
    /// then: without the empty root's read-only mounts the filter is all
    /// that keeps writes off the host): files may also be made, written,
    /// renamed and removed, where the mounts and Landlock allow.
    Scratch,
}

/// The calls reading a file tree needs, and `uname`, added for
/// [`Profile::Interpreter`].
#[cfg(target_arch = "x86_64")]
fn interpreter_calls(allowed: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), BackendError> {
    for call in [
        libc::SYS_uname,
        libc::SYS_newfstatat,
        // The older forms some statically linked libraries call (duckdb).
        libc::SYS_stat,
        libc::SYS_lstat,
        libc::SYS_fstat,
        libc::SYS_statx,
        libc::SYS_lseek,
        libc::SYS_getdents64,
        libc::SYS_readlink,
        libc::SYS_readlinkat,
        libc::SYS_access,
        libc::SYS_faccessat,
        libc::SYS_faccessat2,
        libc::SYS_getcwd,
    ] {
        allowed.insert(call, Vec::new());
    }
    // Waiting on the process's own descriptors (pipes, eventfds): the
    // event loops of Rust and C++ libraries (polars, duckdb) make an epoll
    // instance or an eventfd at start and give up without one.
    for call in [
        libc::SYS_poll,
        libc::SYS_ppoll,
        // (`select.select` and `selectors.SelectSelector`.)
        libc::SYS_select,
        libc::SYS_pselect6,
        libc::SYS_epoll_create1,
        libc::SYS_epoll_ctl,
        libc::SYS_epoll_wait,
        libc::SYS_epoll_pwait,
        libc::SYS_epoll_pwait2,
        libc::SYS_eventfd2,
        libc::SYS_pipe2,
        // A timer descriptor of the process's own (3.13's
        // `os.timerfd_create`, Rust's and C++'s event loops): it wakes
        // only its holder. (The alarm clocks need CAP_WAKE_ALARM.)
        libc::SYS_timerfd_create,
        libc::SYS_timerfd_settime,
        libc::SYS_timerfd_gettime,
    ] {
        allowed.insert(call, Vec::new());
    }
    local_socket_pairs(allowed)?;
    // A timer that signals the process itself (`signal.alarm`,
    // `signal.setitimer`: timeouts written the Unix way).
    for call in [libc::SYS_alarm, libc::SYS_setitimer, libc::SYS_getitimer] {
        allowed.insert(call, Vec::new());
    }
    // Close-on-exec set and cleared (how CPython's `os.set_inheritable`,
    // and so `tempfile`, marks a descriptor), and non-blocking mode set
    // (how its `os.set_blocking` does it): flags of the process's own
    // descriptors; no other ioctl.
    allowed.insert(
        libc::SYS_ioctl,
        [libc::FIOCLEX, libc::FIONCLEX, libc::FIONBIO]
            .into_iter()
            .map(|request| rule(vec![arg(1, SeccompCmpOp::Eq, request)?]))
            .collect::<Result<_, _>>()?,
    );
    // openat with no write access, no creation, no truncation and no
    // unnamed temporary file (O_TMPFILE less its O_DIRECTORY bit);
    // `scratch_calls` lifts that where a scratch is mounted.
    let tmpfile = (libc::O_TMPFILE & !libc::O_DIRECTORY) as u64;
    let writing = (libc::O_ACCMODE | libc::O_CREAT | libc::O_TRUNC) as u64 | tmpfile;
    allowed.insert(
        libc::SYS_openat,
        vec![rule(vec![arg(2, SeccompCmpOp::MaskedEq(writing), 0)?])?],
    );
    allowed.insert(libc::SYS_fcntl, fcntl_rules(&DESCRIPTOR_FLAGS)?);
    Ok(())
}

/// Connected pairs of local sockets the process makes for itself (how
/// asyncio's and trio's event loops wake themselves from another thread),
/// for [`Profile::Interpreter`]: like `pipe2`, they reach nothing outside
/// the process. `socket` and `connect` stay denied, so a socket pair is
/// the only socket a worker can hold; bytes are sent without an address
/// (a pair is connected already) and without `sendmsg`, so no descriptor
/// or credential rides along (the kernel's descriptor-passing code, where
/// its Unix-socket bugs have lived, stays out of reach), and never
/// out-of-band (`MSG_OOB`, another such place).
#[cfg(target_arch = "x86_64")]
fn local_socket_pairs(allowed: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), BackendError> {
    let no_oob = || {
        SeccompCondition::new(
            3,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::MaskedEq(libc::MSG_OOB as u64),
            0,
        )
    };
    allowed.insert(
        libc::SYS_socketpair,
        vec![rule(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            libc::AF_UNIX as u64,
        )?])?],
    );
    allowed.insert(
        libc::SYS_sendto,
        vec![rule(vec![no_oob()?, arg(4, SeccompCmpOp::Eq, 0)?])?],
    );
    allowed.insert(libc::SYS_recvfrom, vec![rule(vec![no_oob()?])?]);
    allowed.insert(libc::SYS_shutdown, Vec::new());
    Ok(())
}

/// `fcntl` commands on a descriptor's own flags (close-on-exec, the open
/// mode) and its duplication (bounded by the open-files limit; Rust's
/// `try_clone`, CPython's `os.dup`): not leases, signals or pipes' sizes.
const DESCRIPTOR_FLAGS: [i32; 6] = [
    libc::F_GETFD,
    libc::F_SETFD,
    libc::F_GETFL,
    libc::F_SETFL,
    libc::F_DUPFD,
    libc::F_DUPFD_CLOEXEC,
];

/// `fcntl` commands that take or test a record lock (sqlite's).
const RECORD_LOCKS: [i32; 6] = [
    libc::F_GETLK,
    libc::F_SETLK,
    libc::F_SETLKW,
    libc::F_OFD_GETLK,
    libc::F_OFD_SETLK,
    libc::F_OFD_SETLKW,
];

/// The lock commands that take a lock: answered as if they had, unrun
/// ([`Policy::faked`]).
const LOCK_TAKING: [i32; 4] = [
    libc::F_SETLK,
    libc::F_SETLKW,
    libc::F_OFD_SETLK,
    libc::F_OFD_SETLKW,
];

fn fcntl_rules(commands: &[i32]) -> Result<Vec<SeccompRule>, BackendError> {
    commands
        .iter()
        .map(|&cmd| rule(vec![arg(1, SeccompCmpOp::Eq, cmd as u64)?]))
        .collect()
}

/// The calls a scratch directory adds, for [`Profile::Scratch`].
#[cfg(target_arch = "x86_64")]
fn scratch_calls(allowed: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), BackendError> {
    // The scratch directory's calls: making, writing, syncing, locking and
    // removing files. Where they may act is for the mounts (every tree but
    // the scratch is read-only) and Landlock (writing only beneath the
    // scratch) to say: a call's path is not an argument a filter can read.
    for call in [
        libc::SYS_openat,
        // (rustix's `open`, which a forked worker's scratch setup uses.)
        libc::SYS_open,
        libc::SYS_mkdir,
        libc::SYS_mkdirat,
        libc::SYS_unlink,
        libc::SYS_unlinkat,
        libc::SYS_rmdir,
        libc::SYS_rename,
        libc::SYS_renameat,
        libc::SYS_renameat2,
        libc::SYS_link,
        libc::SYS_linkat,
        libc::SYS_symlink,
        libc::SYS_symlinkat,
        libc::SYS_ftruncate,
        libc::SYS_truncate,
        libc::SYS_fallocate,
        libc::SYS_fsync,
        libc::SYS_fdatasync,
        libc::SYS_pwrite64,
        libc::SYS_preadv,
        libc::SYS_pwritev,
        libc::SYS_fchmod,
        libc::SYS_fchmodat,
        libc::SYS_chmod,
        libc::SYS_utimensat,
        libc::SYS_fstatfs,
        libc::SYS_statfs,
        libc::SYS_flock,
        libc::SYS_fadvise64,
        libc::SYS_sendfile,
        libc::SYS_copy_file_range,
        libc::SYS_chdir,
        libc::SYS_fchdir,
        libc::SYS_umask,
    ] {
        allowed.insert(call, Vec::new());
    }
    let mut fcntl: Vec<i32> = DESCRIPTOR_FLAGS.to_vec();
    fcntl.extend(RECORD_LOCKS);
    allowed.insert(libc::SYS_fcntl, fcntl_rules(&fcntl)?);
    Ok(())
}

/// What a worker with a scratch is answered success for without the call
/// running: taking a lock (`flock`, and `fcntl`'s record and open-file
/// locks). Its files are its own, so a lock protects nothing; taken for
/// real, each lock is kernel memory no limit counts, and a lock on a file
/// of the readable trees (shared with every worker and the host) would
/// reach beyond the worker.
#[cfg(target_arch = "x86_64")]
fn faked_calls() -> Result<BTreeMap<i64, Vec<SeccompRule>>, BackendError> {
    let mut faked = BTreeMap::new();
    faked.insert(libc::SYS_flock, Vec::new());
    faked.insert(libc::SYS_fcntl, fcntl_rules(&LOCK_TAKING)?);
    Ok(faked)
}

/// Whose filter a policy is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A worker, process `pid` (0 in a fingerprint): the only target its
    /// signal and limit calls may name.
    Worker(u32),
    /// A template (a worker stopped after its sandbox, forking workers on
    /// the host's request): it may also fork in its one way (CLONE_PARENT,
    /// so the worker is the host's child), receive a request's descriptors
    /// and put one on stderr, and its signal and limit calls are not
    /// checked here. Each worker it forks adds [`narrowing`] before it
    /// reads anything, which takes all of that away again.
    Template,
}

/// The clone flags a template forks with: the worker is the host's child.
pub const TEMPLATE_FORK: u64 = (libc::CLONE_PARENT | libc::SIGCHLD) as u64;

/// Calls whose first argument is a pid, where 0 means the caller: a worker
/// may name only itself.
#[cfg(target_arch = "x86_64")]
const SELF_OR_ZERO: &[i64] = &[libc::SYS_prlimit64, libc::SYS_sched_getaffinity];

/// The calls a template may make beyond a worker's, each unconditionally.
#[cfg(target_arch = "x86_64")]
const TEMPLATE_ONLY: &[i64] = &[libc::SYS_recvmsg, libc::SYS_dup3];

/// What a worker the template forks calls to put its own scratch and
/// layers in force (`enter_forked_worker`), beyond [`FORKED_SETUP_KILLED`]:
/// capabilities and Landlock. A template allows them; its workers deny
/// them once that is done.
#[cfg(target_arch = "x86_64")]
const FORKED_SETUP: &[i64] = &[
    libc::SYS_capget,
    libc::SYS_capset,
    libc::SYS_landlock_create_ruleset,
    libc::SYS_landlock_add_rule,
    libc::SYS_landlock_restrict_self,
];

/// The mount calls a forked worker makes for its scratch, which every
/// other worker is killed for: a template allows them (`unshare` only for
/// a mount namespace, `mount` only with the flags of [`MOUNT_FLAGS`]); its
/// workers' narrowing kills them again.
#[cfg(target_arch = "x86_64")]
pub const FORKED_SETUP_KILLED: &[i64] = &[
    libc::SYS_unshare,
    libc::SYS_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    libc::SYS_move_mount,
];

/// The `prctl` options dropping capabilities and setting no_new_privs take
/// (a forked worker's, before Landlock).
#[cfg(target_arch = "x86_64")]
const FORKED_SETUP_PRCTL: &[u64] = &[
    libc::PR_CAPBSET_DROP as u64,
    libc::PR_CAP_AMBIENT as u64,
    libc::PR_SET_NO_NEW_PRIVS as u64,
];

/// The flags of the one `mount` a forked worker makes: its scratch.
const MOUNT_FLAGS: u64 = crate::scratch::SCRATCH_MOUNT_FLAGS.bits() as u64;

/// What a worker forked from a template denies (EPERM) on top of the
/// template's filter, for its own process id `pid`: the template's extra
/// calls, any fork, and signals, limits and affinity aimed at another process. The
/// rules say what is denied; every other call passes to the older filters.
#[cfg(target_arch = "x86_64")]
pub fn narrowing(pid: u32) -> Result<BTreeMap<i64, Vec<SeccompRule>>, BackendError> {
    let pid = u64::from(pid);
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &call in TEMPLATE_ONLY.iter().chain(FORKED_SETUP) {
        denied.insert(call, Vec::new());
    }
    denied.insert(
        libc::SYS_prctl,
        FORKED_SETUP_PRCTL
            .iter()
            .map(|&option| rule(vec![arg(0, SeccompCmpOp::Eq, option)?]))
            .collect::<Result<_, _>>()?,
    );
    denied.insert(
        libc::SYS_clone,
        vec![rule(vec![arg(
            0,
            SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
            0,
        )?])?],
    );
    denied.insert(
        libc::SYS_kill,
        vec![rule(vec![arg(0, SeccompCmpOp::Ne, pid)?])?],
    );
    denied.insert(
        libc::SYS_tgkill,
        vec![rule(vec![arg(0, SeccompCmpOp::Ne, pid)?])?],
    );
    for &call in SELF_OR_ZERO {
        denied.insert(
            call,
            vec![rule(vec![
                arg(0, SeccompCmpOp::Ne, 0)?,
                arg(0, SeccompCmpOp::Ne, pid)?,
            ])?],
        );
    }
    Ok(denied)
}

#[cfg(not(target_arch = "x86_64"))]
pub fn narrowing(_pid: u32) -> Result<BTreeMap<i64, Vec<SeccompRule>>, BackendError> {
    Err(BackendError::InvalidArgumentNumber)
}

/// The policy of `target`.
#[cfg(target_arch = "x86_64")]
pub fn worker_policy(target: Target, profile: Profile) -> Result<Policy, BackendError> {
    let namespace_flags = (libc::CLONE_NEWNS
        | libc::CLONE_NEWUSER
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_NEWCGROUP) as u64;
    let mut clone = vec![rule(vec![arg(
        0,
        SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64 | namespace_flags),
        libc::CLONE_THREAD as u64,
    )?])?];

    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_readv,
        libc::SYS_writev,
        libc::SYS_pread64,
        libc::SYS_close,
        libc::SYS_munmap,
        libc::SYS_mremap,
        libc::SYS_madvise,
        libc::SYS_brk,
        libc::SYS_set_robust_list,
        libc::SYS_rseq,
        libc::SYS_gettid,
        libc::SYS_getpid,
        libc::SYS_getppid,
        libc::SYS_sched_yield,
        libc::SYS_rt_sigaction,
        libc::SYS_rt_sigprocmask,
        libc::SYS_rt_sigreturn,
        libc::SYS_sigaltstack,
        libc::SYS_getrandom,
        // The watchdog's reading of peak resident memory.
        libc::SYS_getrusage,
        libc::SYS_gettimeofday,
        libc::SYS_nanosleep,
        libc::SYS_exit,
        libc::SYS_exit_group,
    ] {
        allowed.insert(call, Vec::new());
    }
    for call in [
        libc::SYS_clock_gettime,
        libc::SYS_clock_getres,
        libc::SYS_clock_nanosleep,
    ] {
        allowed.insert(call, own_clocks()?);
    }
    allowed.insert(libc::SYS_futex, futex_without_owners()?);
    allowed.insert(libc::SYS_mmap, not_write_and_exec(2)?);
    allowed.insert(libc::SYS_mprotect, not_write_and_exec(2)?);
    let mut prctl = vec![libc::PR_SET_NAME as u64, libc::PR_GET_NAME as u64];
    if target == Target::Template {
        prctl.extend(FORKED_SETUP_PRCTL);
    }
    allowed.insert(libc::SYS_prctl, first_is(&prctl)?);
    match target {
        // Signals, limits and affinity only of the worker itself (0 means
        // "self" for prlimit64 and sched_getaffinity): a call that named
        // any other pid would tell which processes exist.
        Target::Worker(pid) => {
            let pid = u64::from(pid);
            allowed.insert(libc::SYS_kill, first_is(&[pid])?);
            allowed.insert(libc::SYS_tgkill, first_is(&[pid])?);
            for call in SELF_OR_ZERO {
                allowed.insert(*call, first_is(&[0, pid])?);
            }
        }
        Target::Template => {
            for &call in [libc::SYS_kill, libc::SYS_tgkill]
                .iter()
                .chain(SELF_OR_ZERO)
                .chain(TEMPLATE_ONLY)
            {
                allowed.insert(call, Vec::new());
            }
            clone.push(rule(vec![arg(0, SeccompCmpOp::Eq, TEMPLATE_FORK)?])?);
            for &call in FORKED_SETUP {
                allowed.insert(call, Vec::new());
            }
            allowed.insert(libc::SYS_unshare, first_is(&[libc::CLONE_NEWNS as u64])?);
            allowed.insert(
                libc::SYS_mount,
                vec![rule(vec![arg(3, SeccompCmpOp::Eq, MOUNT_FLAGS)?])?],
            );
            for call in [
                libc::SYS_open_tree,
                libc::SYS_mount_setattr,
                libc::SYS_move_mount,
            ] {
                allowed.insert(call, Vec::new());
            }
        }
    }
    allowed.insert(libc::SYS_clone, clone);
    // Only to install this policy's last filter; a filter can only restrict.
    allowed.insert(
        libc::SYS_seccomp,
        first_is(&[libc::SECCOMP_SET_MODE_FILTER as u64])?,
    );

    if profile != Profile::Closed {
        interpreter_calls(&mut allowed)?;
    }
    if profile == Profile::Scratch {
        scratch_calls(&mut allowed)?;
    }
    let faked = if profile == Profile::Scratch {
        faked_calls()?
    } else {
        BTreeMap::new()
    };

    let killed = KILLED
        .iter()
        .map(|&(_, nr)| nr)
        .filter(|nr| target != Target::Template || !FORKED_SETUP_KILLED.contains(nr))
        .collect();
    Ok(Policy {
        allowed,
        faked,
        killed,
        enosys: vec![libc::SYS_clone3],
    })
}

#[cfg(not(target_arch = "x86_64"))]
pub fn worker_policy(_target: Target, _profile: Profile) -> Result<Policy, BackendError> {
    Err(BackendError::InvalidArgumentNumber)
}
