//! Intl for JavaScript guests, on real locale data, without any option:
//! numbers, currencies, plurals, lists, relative times and collation in
//! several locales print what Node 20 prints (the expected values are
//! Node's for the same code), and bad input is the error Node gives.

use stockade::{Error, JavaScriptOptions, Language, Session, SessionOptions, Value};

fn js(options: JavaScriptOptions) -> Session {
    Session::new(SessionOptions::new(Language::JavaScript).javascript(options))
        .expect("a JavaScript session starts")
}

/// The strings a snippet's JSON array result holds.
fn strings(session: &mut Session, code: &str) -> String {
    match session.run(&format!("JSON.stringify({code})")).unwrap() {
        Value::Str(text) => text,
        other => panic!("expected a string, got {other:?}"),
    }
}

#[test]
fn intl_formats_numbers_plurals_lists_relative_times_and_collates_by_default() {
    let mut session = js(JavaScriptOptions::default());
    let code = "[
        new Intl.NumberFormat('de-DE', { style: 'percent' }).format(0.256),
        (1234567.891).toLocaleString('fr-FR'),
        (1234567.891).toLocaleString('es-ES'),
        (1234567.891).toLocaleString('ja-JP'),
        (1234567.891).toLocaleString('zh-CN'),
        (1234.5).toLocaleString('en-GB', { style: 'currency', currency: 'GBP' }),
        new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR' }).format(-1234.5),
        new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencySign: 'accounting' }).format(-5),
        new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(1999.5),
        new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(-1, 'day'),
        new Intl.RelativeTimeFormat('de', { style: 'short' }).format(3, 'hours'),
        new Intl.RelativeTimeFormat('fr').format(-2, 'month'),
        new Intl.PluralRules('fr').select(1.5),
        new Intl.PluralRules('en', { type: 'ordinal' }).resolvedOptions().pluralCategories,
        new Intl.ListFormat('ja').format(['a', 'b', 'c']),
        new Intl.ListFormat('es', { type: 'disjunction' }).format(['a', 'b', 'c']),
        'a'.localeCompare('B'),
        ['z', 'ä', 'a'].sort(new Intl.Collator('sv').compare),
        ['z', 'ä', 'a'].sort(new Intl.Collator('de').compare),
        ['item10', 'item9', 'Item1'].sort(new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare),
        typeof Intl, Object.prototype.toString.call(Intl),
    ]";
    assert_eq!(
        strings(&mut session, code),
        "[\"26\u{a0}%\",\"1\u{202f}234\u{202f}567,891\",\"1.234.567,891\",\"1,234,567.891\",\
         \"1,234,567.891\",\"£1,234.50\",\"-1\u{202f}234,50\u{a0}€\",\"($5.00)\",\"$2,000\",\
         \"yesterday\",\"in 3 Std.\",\"il y a 2 mois\",\"one\",[\"few\",\"one\",\"two\",\"other\"],\
         \"a、b、c\",\"a, b o c\",-1,[\"a\",\"z\",\"ä\"],[\"a\",\"ä\",\"z\"],\
         [\"Item1\",\"item9\",\"item10\"],\"object\",\"[object Intl]\"]"
    );
}

#[test]
fn intl_formats_dates_in_locales_and_time_zones_as_node_does() {
    let mut session = js(JavaScriptOptions::default());
    let code = "(() => { const d = new Date(Date.UTC(2024, 2, 14, 16, 0, 5)); return [
        d.toLocaleDateString(), d.toLocaleTimeString(), d.toLocaleString(),
        d.toLocaleDateString('de-DE'), d.toLocaleDateString('ja-JP'), d.toLocaleDateString('en-GB'),
        new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'short' }).format(d),
        new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'America/New_York' }).format(d),
        new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'Europe/Berlin' }).format(d),
        d.toLocaleString('en-US', { timeZone: 'Asia/Kolkata', timeZoneName: 'long' }),
        new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric' }).formatToParts(d),
        new Date(NaN).toLocaleString(),
        new Intl.DateTimeFormat().resolvedOptions().timeZone,
    ]; })()";
    assert_eq!(
        strings(&mut session, code),
        "[\"3/14/2024\",\"4:00:05 PM\",\"3/14/2024, 4:00:05 PM\",\"14.3.2024\",\"2024/3/14\",\
         \"14/03/2024\",\"Thursday, March 14, 2024 at 4:00 PM\",\"Mar 14, 2024, 12:00 PM\",\
         \"14. März 2024\",\"3/14/2024, 9:30:05 PM India Standard Time\",\
         [{\"type\":\"month\",\"value\":\"March\"},{\"type\":\"literal\",\"value\":\" \"},\
         {\"type\":\"day\",\"value\":\"14\"}],\"Invalid Date\",\"UTC\"]"
    );
    let ranges = "(() => { const a = Date.UTC(2024, 2, 14), b = Date.UTC(2024, 2, 16), c = Date.UTC(2024, 5, 28);
        const f = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });
        return [f.formatRange(a, b), f.formatRange(a, c),
          new Date(a).toLocaleDateString('en-GB', { year: '2-digit', month: '2-digit', day: '2-digit' }),
          new Date(a).toLocaleDateString('en-US', { year: '2-digit', month: 'short' })]; })()";
    assert_eq!(
        strings(&mut session, ranges),
        // Node separates a range with thin spaces around the dash.
        "[\"Mar 14\u{2009}–\u{2009}16, 2024\",\"Mar 14\u{2009}–\u{2009}Jun 28, 2024\",\"14/03/24\",\"Mar 24\"]"
    );
    match session.run("new Intl.DateTimeFormat('en', { timeZone: 'Mars/Olympus_Mons' })") {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "RangeError"),
        other => panic!("expected a RangeError, got {other:?}"),
    }
}

