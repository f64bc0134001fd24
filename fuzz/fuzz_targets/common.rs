//! What the fuzz targets share: the bounds they decode under.

use stockade_wire::WireLimits;

/// Bounds small enough that the fuzzer reaches each one.
pub fn limits() -> WireLimits {
    WireLimits {
        max_frame: 1 << 20,
        max_depth: 64,
        max_nodes: 1 << 16,
        max_decoded_bytes: 1 << 24,
    }
}
