//! The data-analysis corpus (benches/corpus/data: thirty programs of the
//! kind agents write for a CSV, with pandas, numpy, matplotlib, scipy,
//! scikit-learn, polars and duckdb) in the sandbox under `require`: each
//! must print what the host's interpreter prints running it with the same
//! packages. The packages come from PyPI through the package layer
//! (`STOCKADE_UV`, which scripts/test sets; uv and the package cache keep
//! them between runs).

// Its corpus listing is for the other corpora's sixty-program folders.
#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use stockade::{
    Interpreter, Language, Mount, MountMode, SandboxMode, Session, SessionOptions, Value,
};

/// What the corpus imports, pinned.
const PACKAGES: &[&str] = &[
    "numpy==2.4.6",
    "pandas==3.1.1",
    "matplotlib==3.11.2",
    "scipy==1.17.1",
    "scikit-learn==1.9.1",
    "polars==2.1.0",
    "duckdb==2.0.1",
    "pillow==13.0.0",
    "openpyxl==3.1.5",
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/corpus/data")
}

fn programs() -> Vec<PathBuf> {
    let mut programs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "py"))
        .collect();
    programs.sort();
    assert!(programs.len() >= 30, "{} programs", programs.len());
    programs
}

fn options() -> SessionOptions {
    assert!(
        std::env::var_os("STOCKADE_UV").is_some(),
        "the corpus installs its packages with uv: set STOCKADE_UV (scripts/test sets it to .venv/bin/uv)"
    );
    let mut options = SessionOptions::new(Language::Python)
        .engine(Interpreter::CPython)
        .sandbox(SandboxMode::Require)
        .max_duration(Duration::from_secs(60))
        .packages(PACKAGES.iter().map(|p| (*p).to_owned()).collect());
    options.mounts = vec![
        Mount::new(
            "/data",
            corpus_dir().canonicalize().unwrap(),
            MountMode::ReadOnly,
        )
        .unwrap(),
    ];
    options
}

/// The package directory the package layer made (the host runs from it).
fn site_packages() -> String {
    let mut session = Session::new(options()).expect("starts");
    match session
        .run("import os, numpy\nos.path.dirname(os.path.dirname(numpy.__file__))")
        .expect("numpy imports")
    {
        Value::Str(dir) => dir,
        other => panic!("{other:?}"),
    }
}

/// What the host's interpreter prints running `program` with `site` on
/// its path: `/data` read from the corpus folder, `/tmp` a directory of
/// its own, which is also its working directory.
fn on_the_host(program: &Path, site: &str, scratch: &Path) -> String {
    // Through placeholders: either directory may itself lie under /tmp.
    let code = std::fs::read_to_string(program)
        .unwrap()
        .replace("/data/", "\u{0}DATA\u{0}")
        .replace("/tmp/", "\u{0}TMP\u{0}")
        .replace(
            "\u{0}DATA\u{0}",
            &format!("{}/", corpus_dir().canonicalize().unwrap().display()),
        )
        .replace("\u{0}TMP\u{0}", &format!("{}/", scratch.display()));
    let file = scratch.join("program.py");
    std::fs::write(&file, code).unwrap();
    let python = stockade::find_python(None).expect("a Python interpreter");
    let out = Command::new(&python.executable)
        .args([
            "-I",
            "-c",
            "import sys, runpy; sys.path.append(sys.argv[1]); runpy.run_path(sys.argv[2], run_name='__main__')",
            site,
        ])
        .arg(&file)
        .current_dir(scratch)
        .env("MPLBACKEND", "agg")
        .output()
        .expect("the host's interpreter runs");
    assert!(
        out.status.success(),
        "{} fails on the host: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_data_program_prints_in_the_sandbox_what_it_prints_on_the_host() {
    let site = site_packages();
    let mut failed = Vec::new();
    for program in programs() {
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        let scratch = std::env::temp_dir().join(format!(
            "stockade-data-corpus-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).unwrap();
        let expected = on_the_host(&program, &site, &scratch);
        let _ = std::fs::remove_dir_all(&scratch);
        let code = std::fs::read_to_string(&program).unwrap();
        match common::stdout_of(options(), &code) {
            Ok(printed) if printed == expected => {}
            Ok(printed) => failed.push(format!(
                "{name}: printed\n{printed}\ninstead of\n{expected}"
            )),
            Err(err) => failed.push(format!("{name}: {err}")),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
