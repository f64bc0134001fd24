//! The engine's first half, on the main thread before the sandbox: what the
//! interpreter will read (its standard library, the host's package
//! directories), and the guest side loaded while files can still be opened.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyModule};
use stockade_wire::{CPythonConfig, ConfigureLimits, EngineConfig};
use stockade_worker_core::engine::{Engine, Prepared};

use crate::engine::CPythonEngine;

/// The guest side written in Python.
const GUEST_PY: &str = include_str!("guest.py");
/// The guest side's continuations, run in its namespace after it: the
/// session's world (environment, clock, journal), mounted files and rich
/// outputs.
const GUEST_MORE: &[(&str, &str)] = &[
    ("guest_world.py", include_str!("guest_world.py")),
    ("guest_files.py", include_str!("guest_files.py")),
    ("guest_outputs.py", include_str!("guest_outputs.py")),
];

/// Modules the guest side and its error reports use, imported before the
/// sandbox so the first feed finds them loaded.
/// Others wait until they are needed (asyncio, a third of the interpreter's
/// start, until a feed awaits; traceback until one fails; datetime until a
/// calendar value crosses), unless the worker was forked from a template,
/// which imported them once for all its workers (template.rs).
const PRELOADED: &[&str] = &["io", "opcode"];

/// Prepares the CPython engine; any other engine is refused.
pub fn prepare(config: EngineConfig) -> Result<Box<dyn Prepared>, String> {
    let EngineConfig::CPython(config) = config else {
        return Err(format!(
            "this worker serves only the cpython engine, not {}",
            config.interpreter()
        ));
    };
    Python::attach(|py| CPythonPrepared::new(py, config))
        .map(|prepared| Box::new(prepared) as Box<dyn Prepared>)
}

/// The interpreter, ready to be sandboxed: its paths chosen and the guest
/// side loaded.
#[derive(Debug)]
pub struct CPythonPrepared {
    readable: Vec<PathBuf>,
    hidden: Vec<PathBuf>,
    scratch: Option<u64>,
    guest: Py<PyModule>,
    /// Modules to import once the sandbox is in force.
    preload: Vec<String>,
}

fn text(err: PyErr) -> String {
    err.to_string()
}

