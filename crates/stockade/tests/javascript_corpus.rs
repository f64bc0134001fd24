//! The JavaScript corpus (benches/corpus/javascript: 64 ordinary programs
//! of the kind a model writes, with Node 20's own stdout) on the QuickJS
//! worker: every program prints byte for byte what Node prints, except the
//! ones docs/compatibility.md lists, each with its reason.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use stockade::{JavaScriptOptions, Language, SessionOptions};

/// The programs docs/compatibility.md lists (as `NAME.js`) as printing
/// something other than Node, by file stem.
const LISTED: &[&str] = &["57_intl_thousands"];

fn corpus() -> Vec<PathBuf> {
    common::corpus("javascript", "js")
}

/// What a program printed on stdout, or why it failed. The programs use
/// timers, `queueMicrotask` and `structuredClone` as Node code does, which
/// the web polyfills provide.
fn run(program: &Path) -> Result<String, String> {
    let code = std::fs::read_to_string(program).map_err(|e| e.to_string())?;
    let options = SessionOptions::new(Language::JavaScript)
        .javascript(JavaScriptOptions {
            web_polyfills: true,
            ..JavaScriptOptions::default()
        })
        .max_duration(Duration::from_secs(20));
    common::stdout_of(options, &code)
}

#[test]
fn every_corpus_program_prints_what_node_prints_but_the_listed_ones() {
    let mut differing = Vec::new();
    for program in corpus() {
        let expected = std::fs::read_to_string(program.with_extension("out")).unwrap();
        let name = program.file_stem().unwrap().to_string_lossy().into_owned();
        match run(&program) {
            Ok(printed) if printed == expected => {}
            Ok(_) => differing.push((name, "different output".to_owned())),
            Err(err) => differing.push((name, err.lines().next().unwrap_or("").to_owned())),
        }
    }
    let names: Vec<&str> = differing.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names, LISTED,
        "programs that differ from Node: {differing:#?}"
    );
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/compatibility.md"),
    )
    .unwrap();
    for name in LISTED {
        assert!(
            doc.contains(&format!("`{name}.js`")),
            "docs/compatibility.md should list `{name}` and why it differs"
        );
    }
}
