//! Compiles the policy into three filters, test-fires them in a throwaway
//! child, and installs them on every thread.
//!
//! Three filters because one seccompiler filter has one action for all its
//! matches: the kernel runs every filter and takes the strictest answer, so
//! a killed call dies even though the allow-list would answer EPERM, and
//! between two errnos the newest filter's wins, so the ENOSYS filter for
//! clone3 goes last. Installing it after the allow-list needs `seccomp`
//! itself on the allow-list (in filter mode only, which can only add
//! restrictions), and the filters are installed with the raw system call
//! rather than seccompiler's helper, whose prctl the allow-list refuses.

use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch, sock_filter};

use super::policy::{FORKED_SETUP_KILLED, Profile, Target, narrowing, worker_policy};
use crate::{Layer, Requirement, SandboxError};

/// The compiled filters, in installation order.
#[derive(Debug)]
pub struct Programs {
    killed: BpfProgram,
    allowed: BpfProgram,
    enosys: BpfProgram,
    /// Calls answered with success unrun (locks, for a worker with a
    /// scratch), when the policy has any: an ERRNO(0) outranks the
    /// allow-list's ALLOW.
    faked: Option<BpfProgram>,
}

impl Programs {
    fn in_order(&self) -> impl Iterator<Item = &BpfProgram> {
        [&self.killed, &self.allowed, &self.enosys]
            .into_iter()
            .chain(self.faked.as_ref())
    }
}

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(not(target_arch = "x86_64"))]
const ARCH: Option<TargetArch> = None;

/// Compiles the policy of `target`.
pub fn compile(target: Target, profile: Profile) -> Result<Programs, String> {
    let arch = ARCH.ok_or("no measured system-call policy for this architecture")?;
    let policy =
        worker_policy(target, profile).map_err(|e| format!("cannot build the policy: {e}"))?;
    let build = |rules, mismatch, matched| -> Result<BpfProgram, String> {
        let filter =
            SeccompFilter::new(rules, mismatch, matched, arch).map_err(|e| e.to_string())?;
        BpfProgram::try_from(filter).map_err(|e| e.to_string())
    };
    let listed = |calls: &[i64]| calls.iter().map(|&nr| (nr, Vec::new())).collect();
    Ok(Programs {
        killed: build(
            listed(&policy.killed),
            SeccompAction::Allow,
            SeccompAction::KillProcess,
        )?,
        allowed: build(
            policy.allowed,
            SeccompAction::Errno(libc::EPERM as u32),
            SeccompAction::Allow,
        )?,
        enosys: build(
            listed(&policy.enosys),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::ENOSYS as u32),
        )?,
        faked: if policy.faked.is_empty() {
            None
        } else {
            Some(build(
                policy.faked,
                SeccompAction::Allow,
                SeccompAction::Errno(0),
            )?)
        },
    })
}

/// The kernel's `struct sock_fprog`.
#[repr(C)]
struct SockFprog {
    len: u16,
    filter: *const sock_filter,
}

/// Installs one filter on every thread of the process (TSYNC).
fn install_filter(program: &[sock_filter]) -> Result<(), String> {
    let len = u16::try_from(program.len()).map_err(|_| "the filter is too long".to_owned())?;
    let fprog = SockFprog {
        len,
        filter: program.as_ptr(),
    };
    // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) reads `fprog` and the
    // `len` instructions it points to, both alive for the call; the kernel
    // copies the program.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_TSYNC,
            &fprog as *const SockFprog,
        )
    };
    match rc {
        0 => Ok(()),
        rc if rc < 0 => Err(format!(
            "cannot install the filter: {}",
            std::io::Error::last_os_error()
        )),
        tid => Err(format!(
            "thread {tid} could not be synchronised to the filter"
        )),
    }
}

/// Installs the filters, in order, on every thread of the process.
pub fn apply(programs: &Programs) -> Result<(), String> {
    rustix::thread::set_no_new_privs(true).map_err(|e| format!("cannot set no_new_privs: {e}"))?;
    for program in programs.in_order() {
        install_filter(program)?;
    }
    Ok(())
}

