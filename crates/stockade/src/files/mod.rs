//! Files for guests: host directories mounted at guest paths, served by
//! the host for every engine, and the environment and clock a guest's OS
//! calls read (docs/files.md). A guest's file access
//! reaches the host as an OsCall (named as monty names its OS calls); the
//! session's table answers it beneath the mounted directory's descriptor.

mod mount;
mod os_call;
mod relative;
mod scratch;
mod table;
mod world;

pub use mount::{Mount, MountMode};
pub(crate) use scratch::ScratchEntry;
pub(crate) use table::SessionFiles;
pub use world::GuestClock;

/// Host memory a session's files may take by default: overlay data kept,
/// and any one read or write (100 MiB; binary units, as every size).
pub const DEFAULT_MAX_FILE_MEMORY: u64 = 100 << 20;
/// The most `max_file_memory` may be (200 MiB): a file read whole crosses
/// to the worker in one frame (256 MiB), with room for the frame's own.
pub const MAX_FILE_MEMORY: u64 = 200 << 20;
