//! Threads that work for the host in the background (a pool's starters,
//! the spare's starter, the reaper) are woken by a caller's checkout or
//! close; as SCHED_BATCH they get their fair share of the CPU but never
//! preempt a running thread when woken, so the caller's checkout or
//! close returns first (a woken starter took a pooled checkout from
//! about 15 to 45 µs on two cores).

/// Puts the calling thread in the batch class; best effort: a system that
/// refuses leaves it as it was, which only costs the caller a preemption.
/// Threads and processes it starts inherit the class (the kernel resets
/// only real-time ones); a worker puts itself back in the normal class
/// first thing (worker-core's `run`).
pub(crate) fn yield_when_woken() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler reads `param`, alive for the call; pid 0
    // is the calling thread, whose policy alone changes.
    let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
}
