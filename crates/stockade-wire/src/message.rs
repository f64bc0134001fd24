//! The message set: requests a parent sends, responses a worker sends.

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::exception::{GuestException, MAX_EXCEPTION_MESSAGE, MAX_TRACEBACK};
use crate::frame::FRAME_HEADER_LEN;
use crate::limits::WireLimits;
use crate::sandbox::{SandboxMode, SandboxReport, read_report, write_report};
use crate::value::Value;

mod tag {
    pub const CONFIGURE: u8 = 0x01;
    pub const FEED: u8 = 0x02;
    pub const RESUME: u8 = 0x03;
    pub const LOOKUP_REPLY: u8 = 0x04;
    pub const CLOSE: u8 = 0x05;
    pub const RESOLVE: u8 = 0x06;

    pub const READY: u8 = 0x81;
    pub const PRINT: u8 = 0x82;
    pub const CALL: u8 = 0x83;
    pub const LOOKUP: u8 = 0x84;
    pub const COMPLETE: u8 = 0x85;
    pub const ERROR: u8 = 0x86;
    pub const FATAL: u8 = 0x87;
    pub const AWAIT: u8 = 0x88;
}

/// Longest name (of a host function, an input, a looked-up name) in bytes.
const MAX_NAME: usize = 1024;
/// Longest version or engine string in Ready and Configure.
const MAX_LABEL: usize = 256;
/// Longest fatal message.
const MAX_FATAL: usize = 4096;

/// The guest language a worker runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    JavaScript,
}

impl Language {
    /// Every language a worker may serve.
    pub const ALL: [Language; 2] = [Language::Python, Language::JavaScript];

    fn code(self) -> u8 {
        match self {
            Language::Python => 0,
            Language::JavaScript => 1,
        }
    }

    /// The lower-case name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
        }
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Language {
    type Err = crate::UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        crate::UnknownName::find("language", name, &Self::ALL, |language| language.name())
    }
}

/// Limits the worker enforces itself, sent in Configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigureLimits {
    /// Cumulative guest execution time, in microseconds.
    pub max_duration_us: Option<u64>,
    /// Live heap bytes the worker's allocator hands out.
    pub max_memory: Option<u64>,
    /// Deepest guest call stack.
    pub max_recursion_depth: u32,
    /// Print output is sent once this many bytes are buffered.
    pub print_flush_bytes: u32,
    /// Print output is sent once it has waited this long, in microseconds.
    pub print_flush_interval_us: u32,
    /// RLIMIT_CPU for the worker process, in seconds.
    pub cpu_seconds: Option<u64>,
    /// Print output one feed may send; past it the output is cut with a marker.
    pub max_output_bytes: u64,
}

/// Most modules one Configure may register.
pub const MAX_MODULES: usize = 4096;
/// Furthest a frozen clock may sit from the epoch, in milliseconds: the
/// range of a JavaScript Date.
pub const MAX_CLOCK_MS: i64 = 8_640_000_000_000_000;

/// How a JavaScript guest's world looks, sent in Configure and fixed for the
/// worker's life. A Python worker refuses anything but the default.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JavaScriptConfig {
    /// Bytes the engine's heap may hold; past it the worker sends Fatal and
    /// exits 65. None: `max_memory`.
    pub max_heap_size: Option<u64>,
    /// Live ArrayBuffer bytes; past it allocating one is a catchable RangeError.
    pub max_buffer_bytes: Option<u64>,
    /// Native stack the interpreter may use before a catchable RangeError;
    /// 0 means the worker's default.
    pub max_stack_bytes: u32,
    /// eval, new Function and the other function constructors throw EvalError.
    pub strict_eval: bool,
    /// Install the project's web polyfills (timers on virtual time, TextEncoder...).
    pub web_polyfills: bool,
    /// Date.now and new Date() always give this instant (ms since the epoch).
    pub frozen_clock_ms: Option<i64>,
    /// Math.random is a generator seeded with this.
    pub random_seed: Option<u64>,
    /// Static modules the guest may import, by name, with their source.
    pub modules: Vec<(String, String)>,
}

const FLAG_STRICT_EVAL: u8 = 1;
const FLAG_WEB_POLYFILLS: u8 = 2;

