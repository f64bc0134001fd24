//! `Intl.RelativeTimeFormat`: "in 3 days", "yesterday", in a locale.

use icu_experimental::relativetime::options::Numeric;
use icu_experimental::relativetime::{RelativeTimeFormatter, RelativeTimeFormatterOptions};
use rquickjs::{Ctx, Exception};

use super::number::decimal_of;

/// `value` (already rounded, as plain decimal text) `unit`s from now, in
/// the style (`long`, `short`, `narrow`) and numeric mode (`always`,
/// `auto`: "yesterday" for -1 day) asked for.
pub fn format<'js>(
    ctx: Ctx<'js>,
    tag: String,
    style: String,
    numeric: String,
    unit: String,
    value: String,
) -> rquickjs::Result<String> {
    let locale = super::locale(&ctx, &tag)?;
    let prefs = (&locale).into();
    let options = RelativeTimeFormatterOptions::default().with_numeric(if numeric == "auto" {
        Numeric::Auto
    } else {
        Numeric::Always
    });
    macro_rules! pick {
        ($($style:literal, $unit:literal => $constructor:ident;)*) => {
            match (style.as_str(), unit.as_str()) {
                $(($style, $unit) => RelativeTimeFormatter::$constructor(prefs, options),)*
                _ => return Err(Exception::throw_range(&ctx, &format!("Invalid unit argument for format() '{unit}'"))),
            }
        };
    }
    let formatter = pick! {
        "long", "second" => try_new_long_second;
        "long", "minute" => try_new_long_minute;
        "long", "hour" => try_new_long_hour;
        "long", "day" => try_new_long_day;
        "long", "week" => try_new_long_week;
        "long", "month" => try_new_long_month;
        "long", "quarter" => try_new_long_quarter;
        "long", "year" => try_new_long_year;
        "short", "second" => try_new_short_second;
        "short", "minute" => try_new_short_minute;
        "short", "hour" => try_new_short_hour;
        "short", "day" => try_new_short_day;
        "short", "week" => try_new_short_week;
        "short", "month" => try_new_short_month;
        "short", "quarter" => try_new_short_quarter;
        "short", "year" => try_new_short_year;
        "narrow", "second" => try_new_narrow_second;
        "narrow", "minute" => try_new_narrow_minute;
        "narrow", "hour" => try_new_narrow_hour;
        "narrow", "day" => try_new_narrow_day;
        "narrow", "week" => try_new_narrow_week;
        "narrow", "month" => try_new_narrow_month;
        "narrow", "quarter" => try_new_narrow_quarter;
        "narrow", "year" => try_new_narrow_year;
    }
    .map_err(|err| super::data_error(&ctx, "relative time formats", err))?;
    Ok(formatter.format(decimal_of(&ctx, &value)?).to_string())
}
