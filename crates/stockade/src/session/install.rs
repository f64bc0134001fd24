//! Packages added to a CPython session after it was made: the host's
//! `install_dependencies`, and a feed's PEP 723 `# /// script` block when
//! the session allows its packages. A worker's package directories are
//! fixed when its sandbox closes, so packages are added only before the
//! session's first feed, by replacing its worker with one that has them
//! (nothing of the guest's is lost: it has run nothing); later, a request
//! for packages the session has already is answered, and any other is an
//! error saying to name them up front.

use crate::error::Error;
use crate::options::Interpreter;
use crate::packages::{normalise, package_name};
use crate::script_metadata::script_metadata;

use super::Session;

/// The allow-list entry that lets a script block name any package.
const ANY_PACKAGE: &str = "*";

impl Session {
    /// Makes `requirements` importable by the guest: installed on the host
    /// by uv (wheels only, cached) and shown read-only. Only a CPython
    /// session that has not run anything yet can take packages it does not
    /// have; an empty list does nothing.
    pub fn install_dependencies(&mut self, requirements: &[String]) -> Result<(), Error> {
        if requirements.is_empty() {
            return Ok(());
        }
        if self.options.interpreter() != Interpreter::CPython {
            return Err(Error::invalid_option(format!(
                "install_dependencies needs the cpython engine; this session runs {}",
                self.options.interpreter()
            )));
        }
        let wanted = normalise(requirements).map_err(Error::invalid_option)?;
        let have = normalise(&self.packages).map_err(Error::invalid_option)?;
        let missing: Vec<String> = wanted.into_iter().filter(|r| !have.contains(r)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        if self.fed {
            return Err(Error::invalid_option(format!(
                "packages can be added only before a session's first run: {} would need a new worker; name them in `packages` when the session is made",
                missing.join(", ")
            )));
        }
        if let Some(err) = &self.lost {
            return Err(err.clone());
        }
        let mut options = super::start::before_install(self.options.clone(), &self.packages);
        options.cpython.packages = have;
        options.cpython.packages.extend(missing);
        // One session's new worker: no spare is kept for its options.
        options.spare = false;
        let mut fresh = Session::new(options)?;
        // What the host gave the session carries over; the worker, which
        // has run nothing, is replaced.
        fresh.functions = std::mem::take(&mut self.functions);
        fresh.globals = std::mem::take(&mut self.globals);
        fresh.print = self.print.take();
        fresh.output = self.output.take();
        fresh.interrupt = self.interrupt.take();
        fresh.os_handler = self.os_handler.take();
        std::mem::swap(self, &mut fresh);
        fresh.close();
        Ok(())
    }

    /// Before a feed of `code`: the packages its `# /// script` block
    /// names, when the session allows script packages (`script_packages`,
    /// its allow-list) and runs on CPython; otherwise the block is a
    /// comment, as it is to Python.
    pub(super) fn install_script_packages(&mut self, code: &str) -> Result<(), Error> {
        let allowed = &self.options.cpython.script_packages;
        if allowed.is_empty() || self.options.interpreter() != Interpreter::CPython {
            return Ok(());
        }
        let Some(metadata) = script_metadata(code)
            .map_err(|why| Error::invalid_option(format!("the code's {why}")))?
        else {
            return Ok(());
        };
        let any = allowed.iter().any(|entry| entry == ANY_PACKAGE);
        let allowed: Vec<String> = allowed.iter().map(|entry| package_name(entry)).collect();
        // A requirement's extras bring in packages it does not name: only
        // `*` lets them through.
        if let Some(refused) = metadata.dependencies.iter().find(|requirement| {
            !any && (!allowed.contains(&package_name(requirement)) || requirement.contains('['))
        }) {
            return Err(Error::invalid_option(format!(
                "the code's `# /// script` block names {}, which script_packages does not allow",
                crate::text::escape_controls(refused)
            )));
        }
        self.install_dependencies(&metadata.dependencies)
    }
}
