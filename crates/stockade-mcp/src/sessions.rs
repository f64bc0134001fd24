//! One client's sessions: one per language, started on first use, kept
//! across calls so the guest's state persists, and replaced on the next
//! call when a limit or a crash loses one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use stockade::{Error, ExecuteLimits, Language, Output, Session, SessionOptions, Value};

use crate::admission::{Admission, Caller, Held};

/// Bytes of stdout, and of stderr, one call returns; the rest is cut with
/// a note of how much (the session's `max_output_bytes` still bounds what
/// the guest may print at all).
pub const MAX_STREAM_BYTES: usize = 64 * 1024;

/// The options a language's sessions start with.
pub type OptionsFor = Arc<dyn Fn(Language) -> SessionOptions + Send + Sync>;

/// A client's sessions.
pub struct Sessions {
    options: OptionsFor,
    /// Asked before a sandbox starts; None admits every one.
    admission: Option<Arc<dyn Admission>>,
    python: Mutex<Slot>,
    javascript: Mutex<Slot>,
    /// Set to end the language's running call (its worker is killed, the
    /// session lost): a reset, the client gone. A call clears it as it
    /// starts.
    stop_python: Arc<AtomicBool>,
    stop_javascript: Arc<AtomicBool>,
    /// How many stops each language has had: a call that was waiting for
    /// the lock when one came ends too, instead of running after it.
    stops_python: AtomicU64,
    stops_javascript: AtomicU64,
    /// How many resets each language has been asked: a call that takes the
    /// lock before a reset asked earlier carries it out first, rather than
    /// run on the state the reset discards.
    resets_python: AtomicU64,
    resets_javascript: AtomicU64,
    /// The cancel flag of the call the language's session runs now, which
    /// its interrupt check reads: a request cancelled while it waits for
    /// the lock must not end the call ahead of it.
    current_python: Arc<Mutex<Arc<AtomicBool>>>,
    current_javascript: Arc<Mutex<Arc<AtomicBool>>>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Slot {
    session: Option<Session>,
    /// What the admission gave for `session`, held as long as it lives.
    held: Option<Held>,
    /// Why the last session was lost, told by the next call.
    lost: Option<String>,
    /// The resets of this language carried out, of those asked.
    resets_done: u64,
}

impl Slot {
    /// Carries out the resets asked up to `asked`: the session ends, and
    /// so does the news of an earlier loss. Whether there was a session.
    fn reset(&mut self, asked: u64) -> bool {
        self.resets_done = asked;
        self.lost = None;
        self.end()
    }

    /// Ends the session and gives its place back.
    fn end(&mut self) -> bool {
        self.held = None;
        match self.session.take() {
            Some(session) => {
                session.close();
                true
            }
            None => false,
        }
    }
}

/// What one call did.
#[derive(Debug)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub outcome: Result<Value, Error>,
    /// The call started a new session because the previous one was lost
    /// (the reason), so the guest's earlier state is gone.
    pub replaced: Option<String>,
    /// The call lost its session; the next call starts a fresh one.
    pub lost: bool,
    /// The rich outputs the guest showed (charts, tables), in order.
    pub outputs: Vec<Output>,
}

impl Ran {
    /// A call that failed with `err` before any guest code ran.
    fn before_running(err: Error, lost: bool) -> Self {
        Ran {
            stdout: String::new(),
            stderr: String::new(),
            outcome: Err(err),
            replaced: None,
            lost,
            outputs: Vec::new(),
        }
    }
}

/// A stream as `Session::execute` kept it, with a note of how much more
/// the guest printed.
fn shown(kept: stockade::Kept) -> String {
    let stockade::Kept { mut text, dropped } = kept;
    if dropped > 0 {
        text.push_str(&format!("\n[{dropped} more bytes not shown]\n"));
    }
    text
}

/// `text` cut to [`MAX_STREAM_BYTES`] the way a stream is.
pub(crate) fn capped(text: &str) -> String {
    let mut kept = stockade::Kept::default();
    kept.push(text, MAX_STREAM_BYTES);
    shown(kept)
}

impl Sessions {
    pub fn new(options: OptionsFor, admission: Option<Arc<dyn Admission>>) -> Self {
        Sessions {
            options,
            admission,
            python: Mutex::new(Slot::default()),
            javascript: Mutex::new(Slot::default()),
            stop_python: Arc::new(AtomicBool::new(false)),
            stop_javascript: Arc::new(AtomicBool::new(false)),
            stops_python: AtomicU64::new(0),
            stops_javascript: AtomicU64::new(0),
            resets_python: AtomicU64::new(0),
            resets_javascript: AtomicU64::new(0),
            current_python: Arc::default(),
            current_javascript: Arc::default(),
        }
    }

    fn slot(&self, language: Language) -> &Mutex<Slot> {
        match language {
            Language::Python => &self.python,
            Language::JavaScript => &self.javascript,
        }
    }

    fn stop_flag(&self, language: Language) -> &Arc<AtomicBool> {
        match language {
            Language::Python => &self.stop_python,
            Language::JavaScript => &self.stop_javascript,
        }
    }

    fn stops(&self, language: Language) -> &AtomicU64 {
        match language {
            Language::Python => &self.stops_python,
            Language::JavaScript => &self.stops_javascript,
        }
    }

    fn resets(&self, language: Language) -> &AtomicU64 {
        match language {
            Language::Python => &self.resets_python,
            Language::JavaScript => &self.resets_javascript,
        }
    }

