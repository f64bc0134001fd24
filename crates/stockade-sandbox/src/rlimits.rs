//! Resource limits: no core dumps, a CPU-time ceiling, a small open-files cap.

use rustix::process::{Resource, Rlimit, setrlimit};

use crate::{Layer, Requirement, SandboxError};

/// Open descriptors a worker without files may hold: stdio, its two pipe
/// clones, and a few to spare.
pub const OPEN_FILES: u64 = 16;
/// Open descriptors an interpreter reading its trees may hold: imports open
/// and close files, extension modules map theirs, threads add a few.
pub const INTERPRETER_OPEN_FILES: u64 = 64;
/// Open descriptors an interpreter with a scratch directory may hold: code
/// that writes files keeps many open at once (a hundred temporary files,
/// a database and its journal per connection), as the system's usual soft
/// limit allows; each is a bounded kernel object.
pub const SCRATCH_OPEN_FILES: u64 = 1024;

fn set(resource: Resource, soft: u64, hard: u64) -> Result<(), String> {
    setrlimit(
        resource,
        Rlimit {
            current: Some(soft),
            maximum: Some(hard),
        },
    )
    .map_err(|err| format!("setrlimit({resource:?}) failed: {err}"))
}

/// Applies RLIMIT_CORE 0 and RLIMIT_CPU (when given; SIGXCPU at the soft
/// limit, SIGKILL a second later), first of all the layers.
pub fn apply(req: &mut Requirement, cpu_seconds: Option<u64>) -> Result<(), SandboxError> {
    let result = (|| -> Result<(), String> {
        set(Resource::Core, 0, 0)?;
        if let Some(cpu) = cpu_seconds {
            set(Resource::Cpu, cpu, cpu.saturating_add(1))?;
        }
        Ok(())
    })();
    req.outcome(Layer::Rlimits, result)
}

/// RLIMIT_CPU alone: a template leaves it out (its own CPU time adds up
/// over every fork) and each worker it forks sets it for itself.
pub fn cpu(seconds: u64) -> Result<(), String> {
    set(Resource::Cpu, seconds, seconds.saturating_add(1))
}

/// Applies RLIMIT_NOFILE, after the empty root is made (attaching each
/// readable tree holds a descriptor until it is attached).
pub fn cap_open_files(req: &mut Requirement, files: u64) -> Result<(), SandboxError> {
    let result = set(Resource::Nofile, files, files);
    req.outcome(Layer::Rlimits, result)
}
