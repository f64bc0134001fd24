//! Every decoder bound accepts a value at its limit and rejects one past it,
//! and the encoder agrees.

use stockade_wire::{
    DecodeError, EncodeError, Frame, FrameReader, Request, Value, WireLimits, decode_request,
    decode_value, encode_request, encode_value,
};

fn nested(depth: usize) -> Value {
    let mut value = Value::Int(1);
    for _ in 0..depth {
        value = Value::List(vec![value]);
    }
    value
}

fn unbounded() -> WireLimits {
    WireLimits {
        max_frame: usize::MAX / 2,
        max_depth: u32::MAX,
        max_nodes: u64::MAX,
        max_decoded_bytes: u64::MAX,
    }
}

#[test]
fn depth_bound_accepts_at_the_default_limit_and_rejects_one_past() {
    let limits = WireLimits::default();
    let at = nested(WireLimits::DEFAULT_MAX_DEPTH as usize);
    let bytes = encode_value(&at, &limits).unwrap();
    assert_eq!(decode_value(&bytes, &limits).unwrap(), at);

    let past = nested(WireLimits::DEFAULT_MAX_DEPTH as usize + 1);
    assert!(matches!(
        encode_value(&past, &limits),
        Err(EncodeError::TooDeep { max: 64 })
    ));
    let bytes = encode_value(&past, &unbounded()).unwrap();
    assert!(matches!(
        decode_value(&bytes, &limits),
        Err(DecodeError::TooDeep { max: 64, .. })
    ));
}

#[test]
fn node_bound_accepts_at_the_limit_and_rejects_one_past() {
    let limits = WireLimits {
        max_nodes: 101,
        ..WireLimits::default()
    };
    // A list of 100 items is 101 values.
    let at = Value::List(vec![Value::None; 100]);
    assert_eq!(
        decode_value(&encode_value(&at, &limits).unwrap(), &limits).unwrap(),
        at
    );

    let past = Value::List(vec![Value::None; 101]);
    assert!(matches!(
        encode_value(&past, &limits),
        Err(EncodeError::TooManyNodes { max: 101 })
    ));
    let bytes = encode_value(&past, &unbounded()).unwrap();
    assert!(matches!(
        decode_value(&bytes, &limits),
        Err(DecodeError::TooManyNodes { max: 101 })
    ));
}

#[test]
fn dict_pairs_count_two_nodes_each() {
    let limits = WireLimits {
        max_nodes: 5,
        ..WireLimits::default()
    };
    let pair = |i| (Value::Int(i), Value::None);
    let at = Value::Dict(vec![pair(1), pair(2)]);
    assert!(encode_value(&at, &limits).is_ok());
    let past = Value::Dict(vec![pair(1), pair(2), pair(3)]);
    let bytes = encode_value(&past, &unbounded()).unwrap();
    assert!(matches!(
        decode_value(&bytes, &limits),
        Err(DecodeError::TooManyNodes { .. })
    ));
}

#[test]
fn decoded_bytes_budget_is_charged_incrementally() {
    let slot = size_of::<Value>() as u64;
    // One str value: its slot plus 1000 bytes of payload.
    let limits = WireLimits {
        max_decoded_bytes: slot + 1000,
        ..WireLimits::default()
    };
    let at = Value::Str("x".repeat(1000));
    assert_eq!(
        decode_value(&encode_value(&at, &limits).unwrap(), &limits).unwrap(),
        at
    );

    let past = Value::Str("x".repeat(1001));
    assert!(matches!(
        encode_value(&past, &limits),
        Err(EncodeError::BudgetExceeded { .. })
    ));
    let bytes = encode_value(&past, &unbounded()).unwrap();
    assert!(matches!(
        decode_value(&bytes, &limits),
        Err(DecodeError::BudgetExceeded { .. })
    ));
}

