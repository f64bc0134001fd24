//! Guest output to this process's standard output and error, and its
//! rich outputs (charts, tables) to files under `--outputs DIR`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use stockade::{Output, PrintStream};

/// Sends guest output to this process's stdout and stderr. A closed stdout
/// (say, piped into head) must not stop the session from being reported,
/// so write errors are ignored.
pub fn print_to_stdio(stream: PrintStream, text: &str) {
    let _ = match stream {
        PrintStream::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
        PrintStream::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
    };
}

/// `println!` for everything the command itself prints. A reader that
/// stops early (`stockade run f.py | head -1`, `grep -q`) closes the pipe;
/// `println!` would panic there, and the command's exit status must say how
/// the guest ended, not that stdout went away.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}
pub(crate) use outln;

/// Where the guest's rich outputs go, shared by `run` and `repl`.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write each rich output the guest shows (a matplotlib figure as
    /// PNG, display(df) as HTML) to DIR as output-N.EXT, and name each
    /// file on stderr. Without it, each output's text form is printed.
    #[arg(long = "outputs", value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl OutputArgs {
    /// The session's output callback: files under the directory, or each
    /// output's text form on stdout and a hint on stderr for the others.
    pub fn receiver(&self) -> impl FnMut(Output) + Send + 'static {
        let dir = self.dir.clone();
        let mut count = 0u64;
        let mut hinted = false;
        move |output: Output| {
            count += 1;
            let Some(dir) = &dir else {
                print_to_stdio(PrintStream::Stdout, &format!("{}\n", output.text));
                if !hinted && !output.mime_type.starts_with("text/") {
                    hinted = true;
                    print_to_stdio(
                        PrintStream::Stderr,
                        &format!(
                            "stockade: the guest showed an output ({}); pass --outputs DIR to write such outputs to files\n",
                            output.mime_type
                        ),
                    );
                }
                return;
            };
            // The name is the host's: nothing of it comes from the guest
            // but the extension its MIME type maps to.
            let path = dir.join(format!("output-{count}.{}", output.extension()));
            let written =
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &output.data));
            let line = match written {
                Ok(()) => format!(
                    "stockade: output {count} ({}, {} bytes): {}",
                    output.mime_type,
                    output.data.len(),
                    path.display()
                ),
                Err(err) => format!(
                    "stockade: cannot write output {count} to {}: {err}",
                    path.display()
                ),
            };
            print_to_stdio(
                PrintStream::Stderr,
                &format!("{}\n", stockade::escape_controls(&line)),
            );
        }
    }
}
