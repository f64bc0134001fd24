//! The value model: everything a guest and a host can hand each other.

use num_bigint::BigInt;

use crate::exception::GuestException;
use crate::time::{Date, DateTime, Time, TimeDelta};

/// A value crossing between host and guest.
///
/// The set is closed: the codec knows every variant and nothing else. Guest
/// values with no equivalent (functions, class instances, regexes) cross as
/// [`Value::Repr`]; a container that contains itself crosses with a
/// [`Value::Cycle`] marker where it repeats. Both are output-only: a worker
/// refuses them as inputs.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    /// JavaScript's `undefined`, kept distinct from `null` (`None`).
    Undefined,
    Bool(bool),
    Int(i64),
    /// An integer outside the i64 range. The codec never carries a `BigInt`
    /// that fits an i64: it is sent as [`Value::Int`].
    BigInt(BigInt),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    /// Ordered pairs; keys must be hashable.
    Dict(Vec<(Value, Value)>),
    /// Members must be hashable.
    Set(Vec<Value>),
    FrozenSet(Vec<Value>),
    Date(Date),
    Time(Time),
    DateTime(DateTime),
    TimeDelta(TimeDelta),
    Exception(GuestException),
    /// The repr of a guest value that has no equivalent here.
    Repr(String),
    /// Marks where a guest container refers back to one of its ancestors;
    /// holds the placeholder text, such as `[...]`.
    Cycle(String),
}

impl Value {
    /// A short name for the variant, used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "none",
            Value::Undefined => "undefined",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::FrozenSet(_) => "frozenset",
            Value::Date(_) => "date",
            Value::Time(_) => "time",
            Value::DateTime(_) => "datetime",
            Value::TimeDelta(_) => "timedelta",
            Value::Exception(_) => "exception",
            Value::Repr(_) => "repr",
            Value::Cycle(_) => "cycle marker",
        }
    }

    /// Whether the value may be a dict key or a set member: immutable scalars,
    /// and tuples and frozensets of such.
    pub fn is_hashable(&self) -> bool {
        match self {
            Value::None
            | Value::Bool(_)
            | Value::Int(_)
            | Value::BigInt(_)
            | Value::Float(_)
            | Value::Str(_)
            | Value::Bytes(_)
            | Value::Date(_)
            | Value::Time(_)
            | Value::DateTime(_)
            | Value::TimeDelta(_) => true,
            Value::Tuple(items) | Value::FrozenSet(items) => items.iter().all(Value::is_hashable),
            Value::Undefined
            | Value::List(_)
            | Value::Dict(_)
            | Value::Set(_)
            | Value::Exception(_)
            | Value::Repr(_)
            | Value::Cycle(_) => false,
        }
    }

    /// The first output-only part (a repr or a cycle marker) inside the value:
    /// its path, such as `[2]["k"]`, and its kind; `None` when the value may
    /// be an input. The path is built on the way out, so a value that may be
    /// an input costs no strings.
    pub fn output_only_part(&self) -> Option<(String, &'static str)> {
        /// Path segments of the part found, innermost first, and its kind.
        fn walk(value: &Value) -> Option<(Vec<String>, &'static str)> {
            match value {
                Value::Repr(_) | Value::Cycle(_) => Some((Vec::new(), value.kind())),
                Value::List(items)
                | Value::Tuple(items)
                | Value::Set(items)
                | Value::FrozenSet(items) => items.iter().enumerate().find_map(|(i, item)| {
                    walk(item).map(|(mut segments, kind)| {
                        segments.push(format!("[{i}]"));
                        (segments, kind)
                    })
                }),
                Value::Dict(pairs) => pairs.iter().find_map(|(key, item)| {
                    walk(key)
                        .or_else(|| walk(item))
                        .map(|(mut segments, kind)| {
                            segments.push(format!("[{}]", key.short_repr()));
                            (segments, kind)
                        })
                }),
                _ => None,
            }
        }
        walk(self)
            .map(|(segments, kind)| (segments.iter().rev().map(String::as_str).collect(), kind))
    }

    /// A repr cut to a few dozen characters, for error messages.
    pub fn short_repr(&self) -> String {
        let full = self.to_string();
        if full.chars().count() > 40 {
            let cut: String = full.chars().take(37).collect();
            format!("{cut}...")
        } else {
            full
        }
    }
}

