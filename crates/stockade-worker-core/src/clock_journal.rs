//! The journaled clock of a session its host may dump, for every engine
//! that journals (QuickJS, CPython): each reading a feed makes is kept and
//! reported (Clock) before each suspension and at the feed's end, and a
//! replay's readings are given back in order instead of the time, so a
//! replayed session sees the clock it saw the first time.
//!
//! A reading is an `f64` in the engine's own unit; the host keeps them
//! without reading them. Clocks are told apart by a small number the
//! engine chooses (its `kind`), so that a steady clock (a monotonic or
//! performance clock) never runs backwards across a restore.

use std::collections::VecDeque;

use stockade_wire::{MAX_CLOCK_READINGS, Response};

use crate::engine::SharedLink;

/// One steady clock's state: the last reading given, and how far live
/// readings are moved forward to stay past it.
#[derive(Debug, Clone, Copy)]
struct Steady {
    kind: u32,
    last: f64,
    offset: f64,
}

/// Readings made since the last report, and those a replay gives back.
#[derive(Debug, Default)]
pub struct ClockJournal {
    made: Vec<f64>,
    replay: VecDeque<f64>,
    steady: Vec<Steady>,
}

impl ClockJournal {
    pub fn new() -> Self {
        Self::default()
    }

    /// One reading of clock `kind`: the next replayed one, or `live()`.
    /// A `steady` clock's live reading never falls below the last reading
    /// it gave: after a restore in another process (whose monotonic clock
    /// counts from elsewhere) it goes on from where the replay left it.
    pub fn read(&mut self, kind: u32, steady: bool, live: impl FnOnce() -> f64) -> f64 {
        let replayed = self.replay.pop_front();
        let mut reading = replayed.unwrap_or_else(live);
        if steady {
            let state = match self.steady.iter_mut().find(|s| s.kind == kind) {
                Some(state) => state,
                None => {
                    self.steady.push(Steady {
                        kind,
                        last: f64::NEG_INFINITY,
                        offset: 0.0,
                    });
                    let last = self.steady.len() - 1;
                    &mut self.steady[last]
                }
            };
            if replayed.is_none() {
                reading += state.offset;
                if reading < state.last {
                    state.offset += state.last - reading;
                    reading = state.last;
                }
            }
            state.last = reading;
        }
        self.made.push(reading);
        reading
    }

    /// The next feed reads `readings` first, in order, after any a
    /// Replay before it gave (a long journal comes in several).
    pub fn replay(&mut self, readings: Vec<f64>) {
        self.replay.extend(readings);
    }

    /// The readings made since the last report. At a feed's end
    /// (`at_end`) the replayed readings it did not use are dropped too.
    pub fn take(&mut self, at_end: bool) -> Vec<f64> {
        if at_end {
            self.replay.clear();
        }
        std::mem::take(&mut self.made)
    }

    /// Puts back readings a report could not send, ahead of any made
    /// since: the next report carries them.
    pub fn unsent(&mut self, mut readings: Vec<f64>) {
        readings.append(&mut self.made);
        self.made = readings;
    }
}

/// Sends `readings` (if any) as Clock messages, after the prints made
/// before them, as many as it takes (each carries at most
/// `MAX_CLOCK_READINGS`); gives back those not sent when the link is busy
/// or gone.
pub fn report(link: &SharedLink, mut readings: Vec<f64>) -> Result<(), Vec<f64>> {
    if readings.is_empty() {
        return Ok(());
    }
    let Ok(mut link) = link.try_borrow_mut() else {
        return Err(readings);
    };
    link.flush_prints();
    let mut sent = 0;
    while sent < readings.len() {
        let end = readings.len().min(sent + MAX_CLOCK_READINGS);
        let message = Response::Clock {
            readings_ms: readings[sent..end].to_vec(),
        };
        if link.out.send(&message).is_err() {
            return Err(readings.split_off(sent));
        }
        sent = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_gives_its_readings_back_in_order_then_the_live_clock() {
        let mut journal = ClockJournal::new();
        journal.replay(vec![5.0, 6.0]);
        assert_eq!(journal.read(0, false, || 100.0), 5.0);
        assert_eq!(journal.read(0, false, || 100.0), 6.0);
        assert_eq!(journal.read(0, false, || 100.0), 100.0);
        assert_eq!(journal.take(true), vec![5.0, 6.0, 100.0]);
        assert!(journal.take(true).is_empty());
    }

    #[test]
    fn a_steady_clock_goes_on_from_the_replayed_reading_after_a_restore() {
        let mut journal = ClockJournal::new();
        journal.replay(vec![5000.0]);
        assert_eq!(journal.read(1, true, || 10.0), 5000.0);
        // This process's clock reads 10 and then 12: the guest sees time
        // go on from 5000, never back.
        assert_eq!(journal.read(1, true, || 10.0), 5000.0);
        assert_eq!(journal.read(1, true, || 12.0), 5002.0);
        // The wall clock is never moved.
        assert_eq!(journal.read(0, false, || 10.0), 10.0);
    }

    #[test]
    fn replays_given_in_parts_are_read_in_order() {
        let mut journal = ClockJournal::new();
        journal.replay(vec![1.0]);
        journal.replay(vec![2.0]);
        assert_eq!(journal.read(0, false, || 9.0), 1.0);
        assert_eq!(journal.read(0, false, || 9.0), 2.0);
    }

    #[test]
    fn unused_replayed_readings_end_with_the_feed() {
        let mut journal = ClockJournal::new();
        journal.replay(vec![1.0, 2.0]);
        assert_eq!(journal.read(0, false, || 9.0), 1.0);
        journal.take(true);
        assert_eq!(journal.read(0, false, || 9.0), 9.0);
    }
}
