//! The sandbox's part of the wire: the mode a parent asks for in Configure
//! and the report a worker gives in Ready.

use crate::codec::{Code, Reader, Writer};
use crate::error::{DecodeError, EncodeError};

/// Most entries in each list of a report.
const MAX_ENTRIES: usize = 64;
/// Longest layer name or extra note.
const MAX_NOTE: usize = 1024;

/// How strictly the worker applies its OS sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SandboxMode {
    /// No sandbox; for debugging only.
    Off,
    /// Every layer the kernel gives; the missing ones are reported.
    Auto,
    /// Every layer, or the worker refuses to start.
    Require,
}

impl SandboxMode {
    /// Every mode, in order of strictness.
    pub const ALL: [SandboxMode; 3] = [SandboxMode::Off, SandboxMode::Auto, SandboxMode::Require];

    /// The name used on the command line, in options and in messages.
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::Auto => "auto",
            SandboxMode::Require => "require",
        }
    }
}

impl Code for SandboxMode {
    const WHAT: &'static str = "sandbox mode";
    const MEMBERS: &'static [Self] = &SandboxMode::ALL;

    fn code(self) -> u8 {
        match self {
            SandboxMode::Off => 0,
            SandboxMode::Auto => 1,
            SandboxMode::Require => 2,
        }
    }
}

impl std::fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SandboxMode {
    type Err = crate::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        crate::UnknownName::find("sandbox", name, &Self::ALL, |mode| mode.name())
    }
}

/// One containment layer, by the name a sandbox report gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// RLIMIT_CORE 0, RLIMIT_CPU, RLIMIT_NOFILE.
    Rlimits,
    /// Not dumpable: no core dumps, no ptrace by same-user processes, /proc
    /// entries owned by root.
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
    /// Every layer, in the order the sandbox applies them.
    pub const ALL: [Layer; 12] = [
        Layer::Rlimits,
        Layer::NotDumpable,
        Layer::Nobody,
        Layer::Namespaces,
        Layer::EmptyRoot,
        Layer::NoCapabilities,
        Layer::NoNewPrivs,
        Layer::LandlockFilesystem,
        Layer::LandlockNetwork,
        Layer::LandlockScopes,
        Layer::Seccomp,
        Layer::SelfTest,
    ];

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

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Layer {
    type Err = crate::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        crate::UnknownName::find("sandbox layer", name, &Self::ALL, |layer| layer.name())
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

fn write_list<T>(
    w: &mut Writer,
    items: &[T],
    mut each: impl FnMut(&mut Writer, &T) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    if items.len() > MAX_ENTRIES {
        return Err(EncodeError::Invalid(format!(
            "a sandbox report list of {} entries exceeds {MAX_ENTRIES}",
            items.len()
        )));
    }
    w.u32(items.len() as u32);
    items.iter().try_for_each(|item| each(w, item))
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
    write_list(w, &report.applied, |w, s| note(w, s))?;
    write_list(w, &report.missing, |w, (layer, reason)| {
        note(w, layer)?;
        note(w, reason)
    })?;
    write_list(w, &report.extras, |w, s| note(w, s))?;
    w.opt(report.seccomp_policy, |w, v| {
        w.u64(v);
        Ok(())
    })
}

fn read_list<T>(
    r: &mut Reader<'_>,
    mut each: impl FnMut(&mut Reader<'_>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let count = r.u32()? as usize;
    if count > MAX_ENTRIES {
        return Err(DecodeError::Invalid {
            what: "sandbox report",
            at: 0,
            detail: format!("{count} entries exceeds {MAX_ENTRIES}"),
        });
    }
    (0..count).map(|_| each(r)).collect()
}

pub(crate) fn read_report(r: &mut Reader<'_>) -> Result<SandboxReport, DecodeError> {
    let mode = r.closed()?;
    let applied = read_list(r, |r| r.str_capped("sandbox layer", MAX_NOTE))?;
    let missing = read_list(r, |r| {
        Ok((
            r.str_capped("sandbox layer", MAX_NOTE)?,
            r.str_capped("sandbox reason", MAX_NOTE)?,
        ))
    })?;
    let extras = read_list(r, |r| r.str_capped("sandbox note", MAX_NOTE))?;
    let seccomp_policy = r.opt(Reader::u64)?;
    Ok(SandboxReport {
        mode,
        applied,
        missing,
        extras,
        seccomp_policy,
    })
}
