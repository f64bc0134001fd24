//! `Intl.ListFormat`: "a, b, and c" in a locale.

use icu_list::ListFormatter;
use icu_list::options::{ListFormatterOptions, ListLength};
use rquickjs::Ctx;
use writeable::Writeable;

/// `items` joined as a conjunction, disjunction or unit list of the given
/// style (`long`, `short`, `narrow`).
pub fn format<'js>(
    ctx: Ctx<'js>,
    tag: String,
    kind: String,
    style: String,
    items: Vec<String>,
) -> rquickjs::Result<String> {
    let locale = super::locale(&ctx, &tag)?;
    let length = match style.as_str() {
        "short" => ListLength::Short,
        "narrow" => ListLength::Narrow,
        _ => ListLength::Wide,
    };
    let options = ListFormatterOptions::default().with_length(length);
    let formatter = match kind.as_str() {
        "disjunction" => ListFormatter::try_new_or((&locale).into(), options),
        "unit" => ListFormatter::try_new_unit((&locale).into(), options),
        _ => ListFormatter::try_new_and((&locale).into(), options),
    }
    .map_err(|err| super::data_error(&ctx, "list patterns", err))?;
    Ok(formatter
        .format(items.iter())
        .write_to_string()
        .into_owned())
}
