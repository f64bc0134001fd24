//! Exit statuses of the CLI, and the one line printed with each.

use stockade::Error;

pub const OK: i32 = 0;
pub const GUEST_EXCEPTION: i32 = 1;
pub const BAD_INPUT: i32 = 2;
pub const TIME_LIMIT: i32 = 3;
pub const MEMORY_LIMIT: i32 = 4;
pub const CRASHED: i32 = 5;

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

/// Prints the failure and returns the exit status for it.
pub fn report(err: &Error) -> i32 {
    match err {
        Error::Guest(guest) => {
            let trace = guest.traceback.trim_end();
            if trace.is_empty() {
                eprintln!("{guest}");
            } else {
                eprintln!("{trace}");
            }
            GUEST_EXCEPTION
        }
        Error::Syntax(guest) => {
            let trace = guest.traceback.trim_end();
            if !trace.is_empty() && trace != guest.to_string() {
                eprintln!("{trace}");
            }
            say(err);
            BAD_INPUT
        }
        Error::Conversion(_) => {
            say(err);
            GUEST_EXCEPTION
        }
        Error::Configuration(_)
        | Error::Unauthorized(_)
        | Error::DumpRejected(_)
        | Error::DumpVersionMismatch { .. }
        | Error::ReplayDiverged(_)
        | Error::Cursor(_) => {
            say(err);
            BAD_INPUT
        }
        Error::Timeout { .. } => {
            say(err);
            TIME_LIMIT
        }
        Error::Crashed(info) if info.timed_out => {
            say(err);
            TIME_LIMIT
        }
        Error::Memory { .. } | Error::ResultTooLarge { .. } => {
            say(err);
            MEMORY_LIMIT
        }
        // The worker crashed, and anything this command does not know yet.
        _ => {
            say(err);
            CRASHED
        }
    }
}
