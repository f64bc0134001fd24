//! Remote sessions against local ones, in one run: sessions per second
//! (open, three feeds, close) from several threads, and the latency of a
//! turn while two hundred sessions run at once, each through a loopback
//! `stockade serve` and on this host's own workers. Prints the table
//! docs/performance.md keeps.
//!
//! Run with `cargo bench -p stockade-cli --bench remote` after building the
//! workspace (`cargo build --release --workspace`); `cargo test --benches`
//! runs a quick smoke pass.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use stockade::{Interpreter, Pool, PoolOptions, SandboxMode, Session, SessionOptions};

const TOKEN: &str = "the-remote-bench-token-0123";

/// A loopback server, killed when dropped.
struct Server {
    child: Child,
    url: String,
    _tokens: TempFile,
}

struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Server {
    fn start() -> Self {
        let tokens = TempFile(
            std::env::temp_dir().join(format!("stockade-remote-bench-{}", std::process::id())),
        );
        std::fs::write(&tokens.0, format!("{TOKEN}\n")).expect("the token file");
        let mut child = Command::new(env!("CARGO_BIN_EXE_stockade"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--max-sessions",
                "1024",
                "--tokens",
            ])
            .arg(&tokens.0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("stockade serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("its stdout"))
            .read_line(&mut line)
            .expect("where it listens");
        let url = line
            .trim()
            .strip_prefix("stockade serve: listening on ")
            .expect("the listening line")
            .to_owned();
        Self {
            child,
            url,
            _tokens: tokens,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn options(engine: Interpreter) -> SessionOptions {
    SessionOptions::new(engine.language())
        .engine(engine)
        .sandbox(SandboxMode::Require)
        .spare(false)
}

/// Sessions per second: `threads` threads each opening a session, running
/// three feeds and closing it, for `run`.
fn sessions_per_second(open: &(dyn Fn() -> Session + Sync), threads: usize, run: Duration) -> f64 {
    let stop = Instant::now() + run;
    let count = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                let mut done = 0;
                while Instant::now() < stop {
                    let mut session = open();
                    for _ in 0..3 {
                        session.run("1 + 1").expect("a feed");
                    }
                    drop(session);
                    done += 1;
                }
                *count.lock().expect("the count") += done;
            });
        }
    });
    let done = *count.lock().expect("the count");
    done as f64 / run.as_secs_f64()
}

/// Every turn's latency while `sessions` sessions each run `turns` feeds
/// at once.
fn turn_latencies(
    open: &(dyn Fn() -> Session + Sync),
    sessions: usize,
    turns: usize,
) -> Vec<Duration> {
    let opened = Arc::new(Barrier::new(sessions));
    let samples = Mutex::new(Vec::with_capacity(sessions * turns));
    std::thread::scope(|scope| {
        for _ in 0..sessions {
            let opened = Arc::clone(&opened);
            let samples = &samples;
            scope.spawn(move || {
                let mut session = open();
                session.run("x = 0").expect("a feed");
                opened.wait();
                let mut mine = Vec::with_capacity(turns);
                for _ in 0..turns {
                    let began = Instant::now();
                    session.run("x += 1").expect("a feed");
                    mine.push(began.elapsed());
                }
                samples.lock().expect("the samples").extend(mine);
            });
        }
    });
    samples.into_inner().expect("the samples")
}

fn percentile(samples: &mut [Duration], fraction: f64) -> f64 {
    samples.sort_unstable();
    let at = ((samples.len() as f64 * fraction) as usize).min(samples.len().saturating_sub(1));
    samples.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e6)
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs a quick smoke pass.
    let quick = !std::env::args().any(|a| a == "--bench");
    let (run, sessions, turns) = if quick {
        (Duration::from_millis(300), 8, 3)
    } else {
        (Duration::from_secs(5), 200, 50)
    };
    let server = Server::start();
    println!(
        "Remote sessions through a loopback `stockade serve` against the same sessions on this host's own workers (`require`), one run."
    );
    println!();
    println!(
        "| engine | sessions per second, 8 threads: remote / local | turn p50 µs, {sessions} at once: remote / local | turn p99 µs: remote / local |"
    );
    println!("|---|---|---|---|");
    for engine in [
        Interpreter::QuickJs,
        Interpreter::Monty,
        Interpreter::CPython,
    ] {
        let remote = || {
            Session::new(options(engine).remote(server.url.clone(), Some(TOKEN.to_owned())))
                .expect("a remote session")
        };
        let pool = Pool::new(
            options(engine),
            PoolOptions {
                size: 8,
                max_concurrent_starts: 2,
            },
        )
        .expect("a pool");
        pool.wait_ready(Duration::from_secs(30));
        let local = || pool.checkout().expect("a local session");
        // The server's template for these options starts once, before the
        // clock runs (the pool's started above).
        drop(remote());
        let remote_rate = sessions_per_second(&remote, 8, run);
        let local_rate = sessions_per_second(&local, 8, run);
        drop(pool);
        let local_open = || Session::new(options(engine)).expect("a local session");
        let mut remote_turns = turn_latencies(&remote, sessions, turns);
        let mut local_turns = turn_latencies(&local_open, sessions, turns);
        println!(
            "| {engine} | {remote_rate:.0} / {local_rate:.0} | {:.0} / {:.0} | {:.0} / {:.0} |",
            percentile(&mut remote_turns, 0.5),
            percentile(&mut local_turns, 0.5),
            percentile(&mut remote_turns, 0.99),
            percentile(&mut local_turns, 0.99),
        );
    }
}
