//! The stdio transport of `stockade mcp`: newline-delimited JSON-RPC, each
//! incoming message held to the request budget (`budget.rs`) before it is
//! parsed. A message past it is read past, never kept whole, and answered
//! with an error that says why, to its id when its first bytes hold one
//! (rmcp's own stdio transport parses a line of up to 16 MiB, and drops a
//! longer one unanswered, so its client waits for ever).

use std::sync::Arc;

use futures::SinkExt;
use rmcp::RoleServer;
use rmcp::model::{ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::JsonRpcMessageCodec;
use serde_json::error::Category;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::Mutex;
use tokio_util::codec::FramedWrite;

use crate::budget::{Refusal, RequestBudget, request_id, trailing_request_id};

/// Keeps in `tail` the last `ID_TAIL` bytes of what it held and `more`.
fn keep_tail(tail: &mut Vec<u8>, more: &[u8]) {
    if more.len() >= ID_TAIL {
        tail.clear();
        tail.extend_from_slice(&more[more.len() - ID_TAIL..]);
        return;
    }
    tail.extend_from_slice(more);
    if tail.len() > ID_TAIL {
        tail.drain(..tail.len() - ID_TAIL);
    }
}

/// How much of a message past the budget is kept, at its start and at its
/// end, to find its id.
const ID_PREFIX: usize = 4096;
const ID_TAIL: usize = 4096;

type Writer<W> = FramedWrite<W, JsonRpcMessageCodec<TxJsonRpcMessage<RoleServer>>>;

/// A refusal on its way out: written before the next message is read, in
/// two steps so that a `receive` cancelled between them loses nothing.
enum Pending {
    Queued(Box<TxJsonRpcMessage<RoleServer>>),
    Flush,
}

/// The server's end of a stdio connection, reading from `R`, writing to `W`.
pub struct BoundedStdio<R, W> {
    read: BufReader<R>,
    /// The message read so far (of one past the budget, its first bytes).
    line: Vec<u8>,
    /// Bytes of a message past the budget read so far, once it is one.
    past: Option<usize>,
    /// The last bytes of a message past the budget.
    tail: Vec<u8>,
    budget: RequestBudget,
    write: Arc<Mutex<Option<Writer<W>>>>,
    pending: Option<Pending>,
}

/// What one bounded read of a line found.
enum LineRead {
    Whole,
    /// Past the budget: this many bytes, newline included.
    Past(usize),
    End,
}

impl<R, W> BoundedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: R, write: W, budget: RequestBudget) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            past: None,
            tail: Vec::new(),
            budget,
            write: Arc::new(Mutex::new(Some(FramedWrite::new(
                write,
                JsonRpcMessageCodec::default(),
            )))),
            pending: None,
        }
    }

    /// Reads up to the next newline, keeping at most the budget's bytes
    /// (a cancelled read resumes where it stopped: the state is here).
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (consumed, ended) = {
                let Ok(available) = self.read.fill_buf().await else {
                    return LineRead::End;
                };
                if available.is_empty() {
                    return LineRead::End;
                }
                let newline = available.iter().position(|&b| b == b'\n');
                let take = newline.map_or(available.len(), |at| at + 1);
                match &mut self.past {
                    Some(read) => {
                        *read += take;
                        keep_tail(&mut self.tail, &available[..take]);
                    }
                    None if self.line.len() + take > self.budget.max_bytes + 1 => {
                        let read = self.line.len() + take;
                        self.tail.clear();
                        keep_tail(&mut self.tail, &self.line);
                        keep_tail(&mut self.tail, &available[..take]);
                        self.line.truncate(ID_PREFIX);
                        let keep = ID_PREFIX.saturating_sub(self.line.len()).min(take);
                        self.line.extend_from_slice(&available[..keep]);
                        self.past = Some(read);
                    }
                    None => self.line.extend_from_slice(&available[..take]),
                }
                (take, newline.is_some())
            };
            self.read.consume(consumed);
            if ended {
                return match self.past.take() {
                    Some(read) => LineRead::Past(read),
                    None => LineRead::Whole,
                };
            }
        }
    }

    /// Writes the pending refusal, if any; false when the output is gone.
    async fn flush_pending(&mut self) -> bool {
        let Some(pending) = self.pending.as_mut() else {
            return true;
        };
        let mut write = self.write.lock().await;
        let Some(framed) = write.as_mut() else {
            return false;
        };
        if let Pending::Queued(message) = pending {
            if framed.feed((**message).clone()).await.is_err() {
                return false;
            }
            *pending = Pending::Flush;
        }
        if framed.flush().await.is_err() {
            return false;
        }
        self.pending = None;
        true
    }

    /// Answers the request whose bytes (or first bytes) are in `line` with
    /// `error`, when they name an id; a notification has no one to answer.
    fn refuse(&mut self, error: ErrorData) {
        let id = request_id(&self.line)
            .or_else(|| trailing_request_id(&self.tail))
            .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
        self.line.clear();
        self.tail.clear();
        if let Some(id) = id {
            self.pending = Some(Pending::Queued(Box::new(
                TxJsonRpcMessage::<RoleServer>::error(error, Some(id)),
            )));
        }
    }
}

impl<R, W> Transport<RoleServer> for BoundedStdio<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            match write.lock().await.as_mut() {
                Some(framed) => framed.send(item).await.map_err(std::io::Error::other),
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                )),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.flush_pending().await {
                return None;
            }
            let refusal = match self.read_line().await {
                LineRead::End => return None,
                LineRead::Past(read) => Some(Refusal::TooLarge {
                    at_least: read.saturating_sub(1),
                    max: self.budget.max_bytes,
                }),
                LineRead::Whole => None,
            };
            let message = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let message = message.strip_suffix(b"\r").unwrap_or(message);
            let message = message.strip_prefix(b"\xef\xbb\xbf").unwrap_or(message);
            if let Some(refusal) = refusal.or_else(|| self.budget.check(message).err()) {
                self.refuse(ErrorData::invalid_request(refusal.to_string(), None));
                continue;
            }
            if message.iter().all(u8::is_ascii_whitespace) {
                self.line.clear();
                continue;
            }
            match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(message) {
                Ok(parsed) => {
                    self.line.clear();
                    return Some(parsed);
                }
                // Not JSON: nothing to answer, and an answer to noise could
                // start an echo (as rmcp, and the other MCP SDKs, do).
                Err(err) if matches!(err.classify(), Category::Syntax | Category::Eof) => {
                    self.line.clear();
                }
                Err(err) => self.refuse(ErrorData::invalid_request(
                    format!("not a JSON-RPC message this server takes: {err}"),
                    None,
                )),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        Ok(())
    }
}
