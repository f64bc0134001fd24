//! The Python engine: a monty REPL whose globals persist across feeds.

use std::collections::HashSet;
use std::time::Duration;

use monty::{MontyRepl, ReplProgress, ReplStartError};
use monty_types::{
    CompileOptions, ExcType, ExtFunctionResult, MontyException, PrintWriter, ResourceLimits,
    ResourceTracker,
};
use stockade_wire::{
    CallOutcome, ConfigureLimits, ErrorKind, GuestException, MAX_TRACEBACK, Response,
};

mod display;
mod os_result;
mod print;
mod suspend;
mod values;

use self::values::{exception, from_wire, to_wire};
use stockade_worker_core::engine::{Closed, Engine, Feed, SharedLink, micros};
use stockade_worker_core::link::Link;

/// Monty needs nothing from outside the sandbox.
#[derive(Debug)]
pub struct Prepared;

impl stockade_worker_core::engine::Prepared for Prepared {
    fn start(self: Box<Self>, limits: &ConfigureLimits) -> Result<Box<dyn Engine>, String> {
        Ok(Box::new(PythonEngine::new(limits)))
    }
}

/// A Python session on the monty interpreter.
#[derive(Debug)]
pub struct PythonEngine {
    /// `None` only while a feed holds the session (monty moves it through
    /// each suspension and hands it back at the end).
    repl: Option<MontyRepl>,
    /// The limits as this worker's host set them; a restored session runs
    /// under these (one restored mid-feed, once that feed has ended).
    limits: ResourceLimits,
    max_duration: Option<Duration>,
    /// Guest time a restored session had used before its image was made:
    /// its tracker restarts at zero with the budget that was left.
    offset: Duration,
    /// A session restored mid-feed runs that feed under the tracker its
    /// image carried (monty gives no way to replace it there), inside this
    /// worker's own allocator cap and the host's time backstop; it takes
    /// this worker's tracker when the feed ends.
    adopt_at_end: bool,
    /// Elapsed time at the end of the last feed, for replies outside a feed.
    elapsed: Duration,
    /// Names the host has confirmed are host functions. monty suspends a
    /// call of any undefined name as a function call; the worker asks the
    /// host about a name first, so the host only ever sees Calls of
    /// functions it gave.
    host_functions: HashSet<String>,
    /// Whether the host said it defines no `display`: the guest's is then
    /// the worker's own (display.rs), asked about no more.
    display_is_ours: bool,
    /// The memory limit as the host set it, and as monty enforces it: a
    /// few random bytes above, so that only monty's own limit error can
    /// name it (a guest that raises MemoryError with the same words cannot
    /// know the number), and the worker never trusts a message it cannot
    /// tell from one the guest wrote.
    memory_limit: Option<MemoryLimit>,
}

/// `max_memory` and the salted figure monty enforces.
#[derive(Debug, Clone, Copy)]
struct MemoryLimit {
    public: u64,
    salted: u64,
}

impl MemoryLimit {
    /// Up to 1 MiB of salt: far inside the allocator's headroom above the
    /// limit, and more than a guest can guess in the feeds it has.
    const SALT: u64 = 1 << 20;

    fn new(public: u64) -> Self {
        use std::hash::BuildHasher;
        // RandomState draws its keys from the OS once per thread.
        let salt = std::hash::RandomState::new().hash_one(public) % Self::SALT + 1;
        Self {
            public,
            salted: public.saturating_add(salt),
        }
    }

    /// The host's words for a message only monty's limit check writes,
    /// naming the salted limit; None for any other message.
    fn tripped(&self, message: &str) -> Option<String> {
        let rest = message.strip_prefix("memory limit exceeded: ")?;
        let (used, limit) = rest.split_once(" bytes > ")?;
        let used: u64 = used.parse().ok()?;
        let limit: u64 = limit.strip_suffix(" bytes")?.parse().ok()?;
        (limit == self.salted && used > limit).then(|| {
            format!(
                "memory limit exceeded: {used} bytes > {} bytes (max_memory)",
                self.public
            )
        })
    }
}

impl PythonEngine {
    pub fn new(limits: &ConfigureLimits) -> Self {
        let mut resource_limits =
            ResourceLimits::default().max_recursion_depth(limits.max_recursion_depth as usize);
        if let Some(us) = limits.max_duration_us {
            resource_limits = resource_limits.max_duration(Duration::from_micros(us));
        }
        let memory_limit = limits.max_memory.map(MemoryLimit::new);
        if let Some(limit) = memory_limit {
            resource_limits =
                resource_limits.max_memory(usize::try_from(limit.salted).unwrap_or(usize::MAX));
        }
        let repl = MontyRepl::new(
            "main.py",
            ResourceTracker::new(resource_limits.clone()),
            CompileOptions::default(),
        );
        Self {
            repl: Some(repl),
            max_duration: resource_limits.max_duration,
            limits: resource_limits,
            offset: Duration::ZERO,
            adopt_at_end: false,
            elapsed: Duration::ZERO,
            host_functions: HashSet::new(),
            display_is_ours: false,
            memory_limit,
        }
    }

