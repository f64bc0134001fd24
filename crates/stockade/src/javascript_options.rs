//! Options that shape a JavaScript guest's world: heap and buffer limits,
//! strict eval, a frozen clock, a seeded Math.random, polyfills and modules.

use crate::files::GuestClock;

use stockade_wire::{JavaScriptConfig, MAX_CLOCK_MS, MAX_MODULES};

/// Deepest native stack a JavaScript guest may be given: the worker runs
/// guests on a 256 MiB thread and keeps the rest for itself.
pub const MAX_STACK_BYTES: u32 = 128 * 1024 * 1024;

/// JavaScript-only options; a Python session refuses any but the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JavaScriptOptions {
    /// Bytes the engine's heap may hold; past it the feed ends with an
    /// uncatchable `Error::Memory` and the worker ends (a heap that ran out
    /// is not trusted again). Default: `max_memory`.
    pub max_heap_size: Option<u64>,
    /// Live ArrayBuffer bytes; past it allocating one is a catchable
    /// RangeError. Default: a quarter of `max_memory`.
    pub max_buffer_bytes: Option<u64>,
    /// Native stack the interpreter may use; past it a catchable RangeError.
    /// Default: 8 MiB.
    pub max_stack_bytes: Option<u32>,
    /// eval, `new Function` and the async/generator function constructors
    /// throw EvalError however the guest reaches them. Default: off.
    pub strict_eval: bool,
    /// Timers on virtual time, queueMicrotask, TextEncoder/TextDecoder,
    /// atob/btoa, structuredClone, EventTarget, AbortController, Blob.
    /// Default: off.
    pub web_polyfills: bool,
    /// A run's result, unless undefined, comes back as `Value::Repr` of the
    /// text Node's `util.inspect` gives it, as Node's REPL shows it (the
    /// CLI's choice); structured values are lost. Default: off.
    pub inspect_results: bool,
    /// Math.random is a generator seeded with this. Default: unpredictable.
    pub random_seed: Option<u64>,
    /// Modules the guest may import by name; any other import is refused.
    pub modules: Vec<(String, String)>,
}

impl JavaScriptOptions {
    /// True when nothing differs from the defaults.
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Checks the modules (the numbers are `SessionOptions::check_ranges`'s).
    pub(crate) fn validate(&self) -> Result<(), String> {
        if self.modules.len() > MAX_MODULES {
            return Err(format!("at most {MAX_MODULES} modules may be registered"));
        }
        for (i, (name, _)) in self.modules.iter().enumerate() {
            if name.is_empty() {
                return Err("a module name must not be empty".into());
            }
            if self.modules[..i].iter().any(|(other, _)| other == name) {
                return Err(format!("module {name:?} is registered twice"));
            }
        }
        Ok(())
    }

    /// What the worker receives in Configure; `max_memory` sets the
    /// defaults, and a frozen `clock` stops `Date`.
    pub(crate) fn to_wire(
        &self,
        max_memory: Option<u64>,
        clock: GuestClock,
    ) -> Result<JavaScriptConfig, String> {
        let frozen_clock_ms = clock.frozen_ms();
        if frozen_clock_ms.is_some_and(|ms| ms.unsigned_abs() > MAX_CLOCK_MS.unsigned_abs()) {
            return Err("a frozen clock is outside the range of a JavaScript Date".into());
        }
        Ok(JavaScriptConfig {
            max_heap_size: self.max_heap_size.or(max_memory),
            max_buffer_bytes: self.max_buffer_bytes.or(max_memory.map(|m| m / 4)),
            max_stack_bytes: self.max_stack_bytes.unwrap_or(0),
            strict_eval: self.strict_eval,
            web_polyfills: self.web_polyfills,
            inspect_results: self.inspect_results,
            frozen_clock_ms,
            random_seed: self.random_seed,
            report_clock: false,
            modules: self.modules.clone(),
        })
    }
}
