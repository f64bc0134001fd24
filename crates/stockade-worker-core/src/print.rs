//! Guest print output: buffered, then sent as Print frames in order.
//!
//! Output is sent when about `flush_bytes` are buffered, when the oldest
//! buffered byte has waited `flush_interval`, before every suspension and at
//! the end of a feed. Nothing is reordered: one buffer, one stream of frames.

use std::time::{Duration, Instant};

use stockade_wire::{PrintStream, Response};

use crate::out::Out;

/// Largest text carried by one Print frame.
const MAX_PRINT_FRAME: usize = 64 * 1024;

/// Buffered guest output and the policy for sending it.
#[derive(Debug)]
pub struct Printer {
    buf: String,
    oldest: Option<Instant>,
    flush_bytes: usize,
    flush_interval: Duration,
    /// Output one feed may send, and how much this feed has taken.
    max_output: u64,
    taken: u64,
    truncated: bool,
    /// The stream the buffered text is for.
    stream: PrintStream,
}

impl Printer {
    pub fn new(flush_bytes: usize, flush_interval: Duration, max_output: u64) -> Self {
        Self {
            buf: String::new(),
            oldest: None,
            flush_bytes: flush_bytes.max(1),
            flush_interval,
            max_output,
            taken: 0,
            truncated: false,
            stream: PrintStream::Stdout,
        }
    }

    /// Buffers `text` for `stream`; text for the other stream is sent
    /// first, so the two streams stay in the order they were written.
    pub fn push_to(&mut self, out: &mut Out, stream: PrintStream, text: &str) {
        if stream != self.stream {
            self.flush(out);
            self.stream = stream;
        }
        self.push(out, text);
    }

    /// Starts counting output for a new feed.
    pub fn start_feed(&mut self) {
        self.taken = 0;
        self.truncated = false;
    }

    pub fn push(&mut self, out: &mut Out, text: &str) {
        if self.truncated {
            return;
        }
        if self.oldest.is_none() {
            self.oldest = Some(Instant::now());
        }
        let room = self.max_output.saturating_sub(self.taken);
        if text.len() as u64 > room {
            let end = text.floor_char_boundary(usize::try_from(room).unwrap_or(usize::MAX));
            self.buf.push_str(&text[..end]);
            self.buf.push_str(&format!(
                "\n[stockade: output truncated after {} bytes]\n",
                self.max_output
            ));
            self.taken = self.max_output;
            self.truncated = true;
            self.flush(out);
            return;
        }
        self.taken += text.len() as u64;
        self.buf.push_str(text);
        if self.buf.len() >= self.flush_bytes {
            self.flush(out);
        }
    }

    /// Sends what is buffered if it has waited long enough.
    pub fn poll(&mut self, out: &mut Out) {
        if self
            .oldest
            .is_some_and(|t| t.elapsed() >= self.flush_interval)
        {
            self.flush(out);
        }
    }

    /// Sends everything buffered, in frames of at most 64 KiB.
    pub fn flush(&mut self, out: &mut Out) {
        self.oldest = None;
        if self.buf.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.buf);
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let (chunk, tail) = rest.split_at(rest.floor_char_boundary(MAX_PRINT_FRAME));
            out.send_or_exit(&Response::Print {
                stream: self.stream,
                text: chunk.to_owned(),
            });
            rest = tail;
        }
        // Keep the allocation for the next burst unless it grew large.
        if text.capacity() <= 4 * self.flush_bytes {
            self.buf = text;
            self.buf.clear();
        }
    }
}
