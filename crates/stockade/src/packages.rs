//! Packages for CPython guests, installed on the host and never by the
//! guest: a session's requirements (`pandas==3.1.1`, `matplotlib`) are
//! resolved and installed by uv, wheels only (no build script ever runs on
//! the host), into a content-addressed cache keyed by the requirements,
//! the interpreter and the platform. The installed tree is made read-only
//! and shown to the guest as one more `site_packages` directory; every
//! later session and pool with the same key reuses it without the network
//! (docs/data.md, "Packages").

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::{ConfigurationKind, Error};
use crate::python_interpreter::PythonInterpreter;

/// Most requirements one session may name, and the longest, in bytes:
/// what Configure carries to a server.
pub use stockade_wire::{MAX_PACKAGES as MAX_REQUIREMENTS, MAX_REQUIREMENT as MAX_REQUIREMENT_LEN};
/// Longest an install may take before it is stopped.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Most of uv's error output kept for the error message.
const MAX_ERROR_TEXT: usize = 4000;
/// Changes when the cache's layout does: older entries are then left alone.
const LAYOUT: &str = "stockade-packages-1";

/// The package a requirement names, as the index compares names
/// (PEP 503: lower case, runs of `-`, `_` and `.` as one `-`).
pub fn package_name(requirement: &str) -> String {
    let name: String = requirement
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    let mut normal = String::with_capacity(name.len());
    for c in name.chars() {
        if "-_.".contains(c) {
            if !normal.ends_with('-') {
                normal.push('-');
            }
        } else {
            normal.push(c.to_ascii_lowercase());
        }
    }
    normal
}

/// Checks one requirement: a PEP 508 name with extras, version specifiers
/// and markers, from the package index. A direct reference (`name @ URL`),
/// a path, or anything uv would read as an option is refused, so only
/// wheels from the index the host's uv is configured with are installed.
pub fn check_requirement(text: &str) -> Result<(), String> {
    let shown = crate::text::escape_controls(text);
    if text.is_empty() || text.len() > MAX_REQUIREMENT_LEN {
        return Err(format!(
            "package requirement {shown:?} must be 1 to {MAX_REQUIREMENT_LEN} bytes"
        ));
    }
    if !text.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!(
            "package requirement {shown:?} must start with a package name"
        ));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || " ._-[],<>=!~*;'\"()".contains(c);
    if let Some(bad) = text.chars().find(|&c| !allowed(c)) {
        return Err(format!(
            "package requirement {shown:?} has {bad:?}: name packages from the index (a name, extras, versions, markers), not URLs or paths"
        ));
    }
    // A file name (uv would read it as a path): a wheel or an archive.
    let before_markers = text
        .split(';')
        .next()
        .unwrap_or(text)
        .trim()
        .to_ascii_lowercase();
    if [
        ".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar",
    ]
    .iter()
    .any(|ending| before_markers.ends_with(ending))
    {
        return Err(format!(
            "package requirement {shown:?} names a file: name packages from the index, not wheels or archives"
        ));
    }
    Ok(())
}

/// One requirement as the cache keys it: no spaces before its markers (so
/// `numpy >= 2` and `numpy>=2` are one entry), its markers trimmed.
fn canonical(requirement: &str) -> String {
    let (spec, markers) = match requirement.split_once(';') {
        Some((spec, markers)) => (spec, Some(markers.trim())),
        None => (requirement, None),
    };
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    match markers {
        Some(markers) => format!("{spec}; {markers}"),
        None => spec,
    }
}

/// Whether a requirement is what a server installs for a remote client:
/// a bare name or a name pinned to one version (`pandas==3.1.1`), so that
/// clients cannot make it install one set after another of version ranges.
pub fn is_pinned_or_bare(requirement: &str) -> bool {
    let (name, version) = match requirement.split_once("==") {
        Some((name, version)) => (name, Some(version)),
        None => (requirement, None),
    };
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    let version_ok = version.is_none_or(|v| {
        !v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".+!".contains(c))
    });
    name_ok && version_ok
}

/// The requirements, checked, in the order that keys the cache: sorted,
/// without repeats.
pub fn normalise(requirements: &[String]) -> Result<Vec<String>, String> {
    if requirements.len() > MAX_REQUIREMENTS {
        return Err(format!(
            "packages names {} requirements; at most {MAX_REQUIREMENTS}",
            requirements.len()
        ));
    }
    let mut sorted = Vec::with_capacity(requirements.len());
    for requirement in requirements {
        let trimmed = requirement.trim();
        check_requirement(trimmed)?;
        sorted.push(canonical(trimmed));
    }
    sorted.sort();
    sorted.dedup();
    Ok(sorted)
}

