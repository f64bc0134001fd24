//! The CPython engine's side of the host: which interpreter runs guests
//! (the one the options name, else `python3` on PATH), checked once per
//! process, and the options only CPython sessions take.
//!
//! The worker of a CPython session is that interpreter itself, started
//! with `-I -S` to load stockade's engine module (`libstockade_cpython.so`)
//! and serve from it: see `launch.rs` and docs/architecture.md.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use stockade_wire::{
    CPythonConfig, MAX_MODULE_NAME, MAX_PATH, MAX_PRELOAD, MAX_SITE_PACKAGES, valid_module_name,
};

use crate::error::{ConfigurationKind, Error};

/// The interpreter tried when the options name none.
pub const DEFAULT_PYTHON: &str = "python3";
/// The oldest CPython the engine module loads in (its stable-ABI floor,
/// `abi3-py39`; scripts/test-cpython-versions runs it on each).
pub const MIN_VERSION: (u32, u32) = (3, 9);
/// How long the interpreter may take to say what it is.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// CPython-only options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CPythonOptions {
    /// The interpreter; `None`: `python3` on PATH (the Python package gives
    /// the interpreter it runs in).
    pub python: Option<PathBuf>,
    /// Package directories guests may import from, read-only, in order
    /// after the standard library (a virtualenv's `site-packages`, say).
    pub site_packages: Vec<PathBuf>,
    /// The engine module; `None`: found beside the worker binary (see
    /// `locate::locate_engine_module`).
    pub module: Option<PathBuf>,
    /// Packages to install on the host (by uv, wheels only, cached) and
    /// show to guests after `site_packages`: requirements such as
    /// `pandas==3.1.1` (docs/data.md, "Packages").
    pub packages: Vec<String>,
    /// Modules imported before the first feed: in a pool's template once,
    /// for every worker forked from it (`pandas`, `matplotlib.pyplot`;
    /// docs/data.md, "Preloaded modules").
    pub preload: Vec<String>,
    /// The packages a feed's PEP 723 `# /// script` block may name (by
    /// name; `*` any), installed as `packages` are before the session's
    /// first feed; empty: such a block is a comment (docs/data.md).
    pub script_packages: Vec<String>,
}

impl CPythonOptions {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Checks the package directories: absolute, existing, as many and as
    /// long as Configure carries.
    pub(crate) fn validate(&self) -> Result<(), String> {
        crate::packages::normalise(&self.packages)?;
        if self.preload.len() > MAX_PRELOAD {
            return Err(format!(
                "preload names {} modules; at most {MAX_PRELOAD}",
                self.preload.len()
            ));
        }
        if let Some(bad) = self
            .script_packages
            .iter()
            .find(|name| name.as_str() != "*" && crate::packages::check_requirement(name).is_err())
        {
            return Err(format!(
                "script_packages: {:?} is not a package name (or `*`, any)",
                crate::text::escape_controls(bad)
            ));
        }
        if let Some(bad) = self.preload.iter().find(|m| !valid_module_name(m)) {
            return Err(format!(
                "preload: {bad:?} is not a module name (dotted identifiers, at most {MAX_MODULE_NAME} bytes)"
            ));
        }
        if self.site_packages.len() + usize::from(!self.packages.is_empty()) > MAX_SITE_PACKAGES {
            return Err(format!(
                "site_packages names {} directories; at most {MAX_SITE_PACKAGES}",
                self.site_packages.len()
            ));
        }
        for dir in &self.site_packages {
            let shown = dir.display();
            let Some(text) = dir.to_str() else {
                return Err(format!(
                    "site_packages directory {shown} is not valid UTF-8"
                ));
            };
            if !dir.is_absolute() {
                return Err(format!("site_packages directory {shown} is not absolute"));
            }
            if text.len() > MAX_PATH {
                return Err(format!(
                    "site_packages directory {shown} is longer than {MAX_PATH} bytes"
                ));
            }
            if !dir.is_dir() {
                return Err(format!("site_packages directory {shown} does not exist"));
            }
        }
        Ok(())
    }