/// Narrows a template's filter for the worker it forked, process `pid`
/// (see [`narrowing`]): installed in the new worker before it reads
/// anything from the host.
pub fn narrow(pid: u32) -> Result<(), String> {
    let arch = ARCH.ok_or("no measured system-call policy for this architecture")?;
    let denied = narrowing(pid).map_err(|e| format!("cannot build the narrowing: {e}"))?;
    let filter = SeccompFilter::new(
        denied,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program = BpfProgram::try_from(filter).map_err(|e| e.to_string())?;
    install_filter(&program)?;
    // The mount calls the worker made for its scratch kill it from now on,
    // as they kill every worker started from scratch.
    let killed = SeccompFilter::new(
        FORKED_SETUP_KILLED
            .iter()
            .map(|&call| (call, Vec::new()))
            .collect(),
        SeccompAction::Allow,
        SeccompAction::KillProcess,
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program = BpfProgram::try_from(killed).map_err(|e| e.to_string())?;
    install_filter(&program)
}

/// Runs what a worker does after the sandbox (start a thread, allocate,
/// draw randomness) in a forked child under the filters, so a filter that
/// would kill the worker is found before the worker relies on it.
pub fn test_fire(programs: &Programs) -> Result<(), String> {
    // SAFETY: fork in a single-threaded process (the sandbox runs before any
    // thread starts); the child only runs code that is safe after fork in
    // that case and leaves through _exit.
    let child = unsafe { libc::fork() };
    if child < 0 {
        return Err(format!(
            "cannot fork a test child: {}",
            std::io::Error::last_os_error()
        ));
    }
    if child == 0 {
        let code = match apply(programs) {
            Err(_) => 2,
            Ok(()) => {
                let worked = std::thread::spawn(|| {
                    let mut data = vec![1u64; 1 << 16];
                    data.push(std::collections::hash_map::RandomState::new().build_hasher_seed());
                    data.len()
                })
                .join();
                if worked.is_ok() { 0 } else { 3 }
            }
        };
        // SAFETY: _exit ends the child without running the parent's atexit
        // handlers or destructors.
        unsafe { libc::_exit(code) }
    }
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out-pointer.
    let waited = unsafe { libc::waitpid(child, &mut status, 0) };
    if waited != child {
        return Err(format!(
            "cannot wait for the test child: {}",
            std::io::Error::last_os_error()
        ));
    }
    if libc::WIFSIGNALED(status) {
        return Err(format!(
            "the filter killed a test child with signal {}; skipped",
            libc::WTERMSIG(status)
        ));
    }
    match libc::WEXITSTATUS(status) {
        0 => Ok(()),
        2 => Err("the kernel refused the filter in a test child".into()),
        code => Err(format!(
            "a test child under the filter failed (status {code})"
        )),
    }
}

trait SeedSource {
    fn build_hasher_seed(&self) -> u64;
}

impl SeedSource for std::collections::hash_map::RandomState {
    fn build_hasher_seed(&self) -> u64 {
        use std::hash::BuildHasher;
        self.hash_one(0u8)
    }
}

/// Identifies the policy on this kernel: the filters compiled for a
/// canonical pid (only the pid differs between workers) and the kernel's
/// release, hashed. Equal fingerprints behave the same under a test-fire.
pub fn fingerprint(target: Target, profile: Profile) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let canonical = match target {
        Target::Worker(_) => Target::Worker(0),
        Target::Template => Target::Template,
    };
    let programs = compile(canonical, profile).ok()?;
    let release = rustix::system::uname().release().to_bytes().to_vec();
    // FNV-style fixed hashing: the value travels between processes, so it
    // must not depend on a per-process random seed.
    let mut hasher = Fnv(0xcbf2_9ce4_8422_2325);
    release.hash(&mut hasher);
    for program in programs.in_order() {
        for insn in program {
            (insn.code, insn.jt, insn.jf, insn.k).hash(&mut hasher);
        }
    }
    Some(hasher.finish())
}

/// A 64-bit FNV-1a hasher: stable across processes and runs.
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The seccomp layer: compile, test-fire (unless the same policy was
/// verified on this kernel before), install. `template` installs a
/// template's filter instead of a worker's.
pub fn install(
    req: &mut Requirement,
    verified: Option<u64>,
    profile: Profile,
    template: bool,
) -> Result<(), SandboxError> {
    let target = if template {
        Target::Template
    } else {
        Target::Worker(std::process::id())
    };
    let programs = match compile(target, profile) {
        Ok(programs) => programs,
        Err(reason) => return req.unavailable(Layer::Seccomp, reason),
    };
    let policy = fingerprint(target, profile);
    let known = policy.is_some() && policy == verified;
    if known {
        req.note("seccomp test-fire skipped: this policy was verified on this kernel before");
    } else if let Err(reason) = test_fire(&programs) {
        return req.unavailable(Layer::Seccomp, reason);
    }
    let result = apply(&programs);
    if result.is_ok()
        && let Some(policy) = policy
    {
        req.seccomp_policy(policy);
    }
    req.outcome(Layer::Seccomp, result)
}
