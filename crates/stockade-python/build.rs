//! Puts the binaries the Python package carries into it (`stockade/bin/`):
//! the CLI (`stockade`, which the package's `stockade` command runs), the
//! worker binary, and the CPython engine module, so that the wheel carries
//! them and the package finds them without any variable set.
//!
//! With `STOCKADE_PREBUILT_DIR` naming a directory that holds all three
//! (the test command and `scripts/dist` pass `target/release` after their
//! own release build), they are copied from there, so nothing is built
//! twice. Otherwise, when maturin builds the package (it sets
//! `PYO3_BUILD_EXTENSION_MODULE`), from a checkout or from the sdist, they
//! are built here with nested `cargo build --release` runs into
//! `target/python-bin`: the outer build holds the lock on the usual target
//! directory. A plain workspace build does neither: only a wheel needs them.

use std::path::{Path, PathBuf};
use std::process::Command;

const PREBUILT_ENV: &str = "STOCKADE_PREBUILT_DIR";

/// The CLI package builds both `stockade` and `stockade-worker`.
const CLI_BUILD: &[&str] = &["-p", "stockade-cli"];
const CPYTHON_BUILD: &[&str] = &["--manifest-path", "crates/stockade-cpython/Cargo.toml"];

/// Each file the package carries, and the `cargo build --release`
/// arguments that produce it.
const PACKAGED: &[(&str, &[&str])] = &[
    ("stockade", CLI_BUILD),
    ("stockade-worker", CLI_BUILD),
    ("libstockade_cpython.so", CPYTHON_BUILD),
];

fn main() -> Result<(), String> {
    println!("cargo:rerun-if-env-changed=PYO3_BUILD_EXTENSION_MODULE");
    println!("cargo:rerun-if-env-changed={PREBUILT_ENV}");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let workspace = manifest.join("../..");
    let from = match std::env::var_os(PREBUILT_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ if std::env::var_os("PYO3_BUILD_EXTENSION_MODULE").is_some() => {
            // The nested builds decide what changed; cargo reruns this
            // script only when something it was told of changes.
            for input in ["crates", "third_party", "Cargo.lock"] {
                println!("cargo:rerun-if-changed={}", workspace.join(input).display());
            }
            let target = workspace.join("target/python-bin");
            let mut done: Vec<&[&str]> = Vec::new();
            for (_, build_args) in PACKAGED {
                if !done.contains(build_args) {
                    build(&workspace, &target, build_args)?;
                    done.push(build_args);
                }
            }
            target.join("release")
        }
        _ => return Ok(()),
    };
    for (name, _) in PACKAGED {
        let source = from.join(name);
        if !source.is_file() {
            return Err(format!(
                "{PREBUILT_ENV} names {}, which has no {name}: build it first (scripts/dist shows how)",
                from.display()
            ));
        }
        let destination = manifest.join("python/stockade/bin").join(name);
        install(&source, &destination).map_err(|err| {
            format!(
                "cannot put {} into the package at {}: {err}",
                source.display(),
                destination.display()
            )
        })?;
        println!("cargo:rerun-if-changed={}", source.display());
    }
    Ok(())
}

fn build(workspace: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args(["build", "--release", "--locked"])
        .args(args)
        .arg("--target-dir")
        .arg(target);
    // The outer build's settings (features, flags for the extension) are
    // not the binaries'; how cargo reaches its registries is.
    const KEPT: &[&str] = &["CARGO_HOME", "CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTR"];
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        let kept = KEPT.iter().any(|prefix| key.starts_with(prefix));
        let outer_python = key.starts_with("PYO3_") || key == "PYTHON_SYS_EXECUTABLE";
        if key.starts_with("CARGO_") && !kept || key == "RUSTFLAGS" || outer_python {
            command.env_remove(key);
        }
    }
    // The engine module is built for the stable ABI from 3.9, whichever
    // interpreter builds this package (whose configuration maturin hands
    // the outer build): it needs no interpreter of its own.
    command.env("PYO3_NO_PYTHON", "1");
    // Incremental caches, which an sdist's one build never reuses (a
    // checkout's `pip install .` rebuilds a changed crate whole): without
    // them it compiles sooner. Everything else is the root manifest's
    // release profile, the test command's own, so that scripts/test-dist
    // can hand these builds the registry crates that build compiled.
    command.env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!(
            "`cargo build {}` failed ({status})",
            args.join(" ")
        )),
        Err(err) => Err(format!(
            "cannot run cargo to build the package's binaries: {err}"
        )),
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
