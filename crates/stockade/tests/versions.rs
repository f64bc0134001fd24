//! One version for the workspace and every package: the Python package
//! takes Cargo's (maturin's dynamic version), the npm package's manifest
//! states the same, and CHANGELOG.md has a section for it. The built
//! artifacts are checked against it where they are tested: the CLI's
//! `--version` and the Node package (`crates/stockade-node/test`), the
//! Python package's `__version__` (`test_the_version_is_the_workspaces`).

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

#[test]
fn the_python_package_takes_the_workspace_version() {
    let pyproject = read("pyproject.toml");
    assert!(
        pyproject.contains("dynamic = [\"version\"]"),
        "pyproject.toml must take its version from Cargo (dynamic = [\"version\"])"
    );
    assert!(
        !pyproject.lines().any(|line| line.starts_with("version")),
        "pyproject.toml states a version of its own"
    );
}

#[test]
fn the_npm_package_states_the_workspace_version() {
    let manifest = read("crates/stockade-node/package.json");
    let stated = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(
        manifest.contains(&stated),
        "crates/stockade-node/package.json must say {stated}"
    );
}

#[test]
fn the_changelog_has_a_section_for_this_version() {
    let changelog = read("CHANGELOG.md");
    let heading = format!("## {}", env!("CARGO_PKG_VERSION"));
    assert!(
        changelog.lines().any(|line| line.starts_with(&heading)),
        "CHANGELOG.md has no \"{heading}\" section"
    );
}
