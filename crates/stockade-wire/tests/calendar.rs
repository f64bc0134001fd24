//! The calendar the wire's dates and times are built on: days since the
//! epoch to a civil date and back, and an instant in microseconds to the
//! wall time Python's `datetime.fromtimestamp` gives.

use stockade_wire::{DateTime, civil_from_days, days_from_civil};

#[test]
fn civil_dates_round_trip() {
    for days in [-719_162, -1, 0, 1, 11_016, 19_000, 2_932_896] {
        let (y, m, d) = civil_from_days(days);
        assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
    }
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(19_782), (2024, 2, 29));
}

#[test]
fn unix_micros_become_the_calendar_python_gives() {
    // datetime.fromtimestamp(1796079576.194051, timezone.utc)
    let moment = DateTime::from_unix_micros(1_796_079_576_194_051, Some(0)).unwrap();
    assert_eq!(
        (moment.date.year, moment.date.month, moment.date.day),
        (2026, 11, 30)
    );
    assert_eq!(
        (
            moment.time.hour,
            moment.time.minute,
            moment.time.second,
            moment.time.microsecond
        ),
        (22, 59, 36, 194_051)
    );
    let leap = DateTime::from_unix_micros(951_782_400_000_000, None).unwrap();
    assert_eq!(
        (leap.date.year, leap.date.month, leap.date.day),
        (2000, 2, 29)
    );
    let before = DateTime::from_unix_micros(-1, Some(3600)).unwrap();
    assert_eq!(
        (before.date.day, before.time.hour, before.time.second),
        (1, 0, 59)
    );
    assert!(DateTime::from_unix_micros(i64::MAX, None).is_none());
}
