//! Guest print output: buffered, then sent as Print frames in order. The
//! buffer is shared with the watchdog thread, which sends what has waited
//! its interval even while the guest computes (or hangs) and writes nothing.
//!
//! Output is sent when about `flush_bytes` are buffered, when the oldest
//! buffered byte has waited `flush_interval` (checked at each write, and by
//! the watchdog every 20 ms, so a guest that prints and then hangs has its
//! output at the host before a deadline kills it), before every suspension
//! and at the end of a feed. Nothing is reordered: one buffer, one stream
//! of frames. Rich outputs (`show`) go in the same stream: what is
//! buffered is sent before each, and they count against the same budget.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use stockade_wire::{MAX_OUTPUTS_PER_FEED, Output, PrintStream, Response, WireLimits};

use crate::out::Out;

/// Largest text carried by one Print frame.
const MAX_PRINT_FRAME: usize = 64 * 1024;

/// Buffered guest output and the policy for sending it; clones share the
/// buffer.
#[derive(Debug, Clone)]
pub struct Printer {
    state: Arc<Mutex<Buffer>>,
    out: Out,
}

#[derive(Debug)]
struct Buffer {
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
    /// The parent reads Output messages (it declared protocol 6 or later).
    outputs: bool,
    /// Outputs this feed has sent.
    shown: u32,
}

impl Printer {
    pub fn new(out: Out, flush_bytes: usize, flush_interval: Duration, max_output: u64) -> Self {
        Self {
            state: Arc::new(Mutex::new(Buffer {
                buf: String::new(),
                oldest: None,
                flush_bytes: flush_bytes.max(1),
                flush_interval,
                max_output,
                taken: 0,
                truncated: false,
                stream: PrintStream::Stdout,
                outputs: true,
                shown: 0,
            })),
            out,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Buffer> {
        // The buffer is plain data: a panic elsewhere leaves it usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the flushing policy and the per-feed budget (from Configure),
    /// and whether the parent reads Output messages.
    pub fn configure(
        &self,
        flush_bytes: usize,
        flush_interval: Duration,
        max_output: u64,
        outputs: bool,
    ) {
        let mut state = self.lock();
        state.flush_bytes = flush_bytes.max(1);
        state.flush_interval = flush_interval;
        state.max_output = max_output;
        state.outputs = outputs;
    }

    /// Sends a rich output after everything printed before it. One that
    /// the feed's output budget has no room for, or that the parent cannot
    /// read, is not sent: a line on stderr says so in its place, and the
    /// guest goes on.
    pub fn show(&self, output: Output) {
        let mut state = self.lock();
        let room = state.max_output.saturating_sub(state.taken);
        // One output must fit a frame whatever the budget says.
        let most = (WireLimits::DEFAULT_MAX_FRAME / 2) as u64;
        let refusal = if !state.outputs {
            Some("the host reads no rich outputs (it speaks protocol 5 or older)".to_owned())
        } else if state.shown >= MAX_OUTPUTS_PER_FEED {
            Some(format!(
                "a feed shows at most {MAX_OUTPUTS_PER_FEED} outputs"
            ))
        } else if output.size() > room.min(most) {
            Some(format!(
                "it would pass max_output_bytes ({} bytes a feed, with what was printed)",
                state.max_output
            ))
        } else {
            None
        };
        if let Some(why) = refusal {
            let line = format!(
                "[stockade: an output ({}, {} bytes) was not shown: {why}]\n",
                output.mime_type,
                output.data.len()
            );
            if state.stream != PrintStream::Stderr {
                state.flush(&self.out);
                state.stream = PrintStream::Stderr;
            }
            state.push(&self.out, &line);
            return;
        }
        state.flush(&self.out);
        state.taken += output.size();
        state.shown += 1;
        self.out.send_or_exit(&Response::Output(output));
    }

    /// Buffers `text` for `stream`; text for the other stream is sent
    /// first, so the two streams stay in the order they were written.
    pub fn push_to(&self, stream: PrintStream, text: &str) {
        let mut state = self.lock();
        if stream != state.stream {
            state.flush(&self.out);
            state.stream = stream;
        }
        state.push(&self.out, text);
    }

    /// Starts counting output for a new feed.
    pub fn start_feed(&self) {
        let mut state = self.lock();
        state.taken = 0;
        state.truncated = false;
        state.shown = 0;
    }

    /// Sends what is buffered if it has waited long enough.
    pub fn poll(&self) {
        self.lock().poll(&self.out);
    }

    /// Sends everything buffered.
    pub fn flush(&self) {
        self.lock().flush(&self.out);
    }
}

impl Buffer {
    fn push(&mut self, out: &Out, text: &str) {
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
        } else {
            self.poll(out);
        }
    }

    fn poll(&mut self, out: &Out) {
        if self
            .oldest
            .is_some_and(|t| t.elapsed() >= self.flush_interval)
        {
            self.flush(out);
        }
    }

    /// Sends everything buffered, in frames of at most 64 KiB.
    fn flush(&mut self, out: &Out) {
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