/// The host's answer to a host function call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The function returned this value.
    Return(Value),
    /// The function raised; the guest sees this exception.
    Raise(GuestException),
    /// The host ends the feed here (a host-enforced limit): the guest gets an
    /// uncatchable RuntimeError with this message.
    Abort(String),
    /// The function runs on: the guest gets a future to await, and the
    /// outcome comes later in Resolve.
    Pending,
}

/// The host's answer to a lookup of a name the guest left undefined.
#[derive(Debug, Clone, PartialEq)]
pub enum LookupOutcome {
    /// The name is bound to this value.
    Value(Value),
    /// The name is a host function; calling it suspends as a Call.
    Function,
    /// The host does not know the name either: the guest gets a NameError.
    Undefined,
    /// The host ends the feed here, as [`CallOutcome::Abort`] does.
    Abort(String),
}

/// Output stream of a Print message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrintStream {
    Stdout,
    Stderr,
}

/// What kind of failure an Error reply reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The guest raised an exception it did not catch; the session lives.
    Exception,
    /// The code did not parse or compile.
    Syntax,
    /// The cumulative `max_duration` ran out; the session stays out of time.
    Timeout,
    /// The interpreter's own memory check refused the guest.
    Memory,
    /// The request was malformed or out of turn; the session lives.
    Protocol,
    /// A value could not be carried (too deep, too large); the session lives.
    Conversion,
}

impl ErrorKind {
    fn code(self) -> u8 {
        match self {
            ErrorKind::Exception => 0,
            ErrorKind::Syntax => 1,
            ErrorKind::Timeout => 2,
            ErrorKind::Memory => 3,
            ErrorKind::Protocol => 4,
            ErrorKind::Conversion => 5,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0 => ErrorKind::Exception,
            1 => ErrorKind::Syntax,
            2 => ErrorKind::Timeout,
            3 => ErrorKind::Memory,
            4 => ErrorKind::Protocol,
            5 => ErrorKind::Conversion,
            _ => return None,
        })
    }
}

/// A message from the parent to the worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// First message of a connection. Its first five bytes (tag, version) are
    /// fixed in every protocol version so that any worker can read them.
    Configure {
        protocol_version: u32,
        package_version: String,
        language: Language,
        sandbox: SandboxMode,
        limits: ConfigureLimits,
        javascript: JavaScriptConfig,
        /// A seccomp policy fingerprint an earlier worker's Ready reported:
        /// a worker whose policy matches skips its test-fire.
        verified_seccomp: Option<u64>,
    },
    /// Run a snippet after binding `inputs` as globals. `functions` names
    /// every host function the guest may call; the worker may install them
    /// without a Lookup.
    Feed {
        code: String,
        inputs: Vec<(String, Value)>,
        functions: Vec<String>,
    },
    /// Answer the pending Call with the same `call_id`.
    Resume { call_id: u32, outcome: CallOutcome },
    /// Answer the pending Lookup.
    LookupReply(LookupOutcome),
    /// End the session; the worker exits 0.
    Close,
    /// Outcomes of pending calls, answering Await. Pending is not a valid
    /// outcome here.
    Resolve { results: Vec<(u32, CallOutcome)> },
}

/// A message from the worker to the parent.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Configure was accepted; the worker is ready for Feed.
    Ready {
        protocol_version: u32,
        worker_version: String,
        engine: String,
        sandbox: SandboxReport,
    },
    /// Guest output, in order, between the turn's other messages.
    Print { stream: PrintStream, text: String },
    /// The guest called a host function; the parent answers with Resume.
    Call {
        elapsed_us: u64,
        call_id: u32,
        name: String,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    /// The guest referenced a name it never defined; the parent answers with LookupReply.
    Lookup { elapsed_us: u64, name: String },
    /// The feed finished with this value (`None` when no trailing expression).
    Complete { elapsed_us: u64, value: Value },
    /// The feed failed.
    Error {
        elapsed_us: u64,
        kind: ErrorKind,
        exception: GuestException,
        traceback: String,
    },
    /// The worker cannot go on and exits non-zero after sending this.
    Fatal { message: String },
    /// Every guest task waits on these pending calls; the parent answers
    /// with Resolve for one or more of them.
    Await { elapsed_us: u64, call_ids: Vec<u32> },
}

