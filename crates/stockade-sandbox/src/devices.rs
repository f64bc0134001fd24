//! The character devices programs take for granted (`/dev/null`,
//! `/dev/zero`, `/dev/full`), shown in the empty root of a worker with
//! readable trees: `open(os.devnull, "w")` silences output, as on any
//! machine. Each is the host's own node, bind-mounted read-only (so its
//! mode and times cannot change) and nosuid; they hold no data, so what a
//! guest reads of them or writes to them is the same on every machine.
//! `/dev/urandom` is left out: a dumpable session's randomness must come
//! from its journal (`os.urandom` does), not from the kernel behind it.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::mount::OpenTreeFlags;

use crate::readable::{self, Tree};

/// The devices shown, where the guest finds them.
pub const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// Their mount attributes: read-only and nosuid, but not nodev, or they
/// could not be opened.
const ATTRIBUTES: u64 = libc::MOUNT_ATTR_RDONLY | libc::MOUNT_ATTR_NOSUID;

/// Inodes of the empty root the devices take: `/dev` and one each.
pub const INODES: usize = 1 + DEVICES.len();

/// Clones each device the host has as a character device, before the
/// empty root hides it; one the host lacks or will not lend is left out,
/// with the reason.
pub fn clone_devices() -> (Vec<Tree>, Vec<String>) {
    let mut trees = Vec::new();
    let mut missing = Vec::new();
    for device in DEVICES {
        match clone_device(Path::new(device)) {
            Ok(clone) => trees.push(readable::file_tree(PathBuf::from(device), clone)),
            Err(why) => missing.push(format!("{device}: {why}")),
        }
    }
    (trees, missing)
}

fn clone_device(path: &Path) -> Result<OwnedFd, String> {
    use std::os::unix::fs::FileTypeExt;
    let kind = path.metadata().map_err(|e| e.to_string())?.file_type();
    if !kind.is_char_device() {
        return Err("not a character device here".into());
    }
    readable::clone_with(path, OpenTreeFlags::empty(), ATTRIBUTES)
}

/// The devices the worker finds (for Landlock's rules): those that exist
/// as character devices where it looks.
pub fn shown() -> impl Iterator<Item = &'static Path> {
    use std::os::unix::fs::FileTypeExt;
    DEVICES.iter().map(Path::new).filter(|path| {
        path.metadata()
            .is_ok_and(|meta| meta.file_type().is_char_device())
    })
}
