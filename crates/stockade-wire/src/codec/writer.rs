//! Writing primitives and values under the same bounds the reader applies,
//! so a value that encodes also decodes.

use num_bigint::Sign;

use super::{Budget, Code, VALUE_SLOT, tag};
use crate::error::EncodeError;
use crate::exception::{GuestException, MAX_EXCEPTION_MESSAGE, is_known_exception_type};
use crate::limits::WireLimits;
use crate::time::{Date, Time};
use crate::value::Value;

/// Writes primitives and values, applying the same bounds as [`Reader`].
#[derive(Debug)]
pub(crate) struct Writer {
    buf: Vec<u8>,
    limits: WireLimits,
    budget: Budget,
}

impl Writer {
    /// A writer whose buffer starts with `prefix` (such as a frame header).
    pub(crate) fn new(limits: &WireLimits, prefix: &[u8]) -> Self {
        let mut buf = Vec::with_capacity(64);
        buf.extend_from_slice(prefix);
        Self {
            buf,
            limits: *limits,
            budget: Budget::new(limits),
        }
    }

    pub(crate) fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    fn check_size(&self) -> Result<(), EncodeError> {
        // The frame header is at most 4 bytes of the buffer.
        if self.buf.len() > self.limits.max_frame + crate::frame::FRAME_HEADER_LEN {
            return Err(EncodeError::FrameTooLarge {
                max: self.limits.max_frame,
            });
        }
        Ok(())
    }

    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub(crate) fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    fn len32(&mut self, len: usize) -> Result<(), EncodeError> {
        let len = u32::try_from(len).map_err(|_| EncodeError::FrameTooLarge {
            max: self.limits.max_frame,
        })?;
        self.u32(len);
        Ok(())
    }

    fn charge_nodes(&mut self, count: u64) -> Result<(), EncodeError> {
        Ok(self.budget.nodes(count)?)
    }

    fn charge_bytes(&mut self, count: u64) -> Result<(), EncodeError> {
        Ok(self.budget.bytes(count)?)
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) -> Result<(), EncodeError> {
        self.charge_bytes(b.len() as u64)?;
        self.len32(b.len())?;
        if self.buf.len() + b.len() > self.limits.max_frame + crate::frame::FRAME_HEADER_LEN {
            return Err(EncodeError::FrameTooLarge {
                max: self.limits.max_frame,
            });
        }
        self.buf.extend_from_slice(b);
        Ok(())
    }

    pub(crate) fn str(&mut self, s: &str) -> Result<(), EncodeError> {
        self.bytes(s.as_bytes())
    }

    /// A list of at most `cap` items: its count, then each item.
    pub(crate) fn list<T>(
        &mut self,
        items: &[T],
        cap: usize,
        what: &str,
        mut each: impl FnMut(&mut Self, &T) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        if items.len() > cap {
            return Err(EncodeError::Invalid(format!(
                "{} {what} exceed the cap of {cap}",
                items.len()
            )));
        }
        self.u32(items.len() as u32);
        items.iter().try_for_each(|item| each(self, item))
    }

    pub(crate) fn opt_u64(&mut self, value: Option<u64>) {
        self.bool(value.is_some());
        if let Some(v) = value {
            self.u64(v);
        }
    }

    pub(crate) fn opt_i64(&mut self, value: Option<i64>) {
        self.bool(value.is_some());
        if let Some(v) = value {
            self.i64(v);
        }
    }

    /// A member of a closed set.
    pub(crate) fn closed<T: Code>(&mut self, member: T) {
        self.u8(member.code());
    }

    pub(crate) fn root_value(&mut self, value: &Value) -> Result<(), EncodeError> {
        self.charge_nodes(1)?;
        self.charge_bytes(VALUE_SLOT)?;
        self.value(value, 0)?;
        self.check_size()
    }

    fn container(
        &mut self,
        t: u8,
        count: usize,
        depth: u32,
        per_item: u64,
    ) -> Result<(), EncodeError> {
        if depth + 1 > self.limits.max_depth {
            return Err(EncodeError::TooDeep {
                max: self.limits.max_depth,
            });
        }
        let slots = (count as u64).saturating_mul(per_item);
        self.charge_nodes(slots)?;
        self.charge_bytes(slots.saturating_mul(VALUE_SLOT))?;
        self.u8(t);
        self.len32(count)
    }

    /// A sequence or set: its tag and count, then each item, written by
    /// `item` one level deeper.
    fn items(
        &mut self,
        t: u8,
        items: &[Value],
        depth: u32,
        item: fn(&mut Self, &Value, u32) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        self.container(t, items.len(), depth, 1)?;
        items
            .iter()
            .try_for_each(|value| item(self, value, depth + 1))
    }

