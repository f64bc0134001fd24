//! User, mount, network, IPC and UTS namespaces (the host name is
//! `stockade`), and an empty read-only root holding only the
//! [`readable`](crate::readable) trees, the [`devices`](crate::devices)
//! and the [`scratch`](crate::scratch).

use std::path::PathBuf;

use rustix::fs::Mode;
use rustix::mount::{
    MountFlags, MountPropagationFlags, UnmountFlags, mount, mount_change, mount_remount, unmount,
};
use rustix::process::{DumpableBehavior, chdir, getgid, getuid, pivot_root, set_dumpable_behavior};
use rustix::thread::{UnshareFlags, unshare_unsafe};

use crate::scratch::{InRoot, SCRATCH_DIR};
use crate::{Layer, Requirement, SandboxError, devices, readable};

/// Directories tried, in order, as the mount point of the new root.
const ROOT_CANDIDATES: &[&str] = &["/tmp", "/mnt", "/dev"];
/// Inodes of the empty root beyond the readable trees' mount points.
const SPARE_INODES: usize = 16;

/// Enters new namespaces and pivots into an empty root in which only the
/// `readable` paths (normalised by [`readable::normalise`]) exist.
/// `cloned` holds the trees when they were cloned before the namespaces
/// (or why they could not be, and they are cloned inside them instead).
/// `scratch` says what the root holds at
/// [`SCRATCH_DIR`](crate::scratch::SCRATCH_DIR): a private writable tmpfs,
/// made the working directory (see [`crate::scratch`]), or the directory
/// alone; returns whether it was made.
pub fn isolate(
    req: &mut Requirement,
    readable: &[PathBuf],
    hidden: &[PathBuf],
    cloned: Option<Result<Vec<readable::Tree>, String>>,
    scratch: InRoot,
) -> Result<bool, SandboxError> {
    let (uid, gid) = (getuid().as_raw(), getgid().as_raw());
    let flags = UnshareFlags::NEWUSER
        | UnshareFlags::NEWNS
        | UnshareFlags::NEWNET
        | UnshareFlags::NEWIPC
        | UnshareFlags::NEWUTS;
    // SAFETY: the flags do not include FILES, the one flag that can split
    // descriptor tables between threads; and a user namespace can only be
    // entered by a single-threaded process, which `apply` requires anyway.
    if let Err(err) = unsafe { unshare_unsafe(flags) } {
        req.unavailable(
            Layer::Namespaces,
            format!("unshare failed: {err} (user namespaces unavailable?)"),
        )?;
        req.unavailable(Layer::EmptyRoot, "needs the mount namespace")?;
        return Ok(false);
    }
    if let Err(err) = map_ids(uid, gid) {
        req.unavailable(
            Layer::Namespaces,
            format!("cannot map ids in the user namespace: {err}"),
        )?;
        req.unavailable(Layer::EmptyRoot, "needs the user namespace's id map")?;
        return Ok(false);
    }
    // A guest that may ask (`uname`) learns this name, not the host's. A
    // container's seccomp profile may refuse it (podman's default does,
    // without CAP_SYS_ADMIN): the namespace is the worker's all the same,
    // holding the name it was made with, the container's.
    if let Err(err) = rustix::system::sethostname(b"stockade") {
        req.note(format!(
            "host name: the container's (naming the UTS namespace was refused: {err})"
        ));
    }
    req.applied(Layer::Namespaces);
    match empty_root(readable, hidden, cloned, scratch) {
        Ok(left_out) => {
            req.applied(Layer::EmptyRoot);
            for device in left_out {
                req.note(format!("device left out: {device}"));
            }
            if let InRoot::Scratch(bytes) = scratch {
                req.note(format!(
                    "scratch: a private {bytes}-byte tmpfs at {SCRATCH_DIR}"
                ));
            }
            Ok(scratch != InRoot::Nothing)
        }
        Err(err) => {
            req.unavailable(Layer::EmptyRoot, err)?;
            Ok(false)
        }
    }
}