    pub(crate) fn to_wire(&self) -> CPythonConfig {
        CPythonConfig {
            site_packages: self
                .site_packages
                .iter()
                .map(|dir| dir.to_string_lossy().into_owned())
                .collect(),
            journal_seed: None,
            environ: Vec::new(),
            frozen_clock_us: None,
            max_scratch_bytes: None,
            // Left only in a remote session's options (session/start.rs, install_packages).
            packages: self.packages.clone(),
            preload: self.preload.clone(),
        }
    }
}

/// Whether a CPython session with these options could start here: the
/// interpreter checks out and the engine module is found (beside `worker`,
/// among other places). Decides the default Python engine.
pub fn available(options: &CPythonOptions, worker: Option<&Path>) -> bool {
    let worker = worker
        .map(Path::to_path_buf)
        .or_else(|| crate::locate::locate_worker(None).ok());
    find_python(options.python.as_deref()).is_ok()
        && crate::locate::locate_engine_module(options.module.as_deref(), worker.as_deref()).is_ok()
}

pub use crate::python_interpreter::PythonInterpreter;

/// Interpreters already checked, by the name they were asked for.
static CHECKED: Mutex<Option<HashMap<PathBuf, PythonInterpreter>>> = Mutex::new(None);

const PROBE: &str = "import sys\n\
print(sys.executable)\n\
print(sys.implementation.name)\n\
print('%d.%d.%d' % sys.version_info[:3])\n";

/// The interpreter `requested` names (`python3` on PATH when `None`),
/// checked to be CPython 3.9 or later. The check runs the interpreter
/// once, with the host's environment (a pyenv or conda shim needs it);
/// later calls in this process reuse its answer.
pub fn find_python(requested: Option<&Path>) -> Result<PythonInterpreter, Error> {
    let asked = requested.map_or_else(|| PathBuf::from(DEFAULT_PYTHON), Path::to_path_buf);
    let cached = CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|checked| checked.get(&asked).cloned());
    if let Some(found) = cached {
        return Ok(found);
    }
    let found = probe(&asked)
        .map_err(|message| Error::configuration(ConfigurationKind::WorkerNotFound, message))?;
    CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(asked, found.clone());
    Ok(found)
}

fn probe(asked: &Path) -> Result<PythonInterpreter, String> {
    let shown = asked.display();
    let mut child = Command::new(asked)
        .args(["-I", "-S", "-c", PROBE])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|err| {
            format!(
                "cannot run the Python interpreter {shown} for the cpython engine: {err}; \
                 install Python 3.9 or later, pass python=PATH, or use engine=\"monty\""
            )
        })?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "the Python interpreter {shown} did not say what it is within {PROBE_TIMEOUT:?}"
                ));
            }
        }
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        let _ = stdout.by_ref().take(64 * 1024).read_to_string(&mut out);
    }
    if !status.success() {
        return Err(format!("the Python interpreter {shown} failed ({status})"));
    }
    let mut lines = out.lines();
    let (Some(executable), Some(implementation), Some(version)) =
        (lines.next(), lines.next(), lines.next())
    else {
        return Err(format!("{shown} did not answer as a Python interpreter"));
    };
    let numbers: Vec<u32> = version.split('.').filter_map(|n| n.parse().ok()).collect();
    let new_enough =
        matches!(numbers.as_slice(), [major, minor, ..] if (*major, *minor) >= MIN_VERSION);
    if implementation != "cpython" || !new_enough {
        return Err(format!(
            "the cpython engine needs CPython {}.{} or later; {shown} is {implementation} {version}",
            MIN_VERSION.0, MIN_VERSION.1
        ));
    }
    if executable.is_empty() {
        return Err(format!("{shown} does not know its own executable"));
    }
    Ok(PythonInterpreter {
        executable: PathBuf::from(executable),
        version: version.to_owned(),
    })
}
