//! The scratch directory of a monty or QuickJS guest: `/tmp`, an overlay
//! kept in the host's memory over a directory that is empty for ever (one
//! the host made, opened and removed, so no entry can be made in it), bounded
//! by `max_scratch_bytes`. A CPython guest's scratch is a real tmpfs in its
//! worker (stockade-sandbox `scratch.rs`); these engines make every file
//! call through the host, so theirs lives where their mounts do.

use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

use rustix::fd::AsRawFd;
use rustix::fs::{Mode, OFlags};
use std::sync::OnceLock;

use monty_fs::{MountCallOutcome, MountRoot, MountTable, OverlayState};
use monty_types::{MontyObject, MontyPath, OsFunctionCall, PathBytesDataArgs};
use stockade_wire::SCRATCH_DIR;

/// One thing the scratch holds, as a dump carries it: paths relative to
/// `/tmp`, parents before their children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScratchEntry {
    Dir(String),
    File(String, Vec<u8>),
}

/// The directory every scratch overlays, opened once per host process.
pub(super) fn empty_root() -> Result<MountRoot, String> {
    static ROOT: OnceLock<Result<MountRoot, String>> = OnceLock::new();
    ROOT.get_or_init(open_empty_root).clone()
}

/// A new directory under the host's temporary directory, opened as the
/// scratch's root and removed. What proves it empty is the handle, not the
/// path: the root is opened through the handle made when the directory
/// was, and once that handle has no links left it is a removed directory,
/// in which the kernel makes no entry (and a directory is removed only
/// while empty), whatever raced the path.
fn open_empty_root() -> Result<MountRoot, String> {
    let parent = std::env::temp_dir();
    let mut last_error = String::new();
    for attempt in 0..8u32 {
        let path = unique_name(&parent, attempt);
        // An exclusive create: a name someone else made is never used.
        if let Err(err) = std::fs::DirBuilder::new().mode(0o700).create(&path) {
            last_error = format!("cannot make {}: {err}", path.display());
            continue;
        }
        let opened = open_removed(&path);
        if opened.is_err() {
            let _ = std::fs::remove_dir(&path);
        }
        return opened;
    }
    Err(format!(
        "no empty directory for the scratch could be made under {}: {last_error}",
        parent.display()
    ))
}

/// The root for the directory just made at `path`, which is removed.
fn open_removed(path: &std::path::Path) -> Result<MountRoot, String> {
    let shown = path.display();
    let handle = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|err| format!("cannot open {shown}: {err}"))?;
    // Through the handle's own link in /proc, the very directory opened.
    let root = MountRoot::open(SCRATCH_DIR, format!("/proc/self/fd/{}", handle.as_raw_fd()))
        .map_err(|err| err.to_string())?;
    std::fs::remove_dir(path).map_err(|err| format!("cannot remove {shown}: {err}"))?;
    let links = rustix::fs::fstat(&handle)
        .map_err(|err| format!("cannot look at {shown}: {err}"))?
        .st_nlink;
    if links != 0 {
        return Err(format!(
            "{shown} was replaced while it was being opened; its handle still has {links} links"
        ));
    }
    Ok(root)
}

fn unique_name(parent: &std::path::Path, attempt: u32) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.subsec_nanos());
    parent.join(format!(
        ".stockade-scratch-{}-{nanos:09}-{attempt}",
        std::process::id()
    ))
}

/// The scratch mount of a session allowed `bytes`, or the reason there
/// is none.
pub(super) fn mount(bytes: u64) -> Result<monty_fs::Mount, String> {
    Ok(monty_fs::Mount::with_root(
        empty_root()?,
        monty_fs::MountMode::OverlayMemory(OverlayState::new()),
        None,
    )
    .with_memory_usage_limit(bytes))
}

/// Everything the scratch in `table` holds, walked through the table as a
/// guest would list and read it; `covered` tells the paths another mount
/// serves, which are not the scratch's.
pub(super) fn contents(
    table: &mut MountTable,
    covered: &dyn Fn(&str) -> bool,
) -> Result<Vec<ScratchEntry>, String> {
    let mut entries = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(relative) = pending.pop() {
        let dir = absolute(&relative);
        let listed = match table.handle_os_call(OsFunctionCall::Iterdir(MontyPath::new(dir))) {
            MountCallOutcome::Handled(Ok(MontyObject::List(listed))) => listed,
            other => return Err(format!("the scratch could not be listed: {other:?}")),
        };
        let mut names: Vec<String> = listed
            .into_iter()
            .filter_map(|item| match item {
                MontyObject::Path(path) | MontyObject::String(path) => Some(path),
                _ => None,
            })
            .collect();
        names.sort_unstable();
        for path in names {
            if covered(&path) {
                continue;
            }
            let Some(inner) = path
                .strip_prefix(SCRATCH_DIR)
                .and_then(|rest| rest.strip_prefix('/'))
            else {
                continue;
            };
            let inner = inner.to_owned();
            match table.handle_os_call(OsFunctionCall::IsDir(MontyPath::new(path.clone()))) {
                MountCallOutcome::Handled(Ok(MontyObject::Bool(true))) => {
                    entries.push(ScratchEntry::Dir(inner.clone()));
                    pending.push(inner);
                }
                _ => match table.handle_os_call(OsFunctionCall::ReadBytes(MontyPath::new(path))) {
                    MountCallOutcome::Handled(Ok(MontyObject::Bytes(bytes))) => {
                        entries.push(ScratchEntry::File(inner, bytes));
                    }
                    other => {
                        return Err(format!(
                            "{inner} in the scratch could not be read: {other:?}"
                        ));
                    }
                },
            }
        }
    }
    Ok(entries)
}

/// Writes `entries` (as `contents` gave them) into the scratch in `table`.
pub(super) fn fill(table: &mut MountTable, entries: Vec<ScratchEntry>) -> Result<(), String> {
    for entry in entries {
        let (call, inner) = match entry {
            ScratchEntry::Dir(inner) => (
                OsFunctionCall::Mkdir(monty_types::MkdirCallArgs {
                    path: MontyPath::new(absolute(&inner)),
                    parents: true,
                    exist_ok: true,
                }),
                inner,
            ),
            ScratchEntry::File(inner, data) => (
                OsFunctionCall::WriteBytes(PathBytesDataArgs {
                    path: MontyPath::new(absolute(&inner)),
                    data,
                }),
                inner,
            ),
        };
        match table.handle_os_call(call) {
            MountCallOutcome::Handled(Ok(_)) => {}
            MountCallOutcome::Handled(Err(err)) => {
                return Err(format!("{inner}: {err}"));
            }
            MountCallOutcome::NotHandled(_) => {
                return Err(format!("{inner}: the session has no scratch"));
            }
        }
    }
    Ok(())
}

/// `/tmp/relative`, or `/tmp` itself for "".
fn absolute(relative: &str) -> String {
    if relative.is_empty() {
        SCRATCH_DIR.to_owned()
    } else {
        format!("{SCRATCH_DIR}/{relative}")
    }
}
