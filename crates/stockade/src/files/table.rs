//! A session's files: its mounts in one monty-fs table (each overlay
//! fresh for the session, within the session's `max_file_memory`), the
//! scratch at `/tmp` of an engine whose files the host serves (within
//! `max_scratch_bytes`; `scratch.rs`), relative paths beneath the guest's
//! working directory `/tmp`, and the answer for calls no mount covers.
//!
//! The table resolves every path beneath the mount's directory descriptor
//! (cap-std: `openat2` with `RESOLVE_BENEATH` where the kernel has it), so
//! `..`, absolute symlinks, symlinks that lead out and directories swapped
//! for symlinks while a call runs all fail there; FIFOs, sockets and
//! devices are refused without being opened for I/O. A file with more than
//! one hard link is refused on the handle the call then uses (our patch of
//! monty-fs, `third_party/monty-fs/`): a check of the path before the table
//! opens it again would lose to a rename in between.

use monty_fs::{MountCallOutcome, MountError, MountTable, OverlayState};
use monty_types::{MontyException, MontyObject, OsFunctionCall};
use stockade_wire::{CallOutcome, GuestException, SCRATCH_DIR, Value};

use super::mount::{Mount, MountMode};
use super::os_call;
use super::relative::{self, quoted};
use super::scratch::{self, ScratchEntry};
use super::world::{self, GuestClock};

/// What `/tmp` is for a session.
#[derive(Debug)]
enum Scratch {
    /// No scratch: `max_scratch_bytes` is 0, the engine makes its own
    /// (CPython), or a host mount is at `/tmp`.
    Absent,
    /// The session's scratch, in the table.
    Served,
    /// A scratch the host could not make: each call on it says why.
    Unavailable(String),
}

/// The mounts one session sees, and their state.
#[derive(Debug)]
pub(crate) struct SessionFiles {
    table: MountTable,
    environ: Vec<(String, String)>,
    clock: GuestClock,
    /// `max_file_memory`: the most one write may carry.
    budget: u64,
    /// The guest paths of the host's mounts.
    mounted: Vec<String>,
    scratch: Scratch,
}