impl Request {
    /// The message's name, for reports of what arrived out of turn.
    pub fn name(&self) -> &'static str {
        match self {
            Request::Configure { .. } => "Configure",
            Request::Feed { .. } => "Feed",
            Request::Resume { .. } => "Resume",
            Request::LookupReply(_) => "LookupReply",
            Request::Close => "Close",
            Request::Resolve { .. } => "Resolve",
        }
    }
}

impl Response {
    /// An Error reply: the feed ended with `exception`, for the reason
    /// `kind` names, and no traceback.
    pub fn error(elapsed_us: u64, kind: ErrorKind, exception: GuestException) -> Self {
        Response::Error {
            elapsed_us,
            kind,
            exception,
            traceback: String::new(),
        }
    }

    /// An Error reply for a malformed or out-of-turn request: kind
    /// Protocol, a RuntimeError whose message starts `protocol violation:`.
    pub fn protocol_violation(elapsed_us: u64, detail: &str) -> Self {
        Self::error(
            elapsed_us,
            ErrorKind::Protocol,
            GuestException::new("RuntimeError", &format!("protocol violation: {detail}")),
        )
    }

    /// The message's name, for reports of what arrived out of turn.
    pub fn name(&self) -> &'static str {
        match self {
            Response::Ready { .. } => "Ready",
            Response::Print { .. } => "Print",
            Response::Call { .. } => "Call",
            Response::Lookup { .. } => "Lookup",
            Response::Complete { .. } => "Complete",
            Response::Error { .. } => "Error",
            Response::Fatal { .. } => "Fatal",
            Response::Await { .. } => "Await",
        }
    }

    /// The worker's consumed execution time, on the replies that carry it.
    pub fn elapsed_us(&self) -> Option<u64> {
        match self {
            Response::Call { elapsed_us, .. }
            | Response::Lookup { elapsed_us, .. }
            | Response::Complete { elapsed_us, .. }
            | Response::Error { elapsed_us, .. }
            | Response::Await { elapsed_us, .. } => Some(*elapsed_us),
            _ => None,
        }
    }
}

/// What the first bytes of a response say: enough to answer a frame that
/// was too large to decode (the host skips it and keeps the session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseHead {
    /// A feed's result.
    Complete,
    /// A host-function call: its id, and its name when the bytes held it whole.
    Call { call_id: u32, name: Option<String> },
    /// Any other message (by name), or bytes that name none.
    Other(&'static str),
}

/// Reads the head of a response from the first bytes of its payload
/// (`SKIPPED_HEAD_LEN` of them is always enough); nothing past the head is
/// looked at, so this works on a frame that was never buffered whole.
pub fn peek_response_head(prefix: &[u8]) -> ResponseHead {
    let limits = WireLimits::default();
    let mut r = Reader::new(prefix, &limits);
    match r.u8() {
        Ok(tag::COMPLETE) => ResponseHead::Complete,
        Ok(tag::CALL) => {
            let Ok(call_id) = r.u64().and_then(|_| r.u32()) else {
                return ResponseHead::Other("a cut Call");
            };
            ResponseHead::Call {
                call_id,
                name: r.str_capped("function name", MAX_NAME).ok(),
            }
        }
        Ok(tag::READY) => ResponseHead::Other("Ready"),
        Ok(tag::PRINT) => ResponseHead::Other("Print"),
        Ok(tag::LOOKUP) => ResponseHead::Other("Lookup"),
        Ok(tag::ERROR) => ResponseHead::Other("Error"),
        Ok(tag::FATAL) => ResponseHead::Other("Fatal"),
        Ok(tag::AWAIT) => ResponseHead::Other("Await"),
        _ => ResponseHead::Other("an unknown message"),
    }
}

fn start_frame(limits: &WireLimits) -> Writer {
    Writer::new(limits, &[0; FRAME_HEADER_LEN])
}

fn finish_frame(w: Writer, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let payload_len = w.len() - FRAME_HEADER_LEN;
    if payload_len > limits.max_frame {
        return Err(EncodeError::FrameTooLarge {
            max: limits.max_frame,
        });
    }
    let mut buf = w.into_inner();
    let header = u32::try_from(payload_len).map_err(|_| EncodeError::FrameTooLarge {
        max: limits.max_frame,
    })?;
    buf[..FRAME_HEADER_LEN].copy_from_slice(&header.to_le_bytes());
    Ok(buf)
}

