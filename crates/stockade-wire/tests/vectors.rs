//! Checks every test vector in docs/protocol.md against the codec.

use stockade_wire::{
    FRAME_HEADER_LEN, WireLimits, decode_request, decode_response, decode_value, encode_request,
    encode_response, encode_value,
};

fn parse_hex(hex: &str) -> Vec<u8> {
    hex.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap_or_else(|_| panic!("bad hex byte {b:?}")))
        .collect()
}

fn vectors() -> Vec<(String, Vec<u8>, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.md");
    let doc = std::fs::read_to_string(path).expect("docs/protocol.md is readable");
    let block = doc
        .split("```vectors")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/protocol.md has a vectors block");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (lhs, expected) = line.split_once(" => ").expect("each vector has =>");
            let (kind, hex) = lhs.trim().split_once(' ').expect("each vector has a kind");
            (kind.to_owned(), parse_hex(hex), expected.to_owned())
        })
        .collect()
}

#[test]
fn vectors_in_protocol_md() {
    let limits = WireLimits::default();
    let all = vectors();
    assert!(
        all.len() >= 30,
        "expected the full vector set, found {}",
        all.len()
    );
    for (kind, bytes, expected) in all {
        match kind.as_str() {
            "value" => {
                let value =
                    decode_value(&bytes, &limits).unwrap_or_else(|e| panic!("{expected}: {e}"));
                assert_eq!(value.to_string(), expected);
                assert_eq!(
                    encode_value(&value, &limits).unwrap(),
                    bytes,
                    "re-encoding {expected}"
                );
            }
            "reject" => {
                let err = decode_value(&bytes, &limits).expect_err(&expected);
                assert!(
                    err.to_string().contains(&expected),
                    "{err} should mention {expected:?}"
                );
            }
            "request" => {
                let message = decode_request(&bytes[FRAME_HEADER_LEN..], &limits).unwrap();
                assert_eq!(format!("{message:?}"), expected);
                assert_eq!(encode_request(&message, &limits).unwrap(), bytes);
            }
            "response" => {
                let message = decode_response(&bytes[FRAME_HEADER_LEN..], &limits).unwrap();
                assert_eq!(format!("{message:?}"), expected);
                assert_eq!(encode_response(&message, &limits).unwrap(), bytes);
            }
            other => panic!("unknown vector kind {other}"),
        }
    }
}