    fn current_call(&self, language: Language) -> &Arc<Mutex<Arc<AtomicBool>>> {
        match language {
            Language::Python => &self.current_python,
            Language::JavaScript => &self.current_javascript,
        }
    }

    /// Ends the language's running call, if any, within about 20 ms: its
    /// worker is killed and the call reports `Interrupted`; calls waiting
    /// for it end too, without running; the next call starts a fresh
    /// sandbox. Does not wait.
    pub fn stop(&self, language: Language) {
        self.stops(language).fetch_add(1, Ordering::SeqCst);
        self.stop_flag(language).store(true, Ordering::SeqCst);
    }

    /// Ends every running call (the client is gone).
    pub fn stop_all(&self) {
        self.stop(Language::Python);
        self.stop(Language::JavaScript);
    }

    /// Runs `code` in the language's session (blocking: call it off the
    /// async runtime's threads). Calls of one language wait for each other.
    /// Setting `cancel` ends this call: before it starts, it does not run;
    /// while it runs, its worker is killed, as [`Sessions::stop`] does.
    /// `caller` is who asked, for the admission of a sandbox it starts.
    pub fn run(
        &self,
        language: Language,
        code: &str,
        inputs: Vec<(String, Value)>,
        cancel: Arc<AtomicBool>,
        caller: &Caller,
    ) -> Ran {
        let arrived = self.stops(language).load(Ordering::SeqCst);
        // A panic while the lock was held left at worst a session in an
        // unknown state; the slot's own checks below still hold.
        let mut slot = self
            .slot(language)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let stop = Arc::clone(self.stop_flag(language));
        // The flag is for the running call: one asked before this call
        // took the lock was for an earlier call, or, if it came after this
        // one arrived, is counted in `stops` and ends this one here.
        stop.store(false, Ordering::SeqCst);
        // A stop since (a reset) discards the state this call would have
        // run in; a cancelled request leaves it as it was.
        let stopped = self.stops(language).load(Ordering::SeqCst) != arrived;
        if stopped || cancel.load(Ordering::SeqCst) {
            return Ran::before_running(Error::Interrupted, stopped);
        }
        let asked = self.resets(language).load(Ordering::SeqCst);
        if slot.resets_done < asked {
            slot.reset(asked);
        }
        let current = Arc::clone(self.current_call(language));
        *current.lock().unwrap_or_else(PoisonError::into_inner) = cancel;
        let replaced = if slot.session.is_none() {
            slot.lost.take()
        } else {
            None
        };
        if slot.session.is_none() {
            slot.held = None;
            if let Some(admission) = &self.admission {
                match admission.admit(caller) {
                    Ok(held) => slot.held = Some(held),
                    Err(why) => {
                        // Nothing ran: the next call still has the news.
                        slot.lost = replaced;
                        return Ran::before_running(Error::OverCapacity(why), true);
                    }
                }
            }
        }
        let mut session = match slot.session.take() {
            Some(session) => session,
            None => match Session::new((self.options)(language)) {
                Ok(mut session) => {
                    session.set_interrupt(move || {
                        stop.load(Ordering::SeqCst)
                            || current
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .load(Ordering::SeqCst)
                    });
                    session
                }
                Err(err) => {
                    // Nothing ran: the next call still has the news to tell.
                    slot.lost = replaced;
                    slot.held = None;
                    return Ran::before_running(err, true);
                }
            },
        };
        // The session's own max_result_bytes bounds the result; its repr
        // is cut as a stream is.
        let limits = ExecuteLimits {
            max_stream_bytes: MAX_STREAM_BYTES,
            max_result_bytes: u64::MAX,
        };
        let done = session.execute(code, inputs, limits);
        let outcome = done.outcome;
        // A spent max_duration leaves the session alive but refusing every
        // feed; a client can always start afresh with `reset`, so a spent
        // budget is a lost sandbox here too, replaced on the next call.
        let lost = session.is_lost()
            || outcome
                .as_ref()
                .is_err_and(|err| err.loses_session() || err.is_time_limit());
        if lost {
            let reason = outcome
                .as_ref()
                .err()
                .map(|err| err.to_string())
                .unwrap_or_else(|| "the worker ended".into());
            slot.lost = Some(reason);
            slot.held = None;
            session.close();
        } else {
            slot.session = Some(session);
        }
        Ran {
            stdout: shown(done.stdout),
            stderr: shown(done.stderr),
            outcome,
            replaced,
            lost,
            outputs: done.outputs,
        }
    }

    /// Ends the sessions of `languages`; the next call of each starts
    /// afresh. Returns the languages that had a session.
    pub fn reset(&self, languages: &[Language]) -> Vec<Language> {
        let mut ended = Vec::new();
        for &language in languages {
            let asked = self.resets(language).fetch_add(1, Ordering::SeqCst) + 1;
            // A call under way ends now rather than holding the lock until
            // its time limit.
            self.stop(language);
            let mut slot = self
                .slot(language)
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // A call that took the lock first has done it already.
            if slot.resets_done < asked && slot.reset(asked) {
                ended.push(language);
            }
        }
        ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_cut_between_characters_and_says_how_much() {
        let mut kept = stockade::Kept::default();
        kept.push(&"a".repeat(MAX_STREAM_BYTES - 1), MAX_STREAM_BYTES);
        kept.push("é and more", MAX_STREAM_BYTES);
        let text = shown(kept);
        assert!(text.starts_with(&"a".repeat(MAX_STREAM_BYTES - 1)));
        assert!(text.ends_with("\n[11 more bytes not shown]\n"), "{text:?}");
    }
}