/// Where installed package sets live: `$STOCKADE_PACKAGE_CACHE`, else
/// `stockade/packages` in the user's cache directory.
pub fn cache_root() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("STOCKADE_PACKAGE_CACHE").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .map(|home| PathBuf::from(home).join(".cache"))
        })
        .ok_or("no cache directory for packages: set STOCKADE_PACKAGE_CACHE or HOME")?;
    Ok(base.join("stockade").join("packages"))
}

/// The uv that installs packages: `$STOCKADE_UV`, else `uv` beside the
/// interpreter (a virtual environment's, where the Python package's `uv`
/// dependency puts it), else `uv` on PATH.
pub fn find_uv(python: &PythonInterpreter) -> Result<PathBuf, String> {
    if let Some(uv) = std::env::var_os("STOCKADE_UV").filter(|u| !u.is_empty()) {
        return Ok(PathBuf::from(uv));
    }
    let beside = python.executable.parent().map(|dir| dir.join("uv"));
    if let Some(uv) = beside.filter(|uv| uv.is_file()) {
        return Ok(uv);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("uv"))
        .find(|uv| uv.is_file())
        .ok_or_else(|| {
            "packages are installed with uv, and none was found: pip install uv (the Python package depends on it), put it on PATH, or set STOCKADE_UV".to_owned()
        })
}

/// The cache key of `requirements` (normalised) for `python`.
fn key(requirements: &[String], python: &PythonInterpreter) -> String {
    let mut hash = Sha256::new();
    for part in [
        LAYOUT,
        &python.executable.to_string_lossy(),
        &python.version,
        std::env::consts::ARCH,
        std::env::consts::OS,
    ] {
        hash.update(part.as_bytes());
        hash.update(b"\n");
    }
    for requirement in requirements {
        hash.update(requirement.as_bytes());
        hash.update(b"\n");
    }
    hash.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn failed(message: String) -> Error {
    Error::configuration(ConfigurationKind::PackagesUnavailable, message)
}

/// The directory of `requirements` installed for `python`, installing it
/// first when the cache lacks it; None when there are no requirements.
/// Concurrent callers (threads, processes) with one key install it once.
pub fn installed(
    requirements: &[String],
    python: &PythonInterpreter,
) -> Result<Option<PathBuf>, Error> {
    let requirements = normalise(requirements).map_err(Error::invalid_option)?;
    if requirements.is_empty() {
        return Ok(None);
    }
    let root = cache_root().map_err(failed)?;
    let key = key(&requirements, python);
    let entry = root.join(&key);
    let site = entry.join("site");
    if entry.join("complete").is_file() {
        return Ok(Some(site));
    }
    std::fs::create_dir_all(&root).map_err(|e| {
        failed(format!(
            "cannot make the package cache {}: {e}",
            root.display()
        ))
    })?;
    let lock = std::fs::File::create(root.join(format!("{key}.lock")))
        .map_err(|e| failed(format!("cannot lock the package cache: {e}")))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| failed(format!("cannot lock the package cache: {e}")))?;
    // Another installer may have finished while this one waited.
    if entry.join("complete").is_file() {
        return Ok(Some(site));
    }
    let partial = root.join(format!("{key}.partial"));
    make_writable(&partial);
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial)
        .map_err(|e| failed(format!("cannot make {}: {e}", partial.display())))?;
    install(&requirements, python, &partial)?;
    std::fs::write(
        partial.join("requirements.txt"),
        requirements.join("\n") + "\n",
    )
    .map_err(|e| failed(format!("cannot record the requirements: {e}")))?;
    make_read_only(&partial.join("site"))
        .map_err(|e| failed(format!("cannot make the installed packages read-only: {e}")))?;
    std::fs::write(partial.join("complete"), b"")
        .map_err(|e| failed(format!("cannot mark the install complete: {e}")))?;
    make_writable(&entry);
    let _ = std::fs::remove_dir_all(&entry);
    std::fs::rename(&partial, &entry)
        .map_err(|e| failed(format!("cannot put the install in place: {e}")))?;
    Ok(Some(site))
}

