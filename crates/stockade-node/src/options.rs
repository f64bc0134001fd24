//! What `index.js` hands the addon, read into the host library's types:
//! a session's options by name, and a run's inputs.

use serde_json::Value as Json;
use stockade::{Language, OptionValue, SessionOptions};

use crate::values;

/// Inputs as `index.js` sends them: a tagged dict of names to values.
pub fn named_inputs(inputs: &Json) -> Result<Vec<(String, stockade::Value)>, String> {
    match values::from_json(inputs, "inputs", 0)? {
        stockade::Value::Dict(pairs) => pairs
            .into_iter()
            .map(|(name, value)| match name {
                stockade::Value::Str(name) => Ok((name, value)),
                other => Err(format!("inputs: a name must be a string, not {other:?}")),
            })
            .collect(),
        _ => Err("inputs must be an object of names to values".into()),
    }
}

/// The session options `options` names (a plain object).
pub fn session_options(language: &str, options: &Json) -> Result<SessionOptions, String> {
    let language: Language = language.parse().map_err(|err| format!("language: {err}"))?;
    let mut session = SessionOptions::new(language);
    let Json::Object(options) = options else {
        return Err("options must be an object".into());
    };
    for (key, value) in options {
        if value.is_null() {
            continue;
        }
        session.set(key, option_value(key, value)?)?;
    }
    Ok(session)
}

fn option_value(key: &str, value: &Json) -> Result<OptionValue, String> {
    Ok(match value {
        Json::Bool(b) => OptionValue::Bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => OptionValue::Int(i128::from(i)),
            (None, Some(f)) => OptionValue::Float(f),
            _ => return Err(format!("{key}: a number out of range")),
        },
        Json::String(s) => OptionValue::Str(s.clone()),
        Json::Array(items) => OptionValue::List(
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| format!("{key}: a list of strings"))
                })
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(map) => OptionValue::Map(
            map.iter()
                .map(|(name, text)| {
                    text.as_str()
                        .map(|text| (name.clone(), text.to_owned()))
                        .ok_or_else(|| format!("{key}: an object of strings"))
                })
                .collect::<Result<_, _>>()?,
        ),
        Json::Null => return Err(format!("{key}: null")),
    })
}
