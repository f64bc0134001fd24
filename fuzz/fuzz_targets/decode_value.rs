//! Fuzzes the value decoder on its own: no panic, bounded allocation, and a
//! value it accepts re-encodes to the same bytes.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use stockade_wire::{decode_value, encode_value};

fuzz_target!(|data: &[u8]| common::round_trips(data, 0, decode_value, encode_value));