    fn hashable(&mut self, value: &Value, depth: u32) -> Result<(), EncodeError> {
        if !value.is_hashable() {
            return Err(EncodeError::Unhashable { kind: value.kind() });
        }
        self.value(value, depth)
    }

    fn time_fields(&mut self, t: &Time) {
        self.u8(t.hour);
        self.u8(t.minute);
        self.u8(t.second);
        self.u32(t.microsecond);
        match t.offset_seconds {
            None => self.bool(false),
            Some(offset) => {
                self.bool(true);
                self.i32(offset);
            }
        }
    }

    fn date_fields(&mut self, d: &Date) {
        self.i32(d.year);
        self.u8(d.month);
        self.u8(d.day);
    }

    fn value(&mut self, value: &Value, depth: u32) -> Result<(), EncodeError> {
        match value {
            Value::None => self.u8(tag::NONE),
            Value::Undefined => self.u8(tag::UNDEFINED),
            Value::Bool(false) => self.u8(tag::FALSE),
            Value::Bool(true) => self.u8(tag::TRUE),
            Value::Int(i) => {
                self.u8(tag::INT);
                self.buf.extend_from_slice(&i.to_le_bytes());
            }
            Value::BigInt(big) => match i64::try_from(big) {
                Ok(small) => {
                    self.u8(tag::INT);
                    self.buf.extend_from_slice(&small.to_le_bytes());
                }
                Err(_) => {
                    let (sign, magnitude) = big.to_bytes_le();
                    self.u8(tag::BIGINT);
                    self.bool(sign == Sign::Minus);
                    self.bytes(&magnitude)?;
                }
            },
            Value::Float(x) => {
                self.u8(tag::FLOAT);
                self.u64(x.to_bits());
            }
            Value::Str(s) => {
                self.u8(tag::STR);
                self.str(s)?;
            }
            Value::Bytes(b) => {
                self.u8(tag::BYTES);
                self.bytes(b)?;
            }
            Value::List(items) => self.items(tag::LIST, items, depth, Self::value)?,
            Value::Tuple(items) => self.items(tag::TUPLE, items, depth, Self::value)?,
            Value::Set(items) => self.items(tag::SET, items, depth, Self::hashable)?,
            Value::FrozenSet(items) => self.items(tag::FROZENSET, items, depth, Self::hashable)?,
            Value::Dict(pairs) => {
                self.container(tag::DICT, pairs.len(), depth, 2)?;
                for (key, item) in pairs {
                    self.hashable(key, depth + 1)?;
                    self.value(item, depth + 1)?;
                }
            }
            Value::Date(d) => {
                d.validate().map_err(EncodeError::Invalid)?;
                self.u8(tag::DATE);
                self.date_fields(d);
            }
            Value::Time(t) => {
                t.validate().map_err(EncodeError::Invalid)?;
                self.u8(tag::TIME);
                self.time_fields(t);
            }
            Value::DateTime(dt) => {
                dt.validate().map_err(EncodeError::Invalid)?;
                self.u8(tag::DATETIME);
                self.date_fields(&dt.date);
                self.time_fields(&dt.time);
            }
            Value::TimeDelta(d) => {
                d.validate().map_err(EncodeError::Invalid)?;
                self.u8(tag::TIMEDELTA);
                self.i32(d.days);
                self.i32(d.seconds);
                self.i32(d.microseconds);
            }
            Value::Exception(e) => {
                self.u8(tag::EXCEPTION);
                self.exception(e)?;
            }
            Value::Repr(s) => {
                self.u8(tag::REPR);
                self.str(s)?;
            }
            Value::Cycle(s) => {
                self.u8(tag::CYCLE);
                self.str(s)?;
            }
        }
        self.check_size()
    }

    pub(crate) fn exception(&mut self, e: &GuestException) -> Result<(), EncodeError> {
        if !is_known_exception_type(&e.type_name) {
            return Err(EncodeError::Invalid(format!(
                "{:?} is not in the closed set of exception types",
                e.type_name
            )));
        }
        if e.message.len() > MAX_EXCEPTION_MESSAGE {
            return Err(EncodeError::Invalid(format!(
                "exception message of {} bytes exceeds the {MAX_EXCEPTION_MESSAGE}-byte cap",
                e.message.len()
            )));
        }
        self.str(&e.type_name)?;
        self.str(&e.message)
    }
}
