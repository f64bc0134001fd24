//! An OS call's answer as monty wants it: the host sends plain wire
//! values (docs/files.md), and the call's own kind says what they were
//! (paths, a `stat` result, an opened file).

use monty_types::{
    ExcType, FileMode, MontyException, MontyFileHandle, MontyObject, OsFunctionCall, stat_result,
};
use stockade_wire::Value;

use super::values::from_wire;

/// The call's result from the host's `value`, or the TypeError a guest
/// meets for an answer of the wrong shape.
pub(super) fn shaped(call: &OsFunctionCall, value: Value) -> Result<MontyObject, MontyException> {
    let wrong = |what: &str| {
        MontyException::new(
            ExcType::TypeError,
            Some(format!("{}: the host answered {what}", call.name())),
        )
    };
    match call {
        OsFunctionCall::Resolve(_) | OsFunctionCall::Absolute(_) | OsFunctionCall::Rename(_) => {
            match value {
                Value::Str(path) => Ok(MontyObject::Path(path)),
                Value::None => Ok(MontyObject::None),
                other => Err(wrong(other.kind())),
            }
        }
        OsFunctionCall::Iterdir(_) => match value {
            Value::List(items) => items
                .into_iter()
                .map(|item| match item {
                    Value::Str(path) => Ok(MontyObject::Path(path)),
                    other => Err(wrong(other.kind())),
                })
                .collect::<Result<_, _>>()
                .map(MontyObject::List),
            other => Err(wrong(other.kind())),
        },
        OsFunctionCall::Stat(_) => match value {
            Value::Tuple(fields) if fields.len() == 10 => {
                let int = |at: usize| match &fields[at] {
                    Value::Int(n) => Ok(*n),
                    other => Err(wrong(other.kind())),
                };
                let float = |at: usize| match &fields[at] {
                    Value::Float(x) => Ok(*x),
                    Value::Int(n) => Ok(*n as f64),
                    other => Err(wrong(other.kind())),
                };
                Ok(stat_result(
                    int(0)?,
                    int(1)?,
                    int(2)?,
                    int(3)?,
                    int(4)?,
                    int(5)?,
                    int(6)?,
                    float(7)?,
                    float(8)?,
                    float(9)?,
                ))
            }
            other => Err(wrong(other.kind())),
        },
        OsFunctionCall::Open(_) => match value {
            Value::Tuple(fields) => match <[Value; 3]>::try_from(fields) {
                Ok([Value::Str(path), Value::Str(mode), Value::Int(position)]) => {
                    let mode = mode
                        .parse::<FileMode>()
                        .map_err(|_| wrong("an unknown file mode"))?;
                    Ok(MontyObject::FileHandle(MontyFileHandle {
                        path,
                        mode,
                        position: u64::try_from(position).unwrap_or(0),
                    }))
                }
                _ => Err(wrong("a malformed file")),
            },
            other => Err(wrong(other.kind())),
        },
        // The zone the guest asked for, name and all, on the host's time.
        OsFunctionCall::DateTimeNow(Some(zone)) => match from_wire(value, "") {
            Ok(MontyObject::DateTime(mut now)) => {
                now.offset_seconds = Some(zone.offset_seconds);
                now.timezone_name = zone.name.clone();
                Ok(MontyObject::DateTime(now))
            }
            Ok(_) => Err(wrong("something other than a datetime")),
            Err(message) => Err(wrong(&message)),
        },
        _ => from_wire(value, "").map_err(|message| wrong(&message)),
    }
}
