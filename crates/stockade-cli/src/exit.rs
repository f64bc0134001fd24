//! Exit statuses of the CLI, and the one line printed with each.

use stockade::Error;

pub use stockade::contract::exit::*;

/// Prints one line for a usage error (or the help text) and exits.
pub fn usage(err: clap::Error) -> ! {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            std::process::exit(
                if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    BAD_INPUT
                } else {
                    OK
                },
            );
        }
        _ => {
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("stockade: usage: {first} (see `stockade --help`)");
            std::process::exit(BAD_INPUT);
        }
    }
}

/// Prints this command's one-line report of `err`, as `stockade: ...`.
fn say(err: &Error) {
    eprintln!("stockade: {}", stockade::escape_controls(&err.to_string()));
}

/// Prints the failure and returns the exit status for it (the host
/// library's, `Error::exit_status`).
pub fn report(err: &Error) -> i32 {
    match err {
        Error::Guest(guest) => {
            let trace = guest.traceback.trim_end();
            if trace.is_empty() {
                eprintln!("{guest}");
            } else {
                eprintln!("{trace}");
            }
        }
        Error::Syntax(guest) => {
            let trace = guest.traceback.trim_end();
            if !trace.is_empty() && trace != guest.to_string() {
                eprintln!("{trace}");
            }
            say(err);
        }
        _ => say(err),
    }
    err.exit_status()
}