impl From<BigInt> for Value {
    /// Keeps the codec's rule: an integer that fits an i64 is a [`Value::Int`].
    fn from(value: BigInt) -> Self {
        match i64::try_from(&value) {
            Ok(small) => Value::Int(small),
            Err(_) => Value::BigInt(value),
        }
    }
}

/// Largest integer, in bits, that Display writes in decimal (about 4300
/// digits, Python's own limit for int to str).
const MAX_DISPLAY_INT_BITS: u64 = 14_300;

fn write_seq(
    f: &mut std::fmt::Formatter<'_>,
    open: &str,
    items: &[Value],
    close: &str,
) -> std::fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    f.write_str(close)
}

fn write_str_repr(f: &mut std::fmt::Formatter<'_>, s: &str) -> std::fmt::Result {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    write!(f, "{quote}")?;
    for c in s.chars() {
        match c {
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c == quote => write!(f, "\\{c}")?,
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    write!(f, "{quote}")
}

fn write_float(f: &mut std::fmt::Formatter<'_>, x: f64) -> std::fmt::Result {
    if x.is_nan() {
        f.write_str("nan")
    } else if x.is_infinite() {
        f.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        // Python's repr: the shortest digits that read back as `x`,
        // positional for exponents -4 to 15, else `1.5e+16`, `1e-05`.
        let scientific = format!("{x:e}");
        let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        if (-4..16).contains(&exponent) {
            let positional = format!("{x}");
            f.write_str(&positional)?;
            if !positional.contains('.') {
                f.write_str(".0")?;
            }
            Ok(())
        } else {
            let sign = if exponent < 0 { '-' } else { '+' };
            write!(f, "{mantissa}e{sign}{:02}", exponent.unsigned_abs())
        }
    }
}

fn write_offset(f: &mut std::fmt::Formatter<'_>, offset: Option<i32>) -> std::fmt::Result {
    if let Some(offset) = offset {
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.unsigned_abs();
        write!(f, "{sign}{:02}:{:02}", abs / 3600, (abs % 3600) / 60)?;
        if abs % 60 != 0 {
            write!(f, ":{:02}", abs % 60)?;
        }
    }
    Ok(())
}

fn write_time_of_day(f: &mut std::fmt::Formatter<'_>, t: &Time) -> std::fmt::Result {
    write!(f, "{:02}:{:02}:{:02}", t.hour, t.minute, t.second)?;
    if t.microsecond != 0 {
        write!(f, ".{:06}", t.microsecond)?;
    }
    write_offset(f, t.offset_seconds)
}

/// Python-style repr, which is what the CLI prints for a result.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Undefined => f.write_str("undefined"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(i) => write!(f, "{i}"),
            // Decimal conversion is quadratic; like Python, refuse past
            // about 4300 digits rather than spend minutes on a hostile int.
            Value::BigInt(i) if i.bits() > MAX_DISPLAY_INT_BITS => {
                write!(f, "<int of {} bits>", i.bits())
            }
            Value::BigInt(i) => write!(f, "{i}"),
            Value::Float(x) => write_float(f, *x),
            Value::Str(s) => write_str_repr(f, s),
            Value::Bytes(b) => {
                f.write_str("b'")?;
                for &byte in b {
                    match byte {
                        b'\\' => f.write_str("\\\\")?,
                        b'\'' => f.write_str("\\'")?,
                        b'\n' => f.write_str("\\n")?,
                        b'\r' => f.write_str("\\r")?,
                        b'\t' => f.write_str("\\t")?,
                        0x20..=0x7e => write!(f, "{}", byte as char)?,
                        _ => write!(f, "\\x{byte:02x}")?,
                    }
                }
                f.write_str("'")
            }
            Value::List(items) => write_seq(f, "[", items, "]"),
            Value::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            Value::Tuple(items) => write_seq(f, "(", items, ")"),
            Value::Dict(pairs) => {
                f.write_str("{")?;
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Set(items) if items.is_empty() => f.write_str("set()"),
            Value::Set(items) => write_seq(f, "{", items, "}"),
            Value::FrozenSet(items) if items.is_empty() => f.write_str("frozenset()"),
            Value::FrozenSet(items) => write_seq(f, "frozenset({", items, "})"),
            Value::Date(d) => write!(f, "{:04}-{:02}-{:02}", d.year, d.month, d.day),
            Value::Time(t) => write_time_of_day(f, t),
            Value::DateTime(dt) => {
                write!(
                    f,
                    "{:04}-{:02}-{:02} ",
                    dt.date.year, dt.date.month, dt.date.day
                )?;
                write_time_of_day(f, &dt.time)
            }
            Value::TimeDelta(d) => {
                if d.days != 0 {
                    let plural = if d.days.abs() == 1 { "" } else { "s" };
                    write!(f, "{} day{plural}, ", d.days)?;
                }
                write!(
                    f,
                    "{}:{:02}:{:02}",
                    d.seconds / 3600,
                    (d.seconds % 3600) / 60,
                    d.seconds % 60
                )?;
                if d.microseconds != 0 {
                    write!(f, ".{:06}", d.microseconds)?;
                }
                Ok(())
            }
            Value::Exception(e) => {
                write!(f, "{}(", e.type_name)?;
                write_str_repr(f, &e.message)?;
                f.write_str(")")
            }
            Value::Repr(s) | Value::Cycle(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_python_repr() {
        let v = Value::Dict(vec![
            (
                Value::Str("a".into()),
                Value::List(vec![Value::Int(1), Value::Float(2.0)]),
            ),
            (Value::Tuple(vec![Value::Bool(true)]), Value::None),
        ]);
        assert_eq!(v.to_string(), "{'a': [1, 2.0], (True,): None}");
        assert_eq!(Value::Str("it's".into()).to_string(), "\"it's\"");
        assert_eq!(Value::Bytes(b"a\x00'".to_vec()).to_string(), "b'a\\x00\\''");
    }

    #[test]
    fn floats_display_as_python_reprs_them() {
        // Each pair is Python 3.11's own repr of the float.
        for (x, repr) in [
            (2.0, "2.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (1e-7, "1e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1e300, "1e+300"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (-2.5e-300, "-2.5e-300"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(Value::Float(x).to_string(), repr, "{x:e}");
        }
    }

    #[test]
    fn lists_are_not_hashable_but_tuples_of_scalars_are() {
        assert!(!Value::List(vec![]).is_hashable());
        assert!(Value::Tuple(vec![Value::Int(1), Value::Str("x".into())]).is_hashable());
        assert!(!Value::Tuple(vec![Value::List(vec![])]).is_hashable());
    }

    #[test]
    fn output_only_parts_are_found_with_their_path() {
        let v = Value::List(vec![
            Value::Int(1),
            Value::Dict(vec![(Value::Str("k".into()), Value::Cycle("[...]".into()))]),
        ]);
        assert_eq!(
            v.output_only_part(),
            Some(("[1]['k']".to_owned(), Value::Cycle(String::new()).kind()))
        );
        assert_eq!(Value::Int(3).output_only_part(), None);
    }

    #[test]
    fn huge_ints_are_not_written_in_decimal() {
        let huge: BigInt = BigInt::from(1) << 100_000u32;
        let started = std::time::Instant::now();
        assert_eq!(Value::BigInt(huge).to_string(), "<int of 100001 bits>");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        let big: BigInt = BigInt::from(10).pow(4000);
        assert_eq!(Value::BigInt(big).to_string().len(), 4001);
    }

    #[test]
    fn small_bigints_become_ints() {
        assert_eq!(Value::from(BigInt::from(5)), Value::Int(5));
        let big: BigInt = BigInt::from(i64::MAX) + 1;
        assert_eq!(Value::from(big.clone()), Value::BigInt(big));
    }
}
