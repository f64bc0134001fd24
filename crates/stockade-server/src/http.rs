//! The server's HTTP/1 connections: each served by hyper with upgrades
//! (the sessions' WebSocket) and a deadline for a request's headers, so a
//! client that opens a connection and trickles bytes (or none) gives its
//! connection up; accepted through a listener that bounds how many there
//! are (`limit.rs`). Accepting stops when the drain is over.

use std::time::Duration;

use axum::Router;
use axum::serve::Listener;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

/// Longest a client may take to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `app` on every connection `listener` accepts until `shutdown`
/// resolves.
pub async fn serve<L>(mut listener: L, app: Router, shutdown: impl std::future::Future<Output = ()>)
where
    L: Listener,
{
    tokio::pin!(shutdown);
    loop {
        let (io, _) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
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
        });
    }
}
