//! A session's files: its mounts in one monty-fs table (each overlay
//! fresh for the session, within the session's `max_file_memory`), the
//! one guard the table has not (files with more than one hard link), and
//! the answer for calls no mount covers.
//!
//! The table resolves every path beneath the mount's directory descriptor
//! (cap-std: `openat2` with `RESOLVE_BENEATH` where the kernel has it), so
//! `..`, absolute symlinks, symlinks that lead out and directories swapped
//! for symlinks while a call runs all fail there; FIFOs, sockets and
//! devices are refused without being opened for I/O.

use std::sync::Arc;

use cap_std::fs::{Dir, MetadataExt};
use monty_fs::{MountCallOutcome, MountTable, OverlayState};
use monty_types::{MontyException, OsFunctionCall};
use stockade_wire::{CallOutcome, GuestException, Value};

use super::mount::{Mount, MountMode};
use super::os_call;
use super::world::{self, GuestClock};

/// The mounts one session sees, and their state.
#[derive(Debug)]
pub(crate) struct SessionFiles {
    table: MountTable,
    environ: Vec<(String, String)>,
    clock: GuestClock,
    /// Each mount's guest path, directory and mode, for the guards.
    dirs: Vec<(String, Arc<Dir>, MountMode)>,
    /// `max_file_memory`: the most one write may carry.
    budget: u64,
}

/// Paths monty-fs refuses itself (longer, or deeper): the guards leave
/// them to it rather than walk them.
const MAX_PATH_BYTES: usize = 4096;
const MAX_PATH_DEPTH: usize = 64;
/// The most entries a directory renamed inside an overlay may hold: each
/// is checked for hard links first.
const MAX_OVERLAY_RENAME_ENTRIES: usize = 10_000;

impl SessionFiles {
    /// The session's view of `mounts`: overlays start empty and share
    /// `budget` bytes between them; any one read or write may take
    /// `budget` bytes.
    pub(crate) fn new(
        mounts: &[Mount],
        budget: u64,
        environ: Vec<(String, String)>,
        clock: GuestClock,
    ) -> Self {
        let overlays = mounts
            .iter()
            .filter(|mount| mount.mode() == MountMode::Overlay)
            .count()
            .max(1) as u64;
        let mut table = MountTable::new();
        let mut dirs = Vec::with_capacity(mounts.len());
        for mount in mounts {
            let (mode, limit) = match mount.mode() {
                MountMode::ReadOnly => (monty_fs::MountMode::ReadOnly, budget),
                MountMode::ReadWrite => (monty_fs::MountMode::ReadWrite, budget),
                MountMode::Overlay => (
                    monty_fs::MountMode::OverlayMemory(OverlayState::new()),
                    budget / overlays,
                ),
            };
            table.push_mount(
                monty_fs::Mount::with_root(mount.root.clone(), mode, None)
                    .with_memory_usage_limit(limit),
            );
            dirs.push((
                mount.guest_path().to_owned(),
                Arc::clone(&mount.dir),
                mount.mode(),
            ));
        }
        Self {
            table,
            environ,
            clock,
            dirs,
            budget,
        }
    }

