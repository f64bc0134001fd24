//! The binding contract, declared once: every option a session takes by
//! name (`options.rs`), and how its values are written for people
//! (`render.rs`). The bindings, the CLI and the docs are generated from
//! it or tested against it (docs/architecture.md, "Adding an option").

mod options;
mod render;

pub use options::{
    CHECKOUT_OPTIONS, Engines, Kind, OPTIONS, OptionDefault, OptionSpec, SESSION_OPTIONS, Scope,
    spec,
};
pub use render::{bytes_text, camel_case, count_text, options_page};
