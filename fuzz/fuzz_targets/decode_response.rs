//! Fuzzes the response decoder (what a host reads): it must never panic or
//! allocate past its bounds, and whatever it accepts must re-encode to the
//! same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stockade_wire::{WireLimits, decode_response, encode_response};

fuzz_target!(|data: &[u8]| {
    let limits = WireLimits {
        max_frame: 1 << 20,
        max_depth: 64,
        max_nodes: 1 << 16,
        max_decoded_bytes: 1 << 24,
    };
    if let Ok(message) = decode_response(data, &limits) {
        let frame = encode_response(&message, &limits).expect("a decoded message re-encodes");
        assert_eq!(&frame[4..], data, "re-encoding changed the bytes");
    }
});
