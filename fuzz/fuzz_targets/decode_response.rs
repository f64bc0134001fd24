//! Fuzzes the response decoder (what a host reads): it must never panic or
//! allocate past its bounds, and whatever it accepts must re-encode to the
//! same bytes.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use stockade_wire::{decode_response, encode_response};

fuzz_target!(|data: &[u8]| {
    let limits = common::limits();
    if let Ok(message) = decode_response(data, &limits) {
        let frame = encode_response(&message, &limits).expect("a decoded message re-encodes");
        assert_eq!(&frame[4..], data, "re-encoding changed the bytes");
    }
});
