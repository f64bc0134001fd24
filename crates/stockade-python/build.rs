//! Puts the worker binary and the CPython engine module inside the Python
//! package (`stockade/bin/`), so that the wheel carries them and finds them
//! without any variable set.
//!
//! With `STOCKADE_WORKER_BINARY` and `STOCKADE_CPYTHON_MODULE_FILE` set (the
//! test command does this after its own release build), those files are
//! copied. Otherwise, when maturin builds the package (it sets
//! `PYO3_BUILD_EXTENSION_MODULE`), each is built here with a nested `cargo
//! build --release` into its own target directory: the outer build holds the
//! lock on the usual one. A plain workspace build does neither: only a wheel
//! needs them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One file the package carries, and how to build it.
struct Packaged {
    env: &'static str,
    name: &'static str,
    /// `cargo build --release` arguments that produce it.
    build: &'static [&'static str],
    /// The debug info may be stripped (never from a module another program
    /// loads with its own expectations: stripping is for size only).
    strip: bool,
}

const PACKAGED: &[Packaged] = &[
    Packaged {
        env: "STOCKADE_WORKER_BINARY",
        name: "stockade-worker",
        build: &["-p", "stockade-cli", "--bin", "stockade-worker"],
        strip: true,
    },
    Packaged {
        env: "STOCKADE_CPYTHON_MODULE_FILE",
        name: "libstockade_cpython.so",
        build: &["--manifest-path", "crates/stockade-cpython/Cargo.toml"],
        strip: true,
    },
];

fn main() {
    println!("cargo:rerun-if-env-changed=PYO3_BUILD_EXTENSION_MODULE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    for packaged in PACKAGED {
        println!("cargo:rerun-if-env-changed={}", packaged.env);
        let destination = manifest.join("python/stockade/bin").join(packaged.name);
        let source = match std::env::var_os(packaged.env) {
            Some(path) => PathBuf::from(path),
            None if std::env::var_os("PYO3_BUILD_EXTENSION_MODULE").is_some() => {
                build(&manifest, packaged)
            }
            None => continue,
        };
        if let Err(err) = install(&source, &destination, packaged.strip) {
            panic!(
                "cannot put {} into the package at {}: {err}",
                source.display(),
                destination.display()
            );
        }
        println!("cargo:rerun-if-changed={}", source.display());
    }
}

fn build(manifest: &Path, packaged: &Packaged) -> PathBuf {
    let workspace = manifest.join("../..");
    let target = workspace.join("target/python-worker");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&workspace)
        .args(["build", "--release", "--locked"])
        .args(packaged.build)
        .arg("--target-dir")
        .arg(&target);
    // The outer build's settings (features, flags for the extension) are
    // not the worker's.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("CARGO_") && key != "CARGO_HOME" || key == "RUSTFLAGS" {
            command.env_remove(key);
        }
    }
    match command.status() {
        Ok(status) if status.success() => target.join("release").join(packaged.name),
        Ok(status) => panic!("building {} failed ({status})", packaged.name),
        Err(err) => panic!("cannot run cargo to build {}: {err}", packaged.name),
    }
}

/// Drops the line tables (most of a binary's size: 53 MB to 12 MB for the
/// worker); symbols stay, so a panic still names its function. Without a
/// `strip` on the machine the file is packaged as built.
fn strip_debug_info(binary: &Path) {
    let stripped = Command::new("strip")
        .arg("--strip-debug")
        .arg(binary)
        .status();
    if !matches!(stripped, Ok(status) if status.success()) {
        println!(
            "cargo:warning=could not strip debug info; packaging {} as built",
            binary.display()
        );
    }
}

fn install(source: &Path, destination: &Path, strip: bool) -> std::io::Result<()> {
    if let Some(dir) = destination.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Through a temporary name, so a running worker's file is never
    // rewritten in place. (Cargo reruns this only when the source changed.)
    let partial = destination.with_extension("partial");
    std::fs::copy(source, &partial)?;
    if strip {
        strip_debug_info(&partial);
    }
    std::fs::rename(&partial, destination)
}
