//! The server's HTTP/1 connections: each served by hyper with upgrades
//! (the sessions' WebSocket) and a deadline for a request's headers, so a
//! client that opens a connection and trickles bytes (or none) gives its
//! connection up; accepted through a listener that bounds how many there
//! are (`limit.rs`), and held to the anonymous budget until one of its
//! requests shows a token (`anonymous.rs`): until then each request is
//! answered with `Connection: close`. Accepting stops when the drain is
//! over.

use std::convert::Infallible;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use axum::serve::Listener;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

use crate::anonymous::{Anonymous, Standing};
use crate::limit::Limited;
use crate::tls::HANDSHAKE_TIMEOUT;

/// Longest a client may take to send a request's headers (also how long a
/// kept-alive connection may be idle).
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on every connection `listener` accepts (over TLS when
/// `tls` is given) until `shutdown` resolves.
pub async fn serve(
    mut listener: Limited<TcpListener>,
    tls: Option<TlsAcceptor>,
    app: Router,
    anonymous: Arc<Anonymous>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        let (io, address) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let _ = io.get_ref().set_nodelay(true);
        // A duplicate of the socket, for the budget to ask whether bytes
        // wait in it: a client's request (or TLS hello) is in, or not.
        let socket = io.get_ref().as_fd().try_clone_to_owned().ok();
        let (standing, closed) = anonymous.admit(address.ip(), io.heard(), socket);
        let (app, tls) = (app.clone(), tls.clone());
        tokio::spawn(async move {
            // Closed to make room in the anonymous budget (a connection
            // that authenticates drops the sender instead: never closed;
            // one that did so as it was chosen is kept).
            let evicted = async {
                if closed.await.is_err() || standing.is_authenticated() {
                    std::future::pending::<()>().await;
                }
            };
            let served = async {
                let standing = Arc::clone(&standing);
                match tls {
                    None => serve_connection(io, app, standing).await,
                    Some(tls) => {
                        match tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(io)).await {
                            Ok(Ok(io)) => serve_connection(io, app, standing).await,
                            Ok(Err(err)) => tracing::debug!("a TLS handshake failed: {err}"),
                            Err(_) => tracing::debug!("a TLS handshake timed out"),
                        }
                    }
                }
            };
            tokio::select! {
                () = served => {}
                () = evicted => {}
            }
        });
        // The new connection reads what it was sent before the next is
        // accepted: one whose request is in is then no longer silent, and
        // a flood of accepts cannot close it first.
        tokio::task::yield_now().await;
    }
}

/// Serves HTTP/1 with upgrades on `io` until the connection ends: each
/// request carries the connection's standing, and each answer to a
/// connection that has shown no token closes it.
async fn serve_connection<Io>(io: Io, app: Router, standing: Arc<Standing>)
where
    Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
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
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let connection = builder
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    if let Err(err) = connection.await {
        tracing::debug!("a connection ended: {err}");
    }
}
