//! Resource limits: no core dumps, a CPU-time ceiling, a small open-files cap.

use rustix::process::{Resource, Rlimit, setrlimit};

use crate::{Layer, Requirement, SandboxError};

/// Open descriptors a worker may hold: stdio, its two pipe clones, and a
/// few to spare.
pub const OPEN_FILES: u64 = 16;

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

/// Applies RLIMIT_CORE 0, RLIMIT_CPU (when given; SIGXCPU at the soft
/// limit, SIGKILL a second later) and RLIMIT_NOFILE.
pub fn apply(req: &mut Requirement, cpu_seconds: Option<u64>) -> Result<(), SandboxError> {
    let result = (|| {
        set(Resource::Core, 0, 0)?;
        if let Some(cpu) = cpu_seconds {
            set(Resource::Cpu, cpu, cpu.saturating_add(1))?;
        }
        set(Resource::Nofile, OPEN_FILES, OPEN_FILES)
    })();
    req.outcome(Layer::Rlimits, result)
}