    /// Turns a guest exception into an Error reply, telling a real limit
    /// from a guest that merely raised the same class: time by the
    /// tracker's clock, memory by the salted limit only monty knows.
    fn failure(&mut self, failed: ReplStartError) -> Response {
        let ReplStartError { mut repl, error } = failed;
        self.settle(&mut repl);
        self.elapsed = self.guest_time(repl.tracker());
        self.repl = Some(repl);
        let memory = match error.exc_type() {
            ExcType::MemoryError => self
                .memory_limit
                .and_then(|limit| limit.tripped(error.message().unwrap_or(""))),
            _ => None,
        };
        let kind = match error.exc_type() {
            // A compile error's frames name no function; a guest that raises
            // SyntaxError at run time has at least `<module>`.
            ExcType::SyntaxError
                if error
                    .traceback()
                    .iter()
                    .all(|frame| frame.frame_name.is_none()) =>
            {
                ErrorKind::Syntax
            }
            ExcType::TimeoutError if self.max_duration.is_some_and(|max| self.elapsed > max) => {
                ErrorKind::Timeout
            }
            ExcType::MemoryError if memory.is_some() => ErrorKind::Memory,
            _ => ErrorKind::Exception,
        };
        let type_name: &'static str = error.exc_type().into();
        let mut traceback = error.to_string();
        let message = match memory {
            // The salted figure stays in the worker.
            Some(message) => {
                if let Some(original) = error.message() {
                    traceback = traceback.replace(original, &message);
                }
                message
            }
            None => error.message().unwrap_or("").to_owned(),
        };
        Response::Error {
            elapsed_us: micros(self.elapsed),
            kind,
            exception: GuestException::new(type_name, &message),
            traceback: traceback[..traceback.floor_char_boundary(MAX_TRACEBACK)].to_owned(),
        }
    }

    /// Ends a feed whose suspension was interrupted: the guest gets an
    /// uncatchable RuntimeError and the host an Error reply of `kind`.
    fn aborted(
        &mut self,
        result: Result<ReplProgress, Box<ReplStartError>>,
        kind: ErrorKind,
    ) -> Step {
        match result {
            Err(failed) => {
                let mut reply = self.failure(*failed);
                if let Response::Error { kind: k, .. } = &mut reply {
                    *k = kind;
                }
                Step::Done(reply)
            }
            Ok(progress) => Step::Next(Ok(progress)),
        }
    }
}

/// What one suspension's answer leads to: the next step of the feed, or its end.
#[expect(
    clippy::large_enum_variant,
    reason = "monty's progress is large and moved by value through every step anyway"
)]
enum Step {
    Next(Result<ReplProgress, Box<ReplStartError>>),
    Done(Response),
}

/// Python's keywords, which cannot name an input.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Whether `name` can be bound as a global: a letter or underscore, then
/// letters, digits or underscores, and not a keyword.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
        && !KEYWORDS.contains(&name)
}

/// A call's final outcome, as the interpreter takes it. The link has
/// already turned Abort (and, in a Resolve, Pending) into an interruption.
fn host_result(outcome: CallOutcome) -> ExtFunctionResult {
    match outcome {
        CallOutcome::Return(value) => match from_wire(value, "") {
            Ok(object) => ExtFunctionResult::Return(object),
            Err(message) => ExtFunctionResult::Error(MontyException::new(
                ExcType::TypeError,
                Some(format!(
                    "host function returned a value the guest cannot take: {message}"
                )),
            )),
        },
        CallOutcome::Raise(exc) => ExtFunctionResult::Error(exception(&exc)),
        CallOutcome::Abort(message) => ExtFunctionResult::Error(runtime_error(&message)),
        CallOutcome::Pending => {
            ExtFunctionResult::Error(runtime_error("a pending call was resolved as pending"))
        }
    }
}

fn runtime_error(message: &str) -> MontyException {
    MontyException::new(ExcType::RuntimeError, Some(message.to_owned()))
}

impl Engine for PythonEngine {
    fn warm_up(&mut self) {
        // A throwaway interpreter: the session's own REPL stays untouched.
        let repl = MontyRepl::new(
            "warm_up.py",
            ResourceTracker::new(ResourceLimits::default()),
            CompileOptions::default(),
        );
        let snippet = "def f(x):\n    return [x, {'k': x}]\nf(1 + 1)";
        drop(repl.feed_start(snippet, Vec::new(), PrintWriter::Disabled));
    }

