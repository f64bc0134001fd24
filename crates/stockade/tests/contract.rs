//! The options table (`stockade::contract`) against everything that
//! spells it again: docs/options.md (generated from it), docs/limits.md's
//! defaults, Python's `Limits`, and Node's declarations in index.d.ts.
//! Names and numbers both: a default written in one place and changed in
//! another fails here.

use std::path::{Path, PathBuf};

use stockade::contract::{
    Engines, Kind, OPTIONS, OptionDefault, OptionSpec, camel_case, options_page,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn code(name: &str) -> String {
    format!("`{name}`")
}

#[test]
fn the_options_page_is_the_tables() {
    let page = options_page();
    let path = root().join("docs/options.md");
    if std::env::var_os("STOCKADE_REGENERATE").is_some() {
        std::fs::write(&path, &page).expect("docs/options.md is writable");
    }
    let written = read("docs/options.md");
    assert!(
        written == page,
        "docs/options.md is not what crates/stockade/src/contract/table.rs gives; \
         run STOCKADE_REGENERATE=1 cargo test --release -p stockade --test contract"
    );
}

/// The cells of each row of the table under `heading` in `doc`.
fn table_rows<'a>(doc: &'a str, heading: &str) -> Vec<Vec<&'a str>> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    doc[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| line.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect()
}

/// The option a limits.md row is about: its first cell starts with the
/// option's name and a colon, or is the name; past an engine's name for
/// an option of that engine only (`CPython: max_duration` is "as for
/// Python").
fn row_option(first: &str) -> Option<&'static OptionSpec> {
    let (engines, first) = match first.split_once(": ") {
        Some(("JavaScript", rest)) => (Engines::JavaScript, rest),
        Some(("CPython", rest)) => (Engines::CPython, rest),
        _ => (Engines::All, first),
    };
    OPTIONS.iter().find(|spec| {
        let name = code(spec.name);
        spec.engines == engines && (first == name || first.starts_with(&format!("{name}:")))
    })
}

#[test]
fn every_default_in_limits_md_is_the_tables() {
    let doc = read("docs/limits.md");
    let mut seen = Vec::new();
    for row in table_rows(&doc, "## Limits") {
        let Some(spec) = row_option(row[0]) else {
            continue;
        };
        let default = spec.default_text(code);
        assert!(
            row[1].starts_with(&default),
            "docs/limits.md gives {}'s default as {:?}; the table's is {default:?}",
            spec.name,
            row[1]
        );
        if let Some((_, most)) = spec.range
            && most != u64::MAX
            && most != u64::from(u32::MAX)
        {
            let most = stockade::contract::bytes_text(most);
            assert!(
                spec.kind != Kind::Bytes || row[1].contains(&most),
                "docs/limits.md does not give {}'s maximum, {most}",
                spec.name
            );
        }
        seen.push(spec.name);
    }
    // Every number a session's caller may set that bounds something has its row.
    for spec in OPTIONS {
        let bounds = matches!(spec.kind, Kind::Bytes | Kind::Count | Kind::Seconds)
            && spec.name != "random_seed";
        assert!(
            !bounds || seen.contains(&spec.name),
            "docs/limits.md has no row for {}",
            spec.name
        );
    }
}

/// Each field of the class or interface that starts at `opening` in
/// `source`, with the comment above it: (name, declaration, comment).
fn fields<'a>(
    source: &'a str,
    opening: &str,
    comment_prefix: &str,
) -> Vec<(&'a str, &'a str, String)> {
    let start = source
        .find(opening)
        .unwrap_or_else(|| panic!("no {opening}"));
    let mut out = Vec::new();
    let mut comment = String::new();
    for line in source[start..].lines().skip(1) {
        let line = line.trim();
        if line == "}" || line.starts_with("class ") || line.starts_with("def ") {
            break;
        }
        if line.is_empty() {
            continue;
        }
        if let Some(text) = line.strip_prefix(comment_prefix) {
            comment.push_str(text.trim_start_matches('*').trim_end_matches("*/").trim());
            comment.push(' ');
            continue;
        }
        if let Some(text) = line.strip_prefix("/**").or_else(|| line.strip_prefix('*')) {
            comment.push_str(text.trim_end_matches("*/").trim());
            comment.push(' ');
            continue;
        }
        if let Some((name, declaration)) = line.split_once(':') {
            let name = name.trim().trim_end_matches('?');
            if !name.starts_with('[') {
                out.push((name, declaration.trim(), std::mem::take(&mut comment)));
            }
        }
        comment.clear();
    }
    out
}

/// The comment names the table's default, `(default X)` or `(default: X)`,
/// where the table has a value to give.
fn check_default(
    binding: &str,
    spec: &OptionSpec,
    shown: &str,
    comment: &str,
    spell: fn(&str) -> String,
) {
    // What holds when an option is unset is each binding's to say: the
    // Node package's worker is its own.
    if matches!(spec.default, OptionDefault::Unset(_)) {
        return;
    }
    let default = spec.default_text(spell);
    assert!(
        comment.contains(&format!("(default {default}"))
            || comment.contains(&format!("(default: {default}")),
        "{binding}: {shown}'s comment should give its default as the table does, \
         \"(default {default})\": {comment:?}"
    );
}

#[test]
fn pythons_limits_and_their_defaults_are_the_tables() {
    let source = read("crates/stockade-python/python/stockade/_sandbox.py");
    let declared = fields(&source, "class Limits:", "#:");
    let names: Vec<&str> = declared.iter().map(|(name, _, _)| *name).collect();
    let limits: Vec<&str> = OPTIONS
        .iter()
        .filter(|spec| spec.limit)
        .map(|spec| spec.name)
        .collect();
    assert_eq!(
        names, limits,
        "stockade.Limits holds the table's limits, in its order"
    );
    for (name, declaration, comment) in &declared {
        let spec = stockade::contract::spec(name).expect("a field of Limits is an option");
        let python_type = match spec.kind {
            Kind::Seconds => "Optional[float]",
            _ => "Optional[int]",
        };
        assert!(
            declaration.starts_with(python_type),
            "Limits.{name} is {declaration}, not {python_type}"
        );
        check_default("stockade.Limits", spec, name, comment, str::to_owned);
    }
}

/// The TypeScript type of an option of `kind`.
fn typescript(kind: Kind) -> String {
    match kind {
        Kind::Seconds | Kind::Bytes | Kind::Count => "number".into(),
        Kind::Flag => "boolean".into(),
        Kind::Text => "string".into(),
        Kind::Texts => "string[]".into(),
        Kind::Pairs => "Record<string, string>".into(),
        Kind::Clock => "\"real\" | number".into(),
        Kind::Word(words) => words
            .iter()
            .map(|word| format!("\"{word}\""))
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

#[test]
fn nodes_declarations_and_their_defaults_are_the_tables() {
    let source = read("crates/stockade-node/index.d.ts");
    let limits = fields(&source, "export interface Limits {", "//");
    let options = fields(&source, "export interface SandboxOptions {", "//");
    for spec in OPTIONS {
        let name = camel_case(spec.name);
        let (interface, declared) = if spec.limit {
            ("Limits", &limits)
        } else {
            ("SandboxOptions", &options)
        };
        let Some((_, declaration, comment)) = declared.iter().find(|(field, _, _)| *field == name)
        else {
            panic!("index.d.ts: {interface} does not declare {name}");
        };
        let wanted = format!("{};", typescript(spec.kind));
        assert_eq!(*declaration, wanted, "index.d.ts: {interface}.{name}");
        check_default("index.d.ts", spec, &name, comment, camel_case);
    }
}
