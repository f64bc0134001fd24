//! The options table against new sessions: every default is what a new
//! session has, every range is enforced at both ends, every name once.

use std::time::Duration;

use super::OptionValue;
use super::options::{Engines, OptionDefault, OptionSpec, Scope};
use super::table::{CHECKOUT_OPTIONS, OPTIONS, SESSION_OPTIONS, spec};
use crate::options::Language;
use crate::options::SessionOptions;

/// The table's default of `spec` as `SessionOptions::get` gives it.
fn expected(spec: &OptionSpec) -> Option<OptionValue> {
    match spec.default {
        OptionDefault::Unset(_) | OptionDefault::Follows { .. } => None,
        OptionDefault::Seconds(duration) => Some(OptionValue::Float(duration.as_secs_f64())),
        OptionDefault::Bytes(n) | OptionDefault::Count(n) => Some(OptionValue::Int(i128::from(n))),
        OptionDefault::Flag(on) => Some(OptionValue::Bool(on)),
        OptionDefault::Word(word) => Some(OptionValue::Str(word.into())),
    }
}

#[test]
fn every_default_in_the_table_is_what_a_new_session_has() -> Result<(), String> {
    for language in [Language::Python, Language::JavaScript] {
        let options = SessionOptions::new(language);
        for spec in OPTIONS {
            assert_eq!(
                options.get(spec.name)?,
                expected(spec),
                "{} of a new {language} session",
                spec.name
            );
        }
    }
    Ok(())
}

/// A session of the language `spec` applies to, with one option set.
fn with(spec: &OptionSpec, value: u64) -> Result<SessionOptions, String> {
    let language = match spec.engines {
        Engines::JavaScript => Language::JavaScript,
        _ => Language::Python,
    };
    let mut options = SessionOptions::new(language).engine(match language {
        Language::JavaScript => crate::Interpreter::QuickJs,
        _ => crate::Interpreter::Monty,
    });
    options.set(spec.name, OptionValue::Int(i128::from(value)))?;
    Ok(options)
}

#[test]
fn every_range_in_the_table_is_enforced_at_both_ends() -> Result<(), String> {
    let mut checked = 0;
    for spec in OPTIONS {
        let Some((least, most)) = spec.range else {
            continue;
        };
        for edge in [least, most] {
            with(spec, edge)?
                .validate()
                .map_err(|err| format!("{} = {edge}: {err}", spec.name))?;
        }
        let mut outside = vec![];
        if least > 0 && spec.zero.is_none() {
            outside.push(least - 1);
        }
        if most < u64::MAX {
            outside.push(most + 1);
        }
        for value in outside {
            // Past the field's type, `set` refuses; within it, `validate`.
            let err = match with(spec, value) {
                Err(err) => err,
                Ok(options) => options.validate().err().ok_or_else(|| {
                    format!("{} = {value} was taken outside its range", spec.name)
                })?,
            };
            assert_eq!(err, spec.out_of_range(value), "{}", spec.name);
            checked += 1;
        }
        if spec.zero.is_some() {
            with(spec, 0)?
                .validate()
                .map_err(|err| format!("{} = 0: {err}", spec.name))?;
        }
    }
    assert!(checked >= 8, "only {checked} ends were tried");
    Ok(())
}

#[test]
fn times_at_zero_are_refused_naming_the_option() {
    let options = SessionOptions::new(Language::Python)
        .engine(crate::Interpreter::Monty)
        .duration_grace(Duration::ZERO);
    assert_eq!(
        options.validate(),
        Err("duration_grace must be greater than zero".into())
    );
}

#[test]
fn the_names_bindings_pass_are_the_tables_and_each_once() {
    let mut names: Vec<&str> = SESSION_OPTIONS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), OPTIONS.len());
    assert!(CHECKOUT_OPTIONS.contains(&"max_result_bytes"));
    assert!(!CHECKOUT_OPTIONS.contains(&"max_memory"));
    for name in CHECKOUT_OPTIONS {
        assert_eq!(spec(name).map(|spec| spec.scope), Some(Scope::Checkout));
    }
}
