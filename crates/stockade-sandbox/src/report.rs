//! The sandbox report: which layers are in force and which are missing, and why.
//! The layers and modes are the wire's: they are the worker's contract with its host.

use std::path::PathBuf;

use stockade_wire::SandboxMode;

pub use stockade_wire::Layer;

/// A layer that is not in force, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub layer: Layer,
    pub reason: String,
}

/// What the sandbox put in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub mode: SandboxMode,
    pub applied: Vec<Layer>,
    pub missing: Vec<Missing>,
    /// Notes that are neither: facts of this kernel worth knowing.
    pub extras: Vec<String>,
    /// Fingerprint of the seccomp policy in force (its filters and this
    /// kernel), once a test-fire has verified it.
    pub seccomp_policy: Option<u64>,
    /// In a template's report: what each worker it forks puts in force for
    /// itself ([`crate::enter_forked_worker`]).
    pub forked: Option<Forked>,
}

/// What a template leaves to each worker it forks: its own scratch, and
/// the layers that must come after mounting it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    pub mode: SandboxMode,
    /// The readable trees, normalised (for Landlock, and to attach those
    /// beneath the scratch directory again).
    pub readable: Vec<PathBuf>,
    /// Bytes of the scratch.
    pub scratch: Option<u64>,
    /// Whether to enter Landlock (the template found it fully enforceable).
    pub landlock: bool,
}

impl Report {
    /// Whether every layer the mode asks for is in force.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}