fn write_label(w: &mut Writer, s: &str, max: usize, what: &str) -> Result<(), EncodeError> {
    if s.len() > max {
        return Err(EncodeError::Invalid(format!(
            "{what} of {} bytes exceeds the {max}-byte cap",
            s.len()
        )));
    }
    w.str(s)
}

fn write_named_values(w: &mut Writer, pairs: &[(String, Value)]) -> Result<(), EncodeError> {
    w.u32(
        u32::try_from(pairs.len())
            .map_err(|_| EncodeError::Invalid("too many named values".into()))?,
    );
    for (name, value) in pairs {
        write_label(w, name, MAX_NAME, "name")?;
        w.root_value(value)?;
    }
    Ok(())
}

fn read_named_values(r: &mut Reader<'_>) -> Result<Vec<(String, Value)>, DecodeError> {
    let count = r.u32()? as usize;
    // The count is the peer's word: reserve little and let the values prove it.
    let mut pairs = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let name = r.str_capped("name", MAX_NAME)?;
        let value = r.root_value()?;
        pairs.push((name, value));
    }
    Ok(pairs)
}

/// Most call ids one Await or Resolve may list.
const MAX_LISTED_CALLS: usize = 65_536;

fn count(len: usize, what: &str) -> Result<u32, EncodeError> {
    if len > MAX_LISTED_CALLS {
        return Err(EncodeError::Invalid(format!(
            "{len} {what} exceed the cap of {MAX_LISTED_CALLS}"
        )));
    }
    Ok(len as u32)
}

fn too_many(what: &'static str, n: usize) -> DecodeError {
    DecodeError::Invalid {
        what,
        at: 0,
        detail: format!("{n} exceed the cap of {MAX_LISTED_CALLS}"),
    }
}

fn write_call_outcome(w: &mut Writer, outcome: &CallOutcome) -> Result<(), EncodeError> {
    match outcome {
        CallOutcome::Return(value) => {
            w.u8(0);
            w.root_value(value)
        }
        CallOutcome::Raise(exc) => {
            w.u8(1);
            w.exception(exc)
        }
        CallOutcome::Abort(message) => {
            w.u8(2);
            write_label(w, message, MAX_EXCEPTION_MESSAGE, "abort message")
        }
        CallOutcome::Pending => {
            w.u8(3);
            Ok(())
        }
    }
}

fn read_call_outcome(r: &mut Reader<'_>) -> Result<CallOutcome, DecodeError> {
    Ok(
        match r.code("call outcome", |code| (code <= 3).then_some(code))? {
            0 => CallOutcome::Return(r.root_value()?),
            1 => CallOutcome::Raise(r.exception()?),
            2 => CallOutcome::Abort(r.str_capped("abort message", MAX_EXCEPTION_MESSAGE)?),
            _ => CallOutcome::Pending,
        },
    )
}

fn write_javascript_config(w: &mut Writer, c: &JavaScriptConfig) -> Result<(), EncodeError> {
    w.opt(c.max_heap_size, |w, v| {
        w.u64(v);
        Ok(())
    })?;
    w.opt(c.max_buffer_bytes, |w, v| {
        w.u64(v);
        Ok(())
    })?;
    w.u32(c.max_stack_bytes);
    let mut flags = 0;
    if c.strict_eval {
        flags |= FLAG_STRICT_EVAL;
    }
    if c.web_polyfills {
        flags |= FLAG_WEB_POLYFILLS;
    }
    w.u8(flags);
    if let Some(ms) = c.frozen_clock_ms
        && !(-MAX_CLOCK_MS..=MAX_CLOCK_MS).contains(&ms)
    {
        return Err(EncodeError::Invalid(format!(
            "frozen clock {ms} ms is outside the range of a JavaScript Date"
        )));
    }
    w.opt(c.frozen_clock_ms, |w, v| {
        w.i64(v);
        Ok(())
    })?;
    w.opt(c.random_seed, |w, v| {
        w.u64(v);
        Ok(())
    })?;
    if c.modules.len() > MAX_MODULES {
        return Err(EncodeError::Invalid(format!(
            "{} modules, more than the {MAX_MODULES} one worker may register",
            c.modules.len()
        )));
    }
    w.u32(count(c.modules.len(), "modules")?);
    for (name, source) in &c.modules {
        write_label(w, name, MAX_NAME, "module name")?;
        w.str(source)?;
    }
    Ok(())
}

