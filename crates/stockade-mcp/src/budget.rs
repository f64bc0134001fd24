//! What one MCP request may cost before anything parses it: its size, and
//! the JSON values and nesting it holds, counted by a scan that builds
//! nothing. A parser builds a tree of a few dozen bytes a value, so a
//! request of small values costs many times its size once parsed (a
//! 60 MiB `tools/call` took a server to 5.8 GiB); a request past the
//! budget is refused for the price of reading it once.

use serde_json::Value as Json;

/// The largest request by default: well above any program a model writes
/// and the inputs that go with it, well below the message bound of a
/// server (data of any size belongs in a mounted file).
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// Bytes of the size bound for each JSON value a request may hold: at the
/// default bound, 262,144 values.
pub const BYTES_PER_VALUE: usize = 16;

/// The deepest a request may nest arrays and objects: the wire's 64
/// containers for a value, and the JSON-RPC envelope around `inputs`.
pub const MAX_REQUEST_DEPTH: usize = 72;

/// The bound on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestBudget {
    /// The most bytes one request may have.
    pub max_bytes: usize,
}

impl Default for RequestBudget {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_REQUEST_BYTES,
        }
    }
}

/// Why a request was refused unparsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Larger than the bound (`at_least`: it was not read to its end).
    #[error(
        "the request is {at_least} bytes or more, larger than this server takes ({max} bytes, its max request size); send less, or put data in a mounted file"
    )]
    TooLarge { at_least: usize, max: usize },
    /// More values than the bound allows.
    #[error(
        "the request holds more than {max} JSON values (one for each {BYTES_PER_VALUE} bytes of this server's max request size); send fewer, or put data in a mounted file"
    )]
    TooManyValues { max: usize },
    /// Nested deeper than [`MAX_REQUEST_DEPTH`].
    #[error("the request nests arrays and objects deeper than {max}")]
    TooDeep { max: usize },
}

impl RequestBudget {
    /// The most JSON values (scalars, containers and object keys) one
    /// request may hold.
    pub fn max_values(&self) -> usize {
        (self.max_bytes / BYTES_PER_VALUE).max(1024)
    }

