//! The message set: requests a parent sends (`request`), responses a
//! worker sends (`response`), and Configure's engine configuration and
//! limits (`configure`). This file holds the tags, the caps on names and
//! lists, and the framing and field helpers the three share.

mod configure;
mod request;
mod response;

pub use configure::{
    CPythonConfig, ConfigureLimits, DEFAULT_MAX_STACK_BYTES, EngineConfig, Interpreter,
    JavaScriptConfig, Language, MAX_CLOCK_MS, MAX_ENVIRON, MAX_ENVIRON_VALUE, MAX_MODULE_NAME,
    MAX_MODULES, MAX_PACKAGES, MAX_PATH, MAX_PRELOAD, MAX_REQUIREMENT, MAX_SITE_PACKAGES,
    SCRATCH_DIR, valid_module_name,
};
pub use request::{
    CallOutcome, LookupOutcome, Request, decode_request, encode_request, is_close_request,
    is_feed_request, peek_configure_version,
};
pub use response::{
    ErrorKind, PrintStream, Response, ResponseHead, WorkerInfo, decode_response, encode_response,
    peek_response_head,
};

use crate::codec::{Reader, Writer};
use crate::error::{DecodeError, EncodeError};
use crate::frame::FRAME_HEADER_LEN;
use crate::limits::WireLimits;
use crate::value::Value;

pub(crate) mod tag {
    pub const CONFIGURE: u8 = 0x01;
    pub const FEED: u8 = 0x02;
    pub const RESUME: u8 = 0x03;
    pub const LOOKUP_REPLY: u8 = 0x04;
    pub const CLOSE: u8 = 0x05;
    pub const RESOLVE: u8 = 0x06;
    pub const SNAPSHOT: u8 = 0x07;
    pub const RESTORE: u8 = 0x08;
    pub const REPLAY: u8 = 0x09;
    pub const RESEED: u8 = 0x0a;
    pub const OS_REPLY: u8 = 0x0b;

    pub const READY: u8 = 0x81;
    pub const PRINT: u8 = 0x82;
    pub const CALL: u8 = 0x83;
    pub const LOOKUP: u8 = 0x84;
    pub const COMPLETE: u8 = 0x85;
    pub const ERROR: u8 = 0x86;
    pub const FATAL: u8 = 0x87;
    pub const AWAIT: u8 = 0x88;
    pub const IMAGE: u8 = 0x89;
    pub const RESTORED: u8 = 0x8a;
    pub const CLOCK: u8 = 0x8b;
    pub const OS_CALL: u8 = 0x8c;
    pub const OUTPUT: u8 = 0x8d;
}

/// Longest name (of a host function, an input, a looked-up name) in bytes.
pub(crate) const MAX_NAME: usize = 1024;
/// Longest version or engine string in Ready and Configure.
const MAX_LABEL: usize = 256;
/// Longest fatal message.
const MAX_FATAL: usize = 4096;
/// Most call ids one Await or Resolve may list.
const MAX_LISTED_CALLS: usize = 65_536;

pub(crate) fn start_frame(limits: &WireLimits) -> Writer {
    Writer::new(limits, &[0; FRAME_HEADER_LEN])
}

pub(crate) fn finish_frame(w: Writer, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
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

pub(crate) fn write_label(
    w: &mut Writer,
    s: &str,
    max: usize,
    what: &str,
) -> Result<(), EncodeError> {
    if s.len() > max {
        return Err(EncodeError::Invalid(format!(
            "{what} of {} bytes exceeds the {max}-byte cap",
            s.len()
        )));
    }
    w.str(s)
}

pub(crate) fn write_named_values(
    w: &mut Writer,
    pairs: &[(String, Value)],
) -> Result<(), EncodeError> {
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

pub(crate) fn read_named_values(r: &mut Reader<'_>) -> Result<Vec<(String, Value)>, DecodeError> {
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

pub(crate) fn check_payload(payload: &[u8], limits: &WireLimits) -> Result<(), DecodeError> {
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

/// Most clock readings one Clock or Replay may carry: more are sent as
/// several messages.
pub const MAX_CLOCK_READINGS: usize = 1 << 20;

/// A list of clock readings (ms, as IEEE-754 bits).
pub(crate) fn write_readings(w: &mut Writer, readings: &[f64]) -> Result<(), EncodeError> {
    w.list(readings, MAX_CLOCK_READINGS, "clock readings", |w, ms| {
        w.u64(ms.to_bits());
        Ok(())
    })
}

pub(crate) fn read_readings(r: &mut Reader<'_>) -> Result<Vec<f64>, DecodeError> {
    r.list(MAX_CLOCK_READINGS, "clock readings", |r| {
        Ok(f64::from_bits(r.u64()?))
    })
}
