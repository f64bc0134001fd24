//! Reading a frame's payload: primitives and values, each bound charged
//! before anything is allocated.

use num_bigint::{BigInt, Sign};

use super::{Budget, Code, VALUE_SLOT, tag};
use crate::error::DecodeError;
use crate::exception::{GuestException, MAX_EXCEPTION_MESSAGE, is_known_exception_type};
use crate::limits::WireLimits;
use crate::time::{Date, DateTime, Time, TimeDelta};
use crate::value::Value;

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
