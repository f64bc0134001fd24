//! A tool call's `inputs` (a JSON object) as guest values: null, booleans,
//! numbers, strings, arrays and objects, the shapes JSON has.

use serde_json::{Map, Value as Json};
use stockade::{BigInt, Value};

/// Each input, by name, as the guest will see it.
pub fn inputs(object: Map<String, Json>) -> Vec<(String, Value)> {
    object
        .into_iter()
        .map(|(name, json)| (name, value(json)))
        .collect()
}

/// One JSON value as a guest value. Integers up to u64's range stay
/// integers (beyond i64, big ones); a number with a fraction or an
/// exponent is a float, and so is an integer past u64, which the JSON
/// parser reads as one.
pub fn value(json: Json) -> Value {
    match json {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Value::Int(i),
            (None, Some(u), _) => Value::BigInt(BigInt::from(u)),
            (_, _, Some(f)) => Value::Float(f),
            // serde_json without arbitrary_precision always gives one of the three.
            (None, None, None) => Value::Repr(n.to_string()),
        },
        Json::String(s) => Value::Str(s),
        Json::Array(items) => Value::List(items.into_iter().map(value).collect()),
        Json::Object(object) => Value::Dict(
            object
                .into_iter()
                .map(|(key, json)| (Value::Str(key), value(json)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_keep_their_kind() -> Result<(), serde_json::Error> {
        let parsed: Json = serde_json::from_str("[1, -2, 18446744073709551615, 1.5, 2e3]")?;
        let Value::List(items) = value(parsed) else {
            panic!("not a list")
        };
        assert_eq!(items[0], Value::Int(1));
        assert_eq!(items[1], Value::Int(-2));
        assert_eq!(items[2], Value::BigInt(BigInt::from(u64::MAX)));
        assert_eq!(items[3], Value::Float(1.5));
        assert_eq!(items[4], Value::Float(2000.0));
        Ok(())
    }
}
