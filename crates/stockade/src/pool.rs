//! A pool of ready workers: started in the background (spawned, configured,
//! sandboxed, self-tested), handed out whole by `checkout`, used once. A
//! checked-out session is yours alone; dropping it kills its worker, which
//! never serves anyone else.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{ConfigurationError, ConfigurationKind, Error};
use crate::options::SessionOptions;
use crate::session::Session;

/// Longest a failing start waits before it is tried again.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// First wait after a failed start.
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
/// How often idle workers are checked for having died.
const PRUNE_EVERY: Duration = Duration::from_millis(200);
/// How long a checkout from a full pool defers its refill. Starting a
/// worker takes a core for a while (the fork, the worker's warm-up), and
/// a session's first feeds come right after its checkout: on a small
/// machine the two would share the cores (a first `1 + 1` 3 to 5 × slower).
/// A pool that is no longer full (a burst) refills at once, and so does
/// one with no ready worker left.
pub const REFILL_DEFERRED_BY: Duration = Duration::from_millis(5);

/// The pool's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// Ready workers the pool keeps. Default: 4.
    pub size: usize,
    /// Workers started at once in the background. Default: 2.
    pub max_concurrent_starts: usize,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            size: 4,
            max_concurrent_starts: 2,
        }
    }
}

/// What a checkout may set: limits only the parent enforces. `None` keeps
/// the pool's value. Everything the worker receives when it starts is
/// fixed per pool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckoutOptions {
    /// At most the pool's own, which sized the workers' CPU limit.
    pub request_timeout: Option<Duration>,
    pub duration_grace: Option<Duration>,
    pub write_stall_timeout: Option<Duration>,
    pub max_host_calls: Option<u32>,
    pub max_inflight_host_calls: Option<u32>,
    pub max_host_wait: Option<Duration>,
    pub redact_host_errors: Option<bool>,
    pub max_result_bytes: Option<u64>,
}

impl CheckoutOptions {
    /// The pool's options with this checkout's applied.
    fn apply(&self, pool: &SessionOptions) -> Result<SessionOptions, Error> {
        let mut options = pool.clone();
        if let Some(timeout) = self.request_timeout {
            if timeout > pool.request_timeout {
                return Err(Error::invalid_option(format!(
                    "a checkout's request_timeout ({timeout:?}) may not exceed the pool's ({:?}), which sized its workers' CPU limit; make a pool with a longer one",
                    pool.request_timeout
                )));
            }
            options.request_timeout = timeout;
        }
        overrides(&mut options.duration_grace, self.duration_grace);
        overrides(&mut options.write_stall_timeout, self.write_stall_timeout);
        overrides(&mut options.max_host_calls, self.max_host_calls);
        overrides(
            &mut options.max_inflight_host_calls,
            self.max_inflight_host_calls,
        );
        overrides(&mut options.max_host_wait, self.max_host_wait);
        overrides(&mut options.redact_host_errors, self.redact_host_errors);
        overrides(&mut options.max_result_bytes, self.max_result_bytes);
        options.validate().map_err(Error::invalid_option)?;
        Ok(options)
    }
}

/// Sets `slot` to the checkout's value, if it gave one.
fn overrides<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

/// A snapshot of the pool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Workers ready to be checked out.
    pub ready: usize,
    /// Workers being started in the background.
    pub starting: usize,
    /// Checkouts served, from the pool or cold.
    pub checkouts: u64,
    /// Checkouts that found the pool empty and started a worker on the spot.
    pub cold_starts: u64,
    /// Idle workers found dead and thrown away.
    pub discarded: u64,
    /// Why the last failed start failed, until a start succeeds.
    pub last_error: Option<String>,
    /// Closed workers (of any session in this process) killed but not yet
    /// reaped: closing never waits for a worker's exit, and at most
    /// `MAX_UNREAPED` wait at once.
    pub unreaped: usize,
}

#[derive(Debug)]
struct State {
    ready: VecDeque<Session>,
    starting: usize,
    stats: PoolStats,
    failures: u32,
    closed: bool,
    /// No refill starts before this while a worker is still ready: set by
    /// a checkout that found the pool full (`REFILL_DEFERRED_BY`).
    refill_after: Option<Instant>,
}

#[derive(Debug)]
struct Shared {
    options: SessionOptions,
    shape: PoolOptions,
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Drops idle workers that died while they waited.
    fn prune(state: &mut State) {
        let before = state.ready.len();
        state.ready.retain_mut(Session::alive);
        state.stats.discarded += (before - state.ready.len()) as u64;
    }

