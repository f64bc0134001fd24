//! The Node.js addon: a thin layer over the host library, as the Python
//! package's extension is. `session.rs` holds a session and runs it off
//! Node's thread, answering with a promise; `values.rs` carries values as
//! tagged JSON, which `index.js` turns into JavaScript's own types (Map,
//! Set, BigInt, Buffer, Date) and back; `errors.rs` says what failed, by
//! kind, for `index.js` to raise as its error classes.

// Nothing a guest, a worker or a peer controls may reach a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
// The unit tests' build registers nothing with Node, so the exported
// functions are unused there.
#![cfg_attr(test, allow(dead_code))]

mod driver;
mod errors;
mod functions;
mod options;
mod pool;
mod session;
mod stepping;
mod values;
