//! The Engine trait: what the serve loop needs from a guest language.

mod python;
mod python_values;

pub use python::PythonEngine;

use stockade_wire::{Response, Value};

use crate::link::Link;

/// The parent closed the session in the middle of a feed.
#[derive(Debug)]
pub struct Closed;

/// A guest language runtime holding one session's state.
pub trait Engine {
    /// Runs one snippet after binding `inputs`, answering suspensions through
    /// `link`, and returns the final reply (Complete or Error).
    fn feed(
        &mut self,
        code: &str,
        inputs: Vec<(String, Value)>,
        link: &mut Link,
    ) -> Result<Response, Closed>;

    /// Guest execution time consumed so far, in microseconds.
    fn elapsed_us(&self) -> u64;
}
