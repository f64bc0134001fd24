//! Closed sets of names (languages, sandbox modes, layers) read from text:
//! one error for a name that is none of them, saying which are.

use thiserror::Error;

/// A name that is none of a closed set's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{what} must be {expected}, not {name:?}")]
pub struct UnknownName {
    /// What was being named: "language", "sandbox".
    pub what: &'static str,
    pub name: String,
    /// The names there are, quoted: `"python" or "javascript"`.
    pub expected: String,
}

impl UnknownName {
    /// The member of `all` called `name`, or the error listing them.
    pub(crate) fn find<T: Copy>(
        what: &'static str,
        name: &str,
        all: &[T],
        name_of: impl Fn(T) -> &'static str,
    ) -> Result<T, Self> {
        if let Some(found) = all.iter().copied().find(|item| name_of(*item) == name) {
            return Ok(found);
        }
        let quoted: Vec<String> = all
            .iter()
            .map(|item| format!("{:?}", name_of(*item)))
            .collect();
        let expected = match quoted.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => quoted.join(""),
        };
        Err(Self {
            what,
            name: name.to_owned(),
            expected,
        })
    }
}

/// Defines a closed set of named values in one place: the enum, `ALL`,
/// `name()`, `Display` and `FromStr` (refusing other names with
/// `UnknownName`), and, for a set carried as one byte, its wire `Code`.
macro_rules! named_set {
    (
        $(#[$meta:meta])*
        pub enum $set:ident, named as $what:literal, on the wire as $wire:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal => $code:literal ),+ $(,)?
        }
    ) => {
        named_set! {
            $(#[$meta])*
            pub enum $set, named as $what {
                $( $(#[$vmeta])* $variant = $text ),+
            }
        }

        impl $crate::codec::Code for $set {
            const WHAT: &'static str = $wire;
            const MEMBERS: &'static [Self] = &$set::ALL;

            fn code(self) -> u8 {
                match self {
                    $( $set::$variant => $code ),+
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $set:ident, named as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $set {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $set {
            /// Every member, in order.
            pub const ALL: [$set; [$($text),+].len()] = [$($set::$variant),+];

            /// The name used on the command line, in options, in reports
            /// and in messages.
            pub fn name(self) -> &'static str {
                match self {
                    $( $set::$variant => $text ),+
                }
            }
        }

        impl std::fmt::Display for $set {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $set {
            type Err = $crate::UnknownName;

            fn from_str(name: &str) -> Result<Self, Self::Err> {
                $crate::UnknownName::find($what, name, &Self::ALL, |member| member.name())
            }
        }
    };
}

pub(crate) use named_set;
