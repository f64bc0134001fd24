//! `Intl.DateTimeFormat` and `Date.prototype.toLocale*String`: an instant
//! in a time zone (IANA names, from the tz database bundled into the
//! worker: the sandbox shows none) written as a locale writes dates and
//! times.

use icu_datetime::fieldbag::DateTimeFieldBag;
use icu_datetime::fieldsets::builder::{DateFields, FieldSetBuilder, ZoneStyle};
use icu_datetime::fieldsets::enums::CompositeFieldSet;
use icu_datetime::options::{Length, TimePrecision, YearStyle};
use icu_datetime::range::DateRangeFormatter;
use icu_datetime::{DateTimeFormatter, DateTimeFormatterPreferences};
use icu_locale_core::preferences::extensions::unicode::keywords::HourCycle;
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};
use rquickjs::{Ctx, Exception, Object};
use writeable::{Part, PartsWrite, Writeable};

/// The tz database's name for `name` (any case), or the RangeError
/// ECMA-402 gives a zone it does not know.
pub fn time_zone<'js>(ctx: Ctx<'js>, name: String) -> rquickjs::Result<String> {
    zone(&ctx, &name).map(|zone| zone.iana_name().unwrap_or("UTC").to_owned())
}

fn zone(ctx: &Ctx<'_>, name: &str) -> rquickjs::Result<TimeZone> {
    if name.eq_ignore_ascii_case("utc")
        || name.eq_ignore_ascii_case("etc/utc")
        || name.eq_ignore_ascii_case("gmt")
    {
        return Ok(TimeZone::UTC);
    }
    TimeZone::get(name)
        .map_err(|_| Exception::throw_range(ctx, &format!("Invalid time zone specified: {name}")))
}

/// A resolved DateTimeFormat, ready to format instants.
struct Request {
    prefs: DateTimeFormatterPreferences,
    fields: CompositeFieldSet,
    /// The same fields, unbuilt: a range of plain dates needs a date field set.
    builder: FieldSetBuilder,
    zone: TimeZone,
    /// Day and month are written without zero padding afterwards (see
    /// `UNPADDED_NUMERIC_DATES`).
    unpad: bool,
    /// `year: '2-digit'`: ICU4X has no year style for it in every length,
    /// so a whole year it writes is cut to two digits afterwards.
    two_digit_year: bool,
}

impl Request {
    /// ECMA-402's resolved options for the locale `tag`: `timeZone`,
    /// `dateStyle` and `timeStyle`, or the component options (`weekday`,
    /// `era`, `year`, `month`, `day`, `hour`, `minute`, `second`,
    /// `fractionalSecondDigits`, `timeZoneName`), and `hourCycle`.
    fn read(ctx: &Ctx<'_>, tag: &str, options: &Object<'_>) -> rquickjs::Result<Self> {
        let locale = super::locale(ctx, tag)?;
        let text = |key: &str| -> rquickjs::Result<Option<String>> {
            options.get::<_, Option<String>>(key)
        };
        let zone = zone(ctx, &text("timeZone")?.unwrap_or_else(|| "UTC".into()))?;
        let mut prefs = DateTimeFormatterPreferences::from(&locale);
        prefs.hour_cycle = match text("hourCycle")?.as_deref() {
            Some("h11") => Some(HourCycle::H11),
            Some("h12") => Some(HourCycle::H12),
            // CLDR has no h24 any more: hour 24 is written 0, as in h23.
            Some("h23" | "h24") => Some(HourCycle::H23),
            _ => prefs.hour_cycle,
        };
        let styled = (text("dateStyle")?, text("timeStyle")?);
        let builder = match &styled {
            (None, None) => components(ctx, options)?,
            (date, time) => styles(date.as_deref(), time.as_deref()),
        };
        let fields = builder
            .clone()
            .build_composite()
            .map_err(|err| Exception::throw_range(ctx, &format!("date and time options: {err}")))?;
        let numeric =
            |key: &str| -> rquickjs::Result<bool> { Ok(text(key)?.as_deref() == Some("numeric")) };
        let unpad = styled == (None, None)
            && numeric("year")?
            && numeric("month")?
            && numeric("day")?
            && UNPADDED_NUMERIC_DATES.contains(&locale.id.language.as_str());
        let two_digit_year = styled == (None, None) && text("year")?.as_deref() == Some("2-digit");
        Ok(Self {
            prefs,
            fields,
            zone,
            unpad,
            two_digit_year,
            builder,
        })
    }

