//! `Intl.Collator` and `String.prototype.localeCompare`: comparing strings
//! as a locale orders them.

use std::cmp::Ordering;

use icu_collator::options::{CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::{Collator, CollatorPreferences};
use rquickjs::Ctx;

/// -1, 0 or 1 as `a` sorts before, with or after `b` in the locale, with
/// ECMA-402's sensitivity (`base`, `accent`, `case`, `variant`), numeric
/// ordering and case-first (`upper`, `lower`, `false`).
pub fn compare<'js>(
    ctx: Ctx<'js>,
    tag: String,
    sensitivity: String,
    numeric: bool,
    case_first: String,
    a: String,
    b: String,
) -> rquickjs::Result<i32> {
    let locale = super::locale(&ctx, &tag)?;
    let mut prefs = CollatorPreferences::from(&locale);
    if numeric {
        prefs.numeric_ordering = Some(CollationNumericOrdering::True);
    }
    match case_first.as_str() {
        "upper" => prefs.case_first = Some(CollationCaseFirst::Upper),
        "lower" => prefs.case_first = Some(CollationCaseFirst::Lower),
        _ => {}
    }
    let mut options = CollatorOptions::default();
    match sensitivity.as_str() {
        "base" => options.strength = Some(Strength::Primary),
        "accent" => options.strength = Some(Strength::Secondary),
        "case" => {
            options.strength = Some(Strength::Primary);
            options.case_level = Some(CaseLevel::On);
        }
        _ => options.strength = Some(Strength::Tertiary),
    }
    let collator = Collator::try_new(prefs, options)
        .map_err(|err| super::data_error(&ctx, "collation", err))?;
    Ok(match collator.compare(&a, &b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}
