//! Guest output to this process's standard output and error.

use std::io::Write;

use stockade::PrintStream;

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
