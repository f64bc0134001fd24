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
pub(crate) fn fatal(link: &mut Link, exit: WorkerExit, message: String) -> i32 {
    crate::note(format_args!("{message}"));
    let _ = link.out.send(&Response::Fatal { message });
    exit.code()
}

/// A worker that has read its Configure and applied its sandbox, ready to
/// start its engine on the session thread (or, in a template, to fork
/// workers that will).
pub struct Configured {
    allocator: &'static CappedAllocator,
    engine: Box<dyn Prepared>,
    pub(crate) limits: ConfigureLimits,
    pub(crate) sandbox: SandboxReport,
    /// The Configure payload as it came: a worker forked from a template
    /// must be sent the very same.
    pub(crate) payload: Vec<u8>,
    /// In a template: what each forked worker puts in force for itself.
    pub(crate) forked: Option<stockade_sandbox::Forked>,
}

fn wire_report(
    mode: SandboxMode,
    report: Report,
) -> (SandboxReport, Option<stockade_sandbox::Forked>) {
    let wire = SandboxReport {
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
    };
    (wire, report.forked)
}

/// Opens the link to the parent where the worker's `ends` say it is.
pub fn open_link(ends: crate::LinkEnds) -> Result<Link, i32> {
    let limits = WireLimits::default();
    let opened = match ends {
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
    opened.map_err(|err| {
        crate::note(format_args!("cannot open stdin/stdout: {err}"));
        WorkerExit::Internal.code()
    })
}

/// Runs on the main thread while the process has no other: reads
/// Configure from `link`, checks the version and language, and applies
/// the sandbox (a template's, when `template`). On failure returns the
/// exit status, after sending Fatal.
pub fn configure(worker: &Worker, link: &mut Link, template: bool) -> Result<Configured, i32> {
    let limits = WireLimits::default();
    let payload = match link.read_frame() {
        Ok(Some(payload)) => payload,
        Ok(None) => return Err(0),
        Err(err) => {
            return Err(fatal(
                link,
                WorkerExit::Protocol,
                format!("cannot read Configure: {err}"),
            ));
        }
    };
    let Some(version) = peek_configure_version(&payload) else {
        return Err(fatal(
            link,
            WorkerExit::Protocol,
            "the first message must be Configure".into(),
        ));
    };
    if let Err(message) = check_protocol_version(version) {
        return Err(fatal(link, WorkerExit::Protocol, message));
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
                link,
                WorkerExit::Protocol,
                format!("malformed Configure: {err}"),
            ));
        }
    };
    // What must be opened before the sandbox closes the filesystem.
    let engine = match (worker.prepare)(engine) {
        Ok(prepared) => prepared,
        Err(err) => return Err(fatal(link, WorkerExit::Config, err)),
    };
    // A template's own CPU time adds up over every fork: the workers it
    // forks each set the limit for themselves.
    let cpu_seconds = config.cpu_seconds.filter(|_| !template);
    let mut sandbox_config = SandboxConfig::new(mode, cpu_seconds);
    sandbox_config.verified_seccomp = verified_seccomp;
    sandbox_config.readable = engine.readable();
    sandbox_config.hidden = engine.hidden();
    sandbox_config.template = template;
    sandbox_config.scratch = engine.scratch();
    let report = match stockade_sandbox::apply(&sandbox_config) {
        Ok(report) => report,
        Err(err) => return Err(fatal(link, WorkerExit::Config, err.to_string())),
    };
    let (sandbox, forked) = wire_report(mode, report);
    Ok(Configured {
        allocator: worker.allocator,
        engine,
        limits: config,
        sandbox,
        payload,
        forked,
    })
}

/// A worker whose engine has started and warmed up, not yet Ready.
pub(crate) struct Started {
    allocator: &'static CappedAllocator,
    pub(crate) engine: Box<dyn Engine>,
    pub(crate) limits: ConfigureLimits,
    pub(crate) sandbox: SandboxReport,
    /// The Configure payload as it came (see [`Configured`]).
    pub(crate) payload: Vec<u8>,
    pub(crate) forked: Option<stockade_sandbox::Forked>,
}

/// Starts the engine on the session thread, and warms it up.
pub(crate) fn start(configured: Configured) -> Result<Started, String> {
    let Configured {
        allocator,
        engine,
        limits,
        sandbox,
        payload,
        forked,
    } = configured;
    let mut engine = engine.start(&limits)?;
    engine.warm_up();
    Ok(Started {
        allocator,
        engine,
        limits,
        sandbox,
        payload,
        forked,
    })
}

/// Serves the session on the session thread; returns the exit status.
pub fn serve(configured: Configured, mut link: Link) -> i32 {
    match start(configured) {
        Ok(started) => serve_started(started, link),
        Err(err) => fatal(&mut link, WorkerExit::Config, err),
    }
}

/// Serves the session of a started engine: Ready, then the turns.
pub(crate) fn serve_started(started: Started, mut link: Link) -> i32 {
    let Started {
        allocator,
        mut engine,
        limits: config,
        sandbox,
        payload,
        ..
    } = started;
    // Configure's version was checked before anything started.
    let parent_version = peek_configure_version(&payload).unwrap_or(PROTOCOL_VERSION);
    link.printer.configure(
        config.print_flush_bytes as usize,
        std::time::Duration::from_micros(u64::from(config.print_flush_interval_us)),
        config.max_output_bytes,
        parent_version >= 6,
    );
    if let Err(err) = Watchdog::new().start(
        config.max_memory.map(stockade_wire::rss_ceiling),
        link.printer.clone(),
    ) {
        return fatal(
            &mut link,
            WorkerExit::Internal,
            format!("cannot start the watchdog: {err}"),
        );
    }
    if let Err(why) = engine.before_ready() {
        return fatal(&mut link, WorkerExit::Config, why);
    }
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
    crate::note(format_args!(
        "a Configure payload decoded as another message"
    ));
    std::process::exit(WorkerExit::Internal.code())
}
