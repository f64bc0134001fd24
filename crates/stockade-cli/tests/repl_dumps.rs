//! `stockade repl --save/--load`: a session sealed into a file at the end
//! of input and taken up again by another process, with the key from
//! `--key-file` or `STOCKADE_DUMP_KEY`.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const STOCKADE: &str = env!("CARGO_BIN_EXE_stockade");
const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef";

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("stockade-repl-dumps-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `stockade repl ARGS` with `input` (Python on monty unless `--lang` is
/// given), the dump key in the environment unless `key` is None.
fn repl(args: &[&str], input: &str, key: Option<&str>) -> Output {
    let mut command = Command::new(STOCKADE);
    command
        .arg("repl")
        .args(args)
        // Python sessions here run on monty, whose sessions dump as images.
        .args(if args.contains(&"--lang") {
            &[][..]
        } else {
            &["--engine", "monty"][..]
        })
        .env_remove("STOCKADE_DUMP_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(key) = key {
        command.env("STOCKADE_DUMP_KEY", key);
    }
    let mut child = command.spawn().unwrap();
    // A REPL that refuses its dump exits without reading its input.
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn repl_save_then_load_goes_on_in_another_process() {
    let dir = scratch("roundtrip");
    let file = dir.join("session.dump");
    let saved = repl(
        &["--save", path(&file)],
        "def greet(n):\n    return 'hi ' + n\n\ncount = 41\n",
        Some(KEY),
    );
    assert_eq!(saved.status.code(), Some(0), "{}", text(&saved.stderr));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let loaded = repl(
        &["--load", path(&file)],
        "count + 1\ngreet('there')\n",
        Some(KEY),
    );
    assert_eq!(loaded.status.code(), Some(0), "{}", text(&loaded.stderr));
    assert_eq!(text(&loaded.stdout), "42\n'hi there'\n");
    // The same key from a file, under the same context.
    let key_file = dir.join("key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let loaded = repl(
        &["--load", path(&file), "--key-file", path(&key_file)],
        "count\n",
        None,
    );
    assert_eq!(text(&loaded.stdout), "41\n", "{}", text(&loaded.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_javascript_repl_saves_and_loads_by_its_journal() {
    let dir = scratch("javascript");
    let file = dir.join("session.dump");
    let js = ["--lang", "javascript", "--save", path(&file)];
    let saved = repl(
        &js,
        "globalThis.t = Date.now()\nglobalThis.r = Math.random()\n",
        Some(KEY),
    );
    assert_eq!(saved.status.code(), Some(0), "{}", text(&saved.stderr));
    let first = text(&saved.stdout);
    let loaded = repl(
        &["--lang", "javascript", "--load", path(&file)],
        "t\nr\n",
        Some(KEY),
    );
    assert_eq!(loaded.status.code(), Some(0), "{}", text(&loaded.stderr));
    // The replayed session holds what the first one printed as it set them.
    assert_eq!(text(&loaded.stdout), first);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn repl_load_refuses_another_key_context_or_a_damaged_file() {
    let dir = scratch("refusals");
    let file = dir.join("session.dump");
    let saved = repl(&["--save", path(&file)], "x = 1\n", Some(KEY));
    assert_eq!(saved.status.code(), Some(0), "{}", text(&saved.stderr));
    let other_key = "fedcba9876543210fedcba9876543210fedcba98";
    let refused = [
        repl(&["--load", path(&file)], "x\n", Some(other_key)),
        repl(
            &["--load", path(&file), "--dump-context", "someone else"],
            "x\n",
            Some(KEY),
        ),
    ];
    for output in refused {
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        assert!(
            text(&output.stderr).contains("dump rejected"),
            "{}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stdout), "");
    }
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let damaged = repl(&["--load", path(&file)], "x\n", Some(KEY));
    assert_eq!(damaged.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn repl_save_needs_a_key_of_32_bytes() {
    let dir = scratch("keys");
    let file = dir.join("session.dump");
    let missing = repl(&["--save", path(&file)], "x = 1\n", None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing.stderr).contains("STOCKADE_DUMP_KEY"),
        "{}",
        text(&missing.stderr)
    );
    let short = repl(&["--save", path(&file)], "x = 1\n", Some("too short"));
    assert_eq!(short.status.code(), Some(2));
    assert!(
        text(&short.stderr).contains("32"),
        "{}",
        text(&short.stderr)
    );
    assert!(!file.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
