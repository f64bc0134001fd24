//! Landlock: no filesystem access, no TCP bind or connect, and scoped
//! abstract UNIX sockets and signals, each as its own ruleset so the report
//! can say which the kernel enforces.

use landlock::{
    ABI, Access, AccessFs, AccessNet, RestrictionStatus, Ruleset, RulesetAttr, RulesetError,
    RulesetStatus, Scope,
};

use crate::{Layer, Requirement, SandboxError};

/// The Landlock ABI whose rights are asked for: 7, which the machines this
/// is built and tested on provide. Rights of later ABIs add nothing a
/// worker with no files and no sockets needs.
const TARGET_ABI: ABI = ABI::V7;

fn status(result: Result<RestrictionStatus, RulesetError>) -> Result<(), String> {
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
        Err(err) => Err(err.to_string()),
    }
}

/// Restricts the calling thread (and its later children) with three
/// rulesets that grant nothing.
pub fn restrict(req: &mut Requirement) -> Result<(), SandboxError> {
    let filesystem = Ruleset::default()
        .handle_access(AccessFs::from_all(TARGET_ABI))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    req.outcome(Layer::LandlockFilesystem, status(filesystem))?;

    let network = Ruleset::default()
        .handle_access(AccessNet::from_all(TARGET_ABI))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    req.outcome(Layer::LandlockNetwork, status(network))?;

    let scopes = Ruleset::default()
        .scope(Scope::from_all(TARGET_ABI))
        .and_then(|r| r.create())
        .and_then(|r| r.restrict_self());
    req.outcome(Layer::LandlockScopes, status(scopes))
}
