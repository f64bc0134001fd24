//! Linux containment for a stockade worker, applied in the worker after
//! Configure and before any guest code or engine exists.
//!
//! The layers run in order, each in its own module: [`rlimits`] and
//! [`identity`] (no core dumps, not dumpable, nobody when started as root),
//! [`namespaces`] (user, mount, network and IPC namespaces with an empty,
//! read-only tmpfs as root holding only the [`readable`] trees),
//! [`identity`] again (no capabilities, no_new_privs), [`lsm`] (Landlock:
//! reading the readable trees and nothing else, no TCP, scoped abstract
//! sockets and signals), [`seccomp`] (an allow-list filter) and last
//! [`selftest`], which tries what the layers should stop. [`Requirement`]
//! decides what a layer that cannot be applied means: a refusal in
//! `require` mode, a line in the report in `auto` mode.
//!
//! Every layer binds only the calling thread and its later children, so
//! [`apply`] must run while the process has one thread.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod devices;
pub mod identity;
pub mod lsm;
pub mod namespaces;
pub mod readable;
mod report;
mod requirement;
pub mod rlimits;
pub mod scratch;
pub mod seccomp;
pub mod selftest;

pub use report::{Forked, Layer, Missing, Report};
pub use requirement::{Requirement, SandboxError};
pub use seccomp::Profile;
pub use stockade_wire::SandboxMode;

use std::path::PathBuf;

/// What the sandbox is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    pub mode: SandboxMode,
    /// RLIMIT_CPU in seconds (the host sends twice its hard deadline).
    pub cpu_seconds: Option<u64>,
    /// Layers left out on purpose, so tests can attack one layer alone.
    /// Empty in production; never set from the wire.
    pub skip: Vec<Layer>,
    /// A seccomp policy fingerprint a test-fire already verified on this
    /// kernel: when the worker's own matches, its test-fire is skipped.
    pub verified_seccomp: Option<u64>,
    /// Host directories and files the guest may read, each shown read-only
    /// at its own absolute path; empty for a worker that needs no files.
    pub readable: Vec<PathBuf>,
    /// Paths inside the readable trees the guest must not see (the
    /// interpreter's own site-packages, say): covered with something empty.
    pub hidden: Vec<PathBuf>,
    /// The process is a template that forks workers after its sandbox
    /// ([`seccomp::Target::Template`]); each worker then calls
    /// [`enter_forked_worker`] first.
    pub template: bool,
    /// Bytes of the guest's private scratch directory (see [`scratch`]),
    /// for an engine that reads and writes files itself (one with
    /// `readable` trees); None: no scratch directory.
    pub scratch: Option<u64>,
}

impl SandboxConfig {
    /// Every layer, as production applies it.
    pub fn new(mode: SandboxMode, cpu_seconds: Option<u64>) -> Self {
        Self {
            mode,
            cpu_seconds,
            skip: Vec::new(),
            verified_seccomp: None,
            readable: Vec::new(),
            hidden: Vec::new(),
            template: false,
            scratch: None,
        }
    }

    fn wants(&self, layer: Layer) -> bool {
        !self.skip.contains(&layer)
    }
}