    fn instant(&self, ctx: &Ctx<'_>, epoch_ms: f64) -> rquickjs::Result<Zoned> {
        Timestamp::from_millisecond(epoch_ms as i64)
            .map(|instant| instant.to_zoned(self.zone.clone()))
            .map_err(|_| {
                Exception::throw_range(
                    ctx,
                    "dates past the year 9999 (or before -9999) cannot be formatted",
                )
            })
    }

    /// What Node 20 writes where ICU4X writes otherwise: numeric dates
    /// unpadded in the languages that have them so, and an ordinary space
    /// before AM and PM (Node's ICU data has it; CLDR now has a narrow
    /// no-break space).
    fn as_node_writes(
        &self,
        ctx: &Ctx<'_>,
        zoned: &Zoned,
        written: String,
    ) -> rquickjs::Result<String> {
        let mut written = written;
        if self.unpad {
            let date_only = DateTimeFieldBag::from_skeleton("yMd").to_composite_field_set();
            let date = DateTimeFormatter::try_new(self.prefs, date_only)
                .map_err(|err| data_error(ctx, err))?
                .format(zoned)
                .to_string();
            written = written.replacen(&date, &unpadded(&date), 1);
        }
        if self.two_digit_year {
            let year = zoned.year().to_string();
            if year.len() == 4 {
                written = written.replacen(&year, &year[2..], 1);
            }
        }
        Ok(written.replace('\u{202f}', " "))
    }
}

fn data_error(ctx: &Ctx<'_>, err: impl std::fmt::Display) -> rquickjs::Error {
    super::data_error(ctx, "date formats", err)
}

/// The instant `epoch_ms` (finite, checked by the caller) as the resolved
/// `options` in the locale `tag` write it.
pub fn format<'js>(
    ctx: Ctx<'js>,
    tag: String,
    epoch_ms: f64,
    options: Object<'js>,
) -> rquickjs::Result<String> {
    let request = Request::read(&ctx, &tag, &options)?;
    let zoned = request.instant(&ctx, epoch_ms)?;
    let written = DateTimeFormatter::try_new(request.prefs, request.fields)
        .map_err(|err| data_error(&ctx, err))?
        .format(&zoned)
        .to_string();
    request.as_node_writes(&ctx, &zoned, written)
}

/// `format`'s text in parts, as `[type, value]` pairs with ECMA-402's
/// part types (`year`, `month`, `literal`, ...).
pub fn format_to_parts<'js>(
    ctx: Ctx<'js>,
    tag: String,
    epoch_ms: f64,
    options: Object<'js>,
) -> rquickjs::Result<Vec<Vec<String>>> {
    let request = Request::read(&ctx, &tag, &options)?;
    let zoned = request.instant(&ctx, epoch_ms)?;
    let formatter = DateTimeFormatter::try_new(request.prefs, request.fields)
        .map_err(|err| data_error(&ctx, err))?;
    let mut sink = Parts::default();
    formatter
        .format(&zoned)
        .write_to_parts(&mut sink)
        .map_err(|err| data_error(&ctx, err))?;
    let mut parts = Vec::new();
    for (kind, value) in sink.parts {
        let value = value.replace('\u{202f}', " ");
        let value =
            if request.unpad && matches!(kind, "month" | "day") && value.chars().count() == 2 {
                value.trim_start_matches('0').to_owned()
            } else if request.two_digit_year && kind == "year" && value.chars().count() == 4 {
                // Digits of any numbering system: cut by characters, not bytes.
                value.chars().skip(2).collect()
            } else {
                value
            };
        parts.push(vec![kind.to_owned(), value]);
    }
    Ok(parts)
}

