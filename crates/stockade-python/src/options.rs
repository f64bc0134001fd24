//! Session options from the dict the Python layer builds: each value
//! becomes the host library's `OptionValue`, and the library checks it and
//! names the option in any refusal.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use stockade::{Language, OptionValue, SessionOptions};

use crate::errors::configuration;

/// A Python value as an option value, or None when no option takes its type.
fn option_value(value: &Bound<'_, PyAny>) -> Option<OptionValue> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Some(OptionValue::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return value.extract::<i128>().ok().map(OptionValue::Int);
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Some(OptionValue::Float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return s.to_cow().ok().map(|s| OptionValue::Str(s.into_owned()));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value
            .try_iter()
            .ok()?
            .map(|item| item.ok()?.extract::<String>().ok())
            .collect::<Option<Vec<_>>>()
            .map(OptionValue::List);
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let pairs: Vec<_> = dict.iter().collect();
        return pairs
            .iter()
            .map(|(k, v)| Some((k.extract::<String>().ok()?, v.extract::<String>().ok()?)))
            .collect::<Option<Vec<_>>>()
            .map(OptionValue::Map);
    }
    None
}

/// Sets each option of `dict` (`None` values keep the default) through
/// `set`, which is `SessionOptions::set` or `CheckoutOptions::set`.
pub fn set_each(
    dict: &Bound<'_, PyDict>,
    mut set: impl FnMut(&str, OptionValue) -> Result<(), String>,
) -> PyResult<()> {
    let py = dict.py();
    let items: Vec<_> = dict.iter().collect();
    for (key, value) in items {
        let key: String = key
            .extract()
            .map_err(|_| configuration(py, "option names must be str".into()))?;
        if value.is_none() {
            continue;
        }
        let Some(value) = option_value(&value) else {
            let shown = value
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into());
            return Err(configuration(
                py,
                format!("{key}={shown} has the wrong type"),
            ));
        };
        set(&key, value).map_err(|message| configuration(py, message))?;
    }
    Ok(())
}

/// Builds the session options for `language` from `dict`.
pub fn session_options(language: &str, dict: &Bound<'_, PyDict>) -> PyResult<SessionOptions> {
    let language: Language = language
        .parse()
        .map_err(|err| configuration(dict.py(), format!("{err}")))?;
    let mut options = SessionOptions::new(language);
    let rest = dict.copy()?;
    if let Some(mounts) = rest.get_item("mounts")? {
        rest.del_item("mounts")?;
        if !mounts.is_none() {
            options.mounts = mounts_of(&mounts)?;
        }
    }
    set_each(&rest, |key, value| options.set(key, value))?;
    Ok(options)
}

/// The host library's mounts from a sequence of `stockade.Mount`.
fn mounts_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<stockade::Mount>> {
    let refused = || configuration(value.py(), "mounts= takes stockade.Mount objects".into());
    let mut mounts = Vec::new();
    for item in value.try_iter().map_err(|_| refused())? {
        let item = item?;
        let mount = item
            .cast::<crate::mounts::NativeMount>()
            .map_err(|_| refused())?;
        mounts.push(mount.get().mount.clone());
    }
    Ok(mounts)
}