/// Applies every layer in order and returns what is in force.
///
/// In `require` mode the first layer that cannot be applied is an error and
/// the caller must not run guest code. In `auto` mode missing layers are
/// listed in the report. In `off` mode nothing is applied.
pub fn apply(config: &SandboxConfig) -> Result<Report, SandboxError> {
    let mut req = Requirement::new(config.mode);
    if config.mode == SandboxMode::Off {
        return Ok(req.into_report());
    }
    let readable = readable::normalise(&config.readable).map_err(SandboxError::Readable)?;
    rlimits::apply(&mut req, config.cpu_seconds)?;
    // Started as root, the worker clones the trees now, while it may still
    // pass directories only root may enter (an interpreter under /root);
    // once it is nobody it could not. Any other worker clones them inside
    // its own namespace, and so does root that may not clone here (root in
    // a container, without CAP_SYS_ADMIN).
    let early = (rustix::process::geteuid().is_root()
        && !readable.is_empty()
        && config.wants(Layer::Namespaces))
    .then(|| readable::clone_trees(&readable));
    identity::not_dumpable(&mut req)?;
    identity::become_nobody_if_root(&mut req)?;
    const LEFT_OUT: &str = "left out on purpose";
    // Only an engine that reads files itself writes them itself.
    let reads_files = !config.readable.is_empty();
    let scratch = config.scratch.filter(|_| reads_files);
    let mut mounted = false;
    if config.wants(Layer::Namespaces) {
        let hidden = readable::still_hidden(&config.hidden, &config.readable)
            .map_err(SandboxError::Readable)?;
        // A template mounts no scratch of its own: each worker it forks
        // mounts its own, in a mount namespace of its own.
        let in_root = match scratch {
            None => scratch::InRoot::Nothing,
            Some(_) if config.template => scratch::InRoot::MountPoint,
            Some(bytes) => scratch::InRoot::Scratch(bytes),
        };
        mounted = namespaces::isolate(&mut req, &readable, &hidden, early, in_root)?;
    } else {
        req.unavailable(Layer::Namespaces, LEFT_OUT)?;
        req.unavailable(Layer::EmptyRoot, LEFT_OUT)?;
    }
    if scratch.is_some() && !mounted {
        req.note("scratch: none (it needs the empty root)");
    }
    // The file calls the filter allows follow what is mounted: writing
    // only where a scratch is (without the empty root's read-only mounts,
    // the filter is what keeps writes off the host).
    let profile = match (reads_files, mounted) {
        (false, _) => Profile::Closed,
        (true, false) => Profile::Interpreter,
        (true, true) => Profile::Scratch,
    };
    rlimits::cap_open_files(
        &mut req,
        match profile {
            Profile::Closed => rlimits::OPEN_FILES,
            Profile::Interpreter => rlimits::INTERPRETER_OPEN_FILES,
            Profile::Scratch => rlimits::SCRATCH_OPEN_FILES,
        },
    )?;
    // A template whose workers mount their own scratch leaves them the
    // capabilities that takes, and Landlock, which forbids mounting: each
    // worker drops the one and enters the other itself, before it reads
    // anything from the host (`enter_forked_worker`). The template itself
    // runs no guest code, under its own seccomp filter.
    let deferred = config.template && mounted;
    let scratch_dir = mounted.then(|| std::path::Path::new(scratch::SCRATCH_DIR));
    let landlock = config.wants(Layer::LandlockFilesystem);
    if deferred {
        req.note("capabilities and Landlock: put in force by each forked worker, after it mounts its scratch");
        req.applied(Layer::NoCapabilities);
    } else {
        identity::drop_capabilities(&mut req)?;
    }
    identity::no_new_privs(&mut req)?;
    if !landlock {
        for layer in [
            Layer::LandlockFilesystem,
            Layer::LandlockNetwork,
            Layer::LandlockScopes,
        ] {
            req.unavailable(layer, LEFT_OUT)?;
        }
    } else if deferred {
        let why = (!lsm::fully_enforceable())
            .then(|| format!("this kernel offers Landlock ABI {}", lsm::kernel_abi()));
        for layer in [
            Layer::LandlockFilesystem,
            Layer::LandlockNetwork,
            Layer::LandlockScopes,
        ] {
            match &why {
                None => req.applied(layer),
                Some(why) => req.unavailable(layer, why.clone())?,
            }
        }
    } else {
        lsm::restrict(&mut req, &readable, scratch_dir)?;
    }
    if config.wants(Layer::Seccomp) {
        seccomp::install(&mut req, config.verified_seccomp, profile, config.template)?;
    } else {
        req.unavailable(Layer::Seccomp, LEFT_OUT)?;
    }
    if !deferred {
        selftest::run(&mut req, &readable, scratch_dir)?;
    } else {
        // The template's own probes would find what its workers close.
        req.applied(Layer::SelfTest);
    }
    let forked = deferred.then(|| Forked {
        mode: config.mode,
        readable: readable.clone(),
        scratch,
        landlock,
    });
    let mut report = req.into_report();
    report.forked = forked;
    Ok(report)
}

