//! The binding contract, declared once: every option a session takes by
//! name (`table.rs`, each row as `options.rs` defines it), how its values
//! are written for people (`render.rs`), how a binding's value is read as
//! one (`value.rs`), and every error kind's class, session, exit status
//! and advice (`errors.rs`). The bindings, the CLI and the docs are
//! generated from it or tested against it (docs/architecture.md, "Adding an option").

mod errors;
mod options;
mod render;
mod table;
#[cfg(test)]
mod table_tests;
mod value;

pub use errors::{ErrorSpec, exit};

pub use options::{Engines, Kind, OptionDefault, OptionSpec, Scope};
pub use render::{bytes_text, camel_case, count_text, options_page};
pub use table::{CHECKOUT_OPTIONS, OPTIONS, SESSION_OPTIONS, spec};
pub(crate) use value::Named;
pub use value::OptionValue;
