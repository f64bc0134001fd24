//! Round-trip benchmark: warm `1 + 1` feeds, host calls from a guest loop,
//! and cold session starts, with medians and p95 in microseconds.
//!
//! Run with `cargo bench -p stockade --bench roundtrip` after building the
//! worker (`cargo build --release -p stockade-worker`). The figures in
//! docs/performance.md come from this command.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stockade::{Language, SandboxMode, Session, SessionOptions, Value};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    println!(
        "| {name} | {:.1} | {:.1} | {} |",
        percentile(&samples, 0.5),
        percentile(&samples, 0.95),
        samples.len()
    );
}

fn options(sandbox: SandboxMode) -> SessionOptions {
    options_for(Language::Python, sandbox)
}

fn options_for(language: Language, sandbox: SandboxMode) -> SessionOptions {
    // One feed of the host-call loop makes more calls than the default cap.
    // Cold starts are measured as such: no spare worker.
    SessionOptions::new(language)
        .sandbox(sandbox)
        .max_host_calls(u32::MAX)
        .spare(false)
}

/// A host-call loop of `n` calls in the session's language.
fn call_loop(language: Language, n: usize) -> String {
    match language {
        Language::Python => format!("for i in range({n}):\n    tick(i)"),
        Language::JavaScript => format!("for (let i = 0; i < {n}; i++) tick(i)"),
    }
}

fn warm_round_trip(language: Language, sandbox: SandboxMode, iterations: usize) -> Vec<Duration> {
    let mut session = Session::new(options_for(language, sandbox)).expect("session");
    for _ in 0..1000 {
        session.run("1 + 1").expect("warm-up");
    }
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            let value = session.run("1 + 1").expect("run");
            let elapsed = start.elapsed();
            assert_eq!(value, Value::Int(2));
            elapsed
        })
        .collect()
}

fn host_call(language: Language, sandbox: SandboxMode, iterations: usize) -> Vec<Duration> {
    let mut session = Session::new(options_for(language, sandbox)).expect("session");
    let marks = Arc::new(Mutex::new(Vec::with_capacity(iterations + 1)));
    let sink = Arc::clone(&marks);
    session.register_function("tick", move |_| {
        if let Ok(mut marks) = sink.lock() {
            marks.push(Instant::now());
        }
        Ok(Value::None)
    });
    session.run(&call_loop(language, 1000)).expect("warm-up");
    if let Ok(mut marks) = marks.lock() {
        marks.clear();
    }
    // The time between two host invocations is one whole host call: the
    // resume, one loop iteration in the guest, and the next Call frame.
    session
        .run(&call_loop(language, iterations + 1))
        .expect("run");
    let marks = marks.lock().map(|m| m.clone()).unwrap_or_default();
    marks.windows(2).map(|w| w[1] - w[0]).collect()
}

fn cold_start(sandbox: SandboxMode, iterations: usize) -> Vec<Duration> {
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            let mut session = Session::new(options(sandbox)).expect("session");
            session.run("1 + 1").expect("run");
            let elapsed = start.elapsed();
            drop(session);
            elapsed
        })
        .collect()
}

/// Recursive fib(25) in the guest, timed by the host around one feed.
fn fib(language: Language, scale: usize) -> Vec<Duration> {
    let mut session = Session::new(options_for(language, SandboxMode::Auto)).expect("session");
    let (define, call) = match language {
        Language::Python => (
            "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)",
            "fib(25)",
        ),
        Language::JavaScript => (
            "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }",
            "fib(25)",
        ),
    };
    session.run(define).expect("define");
    (0..(2 * scale).max(3))
        .map(|_| {
            let start = Instant::now();
            assert_eq!(session.run(call).expect("fib"), Value::Int(75025));
            start.elapsed()
        })
        .collect()
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs a quick smoke pass.
    let quick = !std::env::args().any(|a| a == "--bench");
    let scale = if quick { 1 } else { 20 };
    println!("| measurement | median µs | p95 µs | samples |");
    println!("|---|---|---|---|");
    for (label, mode) in [
        ("sandboxed", SandboxMode::Auto),
        ("no sandbox", SandboxMode::Off),
    ] {
        report(
            &format!("warm round trip (`1 + 1` feed), {label}"),
            warm_round_trip(Language::Python, mode, 500 * scale),
        );
        report(
            &format!("host call from a guest loop, {label}"),
            host_call(Language::Python, mode, 500 * scale),
        );
        report(
            &format!("cold start + first `1 + 1`, {label}"),
            cold_start(mode, 10 * scale),
        );
    }
    let js = Language::JavaScript;
    report(
        "JavaScript warm round trip (`1 + 1`), sandboxed",
        warm_round_trip(js, SandboxMode::Auto, 500 * scale),
    );
    report(
        "JavaScript host call from a guest loop, sandboxed",
        host_call(js, SandboxMode::Auto, 500 * scale),
    );
    report("Python fib(25), sandboxed", fib(Language::Python, scale));
    report("JavaScript fib(25), sandboxed", fib(js, scale));
}
