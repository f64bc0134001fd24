//! `stockade serve`: sandboxed sessions for remote clients. One WebSocket
//! connection is one session in one single-use worker on this machine,
//! speaking the wire's frames as binary messages; host functions, lookups
//! and file access stay on the client. Tokens are checked before the
//! upgrade, the server's limits win over the client's, and SIGTERM drains.
//! Agents reach the same workers through MCP over streamable HTTP at
//! `/mcp`.
//!
//! `tokens.rs` checks who may connect, `capacity.rs` how many may hold a
//! session, `connection.rs` serves one, `mcp.rs` the MCP endpoint,
//! `metrics.rs` counts; this file holds the routes and the server's life
//! (start, reload, drain).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

mod anonymous;
mod capacity;
mod connection;
mod http;
mod limit;
mod mcp;
mod mcp_bodies;
mod mcp_sessions;
mod metrics;
mod tls;
mod tokens;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Extension;
use axum::Router;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use stockade::relay::{ClientAsks, RelayPolicy};
use stockade_mcp::{HttpTools, RequestBudget};
use stockade_wire::{
    FRAME_HEADER_LEN, MAX_RESULT_BYTES_HEADER, REQUEST_TIMEOUT_HEADER, SESSION_PATH, WireLimits,
};

use crate::anonymous::Standing;
use crate::capacity::Capacity;
use crate::metrics::Metrics;
use crate::tokens::Tokens;

/// Everything `stockade serve` is started with.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// The bearer-token file; None lets every caller in (loopback only).
    pub tokens: Option<PathBuf>,
    /// The certificate chain and private key (PEM) to serve TLS with.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Serve plain WebSocket on an address other than loopback.
    pub insecure: bool,
    pub max_sessions: usize,
    pub max_sessions_per_token: usize,
    /// MCP sessions open at once at `/mcp`, in all and for one token.
    pub max_mcp_sessions: usize,
    pub max_mcp_sessions_per_token: usize,
    /// Longest a session may wait for its client's next message.
    pub idle_timeout: Duration,
    /// How long SIGTERM lets running sessions go on before ending them.
    pub grace: Duration,
    /// The largest message a client may send (a request frame: code,
    /// inputs, a dump to restore).
    pub max_message_size: usize,
    /// Connections held at once, authenticated or not.
    pub max_connections: usize,
    /// The largest MCP request at `/mcp` (its values bounded with it:
    /// `stockade_mcp::budget`).
    pub max_mcp_request_size: usize,
    /// `/readyz` and `/metrics` answer only a request with a token the
    /// server holds (they tell how busy the server is, and so what its
    /// tenants do); `/healthz` stays open.
    pub status_needs_token: bool,
    pub policy: RelayPolicy,
}

impl ServeConfig {
    pub const DEFAULT_MAX_SESSIONS: usize = 256;
    pub const DEFAULT_MAX_MCP_SESSIONS: usize = 1024;
    /// A token's share of the MCP sessions by default: well below the
    /// whole, so that one tenant cannot open them all.
    pub const DEFAULT_MAX_MCP_SESSIONS_PER_TOKEN: usize = 64;
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
    pub const DEFAULT_GRACE: Duration = Duration::from_secs(30);
    pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;
    pub const DEFAULT_MAX_MCP_REQUEST_SIZE: usize = stockade_mcp::budget::DEFAULT_MAX_REQUEST_BYTES;
}

/// Why the server cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the token file {file}: {why}")]
    Tokens { file: PathBuf, why: String },
    #[error("TLS: {file}: {why}")]
    Tls { file: PathBuf, why: String },
    #[error("{0}")]
    Refused(String),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the server's runtime failed: {0}")]
    Runtime(std::io::Error),
    #[error("a worker cannot start here: {0}")]
    Worker(stockade::Error),
}

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct Server {
    policy: RelayPolicy,
    idle_timeout: Duration,
    /// The largest message a client may send, header included.
    max_message: usize,
    tokens: Tokens,
    capacity: Arc<Capacity>,
    metrics: Arc<Metrics>,
    /// The MCP endpoint, its clients' sandboxes held in `capacity` too.
    mcp: HttpTools,
    mcp_sessions: Arc<mcp_sessions::McpSessions>,
    /// What one MCP request may cost before it is parsed.
    mcp_budget: RequestBudget,
    /// The bytes of MCP requests held at once, in all and per token.
    mcp_bodies: Arc<mcp_bodies::McpBodies>,
    /// `/readyz` and `/metrics` need a token.
    status_needs_token: bool,
    /// SIGTERM came: no new sessions, readiness false.
    draining: AtomicBool,
    /// The grace ran out: sessions end at their next wait.
    ending: AtomicBool,
}

impl Server {
    fn ending(&self) -> bool {
        self.ending.load(Ordering::Relaxed)
    }

    fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Not draining, and room for another session: a balancer sends new
    /// connections elsewhere otherwise.
    fn ready(&self) -> bool {
        !self.draining.load(Ordering::Relaxed) && self.capacity.has_room()
    }
}

