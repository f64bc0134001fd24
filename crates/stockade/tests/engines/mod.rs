//! For test files that keep a promise on every Python engine: the macros
//! that run one test function per engine, and per engine on a loopback
//! server of sessions too (`remote.rs`).

pub mod remote;

/// The tests of one test function on each Python engine: `cpython` and
/// `monty`, and with `remote`, `remote_cpython` and `remote_monty` too.
#[allow(unused_macros)]
macro_rules! engine_tests {
    ($name:ident) => {
        #[test]
        fn cpython() {
            super::$name(stockade::Interpreter::CPython)
        }

        #[test]
        fn monty() {
            super::$name(stockade::Interpreter::Monty)
        }
    };
    ($name:ident, remote) => {
        engine_tests!($name);

        #[test]
        fn remote_cpython() {
            crate::engines::remote::remotely(|| super::$name(stockade::Interpreter::CPython))
        }

        #[test]
        fn remote_monty() {
            crate::engines::remote::remotely(|| super::$name(stockade::Interpreter::Monty))
        }
    };
}

/// Runs each named test function (which takes an engine) on both Python
/// engines, as `NAME::cpython` and `NAME::monty`.
#[allow(unused_macros)]
macro_rules! on_both_python_engines {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                engine_tests!($name);
            }
        )*
    };
}

/// As `on_both_python_engines`, and each also with its sessions on the
/// loopback server (`remote::maybe_remote` in the file's options), as
/// `NAME::remote_cpython` and `NAME::remote_monty`.
#[allow(unused_macros)]
macro_rules! on_both_python_engines_and_remote {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                engine_tests!($name, remote);
            }
        )*
    };
}
