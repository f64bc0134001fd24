//! The worker's protocol state machine: Configure and the sandbox on the
//! main thread, then Ready and the turns on the session thread, to Close.

use stockade_sandbox::{Report, SandboxConfig};
use stockade_wire::{
    ConfigureLimits, ErrorKind, GuestException, PROTOCOL_VERSION, Request, Response, SandboxMode,
    SandboxReport, WireLimits, WorkerExit, WorkerInfo, check_protocol_version, decode_request,
    peek_configure_version,
};

use crate::Worker;
use crate::alloc::CappedAllocator;
use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::{Engine, Feed, Prepared, SharedLink};
use crate::link::{Incoming, Link};
use crate::watchdog::Watchdog;

/// Sends Fatal, and returns the exit status to leave with.
fn fatal(link: &mut Link, exit: WorkerExit, message: String) -> i32 {
    eprintln!("stockade-worker: {message}");
    let _ = link.out.send(&Response::Fatal { message });
    exit.code()
}

/// A worker that has read its Configure and applied its sandbox, ready to
/// start its engine on the session thread.
pub struct Configured {
    link: Link,
    allocator: &'static CappedAllocator,
    engine: Box<dyn Prepared>,
    limits: ConfigureLimits,
    sandbox: SandboxReport,
    watchdog: Option<Watchdog>,
}

fn wire_report(mode: SandboxMode, report: Report) -> SandboxReport {
    SandboxReport {
        mode,
        applied: report
            .applied
            .iter()
            .map(|layer| layer.name().to_owned())
            .collect(),
        missing: report
            .missing
            .into_iter()
            .map(|m| (m.layer.name().to_owned(), m.reason))
            .collect(),
        extras: report.extras,
        seccomp_policy: report.seccomp_policy,
    }
}

/// Runs on the main thread while the process has no other: reads
/// Configure, checks the version and language, and applies the sandbox.
/// On failure returns the exit status, after sending Fatal.
pub fn configure(worker: Worker) -> Result<Configured, i32> {
    let limits = WireLimits::default();
    let opened = match worker.link {
        crate::LinkEnds::Stdio => Link::stdio(limits),
        crate::LinkEnds::Moved { input, output } => {
            use std::os::fd::FromRawFd;
            // SAFETY: the worker moved its link to these descriptors for
            // the link alone and hands them over here, once.
            let (input, output) = unsafe {
                (
                    std::fs::File::from_raw_fd(input),
                    std::fs::File::from_raw_fd(output),
                )
            };
            Ok(Link::new(input, output, limits))
        }
    };
    let mut link = match opened {
        Ok(link) => link,
        Err(err) => {
            eprintln!("stockade-worker: cannot open stdin/stdout: {err}");
            return Err(WorkerExit::Internal.code());
        }
    };
    let payload = match link.read_frame() {
        Ok(Some(payload)) => payload,
        Ok(None) => return Err(0),
        Err(err) => {
            return Err(fatal(
                &mut link,
                WorkerExit::Protocol,
                format!("cannot read Configure: {err}"),
            ));
        }
    };
    let Some(version) = peek_configure_version(&payload) else {
        return Err(fatal(
            &mut link,
            WorkerExit::Protocol,
            "the first message must be Configure".into(),
        ));
    };
    if let Err(message) = check_protocol_version(version) {
        return Err(fatal(&mut link, WorkerExit::Protocol, message));
    }
    let (engine, mode, config, verified_seccomp) = match decode_request(&payload, &limits) {
        Ok(Request::Configure {
            engine,
            sandbox,
            limits,
            verified_seccomp,
            ..
        }) => (engine, sandbox, limits, verified_seccomp),
        Ok(_) => unreachable_configure(),
        Err(err) => {
            return Err(fatal(
                &mut link,
                WorkerExit::Protocol,
                format!("malformed Configure: {err}"),
            ));
        }
    };
    // What must be opened before the sandbox closes the filesystem: the
    // engine's own needs, and the watchdog's view of /proc.
    let engine = match (worker.prepare)(engine) {
        Ok(prepared) => prepared,
        Err(err) => return Err(fatal(&mut link, WorkerExit::Config, err)),
    };
    let watchdog = Watchdog::prepare();
    let mut sandbox_config = SandboxConfig::new(mode, config.cpu_seconds);
    sandbox_config.verified_seccomp = verified_seccomp;
    sandbox_config.readable = engine.readable();
    sandbox_config.hidden = engine.hidden();
    let report = match stockade_sandbox::apply(&sandbox_config) {
        Ok(report) => report,
        Err(err) => return Err(fatal(&mut link, WorkerExit::Config, err.to_string())),
    };
    let mut sandbox = wire_report(mode, report);
    let watchdog = match watchdog {
        Ok(watchdog) => Some(watchdog),
        // Fail closed: without a reading of resident memory the RSS ceiling
        // cannot hold, which `require` refuses and `auto` reports.
        Err(err) if mode == SandboxMode::Require => {
            return Err(fatal(
                &mut link,
                WorkerExit::Config,
                format!("the RSS watchdog cannot read /proc/self/statm: {err}"),
            ));
        }
        Err(err) => {
            if mode == SandboxMode::Auto {
                sandbox.missing.push((
                    "rss-watchdog".into(),
                    format!("cannot read /proc/self/statm: {err}"),
                ));
            }
            None
        }
    };
    Ok(Configured {
        link,
        allocator: worker.allocator,
        engine,
        limits: config,
        sandbox,
        watchdog,
    })
}

