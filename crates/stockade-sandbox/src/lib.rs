//! Linux containment for a stockade worker, applied in the worker after
//! Configure and before any guest code or engine exists.
//!
//! The layers run in order, each in its own module: [`rlimits`] and
//! [`identity`] (no core dumps, not dumpable, nobody when started as root),
//! [`namespaces`] (user, mount, network and IPC namespaces with an empty,
//! read-only tmpfs as root), [`identity`] again (no capabilities,
//! no_new_privs), [`lsm`] (Landlock: no filesystem, no TCP, scoped abstract
//! sockets and signals), [`seccomp`] (an allow-list filter) and last
//! [`selftest`], which tries what the layers should stop. [`Requirement`]
//! decides what a layer that cannot be applied means: a refusal in
//! `require` mode, a line in the report in `auto` mode.
//!
//! Every layer binds only the calling thread and its later children, so
//! [`apply`] must run while the process has one thread.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod identity;
pub mod lsm;
pub mod namespaces;
mod report;
mod requirement;
pub mod rlimits;
pub mod seccomp;
pub mod selftest;

pub use report::{Layer, Missing, Report};
pub use requirement::{Requirement, SandboxError};
pub use stockade_wire::SandboxMode;

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
}

impl SandboxConfig {
    /// Every layer, as production applies it.
    pub fn new(mode: SandboxMode, cpu_seconds: Option<u64>) -> Self {
        Self {
            mode,
            cpu_seconds,
            skip: Vec::new(),
            verified_seccomp: None,
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
    rlimits::apply(&mut req, config.cpu_seconds)?;
    identity::not_dumpable(&mut req)?;
    identity::become_nobody_if_root(&mut req)?;
    const LEFT_OUT: &str = "left out on purpose";
    if config.wants(Layer::Namespaces) {
        namespaces::isolate(&mut req)?;
    } else {
        req.unavailable(Layer::Namespaces, LEFT_OUT)?;
        req.unavailable(Layer::EmptyRoot, LEFT_OUT)?;
    }
    identity::drop_capabilities(&mut req)?;
    identity::no_new_privs(&mut req)?;
    if config.wants(Layer::LandlockFilesystem) {
        lsm::restrict(&mut req)?;
    } else {
        for layer in [
            Layer::LandlockFilesystem,
            Layer::LandlockNetwork,
            Layer::LandlockScopes,
        ] {
            req.unavailable(layer, LEFT_OUT)?;
        }
    }
    if config.wants(Layer::Seccomp) {
        seccomp::install(&mut req, config.verified_seccomp)?;
    } else {
        req.unavailable(Layer::Seccomp, LEFT_OUT)?;
    }
    selftest::run(&mut req)?;
    Ok(req.into_report())
}
