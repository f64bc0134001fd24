//! What failed, for `index.js` to raise as its error classes: the error's
//! kind, by its class's name (the host library's `ErrorKind::class_name`),
//! its message, the library's advice (`Error::advice`), and the fields
//! each class carries.

use serde_json::{Value as Json, json};
use stockade::Error;

/// The error as `{kind, message, ...fields}`.
pub fn to_json(err: &Error) -> Json {
    let message = err.to_string();
    let mut out = json!({
        "kind": err.kind().class_name(),
        "message": message,
        "advice": err.advice(),
        "sessionLost": err.loses_session(),
    });
    let fields = match err {
        Error::Guest(guest) | Error::Syntax(guest) => json!({
            "type": guest.type_name,
            "guestMessage": guest.message,
            "traceback": guest.traceback,
        }),
        Error::Timeout { limit, after } => json!({
            "limit": limit.name(),
            "seconds": after.as_secs_f64(),
        }),
        Error::Memory {
            detail,
            worker_died,
        } => json!({
            "detail": detail,
            "workerDied": worker_died,
        }),
        Error::Crashed(info) => json!({
            "exitCode": info.exit_code,
            "signal": info.signal,
            "timedOut": info.timed_out,
            "detail": info.detail,
        }),
        Error::ResultTooLarge { limit } => json!({ "limit": limit }),
        _ => json!({}),
    };
    if let (Json::Object(out), Json::Object(fields)) = (&mut out, fields) {
        out.extend(fields);
    }
    out
}
