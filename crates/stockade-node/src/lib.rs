//! The Node.js addon: a thin layer over the host library, as the Python
//! package's extension is. `session.rs` holds a session, driven on a thread
//! of its own (`driver.rs`); `dispatch.rs` is the one queue to Node's
//! thread, carrying host calls (`functions.rs`), output and answers;
//! `stepping.rs` carries stepped runs' cursors; `pool.rs` a pool;
//! `options.rs` reads options and inputs; `values.rs` carries values as
//! tagged JSON, which `index.js` turns into JavaScript's own types (Map,
//! Set, BigInt, Buffer, Date) and back; `errors.rs` says what failed, by
//! kind, for `index.js` to raise as its error classes.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
// The unit tests' build registers nothing with Node, so the exported
// functions are unused there.
#![cfg_attr(test, allow(dead_code))]

mod dispatch;
mod driver;
mod errors;
mod functions;
mod options;
mod pool;
mod session;
mod stepping;
mod values;

/// The workspace's version, which the package's own (package.json) must
/// match.
#[napi_derive::napi]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The host library's error kinds, by the class names `errors.rs` sends
/// (`errors.js` has a class of each name).
#[napi_derive::napi]
pub fn error_classes() -> Vec<&'static str> {
    stockade::ErrorKind::ALL
        .iter()
        .map(|kind| kind.class_name())
        .collect()
}

/// `execute`'s defaults, the host library's: bytes of each stream kept,
/// and host memory the result may take.
#[napi_derive::napi]
pub fn execute_defaults() -> serde_json::Value {
    serde_json::json!({
        "DEFAULT_STREAM_LIMIT": stockade::DEFAULT_MAX_STREAM_BYTES,
        "DEFAULT_RESULT_LIMIT": stockade::DEFAULT_EXECUTE_RESULT_BYTES,
    })
}

/// What to do next after each kind, by class name, as the host library
/// words it (`errors.rs` sends the error's own with it).
#[napi_derive::napi]
pub fn error_advice() -> std::collections::HashMap<String, String> {
    stockade::ErrorKind::ALL
        .iter()
        .map(|kind| (kind.class_name().to_owned(), kind.spec().advice.to_owned()))
        .collect()
}
