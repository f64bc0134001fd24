//! Fuzzes the value decoder on its own: no panic, bounded allocation, and a
//! value it accepts re-encodes to the same bytes and decodes to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stockade_wire::{WireLimits, decode_value, encode_value};

fuzz_target!(|data: &[u8]| {
    let limits = WireLimits {
        max_frame: 1 << 20,
        max_depth: 64,
        max_nodes: 1 << 16,
        max_decoded_bytes: 1 << 24,
    };
    if let Ok(value) = decode_value(data, &limits) {
        let bytes = encode_value(&value, &limits).expect("a decoded value re-encodes");
        assert_eq!(bytes, data, "re-encoding changed the bytes");
    }
});
