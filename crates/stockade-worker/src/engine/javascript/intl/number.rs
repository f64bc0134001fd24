//! `Intl.NumberFormat` and `toLocaleString` on numbers and BigInts:
//! rounding as ECMA-402 asks (half away from zero, on the number's
//! shortest decimal form, as V8 rounds), then the locale's symbols,
//! grouping and patterns.

use fixed_decimal::{
    Decimal, FloatPrecision, SignDisplay, SignedRoundingMode, UnsignedRoundingMode,
};
use icu_decimal::options::{
    CompactDecimalFormatterOptions, DecimalFormatterOptions, GroupingStrategy,
};
use icu_decimal::{CompactDecimalFormatter, DecimalFormatter};
use icu_experimental::dimension::currency::CurrencyType;
use icu_experimental::dimension::currency::formatter::CurrencyFormatter;
use icu_experimental::dimension::currency::options::{CurrencyFormatterOptions, CurrencyUsage};
use icu_experimental::dimension::percent::formatter::PercentFormatter;
use icu_locale_core::Locale;
use rquickjs::{Ctx, Exception, Object, Value};

/// How the script asks a number to be formatted, its defaults resolved.
#[derive(Clone)]
struct Options {
    style: String,
    currency: Option<String>,
    currency_display: String,
    /// Accounting: negative amounts in parentheses where the locale does so.
    accounting: bool,
    /// The currency's own minor-unit digits.
    currency_digits: i16,
    notation: String,
    compact_display: String,
    grouping: String,
    sign_display: String,
    min_integer: i16,
    min_fraction: i16,
    max_fraction: i16,
    min_significant: Option<i16>,
    max_significant: Option<i16>,
}

impl Options {
    fn read(object: &Object<'_>) -> rquickjs::Result<Self> {
        let text = |key: &str, default: &str| -> rquickjs::Result<String> {
            Ok(object
                .get::<_, Option<String>>(key)?
                .unwrap_or_else(|| default.to_owned()))
        };
        let digits = |key: &str| -> rquickjs::Result<Option<i16>> {
            Ok(object
                .get::<_, Option<f64>>(key)?
                .map(|n| n.clamp(0.0, 100.0) as i16))
        };
        Ok(Self {
            style: text("style", "decimal")?,
            currency: object.get("currency")?,
            currency_display: text("currencyDisplay", "symbol")?,
            accounting: text("currencySign", "standard")? == "accounting",
            currency_digits: digits("currencyDigits")?.unwrap_or(2),
            notation: text("notation", "standard")?,
            compact_display: text("compactDisplay", "short")?,
            // ECMA-402 resolves useGrouping to a string, or to false.
            grouping: match object.get::<_, Value>("useGrouping")?.as_bool() {
                Some(false) => "false".to_owned(),
                _ => text("useGrouping", "auto")?,
            },
            sign_display: text("signDisplay", "auto")?,
            min_integer: digits("minimumIntegerDigits")?.unwrap_or(1),
            min_fraction: digits("minimumFractionDigits")?.unwrap_or(0),
            max_fraction: digits("maximumFractionDigits")?.unwrap_or(3),
            min_significant: digits("minimumSignificantDigits")?,
            max_significant: digits("maximumSignificantDigits")?,
        })
    }
}

/// `value` (a finite number, or a BigInt or decimal as a string) formatted
/// in the locale `tag` with the resolved `options`.
pub fn format<'js>(
    ctx: Ctx<'js>,
    tag: String,
    value: Value<'js>,
    options: Object<'js>,
) -> rquickjs::Result<String> {
    let locale = super::locale(&ctx, &tag)?;
    let options = Options::read(&options)?;
    let mut decimal = match value.as_number() {
        Some(x) => {
            let mut decimal = Decimal::try_from_f64(x, FloatPrecision::RoundTrip)
                .map_err(|_| Exception::throw_range(&ctx, "the number cannot be formatted"))?;
            if x == 0.0 && x.is_sign_negative() {
                decimal.sign = fixed_decimal::Sign::Negative;
            }
            decimal
        }
        None => decimal_of(&ctx, &value.get::<String>()?)?,
    };
    if options.style == "percent" {
        decimal.multiply_pow10(2);
    }
    let text = match options.notation.as_str() {
        "compact" => {
            apply_sign(&mut decimal, &options.sign_display);
            compact(&ctx, &locale, &options, &decimal)?
        }
        "scientific" | "engineering" => scientific(&ctx, &locale, &options, decimal)?,
        _ => {
            round(&mut decimal, &options);
            apply_sign(&mut decimal, &options.sign_display);
            standard(&ctx, &locale, &options, &decimal)?
        }
    };
    Ok(text)
}

