//! stockade: run code you do not trust, in Python or JavaScript, in a
//! supervised, sandboxed worker process, and get its result back as a value.
//!
//! ```no_run
//! use stockade::{Language, Session, SessionOptions, Value};
//!
//! let mut session = Session::new(SessionOptions::new(Language::Python))?;
//! session.register_function("double", |args| match args.get(0) {
//!     Some(Value::Int(i)) => Ok(Value::Int(i * 2)),
//!     _ => Err(stockade::HostError::type_error("double() takes an int")),
//! });
//! session.run("x = double(21)")?;
//! assert_eq!(session.run("x")?, Value::Int(42));
//! # Ok::<(), stockade::Error>(())
//! ```
//!
//! The host never links an interpreter: guest code runs only in a worker
//! process, either the worker binary (`stockade-worker`, found as
//! [`locate_worker`] describes) or, for the CPython engine, a Python
//! interpreter loading stockade's engine module ([`locate_engine_module`]).
//!
//! # Shipping the worker with your program
//!
//! A program built on this library needs, at run time, the files its
//! sessions start workers from; the library does not build or embed them.
//! Build them once with the program, from the same release of stockade:
//!
//! ```text
//! cargo build --release -p stockade-cli                     # stockade-worker: monty and QuickJS
//! cargo build --release --manifest-path crates/stockade-cpython/Cargo.toml
//!                                                           # the CPython engine module
//! ```
//!
//! and install `stockade-worker` (and `libstockade_cpython.so`, for Python
//! on CPython) **beside your program's executable**: that is where a
//! session looks first after an explicit path and the environment, so a
//! program and its workers installed together in one directory (a
//! tarball, a package, a container image's `/usr/local/bin`) need no
//! configuration. Otherwise name them: [`SessionOptions::worker`] (or
//! `STOCKADE_WORKER`) for the worker, `STOCKADE_CPYTHON_MODULE` (or the
//! CPython options) for the engine module; as a last resort the worker is
//! looked for on `PATH`. The worker and the library speak a versioned
//! protocol: a worker refuses a library whose version is outside its
//! range, naming the range (docs/protocol.md, "Versions"), and `stockade
//! doctor` prints the range and starts a worker to check it. The CPython
//! engine also needs a CPython 3.9 or later on the machine (its path:
//! the `python` option, else `python3` on `PATH`).

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

#[cfg(feature = "tokio")]
mod async_session;
mod background;
mod channel;
pub mod contract;
mod cpython;
mod error;
mod execution;
mod files;
mod host;
#[cfg(feature = "tokio")]
mod inflight;
mod javascript_options;
mod keyed;
mod launch;
mod link;
mod locate;
mod options;
mod packages;
mod pool;
mod process;
mod progress;
mod python_interpreter;
mod reaper;
pub mod relay;
mod remote;
mod remote_options;
mod script_metadata;
mod session;
mod spare;
mod supervisor;
mod template;
mod text;
mod worker_child;

#[cfg(feature = "tokio")]
pub use async_session::AsyncSession;
pub use contract::{CHECKOUT_OPTIONS, OptionValue, SESSION_OPTIONS};
pub use cpython::{
    CPythonOptions, MIN_VERSION as MIN_PYTHON_VERSION, PythonInterpreter, find_python,
};
pub use error::{
    ConfigurationError, ConfigurationKind, CrashInfo, Error, ErrorKind, GuestError, TimeLimit,
};
pub use execution::{
    DEFAULT_EXECUTE_RESULT_BYTES, DEFAULT_MAX_STREAM_BYTES, ExecuteLimits, Execution, Kept,
};
pub use files::{DEFAULT_MAX_FILE_MEMORY, GuestClock, MAX_FILE_MEMORY, Mount, MountMode};
pub use host::{Args, HostError, HostResult, REDACTED};
pub use javascript_options::{JavaScriptOptions, MAX_STACK_BYTES};

pub use launch::BOOT as CPYTHON_BOOT;
pub use locate::{
    ENGINE_MODULE_ENV, ENGINE_MODULE_NAME, WORKER_ENV, WORKER_NAME, locate_engine_module,
    locate_worker,
};
pub use options::{
    Interpreter, Language, Limits, MAX_RESULT_BYTES, SandboxMode, SessionOptions,
    duration_from_secs,
};
pub use pool::{CheckoutOptions, Pool, PoolOptions, PoolStats, REFILL_DEFERRED_BY};
pub use progress::{CursorAnswer, FunctionCall, NameLookup, PendingFutures, Progress, Stepped};
pub use reaper::{MAX_UNREAPED, unreaped_workers};
pub use remote_options::Remote;
pub use session::{DumpSeal, RunLimits, Session, WorkerInfo, unclaimed_output_note};
pub use stockade_wire::{
    BigInt, Date, DateTime, GuestException, MIN_SUPPORTED_PROTOCOL_VERSION, Output,
    PROTOCOL_VERSION, PrintStream, SandboxReport, Time, TimeDelta, Value,
};
pub use text::escape_controls;
