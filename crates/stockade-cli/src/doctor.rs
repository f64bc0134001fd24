//! `stockade doctor`: which worker binary is in use, its versions, and the
//! sandbox this kernel gives in `require` and in `auto` mode.

use std::path::PathBuf;

use clap::Args;
use stockade::{
    Language, MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION, SandboxMode, SandboxReport,
    Session, SessionOptions, locate_worker,
};

use crate::exit;

/// Show the worker in use and the sandbox this machine gives.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Worker binary to check (default: as `stockade run` finds it).
    #[arg(long, value_name = "PATH")]
    worker: Option<PathBuf>,
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
        println!(
            "{{\"stockade_version\": {}, \"worker\": {}, \"protocol\": {{\"min\": {MIN_SUPPORTED_PROTOCOL_VERSION}, \"max\": {PROTOCOL_VERSION}}}, \"modes\": {{{}}}}}",
            json_str(env!("CARGO_PKG_VERSION")),
            json_str(&worker.display().to_string()),
            modes.join(", ")
        );
    } else {
        println!("stockade {}", env!("CARGO_PKG_VERSION"));
        println!("worker: {}", worker.display());
        println!("protocol: {MIN_SUPPORTED_PROTOCOL_VERSION}..={PROTOCOL_VERSION}");
        for p in &probes {
            match &p.outcome {
                Ok((version, engine, report)) => {
                    println!(
                        "sandbox {}: starts (worker {version}, {engine}); {}",
                        p.mode.name(),
                        if report.is_complete() {
                            "every layer in force"
                        } else {
                            "layers missing"
                        }
                    );
                    println!("  applied: {}", report.applied.join(", "));
                    for (layer, why) in &report.missing {
                        println!("  missing: {layer}: {why}");
                    }
                    for extra in &report.extras {
                        println!("  note: {extra}");
                    }
                }
                Err(err) => println!("sandbox {}: refuses to start: {err}", p.mode.name()),
            }
        }
    }
    // Doctor succeeds when a worker starts at all; `require` failing is
    // information, shown above.
    if probes.iter().any(|p| p.outcome.is_ok()) {
        exit::OK
    } else {
        exit::CRASHED
    }
}
