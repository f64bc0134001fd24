//! The Python corpus (benches/corpus/python: 60 ordinary Python 3.11
//! programs with CPython's own output) through both Python engines: the
//! CPython engine must match on every program; the monty engine's count is
//! the one docs/compatibility.md states.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use stockade::{Interpreter, Language, SessionOptions};

fn corpus() -> Vec<PathBuf> {
    common::corpus("python", "py")
}

/// What a program printed on stdout under `engine`, or why it failed.
fn run(engine: Interpreter, program: &Path) -> Result<String, String> {
    let code = std::fs::read_to_string(program).map_err(|e| e.to_string())?;
    let options = SessionOptions::new(Language::Python)
        .engine(engine)
        .max_duration(Duration::from_secs(20));
    common::stdout_of(options, &code)
}

/// Programs whose output under `engine` is CPython's, and the others with
/// the first line of what went wrong.
fn tally(engine: Interpreter) -> (usize, Vec<(String, String)>) {
    let mut matched = 0;
    let mut failed = Vec::new();
    for program in corpus() {
        let expected = std::fs::read_to_string(program.with_extension("out")).unwrap();
        let name = program.file_stem().unwrap().to_string_lossy().into_owned();
        match run(engine, &program) {
            Ok(printed) if printed == expected => matched += 1,
            Ok(_) => failed.push((name, "different output".into())),
            Err(err) => failed.push((name, err.lines().next().unwrap_or("").to_owned())),
        }
    }
    (matched, failed)
}

#[test]
fn every_corpus_program_gives_cpythons_output_on_the_cpython_engine() {
    let (matched, failed) = tally(Interpreter::CPython);
    assert!(failed.is_empty(), "{matched} matched; failed: {failed:#?}");
}

#[test]
fn the_monty_count_in_compatibility_md_is_current() {
    let (matched, failed) = tally(Interpreter::Monty);
    let total = corpus().len();
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/compatibility.md"),
    )
    .unwrap();
    let stated = format!("monty engine runs **{matched} of {total}**");
    assert!(
        doc.contains(&stated),
        "docs/compatibility.md should say \"{stated}\"; failing: {failed:#?}"
    );
}
