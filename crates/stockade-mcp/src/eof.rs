//! A reader that calls back once at end of input: a stdio client closing
//! its end must end the calls under way at once, which the protocol
//! library would otherwise wait for (up to 5 s) before it returns.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// `inner`, calling `at_end` the first time a read finds end of input (or
/// fails).
pub struct OnEnd<R, F: FnOnce()> {
    inner: R,
    at_end: Option<F>,
}

impl<R, F: FnOnce()> OnEnd<R, F> {
    pub fn new(inner: R, at_end: F) -> Self {
        OnEnd {
            inner,
            at_end: Some(at_end),
        }
    }
}

impl<R: AsyncRead + Unpin, F: FnOnce() + Unpin> AsyncRead for OnEnd<R, F> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        let ended = match &polled {
            Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended && let Some(at_end) = this.at_end.take() {
            at_end();
        }
        polled
    }
}
