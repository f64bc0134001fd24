//! Async host calls in flight: started on a tokio runtime when the guest
//! calls them, awaited by the guest as futures, and resolved in batches
//! when every guest task waits on them.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use stockade_wire::CallOutcome;

use crate::host::{Answer, CallPolicy, HostFuture, Panicked, outcome};

/// One call in flight.
#[derive(Debug)]
struct Running {
    name: String,
    started: Instant,
    task: tokio::task::JoinHandle<()>,
}

/// A finished call: (feed generation, call id, answer).
type Finished = (u64, u32, Answer);

/// The async calls of the current feed.
#[derive(Debug)]
pub(crate) struct Inflight {
    tx: Sender<Finished>,
    rx: Receiver<Finished>,
    /// Answers from an earlier feed's abandoned calls carry an older
    /// generation and are dropped: call ids may repeat across feeds.
    generation: u64,
    running: HashMap<u32, Running>,
    /// Answers not yet sent: the function's name, its answer, how long it took.
    finished: HashMap<u32, (String, Answer, Duration)>,
}

impl Inflight {
    pub(crate) fn new() -> Self {
        let (tx, rx) = channel();
        Self {
            tx,
            rx,
            generation: 0,
            running: HashMap::new(),
            finished: HashMap::new(),
        }
    }

    /// Calls started and not yet resolved to the guest.
    pub(crate) fn len(&self) -> usize {
        self.running.len() + self.finished.len()
    }

    /// Whether `call_id` is in flight.
    pub(crate) fn knows(&self, call_id: u32) -> bool {
        self.running.contains_key(&call_id) || self.finished.contains_key(&call_id)
    }

    /// Starts `future` on `runtime` as call `call_id`.
    pub(crate) fn start(
        &mut self,
        call_id: u32,
        name: String,
        future: HostFuture,
        runtime: &tokio::runtime::Handle,
    ) {
        let tx = self.tx.clone();
        let generation = self.generation;
        let task = runtime.spawn(async move {
            // A second task isolates a panic in the host's future.
            let answer = tokio::spawn(future).await.map_err(|_| Panicked);
            let _ = tx.send((generation, call_id, answer));
        });
        self.running.insert(
            call_id,
            Running {
                name,
                started: Instant::now(),
                task,
            },
        );
    }

    fn collect(&mut self, (generation, call_id, answer): Finished) {
        if generation != self.generation {
            return;
        }
        if let Some(run) = self.running.remove(&call_id) {
            self.finished
                .insert(call_id, (run.name, answer, run.started.elapsed()));
        }
    }

    /// Waits until at least one of `call_ids` has an answer (or has run past
    /// `max_wait`, which answers it with a TimeoutError), then returns the
    /// outcomes of every one of them that is done.
    pub(crate) fn wait(
        &mut self,
        call_ids: &[u32],
        policy: &CallPolicy,
    ) -> Vec<(u32, CallOutcome)> {
        loop {
            while let Ok(done) = self.rx.try_recv() {
                self.collect(done);
            }
            let ready: Vec<u32> = call_ids
                .iter()
                .copied()
                .filter(|id| self.finished.contains_key(id))
                .collect();
            if !ready.is_empty() {
                return ready
                    .into_iter()
                    .filter_map(|id| {
                        let (name, answer, took) = self.finished.remove(&id)?;
                        Some((id, outcome(&name, answer, took, policy)))
                    })
                    .collect();
            }
            let now = Instant::now();
            let nearest = call_ids
                .iter()
                .filter_map(|id| self.running.get(id))
                .map(|run| run.started + policy.max_wait)
                .min();
            let Some(nearest) = nearest else {
                return Vec::new();
            };
            match self.rx.recv_timeout(nearest.saturating_duration_since(now)) {
                Ok(done) => self.collect(done),
                Err(RecvTimeoutError::Timeout) => {
                    for id in call_ids {
                        let overdue = self
                            .running
                            .get(id)
                            .is_some_and(|run| run.started.elapsed() >= policy.max_wait);
                        if overdue && let Some(run) = self.running.remove(id) {
                            run.task.abort();
                            // `outcome` answers any call that took past max_wait
                            // with a TimeoutError, whatever the answer stands in.
                            let stand_in = Err(Panicked);
                            self.finished
                                .insert(*id, (run.name, stand_in, run.started.elapsed()));
                        }
                    }
                }
                // The sender lives in self, so the channel cannot close.
                Err(RecvTimeoutError::Disconnected) => return Vec::new(),
            }
        }
    }

    /// Abandons every call of the feed that ended.
    pub(crate) fn clear(&mut self) {
        for run in self.running.values() {
            run.task.abort();
        }
        self.running.clear();
        self.finished.clear();
        self.generation += 1;
    }
}
