//! What the fuzz targets share: the bounds they decode under, and the
//! round trip every decoder must keep.

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

/// Decodes `data`; whatever is accepted must re-encode to the same bytes
/// (`header` of them are the frame header the encoder adds).
#[allow(dead_code, reason = "not every target decodes messages")]
pub fn round_trips<M, D, E>(
    data: &[u8],
    header: usize,
    decode: impl Fn(&[u8], &WireLimits) -> Result<M, D>,
    encode: impl Fn(&M, &WireLimits) -> Result<Vec<u8>, E>,
) {
    let limits = limits();
    if let Ok(message) = decode(data, &limits) {
        let Ok(bytes) = encode(&message, &limits) else {
            panic!("a decoded message does not re-encode");
        };
        assert_eq!(&bytes[header..], data, "re-encoding changed the bytes");
    }
}
