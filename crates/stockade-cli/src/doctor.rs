//! `stockade doctor`: which worker binary is in use, its versions, the
//! sandbox this kernel gives in `require` and in `auto` mode, and whether
//! the CPython engine can run here (its interpreter and module).

use std::path::PathBuf;

use clap::Args;
use stockade::{
    Interpreter, Language, MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION, SandboxMode,
    SandboxReport, Session, SessionOptions, find_python, locate_engine_module, locate_worker,
};

use crate::exit;
use crate::output::outln;

/// Show the worker in use and the sandbox this machine gives.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Worker binary to check (default: as `stockade run` finds it).
    #[arg(long, value_name = "PATH")]
    worker: Option<PathBuf>,
    /// Python interpreter to check for the cpython engine (default: python3 on PATH).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
}

/// What the CPython engine needs, found or not, and one start of it.
struct CPythonCheck {
    python: Result<(String, String), String>,
    module: Result<String, String>,
    /// A session in `require` mode: its engine and sandbox, or why not.
    start: Result<(String, SandboxReport), String>,
}

fn check_cpython(python: Option<&std::path::Path>, worker: &std::path::Path) -> CPythonCheck {
    let found = find_python(python)
        .map(|p| (p.executable.display().to_string(), p.version))
        .map_err(|err| err.to_string());
    let module = locate_engine_module(None, Some(worker))
        .map(|m| m.display().to_string())
        .map_err(|err| err.to_string());
    let start = if found.is_ok() && module.is_ok() {
        let mut options = SessionOptions::new(Language::Python)
            .engine(Interpreter::CPython)
            .sandbox(SandboxMode::Require)
            .worker(worker)
            .spare(false);
        if let Some(python) = python {
            options = options.python(python);
        }
        Session::new(options)
            .map(|session| {
                let info = session.worker_info().clone();
                session.close();
                (info.engine, info.sandbox)
            })
            .map_err(|err| err.to_string())
    } else {
        Err("not tried: the interpreter or the module is missing".into())
    };
    CPythonCheck {
        python: found,
        module,
        start,
    }
}

impl CPythonCheck {
    fn json(&self) -> String {
        let field = |r: &Result<String, String>| match r {
            Ok(v) => json_str(v),
            Err(_) => "null".into(),
        };
        let errors: Vec<String> = [
            self.python.as_ref().err(),
            self.module.as_ref().err(),
            self.start.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        .map(|e| json_str(e))
        .collect();
        format!(
            "{{\"available\": {}, \"python\": {}, \"version\": {}, \"module\": {}, \"engine\": {}, \"sandbox\": {}, \"errors\": {}}}",
            self.start.is_ok(),
            field(&self.python.clone().map(|p| p.0)),
            field(&self.python.clone().map(|p| p.1)),
            field(&self.module),
            field(&self.start.clone().map(|s| s.0)),
            self.start
                .as_ref()
                .map_or_else(|_| "null".into(), |(_, report)| report_json(report)),
            json_list(errors),
        )
    }

    fn print(&self) {
        match &self.python {
            Ok((path, version)) => outln!("cpython interpreter: {path} (CPython {version})"),
            Err(err) => outln!("cpython interpreter: not found: {err}"),
        }
        match &self.module {
            Ok(module) => outln!("cpython engine module: {module}"),
            Err(err) => outln!("cpython engine module: not found: {err}"),
        }
        match &self.start {
            Ok((engine, report)) => outln!(
                "engine cpython: starts under require ({engine}); {}",
                if report.is_complete() {
                    "every layer in force"
                } else {
                    "layers missing"
                }
            ),
            Err(err) => {
                outln!("engine cpython: not available ({err}); Python guests run on monty instead")
            }
        }
    }
}

/// What one start of a worker in one mode showed.
struct Probe {
    mode: SandboxMode,
    outcome: Result<(String, String, SandboxReport), String>,
}

fn probe(worker: &std::path::Path, mode: SandboxMode) -> Probe {
    // A probe, not a session anyone will use: no spare worker.
    let options = SessionOptions::new(Language::Python)
        .sandbox(mode)
        .worker(worker)
        .spare(false);
    let outcome = Session::new(options)
        .map(|session| {
            let info = session.worker_info().clone();
            session.close();
            (info.worker_version, info.engine, info.sandbox)
        })
        .map_err(|err| err.to_string());
    Probe { mode, outcome }
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

fn report_json(report: &SandboxReport) -> String {
    format!(
        "{{\"complete\": {}, \"applied\": {}, \"missing\": {}, \"extras\": {}}}",
        report.is_complete(),
        json_list(report.applied.iter().map(|l| json_str(l))),
        json_list(report.missing.iter().map(|(l, why)| format!(
            "{{\"layer\": {}, \"reason\": {}}}",
            json_str(l),
            json_str(why)
        ))),
        json_list(report.extras.iter().map(|e| json_str(e))),
    )
}

pub fn doctor(args: DoctorArgs) -> i32 {
    let worker = match locate_worker(args.worker.as_deref()) {
        Ok(worker) => worker,
        Err(err) => return exit::report(&err),
    };
    let probes = [
        probe(&worker, SandboxMode::Require),
        probe(&worker, SandboxMode::Auto),
    ];
    let cpython = check_cpython(args.python.as_deref(), &worker);
    if args.json {
        let modes: Vec<String> = probes
            .iter()
            .map(|p| match &p.outcome {
                Ok((version, engine, report)) => format!(
                    "{}: {{\"starts\": true, \"worker_version\": {}, \"engine\": {}, \"sandbox\": {}}}",
                    json_str(p.mode.name()),
                    json_str(version),
                    json_str(engine),
                    report_json(report)
                ),
                Err(err) => format!(
                    "{}: {{\"starts\": false, \"error\": {}}}",
                    json_str(p.mode.name()),
                    json_str(err)
                ),
            })
            .collect();
        outln!(
            "{{\"stockade_version\": {}, \"worker\": {}, \"protocol\": {{\"min\": {MIN_SUPPORTED_PROTOCOL_VERSION}, \"max\": {PROTOCOL_VERSION}}}, \"modes\": {{{}}}, \"cpython\": {}}}",
            json_str(env!("CARGO_PKG_VERSION")),
            json_str(&worker.display().to_string()),
            modes.join(", "),
            cpython.json()
        );
    } else {
        outln!("stockade {}", env!("CARGO_PKG_VERSION"));
        outln!("worker: {}", worker.display());
        outln!("protocol: {MIN_SUPPORTED_PROTOCOL_VERSION}..={PROTOCOL_VERSION}");
        for p in &probes {
            match &p.outcome {
                Ok((version, engine, report)) => {
                    outln!(
                        "sandbox {}: starts (worker {version}, {engine}); {}",
                        p.mode.name(),
                        if report.is_complete() {
                            "every layer in force"
                        } else {
                            "layers missing"
                        }
                    );
                    outln!("  applied: {}", report.applied.join(", "));
                    for (layer, why) in &report.missing {
                        outln!("  missing: {layer}: {why}");
                    }
                    for extra in &report.extras {
                        outln!("  note: {extra}");
                    }
                }
                Err(err) => outln!("sandbox {}: refuses to start: {err}", p.mode.name()),
            }
        }
        cpython.print();
    }
    // Doctor succeeds when a worker starts at all; `require` failing is
    // information, shown above.
    if probes.iter().any(|p| p.outcome.is_ok()) {
        exit::OK
    } else {
        exit::CRASHED
    }
}
