//! Who the worker is: not dumpable, nobody when started as root, no
//! capabilities, no new privileges.

use rustix::process::{DumpableBehavior, Gid, Uid, geteuid, set_dumpable_behavior};
use rustix::thread::{
    CapabilitySet, CapabilitySets, capabilities, clear_ambient_capability_set, set_capabilities,
    set_no_new_privs, set_thread_groups, set_thread_res_gid, set_thread_res_uid,
};

use crate::{Layer, Requirement, SandboxError};

/// The uid and gid a worker started as root runs as.
pub const NOBODY: u32 = 65534;

/// No core dumps, no same-user ptrace, /proc entries owned by root.
pub fn not_dumpable(req: &mut Requirement) -> Result<(), SandboxError> {
    let result = set_dumpable_behavior(DumpableBehavior::NotDumpable);
    req.outcome(Layer::NotDumpable, result)
}

/// Drops to nobody when started as root, before the user namespace is made,
/// so the namespace and everything in it belongs to nobody.
///
/// The syscalls are per thread; the process has one thread here.
pub fn become_nobody_if_root(req: &mut Requirement) -> Result<(), SandboxError> {
    if !geteuid().is_root() {
        req.note(format!(
            "started as uid {}: no uid change needed",
            geteuid().as_raw()
        ));
        req.applied(Layer::Nobody);
        return Ok(());
    }
    let result = (|| {
        set_thread_groups(&[])?;
        let gid = Gid::from_raw(NOBODY);
        set_thread_res_gid(gid, gid, gid)?;
        let uid = Uid::from_raw(NOBODY);
        set_thread_res_uid(uid, uid, uid)
    })();
    // Changing uid resets dumpability; keep the process undumpable.
    let _ = set_dumpable_behavior(DumpableBehavior::NotDumpable);
    req.outcome(Layer::Nobody, result)
}

/// Empties every capability set: bounding, ambient, then effective,
/// permitted and inheritable.
pub fn drop_capabilities(req: &mut Requirement) -> Result<(), SandboxError> {
    let mut bounding_kept = 0;
    for cap in 0..64 {
        // SAFETY: prctl(PR_CAPBSET_DROP, cap) takes an integer and touches no
        // memory of ours; it fails with EINVAL past the last capability.
        let rc = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::EINVAL) {
                break;
            }
            bounding_kept += 1;
        }
    }
    let _ = clear_ambient_capability_set();
    let result = set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
    .and_then(|()| capabilities(None));
    match result {
        Ok(sets)
            if sets.effective == CapabilitySet::empty()
                && sets.permitted == CapabilitySet::empty() =>
        {
            if bounding_kept > 0 {
                req.note(format!(
                    "{bounding_kept} capabilities stay in the bounding set (dropping needs CAP_SETPCAP); \
                     with no_new_privs and no exec they cannot be regained"
                ));
            }
            req.applied(Layer::NoCapabilities);
            Ok(())
        }
        Ok(_) => req.unavailable(Layer::NoCapabilities, "capabilities remain after capset"),
        Err(err) => req.unavailable(Layer::NoCapabilities, format!("capset failed: {err}")),
    }
}

/// PR_SET_NO_NEW_PRIVS: nothing the worker runs can gain privileges.
pub fn no_new_privs(req: &mut Requirement) -> Result<(), SandboxError> {
    let result = set_no_new_privs(true);
    req.outcome(Layer::NoNewPrivs, result)
}