#[test]
fn intl_refuses_bad_locales_currencies_and_options_as_node_does() {
    let mut session = js(JavaScriptOptions::default());
    for (code, type_name) in [
        ("new Intl.NumberFormat('not a locale!')", "RangeError"),
        (
            "new Intl.NumberFormat('en', { style: 'currency' })",
            "TypeError",
        ),
        (
            "new Intl.NumberFormat('en', { style: 'currency', currency: 'dollars' })",
            "RangeError",
        ),
        (
            "new Intl.NumberFormat('en', { maximumFractionDigits: 101 })",
            "RangeError",
        ),
        (
            "new Intl.RelativeTimeFormat('en').format(1, 'fortnight')",
            "RangeError",
        ),
        ("new Intl.ListFormat('en').format(['a', 1])", "TypeError"),
    ] {
        match session.run(code) {
            Err(Error::Guest(guest)) => assert_eq!(guest.type_name, type_name, "{code}"),
            other => panic!("{code}: expected a {type_name}, got {other:?}"),
        }
    }
    // What is not there yet says so.
    match session.run("new Intl.NumberFormat('en', { style: 'unit', unit: 'meter' })") {
        Err(Error::Guest(guest)) => {
            assert_eq!(guest.type_name, "RangeError");
            assert!(guest.message.contains("not supported"), "{}", guest.message);
        }
        other => panic!("expected a RangeError, got {other:?}"),
    }
    assert_eq!(session.run("1 + 1").unwrap(), Value::Int(2));
}

#[test]
fn a_guest_may_replace_intl_and_the_locale_methods() {
    let mut session = js(JavaScriptOptions::default());
    let code = "const before = (1234).toLocaleString('en-US');\n\
        Number.prototype.toLocaleString = function () { return 'mine'; };\n\
        globalThis.Intl = { mine: true };\n\
        [before, (1).toLocaleString(), Intl.mine]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Str("1,234".into()),
            Value::Str("mine".into()),
            Value::Bool(true),
        ])
    );
}

#[test]
fn intl_limits_are_clear_errors_and_the_session_lives() {
    let mut session = js(JavaScriptOptions::default());
    for (code, says) in [
        ("(10n ** 100000n).toLocaleString()", "too long to format"),
        (
            "new Date(8.64e15).toLocaleString('en', { timeZone: 'UTC' })",
            "year 9999",
        ),
        (
            "(1).toLocaleString('en', { maximumFractionDigits: 21 })",
            "out of range",
        ),
    ] {
        match session.run(code) {
            Err(Error::Guest(guest)) => {
                assert_eq!(guest.type_name, "RangeError", "{code}");
                assert!(guest.message.contains(says), "{code}: {}", guest.message);
            }
            other => panic!("{code}: expected a RangeError, got {other:?}"),
        }
    }
    assert_eq!(
        session
            .run("new Intl.ListFormat('en').format(Array.from({ length: 100000 }, (_, i) => 'x' + i)).length")
            .unwrap(),
        Value::Int(788_892)
    );
    assert_eq!(
        session
            .run("('a'.repeat(1e6)).localeCompare('a'.repeat(1e6) + 'b')")
            .unwrap(),
        Value::Int(-1)
    );
}

#[test]
fn hostile_guests_get_catchable_errors_from_intl_and_only_hurt_themselves() {
    let mut session = js(JavaScriptOptions::default());
    // Digits of four bytes each, cut to two digits.
    let adlam = "new Intl.DateTimeFormat('ff-Adlm-u-ca-japanese', { year: '2-digit' }).formatToParts(Date.UTC(2020, 6, 1)).length > 0";
    assert_eq!(session.run(adlam).unwrap(), Value::Bool(true));
    // Lone surrogates cross as U+FFFD.
    assert_eq!(
        strings(
            &mut session,
            "['a\\uD800'.localeCompare('b'), new Intl.ListFormat('en').format(['\\uD800', 'x'])]"
        ),
        "[-1,\"\u{fffd} and x\"]"
    );
    // A huge locale tag is refused before it is parsed.
    match session.run(
        "new Intl.NumberFormat('en-' + Array.from({ length: 200000 }, () => 'abcdef').join('-'))",
    ) {
        Err(Error::Guest(guest)) => assert_eq!(guest.type_name, "RangeError"),
        other => panic!("expected a RangeError, got {other:?}"),
    }
    // Options the guest planted on Object.prototype are not Intl's.
    let polluted =
        "Object.prototype.timeStyle = 'full'; Object.prototype.maximumSignificantDigits = 1;
        const r = [new Date(0).toLocaleDateString('en-US'), (1234.5).toLocaleString('en-US')];
        delete Object.prototype.timeStyle; delete Object.prototype.maximumSignificantDigits; r";
    assert_eq!(
        session.run(polluted).unwrap(),
        Value::List(vec![
            Value::Str("1/1/1970".into()),
            Value::Str("1,234.5".into())
        ])
    );
}

#[test]
fn intl_works_after_a_guest_freezes_the_prototypes_it_uses() {
    let mut session = js(JavaScriptOptions::default());
    let code = "Object.freeze(Number.prototype); Object.freeze(Date.prototype); Object.freeze(globalThis);
        [(1234.5).toLocaleString('de'), new Date(0).toLocaleDateString('de-DE'), typeof Intl, 'a'.localeCompare('b')]";
    assert_eq!(
        session.run(code).unwrap(),
        Value::List(vec![
            Value::Str("1.234,5".into()),
            Value::Str("1.1.1970".into()),
            Value::Str("object".into()),
            Value::Int(-1),
        ])
    );
}