/// Runs the server until SIGTERM (or SIGINT) and its drain are over.
/// `announce` is told the URL once the server listens.
pub fn run(config: ServeConfig, announce: impl FnOnce(&str)) -> Result<(), ServeError> {
    let loopback = config.listen.ip().is_loopback();
    let tls = match &config.tls {
        Some((cert, key)) => Some(tls::config(cert, key)?),
        None => None,
    };
    if tls.is_none() && !loopback && !config.insecure {
        return Err(ServeError::Refused(format!(
            "{} is not a loopback address: plain WebSocket can be read by anyone on the path; give --tls-cert and --tls-key, or pass --insecure to serve plain there anyway (behind a proxy that terminates TLS)",
            config.listen
        )));
    }
    let tokens = match &config.tokens {
        Some(file) => Tokens::from_file(file)?,
        None if loopback => Tokens::open(),
        None => {
            return Err(ServeError::Refused(
                "a server on an address other than loopback needs --tokens FILE".into(),
            ));
        }
    };
    check_workers(&config.policy)?;
    let max_message = config
        .max_message_size
        .min(WireLimits::default().max_frame + FRAME_HEADER_LEN);
    let capacity = Capacity::new(config.max_sessions, config.max_sessions_per_token);
    let metrics = Arc::new(Metrics::default());
    let mcp_budget = RequestBudget {
        max_bytes: config.max_mcp_request_size.max(1),
    };
    let mcp = mcp::endpoint(
        &config.policy,
        config.listen,
        tokens.required(),
        Arc::clone(&capacity),
        Arc::clone(&metrics),
        config.idle_timeout,
        mcp_budget.max_bytes,
    );
    let server = Arc::new(Server {
        policy: config.policy.clone(),
        idle_timeout: config.idle_timeout,
        max_message,
        tokens,
        capacity,
        metrics,
        mcp,
        mcp_sessions: mcp_sessions::McpSessions::new(
            config.max_mcp_sessions,
            config.max_mcp_sessions_per_token,
        ),
        mcp_budget,
        mcp_bodies: mcp_bodies::McpBodies::new(mcp_budget.max_bytes),
        status_needs_token: config.status_needs_token,
        draining: AtomicBool::new(false),
        ending: AtomicBool::new(false),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("stockade-serve")
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(serve(server, config, tls, announce))
}

/// Starts one worker with the server's sandbox before listening, so a
/// machine that cannot give it refuses at start, not at each session.
fn check_workers(policy: &RelayPolicy) -> Result<(), ServeError> {
    let mut options = stockade::SessionOptions::new(stockade::Language::JavaScript)
        .sandbox(policy.sandbox)
        .spare(false);
    options.worker = policy.worker.clone();
    let mut session = stockade::Session::new(options).map_err(ServeError::Worker)?;
    session.run("1 + 1").map_err(ServeError::Worker)?;
    Ok(())
}

async fn serve(
    server: Arc<Server>,
    config: ServeConfig,
    tls: Option<Arc<rustls::ServerConfig>>,
    announce: impl FnOnce(&str),
) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| ServeError::Listen {
            addr: config.listen,
            source,
        })?;
    let local = listener.local_addr().map_err(ServeError::Runtime)?;
    let app = Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route(SESSION_PATH, get(upgrade))
        .route(mcp::MCP_PATH, any(mcp::serve))
        .with_state(Arc::clone(&server));
    let drained = Arc::clone(&server);
    let grace = config.grace;
    // A turn that runs when the grace ends finishes first: it has at most
    // the request timeout.
    let last_turn = config.policy.request_timeout + Duration::from_secs(5);
    // Watched before the server says it listens: a signal sent as soon as
    // it does (an orchestrator's SIGTERM, a SIGHUP) would otherwise meet
    // the default action, which ends the process at once.
    let signals = Signals::watch().map_err(ServeError::Runtime)?;
    let shutdown = async move { drain(drained, signals, grace, last_turn).await };
    let most = config.max_connections;
    let anonymous = anonymous::Anonymous::new(anonymous::most_for(most), anonymous::PER_ADDRESS);
    announce(&format!(
        "{}://{local}",
        if tls.is_some() { "wss" } else { "ws" }
    ));
    let tls = tls.map(tokio_rustls::TlsAcceptor::from);
    http::serve(
        limit::Limited::new(listener, most),
        tls,
        app,
        anonymous,
        shutdown,
    )
    .await;
    Ok(())
}

/// The signals the server's life answers.
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Signals {
    fn watch() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
            hup: signal(SignalKind::hangup())?,
        })
    }
}

