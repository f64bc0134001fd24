//! Text that came from a worker or a guest, made safe to show on one line.

use std::borrow::Cow;

/// `text` with every control character written as its escape (`\n`, `\u{1b}`),
/// so that what a worker or a guest wrote cannot move a terminal's cursor,
/// set its title, or start a log line of its own. Text without control
/// characters comes back unchanged and uncopied.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            escaped.extend(c.escape_default());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn control_characters_become_escapes_and_the_rest_stays() {
        assert_eq!(escape_controls("a\nb\u{1b}[2Jé"), "a\\nb\\u{1b}[2Jé");
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed("plain")
        ));
    }
}
