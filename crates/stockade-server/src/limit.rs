//! A bound on the connections a server holds at once, authenticated or
//! not: a listener that takes a permit before each accept and a stream
//! that gives it back when it closes. Past the bound the server stops
//! accepting (the kernel's backlog waits), so idle or slow clients cannot
//! take every descriptor the workers need.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::serve::Listener;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// `L`, holding at most `most` connections open at once.
#[derive(Debug)]
pub struct Limited<L> {
    inner: L,
    permits: Arc<Semaphore>,
}

impl<L> Limited<L> {
    pub fn new(inner: L, most: usize) -> Self {
        Self {
            inner,
            permits: Arc::new(Semaphore::new(most.max(1))),
        }
    }
}

/// A connection and its permit, noting when it has sent its first byte
/// (the anonymous budget closes one that has sent nothing before one
/// whose request is in).
#[derive(Debug)]
pub struct Counted<Io> {
    io: Io,
    _permit: OwnedSemaphorePermit,
    heard: Arc<AtomicBool>,
}

impl<L: Listener> Listener for Limited<L> {
    type Io = Counted<L::Io>;
    type Addr = L::Addr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        let permit = match Arc::clone(&self.permits).acquire_owned().await {
            Ok(permit) => permit,
            // The semaphore is never closed.
            Err(_) => std::future::pending().await,
        };
        let (io, addr) = self.inner.accept().await;
        (
            Counted {
                io,
                _permit: permit,
                heard: Arc::new(AtomicBool::new(false)),
            },
            addr,
        )
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

impl<Io> Counted<Io> {
    /// The connection under the count.
    pub fn get_ref(&self) -> &Io {
        &self.io
    }

    /// Set once the connection has sent a byte.
    pub fn heard(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.heard)
    }
}

impl<Io: AsyncRead + Unpin> AsyncRead for Counted<Io> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.heard.store(true, Ordering::Relaxed);
        }
        polled
    }
}

impl<Io: AsyncWrite + Unpin> AsyncWrite for Counted<Io> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}
