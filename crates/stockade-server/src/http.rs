//! The server's HTTP/1 connections: each served by hyper with upgrades
//! (the sessions' WebSocket) and a deadline for a request's headers, so a
//! client that opens a connection and trickles bytes (or none) gives its
//! connection up; accepted through a listener that bounds how many there
//! are (`limit.rs`), and held to the anonymous budget until one of its
//! requests shows a token (`anonymous.rs`): until then each request is
//! answered with `Connection: close`. Accepting stops when the drain is
//! over.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::os::fd::{AsFd, OwnedFd};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use axum::serve::Listener;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tower::ServiceExt;

use crate::anonymous::Anonymous;

/// Longest a client may take to send a request's headers (also how long a
/// kept-alive connection may be idle).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection whose socket the anonymous budget may look at: a
/// duplicate of its descriptor, to ask whether bytes wait in it.
pub trait Peer {
    fn socket(&self) -> Option<OwnedFd>;
}

impl Peer for tokio::net::TcpStream {
    fn socket(&self) -> Option<OwnedFd> {
        self.as_fd().try_clone_to_owned().ok()
    }
}

impl Peer for tokio_rustls::server::TlsStream<tokio::net::TcpStream> {
    fn socket(&self) -> Option<OwnedFd> {
        self.get_ref().0.socket()
    }
}

/// Serves `app` on every connection `listener` accepts until `shutdown`
/// resolves.
pub async fn serve<L>(
    mut listener: L,
    app: Router,
    anonymous: Arc<Anonymous>,
    shutdown: impl std::future::Future<Output = ()>,
) where
    L: Listener<Addr = SocketAddr>,
    L::Io: Peer,
{
    tokio::pin!(shutdown);
    loop {
        let (io, address) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let heard = Arc::new(AtomicBool::new(false));
        let (standing, closed) = anonymous.admit(address.ip(), Arc::clone(&heard), io.socket());
        let io = Heard { io, heard };
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            request.extensions_mut().insert(Arc::clone(&standing));
            let standing = Arc::clone(&standing);
            let app = app.clone();
            async move {
                let mut response = match app.oneshot(request.map(Body::new)).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                if !standing.is_authenticated() {
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                Ok::<_, Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(io), service)
                .with_upgrades();
            // Closed to make room in the anonymous budget (a connection
            // that authenticates drops the sender instead: never closed).
            let evicted = async move {
                if closed.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            tokio::select! {
                served = connection => {
                    if let Err(err) = served {
                        tracing::debug!("a connection ended: {err}");
                    }
                }
                () = evicted => {}
            }
        });
        // The new connection reads what it was sent before the next is
        // accepted: one whose request is in is then no longer silent, and
        // a flood of accepts cannot close it first.
        tokio::task::yield_now().await;
    }
}

/// A connection that notes when it has sent its first byte: the anonymous
/// budget closes one that has sent nothing before one whose request is in.
struct Heard<Io> {
    io: Io,
    heard: Arc<AtomicBool>,
}

impl<Io: AsyncRead + Unpin> AsyncRead for Heard<Io> {
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

impl<Io: AsyncWrite + Unpin> AsyncWrite for Heard<Io> {
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
