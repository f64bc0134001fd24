//! `Session::execute`: a run that never fails for the run's own failure.
//! Each stream's output is kept up to a number of bytes of UTF-8 (whole
//! characters; a stream once cut keeps nothing more, so what it holds is a
//! prefix of what the guest printed), the rich outputs are kept, and the
//! outcome is the result or the error, with its `error_type`: the one rule
//! the Python package's `execute()`, the Node package's and the MCP tools
//! follow.

use std::sync::{Arc, Mutex, PoisonError};

use stockade_wire::{Output, PrintStream, Value};

use crate::error::Error;
use crate::session::{OutputFn, PrintFn, RunLimits, Session};

/// Bytes of stdout, and of stderr, an execution keeps by default.
pub const DEFAULT_MAX_STREAM_BYTES: usize = 64 * 1024;

/// Host memory an execution's result may take by default (as
/// `max_result_bytes` counts it): a result meant to be shown, not a data
/// transfer.
pub const DEFAULT_EXECUTE_RESULT_BYTES: u64 = 1024 * 1024;

/// What an execution may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecuteLimits {
    /// Bytes of each stream kept.
    pub max_stream_bytes: usize,
    /// Host memory the result may take, at most the session's
    /// `max_result_bytes` (`u64::MAX`: the session's); past it the outcome
    /// is `Error::ResultTooLarge`.
    pub max_result_bytes: u64,
}

impl Default for ExecuteLimits {
    fn default() -> Self {
        Self {
            max_stream_bytes: DEFAULT_MAX_STREAM_BYTES,
            max_result_bytes: DEFAULT_EXECUTE_RESULT_BYTES,
        }
    }
}

/// One stream as an execution keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    pub text: String,
    /// Bytes of UTF-8 the guest printed past what `text` holds.
    pub dropped: u64,
}

impl Kept {
    /// Keeps what of `text` fits in `cap` bytes in all.
    pub fn push(&mut self, text: &str, cap: usize) {
        if self.dropped > 0 {
            self.dropped += text.len() as u64;
            return;
        }
        let room = cap.saturating_sub(self.text.len());
        if text.len() <= room {
            self.text.push_str(text);
            return;
        }
        let mut cut = room;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&text[..cut]);
        self.dropped = (text.len() - cut) as u64;
    }
}

/// What an execution gives back.
#[derive(Debug)]
pub struct Execution {
    pub stdout: Kept,
    pub stderr: Kept,
    /// The rich outputs the guest showed, in order.
    pub outputs: Vec<Output>,
    pub outcome: Result<Value, Error>,
}

impl Execution {
    /// Whether the run ended with a value.
    pub fn ok(&self) -> bool {
        self.outcome.is_ok()
    }

    /// Whether either stream was cut.
    pub fn truncated(&self) -> bool {
        self.stdout.dropped > 0 || self.stderr.dropped > 0
    }

    /// The failure's class ([`Error::error_type`]), None on success.
    pub fn error_type(&self) -> Option<&str> {
        self.outcome.as_ref().err().map(Error::error_type)
    }
}

/// What the capture keeps while the run goes on, and the caller's own
/// callbacks, which see everything.
struct Capture {
    cap: usize,
    stdout: Kept,
    stderr: Kept,
    outputs: Vec<Output>,
    print: Option<Box<PrintFn>>,
    output: Option<Box<OutputFn>>,
}

fn lock(capture: &Mutex<Capture>) -> std::sync::MutexGuard<'_, Capture> {
    capture.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Session {
    /// Runs `code` as `run_with_limits` does, but never fails for the
    /// run's own failure: the outcome, the output and the rich outputs
    /// come back together. The session's print and output callbacks still
    /// see everything, uncut; without an output callback, the outputs are
    /// kept rather than noted on stderr.
    pub fn execute(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
        limits: ExecuteLimits,
    ) -> Execution {
        let (print, output) = self.take_callbacks();
        let capture = Arc::new(Mutex::new(Capture {
            cap: limits.max_stream_bytes,
            stdout: Kept::default(),
            stderr: Kept::default(),
            outputs: Vec::new(),
            print,
            output,
        }));
        let printed = Arc::clone(&capture);
        self.on_print(move |stream, text| {
            let mut capture = lock(&printed);
            if let Some(print) = &mut capture.print {
                print(stream, text);
            }
            let cap = capture.cap;
            match stream {
                PrintStream::Stdout => capture.stdout.push(text, cap),
                PrintStream::Stderr => capture.stderr.push(text, cap),
            }
        });
        let shown = Arc::clone(&capture);
        self.on_output(move |output| {
            let mut capture = lock(&shown);
            if let Some(forward) = &mut capture.output {
                forward(output.clone());
            }
            capture.outputs.push(output);
        });
        let run = RunLimits {
            max_result_bytes: Some(limits.max_result_bytes),
        };
        let outcome = self.run_with_limits(code, inputs, run);
        // The closures hold the other references; dropping them leaves the
        // capture this function's alone.
        self.restore_callbacks(None, None);
        let mut capture = lock(&capture);
        let (print, output) = (capture.print.take(), capture.output.take());
        self.restore_callbacks(print, output);
        Execution {
            stdout: std::mem::take(&mut capture.stdout),
            stderr: std::mem::take(&mut capture.stderr),
            outputs: std::mem::take(&mut capture.outputs),
            outcome,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kept;

    #[test]
    fn a_stream_keeps_whole_characters_and_once_cut_nothing_more() {
        let mut kept = Kept::default();
        kept.push("abc", 5);
        kept.push("dé", 5); // é is two bytes: only d fits
        assert_eq!(kept.text, "abcd");
        assert_eq!(kept.dropped, 2);
        kept.push("x", 5); // there is a byte of room, but the stream was cut
        assert_eq!(kept.text, "abcd");
        assert_eq!(kept.dropped, 3);
        let mut exact = Kept::default();
        exact.push("12345", 5);
        assert_eq!((exact.text.as_str(), exact.dropped), ("12345", 0));
    }
}
