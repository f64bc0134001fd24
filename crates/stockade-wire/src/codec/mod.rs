//! The byte-level codec: primitives and values, with every bound charged as
//! the decoder (or encoder) goes, before anything is allocated.

use crate::error::{DecodeError, EncodeError};
use crate::limits::WireLimits;
use crate::value::Value;

mod reader;
mod writer;

pub(crate) use reader::Reader;
pub(crate) use writer::Writer;

/// What one value costs the decoded-bytes budget before its payload.
pub(crate) const VALUE_SLOT: u64 = size_of::<Value>() as u64;

pub(crate) mod tag {
    pub const NONE: u8 = 0x00;
    pub const UNDEFINED: u8 = 0x01;
    pub const FALSE: u8 = 0x02;
    pub const TRUE: u8 = 0x03;
    pub const INT: u8 = 0x04;
    pub const BIGINT: u8 = 0x05;
    pub const FLOAT: u8 = 0x06;
    pub const STR: u8 = 0x07;
    pub const BYTES: u8 = 0x08;
    pub const LIST: u8 = 0x09;
    pub const TUPLE: u8 = 0x0a;
    pub const DICT: u8 = 0x0b;
    pub const SET: u8 = 0x0c;
    pub const FROZENSET: u8 = 0x0d;
    pub const DATE: u8 = 0x0e;
    pub const TIME: u8 = 0x0f;
    pub const DATETIME: u8 = 0x10;
    pub const TIMEDELTA: u8 = 0x11;
    pub const EXCEPTION: u8 = 0x12;
    pub const REPR: u8 = 0x13;
    pub const CYCLE: u8 = 0x14;
}

/// A closed set of named values carried as one byte (a language, a mode,
/// an error kind): reading an unknown byte is an error naming the set.
pub(crate) trait Code: Copy + 'static {
    /// What the set is, for errors: "language", "sandbox mode".
    const WHAT: &'static str;
    /// Every member.
    const MEMBERS: &'static [Self];
    /// The member's byte.
    fn code(self) -> u8;
}

/// What one frame's values have cost so far against the node and
/// decoded-bytes bounds; the decoder and the encoder charge the same way,
/// so a value that encodes also decodes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    max_nodes: u64,
    max_bytes: u64,
    nodes: u64,
    bytes: u64,
}

/// The bound a charge went past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exceeded {
    Nodes(u64),
    Bytes(u64),
}

impl Budget {
    fn new(limits: &WireLimits) -> Self {
        Self {
            max_nodes: limits.max_nodes,
            max_bytes: limits.max_decoded_bytes,
            nodes: 0,
            bytes: 0,
        }
    }

    fn nodes(&mut self, count: u64) -> Result<(), Exceeded> {
        self.nodes = self.nodes.saturating_add(count);
        if self.nodes > self.max_nodes {
            return Err(Exceeded::Nodes(self.max_nodes));
        }
        Ok(())
    }

    fn bytes(&mut self, count: u64) -> Result<(), Exceeded> {
        self.bytes = self.bytes.saturating_add(count);
        if self.bytes > self.max_bytes {
            return Err(Exceeded::Bytes(self.max_bytes));
        }
        Ok(())
    }
}

impl From<Exceeded> for DecodeError {
    fn from(exceeded: Exceeded) -> Self {
        match exceeded {
            Exceeded::Nodes(max) => DecodeError::TooManyNodes { max },
            Exceeded::Bytes(max) => DecodeError::BudgetExceeded { max },
        }
    }
}

impl From<Exceeded> for EncodeError {
    fn from(exceeded: Exceeded) -> Self {
        match exceeded {
            Exceeded::Nodes(max) => EncodeError::TooManyNodes { max },
            Exceeded::Bytes(max) => EncodeError::BudgetExceeded { max },
        }
    }
}

/// Encodes one value on its own (no frame header), under `limits`.
pub fn encode_value(value: &Value, limits: &WireLimits) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer::new(limits, &[]);
    w.root_value(value)?;
    Ok(w.into_inner())
}

/// Decodes one value that fills `bytes` exactly, under `limits`.
pub fn decode_value(bytes: &[u8], limits: &WireLimits) -> Result<Value, DecodeError> {
    if bytes.len() > limits.max_frame {
        return Err(DecodeError::FrameTooLarge {
            len: bytes.len() as u64,
            max: limits.max_frame,
        });
    }
    let mut r = Reader::new(bytes, limits);
    let value = r.root_value()?;
    r.finish()?;
    Ok(value)
}

/// What `value` costs the decoded-bytes budget when it is decoded on its
/// own: one value slot per value, plus its string, bytes or big-int
/// payload, exactly as [`decode_value`] charges it. A host measures a
/// decoded result against a limit tighter than the one it decoded under
/// with this.
pub fn decoded_size(value: &Value) -> u64 {
    let mut total = VALUE_SLOT;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        let payload = match value {
            Value::Str(s) | Value::Repr(s) | Value::Cycle(s) => s.len(),
            Value::Bytes(b) => b.len(),
            Value::BigInt(big) if i64::try_from(big).is_err() => {
                usize::try_from(big.bits().div_ceil(8)).unwrap_or(usize::MAX)
            }
            Value::Exception(e) => e.type_name.len().saturating_add(e.message.len()),
            Value::List(items)
            | Value::Tuple(items)
            | Value::Set(items)
            | Value::FrozenSet(items) => {
                total = total.saturating_add((items.len() as u64).saturating_mul(VALUE_SLOT));
                pending.extend(items);
                0
            }
            Value::Dict(pairs) => {
                total = total.saturating_add((pairs.len() as u64).saturating_mul(2 * VALUE_SLOT));
                for (key, item) in pairs {
                    pending.push(key);
                    pending.push(item);
                }
                0
            }
            _ => 0,
        };
        total = total.saturating_add(payload as u64);
    }
    total
}
