//! Fuzzes the sealed dump envelope as a host meets it: arbitrary bytes
//! never open (without the key nothing can be forged), and neither peeking
//! at the header nor opening panics; a dump sealed from the input opens to
//! the same bytes, and with one byte of it changed does not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stockade_dump::{Kind, SealKeys, open, peek, seal};

fuzz_target!(|data: &[u8]| {
    let Ok(keys) = SealKeys::new(&[[7u8; 32]]) else {
        return;
    };
    let _ = peek(data);
    assert!(open(&keys, b"context", data).is_err());
    let Ok(sealed) = seal(&keys, b"context", Kind::Suspended, "monty", "0.0.23", data, 1 << 20)
    else {
        return;
    };
    let opened = open(&keys, b"context", &sealed).map(|(_, body)| body);
    assert_eq!(opened.as_deref(), Ok(data));
    if let Some(first) = data.first() {
        let mut altered = sealed.clone();
        let at = usize::from(*first) % altered.len();
        altered[at] ^= 0x80;
        assert!(open(&keys, b"context", &altered).is_err());
    }
});