/// Two instants as one range ("Mar 14 – 16, 2024"), the fields they share
/// written once.
pub fn format_range<'js>(
    ctx: Ctx<'js>,
    tag: String,
    start_ms: f64,
    end_ms: f64,
    options: Object<'js>,
) -> rquickjs::Result<String> {
    let request = Request::read(&ctx, &tag, &options)?;
    let (start, end) = (
        request.instant(&ctx, start_ms)?,
        request.instant(&ctx, end_ms)?,
    );
    // ICU4X's range formatter writes shared fields once as Node does for
    // medium-length dates (in other lengths and with times it can write
    // month codes, `M01`); otherwise both ends are written whole, joined
    // as Node joins ends that share nothing.
    let medium = matches!(request.builder.length, None | Some(Length::Medium));
    let dates_only =
        request.builder.time_precision.is_none() && request.builder.zone_style.is_none();
    let written = if medium && dates_only {
        let fields = request
            .builder
            .clone()
            .build_date()
            .map_err(|err| data_error(&ctx, err))?;
        DateRangeFormatter::try_new(request.prefs, fields)
            .map_err(|err| data_error(&ctx, err))?
            .format(&gregorian(&start), &gregorian(&end))
            .to_string()
    } else {
        let formatter = DateTimeFormatter::try_new(request.prefs, request.fields)
            .map_err(|err| data_error(&ctx, err))?;
        let whole = |zoned: &Zoned| {
            let written = formatter.format(zoned).to_string();
            request.as_node_writes(&ctx, zoned, written)
        };
        format!("{}\u{2009}–\u{2009}{}", whole(&start)?, whole(&end)?)
    };
    Ok(written.replace('\u{202f}', " "))
}

/// A sink keeping the outermost part each piece of text was written in.
#[derive(Default)]
struct Parts {
    parts: Vec<(&'static str, String)>,
    /// The part being written, if any.
    open: Option<&'static str>,
}

impl std::fmt::Write for Parts {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        match (self.open, self.parts.last_mut()) {
            (None, Some(("literal", last))) => last.push_str(text),
            (None, _) => self.parts.push(("literal", text.to_owned())),
            (Some(_), Some((_, last))) => last.push_str(text),
            (Some(kind), None) => self.parts.push((kind, text.to_owned())),
        }
        Ok(())
    }
}

impl PartsWrite for Parts {
    type SubPartsWrite = Self;

    fn with_part(
        &mut self,
        part: Part,
        mut write: impl FnMut(&mut Self) -> std::fmt::Result,
    ) -> std::fmt::Result {
        if self.open.is_some() {
            return write(self);
        }
        let kind = part_type(part);
        self.parts.push((kind, String::new()));
        self.open = Some(kind);
        let written = write(self);
        self.open = None;
        written
    }
}

/// ECMA-402's part type for an ICU4X date part.
fn part_type(part: Part) -> &'static str {
    use icu_datetime::parts;
    [
        (parts::ERA, "era"),
        (parts::YEAR, "year"),
        (parts::RELATED_YEAR, "relatedYear"),
        (parts::YEAR_NAME, "yearName"),
        (parts::MONTH, "month"),
        (parts::DAY, "day"),
        (parts::WEEKDAY, "weekday"),
        (parts::DAY_PERIOD, "dayPeriod"),
        (parts::HOUR, "hour"),
        (parts::MINUTE, "minute"),
        (parts::SECOND, "second"),
        (parts::TIME_ZONE_NAME, "timeZoneName"),
    ]
    .into_iter()
    .find(|(known, _)| *known == part)
    .map_or("literal", |(_, name)| name)
}

/// Languages whose numeric dates (year, month and day all `numeric`, as
/// `toLocaleDateString` gives them by default) CLDR writes without zero
/// padding (`4.3.2024`) where ICU4X's nearest field set pads day and
/// month (`04.03.2024`). Found by comparing Node 20's output for CLDR's
/// locales; English is absent because ICU4X already matches it in every
/// region.
const UNPADDED_NUMERIC_DATES: &[&str] = &[
    "am", "ar", "be", "bs", "ca", "cs", "cy", "da", "de", "el", "es", "et", "eu", "fi", "fil",
    "gl", "gu", "he", "hi", "id", "is", "ja", "ka", "km", "kn", "ko", "lo", "mk", "ml", "mr", "ms",
    "my", "nb", "nl", "pa", "si", "sk", "sl", "sq", "sr", "sw", "ta", "te", "th", "ur", "vi", "zh",
];