    /// Checks `json` against the bound without building anything. It need
    /// not be valid JSON: what is not is left to the parser, whose cost
    /// the counts bound either way.
    pub fn check(&self, json: &[u8]) -> Result<(), Refusal> {
        if json.len() > self.max_bytes {
            return Err(Refusal::TooLarge {
                at_least: json.len(),
                max: self.max_bytes,
            });
        }
        let max_values = self.max_values();
        let mut values = 0usize;
        let mut depth = 0usize;
        let mut at = 0;
        while at < json.len() {
            match json[at] {
                b'"' => {
                    values += 1;
                    at = string_end(json, at);
                    continue;
                }
                b'{' | b'[' => {
                    values += 1;
                    depth += 1;
                    if depth > MAX_REQUEST_DEPTH {
                        return Err(Refusal::TooDeep {
                            max: MAX_REQUEST_DEPTH,
                        });
                    }
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                b't' | b'f' | b'n' | b'-' | b'0'..=b'9' => {
                    values += 1;
                    at = scalar_end(json, at);
                    continue;
                }
                _ => {}
            }
            if values > max_values {
                return Err(Refusal::TooManyValues { max: max_values });
            }
            at += 1;
        }
        if values > max_values {
            return Err(Refusal::TooManyValues { max: max_values });
        }
        Ok(())
    }
}

/// Where the string that opens at `json[start]` (a quote) ends: the index
/// after its closing quote, or the end of `json`.
fn string_end(json: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < json.len() {
        match json[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    json.len()
}

/// Where the number or literal that opens at `json[start]` ends.
fn scalar_end(json: &[u8], start: usize) -> usize {
    let mut at = start;
    while at < json.len()
        && (json[at].is_ascii_alphanumeric() || matches!(json[at], b'-' | b'+' | b'.'))
    {
        at += 1;
    }
    at
}

/// Where the value that opens at `json[start]` ends, or None when it is
/// cut off or not a value.
fn value_end(json: &[u8], start: usize) -> Option<usize> {
    match json.get(start)? {
        b'"' => {
            let end = string_end(json, start);
            (json.get(end - 1) == Some(&b'"') && end > start + 1).then_some(end)
        }
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = start;
            while at < json.len() {
                match json[at] {
                    b'"' => {
                        at = string_end(json, at);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            None
        }
        _ => {
            let end = scalar_end(json, start);
            (end > start).then_some(end)
        }
    }
}

fn skip_space(json: &[u8], mut at: usize) -> usize {
    while json.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The `id` of the JSON-RPC request `json` opens with (all of it or only
/// its first bytes), when its top-level members up to the `id` can be
/// read: what a refusal is answered to. Nothing is parsed but the id.
pub fn request_id(json: &[u8]) -> Option<Json> {
    let json = json.strip_prefix(b"\xef\xbb\xbf").unwrap_or(json);
    let mut at = skip_space(json, 0);
    if json.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(json, at);
        let key_end = value_end(json, at).filter(|_| json[at] == b'"')?;
        let key = &json[at..key_end];
        at = skip_space(json, key_end);
        if json.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(json, at + 1);
        let end = value_end(json, at)?;
        if key == b"\"id\"" {
            return serde_json::from_slice::<Json>(&json[at..end])
                .ok()
                .filter(|id| id.is_string() || id.is_number());
        }
        at = skip_space(json, end);
        match json.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max_bytes: usize) -> RequestBudget {
        RequestBudget { max_bytes }
    }

    #[test]
    fn a_request_within_the_budget_passes() {
        let call = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_python","arguments":{"code":"print(\"}]{[\")","inputs":{"rows":[1,2.5e3,-4,true,null,"x\"y"]}}}}"#;
        assert_eq!(budget(1 << 20).check(call), Ok(()));
    }

    #[test]
    fn each_bound_is_refused_one_past_it() {
        let small = budget(BYTES_PER_VALUE * 2048);
        let max = small.max_values();
        let values = |n: usize| format!("[{}]", vec!["1"; n - 1].join(",")).into_bytes();
        assert_eq!(small.check(&values(max)), Ok(()));
        assert_eq!(
            small.check(&values(max + 1)),
            Err(Refusal::TooManyValues { max })
        );
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
        assert_eq!(small.check(&nested(MAX_REQUEST_DEPTH)), Ok(()));
        assert_eq!(
            small.check(&nested(MAX_REQUEST_DEPTH + 1)),
            Err(Refusal::TooDeep {
                max: MAX_REQUEST_DEPTH
            })
        );
        let large = vec![b' '; small.max_bytes + 1];
        assert!(matches!(
            small.check(&large),
            Err(Refusal::TooLarge { at_least, .. }) if at_least == small.max_bytes + 1
        ));
    }

    #[test]
    fn brackets_and_quotes_inside_strings_count_as_one_string() {
        let text = format!(r#"["{}\"{}"]"#, "[{".repeat(500), "]}".repeat(500));
        assert_eq!(budget(64 * 1024).check(text.as_bytes()), Ok(()));
    }

    #[test]
    fn the_id_is_found_in_a_request_or_its_first_bytes() {
        let call = br#" {"jsonrpc":"2.0","params":{"a":[1,{"id":9}]},"id":"call-7","method":"tools/call"}"#;
        assert_eq!(request_id(call), Some(Json::from("call-7")));
        let cut = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"arguments":{"code":"x = [1,"#;
        assert_eq!(request_id(cut), Some(Json::from(42)));
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(request_id(br#"{"id":[1]}"#), None);
        assert_eq!(request_id(b"[1,2]"), None);
        assert_eq!(request_id(br#"{"id":"#), None);
    }
}
