//! Round-trip benchmark, every engine in one run: warm feeds (the same
//! snippet, and a new one each time), the worker's CPU per feed, host
//! calls from a guest loop, cold session starts with every sandbox layer,
//! pooled checkouts, the idle worker's memory and fib(25), with medians
//! and p95 in microseconds, and CPython's own fib(25) outside stockade;
//! then the cost of dumps: sealing a small monty session and restoring it.
//!
//! Run with `cargo bench -p stockade --bench roundtrip` after building the
//! worker (`cargo build --release -p stockade-cli`) and the CPython
//! engine module (`cargo build --release --manifest-path
//! crates/stockade-cpython/Cargo.toml --target-dir target`). The figures
//! in docs/performance.md come from this command.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stockade::{
    DumpSeal, Interpreter, Language, Pool, PoolOptions, SandboxMode, Session, SessionOptions, Value,
};

const ENGINES: [Interpreter; 3] = [
    Interpreter::Monty,
    Interpreter::CPython,
    Interpreter::QuickJs,
];

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e6
}

/// Median and p95 in microseconds.
fn summary(mut samples: Vec<Duration>) -> (f64, f64, usize) {
    samples.sort();
    (
        percentile(&samples, 0.5),
        percentile(&samples, 0.95),
        samples.len(),
    )
}

fn options(engine: Interpreter, sandbox: SandboxMode) -> SessionOptions {
    // One feed of the host-call loop makes more calls than the default cap.
    // Cold starts are measured as such: no spare worker.
    SessionOptions::new(engine.language())
        .engine(engine)
        .sandbox(sandbox)
        .max_host_calls(u32::MAX)
        .spare(false)
}

/// A host-call loop of `n` calls in the engine's language.
fn call_loop(engine: Interpreter, n: usize) -> String {
    match engine.language() {
        Language::Python => format!("for i in range({n}):\n    tick(i)"),
        Language::JavaScript => format!("for (let i = 0; i < {n}; i++) tick(i)"),
    }
}

fn warm_round_trip(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    round_trips(engine, iterations, |_| "1 + 1".to_owned())
}

/// As `warm_round_trip`, with a snippet the worker has not seen before in
/// every feed (`1 + i`), so nothing compiled earlier can be reused.
fn new_snippet_round_trip(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    round_trips(engine, iterations, |i| format!("1 + {i}"))
}

/// Sessions a round-trip measurement is spread over: where the scheduler
/// puts a worker (beside the host's core or on it) decides which of two
/// speeds its replies come at for the session's life, so one session's
/// median is one draw.
const SESSIONS: usize = 5;

fn round_trips(
    engine: Interpreter,
    iterations: usize,
    snippet: impl Fn(usize) -> String,
) -> Vec<Duration> {
    let per_session = iterations.div_ceil(SESSIONS);
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..SESSIONS {
        let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
        for i in 0..200 {
            session.run(&snippet(i)).expect("warm-up");
        }
        for i in 200..200 + per_session {
            let code = snippet(i);
            let start = Instant::now();
            let value = session.run(&code).expect("run");
            samples.push(start.elapsed());
            assert!(matches!(value, Value::Int(_)), "{value:?}");
        }
    }
    samples
}

/// The worker's own CPU time (every thread, user and system) per warm feed
/// of a new snippet (`1 + i`), one sample per session: the engine's cost
/// without the scheduler's part in a round trip.
fn worker_cpu_per_feed(engine: Interpreter, feeds: usize) -> Vec<Duration> {
    (0..SESSIONS)
        .map(|_| {
            let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
            for i in 0..200 {
                session.run(&format!("1 + {i}")).expect("warm-up");
            }
            let before = cpu_time(session.worker_pid());
            for i in 200..200 + feeds {
                session.run(&format!("1 + {i}")).expect("run");
            }
            (cpu_time(session.worker_pid()) - before) / feeds as u32
        })
        .collect()
}

/// CPU time of every thread of process `pid` so far, from schedstat.
fn cpu_time(pid: u32) -> Duration {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).expect("the worker's threads");
    let nanos: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(nanos)
}

fn host_call(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
    let marks = Arc::new(Mutex::new(Vec::with_capacity(iterations + 1)));
    let sink = Arc::clone(&marks);
    session.register_function("tick", move |_| {
        if let Ok(mut marks) = sink.lock() {
            marks.push(Instant::now());
        }
        Ok(Value::None)
    });
    session.run(&call_loop(engine, 1000)).expect("warm-up");
    if let Ok(mut marks) = marks.lock() {
        marks.clear();
    }
    // The time between two host invocations is one whole host call: the
    // resume, one loop iteration in the guest, and the next Call frame.
    session
        .run(&call_loop(engine, iterations + 1))
        .expect("run");
    let marks = marks.lock().map(|m| m.clone()).unwrap_or_default();
    marks.windows(2).map(|w| w[1] - w[0]).collect()
}