/// Waits for SIGTERM or SIGINT, then: no new sessions; running ones go
/// on for up to `grace`; the rest end at their next wait for the client,
/// told the server is shutting down, a running turn first finishing (for
/// up to `last_turn`). A session's slot is free only once its end has
/// been sent, so none is lost to the runtime stopping. MCP clients'
/// sessions at `/mcp` end when the grace does, each call under way with
/// its worker. SIGHUP reloads the tokens meanwhile.
async fn drain(server: Arc<Server>, signals: Signals, grace: Duration, last_turn: Duration) {
    let Signals {
        mut term,
        mut int,
        mut hup,
    } = signals;
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = hup.recv() => match server.tokens.reload() {
                Ok(count) => tracing::info!("reloaded {count} tokens"),
                Err(err) => tracing::error!("kept the tokens held: {err}"),
            },
        }
    }
    server.draining.store(true, Ordering::Relaxed);
    let until = Instant::now() + grace;
    while server.capacity.active() > 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.ending.store(true, Ordering::Relaxed);
    // MCP clients' sessions end now, a call under way with its worker.
    server.mcp.end_all();
    // Sessions end at their next wait (a running turn finishes first).
    let until = Instant::now() + last_turn;
    while server.capacity.active() > 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether a status request may be answered: always, unless the server
/// was told its status needs a token and the request shows none it holds.
fn status_refused(
    server: &Server,
    standing: Option<Extension<Arc<Standing>>>,
    headers: &HeaderMap,
) -> Option<Response> {
    if !server.status_needs_token {
        return None;
    }
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    if server.tokens.check(authorization).is_none() || !server.tokens.required() {
        server.metrics.unauthorized();
        return Some(StatusCode::UNAUTHORIZED.into_response());
    }
    if let Some(Extension(standing)) = standing {
        standing.authenticate();
    }
    None
}

async fn readyz(
    State(server): State<Arc<Server>>,
    standing: Option<Extension<Arc<Standing>>>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = status_refused(&server, standing, &headers) {
        return refused;
    }
    if server.draining.load(Ordering::Relaxed) {
        (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response()
    } else if !server.capacity.has_room() {
        (StatusCode::SERVICE_UNAVAILABLE, "full\n").into_response()
    } else {
        (StatusCode::OK, "ready\n").into_response()
    }
}

async fn metrics(
    State(server): State<Arc<Server>>,
    standing: Option<Extension<Arc<Standing>>>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = status_refused(&server, standing, &headers) {
        return refused;
    }
    let mut text = server.metrics.render(
        server.capacity.active(),
        server.capacity.most(),
        server.ready(),
    );
    let open = server.mcp_sessions.count(server.mcp.open_sessions()).await;
    text.push_str(&metrics::mcp_sessions(open));
    text.into_response()
}

async fn upgrade(
    State(server): State<Arc<Server>>,
    standing: Option<Extension<Arc<Standing>>>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    let Some(token) = server.tokens.check(authorization) else {
        server.metrics.unauthorized();
        return StatusCode::UNAUTHORIZED.into_response();
    };
    // A browser lets any page open a WebSocket to loopback, and says
    // whose page it is in Origin; clients of ours send none. Without
    // tokens, nothing else would keep a page out.
    if !server.tokens.required() && headers.contains_key(axum::http::header::ORIGIN) {
        server.metrics.unauthorized();
        return (
            StatusCode::FORBIDDEN,
            "a web page may not open sessions on a server without tokens\n",
        )
            .into_response();
    }
    // A caller the server lets in: its connection keeps alive from now.
    if let Some(Extension(standing)) = standing {
        standing.authenticate();
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return rejection.into_response(),
    };
    let asked = match client_asks(&headers) {
        Ok(asked) => asked,
        Err(refusal) => return (StatusCode::BAD_REQUEST, refusal).into_response(),
    };
    if server.draining.load(Ordering::Relaxed) {
        server.metrics.over_capacity();
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "this server is shutting down; connect to another\n",
        )
            .into_response();
    }
    let slot = match server.capacity.take(token) {
        Ok(slot) => slot,
        Err(full) => {
            server.metrics.over_capacity();
            return (StatusCode::SERVICE_UNAVAILABLE, format!("{}\n", full.0)).into_response();
        }
    };
    let most = server.max_message;
    // The client learns what its worker's values are held to here.
    let result_bytes = server.policy.result_bytes_for(asked.max_result_bytes);
    let mut response = upgrade
        .max_message_size(most)
        .max_frame_size(most)
        .on_upgrade(move |socket| connection::serve(socket, server, slot, asked));
    response
        .headers_mut()
        .insert(MAX_RESULT_BYTES_HEADER, HeaderValue::from(result_bytes));
    response
}

/// What the client asked for in its upgrade's headers, or the refusal of
/// a header that is not a whole number.
fn client_asks(headers: &HeaderMap) -> Result<ClientAsks, String> {
    let number = |name: &str, unit: &str| match headers.get(name) {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map(Some)
            .ok_or_else(|| format!("{name} must be a whole number of {unit}\n")),
    };
    Ok(ClientAsks {
        request_timeout: number(REQUEST_TIMEOUT_HEADER, "milliseconds")?.map(Duration::from_millis),
        max_result_bytes: number(MAX_RESULT_BYTES_HEADER, "bytes")?,
    })
}