fn read_javascript_config(r: &mut Reader<'_>) -> Result<JavaScriptConfig, DecodeError> {
    let max_heap_size = r.opt(Reader::u64)?;
    let max_buffer_bytes = r.opt(Reader::u64)?;
    let max_stack_bytes = r.u32()?;
    let flags = r.code("javascript flags", |flags| {
        (flags & !(FLAG_STRICT_EVAL | FLAG_WEB_POLYFILLS) == 0).then_some(flags)
    })?;
    let at = r.position();
    let frozen_clock_ms = r.opt(Reader::i64)?;
    if let Some(ms) = frozen_clock_ms
        && !(-MAX_CLOCK_MS..=MAX_CLOCK_MS).contains(&ms)
    {
        return Err(DecodeError::Invalid {
            what: "frozen clock",
            at,
            detail: format!("{ms} ms is outside the range of a JavaScript Date"),
        });
    }
    let random_seed = r.opt(Reader::u64)?;
    let at = r.position();
    let n = r.u32()? as usize;
    if n > MAX_MODULES {
        return Err(DecodeError::Invalid {
            what: "module count",
            at,
            detail: format!("{n} exceed the cap of {MAX_MODULES}"),
        });
    }
    let mut modules = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        let name = r.str_capped("module name", MAX_NAME)?;
        modules.push((name, r.str()?));
    }
    Ok(JavaScriptConfig {
        max_heap_size,
        max_buffer_bytes,
        max_stack_bytes,
        strict_eval: flags & FLAG_STRICT_EVAL != 0,
        web_polyfills: flags & FLAG_WEB_POLYFILLS != 0,
        frozen_clock_ms,
        random_seed,
        modules,
    })
}

/// Encodes a request as a whole frame (header included).
pub fn encode_request(request: &Request, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    match request {
        Request::Configure {
            protocol_version,
            package_version,
            language,
            sandbox,
            limits: l,
            javascript,
            verified_seccomp,
        } => {
            w.u8(tag::CONFIGURE);
            w.u32(*protocol_version);
            write_label(&mut w, package_version, MAX_LABEL, "package version")?;
            w.u8(language.code());
            w.u8(sandbox.code());
            w.opt(l.max_duration_us, |w, v| {
                w.u64(v);
                Ok(())
            })?;
            w.opt(l.max_memory, |w, v| {
                w.u64(v);
                Ok(())
            })?;
            w.u32(l.max_recursion_depth);
            w.u32(l.print_flush_bytes);
            w.u32(l.print_flush_interval_us);
            w.opt(l.cpu_seconds, |w, v| {
                w.u64(v);
                Ok(())
            })?;
            w.u64(l.max_output_bytes);
            write_javascript_config(&mut w, javascript)?;
            w.opt(*verified_seccomp, |w, v| {
                w.u64(v);
                Ok(())
            })?;
        }
        Request::Feed {
            code,
            inputs,
            functions,
        } => {
            w.u8(tag::FEED);
            w.str(code)?;
            write_named_values(&mut w, inputs)?;
            w.u32(count(functions.len(), "host functions")?);
            for name in functions {
                write_label(&mut w, name, MAX_NAME, "function name")?;
            }
        }
        Request::Resume { call_id, outcome } => {
            w.u8(tag::RESUME);
            w.u32(*call_id);
            write_call_outcome(&mut w, outcome)?;
        }
        Request::Resolve { results } => {
            w.u8(tag::RESOLVE);
            w.u32(count(results.len(), "resolved calls")?);
            for (call_id, outcome) in results {
                w.u32(*call_id);
                write_call_outcome(&mut w, outcome)?;
            }
        }
        Request::LookupReply(outcome) => {
            w.u8(tag::LOOKUP_REPLY);
            match outcome {
                LookupOutcome::Value(value) => {
                    w.u8(0);
                    w.root_value(value)?;
                }
                LookupOutcome::Function => w.u8(1),
                LookupOutcome::Undefined => w.u8(2),
                LookupOutcome::Abort(message) => {
                    w.u8(3);
                    write_label(&mut w, message, MAX_EXCEPTION_MESSAGE, "abort message")?;
                }
            }
        }
        Request::Close => w.u8(tag::CLOSE),
    }
    finish_frame(w, limits)
}

