//! Host functions: what the guest may call, and how their results travel back.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use stockade_wire::{CallOutcome, GuestException, Value};

/// Arguments of one call from the guest.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Args {
    pub positional: Vec<Value>,
    pub keyword: Vec<(String, Value)>,
}

impl Args {
    /// The positional argument at `index`.
    pub fn get(&self, index: usize) -> Option<&Value> {
        self.positional.get(index)
    }

    /// The keyword argument called `name`.
    pub fn kwarg(&self, name: &str) -> Option<&Value> {
        self.keyword.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// An exception a host function raises into the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// The exception class the guest sees; names outside the wire's closed
    /// set become `Exception` (Python) or `Error` (JavaScript).
    pub type_name: String,
    pub message: String,
}

impl HostError {
    pub fn new(type_name: &str, message: impl Into<String>) -> Self {
        Self {
            type_name: type_name.to_owned(),
            message: message.into(),
        }
    }

    pub fn value_error(message: impl Into<String>) -> Self {
        Self::new("ValueError", message)
    }

    pub fn type_error(message: impl Into<String>) -> Self {
        Self::new("TypeError", message)
    }

    pub fn runtime_error(message: impl Into<String>) -> Self {
        Self::new("RuntimeError", message)
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.type_name, self.message)
    }
}

impl std::error::Error for HostError {}

/// What a host function returns.
pub type HostResult = Result<Value, HostError>;

type SyncFn = dyn FnMut(Args) -> HostResult + Send;

/// The future an async host function returns.
#[cfg(feature = "tokio")]
pub(crate) type HostFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = HostResult> + Send>>;
#[cfg(feature = "tokio")]
type AsyncFn = dyn FnMut(Args) -> HostFuture + Send;

/// A function the guest can call by name.
pub(crate) enum HostFunction {
    /// Runs to its answer while the guest waits at the call.
    Sync(Box<SyncFn>),
    /// Runs on a tokio runtime; the guest gets a future to await, and
    /// several may be in flight at once.
    #[cfg(feature = "tokio")]
    Async {
        start: Box<AsyncFn>,
        runtime: tokio::runtime::Handle,
    },
    /// Only a name: its calls are answered by the host at a stepped feed's
    /// cursors (`Session::start`); `run` raises NameError for them.
    Declared,
}

impl std::fmt::Debug for HostFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HostFunction::Sync(_) => "HostFunction::Sync",
            #[cfg(feature = "tokio")]
            HostFunction::Async { .. } => "HostFunction::Async",
            HostFunction::Declared => "HostFunction::Declared",
        })
    }
}

/// A host function's answer, or the fact that it panicked.
pub(crate) type Answer = Result<HostResult, Panicked>;

/// The host function panicked (or its task was cancelled).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Panicked;

/// Runs a synchronous function; a panic never unwinds into the session.
pub(crate) fn call_sync(function: &mut SyncFn, args: Args) -> Answer {
    catch_unwind(AssertUnwindSafe(|| function(args))).map_err(|_| Panicked)
}

/// Turns an answer into what the guest sees, under `policy`.
pub(crate) fn outcome(
    name: &str,
    answer: Answer,
    took: Duration,
    policy: &CallPolicy,
) -> CallOutcome {
    if took > policy.max_wait {
        return CallOutcome::Raise(GuestException::new(
            "TimeoutError",
            &format!("host function {name:?} did not answer within max_host_wait"),
        ));
    }
    let message = |detail: &str| {
        if policy.redact {
            REDACTED.to_owned()
        } else {
            detail.to_owned()
        }
    };
    match answer {
        Ok(Ok(value)) => CallOutcome::Return(value),
        Ok(Err(err)) => {
            CallOutcome::Raise(GuestException::new(&err.type_name, &message(&err.message)))
        }
        Err(Panicked) => CallOutcome::Raise(GuestException::new(
            "RuntimeError",
            &message(&format!("host function {name:?} panicked")),
        )),
    }
}

/// The message a guest sees for a host-function error when errors are redacted.
pub const REDACTED: &str = "host function failed";

/// How host-function calls are answered.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallPolicy {
    pub max_wait: Duration,
    pub redact: bool,
}
