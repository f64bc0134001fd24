//! The Python corpus (benches/corpus/python: 60 ordinary Python 3.11
//! programs with CPython 3.11's output) through both Python engines: the
//! CPython engine must print what its interpreter prints natively on every
//! program; the monty engine's count is the one docs/compatibility.md
//! states.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use stockade::{Interpreter, Language, PrintStream, Session, SessionOptions};

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

/// What `code` printed on stdout in a new session, and whether it ran to
/// its end.
fn stdout_and_whether_it_ended(options: SessionOptions, code: &str) -> (String, bool) {
    let mut session = Session::new(options).expect("a CPython session starts");
    let out = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&out);
    session.on_print(move |stream, text| {
        if stream == PrintStream::Stdout {
            sink.lock().unwrap().push_str(text);
        }
    });
    let ended = session.run(code).is_ok();
    let printed = out.lock().unwrap().clone();
    (printed, ended)
}

/// What `program` prints on stdout when the interpreter runs it itself
/// (isolated, as the engine runs it), and whether it ran to its end.
fn natively(python: &Path, program: &Path) -> (String, bool) {
    let out = std::process::Command::new(python)
        .args(["-I", "-S"])
        .arg(program)
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", python.display()));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

/// On whichever interpreter the engine runs on here (`python3` on PATH;
/// the test command runs this on each one the machine has, 3.9 to 3.13),
/// every program prints what that interpreter prints running it itself.
/// (Their `.out` files are 3.11's: later versions round some sums
/// differently, earlier ones lack some functions.)
#[test]
fn every_corpus_program_gives_its_interpreters_own_output_on_the_cpython_engine() {
    let python = stockade::find_python(None).expect("a CPython for the engine");
    let mut failed = Vec::new();
    for program in corpus() {
        let name = program.file_stem().unwrap().to_string_lossy().into_owned();
        let (expected, ran) = natively(&python.executable, &program);
        let code = std::fs::read_to_string(&program).unwrap();
        let options = SessionOptions::new(Language::Python)
            .engine(Interpreter::CPython)
            .max_duration(Duration::from_secs(20));
        let (printed, ended) = stdout_and_whether_it_ended(options, &code);
        if printed != expected || ran != ended {
            failed.push((name, ran, ended));
        }
    }
    assert!(
        failed.is_empty(),
        "CPython {}: (program, ran natively, ran in the engine) that differ: {failed:#?}",
        python.version
    );
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