/// Serves the session on the session thread; returns the exit status.
pub fn serve(configured: Configured) -> i32 {
    let Configured {
        mut link,
        allocator,
        engine,
        limits: config,
        sandbox,
        watchdog,
    } = configured;
    link.printer.configure(
        config.print_flush_bytes as usize,
        std::time::Duration::from_micros(u64::from(config.print_flush_interval_us)),
        config.max_output_bytes,
    );
    if let Some(watchdog) = watchdog
        && let Err(err) = watchdog.start(
            config.max_memory.map(stockade_wire::rss_ceiling),
            link.printer.clone(),
        )
    {
        return fatal(
            &mut link,
            WorkerExit::Internal,
            format!("cannot start the watchdog: {err}"),
        );
    }
    let mut engine = match engine.start(&config) {
        Ok(engine) => engine,
        Err(err) => return fatal(&mut link, WorkerExit::Config, err),
    };
    engine.warm_up();
    match config.max_memory {
        Some(max) => allocator.arm(
            usize::try_from(max.saturating_add(stockade_wire::allocator_headroom(max)))
                .unwrap_or(usize::MAX),
        ),
        None => allocator.mark_baseline(),
    }
    link.out.send_or_exit(&Response::Ready(WorkerInfo {
        protocol_version: PROTOCOL_VERSION,
        worker_version: env!("CARGO_PKG_VERSION").into(),
        engine: engine.name(),
        sandbox,
    }));
    let link: SharedLink = Rc::new(RefCell::new(link));
    // A session is restored only before it runs anything.
    let mut fed = false;

    loop {
        let incoming = link.borrow_mut().read();
        let reply = match incoming {
            Incoming::End | Incoming::Request(Request::Close) => return 0,
            Incoming::Broken(err) => {
                return fatal(
                    &mut link.borrow_mut(),
                    WorkerExit::Protocol,
                    format!("broken input: {err}"),
                );
            }
            Incoming::Malformed(err) => {
                protocol_violation(&*engine, format!("malformed request: {err}"))
            }
            Incoming::Request(Request::Feed {
                code,
                inputs,
                functions,
            }) => {
                fed = true;
                link.borrow_mut().start_feed();
                let feed = Feed {
                    code,
                    inputs,
                    functions,
                };
                match engine.feed(feed, &link) {
                    Ok(_) if let Some(message) = engine.poisoned() => {
                        let mut link = link.borrow_mut();
                        link.flush_prints();
                        return fatal(&mut link, WorkerExit::Memory, message);
                    }
                    Ok(reply) => reply,
                    Err(_closed) => return 0,
                }
            }
            Incoming::Request(Request::Replay { clock_ms }) => {
                match engine.replay_clock(clock_ms) {
                    Ok(()) => Response::Restored {
                        elapsed_us: engine.elapsed_us(),
                    },
                    Err(why) => protocol_violation(&*engine, format!("Replay refused: {why}")),
                }
            }
            Incoming::Request(Request::Reseed { seed }) => match engine.reseed(seed) {
                Ok(()) => Response::Restored {
                    elapsed_us: engine.elapsed_us(),
                },
                Err(why) => protocol_violation(&*engine, format!("Reseed refused: {why}")),
            },
            Incoming::Request(Request::Snapshot) => match engine.snapshot() {
                Ok(image) => Response::Image {
                    elapsed_us: engine.elapsed_us(),
                    image,
                },
                Err(why) => protocol_violation(&*engine, format!("Snapshot refused: {why}")),
            },
            Incoming::Request(Request::Restore { image, functions }) if !fed => {
                fed = true;
                link.borrow_mut().start_feed();
                match engine.restore(image, functions, &link) {
                    Ok(reply) => reply,
                    Err(_closed) => return 0,
                }
            }
            Incoming::Request(other) => protocol_violation(
                &*engine,
                format!("{} is not expected between feeds", other.name()),
            ),
        };
        let mut link = link.borrow_mut();
        link.flush_prints();
        if let Err(err) = link.out.send(&reply) {
            let elapsed_us = reply.elapsed_us().unwrap_or_else(|| engine.elapsed_us());
            link.out.send_or_exit(&Response::error(
                elapsed_us,
                ErrorKind::Conversion,
                GuestException::new(
                    "RuntimeError",
                    &format!("the result cannot cross to the host: {err}"),
                ),
            ));
        }
    }
}

fn protocol_violation(engine: &dyn Engine, detail: String) -> Response {
    Response::protocol_violation(engine.elapsed_us(), &detail)
}

/// `peek_configure_version` saw the Configure tag, so decoding yields Configure.
fn unreachable_configure() -> ! {
    eprintln!("stockade-worker: a Configure payload decoded as another message");
    std::process::exit(WorkerExit::Internal.code())
}
