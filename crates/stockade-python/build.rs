//! Puts the worker binary inside the Python package (`stockade/bin/`), so
//! that the wheel carries it and finds it without any variable set.
//!
//! With `STOCKADE_WORKER_BINARY` set (the test command does this after its
//! own release build), that file is copied. Otherwise, when maturin builds
//! the package (it sets `PYO3_BUILD_EXTENSION_MODULE`), the worker is built
//! here with a nested `cargo build --release -p stockade-worker` into its own
//! target directory: the outer build holds the lock on the usual one. A plain
//! workspace build does neither: only a wheel needs the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=STOCKADE_WORKER_BINARY");
    println!("cargo:rerun-if-env-changed=PYO3_BUILD_EXTENSION_MODULE");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let destination = manifest.join("python/stockade/bin/stockade-worker");
    let source = match std::env::var_os("STOCKADE_WORKER_BINARY") {
        Some(path) => PathBuf::from(path),
        None if std::env::var_os("PYO3_BUILD_EXTENSION_MODULE").is_some() => {
            build_worker(&manifest)
        }
        None => return,
    };
    if let Err(err) = install(&source, &destination) {
        panic!(
            "cannot put the worker {} into the package at {}: {err}",
            source.display(),
            destination.display()
        );
    }
    println!("cargo:rerun-if-changed={}", source.display());
}

fn build_worker(manifest: &Path) -> PathBuf {
    let workspace = manifest.join("../..");
    let target = workspace.join("target/python-worker");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&workspace)
        .args(["build", "--release", "--locked", "-p", "stockade-worker"])
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
        Ok(status) if status.success() => target.join("release/stockade-worker"),
        Ok(status) => panic!("building the worker failed ({status})"),
        Err(err) => panic!("cannot run cargo to build the worker: {err}"),
    }
}

/// Drops the line tables from the packaged worker (most of its size: 53 MB
/// to 12 MB here); symbols stay, so a panic still names its function. Without a
/// `strip` on the machine the binary is packaged as built.
fn strip_debug_info(binary: &Path) {
    let stripped = Command::new("strip")
        .arg("--strip-debug")
        .arg(binary)
        .status();
    if !matches!(stripped, Ok(status) if status.success()) {
        println!("cargo:warning=could not strip the worker's debug info; packaging it as built");
    }
}

fn install(source: &Path, destination: &Path) -> std::io::Result<()> {
    if let Some(dir) = destination.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Through a temporary name, so a running worker's file is never
    // rewritten in place. (Cargo reruns this only when the source changed.)
    let partial = destination.with_extension("partial");
    std::fs::copy(source, &partial)?;
    strip_debug_info(&partial);
    std::fs::rename(&partial, destination)
}
