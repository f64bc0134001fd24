//! `stockade.Mount`: a host directory opened when the object is made (a
//! missing path or a file fails then), shown to a sandbox's guest at a
//! path of its own, read only (`ro`), read-write (`rw`) or as an
//! in-memory overlay (`overlay`). See docs/files.md.

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::errors::configuration;

/// A host directory mounted into a sandbox.
#[pyclass(name = "Mount", module = "stockade", frozen)]
#[derive(Debug)]
pub struct NativeMount {
    pub mount: stockade::Mount,
}

#[pymethods]
impl NativeMount {
    #[new]
    #[pyo3(signature = (guest_path, host_dir, mode = "ro"))]
    fn new(py: Python<'_>, guest_path: &str, host_dir: PathBuf, mode: &str) -> PyResult<Self> {
        let mode =
            stockade::MountMode::parse(mode).map_err(|err| configuration(py, err.to_string()))?;
        let mount = stockade::Mount::new(guest_path, &host_dir, mode)
            .map_err(|err| configuration(py, err.to_string()))?;
        Ok(Self { mount })
    }

    /// Where the guest sees the directory.
    #[getter]
    fn guest_path(&self) -> &str {
        self.mount.guest_path()
    }

    /// The directory on the host, as it was when the mount was made.
    #[getter]
    fn host_dir(&self) -> PathBuf {
        self.mount.host_path().to_path_buf()
    }

    /// `ro`, `rw` or `overlay`.
    #[getter]
    fn mode(&self) -> &'static str {
        self.mount.mode().as_str()
    }

    fn __repr__(&self) -> String {
        format!(
            "Mount({:?}, {:?}, mode={:?})",
            self.mount.guest_path(),
            self.mount.host_path().display().to_string(),
            self.mount.mode().as_str()
        )
    }
}
