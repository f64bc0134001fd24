//! A feed the host ended stays ended: once the guest has caught the end
//! and called a host function again, a C trace function raises the end at
//! every line it runs and every Python function it calls, handlers' lines
//! included, until the engine takes it away when the feed's code has
//! returned.
//!
//! The exception the engine also leaves pending (`PyThreadState_SetAsyncExc`)
//! is not enough alone: the interpreter meets it at a place that depends
//! on its version (3.12 at a loop's backward jump, naming the instruction
//! before the jump's target, inside the loop's `try`; 3.9 and 3.10 at
//! almost any instruction, the first of a handler among them), so a guest
//! whose handlers catch every raise, or nest, would carry the feed on. A
//! trace written in Python would not do: one that raises is unset, and
//! its own first instruction meets the pending exception. A C one stays.
//!
//! `PyEval_SetTrace` is not in the stable ABI, but its signature and the
//! event numbers have not changed since Python 2; they are declared here.

use std::cell::Cell;
use std::ffi::c_int;

use pyo3::ffi;
use pyo3::prelude::*;

/// CPython's `Py_tracefunc`.
type TraceFunction = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *mut ffi::PyObject,
    c_int,
    *mut ffi::PyObject,
) -> c_int;

/// `PyTrace_CALL` and `PyTrace_LINE`.
const TRACE_CALL: c_int = 0;
const TRACE_LINE: c_int = 2;

unsafe extern "C" {
    fn PyEval_SetTrace(function: Option<TraceFunction>, object: *mut ffi::PyObject);
}

/// The trace: raises `ended` (the exception instance `arm` gave) at every
/// call and line; the other events pass.
unsafe extern "C" fn raise_ended(
    ended: *mut ffi::PyObject,
    _frame: *mut ffi::PyObject,
    what: c_int,
    _arg: *mut ffi::PyObject,
) -> c_int {
    if what != TRACE_CALL && what != TRACE_LINE {
        return 0;
    }
    // SAFETY: the interpreter calls a trace with the GIL held; `ended` is
    // the instance `arm` installed, kept alive by the thread's trace
    // state. An instance, not its class: making one would run its
    // `__init__`, Python, under this trace.
    unsafe {
        ffi::PyErr_SetObject(ffi::Py_TYPE(ended).cast(), ended);
    }
    -1
}

/// The session's means to end a feed for good: `sys.gettrace` as it was
/// before any guest ran (a guest may replace it in the module all code
/// shares), and whether the trace is armed.
#[derive(Debug)]
pub struct FeedEnd {
    gettrace: Py<PyAny>,
    armed: Cell<bool>,
}

impl FeedEnd {
    /// Made when the engine starts, before any guest code.
    pub fn new(py: Python<'_>) -> PyResult<Self> {
        Ok(Self {
            gettrace: py.import("sys")?.getattr("gettrace")?.unbind(),
            armed: Cell::new(false),
        })
    }

    /// From now on every line and call of the session thread raises
    /// `ended`. Called on that thread, in a host function's call (no
    /// Python frame of the engine's own runs between it and the guest's).
    /// Not armed over a trace the guest set itself (a debugger's, a
    /// coverage tool's), which arming would take away for good: such a
    /// guest has only the pending exception against it, and the host's
    /// deadline behind that.
    pub fn arm(&self, py: Python<'_>, ended: &Bound<'_, PyAny>) -> PyResult<()> {
        if !self.armed.get() && !self.gettrace.bind(py).call0()?.is_none() {
            return Ok(());
        }
        // SAFETY: the GIL is held (`py`); PyEval_SetTrace takes its own
        // reference to `ended` and drops the trace it replaces.
        unsafe { PyEval_SetTrace(Some(raise_ended), ended.as_ptr()) }
        self.armed.set(true);
        Ok(())
    }

    /// Takes the trace away, if armed.
    pub fn disarm(&self, _py: Python<'_>) {
        if self.armed.replace(false) {
            // SAFETY: the GIL is held (`_py`); no trace is a valid state.
            unsafe { PyEval_SetTrace(None, std::ptr::null_mut()) }
        }
    }
}
