//! `max_memory` for the interpreter's heap: hooks around CPython's raw
//! allocator and its arena allocator, through which the memory of every
//! Python object comes (small objects from arenas, the rest from the raw
//! allocator), count live bytes and refuse past the budget, so the guest
//! meets a catchable MemoryError and the session lives.
//!
//! The hooks wrap the allocators the interpreter already has (installed
//! after start-up, so blocks allocated before pass through the same
//! functions); sizes are the C library's own (`malloc_usable_size`), so a
//! block freed through a hook is counted as it was allocated. Memory that
//! C extensions take from `malloc` directly (numpy's arrays) is outside
//! this count: the RSS ceiling ends the worker for that.
//!
//! The allocator functions are not in CPython's stable ABI, but their
//! structures and names have not changed since 3.5; they are declared here.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// CPython's `PyMemAllocatorEx`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct MemAllocator {
    ctx: *mut c_void,
    malloc: Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>,
    calloc: Option<unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void>,
    realloc: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void>,
    free: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
}

/// CPython's `PyObjectArenaAllocator`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct ArenaAllocator {
    ctx: *mut c_void,
    alloc: Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>,
    free: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, usize)>,
}

/// `PYMEM_DOMAIN_RAW`.
const DOMAIN_RAW: c_int = 0;

unsafe extern "C" {
    fn PyMem_GetAllocator(domain: c_int, allocator: *mut MemAllocator);
    fn PyMem_SetAllocator(domain: c_int, allocator: *const MemAllocator);
    fn PyObject_GetArenaAllocator(allocator: *mut ArenaAllocator);
    fn PyObject_SetArenaAllocator(allocator: *const ArenaAllocator);
}

/// The allocators the hooks wrap.
#[derive(Debug)]
struct Wrapped {
    raw: MemAllocator,
    arena: ArenaAllocator,
}

// SAFETY: the pointers are CPython's allocator functions and contexts,
// fixed for the life of the process and callable from any thread (the raw
// domain is thread-safe by contract; arenas are used under the GIL).
unsafe impl Send for Wrapped {}
// SAFETY: as above; the structure is never written after it is set.
unsafe impl Sync for Wrapped {}

static WRAPPED: OnceLock<Wrapped> = OnceLock::new();
/// Live bytes since the budget was armed (may go below zero as memory
/// from before is freed).
static LIVE: AtomicI64 = AtomicI64::new(0);
/// Live bytes past which allocations are refused; unarmed: no limit.
static BUDGET: AtomicI64 = AtomicI64::new(i64::MAX);
/// Set when an allocation was refused: a MemoryError the guest did not
/// raise itself.
static TRIPPED: AtomicBool = AtomicBool::new(false);
/// What the refused allocation would have brought the count to.
static WOULD_BE: AtomicI64 = AtomicI64::new(0);

fn usable(ptr: *mut c_void) -> i64 {
    // SAFETY: `ptr` is a live block from the C library's allocator (the
    // raw domain's), which is what malloc_usable_size takes.
    i64::try_from(unsafe { libc::malloc_usable_size(ptr) }).unwrap_or(i64::MAX)
}

fn size(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Counts `n` more bytes if the budget allows.
fn reserve(n: i64) -> bool {
    let before = LIVE.fetch_add(n, Ordering::Relaxed);
    let after = before.saturating_add(n);
    if after > BUDGET.load(Ordering::Relaxed) {
        LIVE.fetch_sub(n, Ordering::Relaxed);
        WOULD_BE.store(after, Ordering::Relaxed);
        TRIPPED.store(true, Ordering::Relaxed);
        return false;
    }
    true
}

fn adjust(n: i64) {
    LIVE.fetch_add(n, Ordering::Relaxed);
}

fn wrapped() -> &'static Wrapped {
    // The hooks are only installed after WRAPPED is set.
    WRAPPED.get().unwrap_or_else(|| std::process::abort())
}

unsafe extern "C" fn raw_malloc(_ctx: *mut c_void, n: usize) -> *mut c_void {
    let raw = wrapped().raw;
    if !reserve(size(n)) {
        return std::ptr::null_mut();
    }
    // SAFETY: the interpreter's own raw malloc, with its context.
    let ptr = unsafe { raw.malloc.map_or(std::ptr::null_mut(), |f| f(raw.ctx, n)) };
    if ptr.is_null() {
        adjust(-size(n));
    } else {
        adjust(usable(ptr) - size(n));
    }
    ptr
}

unsafe extern "C" fn raw_calloc(_ctx: *mut c_void, count: usize, each: usize) -> *mut c_void {
    let raw = wrapped().raw;
    let n = count.saturating_mul(each);
    if !reserve(size(n)) {
        return std::ptr::null_mut();
    }
    // SAFETY: the interpreter's own raw calloc, with its context.
    let ptr = unsafe {
        raw.calloc
            .map_or(std::ptr::null_mut(), |f| f(raw.ctx, count, each))
    };
    if ptr.is_null() {
        adjust(-size(n));
    } else {
        adjust(usable(ptr) - size(n));
    }
    ptr
}

