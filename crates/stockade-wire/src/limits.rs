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
