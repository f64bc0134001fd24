//! `Intl.PluralRules`: the plural category of a number in a locale.

use icu_plurals::{PluralCategory, PluralRules};
use rquickjs::Ctx;

use super::number::decimal_of;

/// The category (`zero`, `one`, `two`, `few`, `many`, `other`) of `value`,
/// already rounded by the caller and written with the fraction digits it
/// shows (`"1.0"` is not `"1"` in every locale), cardinal or ordinal.
pub fn category<'js>(
    ctx: Ctx<'js>,
    tag: String,
    ordinal: bool,
    value: String,
) -> rquickjs::Result<&'static str> {
    let locale = super::locale(&ctx, &tag)?;
    let rules = if ordinal {
        PluralRules::try_new_ordinal((&locale).into())
    } else {
        PluralRules::try_new_cardinal((&locale).into())
    }
    .map_err(|err| super::data_error(&ctx, "plural rules", err))?;
    let decimal = decimal_of(&ctx, &value)?;
    Ok(match rules.category_for(&decimal) {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    })
}
