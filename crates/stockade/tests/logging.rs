//! In `auto` mode, sandbox layers the worker lacks are logged as warnings
//! through `tracing`, the host's logging.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use stockade::{Language, Session, SessionOptions};
use stockade_wire::{
    Response, SandboxMode, SandboxReport, WireLimits, WorkerInfo, encode_response,
};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// Records every warning's fields as text.
struct Warnings(Arc<Mutex<Vec<String>>>);

struct Text(String);

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl Subscriber for Warnings {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= Level::WARN
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut text = Text(String::new());
        event.record(&mut text);
        self.0.lock().unwrap().push(text.0);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn fake_worker_reporting(report: SandboxReport) -> std::path::PathBuf {
    let ready = encode_response(
        &Response::Ready(WorkerInfo {
            protocol_version: 1,
            worker_version: "fake".into(),
            engine: "fake".into(),
            sandbox: report,
        }),
        &WireLimits::default(),
    )
    .unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("stockade-logging-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ready.bin"), ready).unwrap();
    let script = dir.join("worker.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat '{}'\nexec sleep 30\n",
            dir.join("ready.bin").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn missing_layers_in_auto_mode_are_logged_as_warnings() {
    let worker = fake_worker_reporting(SandboxReport {
        mode: SandboxMode::Auto,
        applied: vec!["rlimits".into()],
        missing: vec![("seccomp".into(), "this kernel has no seccomp".into())],
        extras: vec![],
        seccomp_policy: None,
    });
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let subscriber = Warnings(Arc::clone(&warnings));
    let session = tracing::subscriber::with_default(subscriber, || {
        Session::new(
            SessionOptions::new(Language::Python)
                .engine(stockade::Interpreter::Monty)
                .worker(worker),
        )
        .unwrap()
    });
    assert!(!session.worker_info().sandbox.is_complete());
    let logged = warnings.lock().unwrap().join("\n");
    assert!(
        logged.contains("seccomp (this kernel has no seccomp)"),
        "no warning names the missing layer: {logged:?}"
    );
}
