//! What a guest sees of the host's world besides files, as the host chose
//! it for the session: a virtual environment (`os.getenv`, `os.environ`;
//! empty unless given) and the clock (`datetime.now`, `date.today`; the
//! real time in UTC, or a frozen instant).

use std::time::{SystemTime, UNIX_EPOCH};

use stockade_wire::{CallOutcome, Date, DateTime, GuestException, Value};

/// The time a guest reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GuestClock {
    /// The host's clock, in UTC.
    #[default]
    Real,
    /// Always this instant: a run that reads the clock repeats exactly.
    Frozen(SystemTime),
}

impl GuestClock {
    /// Microseconds since the Unix epoch, now.
    pub(crate) fn unix_micros(self) -> i64 {
        let at = match self {
            GuestClock::Real => SystemTime::now(),
            GuestClock::Frozen(at) => at,
        };
        match at.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_micros()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_micros()).map_or(i64::MIN, |us| -us),
        }
    }

    /// Milliseconds since the Unix epoch of a frozen clock (JavaScript's
    /// `Date` takes those), None for the real one.
    pub(crate) fn frozen_ms(self) -> Option<i64> {
        self.frozen_us().map(|us| us.div_euclid(1000))
    }

    /// Microseconds since the Unix epoch of a frozen clock, None for the
    /// real one.
    pub(crate) fn frozen_us(self) -> Option<i64> {
        match self {
            GuestClock::Real => None,
            GuestClock::Frozen(_) => Some(self.unix_micros()),
        }
    }
}

/// The answer to an OS call about the environment or the clock, or None
/// when the call is about something else (a file).
pub(crate) fn answer(
    name: &str,
    args: &[Value],
    kwargs: &[(String, Value)],
    environ: &[(String, String)],
    clock: GuestClock,
) -> Option<CallOutcome> {
    let argument = |index: usize, keyword: &str| {
        kwargs
            .iter()
            .find(|(name, _)| name == keyword)
            .map(|(_, value)| value)
            .or_else(|| args.get(index))
    };
    Some(match name {
        "os.getenv" => match argument(0, "key") {
            Some(Value::Str(key)) => CallOutcome::Return(
                environ
                    .iter()
                    .find(|(name, _)| name == key)
                    .map(|(_, value)| Value::Str(value.clone()))
                    .unwrap_or_else(|| argument(1, "default").cloned().unwrap_or(Value::None)),
            ),
            _ => raise("TypeError", "os.getenv: the name must be a str"),
        },
        "os.environ" => CallOutcome::Return(Value::Dict(
            environ
                .iter()
                .map(|(name, value)| (Value::Str(name.clone()), Value::Str(value.clone())))
                .collect(),
        )),
        "datetime.now" => {
            let offset = match argument(0, "tz") {
                None | Some(Value::None) => None,
                Some(Value::Int(seconds)) => match i32::try_from(*seconds) {
                    Ok(seconds) => Some(seconds),
                    Err(_) => {
                        return Some(raise("ValueError", "datetime.now: offset out of range"));
                    }
                },
                Some(_) => return Some(raise("TypeError", "datetime.now: tz must be a timezone")),
            };
            match DateTime::from_unix_micros(clock.unix_micros(), offset) {
                Some(now) => CallOutcome::Return(Value::DateTime(now)),
                None => raise("OverflowError", "the clock is outside the years 1 to 9999"),
            }
        }
        "date.today" => match DateTime::from_unix_micros(clock.unix_micros(), None) {
            Some(now) => CallOutcome::Return(Value::Date(Date { ..now.date })),
            None => raise("OverflowError", "the clock is outside the years 1 to 9999"),
        },
        _ => return None,
    })
}

fn raise(type_name: &str, message: &str) -> CallOutcome {
    CallOutcome::Raise(GuestException::new(type_name, message))
}
