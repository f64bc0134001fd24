//! The worker's global allocator: counts live heap bytes and refuses to pass a cap.
//!
//! The count lives in counters the worker binary chooses: the monty worker
//! gives monty's own `LIVE_MEMORY`, so the interpreter's catchable memory
//! checks see the same figure. A refused allocation does not return
//! null (Rust would abort with SIGABRT, which a stack overflow also produces):
//! it writes one line to stderr and exits with `WorkerExit::Memory` so the parent
//! can report a memory error rather than an unexplained crash.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use stockade_wire::WorkerExit;

/// Live bytes above which every allocation is refused; `usize::MAX` until armed.
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The allocator a worker binary installs (`#[global_allocator]`), counting
/// into the counters it names.
#[derive(Debug)]
pub struct CappedAllocator {
    /// Live heap bytes.
    live: &'static AtomicUsize,
    /// Live bytes when the worker was armed: what it costs to exist.
    baseline: &'static AtomicUsize,
}

impl CappedAllocator {
    pub const fn new(live: &'static AtomicUsize, baseline: &'static AtomicUsize) -> Self {
        Self { live, baseline }
    }

    /// Arms the cap: from now on live bytes may grow by at most `budget`
    /// over what is live at this moment (the worker's own baseline).
    pub fn arm(&self, budget: usize) {
        let baseline = self.live.load(Ordering::Relaxed);
        self.baseline.store(baseline, Ordering::Relaxed);
        CAP.store(baseline.saturating_add(budget), Ordering::Relaxed);
    }

    /// Records a baseline without capping anything.
    pub fn mark_baseline(&self) {
        self.baseline
            .store(self.live.load(Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Live bytes above the baseline: what the guest holds.
    pub fn used(&self) -> usize {
        self.live
            .load(Ordering::Relaxed)
            .saturating_sub(self.baseline.load(Ordering::Relaxed))
    }

    fn reserve(&self, size: usize) -> bool {
        let before = self.live.fetch_add(size, Ordering::Relaxed);
        if before.saturating_add(size) > CAP.load(Ordering::Relaxed) {
            self.live.fetch_sub(size, Ordering::Relaxed);
            return false;
        }
        true
    }

    fn release(&self, size: usize) {
        self.live.fetch_sub(size, Ordering::Relaxed);
    }

    /// Counts `size` live bytes (refusing past the cap), then allocates; a
    /// failed allocation gives the count back.
    fn counted(&self, size: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
        if !self.reserve(size) {
            refuse();
        }
        let ptr = allocate();
        if ptr.is_null() {
            self.release(size);
        }
        ptr
    }
}

#[cold]
fn refuse() -> ! {
    const MESSAGE: &[u8] =
        b"stockade-worker: max_memory exceeded: the allocator refused an allocation\n";
    // SAFETY: write(2) on fd 2 with a valid static buffer; no allocation happens
    // here, which matters because the allocator is what just failed.
    unsafe {
        libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
    }
    // SAFETY: _exit ends the process at once without running destructors or
    // atexit handlers, none of which may allocate now.
    unsafe { libc::_exit(WorkerExit::Memory.code()) }
}

// SAFETY: every method forwards to `System` with the caller's layout and only
// adds bookkeeping; the counters never affect which pointer is returned.
unsafe impl GlobalAlloc for CappedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds GlobalAlloc::alloc's contract for `layout`.
        self.counted(layout.size(), || unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for alloc.
        self.counted(layout.size(), || unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator (so by System) for `layout`.
        unsafe { System.dealloc(ptr, layout) };
        self.release(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !self.reserve(new_size - old) {
            refuse();
        }
        // SAFETY: the caller upholds GlobalAlloc::realloc's contract.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if new_ptr.is_null() {
            if new_size > old {
                self.release(new_size - old);
            }
        } else if new_size < old {
            self.release(old - new_size);
        }
        new_ptr
    }
}
