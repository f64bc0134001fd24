//! Replaying a journal (a QuickJS or CPython session's dump) in a fresh
//! worker: each feed goes out again with the clock readings it made, each
//! suspension is answered with what the host answered the first time (no
//! host function runs), and everything the worker says must match the
//! journal entry by entry. A mismatch is `ReplayDiverged`, naming the first
//! differing step, and the restored session is lost. Prints are not shown.

use std::time::Instant;

use stockade_wire::{
    FRAME_HEADER_LEN, MAX_CLOCK_READINGS, Request, Response, WireLimits, decode_response,
};

use super::body::Suspension;
use crate::error::Error;
use crate::session::journal::{Entry, EntryKind};
use crate::session::step::{StepFutures, Suspended};
use crate::session::turn::{Stop, Turn};
use crate::session::{Pause, Reply, Session, TurnDeadline};

/// Where a replay stands: the journal, and the next entry to match.
struct Cursor<'a> {
    entries: &'a [Entry],
    at: usize,
    feed: usize,
}

impl Session {
    /// Replays `entries` into this fresh session; with `suspension`, the
    /// journal ends at that pause, which becomes the live cursor.
    pub(super) fn replay(
        &mut self,
        entries: &[Entry],
        suspension: Option<Suspension>,
    ) -> Result<(), Error> {
        // What a replayed feed prints and shows was seen when it first ran.
        let print = self.print.take();
        let output = self.output.replace(Box::new(|_| {}));
        self.replaying = true;
        let replayed = self.replay_feeds(entries, suspension);
        self.replaying = false;
        self.print = print;
        self.output = output;
        // A replay cut short leaves a session in no state anyone asked for.
        replayed.map_err(|err| {
            self.suspended = None;
            if self.lost.is_some() {
                err
            } else {
                self.record_lost(err)
            }
        })
    }

    fn replay_feeds(
        &mut self,
        entries: &[Entry],
        mut suspension: Option<Suspension>,
    ) -> Result<(), Error> {
        let mut cursor = Cursor {
            entries,
            at: 0,
            feed: 0,
        };
        while let Some(feed) = entries.get(cursor.at) {
            if feed.kind == EntryKind::Reseed {
                cursor.at += 1;
                self.resend(feed)?;
                self.await_restored()?;
                continue;
            }
            if feed.kind != EntryKind::Feed {
                return Err(Error::DumpRejected(
                    "its journal does not start a feed where one should start".into(),
                ));
            }
            cursor.feed += 1;
            cursor.at += 1;
            if let Some(clock_ms) = clock_of(&entries[cursor.at..]) {
                self.replay_clock(clock_ms)?;
            }
            self.fed = true;
            self.resend(feed)?;
            let mut turn = Turn::new(self.elapsed, self.options.max_result_bytes);
            loop {
                let before = self.journal_len();
                let stop = self.next_stop(&mut turn);
                self.match_recorded(before, &mut cursor)?;
                let pause = match stop {
                    Ok(Stop::Complete(_)) => break,
                    // The feed raised as the journal says it did (any kind).
                    Err(_) if self.last_journaled() == Some(EntryKind::Raised) => break,
                    Err(other) => return Err(other),
                    Ok(Stop::Call {
                        call_id,
                        name,
                        args,
                    }) => Pause::Call {
                        call_id,
                        name,
                        args,
                    },
                    Ok(Stop::Lookup { name }) => Pause::Lookup { name },
                    Ok(Stop::Await { call_ids }) => Pause::Await { call_ids },
                    // Files, the environment, the time: answered as the
                    // journal holds, touching no file.
                    Ok(Stop::OsCall) => match entries.get(cursor.at) {
                        Some(answer) if answer.kind == EntryKind::Answer => {
                            self.resend(answer)?;
                            cursor.at += 1;
                            continue;
                        }
                        Some(other) => {
                            return Err(diverged(
                                &cursor,
                                &other.describe(),
                                "an OS call's answer",
                            ));
                        }
                        None => return Err(diverged(&cursor, "its end", "an OS call")),
                    },
                };
                if !matches!(pause, Pause::Await { .. }) {
                    // Counted, never refused: the journal answered it once.
                    turn.set_calls(turn.calls().saturating_add(1));
                }
                match entries.get(cursor.at) {
                    Some(answer) if answer.kind == EntryKind::Answer => {
                        self.resend(answer)?;
                        cursor.at += 1;
                    }
                    None => {
                        let Some(dumped) = suspension.take() else {
                            return Err(diverged(&cursor, "its end", &pause.describe()));
                        };
                        if !dumped.pause.same_as(&pause) {
                            return Err(diverged(
                                &cursor,
                                &dumped.pause.describe(),
                                &pause.describe(),
                            ));
                        }
                        turn.set_calls(dumped.calls);
                        self.step_futures = StepFutures::from_ids(&dumped.deferred);
                        self.cursors = self.cursors.max(dumped.cursor);
                        self.suspended = Some(Suspended::at(dumped.cursor, pause, turn));
                        return Ok(());
                    }
                    Some(other) => {
                        return Err(diverged(&cursor, &other.describe(), &pause.describe()));
                    }
                }
            }
        }
        match suspension {
            None => Ok(()),
            Some(dumped) => Err(diverged(&cursor, &dumped.pause.describe(), "its end")),
        }
    }

