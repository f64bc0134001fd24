//! This worker's engines: Python on monty and JavaScript on QuickJS, and
//! the `prepare` that picks one for a Configure.

mod javascript;
mod python;

use stockade_wire::EngineConfig;
use stockade_worker_core::engine::Prepared;

/// Prepares the engine `config` names, while the process can still open
/// what the engine needs; runs before the sandbox, on the main thread.
pub fn prepare(config: EngineConfig) -> Result<Box<dyn Prepared>, String> {
    Ok(match config {
        EngineConfig::Python => Box::new(python::Prepared),
        EngineConfig::JavaScript(config) => Box::new(javascript::Prepared(config)),
        // CPython runs in the interpreter's own process (stockade-cpython).
        other => {
            return Err(format!(
                "this worker binary has no {} engine",
                other.interpreter()
            ));
        }
    })
}
