//! Landlock: no filesystem access but reading the readable trees, no TCP
//! bind or connect, and scoped abstract UNIX sockets and signals, each as
//! its own ruleset so the report can say which the kernel enforces.

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, RestrictionStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
};

use crate::{Layer, Requirement, SandboxError};

/// The Landlock ABI whose rights are asked for: 7, which the machines this
/// is built and tested on provide. Rights of later ABIs add nothing a
/// worker with no files and no sockets needs.
const TARGET_ABI: ABI = ABI::V7;

fn status(result: Result<RestrictionStatus, String>) -> Result<(), String> {
    match result {
        Ok(RestrictionStatus {
            ruleset: RulesetStatus::FullyEnforced,
            ..
        }) => Ok(()),
        Ok(RestrictionStatus {
            ruleset: RulesetStatus::PartiallyEnforced,
            ..
        }) => Err("only partly enforced by this kernel".into()),
        Ok(_) => Err("not enforced by this kernel".into()),
        Err(err) => Err(err),
    }
}

/// What the guest may do beneath its scratch directory: make, change and
/// remove files, directories and links there (renames and links within it
/// included); no devices, fifos or sockets, no device ioctls.
fn scratch_access() -> landlock::BitFlags<AccessFs> {
    AccessFs::ReadFile
        | AccessFs::ReadDir
        | AccessFs::WriteFile
        | AccessFs::Truncate
        | AccessFs::MakeReg
        | AccessFs::MakeDir
        | AccessFs::MakeSym
        | AccessFs::RemoveFile
        | AccessFs::RemoveDir
        | AccessFs::Refer
}

/// The Landlock ABI this kernel offers (0: none), asked without restricting
/// anything: a template asks, so that its report says what each of its
/// forked workers will put in force.
pub fn kernel_abi() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the
    // VERSION flag only returns the ABI number; it touches no memory.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    }
    .max(0)
}

/// Whether the three rulesets [`restrict`] asks for would be fully
/// enforced on this kernel.
pub fn fully_enforceable() -> bool {
    kernel_abi() >= 7
}

/// Restricts the calling thread (and its later children) with three
/// rulesets that grant nothing but reading files and listing directories
/// beneath the `readable` paths, reading and writing the
/// [`devices`](crate::devices) where there are readable paths, and,
/// beneath `scratch`, what [`scratch_access`] lists.
pub fn restrict(
    req: &mut Requirement,
    readable: &[PathBuf],
    scratch: Option<&std::path::Path>,
) -> Result<(), SandboxError> {
    let filesystem = (|| {
        let mut ruleset = Ruleset::default()
            .handle_access(AccessFs::from_all(TARGET_ABI))
            .and_then(|r| r.create())
            .map_err(|e| e.to_string())?;
        for path in readable {
            // Listing applies to directories only; a file gets reading alone.
            let read = if path.is_dir() {
                AccessFs::ReadFile | AccessFs::ReadDir
            } else {
                AccessFs::ReadFile.into()
            };
            let fd = PathFd::new(path).map_err(|e| e.to_string())?;
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, read))
                .map_err(|e| format!("cannot allow reading {}: {e}", path.display()))?;
        }
        // The devices of the empty root, which hold nothing (reading,
        // writing, and the truncation `open(..., "w")` asks for).
        if !readable.is_empty() {
            for device in crate::devices::shown() {
                let fd = PathFd::new(device).map_err(|e| e.to_string())?;
                ruleset = ruleset
                    .add_rule(PathBeneath::new(
                        fd,
                        AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
                    ))
                    .map_err(|e| format!("cannot allow {}: {e}", device.display()))?;
            }
        }
        if let Some(dir) = scratch {
            let fd = PathFd::new(dir).map_err(|e| e.to_string())?;
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, scratch_access()))
                .map_err(|e| format!("cannot allow writing {}: {e}", dir.display()))?;
        }
        ruleset.restrict_self().map_err(|e| e.to_string())
    })();
    req.outcome(Layer::LandlockFilesystem, status(filesystem))?;

    let network = Ruleset::default().handle_access(AccessNet::from_all(TARGET_ABI));
    req.outcome(Layer::LandlockNetwork, status(enforce(network)))?;

    let scopes = Ruleset::default().scope(Scope::from_all(TARGET_ABI));
    req.outcome(Layer::LandlockScopes, status(enforce(scopes)))
}

/// Puts a ruleset that grants nothing in force on the calling thread.
fn enforce(ruleset: Result<Ruleset, RulesetError>) -> Result<RestrictionStatus, String> {
    ruleset
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self())
        .map_err(|e| e.to_string())
}