    /// One background starter: keeps the pool full until it closes.
    fn run_starter(self: Arc<Self>) {
        crate::background::yield_when_woken();
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            Self::prune(&mut state);
            if state.ready.len() + state.starting >= self.shape.size {
                state = self
                    .changed
                    .wait_timeout(state, PRUNE_EVERY)
                    .map_or_else(|poisoned| poisoned.into_inner().0, |(guard, _)| guard);
                continue;
            }
            if let Some(after) = state.refill_after {
                let now = Instant::now();
                if now < after && !state.ready.is_empty() {
                    state = self
                        .changed
                        .wait_timeout(state, after - now)
                        .map_or_else(|poisoned| poisoned.into_inner().0, |(guard, _)| guard);
                    continue;
                }
                state.refill_after = None;
            }
            state.starting += 1;
            drop(state);
            let started = Session::launch_from(self.options.clone(), true);
            state = self.lock();
            state.starting -= 1;
            match started {
                Ok(session) if !state.closed => {
                    state.ready.push_back(session);
                    state.failures = 0;
                    state.stats.last_error = None;
                    self.changed.notify_all();
                }
                Ok(_) => return,
                Err(err) => {
                    state.stats.last_error = Some(err.to_string());
                    state.failures = state.failures.saturating_add(1);
                    let backoff = FIRST_BACKOFF
                        .saturating_mul(1 << state.failures.min(10))
                        .min(MAX_BACKOFF);
                    tracing::warn!(
                        "a pooled worker failed to start (retrying in {backoff:?}): {err}"
                    );
                    self.changed.notify_all();
                    state = self
                        .changed
                        .wait_timeout(state, backoff)
                        .map_or_else(|poisoned| poisoned.into_inner().0, |(guard, _)| guard);
                }
            }
        }
    }
}

/// Ready workers for sessions with one set of options.
///
/// A forked child never touches the parent's workers, threads or locks (a
/// lock another thread held at the fork stays held in the child): its first
/// call makes a pool of its own with the same options, and every call in
/// that process goes there.
#[derive(Debug)]
pub struct Pool {
    shared: Arc<Shared>,
    starters: Mutex<Vec<JoinHandle<()>>>,
    /// The process that made this pool.
    owner: u32,
    /// The pool a forked child uses instead of this one.
    in_child: OnceLock<Result<Box<Pool>, Error>>,
}

impl Pool {
    /// Starts a pool of `shape.size` workers for sessions with `options`.
    /// The first worker is started here, so options a worker refuses (or a
    /// kernel that cannot give `require` its sandbox) fail now, not in the
    /// background; the rest start in the background.
    pub fn new(options: SessionOptions, shape: PoolOptions) -> Result<Self, Error> {
        if shape.size == 0 {
            return Err(Error::invalid_option("a pool's size must be at least 1"));
        }
        if shape.max_concurrent_starts == 0 {
            return Err(Error::invalid_option(
                "max_concurrent_starts must be at least 1",
            ));
        }
        options.validate().map_err(Error::invalid_option)?;
        let first = Session::launch_from(options.clone(), true)?;
        let shared = Arc::new(Shared {
            options,
            shape,
            state: Mutex::new(State {
                ready: VecDeque::from([first]),
                starting: 0,
                stats: PoolStats::default(),
                failures: 0,
                closed: false,
                refill_after: None,
            }),
            changed: Condvar::new(),
        });
        let pool = Self {
            shared,
            starters: Mutex::new(Vec::new()),
            owner: std::process::id(),
            in_child: OnceLock::new(),
        };
        pool.start_starters()?;
        Ok(pool)
    }

    fn start_starters(&self) -> Result<(), Error> {
        let mut starters = self
            .starters
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for i in 0..self.shared.shape.max_concurrent_starts {
            let shared = Arc::clone(&self.shared);
            let handle = std::thread::Builder::new()
                .name(format!("stockade-pool-{i}"))
                .spawn(move || shared.run_starter())
                .map_err(|err| {
                    Error::Configuration(
                        ConfigurationError::new(
                            ConfigurationKind::CannotStart,
                            format!("cannot start the pool's starter thread: {err}"),
                        )
                        .caused_by(err),
                    )
                })?;
            starters.push(handle);
        }
        Ok(())
    }

