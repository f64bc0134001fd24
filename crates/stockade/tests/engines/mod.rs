//! For test files that keep a promise on every Python engine: the macro
//! that runs one test function per engine.

/// Runs each named test function (which takes an engine) on both Python
/// engines, as `NAME::cpython` and `NAME::monty`.
macro_rules! on_both_python_engines {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn cpython() {
                    super::$name(stockade::Interpreter::CPython)
                }

                #[test]
                fn monty() {
                    super::$name(stockade::Interpreter::Monty)
                }
            }
        )*
    };
}
