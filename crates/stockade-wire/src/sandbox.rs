//! The sandbox's part of the wire: the mode a parent asks for in Configure
//! and the report a worker gives in Ready.

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::names::named_set;

/// Most entries in each list of a report.
const MAX_ENTRIES: usize = 64;
/// Longest layer name or extra note.
const MAX_NOTE: usize = 1024;

named_set! {
    /// How strictly the worker applies its OS sandbox.
    pub enum SandboxMode, named as "sandbox", on the wire as "sandbox mode" {
        /// No sandbox; for debugging only.
        Off = "off" => 0,
        /// Every layer the kernel gives; the missing ones are reported.
        Auto = "auto" => 1,
        /// Every layer, or the worker refuses to start.
        Require = "require" => 2,
    }
}

named_set! {
    /// One containment layer, by the name a sandbox report gives it; the
    /// order is the order the sandbox applies them.
    pub enum Layer, named as "sandbox layer" {
        /// RLIMIT_CORE 0, RLIMIT_CPU, RLIMIT_NOFILE.
        Rlimits = "rlimits",
        /// Not dumpable: no core dumps, no ptrace by same-user processes,
        /// /proc entries owned by root.
        NotDumpable = "not-dumpable",
        /// Running as nobody (only when started as root).
        Nobody = "nobody",
        /// User, mount, network and IPC namespaces.
        Namespaces = "namespaces",
        /// An empty, read-only tmpfs as the root directory.
        EmptyRoot = "empty-root",
        /// No capabilities in any set.
        NoCapabilities = "no-capabilities",
        /// PR_SET_NO_NEW_PRIVS.
        NoNewPrivs = "no-new-privs",
        /// Landlock filesystem rules (no access at all).
        LandlockFilesystem = "landlock-filesystem",
        /// Landlock network rules (no TCP bind or connect).
        LandlockNetwork = "landlock-network",
        /// Landlock scopes (abstract UNIX sockets and signals).
        LandlockScopes = "landlock-scopes",
        /// The seccomp-bpf allow-list.
        Seccomp = "seccomp",
        /// The self-test found nothing getting through.
        SelfTest = "self-test",
    }
}

/// Which sandbox layers a worker has in force, sent in Ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxReport {
    pub mode: SandboxMode,
    /// Names of the layers in force, in the order applied.
    pub applied: Vec<String>,
    /// Layers not in force, each with the reason.
    pub missing: Vec<(String, String)>,
    /// Notes about this kernel worth knowing.
    pub extras: Vec<String>,
    /// Fingerprint of the seccomp policy in force, verified by a test-fire
    /// on this kernel; a parent may send it back in later Configures so
    /// their workers skip the test-fire.
    pub seccomp_policy: Option<u64>,
}

impl SandboxReport {
    /// A report of no layers at all, as a worker run with the sandbox off
    /// would give (and a host has before any Ready).
    pub fn unsandboxed() -> Self {
        Self {
            mode: SandboxMode::Off,
            applied: Vec::new(),
            missing: Vec::new(),
            extras: Vec::new(),
            seccomp_policy: None,
        }
    }

    /// Whether `layer` is in force. Layers travel by name, so a report
    /// from a newer worker may also name layers this side does not know.
    pub fn has(&self, layer: Layer) -> bool {
        self.applied.iter().any(|name| name == layer.name())
    }

    /// Whether every layer is in force.
    pub fn is_complete(&self) -> bool {
        self.mode != SandboxMode::Off && self.missing.is_empty()
    }
}

fn note(w: &mut Writer, text: &str) -> Result<(), EncodeError> {
    if text.len() > MAX_NOTE {
        return Err(EncodeError::Invalid(format!(
            "a sandbox report entry of {} bytes exceeds {MAX_NOTE}",
            text.len()
        )));
    }
    w.str(text)
}

pub(crate) fn write_report(w: &mut Writer, report: &SandboxReport) -> Result<(), EncodeError> {
    w.closed(report.mode);
    w.list(&report.applied, MAX_ENTRIES, "layers in force", |w, s| {
        note(w, s)
    })?;
    w.list(
        &report.missing,
        MAX_ENTRIES,
        "missing layers",
        |w, (layer, reason)| {
            note(w, layer)?;
            note(w, reason)
        },
    )?;
    w.list(&report.extras, MAX_ENTRIES, "notes", |w, s| note(w, s))?;
    w.opt_u64(report.seccomp_policy);
    Ok(())
}

pub(crate) fn read_report(r: &mut Reader<'_>) -> Result<SandboxReport, DecodeError> {
    let mode = r.closed()?;
    let applied = r.list(MAX_ENTRIES, "sandbox report", |r| {
        r.str_capped("sandbox layer", MAX_NOTE)
    })?;
    let missing = r.list(MAX_ENTRIES, "sandbox report", |r| {
        Ok((
            r.str_capped("sandbox layer", MAX_NOTE)?,
            r.str_capped("sandbox reason", MAX_NOTE)?,
        ))
    })?;
    let extras = r.list(MAX_ENTRIES, "sandbox report", |r| {
        r.str_capped("sandbox note", MAX_NOTE)
    })?;
    let seccomp_policy = r.opt_u64()?;
    Ok(SandboxReport {
        mode,
        applied,
        missing,
        extras,
        seccomp_policy,
    })
}
