//! A session's files: its mounts in one monty-fs table (each overlay
//! fresh for the session, within the session's `max_file_memory`), and
//! the answer for calls no mount covers.
//!
//! The table resolves every path beneath the mount's directory descriptor
//! (cap-std: `openat2` with `RESOLVE_BENEATH` where the kernel has it), so
//! `..`, absolute symlinks, symlinks that lead out and directories swapped
//! for symlinks while a call runs all fail there; FIFOs, sockets and
//! devices are refused without being opened for I/O. A file with more than
//! one hard link is refused on the handle the call then uses (our patch of
//! monty-fs, `third_party/monty-fs/`): a check of the path before the table
//! opens it again would lose to a rename in between.

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
    /// `max_file_memory`: the most one write may carry.
    budget: u64,
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
        Self {
            table,
            environ,
            clock,
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
        if let Some(refused) = self.too_large(&call) {
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
}

fn raise(type_name: &str, message: &str) -> CallOutcome {
    CallOutcome::Raise(GuestException::new(type_name, message))
}

fn exception(exception: &MontyException) -> CallOutcome {
    let type_name: &'static str = exception.exc_type().into();
    raise(type_name, exception.message().unwrap_or_default())
}
