//! Finding the files a worker is started from: the worker binary, and the
//! CPython engine module. Each is looked for at an explicit path, then
//! where an environment variable points, beside the running executable,
//! and last on `PATH` (the engine module also beside the worker binary,
//! where a package installs the two together).

use std::path::{Path, PathBuf};

use crate::error::{ConfigurationKind, Error};

/// File name of the worker executable.
pub const WORKER_NAME: &str = "stockade-worker";
/// Environment variable naming the worker executable.
pub const WORKER_ENV: &str = "STOCKADE_WORKER";
/// File name of the CPython engine module (built by crates/stockade-cpython).
pub const ENGINE_MODULE_NAME: &str = "libstockade_cpython.so";
/// Environment variable naming the CPython engine module.
pub const ENGINE_MODULE_ENV: &str = "STOCKADE_CPYTHON_MODULE";

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
}

/// One file to find, and how to say how to get it.
struct Wanted<'a> {
    name: &'static str,
    env: &'static str,
    /// What it is, for messages: "worker binary".
    what: &'static str,
    build: &'static str,
    /// A directory to try after the executable's (the worker's, for the module).
    beside: Option<&'a Path>,
}

fn find(wanted: &Wanted<'_>, explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let Wanted {
        name,
        env,
        what,
        build,
        beside,
    } = *wanted;
    let not_found =
        |message: String| Error::configuration(ConfigurationKind::WorkerNotFound, message);
    if let Some(path) = explicit {
        if is_file(path) {
            return Ok(path.to_path_buf());
        }
        return Err(not_found(format!(
            "the {what} given explicitly, {}, is not a file",
            path.display()
        )));
    }
    let mut looked = Vec::new();
    match std::env::var_os(env) {
        Some(value) if !value.is_empty() => {
            let path = PathBuf::from(value);
            if is_file(&path) {
                return Ok(path);
            }
            return Err(not_found(format!(
                "{env} names {}, which is not a file",
                path.display()
            )));
        }
        _ => looked.push(format!("${env} (unset)")),
    }
    let exe = std::env::current_exe().ok();
    // Beside the executable, and one level up: test and bench binaries
    // live in target/<profile>/deps while the worker is in target/<profile>.
    let dirs = exe
        .as_deref()
        .and_then(Path::parent)
        .into_iter()
        .chain(exe.as_deref().and_then(Path::parent).and_then(Path::parent))
        .chain(beside);
    for dir in dirs {
        let candidate = dir.join(name);
        if is_file(&candidate) {
            return Ok(candidate);
        }
        looked.push(candidate.display().to_string());
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join(name);
            if is_file(&candidate) {
                return Ok(candidate);
            }
        }
        looked.push("every directory on PATH".into());
    } else {
        looked.push("PATH (unset)".into());
    }
    Err(not_found(format!(
        "cannot find the {what} {name}; looked at: {}. Build it with `{build}`, or set {env} to its path",
        looked.join(", ")
    )))
}

/// Resolves the worker binary, or says everywhere it looked.
///
/// Hosts that run untrusted code in an environment whose variables or PATH
/// they do not trust should pass `explicit`.
pub fn locate_worker(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    find(
        &Wanted {
            name: WORKER_NAME,
            env: WORKER_ENV,
            what: "worker binary",
            build: "cargo build --release -p stockade-cli",
            beside: None,
        },
        explicit,
    )
}

/// Resolves the CPython engine module, also looking beside `worker` (the
/// worker binary, when one is known).
pub fn locate_engine_module(
    explicit: Option<&Path>,
    worker: Option<&Path>,
) -> Result<PathBuf, Error> {
    find(
        &Wanted {
            name: ENGINE_MODULE_NAME,
            env: ENGINE_MODULE_ENV,
            what: "CPython engine module",
            build: "cargo build --release --manifest-path crates/stockade-cpython/Cargo.toml --target-dir target",
            beside: worker.and_then(Path::parent),
        },
        explicit,
    )
}