/// A decimal written as text: a BigInt's digits, or a rounded number.
pub fn decimal_of(ctx: &Ctx<'_>, text: &str) -> rquickjs::Result<Decimal> {
    // The text is the script's own rendering of a number: what fails here
    // has more digits than a decimal can hold (some 32,000).
    Decimal::try_from_str(text).map_err(|_| {
        Exception::throw_range(
            ctx,
            &format!("a number of {} digits is too long to format", text.len()),
        )
    })
}

/// ECMA-402's rounding: to significant digits when asked, else to the
/// fraction digits; then the minimum digits shown.
fn round(decimal: &mut Decimal, options: &Options) {
    let half_expand = SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand);
    match (options.min_significant, options.max_significant) {
        (min, Some(max)) if !decimal.absolute.is_zero() => {
            let start = decimal.absolute.nonzero_magnitude_start();
            decimal.round_with_mode(start - max + 1, half_expand);
            decimal.absolute.trim_end();
            let start = decimal.absolute.nonzero_magnitude_start();
            decimal.absolute.pad_end(start - min.unwrap_or(1) + 1);
        }
        (min, Some(_)) => decimal.absolute.pad_end(1 - min.unwrap_or(1)),
        _ => {
            decimal.round_with_mode(-options.max_fraction, half_expand);
            decimal.absolute.trim_end();
            decimal.absolute.pad_end(-options.min_fraction);
        }
    }
    decimal.absolute.pad_start(options.min_integer);
}

fn apply_sign(decimal: &mut Decimal, sign_display: &str) {
    decimal.apply_sign_display(match sign_display {
        "always" => SignDisplay::Always,
        "exceptZero" => SignDisplay::ExceptZero,
        "never" => SignDisplay::Never,
        "negative" => SignDisplay::Negative,
        _ => SignDisplay::Auto,
    });
}

fn standard(
    ctx: &Ctx<'_>,
    locale: &Locale,
    options: &Options,
    decimal: &Decimal,
) -> rquickjs::Result<String> {
    let data = |err| super::data_error(ctx, "number formats", err);
    match options.style.as_str() {
        "percent" => Ok(PercentFormatter::try_new(locale.into(), Default::default())
            .map_err(data)?
            .format(decimal)
            .to_string()),
        "currency" => currency(ctx, locale, options, decimal),
        _ => {
            let grouping = match options.grouping.as_str() {
                "always" => GroupingStrategy::Always,
                "min2" => GroupingStrategy::Min2,
                "false" => GroupingStrategy::Never,
                _ => GroupingStrategy::Auto,
            };
            let formatter =
                DecimalFormatter::try_new(locale.into(), DecimalFormatterOptions::from(grouping))
                    .map_err(data)?;
            Ok(formatter.format(decimal).to_string())
        }
    }
}