/// `date` with the zero padding of its one- and two-digit numbers taken
/// off (`04.03.2024` to `4.3.2024`; the year's digits stay).
fn unpadded(date: &str) -> String {
    let chars: Vec<char> = date.chars().collect();
    let mut out = String::with_capacity(date.len());
    for (i, &c) in chars.iter().enumerate() {
        let starts_run = i == 0 || !chars[i - 1].is_ascii_digit();
        let two_digits = chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && !chars.get(i + 2).is_some_and(char::is_ascii_digit);
        if c == '0' && starts_run && two_digits {
            continue;
        }
        out.push(c);
    }
    out
}

/// The field set for `dateStyle` and `timeStyle`.
fn styles(date: Option<&str>, time: Option<&str>) -> FieldSetBuilder {
    let length = |style: &str| match style {
        "full" | "long" => Length::Long,
        "medium" => Length::Medium,
        _ => Length::Short,
    };
    let mut builder = FieldSetBuilder::new();
    builder.length = date.or(time).map(length);
    builder.date_fields = date.map(|style| {
        if style == "full" {
            DateFields::YMDE
        } else {
            DateFields::YMD
        }
    });
    builder.time_precision = time.map(|style| {
        if style == "short" {
            TimePrecision::Minute
        } else {
            TimePrecision::Second
        }
    });
    builder.zone_style = match time {
        Some("full") => Some(ZoneStyle::SpecificLong),
        Some("long") => Some(ZoneStyle::SpecificShort),
        _ => None,
    };
    builder
}

/// The field set for the component options, through the UTS 35 skeleton
/// they spell.
fn components(ctx: &Ctx<'_>, options: &Object<'_>) -> rquickjs::Result<FieldSetBuilder> {
    let mut skeleton = String::new();
    let mut add = |key: &str, table: &[(&str, &str)]| -> rquickjs::Result<()> {
        if let Some(value) = options.get::<_, Option<String>>(key)?
            && let Some((_, letters)) = table.iter().find(|(name, _)| *name == value)
        {
            skeleton.push_str(letters);
        }
        Ok(())
    };
    add(
        "era",
        &[("long", "GGGG"), ("short", "G"), ("narrow", "GGGGG")],
    )?;
    add("year", &[("numeric", "y"), ("2-digit", "yy")])?;
    add(
        "month",
        &[
            ("numeric", "M"),
            ("2-digit", "MM"),
            ("short", "MMM"),
            ("long", "MMMM"),
            ("narrow", "MMMMM"),
        ],
    )?;
    add("day", &[("numeric", "d"), ("2-digit", "dd")])?;
    add(
        "weekday",
        &[("long", "EEEE"), ("short", "E"), ("narrow", "EEEEE")],
    )?;
    add("hour", &[("numeric", "j"), ("2-digit", "jj")])?;
    add("minute", &[("numeric", "m"), ("2-digit", "mm")])?;
    add("second", &[("numeric", "s"), ("2-digit", "ss")])?;
    add(
        "fractionalSecondDigits",
        &[("1", "S"), ("2", "SS"), ("3", "SSS")],
    )?;
    add(
        "timeZoneName",
        &[
            ("short", "z"),
            ("long", "zzzz"),
            ("shortOffset", "O"),
            ("longOffset", "OOOO"),
            ("shortGeneric", "v"),
            ("longGeneric", "vvvv"),
        ],
    )?;
    let bag = DateTimeFieldBag::try_from_skeleton(&skeleton).map_err(|err| {
        Exception::throw_range(ctx, &format!("date and time options ({skeleton}): {err:?}"))
    })?;
    let mut builder = bag.to_field_set_builder();
    if skeleton.contains('y') {
        // A numeric year is written whole; a 2-digit one as two digits
        // where the calendar allows.
        builder.year_style = Some(if skeleton.contains("yy") {
            YearStyle::Auto
        } else {
            YearStyle::Full
        });
    }
    Ok(builder)
}

/// The calendar date of `zoned` in its zone, as ICU4X's date.
fn gregorian(zoned: &Zoned) -> icu_calendar::Date<icu_calendar::Gregorian> {
    icu_calendar::Date::from(zoned.date())
}
