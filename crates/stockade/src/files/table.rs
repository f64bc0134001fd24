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

use cap_std::fs::MetadataExt;
use std::sync::Arc;

use cap_std::fs::Dir;
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
    /// Each mount's guest path and directory, for the hard-link guard.
    dirs: Vec<(String, Arc<Dir>)>,
}

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
            dirs.push((mount.guest_path().to_owned(), Arc::clone(&mount.dir)));
        }
        Self {
            table,
            environ,
            clock,
            dirs,
        }
    }

    /// Serves one OS call of the guest's.
    pub(crate) fn call(
        &mut self,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> CallOutcome {
        if let Some(answer) = world::answer(name, &args, &kwargs, &self.environ, self.clock) {
            return answer;
        }
        let call = match os_call::decode(name, args, kwargs) {
            Ok(call) => call,
            Err(why) => return raise("TypeError", &why),
        };
        if let Some(refused) = self.hard_linked(&call) {
            return refused;
        }
        match self.table.handle_os_call(call) {
            MountCallOutcome::Handled(Ok(object)) => match os_call::encode(object) {
                Ok(value) => CallOutcome::Return(value),
                Err(why) => raise("RuntimeError", &why),
            },
            MountCallOutcome::Handled(Err(err)) => exception(&err.into_exception()),
            MountCallOutcome::NotHandled(call) if call.fs_primary_path().is_some() => {
                exception(&call.on_no_handler())
            }
            MountCallOutcome::NotHandled(call) => raise(
                "PermissionError",
                &format!(
                    "{} is not available: the sandbox has no operating system access",
                    call.name()
                ),
            ),
        }
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
            let normalized = normalize(path);
            let Some((dir, relative)) = self.beneath(&normalized) else {
                continue;
            };
            if relative.is_empty() {
                continue;
            }
            if let Ok(meta) = dir.metadata(relative)
                && meta.is_file()
                && meta.nlink() > 1
            {
                return Some(raise(
                    "PermissionError",
                    &format!(
                        "Permission denied: {path:?} (a file with more than one hard link is not served)"
                    ),
                ));
            }
        }
        None
    }

    /// The mount a normalised guest path falls under (the longest), and
    /// the path relative to it.
    fn beneath<'p>(&self, normalized: &'p str) -> Option<(&Dir, &'p str)> {
        self.dirs
            .iter()
            .filter_map(|(guest, dir)| {
                let rest = if guest == "/" {
                    Some(normalized.trim_start_matches('/'))
                } else if normalized == guest {
                    Some("")
                } else {
                    normalized
                        .strip_prefix(guest.as_str())
                        .and_then(|rest| rest.strip_prefix('/'))
                };
                rest.map(|rest| (guest.len(), dir.as_ref(), rest))
            })
            .max_by_key(|(len, _, _)| *len)
            .map(|(_, dir, rest)| (dir, rest))
    }
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
