//! What the corpus tests share: the programs of one corpus folder, and
//! running one to get what it printed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stockade::{PrintStream, Session, SessionOptions};

/// The programs (files ending in `.extension`) in `benches/corpus/folder`,
/// in name order; there must be at least 60.
pub fn corpus(folder: &str, extension: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../benches/corpus")
        .join(folder);
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    programs.sort();
    assert!(
        programs.len() >= 60,
        "the corpus has {} programs",
        programs.len()
    );
    programs
}

/// What `code` printed on stdout in a new session with `options`, or the
/// error that ended it.
pub fn stdout_of(options: SessionOptions, code: &str) -> Result<String, String> {
    let mut session = Session::new(options).map_err(|e| e.to_string())?;
    let out = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&out);
    session.on_print(move |stream, text| {
        if stream == PrintStream::Stdout {
            sink.lock().unwrap().push_str(text);
        }
    });
    session.run(code).map_err(|e| e.to_string())?;
    let printed = out.lock().unwrap().clone();
    Ok(printed)
}
