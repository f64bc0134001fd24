//! How a worker process ends: the exit statuses both sides of the
//! connection agree on, from sysexits.h where one fits. `docs/limits.md`
//! has the table.

/// A worker's exit status, by what ended it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WorkerExit {
    /// Close received, or the parent closed its input.
    Closed,
    /// The allocator refused an allocation (`max_memory`), or the
    /// JavaScript heap passed `max_heap_size` (after a Fatal naming it).
    /// EX_DATAERR.
    Memory,
    /// An internal error. EX_SOFTWARE.
    Internal,
    /// The watchdog saw resident memory pass the RSS ceiling. EX_OSERR.
    Rss,
    /// The parent stopped reading the worker's output. EX_IOERR.
    Io,
    /// The watchdog saw the parent disappear. EX_TEMPFAIL.
    Orphaned,
    /// A protocol version outside the served range, a malformed Configure,
    /// or framing the worker cannot recover from (a Fatal names which).
    /// EX_PROTOCOL.
    Protocol,
    /// A configuration the worker refuses: a language it lacks, `require`
    /// on a kernel without a layer. EX_CONFIG.
    Config,
}

impl WorkerExit {
    /// Every status, for tables and tests.
    pub const ALL: [WorkerExit; 8] = [
        WorkerExit::Closed,
        WorkerExit::Memory,
        WorkerExit::Internal,
        WorkerExit::Rss,
        WorkerExit::Io,
        WorkerExit::Orphaned,
        WorkerExit::Protocol,
        WorkerExit::Config,
    ];

    /// The process exit status.
    pub const fn code(self) -> i32 {
        match self {
            WorkerExit::Closed => 0,
            WorkerExit::Memory => 65,
            WorkerExit::Internal => 70,
            WorkerExit::Rss => 71,
            WorkerExit::Io => 74,
            WorkerExit::Orphaned => 75,
            WorkerExit::Protocol => 76,
            WorkerExit::Config => 78,
        }
    }

    /// The status a worker exited with, if it is one of these.
    pub fn from_code(code: i32) -> Option<Self> {
        Self::ALL.into_iter().find(|exit| exit.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_code() {
        for exit in WorkerExit::ALL {
            assert_eq!(WorkerExit::from_code(exit.code()), Some(exit));
        }
        assert_eq!(WorkerExit::from_code(1), None);
    }
}
