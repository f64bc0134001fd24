//! Fuzzes the value decoder on its own: no panic, bounded allocation, and a
//! value it accepts re-encodes to the same bytes.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use stockade_wire::{decode_value, encode_value};

fuzz_target!(|data: &[u8]| {
    let limits = common::limits();
    if let Ok(value) = decode_value(data, &limits) {
        let bytes = encode_value(&value, &limits).expect("a decoded value re-encodes");
        assert_eq!(bytes, data, "re-encoding changed the bytes");
    }
});