#[test]
fn a_container_count_is_charged_before_its_items_are_read() {
    // A list header claiming 2^32-1 items in a 5-byte frame must fail fast,
    // without reserving memory for the items.
    let bytes = [0x09, 0xff, 0xff, 0xff, 0xff];
    assert!(matches!(
        decode_value(&bytes, &WireLimits::default()),
        Err(DecodeError::Truncated { .. })
    ));
    // Items that are present but cost more than the budget are refused at the header.
    let slot = size_of::<Value>() as u64;
    let limits = WireLimits {
        max_decoded_bytes: slot * 10,
        ..WireLimits::default()
    };
    let big = encode_value(&Value::List(vec![Value::None; 50]), &unbounded()).unwrap();
    assert!(matches!(
        decode_value(&big, &limits),
        Err(DecodeError::BudgetExceeded { .. })
    ));
}

#[test]
fn frame_bound_accepts_at_the_limit_and_rejects_one_past() {
    let request = Request::Feed {
        code: "x".repeat(100),
        inputs: vec![],
        functions: vec!["f".into()],
    };
    let frame = encode_request(&request, &WireLimits::default()).unwrap();
    let payload_len = frame.len() - 4;
    let at = WireLimits {
        max_frame: payload_len,
        ..WireLimits::default()
    };
    assert_eq!(encode_request(&request, &at).unwrap(), frame);
    assert_eq!(decode_request(&frame[4..], &at).unwrap(), request);
    let mut reader = FrameReader::new(&at);
    reader.extend(&frame);
    assert!(matches!(
        reader.next_with(|_| ()).unwrap(),
        Some(Frame::Whole(()))
    ));

    let past = WireLimits {
        max_frame: payload_len - 1,
        ..WireLimits::default()
    };
    assert!(matches!(
        encode_request(&request, &past),
        Err(EncodeError::FrameTooLarge { .. })
    ));
    assert!(matches!(
        decode_request(&frame[4..], &past),
        Err(DecodeError::FrameTooLarge { .. })
    ));
    let mut reader = FrameReader::new(&past);
    reader.extend(&frame[..4]);
    assert!(matches!(
        reader.next_with(|_| ()),
        Err(DecodeError::FrameTooLarge { .. })
    ));
}

#[test]
fn the_default_frame_limit_is_256_mib_and_checked_on_the_header() {
    let limits = WireLimits::default();
    assert_eq!(limits.max_frame, 256 * 1024 * 1024);
    let mut reader = FrameReader::new(&limits);
    reader.extend(&(256u32 * 1024 * 1024).to_le_bytes());
    assert_eq!(
        reader.next_with(|_| ()),
        Ok(None),
        "a frame at the limit is awaited"
    );
    let mut reader = FrameReader::new(&limits);
    reader.extend(&(256u32 * 1024 * 1024 + 1).to_le_bytes());
    assert!(matches!(
        reader.next_with(|_| ()),
        Err(DecodeError::FrameTooLarge { .. })
    ));
}

#[test]
fn unhashable_keys_are_refused_both_ways() {
    let bad = Value::Set(vec![Value::Dict(vec![])]);
    assert!(matches!(
        encode_value(&bad, &WireLimits::default()),
        Err(EncodeError::Unhashable { kind: "dict" })
    ));
    let ok = Value::Dict(vec![(
        Value::Tuple(vec![Value::Int(1), Value::Str("a".into())]),
        Value::None,
    )]);
    assert!(encode_value(&ok, &WireLimits::default()).is_ok());
}

#[test]
fn malformed_requests_name_what_was_wrong() {
    let limits = WireLimits::default();
    assert_eq!(
        decode_request(&[0x7f], &limits),
        Err(DecodeError::UnknownMessage { tag: 0x7f })
    );
    assert_eq!(decode_request(&[], &limits), Err(DecodeError::EmptyFrame));
    let err = decode_request(&[0x04, 0x09], &limits).unwrap_err();
    assert!(err.to_string().contains("lookup outcome"), "{err}");
}
