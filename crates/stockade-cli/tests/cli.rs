//! `stockade run` end to end: output, results and every exit status.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

const STOCKADE: &str = env!("CARGO_BIN_EXE_stockade");

static FILES: AtomicUsize = AtomicUsize::new(0);

fn script(name: &str, body: &[u8]) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "stockade-cli-{}-{}",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

fn stockade(args: &[&str]) -> Output {
    Command::new(STOCKADE).args(args).output().unwrap()
}

fn run_code(code: &str, extra: &[&str]) -> Output {
    let path = script("guest.py", code.as_bytes());
    let mut args = vec!["run"];
    args.extend_from_slice(extra);
    let path = path.to_str().unwrap().to_owned();
    args.push(&path);
    stockade(&args)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Every failure ends with one clear line on stderr.
fn last_line(output: &Output) -> String {
    stderr(output).lines().last().unwrap_or_default().to_owned()
}

#[test]
fn hello_example_runs() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/hello.py");
    let output = stockade(&["run", example]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "Hello, world!\nHello, stockade!\nsquares: {1: 1, 2: 4, 3: 9, 4: 16, 5: 25}\n55\n"
    );
}

#[test]
fn a_none_result_prints_nothing() {
    let output = run_code("x = 1", &[]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
}

#[test]
fn the_result_repr_is_printed() {
    let output = run_code("{'a': [1, 2.5, None], 'b': b'x'}", &[]);
    assert_eq!(stdout(&output), "{'a': [1, 2.5, None], 'b': b'x'}\n");
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let output = with_input(&["run", "-"], "print('from stdin')\n6 * 7\n");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "from stdin\n42\n");
}

