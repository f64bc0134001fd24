//! The guest's scratch directory: a private, writable, in-memory `/tmp`
//! (a tmpfs of `max_scratch_bytes`), empty at start and gone with the
//! worker's mount namespace. A worker started from scratch mounts it in
//! its empty root; a worker forked from a template mounts its own over the
//! template's, in a mount namespace of its own, before it drops its
//! capabilities and enters Landlock (see [`crate::enter_forked_worker`]).
//! A full scratch answers ENOSPC to the write that fills it.

use std::ffi::CString;

use rustix::mount::{MountFlags, mount};

pub use stockade_wire::SCRATCH_DIR;

/// What the empty root holds at [`SCRATCH_DIR`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InRoot {
    /// Nothing: the guest has no scratch.
    Nothing,
    /// An empty directory, read-only: a template's, on which each worker
    /// it forks mounts its own scratch.
    MountPoint,
    /// A scratch of this many bytes.
    Scratch(u64),
}

/// The flags the scratch is mounted with: nothing on it is a device or
/// raises privileges. Its files may be mapped executable: libffi makes
/// ctypes' callbacks (threadpoolctl's, scikit-learn's) from a scratch file
/// mapped twice, writable and executable apart, and a guest that may call
/// any C function through ctypes gains nothing from a library it wrote;
/// `execve` stays killed. A template's seccomp filter lets its forked
/// workers mount with exactly these flags.
pub const SCRATCH_MOUNT_FLAGS: MountFlags = MountFlags::NOSUID.union(MountFlags::NODEV);

/// Bytes of scratch one inode stands for: the inode count is bounded too,
/// since each costs the kernel memory that the byte size does not count.
const BYTES_PER_INODE: u64 = 16 * 1024;
/// Inodes a small scratch still gets.
const MIN_INODES: u64 = 1024;

/// Mounts a scratch of `bytes` at `dir` (a directory that exists).
pub fn mount_scratch(dir: &str, bytes: u64) -> Result<(), String> {
    let inodes = (bytes / BYTES_PER_INODE).max(MIN_INODES);
    // The kernel takes a size of 0 as "no limit": a scratch of no bytes is
    // one page, which holds nothing but its empty root.
    let size = bytes.max(1);
    let options = CString::new(format!("size={size},nr_inodes={inodes},mode=0700"))
        .map_err(|e| e.to_string())?;
    mount(
        "stockade-scratch",
        dir,
        "tmpfs",
        SCRATCH_MOUNT_FLAGS,
        options.as_c_str(),
    )
    .map_err(|e| format!("cannot mount the scratch directory: {e}"))
}
