//! What one MCP request may cost the server that parses it
//! (docs/integrations.md): `stockade mcp` over stdio and `stockade serve`
//! at `/mcp` refuse a request past the size bound, or holding more JSON
//! values or deeper nesting than it allows, before anything parses it,
//! and answer it with an error that says why; and one token's requests
//! under way cannot take the room another token's need.

mod server;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};
use server::{OTHER_TOKEN, STOCKADE, Server, TOKEN, peak_rss_kib};

/// The most a process's peak resident memory may rise under an attack.
const RISE_KIB: u64 = 200 * 1024;

/// A `tools/call` of `run_python` whose inputs hold `values` ones: about
/// two bytes a value, so `values` sets its size as well.
fn call_with_values(id: u64, values: usize) -> Vec<u8> {
    let mut call = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"run_python","arguments":{{"code":"len(x)","inputs":{{"x":["#
    )
    .into_bytes();
    for n in 0..values {
        if n > 0 {
            call.push(b',');
        }
        call.push(b'1');
    }
    call.extend_from_slice(b"]}}}}");
    call
}

fn python_call(id: u64, code: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "run_python", "arguments": {"code": code}}})
    .to_string()
    .into_bytes()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bounds","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `stockade mcp` with a client speaking on its stdin and stdout.
struct StdioClient {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl StdioClient {
    fn start() -> Self {
        let mut child = Command::new(STOCKADE)
            .args(["mcp", "--engine", "monty"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("stockade mcp starts");
        let input = child.stdin.take().expect("its stdin");
        let output = BufReader::new(child.stdout.take().expect("its stdout"));
        let mut mcp = Self {
            child,
            input,
            output,
        };
        mcp.send(INITIALIZE.as_bytes());
        assert_eq!(mcp.answer()["id"], 1);
        mcp.send(INITIALIZED.as_bytes());
        mcp
    }

    fn send(&mut self, message: &[u8]) {
        self.input.write_all(message).expect("the server reads");
        self.input.write_all(b"\n").expect("the server reads");
        self.input.flush().expect("the server reads");
    }

    fn answer(&mut self) -> Json {
        let mut line = String::new();
        self.output
            .read_line(&mut line)
            .expect("the server answers");
        serde_json::from_str(&line).unwrap_or_else(|err| panic!("{err}: {line:?}"))
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_message(answer: &Json) -> &str {
    answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {answer}"))
}

#[test]
fn an_mcp_request_past_the_bounds_is_refused_unparsed_over_stdio() {
    let mut mcp = StdioClient::start();
    mcp.send(&python_call(2, "1 + 1"));
    assert_eq!(mcp.answer()["result"]["structuredContent"]["result"], "2");
    let idle = peak_rss_kib(mcp.child.id());
    // 15 MiB on one line (rmcp's own transport parsed it, to 1.46 GiB).
    mcp.send(&call_with_values(3, 15 * 1024 * 1024 / 2));
    let answer = mcp.answer();
    assert_eq!(answer["id"], 3, "{answer}");
    assert!(
        error_message(&answer).contains("larger than this server takes (4194304 bytes"),
        "{answer}"
    );
    // Within the size, past what its parsed form may take: 3 MiB of ones.
    mcp.send(&call_with_values(4, 3 * 1024 * 1024 / 2));
    let answer = mcp.answer();
    assert_eq!(answer["id"], 4, "{answer}");
    assert!(
        error_message(&answer).contains("more than 16777216 bytes once parsed"),
        "{answer}"
    );
    // Past the size, its id written last (as some clients write it).
    let mut last = String::from_utf8(call_with_values(0, 5 * 1024 * 1024 / 2))
        .unwrap()
        .replacen(r#""id":0,"#, "", 1);
    last.pop();
    last.push_str(r#","id":"the-last"}"#);
    mcp.send(last.as_bytes());
    let answer = mcp.answer();
    assert_eq!(answer["id"], "the-last", "{answer}");
    // Nested past the bound.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}{}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    mcp.send(deep.as_bytes());
    let answer = mcp.answer();
    assert_eq!(answer["id"], 5, "{answer}");
    assert!(
        error_message(&answer).contains("deeper than 72"),
        "{answer}"
    );
    // The connection and its session live on, and what fits is served.
    mcp.send(&call_with_values(6, 1000));
    assert_eq!(
        mcp.answer()["result"]["structuredContent"]["result"],
        "1000"
    );
    let peak = peak_rss_kib(mcp.child.id());
    assert!(
        peak <= idle + RISE_KIB,
        "stockade mcp's peak rose from {idle} KiB to {peak} KiB"
    );
}

/// One raw HTTP/1.1 exchange with the server: the status, the headers
/// (lower-cased names) and the body. `body` is written from another
/// thread, since the server may answer (and close) before taking it all.
fn post(
    server: &Server,
    token: &str,
    session: Option<&str>,
    body: Vec<u8>,
    declare_length: bool,
) -> (u16, Vec<(String, String)>, String) {
    let mut stream = TcpStream::connect(&server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n",
        server.addr
    );
    if let Some(id) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
        ));
    }
    if declare_length {
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    } else {
        head.push_str("Transfer-Encoding: chunked\r\n\r\n");
    }
    stream.write_all(head.as_bytes()).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sending = std::thread::spawn(move || {
        if declare_length {
            let _ = writer.write_all(&body);
        } else {
            for chunk in body.chunks(64 * 1024) {
                if write!(writer, "{:x}\r\n", chunk.len()).is_err()
                    || writer.write_all(chunk).is_err()
                    || writer.write_all(b"\r\n").is_err()
                {
                    return;
                }
            }
            let _ = writer.write_all(b"0\r\n\r\n");
        }
    });
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let _ = sending.join();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// Opens an MCP session for `token`; its id.
fn open_session(server: &Server, token: &str) -> String {
    let (status, headers, body) = post(server, token, None, INITIALIZE.as_bytes().to_vec(), true);
    assert_eq!(status, 200, "{body}");
    let id = headers
        .iter()
        .find(|(name, _)| name == "mcp-session-id")
        .map(|(_, id)| id.clone())
        .expect("a session id");
    let (status, _, body) = post(
        server,
        token,
        Some(&id),
        INITIALIZED.as_bytes().to_vec(),
        true,
    );
    assert_eq!(status, 202, "{body}");
    id
}

/// The JSON-RPC error a refusal's body holds.
fn refusal(body: &str) -> Json {
    serde_json::from_str(body.trim()).unwrap_or_else(|err| panic!("{err}: {body:?}"))
}

#[test]
fn an_mcp_request_past_the_bounds_is_refused_unparsed_over_http() {
    let (server, _tokens) = Server::with_tokens(&[]);
    let session = open_session(&server, TOKEN);
    let (status, _, body) = post(
        &server,
        TOKEN,
        Some(&session),
        python_call(2, "1 + 1"),
        true,
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#"\"result\": \"2\""#) || body.contains(r#""result":"2""#),
        "{body}"
    );
    let idle = server.peak_rss_kib();
    // 60 MiB, declared: refused before a byte of it is read.
    let (status, _, body) = post(
        &server,
        TOKEN,
        Some(&session),
        call_with_values(3, 60 * 1024 * 1024 / 2),
        true,
    );
    assert_eq!(status, 413, "{body}");
    assert!(
        error_message(&refusal(&body)).contains("larger than this server takes"),
        "{body}"
    );
    // 60 MiB in chunks, its size unsaid: refused once the bound is read.
    let (status, _, body) = post(
        &server,
        TOKEN,
        Some(&session),
        call_with_values(4, 60 * 1024 * 1024 / 2),
        false,
    );
    assert_eq!(status, 413, "{body}");
    // Within the size, past the values: refused to its id.
    let (status, _, body) = post(
        &server,
        TOKEN,
        Some(&session),
        call_with_values(5, 3 * 1024 * 1024 / 2),
        true,
    );
    assert_eq!(status, 413, "{body}");
    let refused = refusal(&body);
    assert_eq!(refused["id"], 5, "{body}");
    assert!(
        error_message(&refused).contains("more than 16777216 bytes once parsed"),
        "{body}"
    );
    let peak = server.peak_rss_kib();
    assert!(
        peak <= idle + RISE_KIB,
        "the server's peak rose from {idle} KiB to {peak} KiB"
    );
    // The session lives, and what fits is served: the costliest requests
    // the budget lets through (small objects, whose maps cost most) too,
    // within the same bound on the server's memory.
    let (status, _, body) = post(
        &server,
        TOKEN,
        Some(&session),
        call_with_values(6, 1000),
        true,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("1000"), "{body}");
    let objects = 16 * 1024 * 1024 / 780;
    for id in 7..10 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "run_python", "arguments": {
                "code": "len(x)", "inputs": {"x": vec![json!({"a": 1}); objects]}}}});
        let (status, _, body) = post(
            &server,
            TOKEN,
            Some(&session),
            call.to_string().into_bytes(),
            true,
        );
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(&objects.to_string()), "{body}");
    }
    let peak = server.peak_rss_kib();
    assert!(
        peak <= idle + RISE_KIB,
        "the server's peak rose from {idle} KiB to {peak} KiB on the costliest requests it takes"
    );
}

/// Asks until the answer has status `wanted` or `time` has passed, and
/// gives the last answer: for a state the server reaches in its own time
/// (the trickling requests' share given back once they are gone).
fn answer_within(
    time: Duration,
    wanted: u16,
    mut ask: impl FnMut() -> (u16, String),
) -> (u16, String) {
    let deadline = std::time::Instant::now() + time;
    loop {
        let (status, body) = ask();
        if status == wanted || std::time::Instant::now() >= deadline {
            return (status, body);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn one_tokens_mcp_requests_under_way_cannot_take_the_room_of_anothers() {
    let (server, _tokens) = Server::with_tokens(&["--max-mcp-request-size", "1M"]);
    let session = open_session(&server, TOKEN);
    // Two requests that declare the largest size and send it slowly: the
    // token's whole share, held while they trickle in. A third request of
    // the same token is then refused at once. Which request the server
    // reads first decides which is refused, so on a loaded machine the
    // third may come first; then the two are refused instead, and the
    // round is made again, after a longer wait.
    let mut refused = None;
    let mut trickling = Vec::new();
    for round in 1..=5 {
        trickling = (0..2)
            .map(|_| {
                let mut stream = TcpStream::connect(&server.addr).expect("connect");
                write!(
                    stream,
                    "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{{",
                    server.addr,
                    1024 * 1024
                )
                .unwrap();
                stream
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300 * round));
        let (status, _, body) = post(&server, TOKEN, Some(&session), python_call(2, "1"), true);
        if status == 503 {
            refused = Some(body);
            break;
        }
        assert_eq!(status, 200, "{body}");
        trickling.clear();
        std::thread::sleep(Duration::from_millis(300));
    }
    let body = refused.expect("a request past the token's share was refused");
    assert!(error_message(&refusal(&body)).contains("share"), "{body}");
    // ...while another token's are served.
    let theirs = open_session(&server, OTHER_TOKEN);
    let (status, _, body) = post(
        &server,
        OTHER_TOKEN,
        Some(&theirs),
        python_call(2, "6 * 7"),
        true,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("42"), "{body}");
    // Once the trickling requests go, the token's share is its own again.
    drop(trickling);
    let (status, body) = answer_within(Duration::from_secs(20), 200, || {
        let (status, _, body) = post(
            &server,
            TOKEN,
            Some(&session),
            python_call(3, "6 * 7"),
            true,
        );
        (status, body)
    });
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("42"), "{body}");
}

#[test]
fn one_token_cannot_open_every_mcp_session_by_default() {
    let (server, _tokens) = Server::with_tokens(&["--max-mcp-sessions", "100"]);
    for _ in 0..64 {
        open_session(&server, TOKEN);
    }
    let (status, _, body) = post(&server, TOKEN, None, INITIALIZE.as_bytes().to_vec(), true);
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("64"), "{body}");
    // The rest of the server's sessions are left to other tokens.
    open_session(&server, OTHER_TOKEN);
}