#[test]
fn guest_output_streams_while_the_guest_still_runs() {
    let path = script("stream.py", b"print('first')\nwhile True:\n    pass\n");
    let mut child = Command::new(STOCKADE)
        .args(["run", "--max-duration", "5", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "first\n");
    assert!(
        child.try_wait().unwrap().is_none(),
        "the line arrived only after the run ended"
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_guest_exception_exits_1_with_the_traceback() {
    let output = run_code("def f():\n    raise ValueError('bad input')\nf()", &[]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.starts_with("Traceback (most recent call last):"),
        "{err}"
    );
    assert_eq!(last_line(&output), "ValueError: bad input");
}

#[test]
fn a_syntax_error_exits_2() {
    let output = run_code("def broken(:\n", &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        last_line(&output).starts_with("stockade: syntax error"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    for args in [
        &["run", "--bogus", "x.py"][..],
        &["run"],
        &["run", "--max-memory", "lots", "x.py"],
        &["explode"],
    ] {
        let output = stockade(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let err = stderr(&output);
        assert_eq!(err.lines().count(), 1, "{args:?} printed {err}");
        assert!(err.starts_with("stockade: usage:"), "{err}");
    }
}

#[test]
fn bad_input_files_exit_2_and_name_the_problem() {
    let missing = stockade(&["run", "/no/such/file.py"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(last_line(&missing).contains("cannot read /no/such/file.py"));

    let binary = script("binary.py", b"x = '\xff\xfe'\n");
    let output = stockade(&["run", binary.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        last_line(&output).contains("not valid UTF-8"),
        "{}",
        stderr(&output)
    );

    let unknown = script("notes.txt", b"1");
    let output = stockade(&["run", unknown.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(last_line(&output).contains("--lang"), "{}", stderr(&output));
}

#[test]
fn a_javascript_script_ending_in_a_statement_prints_no_undefined() {
    let path = script("statement.js", b"console.log(1);\nconst x = 2;");
    let output = stockade(&["run", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "1\n");
}

#[test]
fn a_javascript_file_runs() {
    let path = script(
        "guest.js",
        b"console.log('from js'); [1, 2, 3].map(n => n * 2)",
    );
    let output = stockade(&["run", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // The result as Node's REPL shows it.
    assert_eq!(stdout(&output), "from js\n[ 2, 4, 6 ]\n");
    let failing = script("fail.js", b"throw new TypeError('bad input')");
    let output = stockade(&["run", failing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(last_line(&output), "TypeError: bad input");
}

#[test]
fn max_duration_exits_3() {
    let output = run_code("while True:\n    pass", &["--max-duration", "0.3"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        last_line(&output).contains("max_duration"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_hard_timeout_exits_3() {
    let output = run_code("while True:\n    pass", &["--timeout", "0.5"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(
        last_line(&output).contains("request_timeout"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_memory_limit_exits_4() {
    let output = run_code("x = [0] * 10**10", &[]);
    assert_eq!(output.status.code(), Some(4));
    assert!(
        last_line(&output).contains("max_memory"),
        "{}",
        stderr(&output)
    );
    let output = run_code("x = 'a' * (200 * 1024 * 1024)", &["--max-memory", "64M"]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
}

#[test]
fn a_result_past_max_result_bytes_exits_4() {
    let output = run_code("'x' * 100000", &["--max-result-bytes", "64K"]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        last_line(&output).contains("max_result_bytes (65536 bytes)"),
        "{}",
        stderr(&output)
    );
    let output = run_code("'x' * 1000", &["--max-result-bytes", "64K"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn a_crashed_worker_exits_5() {
    let fake = script(
        "worker.sh",
        b"#!/bin/sh\necho 'fake worker died' >&2\nexit 9\n",
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = run_code(
        "1",
        &["--engine", "monty", "--worker", fake.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(5));
    let line = last_line(&output);
    assert!(line.starts_with("stockade: worker crashed"), "{line}");
    assert!(line.contains("fake worker died"), "{line}");
}

#[test]
fn doctor_shows_the_worker_and_the_sandbox_in_both_modes() {
    let output = stockade(&["doctor"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("worker: "), "{text}");
    let range = format!(
        "protocol: {}..={}",
        stockade::MIN_SUPPORTED_PROTOCOL_VERSION,
        stockade::PROTOCOL_VERSION
    );
    assert!(text.contains(&range), "{text}");
    assert!(text.contains("sandbox require: starts"), "{text}");
    assert!(text.contains("sandbox auto: starts"), "{text}");
    assert!(
        text.contains("seccomp") && text.contains("empty-root"),
        "{text}"
    );

    let output = stockade(&["doctor", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = stdout(&output);
    assert!(
        json.trim_start().starts_with('{') && json.trim_end().ends_with('}'),
        "{json}"
    );
    assert!(json.contains("\"require\": {\"starts\": true"), "{json}");
    assert!(json.contains("\"complete\": true"), "{json}");
}

#[test]
fn the_sandbox_mode_is_chosen_on_the_command_line() {
    for mode in ["require", "auto", "off"] {
        let output = run_code("6 * 7", &["--sandbox", mode]);
        assert_eq!(output.status.code(), Some(0), "{mode}: {}", stderr(&output));
        assert_eq!(stdout(&output), "42\n");
    }
    let output = run_code("1", &["--sandbox", "sometimes"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_worker_whose_host_dies_does_not_run_on() {
    let path = script("spin.py", b"while True:\n    pass\n");
    let mut cli = Command::new(STOCKADE)
        .args(["run", path.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Find the worker: the CLI's child.
    let worker = (0..200)
        .find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            let children =
                std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", cli.id())).ok()?;
            children.split_whitespace().next().map(str::to_owned)
        })
        .expect("the CLI started a worker");
    cli.kill().unwrap();
    cli.wait().unwrap();
    // The worker's watchdog notices it lost its parent within a few polls.
    let gone = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        match std::fs::read_to_string(format!("/proc/{worker}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        }
    });
    assert!(gone, "worker {worker} still runs after its host was killed");
}

#[test]
fn a_huge_int_result_is_summarised_not_printed_in_decimal() {
    let started = std::time::Instant::now();
    let output = run_code("2 ** 10 ** 8", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "<int of 100000001 bits>\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn javascript_flags_shape_the_guest_and_preload_runs_first() {
    let library = script("lib.js", b"globalThis.double = (n) => n * 2;");
    let module = script("geo.js", b"export const area = (w, h) => w * h;");
    let guest = script(
        "guest.mjs",
        b"import { area } from 'geo';\nexport default [double(21), Date.now(), Math.random() === Math.random(), typeof setTimeout, area(2, 3)];",
    );
    let module_flag = format!("geo={}", module.display());
    let output = stockade(&[
        "run",
        "--strict-eval",
        "--web-polyfills",
        "--clock",
        "86400",
        "--random-seed",
        "7",
        "--module",
        &module_flag,
        "--preload",
        library.to_str().unwrap(),
        guest.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "[ 42, 86400000, false, 'function', 6 ]\n");
    let eval = script("eval.js", b"eval('1')");
    let output = stockade(&["run", "--strict-eval", eval.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        last_line(&output),
        "EvalError: Code generation from strings disallowed for this context"
    );
}

#[test]
fn javascript_flags_on_a_python_guest_exit_2() {
    let output = run_code("1", &["--strict-eval"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        last_line(&output).contains("javascript options"),
        "{}",
        stderr(&output)
    );
    let output = run_code("1", &["--module", "nameless"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("NAME=FILE"), "{}", stderr(&output));
}

#[test]
fn bench_prints_cold_pooled_warm_and_host_call_figures() {
    let output = stockade(&["bench", "--samples", "5", "--pool-size", "1"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let table = stdout(&output);
    for row in [
        "cold start + first `1 + 1`",
        "pooled checkout + first `1 + 1`",
        "warm round trip",
        "host call from a guest loop",
    ] {
        assert!(table.contains(row), "{table}");
    }
}

/// Runs `stockade ARGS` with `input` on its standard input.
fn with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(STOCKADE)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn repl(args: &[&str], input: &str) -> Output {
    let mut all = vec!["repl"];
    all.extend_from_slice(args);
    with_input(&all, input)
}

#[test]
fn repl_keeps_state_prints_results_and_survives_guest_errors() {
    let output = repl(
        &[],
        "def f(x):\n    return x * 2\n\nf(21)\nraise ValueError('oops')\nprint('after')\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "42\nafter\n");
    assert!(stderr(&output).contains("ValueError: oops"));
    let output = repl(
        &["--lang", "javascript"],
        "function f(x) {\n  return x * 2;\n}\nf(21)\nthrow new Error('bad')\n[1, 2]\n",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // As in Node's REPL, a declaration shows undefined.
    assert_eq!(stdout(&output), "undefined\n42\n[ 1, 2 ]\n");
    assert!(stderr(&output).contains("Error: bad"));
}

#[test]
fn repl_ends_with_the_limit_status_when_the_session_is_lost() {
    let output = repl(&["--timeout", "0.5"], "x = 1\nwhile True:\n    pass\n\nx\n");
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(
        last_line(&output).contains("request_timeout"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn run_with_engine_cpython_runs_real_python() {
    let code = "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    @property\n    def double(self):\n        return self.x * 2\nprint(P(21).double)\n";
    let output = run_code(code, &["--engine", "cpython", "--sandbox", "require"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "42\n");
    // monty does not have method decorators: the same file fails there.
    let output = run_code(code, &["--engine", "monty"]);
    assert_ne!(output.status.code(), Some(0));
}

#[test]
fn a_missing_python_interpreter_is_a_clear_configuration_error() {
    let output = run_code(
        "1",
        &["--engine", "cpython", "--python", "/nonexistent/python3"],
    );
    assert_ne!(output.status.code(), Some(0));
    let line = last_line(&output);
    assert!(line.contains("/nonexistent/python3"), "{line}");
    assert!(line.contains("engine=\"monty\""), "{line}");
}

#[test]
fn doctor_shows_whether_the_cpython_engine_runs_here() {
    let output = stockade(&["doctor"]);
    let text = stdout(&output);
    assert!(text.contains("cpython interpreter: "), "{text}");
    assert!(
        text.contains("engine cpython: starts under require (python (cpython 3."),
        "{text}"
    );
    let output = stockade(&["doctor", "--python", "/nonexistent/python3"]);
    let text = stdout(&output);
    assert!(
        text.contains("engine cpython: not available") && text.contains("run on monty instead"),
        "{text}"
    );
    let output = stockade(&["doctor", "--json"]);
    assert!(stdout(&output).contains("\"cpython\": {\"available\": true"));
}

#[test]
fn control_characters_a_guest_writes_never_reach_the_report_line() {
    let code = "import os, signal\n\
        os.write(2, b'x\\n\\x1b]0;title\\x07\\x1b[31mstockade: success \\r\\n')\n\
        os.kill(os.getpid(), signal.SIGSEGV)\n\
        import time\n\
        time.sleep(5)\n";
    // (The signal may land on another thread of the worker: the guest
    // waits for it.)
    let output = run_code(code, &["--engine", "cpython"]);
    assert_eq!(output.status.code(), Some(5));
    let line = last_line(&output);
    assert!(line.starts_with("stockade: worker crashed"), "{line}");
    assert!(
        !line.contains('\u{1b}') && !line.contains('\u{7}'),
        "{line:?}"
    );
    assert!(
        line.contains("\\u{1b}"),
        "the escape is shown as text: {line}"
    );
}

#[test]
fn run_with_mounts_reads_an_upload_and_writes_a_report() {
    let uploads = script("sales.csv", b"region,amount\nnorth,120\nsouth,80\n");
    let uploads = uploads.parent().unwrap().to_str().unwrap().to_owned();
    let reports = script("keep", b"");
    let reports = reports.parent().unwrap().to_str().unwrap().to_owned();
    let code = "from pathlib import Path\n\
        rows = Path('/data/sales.csv').read_text().splitlines()[1:]\n\
        total = sum(int(row.split(',')[1]) for row in rows)\n\
        Path('/out/total.txt').write_text(str(total))\n\
        print('total', total)\n";
    let output = run_code(
        code,
        &[
            "--engine",
            "monty",
            "--mount",
            &format!("{uploads}:/data"),
            "--mount",
            &format!("{reports}:/out:rw"),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("total 200"));
    assert_eq!(
        std::fs::read_to_string(format!("{reports}/total.txt")).unwrap(),
        "200"
    );
    // Read only unless asked: a write to /data is refused (exit 1).
    let output = run_code(
        "from pathlib import Path\nPath('/data/x').write_text('no')\n",
        &["--engine", "monty", "--mount", &format!("{uploads}:/data")],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("PermissionError"),
        "{}",
        stderr(&output)
    );
    // A mount of a missing directory is a usage error naming it (exit 2).
    let output = run_code("1", &["--mount", "/no/such/dir:/data"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("/no/such/dir"),
        "{}",
        stderr(&output)
    );
}

/// A reader that stops early (`| head -1`, `| grep -q`) closes stdout while
/// the guest still prints and before the result is shown: the command must
/// neither panic nor report that as the guest's failure.
#[test]
fn a_closed_stdout_ends_no_run_in_a_panic() {
    let path = script(
        "chatty.py",
        b"import time\nprint('first')\ntime.sleep(0.3)\nfor i in range(1000):\n    print(i)\n{'done': True}\n",
    );
    let mut child = Command::new(STOCKADE)
        .args(["run", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "first\n");
    // The reader goes away, as `head -1` does, while the guest sleeps.
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = stderr(&output);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

/// `--outputs DIR`: each rich output the guest shows becomes a file the
/// host names (output-N.EXT, never a name the guest chose), each named on
/// stderr; without it, each output's text form is printed.
#[test]
fn outputs_are_written_to_the_outputs_directory_and_named_on_stderr() {
    let code = "display(\"<svg xmlns='http://www.w3.org/2000/svg'/>\")\n\
        print('between')\n\
        display(b'\\x89PNG\\r\\n\\x1a\\n' + bytes(4))\n";
    let dir = std::env::temp_dir().join(format!("stockade-cli-outputs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = run_code(
        code,
        &["--engine", "cpython", "--outputs", dir.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "between\n");
    let svg = dir.join("output-1.svg");
    let png = dir.join("output-2.png");
    assert_eq!(
        std::fs::read(&svg).unwrap(),
        b"<svg xmlns='http://www.w3.org/2000/svg'/>"
    );
    assert_eq!(std::fs::read(&png).unwrap(), b"\x89PNG\r\n\x1a\n\0\0\0\0");
    let err = stderr(&output);
    assert!(
        err.contains(&format!(
            "output 1 (image/svg+xml, 41 bytes): {}",
            svg.display()
        )) && err.contains(&format!(
            "output 2 (image/png, 12 bytes): {}",
            png.display()
        )),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // Without the flag the text form is printed, with a hint for images.
    let output = run_code(code, &["--engine", "cpython"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "\"<svg xmlns='http://www.w3.org/2000/svg'/>\"\nbetween\n<image/png, 12 bytes>\n"
    );
    assert!(
        stderr(&output).contains("pass --outputs DIR"),
        "{}",
        stderr(&output)
    );
}

/// `stockade run` honours a PEP 723 `# /// script` block only for the
/// packages `--allow-script-package` names, as `uv run` installs them.
#[test]
fn a_script_blocks_packages_are_installed_only_when_allowed() {
    assert!(
        std::env::var_os("STOCKADE_UV").is_some(),
        "this test installs packages with uv: set STOCKADE_UV (scripts/test sets it to .venv/bin/uv)"
    );
    let code = "# /// script\n# dependencies = [\"tabulate==0.10.0\"]\n# ///\nimport tabulate\nprint(tabulate.__version__)\n";
    let allowed = run_code(
        code,
        &["--engine", "cpython", "--allow-script-package", "tabulate"],
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert_eq!(stdout(&allowed), "0.10.0\n");
    let refused = run_code(
        code,
        &["--engine", "cpython", "--allow-script-package", "pandas"],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        last_line(&refused).contains("which script_packages does not allow"),
        "{}",
        stderr(&refused)
    );
    let comment = run_code(code, &["--engine", "cpython"]);
    assert_eq!(comment.status.code(), Some(1));
    assert!(
        stderr(&comment).contains("No module named 'tabulate'"),
        "{}",
        stderr(&comment)
    );
}

/// Sizes on the command line are in the library's units (binary: 200M is
/// 200 MiB), so the documented maximum of `--max-file-memory` is taken, a
/// byte more is refused naming the option, and a file larger than the
/// default of 100M is read whole once the limit allows it.
#[test]
fn max_file_memory_takes_the_documented_maximum_and_no_more() {
    let data = script("big.bin", &vec![b'x'; 101 << 20]);
    let dir = data.parent().unwrap().to_str().unwrap().to_owned();
    let mount = format!("{dir}:/data");
    let read = "from pathlib import Path\nprint(len(Path('/data/big.bin').read_bytes()))\n";
    let at_default = run_code(read, &["--engine", "monty", "--mount", &mount]);
    assert_eq!(at_default.status.code(), Some(1), "{}", stderr(&at_default));
    assert!(
        stderr(&at_default).contains("MemoryError"),
        "{}",
        stderr(&at_default)
    );
    let at_most = run_code(
        read,
        &[
            "--engine",
            "monty",
            "--mount",
            &mount,
            "--max-file-memory",
            "200M",
        ],
    );
    assert_eq!(at_most.status.code(), Some(0), "{}", stderr(&at_most));
    assert_eq!(stdout(&at_most), format!("{}\n", 101 << 20));
    let past = run_code("1", &["--max-file-memory", &format!("{}", (200 << 20) + 1)]);
    assert_eq!(past.status.code(), Some(2), "{}", stderr(&past));
    assert!(
        last_line(&past).contains("max_file_memory"),
        "{}",
        stderr(&past)
    );
}

/// `--max-scratch 0` is what its help says: no scratch directory, not a
/// usage error; a zero memory ceiling is still refused.
#[test]
fn max_scratch_of_zero_gives_no_scratch_and_a_zero_ceiling_is_refused() {
    let write = "from pathlib import Path\nPath('/tmp/a.txt').write_text('a')\nprint('written')\n";
    let output = run_code(write, &["--engine", "monty"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run_code(write, &["--engine", "monty", "--max-scratch", "0"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("PermissionError"),
        "{}",
        stderr(&output)
    );
    let output = run_code("1", &["--max-memory", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        last_line(&output).contains("greater than zero"),
        "{}",
        stderr(&output)
    );
}

/// `--worker` names the monty and JavaScript engines' worker binary: given
/// for a Python guest on the cpython engine, which never starts it, it is
/// refused with a word on what to do, not ignored; with `--engine monty`,
/// or for JavaScript, it is used.
#[test]
fn a_worker_the_cpython_engine_would_not_use_is_refused_naming_it() {
    let worker = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../target/release/stockade-worker"
    );
    let output = run_code("print('ran')", &["--engine", "cpython", "--worker", worker]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        last_line(&output).contains("--worker"),
        "{}",
        stderr(&output)
    );
    assert!(
        last_line(&output).contains("--engine monty"),
        "{}",
        stderr(&output)
    );
    let output = run_code("print('ran')", &["--engine", "monty", "--worker", worker]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "ran\n");
    let missing = run_code(
        "print('ran')",
        &["--engine", "monty", "--worker", "/no/such/worker"],
    );
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    let path = script("hello.js", b"console.log('ran')");
    let output = stockade(&["run", "--worker", worker, path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}
