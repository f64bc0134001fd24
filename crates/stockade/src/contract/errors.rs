//! Every error kind's contract, one row each: the class it is raised as
//! outside Rust, what becomes of the session, the CLI's exit status, and
//! the advice the bindings append to its message. docs/limits.md's error
//! table is held to it (`every_error_kind_is_in_the_error_table_by_its_class`),
//! and the Python and Node packages raise its classes with its advice.

use crate::error::{Error, ErrorKind, TimeLimit};

/// The statuses `stockade run` exits with.
pub mod exit {
    pub const OK: i32 = 0;
    pub const GUEST_EXCEPTION: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const TIME_LIMIT: i32 = 3;
    pub const MEMORY_LIMIT: i32 = 4;
    pub const CRASHED: i32 = 5;
}

/// One error kind's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorSpec {
    /// The exception class the Python and Node packages raise, and an
    /// execution's `error_type` (MCP's too) for every kind but a guest's
    /// own exceptions. A stable API: never a `Debug` string.
    pub class: &'static str,
    /// What becomes of the session, in docs/limits.md's words.
    pub session: &'static str,
    /// The status `stockade run` exits with.
    pub exit_status: i32,
    /// What to do next: a sentence, with its leading space, that the
    /// bindings append to the message (empty: the message says it all).
    pub advice: &'static str,
}

const LOST: &str = " The sandbox is lost; start a new one.";
const LIVES: &str = " The sandbox still works.";

impl ErrorKind {
    /// This kind's row; exhaustive, so a new kind does not build until it
    /// has one.
    pub fn spec(self) -> ErrorSpec {
        use exit::*;
        let row = |class, session, exit_status, advice| ErrorSpec {
            class,
            session,
            exit_status,
            advice,
        };
        match self {
            ErrorKind::Guest => row("GuestError", "lives", GUEST_EXCEPTION, ""),
            ErrorKind::Syntax => row(
                "GuestSyntaxError",
                "lives",
                BAD_INPUT,
                " Fix the code and run it again; the sandbox still works.",
            ),
            ErrorKind::Timeout => row(
                "TimeLimitError",
                "out of time / lost",
                TIME_LIMIT,
                " The worker was killed; start a new sandbox, with a larger request_timeout if the work needs it.",
            ),
            ErrorKind::Memory => row(
                "MemoryLimitError",
                "lives / lost",
                MEMORY_LIMIT,
                " The sandbox still works; free memory in the guest or raise max_memory.",
            ),
            ErrorKind::ResultTooLarge => row("ResultTooLarge", "lives", MEMORY_LIMIT, LIVES),
            ErrorKind::Crashed => row("WorkerCrashed", "lost", CRASHED, LOST),
            ErrorKind::Disconnected => row("Disconnected", "lost", CRASHED, LOST),
            ErrorKind::Unauthorized => row(
                "Unauthorized",
                "not started",
                BAD_INPUT,
                " Check the token given to the sandbox.",
            ),
            ErrorKind::OverCapacity => row(
                "OverCapacity",
                "not started",
                CRASHED,
                " Nothing was started; try again later or elsewhere.",
            ),
            ErrorKind::ServerShutdown => row(
                "ServerShutdown",
                "lost",
                CRASHED,
                " Restore its dump on another server to go on.",
            ),
            ErrorKind::Conversion => row(
                "ConversionError",
                "lives",
                GUEST_EXCEPTION,
                " Pass only values that have a guest equivalent, without cycles.",
            ),
            ErrorKind::Configuration => row(
                "ConfigurationError",
                "not started",
                BAD_INPUT,
                " Check the option named above.",
            ),
            ErrorKind::Protocol => row("ProtocolError", "lives", CRASHED, LIVES),
            ErrorKind::Interrupted => row("Interrupted", "lost", CRASHED, LOST),
            ErrorKind::Forked => row(
                "Forked",
                "lost (to this process)",
                CRASHED,
                " Make a new sandbox in this process.",
            ),
            ErrorKind::Cursor => row(
                "CursorError",
                "lives (still suspended)",
                BAD_INPUT,
                " The sandbox still works; answer the live cursor.",
            ),
            ErrorKind::DumpRejected => row(
                "DumpRejected",
                "not restored",
                BAD_INPUT,
                " Check the keys and the context it was sealed with; nothing was restored.",
            ),
            ErrorKind::DumpVersionMismatch => row(
                "DumpVersionMismatch",
                "not restored",
                BAD_INPUT,
                " Restore it with the version of stockade that made it.",
            ),
            ErrorKind::ReplayDiverged => row(
                "ReplayDiverged",
                "the restored session is lost",
                BAD_INPUT,
                " Nothing of the dump can be trusted past that step; start a new sandbox.",
            ),
        }
    }

    /// The one name of this kind outside Rust ([`ErrorSpec::class`]).
    pub fn class_name(self) -> &'static str {
        self.spec().class
    }
}

impl Error {
    /// The status `stockade run` exits with: the kind's, but 3 for a
    /// worker the `max_duration` backstop killed.
    pub fn exit_status(&self) -> i32 {
        match self {
            Error::Crashed(info) if info.timed_out => exit::TIME_LIMIT,
            other => other.kind().spec().exit_status,
        }
    }

    /// What to do next, as the bindings append it to the message: the
    /// kind's advice, told apart where the error's fields decide (which
    /// time limit; whether the worker survived its memory limit).
    pub fn advice(&self) -> &'static str {
        match self {
            Error::Timeout {
                limit: TimeLimit::MaxDuration,
                ..
            } => {
                " The sandbox has used its max_duration of guest time and refuses more code; start a new sandbox, with a larger max_duration if the work needs it."
            }
            Error::Memory {
                worker_died: true, ..
            } => {
                " The worker was killed; start a new sandbox, with larger limits if the work needs them."
            }
            other => other.kind().spec().advice,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice says the session lives or is lost as `loses_session`
    /// does, for every kind whose row says one or the other.
    #[test]
    fn the_advice_of_every_kind_agrees_with_its_session() {
        for kind in ErrorKind::ALL {
            let spec = kind.spec();
            if spec.session == "lives" && !spec.advice.is_empty() {
                assert!(
                    !spec.advice.contains("lost") && !spec.advice.contains("killed"),
                    "{kind:?}: {}",
                    spec.advice
                );
            }
            if spec.session == "lost" {
                assert!(
                    !spec.advice.contains("still works"),
                    "{kind:?}: {}",
                    spec.advice
                );
            }
            assert!(
                spec.advice.is_empty()
                    || (spec.advice.starts_with(' ') && spec.advice.ends_with('.')),
                "{kind:?}: the advice is a sentence after the message"
            );
        }
    }
}
