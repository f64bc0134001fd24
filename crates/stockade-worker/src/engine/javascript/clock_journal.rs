//! The journaled clock of a session its host may dump: every reading a
//! feed makes is kept and reported (Clock) before the feed ends, and a
//! replay's readings are given back in order instead of the time, so a
//! replayed session sees the clock it saw the first time.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rquickjs::{Ctx, Function};

/// js/clock_journal.js: wraps Date and performance.now around `read`.
const SCRIPT: &str = include_str!("js/clock_journal.js");

/// Readings made in the current feed, and those a replay gives back.
#[derive(Debug)]
pub struct ClockJournal {
    made: RefCell<Vec<f64>>,
    replay: RefCell<VecDeque<f64>>,
    /// Where `performance.now()` counts from.
    origin: Instant,
}

impl ClockJournal {
    pub fn new() -> Rc<Self> {
        Rc::new(Self {
            made: RefCell::new(Vec::new()),
            replay: RefCell::new(VecDeque::new()),
            origin: Instant::now(),
        })
    }

    /// One reading: the next replayed one, or the time now (`kind` 0 the
    /// wall clock in ms since the epoch, 1 ms since the worker started).
    fn read(&self, kind: u32) -> f64 {
        let ms = self.replay.borrow_mut().pop_front().unwrap_or_else(|| {
            if kind == 1 {
                self.origin.elapsed().as_secs_f64() * 1000.0
            } else {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |since| since.as_millis() as f64)
            }
        });
        self.made.borrow_mut().push(ms);
        ms
    }

    /// The next feed reads `readings` first, in order.
    pub fn replay(&self, readings: Vec<f64>) {
        *self.replay.borrow_mut() = readings.into();
    }

    /// The readings the feed made, and a fresh start for the next one
    /// (replayed readings it did not use are dropped).
    pub fn take(&self) -> Vec<f64> {
        self.replay.borrow_mut().clear();
        self.take_so_far()
    }

    /// The readings made since the last report, mid-feed: sent before each
    /// suspension, so a dump taken there holds them.
    pub fn take_so_far(&self) -> Vec<f64> {
        std::mem::take(&mut *self.made.borrow_mut())
    }

    /// Sends the readings made since the last report, if any, as a Clock
    /// message; false when it cannot be sent.
    pub fn report(&self, link: &stockade_worker_core::engine::SharedLink, at_end: bool) -> bool {
        let readings_ms = if at_end {
            self.take()
        } else {
            self.take_so_far()
        };
        if readings_ms.is_empty() {
            return true;
        }
        let mut link = link.borrow_mut();
        link.flush_prints();
        link.out
            .send(&stockade_wire::Response::Clock { readings_ms })
            .is_ok()
    }

    /// Puts the journaled clock in place of the guest's Date and performance.
    pub fn install(self: &Rc<Self>, ctx: &Ctx<'_>) -> Result<(), String> {
        let journal = Rc::clone(self);
        let read = Function::new(ctx.clone(), move |kind: u32| journal.read(kind))
            .map_err(|err| err.to_string())?;
        let install: Function = ctx
            .eval(SCRIPT)
            .map_err(|err| format!("cannot load the journaled clock: {err}"))?;
        install
            .call::<_, ()>((read,))
            .map_err(|err| format!("cannot install the journaled clock: {err}"))
    }
}
