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
