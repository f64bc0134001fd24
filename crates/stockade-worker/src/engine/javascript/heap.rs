//! The JavaScript heap limit: an allocator for QuickJS that counts live
//! bytes, refuses past `max_heap_size`, and remembers that it refused so the
//! interrupt handler can end the feed even if the guest catches the error.

use std::cell::Cell;
use std::rc::Rc;

use rquickjs::allocator::{Allocator, RustAllocator};

/// What the heap allocator and the engine share.
#[derive(Debug)]
pub struct HeapMeter {
    used: Cell<usize>,
    limit: usize,
    refused: Cell<bool>,
}

impl HeapMeter {
    pub fn new(limit: usize) -> Rc<Self> {
        Rc::new(Self {
            used: Cell::new(0),
            limit,
            refused: Cell::new(false),
        })
    }

    /// True once an allocation was refused; cleared by `reset`.
    pub fn exhausted(&self) -> bool {
        self.refused.get()
    }

    pub fn reset(&self) {
        self.refused.set(false);
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether `extra` more bytes fit; marks the meter exhausted if not.
    fn admit(&self, extra: usize) -> bool {
        let fits = self
            .used
            .get()
            .checked_add(extra)
            .is_some_and(|total| total <= self.limit);
        if !fits {
            self.refused.set(true);
        }
        fits
    }
}

/// QuickJS's allocator: Rust's global allocator (so the worker's own cap
/// sees every byte), metered.
pub struct MeteredAllocator {
    meter: Rc<HeapMeter>,
}

impl MeteredAllocator {
    pub fn new(meter: Rc<HeapMeter>) -> Self {
        Self { meter }
    }

    fn charge(&self, ptr: *mut u8) -> *mut u8 {
        if !ptr.is_null() {
            // SAFETY: `ptr` was just returned by RustAllocator and is live.
            let size = unsafe { RustAllocator::usable_size(ptr) };
            self.meter.used.set(self.meter.used.get() + size);
        }
        ptr
    }
}

// SAFETY: every allocation is delegated to RustAllocator, which upholds the
// trait's contract; this type only counts and refuses (returns null).
unsafe impl Allocator for MeteredAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.meter.admit(size) {
            return std::ptr::null_mut();
        }
        let ptr = RustAllocator.alloc(size);
        self.charge(ptr)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        // RustAllocator panics on an overflowing product; refuse it instead.
        let Some(total) = count.checked_mul(size) else {
            self.meter.refused.set(true);
            return std::ptr::null_mut();
        };
        if total == 0 || !self.meter.admit(total) {
            return std::ptr::null_mut();
        }
        let ptr = RustAllocator.calloc(count, size);
        self.charge(ptr)
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: QuickJS frees only what this allocator handed out.
        let size = unsafe { RustAllocator::usable_size(ptr) };
        self.meter
            .used
            .set(self.meter.used.get().saturating_sub(size));
        // SAFETY: as above.
        unsafe { RustAllocator.dealloc(ptr) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // QuickJS routes a null pointer to malloc before it gets here, but a
        // null must never reach RustAllocator::realloc.
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        // SAFETY: QuickJS reallocates only what this allocator handed out.
        let old = unsafe { RustAllocator::usable_size(ptr) };
        if new_size > old && !self.meter.admit(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above; on failure the old block stays valid and counted.
        let moved = unsafe { RustAllocator.realloc(ptr, new_size) };
        if !moved.is_null() {
            self.meter
                .used
                .set(self.meter.used.get().saturating_sub(old));
            self.charge(moved);
        }
        moved
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: QuickJS asks only about blocks this allocator handed out.
        unsafe { RustAllocator::usable_size(ptr) }
    }
}
