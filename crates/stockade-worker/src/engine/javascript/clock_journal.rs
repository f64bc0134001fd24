//! QuickJS's journaled clock: `Date.now()`, `new Date()`, `Date()` and
//! `performance.now()` read the time through the worker-core journal
//! (`stockade_worker_core::clock_journal`), so a dumped session's replay
//! sees the clock it saw the first time.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rquickjs::{Ctx, Function};
use stockade_worker_core::clock_journal::{self, ClockJournal};
use stockade_worker_core::engine::SharedLink;

/// js/clock_journal.js: wraps Date and performance.now around `read`.
const SCRIPT: &str = include_str!("js/clock_journal.js");

/// The wall clock, in ms since the epoch.
const WALL: u32 = 0;
/// `performance.now()`: ms since the worker started, never backwards.
const PERFORMANCE: u32 = 1;

/// The session's journal, and where `performance.now()` counts from.
#[derive(Debug)]
pub struct JournaledClock {
    journal: RefCell<ClockJournal>,
    origin: Instant,
}

impl JournaledClock {
    pub fn new() -> Rc<Self> {
        Rc::new(Self {
            journal: RefCell::new(ClockJournal::new()),
            origin: Instant::now(),
        })
    }

    /// One reading of clock `kind` (WALL or PERFORMANCE), in ms.
    fn read(&self, kind: u32) -> f64 {
        let live = || {
            if kind == PERFORMANCE {
                self.origin.elapsed().as_secs_f64() * 1000.0
            } else {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |since| since.as_millis() as f64)
            }
        };
        self.journal.borrow_mut().read(kind, kind != WALL, live)
    }

    /// The next feed reads `readings` first, in order.
    pub fn replay(&self, readings: Vec<f64>) {
        self.journal.borrow_mut().replay(readings);
    }

    /// Sends the readings made since the last report (all of the feed's,
    /// `at_end`), if any; false when they cannot be sent.
    pub fn report(&self, link: &SharedLink, at_end: bool) -> bool {
        let readings = self.journal.borrow_mut().take(at_end);
        clock_journal::report(link, readings)
            .map_err(|unsent| self.journal.borrow_mut().unsent(unsent))
            .is_ok()
    }

    /// Puts the journaled clock in place of the guest's Date and performance.
    pub fn install(self: &Rc<Self>, ctx: &Ctx<'_>) -> Result<(), String> {
        let clock = Rc::clone(self);
        let read = Function::new(ctx.clone(), move |kind: u32| clock.read(kind))
            .map_err(|err| err.to_string())?;
        let install: Function = ctx
            .eval(SCRIPT)
            .map_err(|err| format!("cannot load the journaled clock: {err}"))?;
        install
            .call::<_, ()>((read,))
            .map_err(|err| format!("cannot install the journaled clock: {err}"))
    }
}
