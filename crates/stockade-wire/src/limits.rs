//! The decoder's (and encoder's) bounds, enforced before anything is built.

/// Hard bounds applied while encoding and decoding one frame.
///
/// Every bound is checked before the memory it guards is allocated, so a
/// hostile peer cannot make the reader allocate more than
/// `max_decoded_bytes` (plus the frame buffer itself) per frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireLimits {
    /// Largest frame payload in bytes (the 4-byte header not included).
    pub max_frame: usize,
    /// Deepest nesting of containers: a list of scalars has depth 1.
    pub max_depth: u32,
    /// Most values (every scalar and container counts one) in one frame.
    pub max_nodes: u64,
    /// Most bytes the decoded values of one frame may occupy, charged as the
    /// decoder goes: each value's in-memory size plus its string or byte payload.
    pub max_decoded_bytes: u64,
}

impl WireLimits {
    /// 256 MiB: the largest frame either side accepts.
    pub const DEFAULT_MAX_FRAME: usize = 256 * 1024 * 1024;
    /// 64 nested containers.
    pub const DEFAULT_MAX_DEPTH: u32 = 64;
    /// 16 Mi values in one frame.
    pub const DEFAULT_MAX_NODES: u64 = 16 * 1024 * 1024;
    /// 1 GiB of decoded values per frame.
    pub const DEFAULT_MAX_DECODED_BYTES: u64 = 1024 * 1024 * 1024;
}

impl Default for WireLimits {
    fn default() -> Self {
        Self {
            max_frame: Self::DEFAULT_MAX_FRAME,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_nodes: Self::DEFAULT_MAX_NODES,
            max_decoded_bytes: Self::DEFAULT_MAX_DECODED_BYTES,
        }
    }
}

/// Live bytes the worker's allocator allows past `max_memory` before it
/// refuses, so that the interpreter's own check (a clean MemoryError)
/// normally fires first and the hard cap only stops bursts between checks.
pub fn allocator_headroom(max_memory: u64) -> u64 {
    max_memory / 8 + 8 * 1024 * 1024
}

/// Resident memory the worker needs beyond its heap: code, stacks, slack.
const RSS_SLACK: u64 = 64 * 1024 * 1024;

/// Resident memory past which the worker's watchdog and the host's
/// supervisor end a worker whose heap is capped at `max_memory`.
pub fn rss_ceiling(max_memory: u64) -> u64 {
    max_memory
        .saturating_add(allocator_headroom(max_memory))
        .saturating_add(RSS_SLACK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rss_ceiling_sits_above_the_allocator_cap() {
        let max = 1024 * 1024 * 1024;
        assert!(rss_ceiling(max) > max + allocator_headroom(max));
        assert_eq!(rss_ceiling(u64::MAX), u64::MAX);
    }
}