    /// Serves one OS call of the guest's: the answer of a mount, the
    /// environment or the clock, or Err with the refusal when nothing
    /// covers it (the host's `os_handler` may answer instead).
    pub(crate) fn serve(
        &mut self,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<CallOutcome, CallOutcome> {
        if let Some(answer) = world::answer(name, &args, &kwargs, &self.environ, self.clock) {
            return Ok(answer);
        }
        let call = match os_call::decode(name, args, kwargs) {
            Ok(call) => call,
            // A name no engine of ours sends: the host's handler may know it.
            Err(why) => return Err(raise("PermissionError", &why)),
        };
        if let Some(refused) = self.too_large(&call).or_else(|| self.hard_linked(&call)) {
            return Ok(refused);
        }
        match self.table.handle_os_call(call) {
            MountCallOutcome::Handled(Ok(object)) => Ok(match os_call::encode(object) {
                Ok(value) => CallOutcome::Return(value),
                Err(why) => raise("RuntimeError", &why),
            }),
            MountCallOutcome::Handled(Err(err)) => Ok(exception(&err.into_exception())),
            MountCallOutcome::NotHandled(call) if call.fs_primary_path().is_some() => {
                Err(exception(&call.on_no_handler()))
            }
            MountCallOutcome::NotHandled(call) => Err(raise(
                "PermissionError",
                &format!(
                    "{} is not available: the sandbox has no operating system access",
                    call.name()
                ),
            )),
        }
    }

    /// A MemoryError for a write that carries more than `max_file_memory`,
    /// whichever the mode.
    fn too_large(&self, call: &OsFunctionCall) -> Option<CallOutcome> {
        let size = match call {
            OsFunctionCall::WriteText(args) | OsFunctionCall::AppendText(args) => args.data.len(),
            OsFunctionCall::WriteBytes(args) | OsFunctionCall::AppendBytes(args) => args.data.len(),
            _ => return None,
        };
        (size as u64 > self.budget).then(|| {
            raise(
                "MemoryError",
                &format!(
                    "a write of {size} bytes is more than max_file_memory ({} bytes)",
                    self.budget
                ),
            )
        })
    }

    /// A PermissionError for a call that names a regular file with more
    /// than one hard link: another name for it may lie outside every
    /// mount, and nothing in the mount can show which. Existence checks
    /// still answer.
    fn hard_linked(&self, call: &OsFunctionCall) -> Option<CallOutcome> {
        if call.is_existence_check() {
            return None;
        }
        let paths = [call.fs_primary_path(), call.rename_destination()];
        for path in paths.into_iter().flatten() {
            if path.len() > MAX_PATH_BYTES || path.split('/').count() > MAX_PATH_DEPTH + 1 {
                continue;
            }
            let normalized = normalize(path);
            let Some((dir, relative, mode)) = self.beneath(&normalized) else {
                continue;
            };
            if relative.is_empty() {
                continue;
            }
            let Ok(meta) = dir.metadata(relative) else {
                continue;
            };
            if meta.is_file() && meta.nlink() > 1 {
                return Some(hard_link_refused(path));
            }
            // An overlay keeps a renamed directory's files as pointers to
            // their real names, which no later check would see: what is in
            // it is checked now.
            if meta.is_dir()
                && mode == MountMode::Overlay
                && matches!(call, OsFunctionCall::Rename(_))
                && let Some(refused) = overlay_subtree_refused(dir, relative, path)
            {
                return Some(refused);
            }
        }
        None
    }

    /// The mount a normalised guest path falls under (the longest), and
    /// the path relative to it.
    fn beneath<'p>(&self, normalized: &'p str) -> Option<(&Dir, &'p str, MountMode)> {
        self.dirs
            .iter()
            .filter_map(|(guest, dir, mode)| {
                let rest = if guest == "/" {
                    Some(normalized.trim_start_matches('/'))
                } else if normalized == guest {
                    Some("")
                } else {
                    normalized
                        .strip_prefix(guest.as_str())
                        .and_then(|rest| rest.strip_prefix('/'))
                };
                rest.map(|rest| (guest.len(), dir.as_ref(), rest, *mode))
            })
            .max_by_key(|(len, _, _, _)| *len)
            .map(|(_, dir, rest, mode)| (dir, rest, mode))
    }
}

fn hard_link_refused(path: &str) -> CallOutcome {
    raise(
        "PermissionError",
        &format!("Permission denied: {path:?} (a file with more than one hard link is not served)"),
    )
}

/// A refusal when the real directory `relative` (guest path `path`) holds
/// a file with more than one hard link, or more entries than are checked.
fn overlay_subtree_refused(dir: &Dir, relative: &str, path: &str) -> Option<CallOutcome> {
    let mut pending = vec![(relative.to_owned(), 0usize)];
    let mut seen = 0usize;
    while let Some((at, depth)) = pending.pop() {
        let Ok(entries) = dir.read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_OVERLAY_RENAME_ENTRIES || depth >= MAX_PATH_DEPTH {
                return Some(raise(
                    "OSError",
                    &format!(
                        "{path:?} holds more than {MAX_OVERLAY_RENAME_ENTRIES} entries, or is deeper than {MAX_PATH_DEPTH}, to rename inside an overlay"
                    ),
                ));
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            let child = format!("{at}/{name}");
            match dir.symlink_metadata(&child) {
                Ok(meta) if meta.is_file() && meta.nlink() > 1 => {
                    return Some(hard_link_refused(path));
                }
                Ok(meta) if meta.is_dir() => pending.push((child, depth + 1)),
                _ => {}
            }
        }
    }
    None
}

/// `path` made absolute with `.` and `..` resolved in the guest's own
/// namespace (`..` at the root stays there), as the mount table does.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

fn raise(type_name: &str, message: &str) -> CallOutcome {
    CallOutcome::Raise(GuestException::new(type_name, message))
}

fn exception(exception: &MontyException) -> CallOutcome {
    let type_name: &'static str = exception.exc_type().into();
    raise(type_name, exception.message().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn guest_paths_normalise_inside_the_guest_namespace() {
        assert_eq!(normalize("/data/../data/./x.csv"), "/data/x.csv");
        assert_eq!(normalize("/../../etc/passwd"), "/etc/passwd");
        assert_eq!(normalize("relative/x"), "/relative/x");
    }
}
