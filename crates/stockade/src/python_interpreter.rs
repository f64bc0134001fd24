//! What the host knows of a Python interpreter once `cpython::find_python`
//! has checked it: shared by the CPython options and the package layer,
//! which installs packages for exactly that interpreter.

use std::path::PathBuf;

/// An interpreter that can run the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonInterpreter {
    /// What the interpreter reports as `sys.executable`: a real binary, not
    /// a shim that needs the host's environment to find one.
    pub executable: PathBuf,
    /// `major.minor.micro`.
    pub version: String,
}