unsafe extern "C" fn raw_realloc(_ctx: *mut c_void, old: *mut c_void, n: usize) -> *mut c_void {
    let raw = wrapped().raw;
    let before = if old.is_null() { 0 } else { usable(old) };
    let grow = (size(n) - before).max(0);
    if grow > 0 && !reserve(grow) {
        return std::ptr::null_mut();
    }
    // SAFETY: the interpreter's own raw realloc, with its context, on a
    // block it allocated (or null).
    let ptr = unsafe {
        raw.realloc
            .map_or(std::ptr::null_mut(), |f| f(raw.ctx, old, n))
    };
    if ptr.is_null() {
        adjust(-grow);
    } else {
        adjust(usable(ptr) - before - grow);
    }
    ptr
}

unsafe extern "C" fn raw_free(_ctx: *mut c_void, ptr: *mut c_void) {
    let raw = wrapped().raw;
    if !ptr.is_null() {
        adjust(-usable(ptr));
    }
    // SAFETY: the interpreter's own raw free, on a block it allocated.
    unsafe {
        if let Some(free) = raw.free {
            free(raw.ctx, ptr);
        }
    }
}

unsafe extern "C" fn arena_alloc(_ctx: *mut c_void, n: usize) -> *mut c_void {
    let arena = wrapped().arena;
    if !reserve(size(n)) {
        return std::ptr::null_mut();
    }
    // SAFETY: the interpreter's own arena allocator, with its context.
    let ptr = unsafe {
        arena
            .alloc
            .map_or(std::ptr::null_mut(), |f| f(arena.ctx, n))
    };
    if ptr.is_null() {
        adjust(-size(n));
    }
    ptr
}

unsafe extern "C" fn arena_free(_ctx: *mut c_void, ptr: *mut c_void, n: usize) {
    let arena = wrapped().arena;
    adjust(-size(n));
    // SAFETY: the interpreter's own arena free, on an arena it allocated.
    unsafe {
        if let Some(free) = arena.free {
            free(arena.ctx, ptr, n);
        }
    }
}

/// Wraps the interpreter's raw and arena allocators. Called once, with the
/// GIL held and no other thread running Python. Refused for an
/// interpreter whose raw allocator is not the C library's plain malloc
/// (a debug build's hooks add headers the sizes would miss).
pub fn install(debug_build: bool) -> Result<(), String> {
    if debug_build {
        return Err(
            "a debug build of CPython wraps its allocators; max_memory is the RSS ceiling only"
                .into(),
        );
    }
    let mut raw = MemAllocator {
        ctx: std::ptr::null_mut(),
        malloc: None,
        calloc: None,
        realloc: None,
        free: None,
    };
    let mut arena = ArenaAllocator {
        ctx: std::ptr::null_mut(),
        alloc: None,
        free: None,
    };
    // SAFETY: both fill the structure they are given; the GIL is held.
    unsafe {
        PyMem_GetAllocator(DOMAIN_RAW, &mut raw);
        PyObject_GetArenaAllocator(&mut arena);
    }
    if raw.malloc.is_none() || raw.free.is_none() || arena.alloc.is_none() || arena.free.is_none() {
        return Err("the interpreter reported no allocator to wrap".into());
    }
    WRAPPED
        .set(Wrapped { raw, arena })
        .map_err(|_| "the allocators were wrapped already".to_owned())?;
    let hooks = MemAllocator {
        ctx: std::ptr::null_mut(),
        malloc: Some(raw_malloc),
        calloc: Some(raw_calloc),
        realloc: Some(raw_realloc),
        free: Some(raw_free),
    };
    let arena_hooks = ArenaAllocator {
        ctx: std::ptr::null_mut(),
        alloc: Some(arena_alloc),
        free: Some(arena_free),
    };
    // SAFETY: the hooks only wrap the allocators read above (set in
    // WRAPPED first), so every block keeps its allocator; the GIL is held
    // and no other thread allocates through Python yet.
    unsafe {
        PyMem_SetAllocator(DOMAIN_RAW, &hooks);
        PyObject_SetArenaAllocator(&arena_hooks);
    }
    Ok(())
}

/// Starts counting from zero with `budget` bytes allowed. What was live
/// before (the interpreter's own, a template's modules) is not counted, so
/// freeing it makes the count go below zero: the guest may then hold a
/// little more than the budget, never more than it plus what it freed of
/// the engine's.
pub fn arm(budget: u64) {
    LIVE.store(0, Ordering::Relaxed);
    BUDGET.store(i64::try_from(budget).unwrap_or(i64::MAX), Ordering::Relaxed);
}

/// Forgets an earlier refusal (a feed starts).
pub fn clear_tripped() {
    TRIPPED.store(false, Ordering::Relaxed);
}

/// Whether an allocation was refused since the last `clear_tripped`, and
/// the count it would have reached.
pub fn tripped() -> Option<i64> {
    TRIPPED
        .load(Ordering::Relaxed)
        .then(|| WOULD_BE.load(Ordering::Relaxed))
}
