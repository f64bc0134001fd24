//! The engine seam: what the serve loop needs from a guest language. An
//! engine starts in two halves: its `prepare` runs on the main thread
//! before the sandbox locks (an engine that must open files, such as a
//! standard library, does it then), and `Prepared::start` on the session
//! thread after it. Each worker binary brings its engines as a `Prepare`.

use std::cell::RefCell;
use std::rc::Rc;

use stockade_wire::{ConfigureLimits, EngineConfig, Response, Value};

use crate::link::Link;

/// Prepares the engine a Configure names, on the main thread before the
/// sandbox; an engine the worker does not have is refused with a message.
pub type Prepare = fn(EngineConfig) -> Result<Box<dyn Prepared>, String>;

/// An engine between its two halves: prepared, not yet started.
pub trait Prepared: Send {
    /// Host directories the engine reads after the sandbox locks (a
    /// standard library, package directories), shown to it read-only;
    /// none for an engine that needs no files.
    fn readable(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// Paths inside the readable trees the guest must not see (covered
    /// with something empty); none by default.
    fn hidden(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// Bytes of the private scratch directory the guest writes its files
    /// in (stockade-sandbox's `scratch`), for an engine that reads and
    /// writes files itself; none by default.
    fn scratch(&self) -> Option<u64> {
        None
    }

    /// Starts the engine on the session thread, inside the sandbox: in a
    /// template, before the fork, so it may start no thread (a fork copies
    /// none; threads belong in `Engine::before_ready`).
    fn start(self: Box<Self>, limits: &ConfigureLimits) -> Result<Box<dyn Engine>, String>;
}

/// A duration in whole microseconds, as replies carry guest time.
pub fn micros(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// The link, shared with the callbacks an engine hands its interpreter.
pub type SharedLink = Rc<RefCell<Link>>;

/// One Feed request.
#[derive(Debug)]
pub struct Feed {
    pub code: String,
    pub inputs: Vec<(String, Value)>,
    /// Every host function the guest may call.
    pub functions: Vec<String>,
}

/// The parent closed the session in the middle of a feed.
#[derive(Debug)]
pub struct Closed;

/// A guest language runtime holding one session's state.
pub trait Engine {
    /// Runs one snippet after binding `inputs`, answering suspensions through
    /// `link`, and returns the final reply (Complete or Error).
    fn feed(&mut self, feed: Feed, link: &SharedLink) -> Result<Response, Closed>;

    /// Runs a trivial snippet outside the session before Ready, so the
    /// first real feed does not pay for faulting in the interpreter's code
    /// and first allocations. Leaves no state and no guest time behind.
    fn warm_up(&mut self) {}

    /// In a worker forked from a template whose engine had already
    /// started and warmed up: makes anew what must differ between the
    /// template's workers (the guest's randomness, its clocks' origins).
    /// The reason in words when the engine cannot, and the worker refuses
    /// to start.
    fn forked(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// In the process that serves the session, just before Ready (and
    /// before the memory budget is armed): starts the threads the engine
    /// needs, which a template's fork would not copy. The reason in words
    /// when it cannot, and the worker refuses to start.
    fn before_ready(&mut self) -> Result<(), String> {
        Ok(())
    }

    /// Set when the engine cannot be trusted with another feed (its heap
    /// ran out): the worker sends Fatal with this message and exits 65
    /// instead of answering.
    fn poisoned(&self) -> Option<String> {
        None
    }

    /// Guest execution time consumed so far, in microseconds.
    fn elapsed_us(&self) -> u64;

    /// The engine's name and version, for Ready.
    fn name(&self) -> String;

    /// The next feed's clock readings, given back in order (a journal's
    /// replay); the reason in words when the engine keeps no journal.
    fn replay_clock(&mut self, readings: Vec<f64>) -> Result<(), String> {
        let _ = readings;
        Err("this engine does not journal its clock".into())
    }

    /// Mixes `seed` into the randomness a journaled session draws from, so
    /// that two restores of one dump go on differently; the reason in
    /// words when the engine seeds nothing.
    fn reseed(&mut self, seed: u64) -> Result<(), String> {
        let _ = seed;
        Err("this engine does not seed its randomness".into())
    }

    /// The session between feeds as bytes only this engine, at this
    /// version, reads back; the reason in words when it cannot (the host
    /// then keeps a journal instead).
    fn snapshot(&mut self) -> Result<Vec<u8>, String> {
        Err("this engine cannot serialise its session".into())
    }

    /// Replaces the fresh session with the one `image` holds, before any
    /// feed; `functions` are the host functions the guest may call. An
    /// idle session answers Restored; a suspended one goes on with its
    /// feed, announcing its suspension again, and answers as a feed does.
    fn restore(
        &mut self,
        image: Vec<u8>,
        functions: Vec<String>,
        link: &SharedLink,
    ) -> Result<Response, Closed> {
        let _ = (image, functions, link);
        Ok(Response::protocol_violation(
            self.elapsed_us(),
            "this engine cannot restore a serialised session",
        ))
    }
}
