//! Host functions: what the guest may call, and how their results travel back.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

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

/// A function the guest can call by name.
pub(crate) struct HostFunction {
    call: Box<SyncFn>,
}

impl std::fmt::Debug for HostFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostFunction")
    }
}

impl HostFunction {
    pub(crate) fn new(call: impl FnMut(Args) -> HostResult + Send + 'static) -> Self {
        Self {
            call: Box::new(call),
        }
    }

    /// Runs the function under `policy`. A panic becomes a RuntimeError in
    /// the guest and never unwinds into the session.
    pub(crate) fn invoke(&mut self, name: &str, args: Args, policy: &CallPolicy) -> CallOutcome {
        let started = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| (self.call)(args)));
        if started.elapsed() > policy.max_wait {
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
        match result {
            Ok(Ok(value)) => CallOutcome::Return(value),
            Ok(Err(err)) => {
                CallOutcome::Raise(GuestException::new(&err.type_name, &message(&err.message)))
            }
            Err(_) => CallOutcome::Raise(GuestException::new(
                "RuntimeError",
                &message(&format!("host function {name:?} panicked")),
            )),
        }
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
