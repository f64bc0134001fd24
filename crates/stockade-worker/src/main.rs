//! `stockade-worker`: serves one guest session over stdin/stdout frames,
//! in Python (monty) or JavaScript (QuickJS).
//!
//! The parent starts it with an empty environment, sends Configure, and then
//! drives turns; the worker exits when its input closes or on Close. Exit
//! statuses follow sysexits.h where one fits (see `docs/limits.md`).

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod engine;

use monty_types::{BASELINE_MEMORY, LIVE_MEMORY};
use stockade_worker_core::Worker;
use stockade_worker_core::alloc::CappedAllocator;

/// Counts into monty's own figures, so its catchable memory checks see
/// every allocation (QuickJS's too).
#[global_allocator]
static ALLOCATOR: CappedAllocator = CappedAllocator::new(&LIVE_MEMORY, &BASELINE_MEMORY);

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("stockade-worker {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    stockade_worker_core::close_inherited_descriptors();
    let worker = Worker {
        allocator: &ALLOCATOR,
        prepare: engine::prepare,
        link: stockade_worker_core::LinkEnds::Stdio,
        fork: stockade_worker_core::template::fork_beside,
    };
    std::process::exit(
        if std::env::args().nth(1).as_deref() == Some(stockade_wire::TEMPLATE_FLAG) {
            stockade_worker_core::run_template(worker)
        } else {
            stockade_worker_core::run(worker)
        },
    );
}