    /// Sends a journaled request again, and journals it anew.
    fn resend(&mut self, entry: &Entry) -> Result<(), Error> {
        self.send(&entry.frame)?;
        if let Some(journal) = &mut self.journal {
            journal.replayed(entry);
        }
        Ok(())
    }

    fn journal_len(&self) -> usize {
        self.journal.as_ref().map_or(0, |j| j.entries.len())
    }

    fn last_journaled(&self) -> Option<EntryKind> {
        self.journal
            .as_ref()
            .and_then(|j| j.entries.last())
            .map(|entry| entry.kind)
    }

    /// Checks what the worker's reply added to the new journal against the
    /// old one, entry by entry.
    fn match_recorded(&self, before: usize, cursor: &mut Cursor<'_>) -> Result<(), Error> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        for recorded in journal.entries.iter().skip(before) {
            match cursor.entries.get(cursor.at) {
                Some(expected) if expected == recorded => cursor.at += 1,
                Some(expected) => {
                    let (mut was, mut now) = (expected.describe(), recorded.describe());
                    if was == now {
                        was.push_str(" with its journaled arguments");
                        now.push_str(" with others");
                    }
                    return Err(diverged(cursor, &was, &now));
                }
                None => return Err(diverged(cursor, "its end", &recorded.describe())),
            }
        }
        Ok(())
    }

    /// Gives the worker the next feed's clock readings, in as many Replay
    /// messages as they take.
    fn replay_clock(&mut self, clock_ms: Vec<f64>) -> Result<(), Error> {
        for part in clock_ms.chunks(MAX_CLOCK_READINGS) {
            self.replay_clock_part(part.to_vec())?;
        }
        Ok(())
    }

    fn replay_clock_part(&mut self, clock_ms: Vec<f64>) -> Result<(), Error> {
        self.answer(&Request::Replay { clock_ms })?;
        let deadline = TurnDeadline {
            at: Instant::now() + self.options.request_timeout,
            backstop: false,
        };
        match self.recv_within(deadline, self.options.max_result_bytes)? {
            Reply::Message(Response::Restored { .. }) => Ok(()),
            Reply::Message(Response::Error { exception, .. }) => Err(Error::DumpRejected(format!(
                "the worker cannot replay its clock: {}",
                exception.message
            ))),
            _ => Err(self.broken("the worker answered Replay out of turn".into())),
        }
    }
}

/// The clock readings journaled for the feed whose entries start `rest`:
/// every Clock report it made (one before each suspension, one at its end).
fn clock_of(rest: &[Entry]) -> Option<Vec<f64>> {
    let mut readings = Vec::new();
    for entry in rest
        .iter()
        .take_while(|entry| entry.kind != EntryKind::Feed)
    {
        if entry.kind != EntryKind::Clock {
            continue;
        }
        let payload = entry.frame.get(FRAME_HEADER_LEN..)?;
        match decode_response(payload, &WireLimits::default()) {
            Ok(Response::Clock { readings_ms }) => readings.extend(readings_ms),
            _ => return None,
        }
    }
    (!readings.is_empty()).then_some(readings)
}

fn diverged(cursor: &Cursor<'_>, journaled: &str, replayed: &str) -> Error {
    Error::ReplayDiverged(format!(
        "feed {}, entry {} of the journal: it holds {journaled}, but the replay gave {replayed}",
        cursor.feed, cursor.at
    ))
}