/// Reads the protocol version from a Configure payload without decoding the
/// rest, which may be laid out differently by another version.
pub fn peek_configure_version(payload: &[u8]) -> Option<u32> {
    match payload {
        [tag::CONFIGURE, a, b, c, d, ..] => Some(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

/// Decodes a request payload (the frame without its header).
pub fn decode_request(payload: &[u8], limits: &WireLimits) -> Result<Request, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let t = r.u8()?;
    let request = match t {
        tag::CONFIGURE => {
            let protocol_version = r.u32()?;
            let package_version = r.str_capped("package version", MAX_LABEL)?;
            let language = r.code("language", |code| match code {
                0 => Some(Language::Python),
                1 => Some(Language::JavaScript),
                _ => None,
            })?;
            let sandbox = r.code("sandbox mode", SandboxMode::from_code)?;
            let max_duration_us = r.opt(Reader::u64)?;
            let max_memory = r.opt(Reader::u64)?;
            let max_recursion_depth = r.u32()?;
            let print_flush_bytes = r.u32()?;
            let print_flush_interval_us = r.u32()?;
            let cpu_seconds = r.opt(Reader::u64)?;
            let max_output_bytes = r.u64()?;
            let javascript = read_javascript_config(&mut r)?;
            let verified_seccomp = r.opt(Reader::u64)?;
            Request::Configure {
                protocol_version,
                package_version,
                language,
                sandbox,
                limits: ConfigureLimits {
                    max_duration_us,
                    max_memory,
                    max_recursion_depth,
                    print_flush_bytes,
                    print_flush_interval_us,
                    cpu_seconds,
                    max_output_bytes,
                },
                javascript,
                verified_seccomp,
            }
        }
        tag::FEED => {
            let code = r.str()?;
            let inputs = read_named_values(&mut r)?;
            let n = r.u32()? as usize;
            if n > MAX_LISTED_CALLS {
                return Err(too_many("host functions", n));
            }
            let mut functions = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                functions.push(r.str_capped("function name", MAX_NAME)?);
            }
            Request::Feed {
                code,
                inputs,
                functions,
            }
        }
        tag::RESUME => {
            let call_id = r.u32()?;
            let outcome = read_call_outcome(&mut r)?;
            Request::Resume { call_id, outcome }
        }
        tag::RESOLVE => {
            let n = r.u32()? as usize;
            if n > MAX_LISTED_CALLS {
                return Err(too_many("resolved calls", n));
            }
            let mut results = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let call_id = r.u32()?;
                results.push((call_id, read_call_outcome(&mut r)?));
            }
            Request::Resolve { results }
        }
        tag::LOOKUP_REPLY => Request::LookupReply(
            match r.code("lookup outcome", |code| (code <= 3).then_some(code))? {
                0 => LookupOutcome::Value(r.root_value()?),
                1 => LookupOutcome::Function,
                2 => LookupOutcome::Undefined,
                _ => LookupOutcome::Abort(r.str_capped("abort message", MAX_EXCEPTION_MESSAGE)?),
            },
        ),
        tag::CLOSE => Request::Close,
        tag => return Err(DecodeError::UnknownMessage { tag }),
    };
    r.finish()?;
    Ok(request)
}

