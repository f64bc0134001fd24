//! The stockade worker for monty and QuickJS: serves one guest session,
//! in Python (monty) or JavaScript (QuickJS), over stdin/stdout frames.
//!
//! The binary is `stockade-worker` in the stockade-cli package
//! (`crates/stockade-cli/src/worker.rs`), so that `cargo install` of the
//! CLI installs the worker beside `stockade`, where the CLI looks first.
//! It sets [`allocator`] as its global allocator and calls [`main`]; the
//! allocator is declared there so that nothing else linking this library
//! inherits it.
//!
//! The parent starts it with an empty environment, sends Configure, and then
//! drives turns; the worker exits when its input closes or on Close. Exit
//! statuses follow sysexits.h where one fits (see `docs/limits.md`).

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod engine;

use monty_types::{BASELINE_MEMORY, LIVE_MEMORY};
use stockade_worker_core::Worker;
pub use stockade_worker_core::alloc::CappedAllocator;

/// The allocator the worker binary must install: it counts into monty's
/// own figures, so its catchable memory checks see every allocation
/// (QuickJS's too).
pub const fn allocator() -> CappedAllocator {
    CappedAllocator::new(&LIVE_MEMORY, &BASELINE_MEMORY)
}

/// The worker's whole life, given the binary's global allocator (made by
/// [`allocator`]); returns the process's exit status.
pub fn main(allocator: &'static CappedAllocator) -> i32 {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("stockade-worker {}", env!("CARGO_PKG_VERSION"));
        return 0;
    }
    stockade_worker_core::close_inherited_descriptors();
    let worker = Worker {
        allocator,
        prepare: engine::prepare,
        link: stockade_worker_core::LinkEnds::Stdio,
        fork: stockade_worker_core::template::fork_beside,
    };
    if std::env::args().nth(1).as_deref() == Some(stockade_wire::TEMPLATE_FLAG) {
        stockade_worker_core::run_template(worker)
    } else {
        stockade_worker_core::run(worker)
    }
}
