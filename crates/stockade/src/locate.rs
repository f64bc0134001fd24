//! Finding the worker binary: explicit path, `STOCKADE_WORKER`, beside the
//! running executable, then `PATH`.

use std::path::{Path, PathBuf};

use crate::error::{ConfigurationKind, Error};

/// File name of the worker executable.
pub const WORKER_NAME: &str = "stockade-worker";
/// Environment variable naming the worker executable.
pub const WORKER_ENV: &str = "STOCKADE_WORKER";

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
}

/// Resolves the worker binary, or says everywhere it looked.
///
/// Hosts that run untrusted code in an environment whose variables or PATH
/// they do not trust should pass `explicit`.
pub fn locate_worker(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let mut looked = Vec::new();
    if let Some(path) = explicit {
        if is_file(path) {
            return Ok(path.to_path_buf());
        }
        return Err(Error::configuration(
            ConfigurationKind::WorkerNotFound,
            format!(
                "the worker binary given explicitly, {}, is not a file",
                path.display()
            ),
        ));
    }
    match std::env::var_os(WORKER_ENV) {
        Some(value) if !value.is_empty() => {
            let path = PathBuf::from(value);
            if is_file(&path) {
                return Ok(path);
            }
            return Err(Error::configuration(
                ConfigurationKind::WorkerNotFound,
                format!("{WORKER_ENV} names {}, which is not a file", path.display()),
            ));
        }
        _ => looked.push(format!("${WORKER_ENV} (unset)")),
    }
    if let Ok(exe) = std::env::current_exe() {
        // Beside the executable, and one level up: test and bench binaries
        // live in target/<profile>/deps while the worker is in target/<profile>.
        for dir in exe
            .parent()
            .into_iter()
            .chain(exe.parent().and_then(Path::parent))
        {
            let candidate = dir.join(WORKER_NAME);
            if is_file(&candidate) {
                return Ok(candidate);
            }
            looked.push(candidate.display().to_string());
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join(WORKER_NAME);
            if is_file(&candidate) {
                return Ok(candidate);
            }
        }
        looked.push("every directory on PATH".into());
    } else {
        looked.push("PATH (unset)".into());
    }
    Err(Error::configuration(
        ConfigurationKind::WorkerNotFound,
        format!(
            "cannot find the {WORKER_NAME} binary; looked at: {}. Build it with \
             `cargo build --release -p stockade-worker`, or set {WORKER_ENV} to its path",
            looked.join(", ")
        ),
    ))
}
