//! A host directory a session's guest sees at a path of its own: opened
//! once, when the `Mount` is made, and bound to that directory from then
//! on (a descriptor, never the path again), in one of three modes.

use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use rustix::fd::AsRawFd;

use crate::error::Error;

/// What a guest may do in a mounted directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MountMode {
    /// Reads only: every write is a PermissionError.
    ReadOnly,
    /// Reads and writes, which go through to the host directory.
    ReadWrite,
    /// Reads from the host directory; writes are kept in the host's memory
    /// for the session (within its `max_file_memory`) and dropped at its
    /// end, so the directory itself is never changed.
    Overlay,
}

impl MountMode {
    /// The mode a word names: `ro`, `rw` or `overlay`.
    pub fn parse(word: &str) -> Result<Self, Error> {
        match word {
            "ro" => Ok(MountMode::ReadOnly),
            "rw" => Ok(MountMode::ReadWrite),
            "overlay" => Ok(MountMode::Overlay),
            other => Err(Error::invalid_option(format!(
                "mount mode {other:?} is not one of ro, rw, overlay"
            ))),
        }
    }

    /// The word for the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            MountMode::ReadOnly => "ro",
            MountMode::ReadWrite => "rw",
            MountMode::Overlay => "overlay",
        }
    }
}

/// A host directory shown to the guest at `guest_path`. Cloning shares the
/// opened directory; each session that uses a mount gets its own overlay.
#[derive(Debug, Clone)]
pub struct Mount {
    guest_path: String,
    mode: MountMode,
    /// monty-fs's root: the directory as it was opened when the mount was
    /// made, what every session serves from.
    pub(crate) root: monty_fs::MountRoot,
}

impl Mount {
    /// Opens `host_dir` now and binds the mount to it. A missing path, a
    /// file, a relative `guest_path`, or one with `..` in it is an error
    /// here, not when the guest first looks.
    pub fn new(
        guest_path: &str,
        host_dir: impl AsRef<Path>,
        mode: MountMode,
    ) -> Result<Self, Error> {
        let host_dir = host_dir.as_ref();
        if !guest_path.starts_with('/') {
            return Err(Error::invalid_option(format!(
                "mount path {guest_path:?} is not absolute: a guest path starts with /"
            )));
        }
        if guest_path
            .split('/')
            .any(|part| part == ".." || part == ".")
        {
            return Err(Error::invalid_option(format!(
                "mount path {guest_path:?} has . or .. in it"
            )));
        }
        if guest_path.contains('\0') {
            return Err(Error::invalid_option(format!(
                "mount path {guest_path:?} has a NUL byte in it"
            )));
        }
        let dir = Dir::open_ambient_dir(host_dir, ambient_authority()).map_err(|err| {
            Error::invalid_option(format!(
                "cannot mount {}: {err} (a mount is an existing directory)",
                host_dir.display()
            ))
        })?;
        // monty-fs opens by path; the descriptor's own /proc entry names
        // exactly the directory just opened, whatever the path names by now.
        let pinned = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
        let root = monty_fs::MountRoot::open(guest_path, &pinned).map_err(|err| {
            Error::invalid_option(format!("cannot mount {}: {err}", host_dir.display()))
        })?;
        Ok(Self {
            guest_path: root.virtual_path().to_owned(),
            mode,
            root,
        })
    }

    /// Where the guest sees the directory (normalised: no trailing `/`).
    pub fn guest_path(&self) -> &str {
        &self.guest_path
    }

    /// What the guest may do there.
    pub fn mode(&self) -> MountMode {
        self.mode
    }

    /// The directory's path on the host, as it was when the mount was
    /// made: for messages only, nothing is opened by it again.
    pub fn host_path(&self) -> &Path {
        self.root.host_path()
    }
}