/// In a worker a template forked, before it reads anything from the host:
/// when the template left it `forked` (its scratch, see [`scratch`]), it
/// enters a mount namespace of its own, mounts its scratch over
/// [`scratch::SCRATCH_DIR`] (readable trees beneath it attached again
/// inside), drops its capabilities and enters Landlock; then it narrows
/// the template's filter to this process (no fork, no signal or limit on
/// another process, none of the template's extra calls), when the
/// template had one in force (`seccomp`). Every other layer is the
/// template's, shared by all its workers: they cannot reach each other
/// through any of them (docs/security.md, "Workers forked from a
/// template").
///
/// Returns notes for the worker's report: what it put in force itself.
pub fn enter_forked_worker(
    seccomp: bool,
    forked: Option<&Forked>,
) -> Result<Vec<String>, SandboxError> {
    let mut notes = Vec::new();
    if let Some(forked) = forked {
        let mut req = Requirement::new(forked.mode);
        match own_scratch(forked) {
            Ok(bytes) => notes.push(format!(
                "its own {bytes}-byte scratch at {}",
                scratch::SCRATCH_DIR
            )),
            // In auto mode: the template's read-only empty directory stays,
            // and the worker writes nowhere.
            Err(why) => req.unavailable(
                Layer::EmptyRoot,
                format!("the forked worker's scratch: {why}"),
            )?,
        }
        identity::drop_capabilities(&mut req)?;
        if forked.landlock {
            lsm::restrict(
                &mut req,
                &forked.readable,
                Some(std::path::Path::new(scratch::SCRATCH_DIR)),
            )?;
        }
        if !req.is_applied(Layer::NoCapabilities) {
            return Err(SandboxError::Narrowing(
                "a forked worker could not drop its capabilities".into(),
            ));
        }
        notes.push("capabilities dropped".into());
        if req.is_applied(Layer::LandlockFilesystem) {
            notes.push("Landlock of its own".into());
        }
        let report = req.into_report();
        notes.extend(
            report
                .missing
                .iter()
                .map(|m| format!("{}: {}", m.layer, m.reason)),
        );
        notes.extend(report.extras);
    }
    if !seccomp {
        return Ok(notes);
    }
    seccomp::narrow(std::process::id()).map_err(SandboxError::Narrowing)?;
    notes.push("the seccomp filter narrowed to this worker".into());
    selftest::narrowed(forked).map_err(SandboxError::SelfTestFailed)?;
    Ok(notes)
}

/// A forked worker's own scratch: a mount namespace of its own, a new
/// tmpfs over the scratch directory, and in it the readable trees that lie
/// beneath that directory (cloned before the tmpfs covers them).
fn own_scratch(forked: &Forked) -> Result<u64, String> {
    let bytes = forked.scratch.ok_or("no size")?;
    // SAFETY: a new mount namespace only; the process has one thread (it
    // was just forked from the template's session thread).
    unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS) }
        .map_err(|e| format!("cannot enter a mount namespace of its own: {e}"))?;
    let beneath: Vec<std::path::PathBuf> = forked
        .readable
        .iter()
        .filter(|path| path.starts_with(scratch::SCRATCH_DIR))
        .cloned()
        .collect();
    let trees = readable::clone_trees(&beneath)?;
    scratch::mount_scratch(scratch::SCRATCH_DIR, bytes)?;
    readable::attach(trees, "/")?;
    rustix::process::chdir(scratch::SCRATCH_DIR)
        .map_err(|e| format!("cannot enter the scratch directory: {e}"))?;
    Ok(bytes)
}
