//! Calendar values (date, time, datetime, timedelta) and their validity rules.
//!
//! The ranges are Python's: years 1..=9999, UTC offsets strictly inside ±24 h,
//! timedeltas normalised to `0 <= seconds < 86400` and `0 <= microseconds < 10**6`.

/// Largest absolute UTC offset, in seconds (strictly less than a day).
pub const MAX_OFFSET_SECONDS: i32 = 86_399;
/// Largest absolute number of days in a timedelta.
pub const MAX_DELTA_DAYS: i32 = 999_999_999;

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Date {
    pub year: i32,
    pub month: u8,
    pub day: u8,
}

/// A time of day, with an optional UTC offset in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Time {
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub microsecond: u32,
    pub offset_seconds: Option<i32>,
}

/// A date and a time of day, with an optional UTC offset in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTime {
    pub date: Date,
    pub time: Time,
}

/// A duration, normalised as Python normalises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeDelta {
    pub days: i32,
    pub seconds: i32,
    pub microseconds: i32,
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

impl Date {
    /// Checks the date names a real day between year 1 and 9999.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=9999).contains(&self.year) {
            return Err(format!("year {} is outside 1..=9999", self.year));
        }
        if !(1..=12).contains(&self.month) {
            return Err(format!("month {} is outside 1..=12", self.month));
        }
        let last = days_in_month(self.year, self.month);
        if self.day == 0 || self.day > last {
            return Err(format!(
                "day {} is outside 1..={last} for {}-{:02}",
                self.day, self.year, self.month
            ));
        }
        Ok(())
    }
}

impl Time {
    /// Checks each field is in range and the offset is under a day.
    pub fn validate(&self) -> Result<(), String> {
        if self.hour > 23 || self.minute > 59 || self.second > 59 || self.microsecond > 999_999 {
            return Err(format!(
                "{:02}:{:02}:{:02}.{:06} is not a time of day",
                self.hour, self.minute, self.second, self.microsecond
            ));
        }
        if let Some(offset) = self.offset_seconds
            && offset.unsigned_abs() > MAX_OFFSET_SECONDS.unsigned_abs()
        {
            return Err(format!(
                "UTC offset {offset}s is not strictly within one day"
            ));
        }
        Ok(())
    }
}

impl DateTime {
    /// Checks both halves.
    pub fn validate(&self) -> Result<(), String> {
        self.date.validate()?;
        self.time.validate()
    }

    /// The wall time `micros` microseconds after the Unix epoch (UTC),
    /// seen at `offset_seconds` east of UTC (naive when None: UTC's own
    /// wall time); None outside the years 1 to 9999.
    pub fn from_unix_micros(micros: i64, offset_seconds: Option<i32>) -> Option<Self> {
        let local = micros.checked_add(i64::from(offset_seconds.unwrap_or(0)) * 1_000_000)?;
        let days = local.div_euclid(86_400_000_000);
        let of_day = local.rem_euclid(86_400_000_000);
        let (year, month, day) = civil_from_days(days);
        let date = Date {
            year: i32::try_from(year).ok()?,
            month,
            day,
        };
        let seconds = of_day / 1_000_000;
        let time = Time {
            hour: (seconds / 3600) as u8,
            minute: (seconds / 60 % 60) as u8,
            second: (seconds % 60) as u8,
            microsecond: (of_day % 1_000_000) as u32,
            offset_seconds,
        };
        let moment = Self { date, time };
        moment.validate().ok().map(|()| moment)
    }
}

/// The proleptic Gregorian (year, month, day) `days` after 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl TimeDelta {
    /// Checks the delta is normalised and within Python's range.
    pub fn validate(&self) -> Result<(), String> {
        if !(0..86_400).contains(&self.seconds) {
            return Err(format!("seconds {} is outside 0..86400", self.seconds));
        }
        if !(0..1_000_000).contains(&self.microseconds) {
            return Err(format!(
                "microseconds {} is outside 0..1000000",
                self.microseconds
            ));
        }
        if self.days.unsigned_abs() > MAX_DELTA_DAYS.unsigned_abs() {
            return Err(format!("days {} is outside ±{MAX_DELTA_DAYS}", self.days));
        }
        Ok(())
    }
}

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: i32, month: u8, day: u8) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn leap_days_are_checked() {
        assert!(date(2024, 2, 29).validate().is_ok());
        assert!(date(2023, 2, 29).validate().is_err());
        assert!(date(1900, 2, 29).validate().is_err());
        assert!(date(2000, 2, 29).validate().is_ok());
        assert!(date(0, 1, 1).validate().is_err());
        assert!(date(2024, 4, 31).validate().is_err());
    }

    #[test]
    fn offsets_must_be_under_a_day() {
        let t = |offset| Time {
            hour: 0,
            minute: 0,
            second: 0,
            microsecond: 0,
            offset_seconds: Some(offset),
        };
        assert!(t(86_399).validate().is_ok());
        assert!(t(-86_400).validate().is_err());
    }
}
