//! Stepped runs for `index.js`: where a feed stopped crosses as JSON
//! (`progress.js` wraps it in FunctionCall, NameLookup, PendingFutures or
//! Complete), and the host's answer comes back as JSON naming the cursor
//! and how it is answered.

use serde_json::{Value as Json, json};
use stockade::{Args, CursorAnswer, HostError, Stepped};

use crate::values;

/// `{kind: "call", cursor, name, args, kwargs, callId}`, `{kind: "lookup",
/// cursor, name}`, `{kind: "futures", cursor, callIds}` or `{kind:
/// "complete", value}`; values tagged as `values.rs` tags them.
pub fn progress_json(stepped: &Stepped) -> Json {
    match stepped {
        Stepped::FunctionCall {
            cursor,
            name,
            args,
            call_id,
        } => json!({
            "kind": "call",
            "cursor": cursor,
            "name": name,
            "args": positional(args),
            "kwargs": {"dict": keyword(args)},
            "callId": call_id,
        }),
        Stepped::NameLookup { cursor, name } => json!({
            "kind": "lookup",
            "cursor": cursor,
            "name": name,
        }),
        Stepped::PendingFutures { cursor, call_ids } => json!({
            "kind": "futures",
            "cursor": cursor,
            "callIds": call_ids,
        }),
        Stepped::Complete(value) => json!({
            "kind": "complete",
            "value": values::to_json(value),
        }),
        // A kind the host library adds later reaches JavaScript as one it
        // does not know, and `progress.js` says so.
        _ => json!({ "kind": "unknown" }),
    }
}

fn positional(args: &Args) -> Vec<Json> {
    args.positional.iter().map(values::to_json).collect()
}

fn keyword(args: &Args) -> Vec<Json> {
    args.keyword
        .iter()
        .map(|(name, value)| json!([name, values::to_json(value)]))
        .collect()
}

/// The cursor an answer is for, and the answer as the host library's:
/// `{cursor, how, value?, type?, message?, results?, errors?}` where `how`
/// is "return", "raise", "pending", "bind", "function", "not_found" or
/// "resolve" (`results` as `[[id, value]]`, `errors` as `[[id, type,
/// message]]`).
pub fn answer_from(answer: &Json) -> Result<(u64, CursorAnswer), String> {
    let cursor = answer
        .get("cursor")
        .and_then(Json::as_u64)
        .ok_or("the answer names no cursor")?;
    let text = |key: &str| answer.get(key).and_then(Json::as_str).unwrap_or_default();
    let value = |what: &str| values::from_json(answer.get("value").unwrap_or(&Json::Null), what, 0);
    let how = text("how");
    let answered = match how {
        "return" => CursorAnswer::Return(value("the call's result")?),
        "bind" => CursorAnswer::Bind(value("the name's value")?),
        "raise" => CursorAnswer::Raise(HostError::new(text("type"), text("message"))),
        "pending" => CursorAnswer::Defer,
        "function" => CursorAnswer::Function,
        "not_found" => CursorAnswer::NotFound,
        "resolve" => CursorAnswer::Resolve(outcomes(answer)?),
        other => return Err(format!("unknown answer {other:?}")),
    };
    Ok((cursor, answered))
}

/// One awaited call's outcome, by its call id.
type Outcome = (u32, Result<stockade::Value, HostError>);

/// The outcomes a PendingFutures cursor is resolved with, by call id.
fn outcomes(answer: &Json) -> Result<Vec<Outcome>, String> {
    let call_id = |item: &Json| {
        item.get(0)
            .and_then(Json::as_u64)
            .and_then(|id| u32::try_from(id).ok())
            .ok_or_else(|| "a call id must be a whole number".to_owned())
    };
    let list = |key: &str| {
        answer
            .get(key)
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut outcomes = Vec::new();
    for item in list("results") {
        let id = call_id(&item)?;
        let what = format!("the result of call {id}");
        let value = values::from_json(item.get(1).unwrap_or(&Json::Null), &what, 0)?;
        outcomes.push((id, Ok(value)));
    }
    for item in list("errors") {
        let id = call_id(&item)?;
        let text = |at: usize| item.get(at).and_then(Json::as_str).unwrap_or_default();
        outcomes.push((id, Err(HostError::new(text(1), text(2)))));
    }
    outcomes.sort_by_key(|(id, _)| *id);
    Ok(outcomes)
}
