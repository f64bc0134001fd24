//! When a worker may serve as a template (the forking itself is tested
//! with real workers in stockade's tests/templates.rs).

use stockade_wire::{SandboxMode, SandboxReport};
use stockade_worker_core::template::refusal;

fn report(mode: SandboxMode, applied: &[&str]) -> SandboxReport {
    SandboxReport {
        mode,
        applied: applied.iter().map(|layer| (*layer).to_owned()).collect(),
        missing: Vec::new(),
        extras: Vec::new(),
        seccomp_policy: None,
    }
}

#[test]
fn a_template_needs_seccomp_in_force_to_keep_its_workers_apart() {
    let without = report(SandboxMode::Auto, &["namespaces", "landlock-scopes"]);
    assert!(refusal(&without).is_some_and(|why| why.contains("seccomp")));
    let with = report(SandboxMode::Auto, &["namespaces", "seccomp"]);
    assert_eq!(refusal(&with), None);
    // No sandbox at all: nothing to keep apart.
    assert_eq!(refusal(&report(SandboxMode::Off, &[])), None);
}
