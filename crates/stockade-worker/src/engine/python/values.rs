//! Conversions between wire values and monty's `MontyObject`.

use monty_types::{
    DictPairs, ExcType, MontyDate, MontyDateTime, MontyException, MontyObject, MontyTime,
    MontyTimeDelta,
};
use stockade_wire::{Date, DateTime, GuestException, Time, TimeDelta, Value};

/// Converts a guest value for the wire. Values with no wire equivalent
/// (functions, classes, instances, paths, file handles) cross as their repr.
pub fn to_wire(object: MontyObject) -> Value {
    match object {
        MontyObject::None => Value::None,
        MontyObject::Bool(b) => Value::Bool(b),
        MontyObject::Int(i) => Value::Int(i),
        MontyObject::BigInt(i) => Value::from(i),
        MontyObject::Float(x) => Value::Float(x),
        MontyObject::String(s) => Value::Str(s),
        MontyObject::Bytes(b) => Value::Bytes(b),
        MontyObject::List(items) => Value::List(items.into_iter().map(to_wire).collect()),
        MontyObject::Tuple(items) => Value::Tuple(items.into_iter().map(to_wire).collect()),
        MontyObject::NamedTuple { values, .. } => {
            Value::Tuple(values.into_iter().map(to_wire).collect())
        }
        MontyObject::Dict(pairs) => Value::Dict(
            pairs
                .into_iter()
                .map(|(k, v)| (to_wire(k), to_wire(v)))
                .collect(),
        ),
        MontyObject::Set(items) => Value::Set(items.into_iter().map(to_wire).collect()),
        MontyObject::FrozenSet(items) => Value::FrozenSet(items.into_iter().map(to_wire).collect()),
        MontyObject::Date(d) => Value::Date(Date {
            year: d.year,
            month: d.month,
            day: d.day,
        }),
        MontyObject::Time(t) => Value::Time(Time {
            hour: t.hour,
            minute: t.minute,
            second: t.second,
            microsecond: t.microsecond,
            offset_seconds: t.offset_seconds,
        }),
        MontyObject::DateTime(dt) => Value::DateTime(DateTime {
            date: Date {
                year: dt.year,
                month: dt.month,
                day: dt.day,
            },
            time: Time {
                hour: dt.hour,
                minute: dt.minute,
                second: dt.second,
                microsecond: dt.microsecond,
                offset_seconds: dt.offset_seconds,
            },
        }),
        MontyObject::TimeDelta(d) => Value::TimeDelta(TimeDelta {
            days: d.days,
            seconds: d.seconds,
            microseconds: d.microseconds,
        }),
        MontyObject::Exception { exc_type, arg } => {
            let name: &'static str = exc_type.into();
            Value::Exception(GuestException::new(name, arg.as_deref().unwrap_or("")))
        }
        MontyObject::Cycle(_, placeholder) => Value::Cycle(placeholder),
        MontyObject::Repr(s) => Value::Repr(s),
        other => Value::Repr(other.to_string()),
    }
}

/// A value that cannot be an input, and where it sits. The path is built
/// on the way out of the recursion, so a good value costs no strings.
struct Refused {
    kind: &'static str,
    /// Path segments, innermost first.
    segments: Vec<String>,
}

impl Refused {
    fn at(mut self, segment: String) -> Self {
        self.segments.push(segment);
        self
    }
}

/// Converts a value from the host for the guest; `root` names the value
/// (an input's name, or empty) in the message of one that cannot be an input.
pub fn from_wire(value: Value, root: &str) -> Result<MontyObject, String> {
    convert(value).map_err(|refused| {
        let path: String = refused.segments.iter().rev().map(String::as_str).collect();
        let shown = if root.is_empty() && path.is_empty() {
            "the value".to_owned()
        } else {
            format!("the value at {root}{path}")
        };
        format!(
            "{shown} is a {}, which is output-only and cannot be an input",
            refused.kind
        )
    })
}

fn seq(items: Vec<Value>) -> Result<Vec<MontyObject>, Refused> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| convert(item).map_err(|r| r.at(format!("[{i}]"))))
        .collect()
}

fn convert(value: Value) -> Result<MontyObject, Refused> {
    Ok(match value {
        // Python has one null; JavaScript's undefined arrives as None.
        Value::None | Value::Undefined => MontyObject::None,
        Value::Bool(b) => MontyObject::Bool(b),
        Value::Int(i) => MontyObject::Int(i),
        Value::BigInt(i) => MontyObject::BigInt(i),
        Value::Float(x) => MontyObject::Float(x),
        Value::Str(s) => MontyObject::String(s),
        Value::Bytes(b) => MontyObject::Bytes(b),
        Value::List(items) => MontyObject::List(seq(items)?),
        Value::Tuple(items) => MontyObject::Tuple(seq(items)?),
        Value::Set(items) => MontyObject::Set(seq(items)?),
        Value::FrozenSet(items) => MontyObject::FrozenSet(seq(items)?),
        Value::Dict(pairs) => {
            let mut out = Vec::with_capacity(pairs.len());
            for (key, item) in pairs {
                let key = convert(key).map_err(|r| r.at("[<key>]".to_owned()))?;
                let item = match convert(item) {
                    Ok(item) => item,
                    // Quoted as the wire shows a str key: `['k']`.
                    Err(refused) => {
                        let shown = match &key {
                            MontyObject::String(s) => format!("['{s}']"),
                            other => format!("[{other}]"),
                        };
                        return Err(refused.at(shown));
                    }
                };
                out.push((key, item));
            }
            MontyObject::Dict(DictPairs::from(out))
        }
        Value::Date(d) => MontyObject::Date(MontyDate {
            year: d.year,
            month: d.month,
            day: d.day,
        }),
        Value::Time(t) => MontyObject::Time(MontyTime {
            hour: t.hour,
            minute: t.minute,
            second: t.second,
            microsecond: t.microsecond,
            offset_seconds: t.offset_seconds,
            timezone_name: None,
            fold: 0,
        }),
        Value::DateTime(dt) => MontyObject::DateTime(MontyDateTime {
            year: dt.date.year,
            month: dt.date.month,
            day: dt.date.day,
            hour: dt.time.hour,
            minute: dt.time.minute,
            second: dt.time.second,
            microsecond: dt.time.microsecond,
            offset_seconds: dt.time.offset_seconds,
            timezone_name: None,
        }),
        Value::TimeDelta(d) => MontyObject::TimeDelta(MontyTimeDelta {
            days: d.days,
            seconds: d.seconds,
            microseconds: d.microseconds,
        }),
        Value::Exception(e) => MontyObject::Exception {
            exc_type: exc_type(&e.type_name),
            arg: Some(e.message),
        },
        Value::Repr(_) | Value::Cycle(_) => {
            return Err(Refused {
                kind: value.kind(),
                segments: Vec::new(),
            });
        }
    })
}

/// Maps a wire exception type name to monty's; names monty lacks become RuntimeError.
pub fn exc_type(name: &str) -> ExcType {
    name.parse().unwrap_or(ExcType::RuntimeError)
}

/// Builds the exception the guest sees for a host-side failure.
pub fn exception(e: &GuestException) -> MontyException {
    MontyException::new(exc_type(&e.type_name), Some(e.message.clone()))
}