/// Maps the caller's outer uid and gid to 0 inside the namespace, so the
/// worker may mount there (and nowhere else).
fn map_ids(uid: u32, gid: u32) -> std::io::Result<()> {
    // /proc/self files belong to root while the process is not dumpable.
    let _ = set_dumpable_behavior(DumpableBehavior::Dumpable);
    let result = (|| {
        std::fs::write("/proc/self/setgroups", "deny")?;
        std::fs::write("/proc/self/uid_map", format!("0 {uid} 1"))?;
        std::fs::write("/proc/self/gid_map", format!("0 {gid} 1"))
    })();
    set_dumpable_behavior(DumpableBehavior::NotDumpable)?;
    result
}

/// Returns the devices left out, each with the reason.
fn empty_root(
    readable: &[PathBuf],
    hidden: &[PathBuf],
    cloned: Option<Result<Vec<readable::Tree>, String>>,
    scratch: InRoot,
) -> Result<Vec<String>, String> {
    mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(|e| format!("cannot make mounts private: {e}"))?;
    let base = ROOT_CANDIDATES
        .iter()
        .find(|dir| std::path::Path::new(dir).is_dir())
        .ok_or("no directory to mount the empty root on")?;
    // Cloned before the tmpfs covers `base`, which may hold one of them.
    // Root without CAP_SYS_ADMIN (in a container) cannot clone them before
    // the namespaces; inside them it can, where nobody may read them.
    let trees = match cloned {
        Some(Ok(trees)) => trees,
        Some(Err(early)) => readable::clone_trees(readable)
            .map_err(|late| format!("{late} (and before the namespaces: {early})"))?,
        None => readable::clone_trees(readable)?,
    };
    // A worker that reads files gets the devices programs expect; one
    // without readable trees (monty, QuickJS) opens no file at all.
    let (devices, left_out) = if readable.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        devices::clone_devices()
    };
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    let options = std::ffi::CString::new(format!(
        "size=16k,nr_inodes={},mode=0500",
        SPARE_INODES + readable::inodes_needed(readable) + devices::INODES
    ))
    .map_err(|e| e.to_string())?;
    mount("stockade", *base, "tmpfs", flags, options.as_c_str())
        .map_err(|e| format!("cannot mount a tmpfs: {e}"))?;
    // The scratch first: a readable tree under /tmp is attached inside it.
    if scratch != InRoot::Nothing {
        let at = format!("{base}{SCRATCH_DIR}");
        rustix::fs::mkdir(at.as_str(), Mode::RWXU)
            .map_err(|e| format!("cannot make the scratch directory: {e}"))?;
        if let InRoot::Scratch(bytes) = scratch {
            crate::scratch::mount_scratch(&at, bytes)?;
        }
    }
    readable::attach(trees, base)?;
    readable::attach(devices, base)?;
    readable::hide(hidden, base)?;
    let old = format!("{base}/old");
    rustix::fs::mkdir(old.as_str(), Mode::RWXU)
        .map_err(|e| format!("cannot make the pivot directory: {e}"))?;
    pivot_root(*base, old.as_str()).map_err(|e| format!("pivot_root failed: {e}"))?;
    chdir("/").map_err(|e| format!("cannot enter the new root: {e}"))?;
    unmount("/old", UnmountFlags::DETACH)
        .map_err(|e| format!("cannot detach the old root: {e}"))?;
    rustix::fs::rmdir("/old").map_err(|e| format!("cannot remove the pivot directory: {e}"))?;
    mount_remount("/", flags | MountFlags::BIND | MountFlags::RDONLY, "")
        .map_err(|e| format!("cannot make the root read-only: {e}"))?;
    if let InRoot::Scratch(_) = scratch {
        chdir(SCRATCH_DIR).map_err(|e| format!("cannot enter the scratch directory: {e}"))?;
    }
    Ok(left_out)
}
