//! The self-test: before any guest code exists, the worker tries what the
//! sandbox should stop. With every layer in force, anything that gets
//! through refuses the start.

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{Layer, Requirement, SandboxError};

/// One attempt and whether it got through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub name: &'static str,
    pub got_through: bool,
    pub detail: String,
}

fn probe(name: &'static str, attempt: impl FnOnce() -> Result<String, String>) -> Probe {
    match attempt() {
        Ok(detail) => Probe {
            name,
            got_through: true,
            detail,
        },
        Err(detail) => Probe {
            name,
            got_through: false,
            detail,
        },
    }
}

/// Runs every probe. `Ok` from an attempt means it got through.
pub fn probes(readable: &[PathBuf], scratch: Option<&Path>) -> Vec<Probe> {
    // The scratch directory is for writing: the probe writes elsewhere.
    let outside = if scratch.is_some() { "" } else { "/tmp" };
    let mut probes = vec![
        probe("read a file", || {
            std::fs::read("/etc/passwd")
                .map(|_| "read /etc/passwd".to_owned())
                .map_err(|e| e.to_string())
        }),
        probe("write a file", || {
            let path = format!("{outside}/stockade-selftest-{}", std::process::id());
            std::fs::write(&path, b"x").map_err(|e| e.to_string())?;
            let _ = std::fs::remove_file(&path);
            Ok(format!("created {path}"))
        }),
        probe("spawn a process", || {
            // SAFETY: fork in a single-threaded process; the child leaves
            // at once through _exit.
            let child = unsafe { libc::fork() };
            match child {
                -1 => Err(std::io::Error::last_os_error().to_string()),
                0 => {
                    // SAFETY: ends the child immediately.
                    unsafe { libc::_exit(0) }
                }
                pid => {
                    let mut status = 0;
                    // SAFETY: reaps our own child; `status` is a valid out-pointer.
                    unsafe { libc::waitpid(pid, &mut status, 0) };
                    Ok(format!("forked process {pid}"))
                }
            }
        }),
        probe("open a TCP connection", || {
            let addr = SocketAddr::from(([127, 0, 0, 1], 9));
            match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
                Ok(_) => Ok("connected to 127.0.0.1:9".into()),
                // A refusal means a live network stack answered.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                    Ok(format!("reached 127.0.0.1: {e}"))
                }
                Err(e) => Err(e.to_string()),
            }
        }),
        probe("signal the parent", || {
            let parent = rustix::process::getppid().ok_or("no parent")?;
            // SAFETY: kill with signal 0 only checks permission; no signal is sent.
            let rc = unsafe { libc::kill(parent.as_raw_nonzero().get(), 0) };
            if rc == 0 {
                Ok(format!("may signal process {}", parent.as_raw_nonzero()))
            } else {
                Err(std::io::Error::last_os_error().to_string())
            }
        }),
    ];
    // A readable tree is for reading: writing beside what is in it fails.
    if let Some(tree) = readable.iter().find(|p| p.is_dir()) {
        probes.push(probe("write into a readable tree", || {
            let path = tree.join(format!(".stockade-selftest-{}", std::process::id()));
            std::fs::write(&path, b"x").map_err(|e| e.to_string())?;
            let _ = std::fs::remove_file(&path);
            Ok(format!("created {}", path.display()))
        }));
    }
    probes
}

/// Runs the probes and records the outcome.
pub fn run(
    req: &mut Requirement,
    readable: &[PathBuf],
    scratch: Option<&Path>,
) -> Result<(), SandboxError> {
    let leaks: Vec<String> = probes(readable, scratch)
        .into_iter()
        .filter(|p| p.got_through)
        .map(|p| format!("{}: {}", p.name, p.detail))
        .collect();
    if leaks.is_empty() {
        req.applied(Layer::SelfTest);
        return Ok(());
    }
    let summary = leaks.join("; ");
    if req.complete() {
        return Err(SandboxError::SelfTestFailed(summary));
    }
    req.unavailable(
        Layer::SelfTest,
        format!("with layers missing, these got through: {summary}"),
    )
}

/// In a worker forked from a template, once it narrowed the template's
/// filter: what the template may do and the worker may not (signal
/// another process, fork as the template does) must fail.
pub fn narrowed(forked: Option<&crate::Forked>) -> Result<(), String> {
    if let Some(forked) = forked {
        own_layers(forked)?;
    }
    let parent = rustix::process::getppid().map_or(1, |p| p.as_raw_nonzero().get());
    // SAFETY: kill with signal 0 only checks permission; no signal is sent.
    if unsafe { libc::kill(parent, 0) } == 0 {
        return Err(format!("a forked worker may signal process {parent}"));
    }
    // SAFETY: a clone that should fail; if it does not, the new process
    // leaves at once through _exit, touching nothing.
    let forked = unsafe {
        libc::syscall(
            libc::SYS_clone,
            crate::seccomp::policy::TEMPLATE_FORK,
            0,
            0,
            0,
            0,
        )
    };
    if forked == 0 {
        // SAFETY: ends the process the failed probe made.
        unsafe { libc::_exit(0) }
    }
    if forked > 0 {
        return Err("a forked worker may fork as its template does".into());
    }
    Ok(())
}

/// The layers a forked worker put in force itself, probed: its
/// capabilities are gone (a file of its own with no permission bits
/// cannot be opened, as it could with `CAP_DAC_OVERRIDE`), and, where it
/// entered Landlock, a file of a readable tree cannot be opened for
/// writing for Landlock's sake (EACCES), not only the mount's (EROFS).
fn own_layers(forked: &crate::Forked) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = format!(
        "{}/.stockade-selftest-{}",
        crate::scratch::SCRATCH_DIR,
        std::process::id()
    );
    if std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o000)
        .open(&probe)
        .is_ok()
    {
        let opened = std::fs::File::open(&probe);
        let _ = std::fs::remove_file(&probe);
        if opened.is_ok() {
            return Err("a forked worker kept the capability to read any file".into());
        }
    }
    if forked.landlock
        && let Some(file) = first_file(&forked.readable)
    {
        match std::fs::OpenOptions::new().write(true).open(&file) {
            Ok(_) => return Err(format!("a forked worker may write {}", file.display())),
            Err(err) if err.raw_os_error() != Some(libc::EACCES) => {
                return Err(format!(
                    "a forked worker's Landlock did not refuse writing {} ({err})",
                    file.display()
                ));
            }
            Err(_) => {}
        }
    }
    Ok(())
}

/// A regular file among the readable trees (a file named itself, or one
/// at the top of a directory), for the Landlock probe.
fn first_file(readable: &[PathBuf]) -> Option<PathBuf> {
    readable.iter().find_map(|path| {
        if path.is_file() {
            return Some(path.clone());
        }
        std::fs::read_dir(path)
            .ok()?
            .flatten()
            .map(|entry| entry.path())
            .find(|entry| entry.is_file())
    })
}
