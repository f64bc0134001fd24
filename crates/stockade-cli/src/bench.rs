//! `stockade bench`: start-up and round-trip figures on this machine, from
//! the command line alone: cold start against a pooled checkout, warm round
//! trip and host call, as medians and p95 in microseconds.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use stockade::{Language, Pool, PoolOptions, SandboxMode, Session, SessionOptions, Value};

use crate::args::named;
use crate::exit;
use crate::output::outln;

/// Measure cold starts, pooled checkouts, round trips and host calls.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Guest language.
    #[arg(long, default_value = "python", value_parser = named::<Language>())]
    lang: Language,
    /// Samples per measurement.
    #[arg(long, default_value = "200", value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    samples: u32,
    /// Ready workers in the pool.
    #[arg(long, default_value = "4", value_parser = clap::value_parser!(u32).range(1..=256))]
    pool_size: u32,
    /// OS sandbox mode.
    #[arg(long, default_value = "auto", value_parser = named::<SandboxMode>())]
    sandbox: SandboxMode,
    /// Worker binary to use.
    #[arg(long, value_name = "PATH")]
    worker: Option<PathBuf>,
}

fn micros(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort_unstable();
    let at = |fraction: f64| {
        let index = ((samples.len() as f64) * fraction) as usize;
        samples[index.min(samples.len() - 1)].as_secs_f64() * 1e6
    };
    (at(0.5), at(0.95))
}

fn options(args: &BenchArgs) -> SessionOptions {
    let mut options = SessionOptions::new(args.lang)
        .sandbox(args.sandbox)
        .spare(false)
        .max_host_calls(u32::MAX);
    if let Some(worker) = &args.worker {
        options = options.worker(worker);
    }
    options
}

fn measure(args: &BenchArgs) -> Result<Vec<(String, Vec<Duration>)>, stockade::Error> {
    let n = args.samples as usize;
    let options = options(args);
    let mut rows = Vec::new();

    let mut cold = Vec::with_capacity(n.min(200));
    for _ in 0..n.min(200) {
        let started = Instant::now();
        let mut session = Session::new(options.clone())?;
        session.run("1 + 1")?;
        cold.push(started.elapsed());
    }
    rows.push(("cold start + first `1 + 1`".to_owned(), cold));

    let pool = Pool::new(
        options.clone(),
        PoolOptions {
            size: args.pool_size as usize,
            max_concurrent_starts: 2,
        },
    )?;
    let mut pooled = Vec::with_capacity(n.min(200));
    for _ in 0..n.min(200) {
        // Measure a pool that has caught up, as one between bursts would be.
        pool.wait_ready(Duration::from_secs(30));
        let started = Instant::now();
        let mut session = pool.checkout()?;
        session.run("1 + 1")?;
        pooled.push(started.elapsed());
    }
    rows.push(("pooled checkout + first `1 + 1`".to_owned(), pooled));

    let mut session = pool.checkout()?;
    for _ in 0..100 {
        session.run("1 + 1")?;
    }
    let mut warm = Vec::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        session.run("1 + 1")?;
        warm.push(started.elapsed());
    }
    rows.push(("warm round trip (`1 + 1`)".to_owned(), warm));

    let stamps = std::sync::Arc::new(std::sync::Mutex::new(Vec::with_capacity(n + 1)));
    let sink = std::sync::Arc::clone(&stamps);
    session.register_function("tick", move |_| {
        if let Ok(mut stamps) = sink.lock() {
            stamps.push(Instant::now());
        }
        Ok(Value::None)
    });
    let code = match options.language {
        Language::Python => "for i in range(n):\n    tick(i)",
        Language::JavaScript => "for (let i = 0; i < n; i++) tick(i)",
    };
    session.run_with_inputs(code, vec![("n".into(), Value::Int(n as i64 + 1))])?;
    let stamps = stamps.lock().map(|s| s.clone()).unwrap_or_default();
    let calls = stamps.windows(2).map(|w| w[1] - w[0]).collect();
    rows.push(("host call from a guest loop".to_owned(), calls));
    Ok(rows)
}

pub fn bench(args: BenchArgs) -> i32 {
    match measure(&args) {
        Ok(rows) => {
            outln!(
                "| measurement ({}) | median µs | p95 µs | samples |",
                args.lang.name()
            );
            outln!("|---|---|---|---|");
            for (name, mut samples) in rows {
                let count = samples.len();
                let (median, p95) = micros(&mut samples);
                outln!("| {name} | {median:.1} | {p95:.1} | {count} |");
            }
            exit::OK
        }
        Err(err) => exit::report(&err),
    }
}
