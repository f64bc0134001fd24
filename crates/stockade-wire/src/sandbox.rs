//! The sandbox's part of the wire: the mode a parent asks for in Configure
//! and the report a worker gives in Ready.

use crate::codec::{Reader, Writer};
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
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::Auto => "auto",
            SandboxMode::Require => "require",
        }
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            SandboxMode::Off => 0,
            SandboxMode::Auto => 1,
            SandboxMode::Require => 2,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(SandboxMode::Off),
            1 => Some(SandboxMode::Auto),
            2 => Some(SandboxMode::Require),
            _ => None,
        }
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
    w.u8(report.mode.code());
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
    let mode = r.code("sandbox mode", SandboxMode::from_code)?;
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
