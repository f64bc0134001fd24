//! Intl for JavaScript guests, on ICU4X's compiled locale data (CLDR, every
//! locale): the natives that `js/intl.js` builds ECMA-402's constructors
//! and the `toLocaleString` and `localeCompare` methods on. The script
//! resolves options and defaults as ECMA-402 says; these do the
//! locale-dependent work.

mod collate;
mod datetime;
mod list;
mod number;
mod plural;
mod relative;

use icu_locale_core::Locale;
use rquickjs::{Ctx, Exception, Function, Object};

/// The locale a guest gets when it names none (Node's default here).
const DEFAULT_LOCALE: &str = "en-US";

/// The object of natives `js/intl.js` receives.
pub fn natives<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let natives = Object::new(ctx.clone())?;
    natives.set("defaultLocale", DEFAULT_LOCALE)?;
    natives.set(
        "canonicalLocale",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, tag: String| {
            locale(&ctx, &tag).map(|locale| locale.to_string())
        })?,
    )?;
    natives.set("formatNumber", Function::new(ctx.clone(), number::format)?)?;
    natives.set(
        "pluralCategory",
        Function::new(ctx.clone(), plural::category)?,
    )?;
    natives.set("formatList", Function::new(ctx.clone(), list::format)?)?;
    natives.set("compare", Function::new(ctx.clone(), collate::compare)?)?;
    natives.set("formatDate", Function::new(ctx.clone(), datetime::format)?)?;
    natives.set(
        "formatDateToParts",
        Function::new(ctx.clone(), datetime::format_to_parts)?,
    )?;
    natives.set(
        "formatDateRange",
        Function::new(ctx.clone(), datetime::format_range)?,
    )?;
    natives.set("timeZone", Function::new(ctx.clone(), datetime::time_zone)?)?;
    natives.set(
        "formatRelative",
        Function::new(ctx.clone(), relative::format)?,
    )?;
    Ok(natives)
}

/// `tag` as a locale, or the RangeError ECMA-402 gives a malformed one.
/// Longest locale tag accepted: parsing a tag costs its number of
/// variants squared, and real tags are a few dozen bytes.
const MAX_TAG: usize = 256;

fn locale(ctx: &Ctx<'_>, tag: &str) -> rquickjs::Result<Locale> {
    if tag.len() > MAX_TAG {
        return Err(Exception::throw_range(
            ctx,
            "Incorrect locale information provided",
        ));
    }
    Locale::try_from_str(tag)
        .map_err(|_| Exception::throw_range(ctx, "Incorrect locale information provided"))
}

/// A RangeError for a failure of the locale data (which the compiled data
/// should never have).
fn data_error(ctx: &Ctx<'_>, what: &str, err: impl std::fmt::Display) -> rquickjs::Error {
    Exception::throw_range(ctx, &format!("{what}: {err}"))
}