    fn feed(&mut self, feed: Feed, shared: &SharedLink) -> Result<Response, Closed> {
        // The interpreter calls back only through this borrow, for the whole feed.
        let mut link = shared.borrow_mut();
        let link: &mut Link = &mut link;
        let Feed {
            code,
            inputs,
            functions,
        } = feed;
        // Named host functions need no Lookup before their first call.
        self.host_functions.extend(functions);
        let code = code.as_str();
        let Some(repl) = self.repl.take() else {
            return Ok(protocol_error(
                self.elapsed,
                "the session's interpreter state was lost",
            ));
        };
        let mut bound = Vec::with_capacity(inputs.len());
        for (name, value) in inputs {
            if !is_identifier(&name) {
                self.repl = Some(repl);
                return Ok(Response::error(
                    micros(self.elapsed),
                    ErrorKind::Conversion,
                    GuestException::new(
                        "ValueError",
                        &format!("input name {name:?} is not a Python identifier"),
                    ),
                ));
            }
            match from_wire(value, &name) {
                Ok(object) => bound.push((name, object)),
                Err(message) => {
                    self.repl = Some(repl);
                    return Ok(Response::error(
                        micros(self.elapsed),
                        ErrorKind::Conversion,
                        GuestException::new("TypeError", &format!("input {name:?}: {message}")),
                    ));
                }
            }
        }

        let step = repl.feed_start(code, bound, PrintWriter::Callback(&mut print::to(link)));
        self.drive(step, link)
    }

    fn name(&self) -> String {
        format!("python (monty {})", monty_types::MONTY_VERSION)
    }

    fn elapsed_us(&self) -> u64 {
        micros(
            self.repl
                .as_ref()
                .map_or(self.elapsed, |repl| self.guest_time(repl.tracker())),
        )
    }

    fn snapshot(&mut self) -> Result<Vec<u8>, String> {
        let repl = self
            .repl
            .as_ref()
            .ok_or("the session's interpreter state was lost")?;
        monty::dump("main.py", None, monty::SessionRef::Idle(repl))
            .map_err(|err| format!("cannot serialise the session: {err}"))
    }

    fn restore(
        &mut self,
        image: Vec<u8>,
        functions: Vec<String>,
        shared: &SharedLink,
    ) -> Result<Response, Closed> {
        self.host_functions.extend(functions);
        let mut link = shared.borrow_mut();
        let link: &mut Link = &mut link;
        let dump = match monty::Dump::load(&image) {
            Ok(dump) => dump,
            Err(err) => {
                return Ok(protocol_error(
                    self.elapsed,
                    &format!("cannot restore the session: {err}"),
                ));
            }
        };
        match dump.state {
            monty::Session::Idle(repl) => {
                let mut repl = *repl;
                self.adopt(repl.tracker_mut());
                self.elapsed = self.guest_time(repl.tracker());
                self.repl = Some(repl);
                Ok(Response::Restored {
                    elapsed_us: micros(self.elapsed),
                })
            }
            monty::Session::Suspended(progress) => {
                self.offset = Duration::ZERO;
                self.adopt_at_end = true;
                self.drive(Ok(*progress), link)
            }
            monty::Session::Running(_) => Ok(protocol_error(
                self.elapsed,
                "cannot restore the session: the image holds a one-shot run, not a session",
            )),
        }
    }
}

impl PythonEngine {
    /// Guest time of a session whose interpreter keeps `tracker`.
    fn guest_time(&self, tracker: &ResourceTracker) -> Duration {
        self.offset + tracker.elapsed()
    }

    /// Puts a restored session under this worker's limits: a fresh tracker
    /// with the `max_duration` budget the image had left.
    fn adopt(&mut self, tracker: &mut ResourceTracker) {
        self.offset = tracker.elapsed();
        let mut limits = self.limits.clone();
        if let Some(max) = self.max_duration {
            limits = limits.max_duration(max.saturating_sub(self.offset));
        }
        *tracker = ResourceTracker::new(limits);
    }

    /// At the end of a feed restored mid-way: puts the session under this
    /// worker's tracker (see `adopt_at_end`).
    fn settle(&mut self, repl: &mut MontyRepl) {
        if std::mem::take(&mut self.adopt_at_end) {
            self.adopt(repl.tracker_mut());
        }
    }

    /// Runs a feed from `step` through its suspensions to its reply.
    fn drive(
        &mut self,
        mut step: Result<ReplProgress, Box<ReplStartError>>,
        link: &mut Link,
    ) -> Result<Response, Closed> {
        loop {
            let progress = match step {
                Ok(progress) => progress,
                Err(failed) => return Ok(self.failure(*failed)),
            };
            let elapsed = micros(self.guest_time(progress.tracker()));
            let next = match progress {
                ReplProgress::Complete { mut repl, value } => {
                    self.settle(&mut repl);
                    self.elapsed = self.guest_time(repl.tracker());
                    self.repl = Some(repl);
                    return Ok(Response::Complete {
                        elapsed_us: elapsed,
                        value: to_wire(value),
                    });
                }
                ReplProgress::FunctionCall(call) => self.on_call(call, elapsed, link)?,
                ReplProgress::NameLookup(lookup) => self.on_lookup(lookup, elapsed, link)?,
                ReplProgress::OsCall(call) => self.on_os_call(call, elapsed, link)?,
                ReplProgress::ResolveFutures(pending) => self.on_futures(pending, elapsed, link)?,
            };
            match next {
                Step::Next(result) => step = result,
                Step::Done(reply) => return Ok(reply),
            }
        }
    }
}

fn protocol_error(elapsed: Duration, message: &str) -> Response {
    Response::error(
        micros(elapsed),
        ErrorKind::Protocol,
        GuestException::new("RuntimeError", message),
    )
}
