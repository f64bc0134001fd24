//! `require`, `auto` and `off` as a type: what a layer that cannot be
//! applied means is decided here, once, not at each layer.

use thiserror::Error;

use stockade_wire::SandboxMode;

use crate::report::{Layer, Missing, Report};

/// The sandbox could not be applied as the mode requires.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SandboxError {
    /// A layer is unavailable and the mode is `require`.
    #[error("sandbox layer {} is required but unavailable: {reason}", layer.name())]
    Required { layer: Layer, reason: String },
    /// The self-test got through a sandbox that claims to be complete.
    #[error("the sandbox self-test got through: {0}")]
    SelfTestFailed(String),
    /// A path asked to be readable is unusable (relative, `..`, the root).
    #[error("{0}")]
    Readable(String),
    /// A worker forked from a template could not narrow its filter.
    #[error("cannot narrow the template's seccomp filter to the forked worker: {0}")]
    Narrowing(String),
}

/// Collects the outcome of each layer under a mode.
#[derive(Debug)]
pub struct Requirement {
    mode: SandboxMode,
    applied: Vec<Layer>,
    missing: Vec<Missing>,
    extras: Vec<String>,
    seccomp_policy: Option<u64>,
}

impl Requirement {
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            applied: Vec::new(),
            missing: Vec::new(),
            extras: Vec::new(),
            seccomp_policy: None,
        }
    }

    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// Records that `layer` is in force.
    /// Records that `layer` is in force (a layer applied in two steps is
    /// listed once, and not at all if a step failed).
    pub fn applied(&mut self, layer: Layer) {
        if !self.applied.contains(&layer) && !self.missing.iter().any(|m| m.layer == layer) {
            self.applied.push(layer);
        }
    }

    /// Records that `layer` could not be applied: an error in `require`
    /// mode, a report line otherwise.
    pub fn unavailable(
        &mut self,
        layer: Layer,
        reason: impl Into<String>,
    ) -> Result<(), SandboxError> {
        let reason = reason.into();
        if self.mode == SandboxMode::Require {
            return Err(SandboxError::Required { layer, reason });
        }
        self.applied.retain(|applied| *applied != layer);
        self.missing.push(Missing { layer, reason });
        Ok(())
    }

    /// Records the outcome of one layer's attempt.
    pub fn outcome<E: std::fmt::Display>(
        &mut self,
        layer: Layer,
        result: Result<(), E>,
    ) -> Result<(), SandboxError> {
        match result {
            Ok(()) => {
                self.applied(layer);
                Ok(())
            }
            Err(err) => self.unavailable(layer, err.to_string()),
        }
    }

    /// Adds a note to the report.
    pub fn note(&mut self, extra: impl Into<String>) {
        self.extras.push(extra.into());
    }

    /// Records the fingerprint of the seccomp policy in force, verified by
    /// a test-fire here or earlier on this kernel.
    pub fn seccomp_policy(&mut self, fingerprint: u64) {
        self.seccomp_policy = Some(fingerprint);
    }

    /// Whether every layer so far is in force.
    pub fn complete(&self) -> bool {
        self.missing.is_empty()
    }

    pub fn is_applied(&self, layer: Layer) -> bool {
        self.applied.contains(&layer)
    }

    pub fn into_report(self) -> Report {
        Report {
            mode: self.mode,
            applied: self.applied,
            missing: self.missing,
            extras: self.extras,
            seccomp_policy: self.seccomp_policy,
            forked: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require_refuses_a_missing_layer_and_auto_reports_it() {
        let mut strict = Requirement::new(SandboxMode::Require);
        let err = strict
            .unavailable(Layer::Seccomp, "no seccomp")
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "sandbox layer seccomp is required but unavailable: no seccomp"
        );

        let mut lenient = Requirement::new(SandboxMode::Auto);
        assert!(lenient.unavailable(Layer::Seccomp, "no seccomp").is_ok());
        lenient.applied(Layer::Rlimits);
        let report = lenient.into_report();
        assert_eq!(report.applied, vec![Layer::Rlimits]);
        assert_eq!(report.missing[0].layer, Layer::Seccomp);
        assert!(!report.is_complete());
    }
}