/// Runs uv: wheels only, for exactly `python`, into `dir/site`, with no
/// project configuration picked up from where the host happens to run.
fn install(requirements: &[String], python: &PythonInterpreter, dir: &Path) -> Result<(), Error> {
    let uv = find_uv(python).map_err(failed)?;
    let listed = requirements.join(", ");
    let mut child = Command::new(&uv)
        .current_dir(dir)
        .args([
            "pip",
            "install",
            "--quiet",
            "--no-progress",
            "--color",
            "never",
        ])
        .args(["--only-binary", ":all:", "--no-config"])
        .arg("--python")
        .arg(&python.executable)
        .arg("--target")
        .arg(dir.join("site"))
        .arg("--")
        .args(requirements)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot run uv ({}): {e}", uv.display())))?;
    // uv's error output, read while it runs (a full pipe would stall it).
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(pipe) = stderr.as_mut() {
            let _ = pipe.take(1 << 20).read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < INSTALL_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(failed(format!(
                    "installing the packages {listed} took longer than {} s; stopped",
                    INSTALL_TIMEOUT.as_secs()
                )));
            }
        }
    };
    let said = reader.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    // uv's lines, as one line of text: what the error message shows.
    let said = said
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let tail = match said.char_indices().rev().nth(MAX_ERROR_TEXT) {
        Some((at, _)) => &said[at..],
        None => said.as_str(),
    };
    Err(failed(format!(
        "cannot install the packages {listed} for Python {} from the package index (wheels only; uv {status}): {tail}",
        python.version
    )))
}

/// Every file and directory under `dir` read-only (directories keep their
/// search bit), so no later session, the host's or a guest's, changes it.
fn make_read_only(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            make_read_only(&entry?.path())?;
        }
    }
    let mode = meta.permissions().mode() & 0o555;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
}

/// Undoes `make_read_only` where a stale entry must be removed; what
/// cannot be changed is left for the removal to report.
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if meta.file_type().is_symlink() {
        return;
    }
    let _ = std::fs::set_permissions(
        dir,
        std::fs::Permissions::from_mode(meta.permissions().mode() | 0o700),
    );
    if meta.is_dir()
        && let Ok(entries) = std::fs::read_dir(dir)
    {
        for entry in entries.flatten() {
            make_writable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_from_the_index_pass_and_urls_paths_and_options_do_not() {
        for good in [
            "pandas",
            "pandas==3.1.1",
            "scikit-learn>=1.5,<2",
            "polars[pyarrow]~=2.1",
            "tzdata; python_version < '3.12'",
        ] {
            assert_eq!(check_requirement(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "-e .",
            "--index-url=http://evil",
            "pkg @ https://example.com/x.whl",
            "./local",
            "/abs/path",
            "pkg\nother",
            "pkg`id`",
            "foo-1.0-py3-none-any.whl",
            "x.tar.gz",
            "a.zip",
        ] {
            assert!(check_requirement(bad).is_err(), "{bad:?}");
        }
        assert!(check_requirement(&"a".repeat(MAX_REQUIREMENT_LEN + 1)).is_err());
    }

    #[test]
    fn spaces_do_not_make_another_cache_entry_and_servers_take_pins_only() -> Result<(), String> {
        assert_eq!(
            normalise(&["numpy >= 2".into()])?,
            normalise(&["numpy>=2".into()])?
        );
        assert_eq!(
            canonical("tzdata ; python_version < '3.12'"),
            "tzdata; python_version < '3.12'"
        );
        assert!(is_pinned_or_bare("pandas==3.1.1") && is_pinned_or_bare("pandas"));
        for ranged in [
            "pandas>=3",
            "pandas==3.*",
            "pandas[excel]==3.1.1",
            "pandas; os_name == 'posix'",
        ] {
            assert!(!is_pinned_or_bare(&canonical(ranged)), "{ranged}");
        }
        Ok(())
    }

    #[test]
    fn package_names_compare_as_the_index_compares_them() {
        assert_eq!(package_name("Scikit_Learn>=1.5"), "scikit-learn");
        assert_eq!(package_name("zope.interface[test]"), "zope-interface");
        assert_eq!(package_name(" pandas ; python_version > '3'"), "pandas");
    }

    #[test]
    fn the_key_does_not_depend_on_order_or_repeats_but_on_the_interpreter() -> Result<(), String> {
        let python = PythonInterpreter {
            executable: PathBuf::from("/usr/bin/python3.11"),
            version: "3.11.7".into(),
        };
        let one = normalise(&["pandas".into(), "numpy".into(), "pandas".into()])?;
        let two = normalise(&[" numpy".into(), "pandas".into()])?;
        assert_eq!(key(&one, &python), key(&two, &python));
        let other = PythonInterpreter {
            version: "3.12.1".into(),
            ..python.clone()
        };
        assert_ne!(key(&one, &python), key(&one, &other));
        Ok(())
    }
}
