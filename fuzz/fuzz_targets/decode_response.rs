//! Fuzzes the response decoder (what a host reads): it must never panic or
//! allocate past its bounds, and whatever it accepts must re-encode to the
//! same bytes.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use stockade_wire::{decode_response, encode_response};

fuzz_target!(|data: &[u8]| common::round_trips(data, 4, decode_response, encode_response));
