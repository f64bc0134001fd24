//! The sandbox report: which layers are in force and which are missing, and why.

/// One containment layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// RLIMIT_CORE 0, RLIMIT_CPU, RLIMIT_NOFILE.
    Rlimits,
    /// Not dumpable: no core dumps, no ptrace by same-user processes, /proc entries owned by root.
    NotDumpable,
    /// Running as nobody (only when started as root).
    Nobody,
    /// User, mount, network and IPC namespaces.
    Namespaces,
    /// An empty, read-only tmpfs as the root directory.
    EmptyRoot,
    /// No capabilities in any set.
    NoCapabilities,
    /// PR_SET_NO_NEW_PRIVS.
    NoNewPrivs,
    /// Landlock filesystem rules (no access at all).
    LandlockFilesystem,
    /// Landlock network rules (no TCP bind or connect).
    LandlockNetwork,
    /// Landlock scopes (abstract UNIX sockets and signals).
    LandlockScopes,
    /// The seccomp-bpf allow-list.
    Seccomp,
    /// The self-test found nothing getting through.
    SelfTest,
}

impl Layer {
    /// The name used in reports, on the wire and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Rlimits => "rlimits",
            Layer::NotDumpable => "not-dumpable",
            Layer::Nobody => "nobody",
            Layer::Namespaces => "namespaces",
            Layer::EmptyRoot => "empty-root",
            Layer::NoCapabilities => "no-capabilities",
            Layer::NoNewPrivs => "no-new-privs",
            Layer::LandlockFilesystem => "landlock-filesystem",
            Layer::LandlockNetwork => "landlock-network",
            Layer::LandlockScopes => "landlock-scopes",
            Layer::Seccomp => "seccomp",
            Layer::SelfTest => "self-test",
        }
    }
}

/// A layer that is not in force, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub layer: Layer,
    pub reason: String,
}

/// What the sandbox put in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub mode: crate::Mode,
    pub applied: Vec<Layer>,
    pub missing: Vec<Missing>,
    /// Notes that are neither: facts of this kernel worth knowing.
    pub extras: Vec<String>,
    /// Fingerprint of the seccomp policy in force (its filters and this
    /// kernel), once a test-fire has verified it.
    pub seccomp_policy: Option<u64>,
}

impl Report {
    /// Whether every layer the mode asks for is in force.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}
