//! Values between the host library and `index.js`, as tagged JSON: JSON's
//! own null, booleans, strings and arrays (a list) stand for themselves,
//! and every other kind is an object with one key naming it: `{"int":
//! "12"}` (the digits, so no precision is lost), `{"float": 1.5}` (or
//! "nan", "inf", "-inf"), `{"bytes": "hex"}`, `{"tuple": [...]}`, `{"dict":
//! [[k, v], ...]}`, `{"set": [...]}`, `{"frozenset": [...]}`, `{"date":
//! "YYYY-MM-DD"}`, `{"datetime": "YYYY-MM-DDTHH:MM:SS.ffffff", "offset":
//! seconds or null}`, `{"time": ..., "offset": ...}`, `{"timedelta":
//! [days, seconds, microseconds]}`, `{"undefined": true}`, `{"exception":
//! [type, message]}`, `{"repr": text}`, `{"cycle": text}`. `index.js`
//! decodes and encodes it.

use serde_json::{Map, Value as Json, json};
use stockade::{BigInt, Date, DateTime, Time, TimeDelta, Value};

/// Deepest value taken from JavaScript (the wire's own bound).
const MAX_DEPTH: usize = 64;

/// Reads a tagged container's items, each at its own path.
type ItemsOf<'a> = dyn Fn(&Json, &str) -> Result<Vec<Value>, String> + 'a;

/// A value from the worker, as tagged JSON.
pub fn to_json(value: &Value) -> Json {
    match value {
        Value::None => Json::Null,
        Value::Undefined => json!({ "undefined": true }),
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => json!({ "int": i.to_string() }),
        Value::BigInt(i) => json!({ "int": i.to_string() }),
        Value::Float(f) => json!({ "float": float(*f) }),
        Value::Str(s) => Json::String(s.clone()),
        Value::Bytes(b) => json!({ "bytes": hex(b) }),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Tuple(items) => json!({ "tuple": items.iter().map(to_json).collect::<Vec<_>>() }),
        Value::Dict(pairs) => json!({
            "dict": pairs
                .iter()
                .map(|(k, v)| Json::Array(vec![to_json(k), to_json(v)]))
                .collect::<Vec<_>>()
        }),
        Value::Set(items) => json!({ "set": items.iter().map(to_json).collect::<Vec<_>>() }),
        Value::FrozenSet(items) => {
            json!({ "frozenset": items.iter().map(to_json).collect::<Vec<_>>() })
        }
        Value::Date(d) => json!({ "date": date_text(d) }),
        Value::Time(t) => json!({ "time": time_text(t), "offset": t.offset_seconds }),
        Value::DateTime(dt) => json!({
            "datetime": format!("{}T{}", date_text(&dt.date), time_text(&dt.time)),
            "offset": dt.time.offset_seconds,
        }),
        Value::TimeDelta(d) => json!({ "timedelta": [d.days, d.seconds, d.microseconds] }),
        Value::Exception(e) => json!({ "exception": [e.type_name, e.message] }),
        Value::Repr(text) => json!({ "repr": text }),
        Value::Cycle(text) => json!({ "cycle": text }),
    }
}

fn float(f: f64) -> Json {
    if f.is_nan() {
        Json::from("nan")
    } else if f.is_infinite() {
        Json::from(if f > 0.0 { "inf" } else { "-inf" })
    } else {
        Json::from(f)
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 15)]));
    }
    out
}

fn date_text(d: &Date) -> String {
    format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)
}

fn time_text(t: &Time) -> String {
    format!(
        "{:02}:{:02}:{:02}.{:06}",
        t.hour, t.minute, t.second, t.microsecond
    )
}

/// JSON text from `index.js`, read without serde_json's nesting limit of
/// 128: `values.js` holds values to the wire's 64 containers, up to three
/// levels of JSON each, before it writes them.
pub fn parse(text: &str) -> Result<Json, String> {
    use serde::Deserialize;
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let value = Json::deserialize(&mut reader).map_err(|err| err.to_string())?;
    reader.end().map_err(|err| err.to_string())?;
    Ok(value)
}

/// A value from JavaScript (tagged by `index.js`), or what is wrong with
/// it, named by its path.
pub fn from_json(json: &Json, path: &str, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path} is nested more than {MAX_DEPTH} deep"));
    }
    let items = |list: &Json, what: &str| -> Result<Vec<Value>, String> {
        let Json::Array(list) = list else {
            return Err(format!("{path}: a {what} holds no list"));
        };
        list.iter()
            .enumerate()
            .map(|(i, item)| from_json(item, &format!("{path}[{i}]"), depth + 1))
            .collect()
    };
    Ok(match json {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(*b),
        Json::String(s) => Value::Str(s.clone()),
        Json::Array(_) => Value::List(items(json, "list")?),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(f)) => Value::Float(f),
            _ => return Err(format!("{path}: a number out of range")),
        },
        Json::Object(tagged) => tagged_value(tagged, path, depth, &items)?,
    })
}

