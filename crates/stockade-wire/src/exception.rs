//! Guest exceptions on the wire: a type name from a closed set and a capped message.

/// Exception type names that may cross the wire. Python's built-in classes the
/// engines raise, and JavaScript's error constructors. A name outside this set
/// is refused by the decoder; an engine maps anything else to `Exception`
/// (Python) or `Error` (JavaScript) before sending.
pub const KNOWN_EXCEPTION_TYPES: &[&str] = &[
    // Python
    "BaseException",
    "Exception",
    "SystemExit",
    "KeyboardInterrupt",
    "ArithmeticError",
    "OverflowError",
    "ZeroDivisionError",
    "LookupError",
    "IndexError",
    "KeyError",
    "RuntimeError",
    "NotImplementedError",
    "RecursionError",
    "AttributeError",
    "FrozenInstanceError",
    "NameError",
    "UnboundLocalError",
    "ValueError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "json.JSONDecodeError",
    "ImportError",
    "ModuleNotFoundError",
    "OSError",
    "FileNotFoundError",
    "FileExistsError",
    "IsADirectoryError",
    "NotADirectoryError",
    "PermissionError",
    "io.UnsupportedOperation",
    "TimeoutError",
    "AssertionError",
    "MemoryError",
    "StopIteration",
    "SyntaxError",
    "TypeError",
    "re.PatternError",
    "binascii.Error",
    // JavaScript (TypeError and SyntaxError are shared with Python above)
    "Error",
    "RangeError",
    "ReferenceError",
    "EvalError",
    "URIError",
    "AggregateError",
    "InternalError",
];

/// Longest exception message carried, in bytes; longer ones are cut by the sender.
pub const MAX_EXCEPTION_MESSAGE: usize = 64 * 1024;
/// Longest traceback carried, in bytes; longer ones are cut by the sender.
pub const MAX_TRACEBACK: usize = 64 * 1024;

/// An exception raised by guest code (or handed to it by the host).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GuestException {
    /// One of [`KNOWN_EXCEPTION_TYPES`].
    pub type_name: String,
    /// The exception's message, at most [`MAX_EXCEPTION_MESSAGE`] bytes.
    pub message: String,
}

impl GuestException {
    /// Builds an exception, mapping an unknown type name to `Exception` and
    /// cutting an over-long message at a character boundary.
    pub fn new(type_name: &str, message: &str) -> Self {
        let type_name = if is_known_exception_type(type_name) {
            type_name
        } else {
            "Exception"
        };
        Self {
            type_name: type_name.to_owned(),
            message: truncate_utf8(message, MAX_EXCEPTION_MESSAGE).to_owned(),
        }
    }
}

impl std::fmt::Display for GuestException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_exception_line(f, &self.type_name, &self.message)
    }
}

/// Writes an exception as the last line of a Python traceback shows it:
/// `Type: message`, or the type alone when the message is empty.
pub fn write_exception_line(
    f: &mut std::fmt::Formatter<'_>,
    type_name: &str,
    message: &str,
) -> std::fmt::Result {
    if message.is_empty() {
        f.write_str(type_name)
    } else {
        write!(f, "{type_name}: {message}")
    }
}

/// Whether `name` is in the closed set of exception types.
pub fn is_known_exception_type(name: &str) -> bool {
    KNOWN_EXCEPTION_TYPES.contains(&name)
}

/// The longest prefix of `s` that is at most `max` bytes and ends on a
/// character boundary.
pub(crate) fn truncate_utf8(s: &str, max: usize) -> &str {
    &s[..s.floor_char_boundary(max)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_type_names_become_exception() {
        assert_eq!(GuestException::new("EvilError", "x").type_name, "Exception");
        assert_eq!(GuestException::new("KeyError", "x").type_name, "KeyError");
    }

    #[test]
    fn long_messages_are_cut_at_a_char_boundary() {
        let msg = "é".repeat(MAX_EXCEPTION_MESSAGE);
        let exc = GuestException::new("ValueError", &msg);
        assert!(exc.message.len() <= MAX_EXCEPTION_MESSAGE);
        assert!(exc.message.chars().all(|c| c == 'é'));
    }
}
