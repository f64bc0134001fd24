//! Property tests: every value round-trips, the encoder and decoder agree on
//! the bounds, and no byte string makes the decoder panic.

use num_bigint::BigInt;
use proptest::prelude::*;
use stockade_wire::{
    Date, DateTime, DecodeError, GuestException, KNOWN_EXCEPTION_TYPES, Request, Response,
    ResponseHead, SKIPPED_HEAD_LEN, Time, TimeDelta, Value, WireLimits, decode_request,
    decode_response, decode_value, decoded_size, encode_request, encode_response, encode_value,
    peek_response_head,
};

fn date() -> impl Strategy<Value = Date> {
    (1i32..=9999, 1u8..=12, 1u8..=28).prop_map(|(year, month, day)| Date { year, month, day })
}

fn time() -> impl Strategy<Value = Time> {
    (
        0u8..24,
        0u8..60,
        0u8..60,
        0u32..1_000_000,
        proptest::option::of(-86_399i32..=86_399),
    )
        .prop_map(|(hour, minute, second, microsecond, offset_seconds)| Time {
            hour,
            minute,
            second,
            microsecond,
            offset_seconds,
        })
}

fn big_outside_i64() -> impl Strategy<Value = BigInt> {
    (any::<bool>(), proptest::collection::vec(any::<u32>(), 3..6)).prop_map(|(negative, digits)| {
        let mut big: BigInt = BigInt::from(i64::MAX) + 1;
        for d in digits {
            big = big * 4_294_967_296u64 + d;
        }
        if negative { -big } else { big }
    })
}

fn hashable() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::None),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        big_outside_i64().prop_map(Value::BigInt),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |x| !x.is_nan())
            .prop_map(Value::Float),
        ".{0,12}".prop_map(Value::Str),
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(Value::Bytes),
        date().prop_map(Value::Date),
        time().prop_map(Value::Time),
        (date(), time()).prop_map(|(date, time)| Value::DateTime(DateTime { date, time })),
        (-999_999_999i32..=999_999_999, 0i32..86_400, 0i32..1_000_000).prop_map(
            |(days, seconds, microseconds)| {
                Value::TimeDelta(TimeDelta {
                    days,
                    seconds,
                    microseconds,
                })
            }
        ),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Tuple),
            proptest::collection::vec(inner, 0..4).prop_map(Value::FrozenSet),
        ]
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        hashable(),
        Just(Value::Undefined),
        (proptest::sample::select(KNOWN_EXCEPTION_TYPES), ".{0,20}")
            .prop_map(|(t, m)| Value::Exception(GuestException::new(t, &m))),
        ".{0,20}".prop_map(Value::Repr),
        Just(Value::Cycle("[...]".into())),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Tuple),
            proptest::collection::vec((hashable(), inner), 0..6).prop_map(Value::Dict),
            proptest::collection::vec(hashable(), 0..6).prop_map(Value::Set),
            proptest::collection::vec(hashable(), 0..6).prop_map(Value::FrozenSet),
        ]
    })
}

proptest! {
    #[test]
    fn values_round_trip(v in value()) {
        let limits = WireLimits::default();
        let bytes = encode_value(&v, &limits).unwrap();
        prop_assert_eq!(decode_value(&bytes, &limits).unwrap(), v);
    }

    #[test]
    fn encoder_and_decoder_agree_on_bounds(v in value(), depth in 1u32..8, nodes in 1u64..64, budget in 1u64..4096) {
        let tight = WireLimits { max_frame: 1 << 20, max_depth: depth, max_nodes: nodes, max_decoded_bytes: budget };
        let loose = WireLimits::default();
        let bytes = encode_value(&v, &loose).unwrap();
        match encode_value(&v, &tight) {
            Ok(tight_bytes) => {
                prop_assert_eq!(&tight_bytes, &bytes);
                prop_assert_eq!(decode_value(&bytes, &tight).unwrap(), v);
            }
            Err(_) => prop_assert!(decode_value(&bytes, &tight).is_err()),
        }
    }

    #[test]
    fn decoded_size_is_exactly_what_the_decoder_charges(v in value()) {
        let size = decoded_size(&v);
        let bytes = encode_value(&v, &WireLimits::default()).unwrap();
        let at = WireLimits { max_decoded_bytes: size, ..WireLimits::default() };
        prop_assert_eq!(decode_value(&bytes, &at).unwrap(), v);
        let under = WireLimits { max_decoded_bytes: size - 1, ..WireLimits::default() };
        let refused = matches!(decode_value(&bytes, &under), Err(DecodeError::BudgetExceeded { .. }));
        prop_assert!(refused, "one byte under the size must be refused");
    }

    #[test]
    fn the_head_of_a_response_names_it_from_its_first_bytes(v in value(), name in "[a-z_]{1,10}", id in any::<u32>()) {
        let limits = WireLimits::default();
        let call = Response::Call { elapsed_us: 7, call_id: id, name: name.clone(), args: vec![v.clone()], kwargs: vec![] };
        let frame = encode_response(&call, &limits).unwrap();
        let head = &frame[4..(4 + SKIPPED_HEAD_LEN).min(frame.len())];
        prop_assert_eq!(peek_response_head(head), ResponseHead::Call { call_id: id, name: Some(name) });
        prop_assert_eq!(peek_response_head(&head[..13]), ResponseHead::Call { call_id: id, name: None });
        let complete = encode_response(&Response::Complete { elapsed_us: 1, value: v }, &limits).unwrap();
        prop_assert_eq!(peek_response_head(&complete[4..5]), ResponseHead::Complete);
        let print = encode_response(&Response::Print { stream: stockade_wire::PrintStream::Stdout, text: "x".into() }, &limits).unwrap();
        prop_assert_eq!(peek_response_head(&print[4..]), ResponseHead::Other("Print"));
    }

    #[test]
    fn messages_round_trip(v in value(), name in "[a-z_]{1,10}", id in any::<u32>(), us in any::<u64>()) {
        let limits = WireLimits::default();
        let request = Request::Feed { code: format!("{name} = 1"), inputs: vec![(name.clone(), v.clone())], functions: vec![name.clone()] };
        let frame = encode_request(&request, &limits).unwrap();
        prop_assert_eq!(decode_request(&frame[4..], &limits).unwrap(), request);
        let response = Response::Call { elapsed_us: us, call_id: id, name: name.clone(), args: vec![v.clone()], kwargs: vec![(name, v)] };
        let frame = encode_response(&response, &limits).unwrap();
        prop_assert_eq!(decode_response(&frame[4..], &limits).unwrap(), response);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let limits = WireLimits::default();
        let _ = decode_value(&bytes, &limits);
        let _ = decode_request(&bytes, &limits);
        let _ = decode_response(&bytes, &limits);
    }

    #[test]
    fn mutated_encodings_never_panic_the_decoder(v in value(), at in any::<usize>(), byte in any::<u8>()) {
        let limits = WireLimits::default();
        let mut bytes = encode_value(&v, &limits).unwrap();
        let i = at % bytes.len();
        bytes[i] = byte;
        let _ = decode_value(&bytes, &limits);
    }
}

#[test]
fn nan_keeps_its_bits() {
    let limits = WireLimits::default();
    let nan = f64::from_bits(0x7ff8_0000_dead_beef);
    let bytes = encode_value(&Value::Float(nan), &limits).unwrap();
    match decode_value(&bytes, &limits).unwrap() {
        Value::Float(x) => assert_eq!(x.to_bits(), nan.to_bits()),
        other => panic!("expected a float, got {other:?}"),
    }
}
