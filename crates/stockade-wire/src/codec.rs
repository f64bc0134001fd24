//! The byte-level codec: primitives and values, with every bound charged as
//! the decoder (or encoder) goes, before anything is allocated.

use num_bigint::{BigInt, Sign};

use crate::error::{DecodeError, EncodeError};
use crate::exception::{GuestException, MAX_EXCEPTION_MESSAGE, is_known_exception_type};
use crate::limits::WireLimits;
use crate::time::{Date, DateTime, Time, TimeDelta};
use crate::value::Value;

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

/// Reads primitives and values from one frame's payload, charging the bounds.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    limits: WireLimits,
    budget: Budget,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], limits: &WireLimits) -> Self {
        Self {
            buf,
            pos: 0,
            limits: *limits,
            budget: Budget::new(limits),
        }
    }

    pub(crate) fn finish(self) -> Result<(), DecodeError> {
        match self.buf.len() - self.pos {
            0 => Ok(()),
            count => Err(DecodeError::TrailingBytes { count }),
        }
    }

    /// Offset of the next byte to read, for error messages.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::Truncated {
                at: self.pos,
                needed: n - self.remaining(),
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A one-byte code from a closed set; `decode` maps the known codes.
    pub(crate) fn code<T>(
        &mut self,
        what: &'static str,
        decode: impl FnOnce(u8) -> Option<T>,
    ) -> Result<T, DecodeError> {
        let at = self.pos;
        let code = self.u8()?;
        decode(code).ok_or(DecodeError::UnknownCode { what, code, at })
    }

    /// A member of a closed set.
    pub(crate) fn closed<T: Code>(&mut self) -> Result<T, DecodeError> {
        self.code(T::WHAT, |code| {
            T::MEMBERS
                .iter()
                .copied()
                .find(|member| member.code() == code)
        })
    }

    pub(crate) fn bool(&mut self) -> Result<bool, DecodeError> {
        self.code("boolean", |code| match code {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        })
    }

    /// An optional field: a 0/1 byte, then the field when 1.
    pub(crate) fn opt<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        if self.bool()? {
            Ok(Some(read(self)?))
        } else {
            Ok(None)
        }
    }

    pub(crate) fn opt_u64(&mut self) -> Result<Option<u64>, DecodeError> {
        self.opt(Self::u64)
    }

    /// A list of at most `cap` items: its count, refused past the cap
    /// before anything is reserved, then each item.
    pub(crate) fn list<T>(
        &mut self,
        cap: usize,
        what: &'static str,
        mut each: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let at = self.pos;
        let n = self.u32()? as usize;
        if n > cap {
            return Err(DecodeError::Invalid {
                what,
                at,
                detail: format!("{n} exceed the cap of {cap}"),
            });
        }
        let mut items = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            items.push(each(self)?);
        }
        Ok(items)
    }

    pub(crate) fn opt_i64(&mut self) -> Result<Option<i64>, DecodeError> {
        self.opt(Self::i64)
    }

    pub(crate) fn charge_nodes(&mut self, count: u64) -> Result<(), DecodeError> {
        Ok(self.budget.nodes(count)?)
    }

    pub(crate) fn charge_bytes(&mut self, count: u64) -> Result<(), DecodeError> {
        Ok(self.budget.bytes(count)?)
    }

    /// A length-prefixed byte string, charged to the budget before it is copied.
    pub(crate) fn bytes(&mut self) -> Result<Vec<u8>, DecodeError> {
        let len = self.u32()? as usize;
        if len > self.remaining() {
            return Err(DecodeError::Truncated {
                at: self.pos,
                needed: len - self.remaining(),
            });
        }
        self.charge_bytes(len as u64)?;
        Ok(self.take(len)?.to_vec())
    }

    /// A length-prefixed UTF-8 string.
    pub(crate) fn str(&mut self) -> Result<String, DecodeError> {
        let at = self.pos;
        String::from_utf8(self.bytes()?).map_err(|_| DecodeError::InvalidUtf8 { at })
    }

    /// A string of at most `max` bytes.
    pub(crate) fn str_capped(
        &mut self,
        what: &'static str,
        max: usize,
    ) -> Result<String, DecodeError> {
        let at = self.pos;
        let s = self.str()?;
        if s.len() > max {
            return Err(DecodeError::Invalid {
                what,
                at,
                detail: format!("{} bytes exceeds the {max}-byte cap", s.len()),
            });
        }
        Ok(s)
    }

    /// One top-level value: charges its own slot, then decodes it.
    pub(crate) fn root_value(&mut self) -> Result<Value, DecodeError> {
        self.charge_nodes(1)?;
        self.charge_bytes(VALUE_SLOT)?;
        self.value(0)
    }

    /// A count of container slots, charged (nodes and bytes) before anything
    /// is allocated. `per_item` is 2 for dict pairs.
    fn container_len(&mut self, depth: u32, per_item: u64) -> Result<usize, DecodeError> {
        let at = self.pos;
        let count = self.u32()? as usize;
        if depth + 1 > self.limits.max_depth {
            return Err(DecodeError::TooDeep {
                max: self.limits.max_depth,
                at,
            });
        }
        // Every item takes at least one byte per slot, so a count beyond the
        // rest of the frame is a lie told before any allocation.
        let min_bytes = (count as u64).saturating_mul(per_item);
        if min_bytes > self.remaining() as u64 {
            return Err(DecodeError::Truncated {
                at,
                needed: (min_bytes - self.remaining() as u64) as usize,
            });
        }
        self.charge_nodes(min_bytes)?;
        self.charge_bytes(min_bytes.saturating_mul(VALUE_SLOT))?;
        Ok(count)
    }

    /// A sequence's or set's items, each read by `item` one level deeper.
    fn items(
        &mut self,
        depth: u32,
        item: fn(&mut Self, u32) -> Result<Value, DecodeError>,
    ) -> Result<Vec<Value>, DecodeError> {
        let count = self.container_len(depth, 1)?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(item(self, depth + 1)?);
        }
        Ok(items)
    }

    fn hashable(&mut self, depth: u32) -> Result<Value, DecodeError> {
        let at = self.pos;
        let value = self.value(depth)?;
        if !value.is_hashable() {
            return Err(DecodeError::Unhashable {
                kind: value.kind(),
                at,
            });
        }
        Ok(value)
    }

    fn offset(&mut self) -> Result<Option<i32>, DecodeError> {
        self.opt(Self::i32)
    }

    fn time_fields(&mut self) -> Result<Time, DecodeError> {
        let hour = self.u8()?;
        let minute = self.u8()?;
        let second = self.u8()?;
        let microsecond = self.u32()?;
        let offset_seconds = self.offset()?;
        Ok(Time {
            hour,
            minute,
            second,
            microsecond,
            offset_seconds,
        })
    }

    fn date_fields(&mut self) -> Result<Date, DecodeError> {
        let year = self.i32()?;
        let month = self.u8()?;
        let day = self.u8()?;
        Ok(Date { year, month, day })
    }

    fn valid<T>(
        at: usize,
        what: &'static str,
        value: T,
        check: Result<(), String>,
    ) -> Result<T, DecodeError> {
        check
            .map(|()| value)
            .map_err(|detail| DecodeError::Invalid { what, at, detail })
    }

    /// One value whose slot was already charged by its parent.
    fn value(&mut self, depth: u32) -> Result<Value, DecodeError> {
        let at = self.pos;
        let t = self.u8()?;
        Ok(match t {
            tag::NONE => Value::None,
            tag::UNDEFINED => Value::Undefined,
            tag::FALSE => Value::Bool(false),
            tag::TRUE => Value::Bool(true),
            tag::INT => Value::Int(self.i64()?),
            tag::BIGINT => {
                let negative = self.bool()?;
                let magnitude = self.bytes()?;
                if magnitude.last().is_none_or(|&b| b == 0) {
                    return Err(DecodeError::Invalid {
                        what: "big int",
                        at,
                        detail: "magnitude is empty or has a trailing zero byte".into(),
                    });
                }
                let sign = if negative { Sign::Minus } else { Sign::Plus };
                let value = BigInt::from_bytes_le(sign, &magnitude);
                if i64::try_from(&value).is_ok() {
                    return Err(DecodeError::Invalid {
                        what: "big int",
                        at,
                        detail: "fits an i64; must be sent as an int".into(),
                    });
                }
                Value::BigInt(value)
            }
            tag::FLOAT => Value::Float(f64::from_bits(self.u64()?)),
            tag::STR => Value::Str(self.str()?),
            tag::BYTES => Value::Bytes(self.bytes()?),
            tag::LIST => Value::List(self.items(depth, Self::value)?),
            tag::TUPLE => Value::Tuple(self.items(depth, Self::value)?),
            tag::SET => Value::Set(self.items(depth, Self::hashable)?),
            tag::FROZENSET => Value::FrozenSet(self.items(depth, Self::hashable)?),
            tag::DICT => {
                let count = self.container_len(depth, 2)?;
                let mut pairs = Vec::with_capacity(count);
                for _ in 0..count {
                    let key = self.hashable(depth + 1)?;
                    let value = self.value(depth + 1)?;
                    pairs.push((key, value));
                }
                Value::Dict(pairs)
            }
            tag::DATE => {
                let date = self.date_fields()?;
                Value::Date(Self::valid(at, "date", date, date.validate())?)
            }
            tag::TIME => {
                let time = self.time_fields()?;
                Value::Time(Self::valid(at, "time", time, time.validate())?)
            }
            tag::DATETIME => {
                let date = self.date_fields()?;
                let time = self.time_fields()?;
                let dt = DateTime { date, time };
                Value::DateTime(Self::valid(at, "datetime", dt, dt.validate())?)
            }
            tag::TIMEDELTA => {
                let delta = TimeDelta {
                    days: self.i32()?,
                    seconds: self.i32()?,
                    microseconds: self.i32()?,
                };
                Value::TimeDelta(Self::valid(at, "timedelta", delta, delta.validate())?)
            }
            tag::EXCEPTION => Value::Exception(self.exception()?),
            tag::REPR => Value::Repr(self.str()?),
            tag::CYCLE => Value::Cycle(self.str()?),
            tag => return Err(DecodeError::UnknownValue { tag, at }),
        })
    }

    /// A guest exception: a type name from the closed set and a capped message.
    pub(crate) fn exception(&mut self) -> Result<GuestException, DecodeError> {
        let at = self.pos;
        let type_name = self.str_capped("exception type", 64)?;
        if !is_known_exception_type(&type_name) {
            return Err(DecodeError::Invalid {
                what: "exception type",
                at,
                detail: format!("{type_name:?} is not in the closed set of exception types"),
            });
        }
        let message = self.str_capped("exception message", MAX_EXCEPTION_MESSAGE)?;
        Ok(GuestException { type_name, message })
    }
}

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