/// Encodes a response as a whole frame (header included).
pub fn encode_response(response: &Response, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = start_frame(limits);
    match response {
        Response::Ready {
            protocol_version,
            worker_version,
            engine,
            sandbox,
        } => {
            w.u8(tag::READY);
            w.u32(*protocol_version);
            write_label(&mut w, worker_version, MAX_LABEL, "worker version")?;
            write_label(&mut w, engine, MAX_LABEL, "engine")?;
            write_report(&mut w, sandbox)?;
        }
        Response::Print { stream, text } => {
            w.u8(tag::PRINT);
            w.u8(match stream {
                PrintStream::Stdout => 0,
                PrintStream::Stderr => 1,
            });
            w.str(text)?;
        }
        Response::Call {
            elapsed_us,
            call_id,
            name,
            args,
            kwargs,
        } => {
            w.u8(tag::CALL);
            w.u64(*elapsed_us);
            w.u32(*call_id);
            write_label(&mut w, name, MAX_NAME, "function name")?;
            w.u32(
                u32::try_from(args.len())
                    .map_err(|_| EncodeError::Invalid("too many arguments".into()))?,
            );
            for arg in args {
                w.root_value(arg)?;
            }
            write_named_values(&mut w, kwargs)?;
        }
        Response::Lookup { elapsed_us, name } => {
            w.u8(tag::LOOKUP);
            w.u64(*elapsed_us);
            write_label(&mut w, name, MAX_NAME, "name")?;
        }
        Response::Complete { elapsed_us, value } => {
            w.u8(tag::COMPLETE);
            w.u64(*elapsed_us);
            w.root_value(value)?;
        }
        Response::Error {
            elapsed_us,
            kind,
            exception,
            traceback,
        } => {
            w.u8(tag::ERROR);
            w.u64(*elapsed_us);
            w.u8(kind.code());
            w.exception(exception)?;
            write_label(&mut w, traceback, MAX_TRACEBACK, "traceback")?;
        }
        Response::Await {
            elapsed_us,
            call_ids,
        } => {
            w.u8(tag::AWAIT);
            w.u64(*elapsed_us);
            w.u32(count(call_ids.len(), "awaited calls")?);
            for id in call_ids {
                w.u32(*id);
            }
        }
        Response::Fatal { message } => {
            w.u8(tag::FATAL);
            write_label(&mut w, message, MAX_FATAL, "fatal message")?;
        }
    }
    finish_frame(w, limits)
}

/// Decodes a response payload (the frame without its header).
pub fn decode_response(payload: &[u8], limits: &WireLimits) -> Result<Response, DecodeError> {
    check_payload(payload, limits)?;
    let mut r = Reader::new(payload, limits);
    let t = r.u8()?;
    let response = match t {
        tag::READY => Response::Ready {
            protocol_version: r.u32()?,
            worker_version: r.str_capped("worker version", MAX_LABEL)?,
            engine: r.str_capped("engine", MAX_LABEL)?,
            sandbox: read_report(&mut r)?,
        },
        tag::PRINT => {
            let stream = r.code("print stream", |code| match code {
                0 => Some(PrintStream::Stdout),
                1 => Some(PrintStream::Stderr),
                _ => None,
            })?;
            Response::Print {
                stream,
                text: r.str()?,
            }
        }
        tag::CALL => {
            let elapsed_us = r.u64()?;
            let call_id = r.u32()?;
            let name = r.str_capped("function name", MAX_NAME)?;
            let count = r.u32()? as usize;
            let mut args = Vec::with_capacity(count.min(1024));
            for _ in 0..count {
                args.push(r.root_value()?);
            }
            let kwargs = read_named_values(&mut r)?;
            Response::Call {
                elapsed_us,
                call_id,
                name,
                args,
                kwargs,
            }
        }
        tag::LOOKUP => Response::Lookup {
            elapsed_us: r.u64()?,
            name: r.str_capped("name", MAX_NAME)?,
        },
        tag::COMPLETE => Response::Complete {
            elapsed_us: r.u64()?,
            value: r.root_value()?,
        },
        tag::ERROR => {
            let elapsed_us = r.u64()?;
            let kind = r.code("error kind", ErrorKind::from_code)?;
            let exception = r.exception()?;
            let traceback = r.str_capped("traceback", MAX_TRACEBACK)?;
            Response::Error {
                elapsed_us,
                kind,
                exception,
                traceback,
            }
        }
        tag::AWAIT => {
            let elapsed_us = r.u64()?;
            let n = r.u32()? as usize;
            if n > MAX_LISTED_CALLS {
                return Err(too_many("awaited calls", n));
            }
            let mut call_ids = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                call_ids.push(r.u32()?);
            }
            Response::Await {
                elapsed_us,
                call_ids,
            }
        }
        tag::FATAL => Response::Fatal {
            message: r.str_capped("fatal message", MAX_FATAL)?,
        },
        tag => return Err(DecodeError::UnknownMessage { tag }),
    };
    r.finish()?;
    Ok(response)
}

fn check_payload(payload: &[u8], limits: &WireLimits) -> Result<(), DecodeError> {
    if payload.is_empty() {
        return Err(DecodeError::EmptyFrame);
    }
    if payload.len() > limits.max_frame {
        return Err(DecodeError::FrameTooLarge {
            len: payload.len() as u64,
            max: limits.max_frame,
        });
    }
    Ok(())
}
