//! The loopback server the remote variants of the engine tests run
//! against: one `stockade serve` per test binary, from the workspace's
//! build of the CLI beside this test's binary, started on first use and
//! ended with the test process (its parent-death signal). A test thread
//! marked remote (`remotely`) gets sessions on it from `maybe_remote`.

#![allow(dead_code)]

use std::cell::Cell;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use stockade::SessionOptions;

const TOKEN: &str = "the-engine-tests-token-0123";

thread_local! {
    static REMOTE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `test` with this thread's sessions on the loopback server.
pub fn remotely(test: impl FnOnce()) {
    REMOTE.with(|remote| remote.set(true));
    test();
    REMOTE.with(|remote| remote.set(false));
}

/// `options`, on the loopback server when the thread is marked remote.
pub fn maybe_remote(options: SessionOptions) -> SessionOptions {
    if REMOTE.with(Cell::get) {
        options.remote(url().to_owned(), Some(TOKEN.to_owned()))
    } else {
        options
    }
}

/// Whether this thread's sessions are remote.
pub fn is_remote() -> bool {
    REMOTE.with(Cell::get)
}

fn cli() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/<test> → target/<profile>/stockade
    let cli = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("stockade"))
        .expect("the build directory");
    assert!(
        cli.exists(),
        "the remote tests need the stockade CLI at {}: build the workspace first (cargo build --release --workspace)",
        cli.display()
    );
    cli
}

fn url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        // The server's parent-death signal fires when the thread that
        // started it ends: a thread that waits for it starts it, so the
        // server lives exactly as long as this test process.
        std::thread::spawn(move || {
            let tokens =
                std::env::temp_dir().join(format!("stockade-engine-tests-{}", std::process::id()));
            std::fs::write(&tokens, format!("{TOKEN}\n")).expect("the token file");
            let mut command = Command::new(cli());
            command
                .args(["serve", "--listen", "127.0.0.1:0", "--tokens"])
                .arg(&tokens)
                .args(["--max-sessions", "1024"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit());
            // SAFETY: prctl is async-signal-safe and touches only the child.
            unsafe {
                command.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let mut child = command.spawn().expect("stockade serve starts");
            let stdout = child.stdout.take().expect("its stdout");
            let mut line = String::new();
            BufReader::new(stdout)
                .read_line(&mut line)
                .expect("where it listens");
            let url = line
                .trim()
                .strip_prefix("stockade serve: listening on ")
                .unwrap_or_else(|| panic!("unexpected line from the server: {line:?}"))
                .to_owned();
            sender.send(url).expect("the test waits for the URL");
            let _ = std::fs::remove_file(&tokens);
            // Waits as long as the server runs (the whole test process).
            let _ = child.wait();
        });
        receiver.recv().expect("the server's URL")
    })
}