/// A currency amount: the locale's pattern and symbol from the currency
/// formatter, around the number with the digits the guest's options gave
/// (the formatter itself would round to the currency's own digits).
fn currency(
    ctx: &Ctx<'_>,
    locale: &Locale,
    options: &Options,
    decimal: &Decimal,
) -> rquickjs::Result<String> {
    let data = |err| super::data_error(ctx, "currency formats", err);
    let code = options
        .currency
        .as_deref()
        .unwrap_or("USD")
        .to_ascii_lowercase();
    let currency = CurrencyType::try_from_str(&code)
        .map_err(|_| Exception::throw_range(ctx, &format!("Invalid currency code : {code}")))?;
    let prefs = locale.into();
    let usage = CurrencyFormatterOptions::from(if options.accounting {
        CurrencyUsage::Accounting
    } else {
        CurrencyUsage::Standard
    });
    let formatter = match options.currency_display.as_str() {
        "narrowSymbol" => CurrencyFormatter::try_new_symbol_narrow(prefs, currency, usage),
        "code" => CurrencyFormatter::try_new_code(prefs, currency, usage),
        // A currency's name agrees with the number (1 US dollar, 2 US
        // dollars): the formatter formats the number itself.
        "name" => {
            return Ok(CurrencyFormatter::try_new_name(prefs, currency)
                .map_err(data)?
                .format_fixed_decimal(decimal)
                .to_string());
        }
        _ => CurrencyFormatter::try_new_symbol(prefs, currency, usage),
    }
    .map_err(data)?;
    let mut one = Decimal::from(1);
    one.absolute.pad_end(-options.currency_digits);
    one.sign = decimal.sign;
    let sample = formatter.format_fixed_decimal(&one).to_string();
    let plain = DecimalFormatter::try_new(locale.into(), DecimalFormatterOptions::default())
        .map_err(data)?;
    let sample_digits = plain.format(&unsigned(&one)).to_string();
    let digits = standard(
        ctx,
        locale,
        &Options {
            style: "decimal".into(),
            ..options.clone()
        },
        &unsigned(decimal),
    )?;
    Ok(match sample.find(&sample_digits) {
        Some(at) => format!(
            "{}{digits}{}",
            &sample[..at],
            &sample[at + sample_digits.len()..]
        ),
        None => formatter.format_fixed_decimal(decimal).to_string(),
    })
}

/// `decimal` without its sign.
fn unsigned(decimal: &Decimal) -> Decimal {
    let mut absolute = decimal.clone();
    absolute.sign = fixed_decimal::Sign::None;
    absolute
}

/// Compact notation ("37M", "1.2 thousand"), rounded as ECMA-402's compact
/// rounding does by default.
fn compact(
    ctx: &Ctx<'_>,
    locale: &Locale,
    options: &Options,
    decimal: &Decimal,
) -> rquickjs::Result<String> {
    let prefs = locale.into();
    let settings = CompactDecimalFormatterOptions::default();
    let formatter = if options.compact_display == "long" {
        CompactDecimalFormatter::try_new_long(prefs, settings)
    } else {
        CompactDecimalFormatter::try_new_short(prefs, settings)
    }
    .map_err(|err| super::data_error(ctx, "compact number formats", err))?;
    Ok(formatter.format(decimal).to_string())
}

/// Scientific (`1.235E3`) and engineering (`1.235E3`, exponents a multiple
/// of three) notation: the mantissa formatted as a decimal.
fn scientific(
    ctx: &Ctx<'_>,
    locale: &Locale,
    options: &Options,
    mut decimal: Decimal,
) -> rquickjs::Result<String> {
    let mut exponent = if decimal.absolute.is_zero() {
        0
    } else {
        decimal.absolute.nonzero_magnitude_start()
    };
    if options.notation == "engineering" {
        exponent = exponent.div_euclid(3) * 3;
    }
    decimal.multiply_pow10(-exponent);
    round(&mut decimal, options);
    // Rounding may carry into a new digit (9.9996E2 to 10E2).
    if !decimal.absolute.is_zero() {
        let start = decimal.absolute.nonzero_magnitude_start();
        let step = if options.notation == "engineering" {
            3
        } else {
            1
        };
        if start >= step {
            decimal.multiply_pow10(-step);
            exponent += step;
            round(&mut decimal, options);
        }
    }
    apply_sign(&mut decimal, &options.sign_display);
    let plain = Options {
        style: "decimal".into(),
        grouping: "false".into(),
        ..options.clone()
    };
    let mantissa = standard(ctx, locale, &plain, &decimal)?;
    Ok(format!("{mantissa}E{exponent}"))
}
