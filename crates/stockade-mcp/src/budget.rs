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

/// What a parser builds of a request may take at most this many times the
/// size bound (16 MiB at the default), estimated by the scan: a value
/// takes `VALUE_COST` bytes, a string or key its text besides, an object
/// `OBJECT_COST` (a map's first node) and each of its keys `KEY_COST`.
pub const PARSED_PER_BYTE: usize = 4;
/// A parsed value (a number, `true`, a string's header, an array's).
const VALUE_COST: usize = 32;
/// An object: its value and the first node of its map, which holds
/// eleven entries whether it has one or eleven.
const OBJECT_COST: usize = 32 + 640;
/// An object's key: its string and its share of the map's nodes.
const KEY_COST: usize = 64;

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
    /// Values that would take more than the bound once parsed.
    #[error(
        "the request's JSON would take more than {max} bytes once parsed ({PARSED_PER_BYTE} times this server's max request size; small objects cost most); send less, or put data in a mounted file"
    )]
    TooCostly { max: usize },
    /// Nested deeper than [`MAX_REQUEST_DEPTH`].
    #[error("the request nests arrays and objects deeper than {max}")]
    TooDeep { max: usize },
}

impl RequestBudget {
    /// The most a parser may build of one request, as the scan
    /// estimates it.
    pub fn max_parsed(&self) -> usize {
        self.max_bytes
            .saturating_mul(PARSED_PER_BYTE)
            .max(64 * 1024)
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
        let max = self.max_parsed();
        let mut parsed = 0usize;
        // Whether each open container is an object, for its keys.
        let mut objects: Vec<bool> = Vec::new();
        // In an object, whether the next string is a key.
        let mut key_next = false;
        let mut at = 0;
        while at < json.len() {
            match json[at] {
                b'"' => {
                    let end = string_end(json, at);
                    parsed += end - at + if key_next { KEY_COST } else { VALUE_COST };
                    key_next = false;
                    at = end;
                    continue;
                }
                open @ (b'{' | b'[') => {
                    let object = open == b'{';
                    parsed += if object { OBJECT_COST } else { VALUE_COST };
                    objects.push(object);
                    key_next = object;
                    if objects.len() > MAX_REQUEST_DEPTH {
                        return Err(Refusal::TooDeep {
                            max: MAX_REQUEST_DEPTH,
                        });
                    }
                }
                b'}' | b']' => {
                    objects.pop();
                    key_next = false;
                }
                b',' => key_next = objects.last() == Some(&true),
                b't' | b'f' | b'n' | b'-' | b'0'..=b'9' => {
                    parsed += VALUE_COST;
                    at = scalar_end(json, at);
                    continue;
                }
                _ => {}
            }
            if parsed > max {
                return Err(Refusal::TooCostly { max });
            }
            at += 1;
        }
        if parsed > max {
            return Err(Refusal::TooCostly { max });
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

/// The `id` of a JSON-RPC request whose last bytes are `tail`, when the
/// id is its last top-level member (`..., "id": 7}`): a client may write
/// its members in any order, and a message too large to keep whole is
/// answered to the id its first or its last bytes hold.
pub fn trailing_request_id(tail: &[u8]) -> Option<Json> {
    let mut end = tail.len();
    while end > 0 && tail[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if end == 0 || tail[end - 1] != b'}' {
        return None;
    }
    end -= 1;
    while end > 0 && tail[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    // The value: a number, or a string without quotes inside it.
    let start = if tail.get(end.checked_sub(1)?) == Some(&b'"') {
        let open = tail[..end - 1].iter().rposition(|&b| b == b'"')?;
        if tail[open..end - 1].contains(&b'\\') {
            return None;
        }
        open
    } else {
        let digits = tail[..end]
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit() || **b == b'-')
            .count();
        (digits > 0).then(|| end - digits)?
    };
    let value = &tail[start..end];
    let mut before = start;
    while before > 0 && tail[before - 1].is_ascii_whitespace() {
        before -= 1;
    }
    if before == 0 || tail[before - 1] != b':' {
        return None;
    }
    let key_end = skip_space_back(tail, before - 1);
    if !tail[..key_end].ends_with(b"\"id\"") {
        return None;
    }
    let after_comma = skip_space_back(tail, key_end - 4);
    if after_comma == 0 || !matches!(tail[after_comma - 1], b',' | b'{') {
        return None;
    }
    serde_json::from_slice::<Json>(value)
        .ok()
        .filter(|id| id.is_string() || id.is_number())
}

/// Where the bytes before `at` end once trailing whitespace is left out.
fn skip_space_back(json: &[u8], mut at: usize) -> usize {
    while at > 0 && json[at - 1].is_ascii_whitespace() {
        at -= 1;
    }
    at
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
        let small = budget(64 * 1024);
        let max = small.max_parsed();
        // An array (one value) of ones (one value each).
        let ones = |n: usize| format!("[{}]", vec!["1"; n].join(",")).into_bytes();
        let most = max / VALUE_COST - 1;
        assert_eq!(small.check(&ones(most)), Ok(()));
        assert_eq!(
            small.check(&ones(most + 1)),
            Err(Refusal::TooCostly { max })
        );
        // Small objects cost what their maps' first nodes take.
        let objects = |n: usize| format!("[{}]", vec![r#"{"a":1}"#; n].join(",")).into_bytes();
        let per_object = OBJECT_COST + KEY_COST + 3 + VALUE_COST;
        let most = (max - VALUE_COST) / per_object;
        assert_eq!(small.check(&objects(most)), Ok(()));
        assert_eq!(
            small.check(&objects(most + 1)),
            Err(Refusal::TooCostly { max })
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

    #[test]
    fn an_id_written_last_is_found_in_the_last_bytes() {
        assert_eq!(
            trailing_request_id(br#"1,1]}}},"jsonrpc":"2.0","id":42}"#),
            Some(Json::from(42))
        );
        assert_eq!(
            trailing_request_id(b"  \"x\"]}}, \"id\" : \"call-9\" }\n"),
            Some(Json::from("call-9"))
        );
        // The id of a nested object, or none at the end: not the request's.
        assert_eq!(trailing_request_id(br#""params":{"id":3}}"#), None);
        assert_eq!(trailing_request_id(br#""method":"tools/call"}"#), None);
        assert_eq!(trailing_request_id(br#"x"id":5}"#), None);
    }
}
