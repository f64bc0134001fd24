//! The sealed envelope under attack: every flipped byte, every cut, other
//! keys and contexts, other versions, and arbitrary bytes are refused.

use stockade_dump::{DumpError, FORMAT_VERSION, Kind, MAX_NAME_BYTES, SealKeys, open, peek, seal};

fn keys(seeds: &[u8]) -> SealKeys {
    let keys: Vec<Vec<u8>> = seeds.iter().map(|seed| vec![*seed; 32]).collect();
    SealKeys::new(&keys).unwrap()
}

fn small_dump() -> Vec<u8> {
    seal(
        &keys(&[1]),
        b"tenant-a",
        Kind::Idle,
        "monty",
        "0.0.23",
        b"state",
        1 << 20,
    )
    .unwrap()
}

#[test]
fn a_sealed_dump_opens_with_its_key_and_context() {
    let (header, body) = open(&keys(&[1]), b"tenant-a", &small_dump()).unwrap();
    assert_eq!(body, b"state");
    assert_eq!(header.kind, Kind::Idle);
    assert_eq!(
        (header.engine.as_str(), header.engine_version.as_str()),
        ("monty", "0.0.23")
    );
    assert_eq!(peek(&small_dump()).unwrap(), header);
}

#[test]
fn two_seals_of_the_same_state_differ() {
    assert_ne!(small_dump(), small_dump());
}

#[test]
fn every_flipped_byte_is_refused_with_the_right_error() {
    let dump = small_dump();
    for at in 0..dump.len() {
        let mut altered = dump.clone();
        altered[at] ^= 0x01;
        match open(&keys(&[1]), b"tenant-a", &altered) {
            Err(DumpError::VersionMismatch { expected, .. }) => {
                assert!((8..10).contains(&at), "byte {at}");
                assert_eq!(expected, FORMAT_VERSION);
            }
            Err(DumpError::Rejected(_)) => assert!(!(8..10).contains(&at), "byte {at}"),
            other => panic!("byte {at} flipped gave {other:?}"),
        }
    }
}

#[test]
fn every_truncation_and_an_extension_are_refused() {
    let dump = small_dump();
    for len in 0..dump.len() {
        assert!(
            matches!(
                open(&keys(&[1]), b"tenant-a", &dump[..len]),
                Err(DumpError::Rejected(_))
            ),
            "cut at {len}"
        );
    }
    let mut longer = dump.clone();
    longer.push(0);
    assert!(
        matches!(open(&keys(&[1]), b"tenant-a", &longer), Err(DumpError::Rejected(m)) if m.contains("trailing"))
    );
}

#[test]
fn another_key_or_context_is_refused_and_older_keys_still_open() {
    let dump = small_dump();
    assert!(matches!(
        open(&keys(&[2]), b"tenant-a", &dump),
        Err(DumpError::Rejected(_))
    ));
    assert!(matches!(
        open(&keys(&[1]), b"tenant-b", &dump),
        Err(DumpError::Rejected(_))
    ));
    assert!(matches!(
        open(&keys(&[1]), b"", &dump),
        Err(DumpError::Rejected(_))
    ));
    // Rotation: the new key seals, the old one still opens its dumps.
    assert_eq!(
        open(&keys(&[2, 1]), b"tenant-a", &dump).unwrap().1,
        b"state"
    );
}

#[test]
fn short_keys_no_keys_and_oversized_dumps_are_refused() {
    assert!(matches!(
        SealKeys::new(&[[0u8; 31]]),
        Err(DumpError::Keys(_))
    ));
    assert!(matches!(
        SealKeys::new::<&[u8]>(&[]),
        Err(DumpError::Keys(_))
    ));
    let sealed = seal(
        &keys(&[1]),
        b"",
        Kind::Suspended,
        "quickjs",
        "x",
        &[0; 100],
        100,
    );
    assert!(matches!(
        sealed,
        Err(DumpError::TooLarge { limit: 100, .. })
    ));
    let long = "e".repeat(MAX_NAME_BYTES + 1);
    assert!(matches!(
        seal(&keys(&[1]), b"", Kind::Idle, &long, "x", b"", 1 << 20),
        Err(DumpError::Header(_))
    ));
}

#[test]
fn another_format_version_names_both_versions() {
    let mut dump = small_dump();
    dump[8..10].copy_from_slice(&7u16.to_le_bytes());
    let err = open(&keys(&[1]), b"tenant-a", &dump).unwrap_err();
    assert_eq!(
        err,
        DumpError::VersionMismatch {
            found: 7,
            expected: FORMAT_VERSION
        }
    );
    assert!(err.to_string().contains('7') && err.to_string().contains('1'));
}

#[test]
fn the_keys_debug_form_shows_no_key() {
    assert_eq!(format!("{:?}", keys(&[7, 8])), "SealKeys(2 keys, redacted)");
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_open_and_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        proptest::prop_assert!(open(&keys(&[1]), b"tenant-a", &bytes).is_err());
        let _ = peek(&bytes);
    }
}