/// A new worker with every layer (`require`), its first `1 + 1`, its end.
fn cold_start(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    cold_runs(engine, iterations, "1 + 1")
}

/// As `cold_start`, with the first thing the guest does printing a small
/// object: on QuickJS that loads Node's util.inspect.
fn cold_print(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    let code = match engine.language() {
        Language::Python => "print({'a': [1, 2]})",
        Language::JavaScript => "console.log({ a: [1, 2] })",
    };
    cold_runs(engine, iterations, code)
}

fn cold_runs(engine: Interpreter, iterations: usize, code: &str) -> Vec<Duration> {
    // The first start pays for checking the interpreter once per process.
    drop(Session::new(options(engine, SandboxMode::Require)).expect("session"));
    (0..iterations)
        .map(|_| {
            let start = Instant::now();
            let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
            session.on_print(|_, _| {});
            session.run(code).expect("run");
            drop(session);
            start.elapsed()
        })
        .collect()
}

/// A checkout from a warm pool, its first `1 + 1`, and its close.
fn pooled(engine: Interpreter, iterations: usize) -> Vec<Duration> {
    let pool = Pool::new(
        options(engine, SandboxMode::Require),
        PoolOptions {
            size: 2,
            max_concurrent_starts: 2,
        },
    )
    .expect("pool");
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        // Let the pool refill, so each checkout finds a ready worker.
        std::thread::sleep(Duration::from_millis(60));
        let start = Instant::now();
        let mut session = pool.checkout().expect("checkout");
        session.run("1 + 1").expect("run");
        session.close();
        samples.push(start.elapsed());
    }
    samples
}

/// A small session, as an agent's would be after a few steps.
const SMALL_SESSION: &str = "rows = [{'id': i, 'name': 'item ' + str(i)} for i in range(100)]\n\
def total(xs):\n    return sum(x['id'] for x in xs)\n\
summary = {'count': len(rows), 'total': total(rows)}";

/// Dumps of a small monty session: sealing one (`dump`), restoring one
/// into a pool's ready checkout (`restore_into`), and `Session::restore`
/// (which takes the spare worker or starts one).
fn dump_costs(samples: usize) -> [(&'static str, Vec<Duration>, usize); 3] {
    let seal = DumpSeal::new(&[[7u8; 32]], "bench").expect("seal");
    let options = options(Interpreter::Monty, SandboxMode::Require);
    let mut session = Session::new(options.clone()).expect("session");
    session.run(SMALL_SESSION).expect("run");
    let mut dumping = Vec::with_capacity(samples);
    let mut bytes = Vec::new();
    for _ in 0..samples {
        let start = Instant::now();
        bytes = session.dump(&seal).expect("dump");
        dumping.push(start.elapsed());
    }
    let pool = Pool::new(
        options.clone(),
        PoolOptions {
            size: 2,
            max_concurrent_starts: 2,
        },
    )
    .expect("pool");
    let mut into_checkout = Vec::with_capacity(samples);
    let mut fresh = Vec::with_capacity(samples);
    for _ in 0..samples {
        std::thread::sleep(Duration::from_millis(60));
        let mut checkout = pool.checkout().expect("checkout");
        let start = Instant::now();
        checkout.restore_into(&seal, &bytes).expect("restore");
        into_checkout.push(start.elapsed());
        checkout.close();
        let start = Instant::now();
        let restored = Session::restore(options.clone(), &seal, &bytes).expect("restore");
        fresh.push(start.elapsed());
        restored.close();
    }
    let size = bytes.len();
    [
        ("dump (seal) a small monty session", dumping, size),
        ("restore it into a ready pool checkout", into_checkout, size),
        ("Session::restore (spare or new worker)", fresh, size),
    ]
}

/// Replaying journals: `Session::restore` of a dumpable QuickJS or
/// CPython session after `feeds` feeds, each reading the clock and calling
/// the host once.
fn replay_cost(engine: Interpreter, feeds: usize, samples: usize) -> (Vec<Duration>, usize) {
    let seal = DumpSeal::new(&[[7u8; 32]], "bench").expect("seal");
    let options = options(engine, SandboxMode::Require).dumpable(true);
    let feed = |i: usize| match engine {
        Interpreter::QuickJs => format!("globalThis.s{i} = [Date.now(), step({i})]"),
        _ => format!("import time\ns{i} = [time.time(), step({i})]"),
    };
    let mut session = Session::new(options.clone()).expect("session");
    session.register_function("step", |args| {
        Ok(args.get(0).cloned().unwrap_or(Value::None))
    });
    for i in 0..feeds {
        session.run(&feed(i)).expect("run");
    }
    let bytes = session.dump(&seal).expect("dump");
    let mut times = Vec::with_capacity(samples);
    for _ in 0..samples {
        std::thread::sleep(Duration::from_millis(20));
        let start = Instant::now();
        let restored = Session::restore(options.clone(), &seal, &bytes).expect("restore");
        times.push(start.elapsed());
        restored.close();
    }
    (times, bytes.len())
}

/// The idle worker's resident memory after its first feed, in MiB.
fn idle_rss(engine: Interpreter) -> f64 {
    let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
    session.run("1 + 1").expect("run");
    let status = std::fs::read_to_string(format!("/proc/{}/status", session.worker_pid()))
        .unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Recursive fib(25) in the guest, timed by the host around one feed.
fn fib(engine: Interpreter, runs: usize) -> Vec<Duration> {
    let mut session = Session::new(options(engine, SandboxMode::Require)).expect("session");
    let (define, call) = match engine.language() {
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
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            assert_eq!(session.run(call).expect("fib"), Value::Int(75025));
            start.elapsed()
        })
        .collect()
}

/// fib(25) in the same interpreter outside stockade, timed inside it.
fn native_cpython_fib(runs: usize) -> Vec<Duration> {
    let Ok(python) = stockade::find_python(None) else {
        return Vec::new();
    };
    let script = format!(
        "import time\n\
         def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\
         for _ in range({runs}):\n    t = time.perf_counter(); fib(25); print(time.perf_counter() - t)\n"
    );
    let output = std::process::Command::new(&python.executable)
        .args(["-I", "-S", "-c", &script])
        .output()
        .expect("python");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.trim().parse::<f64>().ok())
        .map(Duration::from_secs_f64)
        .collect()
}