    /// The pool this process uses: this one, or in a forked child a new one
    /// with the same options (made on first use, without touching any of
    /// this pool's locks).
    fn here(&self) -> Result<&Pool, Error> {
        if self.owner == std::process::id() {
            return Ok(self);
        }
        let made = self.in_child.get_or_init(|| {
            Pool::new(self.shared.options.clone(), self.shared.shape).map(Box::new)
        });
        match made {
            Ok(pool) => pool.here(),
            Err(err) => Err(err.clone()),
        }
    }

    /// A session in a ready worker with the pool's options, or, when none is
    /// ready, in a worker started on the spot (a cold start, never an error
    /// of its own).
    pub fn checkout(&self) -> Result<Session, Error> {
        self.checkout_with(&CheckoutOptions::default())
    }

    /// As `checkout`, with this checkout's parent-side limits.
    pub fn checkout_with(&self, checkout: &CheckoutOptions) -> Result<Session, Error> {
        let pool = self.here()?;
        if !std::ptr::eq(pool, self) {
            return pool.checkout_with(checkout);
        }
        let options = checkout.apply(&self.shared.options)?;
        let ready = {
            let mut state = self.shared.lock();
            if state.closed {
                return Err(Error::configuration(
                    ConfigurationKind::PoolClosed,
                    "the pool is closed",
                ));
            }
            state.stats.checkouts += 1;
            if state.ready.len() >= self.shared.shape.size && state.refill_after.is_none() {
                state.refill_after = Some(Instant::now() + REFILL_DEFERRED_BY);
            }
            let mut found = None;
            while let Some(mut session) = state.ready.pop_front() {
                if session.alive() {
                    found = Some(session);
                    break;
                }
                state.stats.discarded += 1;
            }
            if found.is_none() {
                state.stats.cold_starts += 1;
            }
            found
        };
        // A starter refills what was taken; woken once the lock is let go,
        // so that it does not wake only to wait for it.
        self.shared.changed.notify_all();
        match ready {
            Some(mut session) => {
                session.adopt(options);
                Ok(session)
            }
            None => Session::launch_from(options, true),
        }
    }

    /// The pool's counters.
    pub fn stats(&self) -> PoolStats {
        match self.here() {
            Ok(pool) if !std::ptr::eq(pool, self) => return pool.stats(),
            Ok(_) => {}
            Err(err) => {
                return PoolStats {
                    last_error: Some(err.to_string()),
                    ..PoolStats::default()
                };
            }
        }
        let state = self.shared.lock();
        PoolStats {
            ready: state.ready.len(),
            starting: state.starting,
            unreaped: crate::reaper::unreaped_workers(),
            ..state.stats.clone()
        }
    }

    /// The process ids of the ready workers (to watch them from outside).
    pub fn idle_worker_pids(&self) -> Vec<u32> {
        self.shared
            .lock()
            .ready
            .iter()
            .map(Session::worker_pid)
            .collect()
    }

    /// Waits until the pool is full; false if `timeout` passed first.
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        match self.here() {
            Ok(pool) if !std::ptr::eq(pool, self) => return pool.wait_ready(timeout),
            Ok(_) => {}
            Err(_) => return false,
        }
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        loop {
            Shared::prune(&mut state);
            if state.ready.len() >= self.shared.shape.size {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || state.closed {
                return false;
            }
            let wait = (deadline - now).min(PRUNE_EVERY);
            state = self
                .shared
                .changed
                .wait_timeout(state, wait)
                .map_or_else(|poisoned| poisoned.into_inner().0, |(guard, _)| guard);
        }
    }

    /// Ends every idle worker and stops refilling. Sessions already checked
    /// out are unaffected and end when they are dropped.
    pub fn close(&self) {
        if self.owner != std::process::id() {
            // A forked child closes its own pool; the parent's is the parent's.
            if let Some(Ok(pool)) = self.in_child.get() {
                pool.close();
            }
            return;
        }
        let idle: Vec<Session> = {
            let mut state = self.shared.lock();
            state.closed = true;
            self.shared.changed.notify_all();
            state.ready.drain(..).collect()
        };
        drop(idle);
        let starters: Vec<JoinHandle<()>> = self
            .starters
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .drain(..)
            .collect();
        for handle in starters {
            let _ = handle.join();
        }
        // A start that finished during close has pushed nothing (it saw
        // `closed`); drop anything that raced in anyway.
        let late: Vec<Session> = self.shared.lock().ready.drain(..).collect();
        drop(late);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
        if self.owner != std::process::id() {
            // The starter threads are the parent's; their handles must not
            // be joined or detached here. (get_mut takes no lock.)
            let starters = self
                .starters
                .get_mut()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            for handle in starters.drain(..) {
                std::mem::forget(handle);
            }
        }
    }
}