fn tagged_value(
    tagged: &Map<String, Json>,
    path: &str,
    depth: usize,
    items: &ItemsOf<'_>,
) -> Result<Value, String> {
    let (tag, body) = tagged
        .iter()
        .next()
        .ok_or_else(|| format!("{path}: an empty tagged value"))?;
    Ok(match tag.as_str() {
        "int" => {
            let digits = body.as_str().unwrap_or_default();
            match digits.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => Value::BigInt(
                    digits
                        .parse::<BigInt>()
                        .map_err(|_| format!("{path}: {digits:?} is not an integer"))?,
                ),
            }
        }
        "float" => Value::Float(match body {
            Json::String(s) if s == "nan" => f64::NAN,
            Json::String(s) if s == "inf" => f64::INFINITY,
            Json::String(s) if s == "-inf" => f64::NEG_INFINITY,
            other => other
                .as_f64()
                .ok_or_else(|| format!("{path}: not a float"))?,
        }),
        "bytes" => Value::Bytes(unhex(body.as_str().unwrap_or_default(), path)?),
        "tuple" => Value::Tuple(items(body, "tuple")?),
        "set" => Value::Set(items(body, "set")?),
        "frozenset" => Value::FrozenSet(items(body, "frozenset")?),
        "undefined" => Value::Undefined,
        "dict" => {
            let Json::Array(pairs) = body else {
                return Err(format!("{path}: a dict holds no pairs"));
            };
            let mut out = Vec::with_capacity(pairs.len());
            for pair in pairs {
                let Some([key, value]) = pair.as_array().map(Vec::as_slice) else {
                    return Err(format!("{path}: a dict pair is not [key, value]"));
                };
                let key = from_json(key, &format!("{path} (a key)"), depth + 1)?;
                let name = match &key {
                    Value::Str(s) => format!("{path}[{s:?}]"),
                    other => format!("{path}[{other:?}]"),
                };
                out.push((key, from_json(value, &name, depth + 1)?));
            }
            Value::Dict(out)
        }
        "datetime" => {
            let text = body.as_str().unwrap_or_default();
            let offset = tagged
                .get("offset")
                .and_then(Json::as_i64)
                .and_then(|o| i32::try_from(o).ok());
            Value::DateTime(datetime(text, offset).ok_or_else(|| {
                format!("{path}: {text:?} is not a date and time the guest can hold")
            })?)
        }
        "timedelta" => {
            let parts: Vec<i64> = body
                .as_array()
                .map(|parts| parts.iter().filter_map(Json::as_i64).collect())
                .unwrap_or_default();
            let [days, seconds, micros] = parts.as_slice() else {
                return Err(format!(
                    "{path}: a timedelta is [days, seconds, microseconds]"
                ));
            };
            let part = |n: i64| i32::try_from(n).map_err(|_| format!("{path}: out of range"));
            Value::TimeDelta(TimeDelta {
                days: part(*days)?,
                seconds: part(*seconds)?,
                microseconds: part(*micros)?,
            })
        }
        other => {
            return Err(format!(
                "{path}: a value of kind {other:?} cannot be an input"
            ));
        }
    })
}

fn unhex(text: &str, path: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return Err(format!("{path}: bytes of odd length"));
    }
    bytes
        .chunks(2)
        .map(|pair| match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => Ok(high << 4 | low),
            _ => Err(format!("{path}: bytes that are not hex")),
        })
        .collect()
}

/// `YYYY-MM-DDTHH:MM:SS.ffffff` (what `index.js` writes for a Date).
fn datetime(text: &str, offset_seconds: Option<i32>) -> Option<DateTime> {
    let (date, time) = text.split_once('T')?;
    let mut d = date.splitn(3, '-');
    let date = Date {
        year: d.next()?.parse().ok()?,
        month: d.next()?.parse().ok()?,
        day: d.next()?.parse().ok()?,
    };
    let (clock, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let mut c = clock.splitn(3, ':');
    let time = Time {
        hour: c.next()?.parse().ok()?,
        minute: c.next()?.parse().ok()?,
        second: c.next()?.parse().ok()?,
        microsecond: format!("{fraction:0<6}").get(..6)?.parse().ok()?,
        offset_seconds,
    };
    Some(DateTime { date, time })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_tagged_json() -> Result<(), String> {
        let value = Value::Dict(vec![
            (Value::Str("n".into()), Value::Int(-3)),
            (Value::Int(1), Value::Bytes(vec![0, 255])),
            (
                Value::Str("big".into()),
                Value::BigInt(
                    "123456789012345678901234567890"
                        .parse()
                        .map_err(|_| "a big int")?,
                ),
            ),
            (
                Value::Str("t".into()),
                Value::Tuple(vec![Value::Float(0.5), Value::None, Value::Bool(true)]),
            ),
            (
                Value::Str("s".into()),
                Value::Set(vec![Value::Str("a".into())]),
            ),
        ]);
        let back = from_json(&to_json(&value), "inputs", 0)?;
        assert_eq!(back, value);
        Ok(())
    }

    #[test]
    fn a_bad_input_is_named_by_its_path() {
        let bad = json!({ "dict": [["rows", [{ "bytes": "zz" }]]] });
        let err = from_json(&bad, "inputs.x", 0).unwrap_err();
        assert!(err.contains("inputs.x[\"rows\"][0]"), "{err}");
    }
}
