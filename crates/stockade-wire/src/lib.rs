//! The stockade wire protocol: length-prefixed frames carrying a closed set of
//! messages and values between a host and its worker, decoded under hard bounds.
//!
//! `docs/protocol.md` at the repository root is the normative description; this
//! crate implements it and its tests check the document's test vectors. Both
//! sides of a connection use the same [`WireLimits`], and the encoder applies
//! them too, so a value that encodes also decodes.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod codec;
mod error;
mod exception;
mod exit;
mod frame;
mod limits;
mod message;
mod names;
mod output;
mod remote;
mod sandbox;
mod template;
mod time;
mod value;
mod version;

pub use codec::{decode_value, decoded_size, encode_value};
pub use error::{DecodeError, EncodeError};
pub use exception::{
    GuestException, KNOWN_EXCEPTION_TYPES, MAX_EXCEPTION_MESSAGE, MAX_TRACEBACK,
    write_exception_line,
};
pub use exit::WorkerExit;
pub use frame::{
    FRAME_HEADER_LEN, Frame, FrameReader, SKIPPED_HEAD_LEN, frame_length, read_frame,
    whole_frame_payload, write_frame,
};
pub use limits::{WireLimits, allocator_headroom, rss_ceiling};
pub use message::{
    CPythonConfig, CallOutcome, ConfigureLimits, DEFAULT_MAX_STACK_BYTES, EngineConfig, ErrorKind,
    Interpreter, JavaScriptConfig, Language, LookupOutcome, MAX_CLOCK_MS, MAX_CLOCK_READINGS,
    MAX_ENVIRON, MAX_ENVIRON_VALUE, MAX_MODULE_NAME, MAX_MODULES, MAX_PACKAGES, MAX_PATH,
    MAX_PRELOAD, MAX_REQUIREMENT, MAX_SITE_PACKAGES, PrintStream, Request, Response, ResponseHead,
    SCRATCH_DIR, WorkerInfo, decode_request, decode_response, encode_request, encode_response,
    is_close_request, is_feed_request, peek_configure_version, peek_response_head,
    valid_module_name,
};
pub use names::UnknownName;
pub use output::{MAX_MIME_TYPE, MAX_OUTPUT_TEXT, MAX_OUTPUTS_PER_FEED, OUTPUT_OVERHEAD, Output};
pub use remote::{
    EndCause, MAX_END_DETAIL, MAX_RESULT_BYTES_HEADER, REQUEST_TIMEOUT_HEADER, RemoteEnd,
    RemoteTooLarge, SESSION_PATH, decode_remote_end, decode_remote_too_large, encode_remote_end,
    encode_remote_too_large, is_remote_end, is_remote_too_large,
};
pub use sandbox::{Layer, SandboxMode, SandboxReport};
pub use template::{TEMPLATE_ENGINE, TEMPLATE_FLAG};
pub use time::{Date, DateTime, Time, TimeDelta, civil_from_days, days_from_civil};
pub use value::Value;
pub use version::{MIN_SUPPORTED_PROTOCOL_VERSION, PROTOCOL_VERSION, check_protocol_version};

pub use num_bigint::BigInt;