impl CPythonPrepared {
    fn new(py: Python<'_>, mut config: CPythonConfig) -> Result<Self, String> {
        // With a scratch directory, temporary files, caches and a home
        // directory (matplotlib's, say) are there, unless the host's
        // environment for the guest says otherwise.
        let unset =
            |config: &CPythonConfig, name: &str| !config.environ.iter().any(|(set, _)| set == name);
        if config.max_scratch_bytes.is_some() {
            for name in ["TMPDIR", "HOME"] {
                if unset(&config, name) {
                    config
                        .environ
                        .push((name.to_owned(), stockade_wire::SCRATCH_DIR.to_owned()));
                }
            }
        }

        let sys = py.import("sys").map_err(text)?;
        let mut path: Vec<String> = sys
            .getattr("path")
            .and_then(|p| p.extract())
            .map_err(|e| format!("cannot read sys.path: {e}"))?;
        forget_how_it_started(py, &sys).map_err(text)?;
        // The standard library's entries that exist (a missing zip is
        // common); the guest's imports find nothing else of the host.
        path.retain(|entry| std::path::Path::new(entry).exists());
        for dir in &config.site_packages {
            if !std::path::Path::new(dir).is_dir() {
                return Err(format!("site_packages directory {dir} does not exist"));
            }
        }
        // The host's package directories join the path only after the
        // imports below, which run before the sandbox: nothing in them can
        // stand in for a module imported while files can still be opened.
        sys.setattr("path", PyList::new(py, &path).map_err(text)?)
            .map_err(text)?;
        // The interpreter read the zone at its start; the worker has set
        // TZ=UTC since (worker-core's `run`), so `time` reads it again.
        if let Ok(time) = py.import("time") {
            let _ = time.call_method0("tzset");
        }
        // Before any other thread exists and before the guest side's own
        // allocations, so the count covers everything the guest makes.
        let debug_build = sys.hasattr("gettotalrefcount").map_err(text)?;
        if let Err(why) = crate::memory::install(debug_build) {
            eprintln!("stockade-cpython: {why}");
        }
        for name in PRELOADED {
            py.import(*name)
                .map_err(|e| format!("cannot import {name}: {e}"))?;
        }
        let guest = PyModule::new(py, "stockade").map_err(text)?;
        let namespace = guest.dict();
        namespace
            .set_item("__builtins__", py.import("builtins").map_err(text)?)
            .map_err(text)?;
        let code = std::ffi::CString::new(GUEST_PY).map_err(|e| e.to_string())?;
        py.run(&code, Some(&namespace), None::<&Bound<'_, PyDict>>)
            .map_err(|e| format!("the guest side failed to load: {e}"))?;
        for (name, source) in GUEST_MORE {
            let code = std::ffi::CString::new(*source).map_err(|e| e.to_string())?;
            py.run(&code, Some(&namespace), None::<&Bound<'_, PyDict>>)
                .map_err(|e| format!("the guest side ({name}) failed to load: {e}"))?;
        }
        // Mounted paths go to the host; the guest learns the mounts at its
        // first file call (a spare worker is started before its session).
        guest
            .getattr("mount_files")
            .and_then(|mount| {
                let os_call = py.import("stockade_cpython")?.getattr("os_call")?;
                mount.call1((os_call,))
            })
            .map_err(|e| format!("cannot put the host's mounts under the guest's files: {e}"))?;
        // The environment and clock the host chose, before Ready.
        let frozen_at = config.frozen_clock_us.map(|us| us as f64 / 1e6);
        guest
            .getattr("adopt_world")
            .and_then(|adopt| {
                let replace = py
                    .import("stockade_cpython")?
                    .getattr("replace_class_attribute")?;
                adopt.call1((config.environ.clone(), frozen_at, replace))
            })
            .map_err(|e| format!("cannot take the session's environment and clock: {e}"))?;
        if let Some(seed) = config.journal_seed {
            guest
                .getattr("journal")
                .and_then(|journal| journal.call1((seed,)))
                .map_err(|e| format!("cannot journal the session's clock and randomness: {e}"))?;
            crate::journal::start();
        }
        path.extend(config.site_packages.iter().cloned());
        sys.setattr("path", PyList::new(py, &path).map_err(text)?)
            .map_err(text)?;
        let mut readable: Vec<PathBuf> = path.iter().map(PathBuf::from).collect();
        // Extension modules link system libraries (the standard library's
        // zlib, libexpat, OpenSSL...; the packages' libstdc++, libgomp...):
        // those files are shown too.
        let dynload: Vec<PathBuf> = readable
            .iter()
            .filter(|dir| dir.ends_with("lib-dynload"))
            .cloned()
            .collect();
        let packages: Vec<PathBuf> = config.site_packages.iter().map(PathBuf::from).collect();
        readable.extend(crate::natives::libraries(&dynload, &packages));
        readable.extend(time_zone_database());
        // Inside the standard library's trees: the interpreter's own
        // package directories (what the host installed there is not the
        // guest's; `site_packages` names what is). CPython's test modules
        // (`_testcapi`, ...) stay: native code the OS layers contain, as
        // they contain ctypes, and what CPython's own tests import.
        let hidden: Vec<PathBuf> = path
            .iter()
            .filter(|dir| !config.site_packages.contains(dir))
            .flat_map(|dir| {
                ["site-packages", "dist-packages"].map(|name| PathBuf::from(dir).join(name))
            })
            .collect();
        Ok(Self {
            readable,
            hidden,
            scratch: config.max_scratch_bytes,
            guest: guest.unbind(),
            preload: config.preload,
        })
    }
}

/// Where the standard library's `zoneinfo` looks for the time-zone
/// database when no `tzdata` package is importable: CPython's default
/// `TZPATH`, in its order.
const TZ_DIRS: &[&str] = &[
    "/usr/share/zoneinfo",
    "/usr/lib/zoneinfo",
    "/usr/share/lib/zoneinfo",
    "/etc/zoneinfo",
];

/// The system's time-zone database, shown read-only so that
/// `ZoneInfo("America/New_York")` works: public data, the same on every
/// machine of a distribution release, telling nothing of the host.
fn time_zone_database() -> Option<PathBuf> {
    TZ_DIRS
        .iter()
        .map(PathBuf::from)
        .find(|dir| dir.join("UTC").is_file() || dir.join("Etc/UTC").is_file())
}

/// How the interpreter was started names the host's paths (the
/// interpreter's, the engine module's, often a user's home or an
/// application's virtual environment): the guest sees none of it, only
/// what an embedded interpreter shows (`sys.argv == ['']`).
fn forget_how_it_started(py: Python<'_>, sys: &Bound<'_, PyModule>) -> PyResult<()> {
    sys.setattr("argv", PyList::new(py, [""])?)?;
    sys.setattr("orig_argv", PyList::empty(py))?;
    let engine = py.import("stockade_cpython")?;
    for name in ["__file__", "__cached__"] {
        if engine.hasattr(name)? {
            engine.delattr(name)?;
        }
    }
    for name in ["__spec__", "__loader__"] {
        if engine.hasattr(name)? {
            engine.setattr(name, py.None())?;
        }
    }
    Ok(())
}

impl Prepared for CPythonPrepared {
    fn readable(&self) -> Vec<PathBuf> {
        self.readable.clone()
    }

    fn hidden(&self) -> Vec<PathBuf> {
        self.hidden.clone()
    }

    fn scratch(&self) -> Option<u64> {
        self.scratch
    }

    fn start(self: Box<Self>, limits: &ConfigureLimits) -> Result<Box<dyn Engine>, String> {
        // The session thread takes the GIL here and keeps it to the
        // worker's end (each feed's attach is then only a count), so guest
        // threads run only while a feed does (the interpreter hands them
        // the GIL in turns), never between feeds, outside the guest clock.
        // SAFETY: on the session thread, which runs Python from now on;
        // the matching release never comes (the process ends with `_exit`),
        // which is the point.
        let _kept = unsafe { pyo3::ffi::PyGILState_Ensure() };
        Python::attach(|py| {
            // Under the whole sandbox: a package's import is no more
            // trusted than the guest's own code. A template with a scratch
            // leaves layers to its workers (capabilities, Landlock), so its
            // workers import for themselves once those are in force.
            let deferred = crate::template::is_template() && self.scratch.is_some();
            if !deferred {
                let in_template = crate::template::is_template();
                crate::template::import_preloaded(py, &self.preload, in_template)?;
            }
            let mut engine = CPythonEngine::new(py, self.guest.bind(py), limits)?;
            if deferred {
                engine.import_when_forked(self.preload);
            }
            Ok(engine)
        })
        .map(|engine| Box::new(engine) as Box<dyn Engine>)
    }
}