impl SessionFiles {
    /// The session's view of `mounts`: overlays start empty and share
    /// `budget` bytes between them; any one read or write may take
    /// `budget` bytes. With `scratch_bytes`, `/tmp` is a scratch of that
    /// size (unless a mount is there), and the guest's `TMPDIR` and `HOME`
    /// name it unless `environ` does.
    pub(crate) fn new(
        mounts: &[Mount],
        budget: u64,
        mut environ: Vec<(String, String)>,
        clock: GuestClock,
        scratch_bytes: Option<u64>,
    ) -> Self {
        let overlays = mounts
            .iter()
            .filter(|mount| mount.mode() == MountMode::Overlay)
            .count()
            .max(1) as u64;
        let mut table = MountTable::new();
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
        }
        let mounted: Vec<String> = mounts
            .iter()
            .map(|mount| relative::beneath("/", mount.guest_path()))
            .collect();
        let scratch = match scratch_bytes {
            None => Scratch::Absent,
            Some(_) if mounted.iter().any(|path| path == SCRATCH_DIR) => Scratch::Absent,
            Some(bytes) => match scratch::mount(bytes) {
                Ok(mount) => {
                    table.push_mount(mount);
                    Scratch::Served
                }
                Err(why) => Scratch::Unavailable(why),
            },
        };
        if scratch_bytes.is_some() {
            for name in ["TMPDIR", "HOME"] {
                if !environ.iter().any(|(set, _)| set == name) {
                    environ.push((name.to_owned(), SCRATCH_DIR.to_owned()));
                }
            }
        }
        let mut files = Self {
            table,
            environ,
            clock,
            budget,
            mounted,
            scratch,
        };
        files.show_mounts_in_scratch();
        files
    }

    /// Makes the directories that lead to mounts beneath `/tmp`, so that
    /// listing the scratch shows them as a listing of `/` would.
    fn show_mounts_in_scratch(&mut self) {
        if !matches!(self.scratch, Scratch::Served) {
            return;
        }
        let beneath: Vec<String> = self
            .mounted
            .iter()
            .filter_map(|path| path.strip_prefix(SCRATCH_DIR)?.strip_prefix('/'))
            .filter_map(|inner| inner.rsplit_once('/').map(|(parent, _)| parent.to_owned()))
            .collect();
        let entries = beneath.into_iter().map(ScratchEntry::Dir).collect();
        // The mount answers for its own path, and listings add it
        // (`with_mounts_beneath`); only its parents are made.
        let _ = scratch::fill(&mut self.table, entries);
    }

    /// A listing of `dir` in the scratch with the mounts directly beneath
    /// it, as a listing of the directory they are mounted in shows them.
    fn with_mounts_beneath(&self, dir: &str, mut items: Vec<MontyObject>) -> Vec<MontyObject> {
        let dir = dir.trim_end_matches('/');
        let normal = relative::beneath("/", dir);
        for mount in &self.mounted {
            let Some((parent, name)) = mount.rsplit_once('/') else {
                continue;
            };
            let child = format!("{dir}/{name}");
            let listed = items
                .iter()
                .any(|item| matches!(item, MontyObject::Path(path) if *path == child));
            if parent == normal && !listed {
                items.push(MontyObject::Path(child));
            }
        }
        items
    }

    /// Whether `path` (absolute) is the scratch's rather than a mount's.
    fn in_scratch(&self, path: &str) -> bool {
        let under = |path: &str, prefix: &str| {
            path == prefix
                || path
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        !matches!(self.scratch, Scratch::Absent)
            && under(path, SCRATCH_DIR)
            && !self
                .mounted
                .iter()
                .any(|mount| mount.len() > SCRATCH_DIR.len() && under(path, mount))
    }

    /// What the scratch holds, for a dump; empty without one.
    pub(crate) fn scratch_contents(&mut self) -> Result<Vec<ScratchEntry>, String> {
        if !matches!(self.scratch, Scratch::Served) {
            return Ok(Vec::new());
        }
        let mounted = self.mounted.clone();
        let covered = |path: &str| {
            mounted.iter().any(|mount| {
                path == mount
                    || path
                        .strip_prefix(mount.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        scratch::contents(&mut self.table, &covered)
    }

    /// Puts a dump's scratch back; Err when this session has none or it
    /// does not fit.
    pub(crate) fn restore_scratch(&mut self, entries: Vec<ScratchEntry>) -> Result<(), String> {
        if entries.is_empty() {
            return Ok(());
        }
        for entry in &entries {
            let (ScratchEntry::Dir(inner) | ScratchEntry::File(inner, _)) = entry;
            let plain = !inner.is_empty()
                && inner
                    .split('/')
                    .all(|part| !part.is_empty() && part != "." && part != "..");
            if !plain || !self.in_scratch(&format!("{SCRATCH_DIR}/{inner}")) {
                return Err(format!("{inner:?} is not a path in the scratch directory"));
            }
        }
        match &self.scratch {
            Scratch::Served => scratch::fill(&mut self.table, entries),
            Scratch::Absent => Err("the dump holds files in its scratch directory, and this session has none (max_scratch_bytes is 0, or a mount is at /tmp)".into()),
            Scratch::Unavailable(why) => Err(why.clone()),
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
        let os_call::Decoded { call, relative } =
            match os_call::decode(name, args, kwargs, SCRATCH_DIR) {
                Ok(decoded) => decoded,
                // A name no engine of ours sends: the host's handler may know it.
                Err(why) => return Err(raise("PermissionError", &why)),
            };
        if let Some(refused) = self.too_large(&call) {
            return Ok(refused);
        }
        let path = call.fs_primary_path().map(str::to_owned);
        let in_scratch = path.as_deref().is_some_and(|path| self.in_scratch(path));
        if in_scratch && let Scratch::Unavailable(why) = &self.scratch {
            return Ok(raise(
                "OSError",
                &format!("the scratch directory {SCRATCH_DIR} is unavailable: {why}"),
            ));
        }
        let lists = matches!(call, OsFunctionCall::Iterdir(_));
        match self.table.handle_os_call(call) {
            MountCallOutcome::Handled(Ok(object)) => {
                let object = match (&path, object) {
                    (Some(dir), MontyObject::List(items)) if lists && in_scratch => {
                        MontyObject::List(self.with_mounts_beneath(dir, items))
                    }
                    (_, object) => object,
                };
                let object = match &relative {
                    Some(relative) => relative.named_as_given(object, lists),
                    None => object,
                };
                Ok(match os_call::encode(object) {
                    Ok(value) => CallOutcome::Return(value),
                    Err(why) => raise("RuntimeError", &why),
                })
            }
            MountCallOutcome::Handled(Err(MountError::MemoryUsageLimitExceeded(_)))
                if in_scratch =>
            {
                Ok(raise(
                    "OSError",
                    &format!(
                        "[Errno 28] No space left on device: {}",
                        quoted(
                            relative
                                .as_ref()
                                .map_or(path.as_deref().unwrap_or(SCRATCH_DIR), |r| &r.given)
                        )
                    ),
                ))
            }
            MountCallOutcome::Handled(Err(err)) => {
                let exception = err.into_exception();
                Ok(match &relative {
                    Some(relative) => {
                        let type_name: &'static str = exception.exc_type().into();
                        raise(
                            type_name,
                            &relative.in_message(exception.message().unwrap_or_default()),
                        )
                    }
                    None => self::exception(&exception),
                })
            }
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
    use super::*;

    #[test]
    fn a_dumps_scratch_naming_a_path_outside_it_is_refused() -> Result<(), String> {
        let upload = std::env::temp_dir().join(format!("stockade-table-{}", std::process::id()));
        std::fs::create_dir_all(&upload).map_err(|err| err.to_string())?;
        let mount = Mount::new("/tmp/data", &upload, MountMode::ReadWrite)
            .map_err(|err| err.to_string())?;
        let mut files = SessionFiles::new(
            &[mount],
            1 << 20,
            Vec::new(),
            GuestClock::Real,
            Some(1 << 20),
        );
        for bad in [
            "../etc/cron.d/x",
            "a/../../x",
            "a/./b",
            "",
            "/abs",
            "a//b",
            "data/planted",
        ] {
            let refused =
                files.restore_scratch(vec![ScratchEntry::File(bad.into(), b"x".to_vec())]);
            if refused.is_ok() {
                return Err(format!("{bad:?} was restored"));
            }
        }
        let planted = upload.join("planted").exists();
        let _ = std::fs::remove_dir_all(&upload);
        if planted {
            return Err("a dump's entry reached a mount".into());
        }
        files.restore_scratch(vec![
            ScratchEntry::Dir("a".into()),
            ScratchEntry::File("a/b".into(), b"kept".to_vec()),
        ])?;
        match files.scratch_contents()?.as_slice() {
            [ScratchEntry::Dir(dir), ScratchEntry::File(file, bytes)]
                if dir == "a" && file == "a/b" && bytes == b"kept" =>
            {
                Ok(())
            }
            other => Err(format!("the scratch holds {other:?}")),
        }
    }
}