fn row(name: &str, figures: &[(f64, f64, usize)]) {
    let cells: Vec<String> = figures
        .iter()
        .map(|(median, p95, n)| format!("{median:.1} / {p95:.1} ({n})"))
        .collect();
    let ratio = figures[1].0 / figures[0].0;
    println!("| {name} | {} | {ratio:.2} |", cells.join(" | "));
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs a quick smoke pass.
    let quick = !std::env::args().any(|a| a == "--bench");
    let scale = if quick { 1 } else { 20 };
    println!(
        "Every layer (`require`). Cells: median / p95 µs (samples). Ratio: cpython / monty, same run."
    );
    println!();
    println!("| measurement | monty | cpython | quickjs | cpython / monty |");
    println!("|---|---|---|---|---|");
    // Each measurement: its label, what takes the samples of one engine,
    // and how many samples.
    type Measure = fn(Interpreter, usize) -> Vec<Duration>;
    let measurements: [(&str, Measure, usize); 8] = [
        (
            "warm round trip (`1 + 1` feed)",
            warm_round_trip,
            500 * scale,
        ),
        (
            "warm round trip, a new snippet each feed (`1 + i`)",
            new_snippet_round_trip,
            500 * scale,
        ),
        (
            "worker CPU per warm feed of a new snippet",
            worker_cpu_per_feed,
            200 * scale,
        ),
        ("host call from a guest loop", host_call, 500 * scale),
        ("cold start + first `1 + 1` + close", cold_start, 5 * scale),
        (
            "cold start + first print of an object + close",
            cold_print,
            5 * scale,
        ),
        ("pooled checkout + first `1 + 1` + close", pooled, 5 * scale),
        ("fib(25)", fib, (scale / 2).max(3)),
    ];
    for (label, measure, samples) in measurements {
        let figures: Vec<_> = ENGINES
            .iter()
            .map(|&engine| summary(measure(engine, samples)))
            .collect();
        row(label, &figures);
    }
    let rss: Vec<String> = ENGINES
        .iter()
        .map(|&engine| format!("{:.1}", idle_rss(engine)))
        .collect();
    println!(
        "| idle worker RSS after a feed, MiB | {} | |",
        rss.join(" | ")
    );
    let (median, p95, n) = summary(native_cpython_fib((scale / 2).max(3)));
    println!();
    println!(
        "CPython's own fib(25), same interpreter, outside stockade: {median:.1} / {p95:.1} µs ({n})"
    );
    println!();
    println!("Dumps of a small monty session (`require`). Cells: median / p95 µs (samples).");
    println!();
    println!("| measurement | monty | dump bytes |");
    println!("|---|---|---|");
    for (label, samples, size) in dump_costs(10 * scale) {
        let (median, p95, n) = summary(samples);
        println!("| {label} | {median:.1} / {p95:.1} ({n}) | {size} |");
    }
    println!();
    println!("Replaying journals (`require`): `Session::restore` after N feeds.");
    println!();
    println!("| engine | feeds journaled | median / p95 µs (samples) | dump bytes |");
    println!("|---|---|---|---|");
    for engine in [Interpreter::QuickJs, Interpreter::CPython] {
        for feeds in [0, 10, 100] {
            let (samples, size) = replay_cost(engine, feeds, 5 * scale);
            let (median, p95, n) = summary(samples);
            println!("| {engine} | {feeds} | {median:.1} / {p95:.1} ({n}) | {size} |");
        }
    }
}
