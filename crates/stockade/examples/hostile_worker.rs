//! A compromised worker, for tests that attack the host: it answers
//! Configure like a real worker, then breaks the protocol in the way its
//! name says. The host starts workers with no arguments, so tests start it
//! through a symbolic link named `hostile-MODE` (a link, not a script, so
//! no test ever executes a file another thread may still hold open for
//! writing); `hostile_worker MODE` works too. Never part of a release build.
//!
//! Modes, each what a worker running arbitrary code could do:
//! - `calls-after-abort`, `lookups-after-abort`: keep asking for host
//!   calls (or name lookups) whatever the host answers, Abort included;
//! - `empty-prints`, `tiny-prints`: flood the pipe with Print frames of
//!   zero bytes or one byte, never reading;
//! - `slow-lookups`: a lookup every 50 ms for ever, each answered at once,
//!   reporting no guest time;
//! - `oversized-result`: a Complete frame announcing 200 MiB, then its
//!   bytes; `nones`: a Complete of 16 Mi Nones (a 16 MiB frame);
//!   `huge-call-args`: a call with 100 MiB of arguments, then a Complete
//!   carrying the message the host answered it with. Each answers later
//!   feeds with `7`, so a test can show the session lived.

use std::io::{BufReader, Write};
use std::time::Duration;

use stockade_wire::{
    CallOutcome, PrintStream, Request, Response, SandboxReport, Value, WireLimits, WorkerInfo,
    decode_request, encode_response, read_frame,
};

fn main() {
    let mut args = std::env::args();
    let named = args.next().and_then(|zeroth| {
        std::path::Path::new(&zeroth)
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_prefix("hostile-"))
            .map(str::to_owned)
    });
    let mode = args.next().or(named).unwrap_or_default();
    let limits = WireLimits::default();
    let mut input = BufReader::new(std::io::stdin());
    let mut output = std::io::stdout();
    let mut read = move || -> Option<Request> {
        let payload = read_frame(&mut input, &limits).ok()??;
        decode_request(&payload, &limits).ok()
    };
    let mut send = move |response: &Response| {
        let frame = encode_response(response, &limits).unwrap_or_default();
        if output
            .write_all(&frame)
            .and_then(|()| output.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    };
    let Some(Request::Configure { .. }) = read() else {
        return;
    };
    send(&Response::Ready(WorkerInfo {
        protocol_version: 1,
        worker_version: "hostile".into(),
        engine: format!("hostile ({mode})"),
        sandbox: SandboxReport::unsandboxed(),
    }));
    let mut feeds = 0;
    while let Some(request) = read() {
        let Request::Feed { .. } = request else {
            continue;
        };
        feeds += 1;
        if feeds > 1 {
            send(&Response::Complete {
                elapsed_us: 0,
                value: Value::Int(7),
            });
            continue;
        }
        match mode.as_str() {
            "calls-after-abort" => loop {
                send(&call(Vec::new()));
                read();
            },
            "lookups-after-abort" => loop {
                send(&Response::Lookup {
                    elapsed_us: 0,
                    name: "missing".into(),
                });
                read();
            },
            "empty-prints" | "tiny-prints" => {
                let text = if mode == "empty-prints" { "" } else { "x" };
                let frame = encode_response(
                    &Response::Print {
                        stream: PrintStream::Stdout,
                        text: text.into(),
                    },
                    &limits,
                )
                .unwrap_or_default();
                let burst = frame.repeat(64 * 1024);
                let mut output = std::io::stdout();
                while output.write_all(&burst).is_ok() {}
                return;
            }
            "slow-lookups" => loop {
                send(&Response::Lookup {
                    elapsed_us: 0,
                    name: "missing".into(),
                });
                read();
                std::thread::sleep(Duration::from_millis(50));
            },
            "oversized-result" => {
                let announced: usize = 200 * 1024 * 1024;
                let mut output = std::io::stdout();
                let mut head = u32::try_from(announced)
                    .unwrap_or(u32::MAX)
                    .to_le_bytes()
                    .to_vec();
                // A Complete tag, then bytes that never form a value.
                head.push(0x85);
                let chunk = vec![0xeeu8; 1024 * 1024];
                let mut sent = 1;
                let _ = output.write_all(&head);
                while sent < announced {
                    let n = chunk.len().min(announced - sent);
                    if output.write_all(&chunk[..n]).is_err() {
                        return;
                    }
                    sent += n;
                }
                let _ = output.flush();
            }
            "nones" => {
                // Written by hand: as a Value the list would cost this
                // process the 800 MiB it is meant to cost the host.
                let count: u32 = 16 * 1024 * 1024 - 8;
                let mut payload = vec![0x85];
                payload.extend_from_slice(&0u64.to_le_bytes());
                payload.push(0x09);
                payload.extend_from_slice(&count.to_le_bytes());
                payload.resize(payload.len() + count as usize, 0x00);
                let mut frame = u32::try_from(payload.len())
                    .unwrap_or(u32::MAX)
                    .to_le_bytes()
                    .to_vec();
                frame.extend_from_slice(&payload);
                let mut output = std::io::stdout();
                let _ = output.write_all(&frame).and_then(|()| output.flush());
            }
            "huge-call-args" => {
                send(&call(vec![Value::Bytes(vec![0u8; 100 * 1024 * 1024])]));
                let answer = match read() {
                    Some(Request::Resume {
                        outcome: CallOutcome::Raise(exception),
                        ..
                    }) => format!("{}: {}", exception.type_name, exception.message),
                    other => format!("unexpected {other:?}"),
                };
                send(&Response::Complete {
                    elapsed_us: 0,
                    value: Value::Str(answer),
                });
            }
            _ => {
                eprintln!("hostile_worker: unknown mode {mode:?}");
                std::process::exit(2);
            }
        }
    }
}

/// A call of the host function `f`.
fn call(args: Vec<Value>) -> Response {
    Response::Call {
        elapsed_us: 0,
        call_id: 1,
        name: "f".into(),
        args,
        kwargs: Vec::new(),
    }
}
