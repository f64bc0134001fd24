//! The tools over MCP's streamable HTTP transport, for a server to answer
//! at a path of its own (`stockade serve` answers at `/mcp`, behind its
//! token check): each client that initializes gets a handler, and so
//! sandboxes, of its own, kept until it ends its MCP session, goes idle
//! too long, or the server ends them all.

use std::collections::HashSet;
use std::convert::Infallible;
use std::fmt::Display;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::ToolServer;
use crate::registry::Registry;

/// How the HTTP transport serves its clients.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// How long a client's MCP session may go without a request before it
    /// ends, its sandboxes with it.
    pub idle_timeout: Duration,
    /// The longest one call may run; an MCP session is not idle while a
    /// call of its runs.
    pub call_timeout: Duration,
    /// The names (or `name:port`) a request's `Host` may give; empty
    /// accepts any. A server anyone local may use without a token keeps
    /// to loopback names, so that a web page's DNS rebinding cannot reach
    /// it.
    pub allowed_hosts: Vec<String>,
    /// Refuse every request that carries an `Origin` (one from a web
    /// page): for a server without tokens.
    pub refuse_web_origins: bool,
    /// The largest request body.
    pub max_body_bytes: usize,
}

/// The MCP endpoint: answers any HTTP request sent to it.
#[derive(Clone)]
pub struct HttpTools {
    service: StreamableHttpService<ToolServer, LocalSessionManager>,
    sessions: Arc<LocalSessionManager>,
    registry: Arc<Registry>,
    ending: CancellationToken,
}

impl std::fmt::Debug for HttpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTools").finish_non_exhaustive()
    }
}

impl HttpTools {
    /// An endpoint whose clients each get a handler like `tools` (same
    /// descriptions, options and admission) with sessions of its own.
    pub fn new(tools: ToolServer, options: HttpOptions) -> Self {
        let ending = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.allowed_hosts)
            .with_cancellation_token(ending.clone())
            .with_max_request_body_bytes(options.max_body_bytes);
        if options.refuse_web_origins {
            config = config.enforce_origin_validation();
        }
        let mut sessions = LocalSessionManager::default();
        // rmcp counts a session idle from its last message, a call's answer
        // included: a call may run its whole time limit.
        sessions.session_config.keep_alive =
            Some(options.idle_timeout.max(options.call_timeout + GRACE));
        // Sessionless clients (2026-07-28) would meet a fresh handler at
        // every request: the handshake versions only keep state.
        let registry = Arc::new(Registry::default());
        let template = tools
            .handshake_versions_only()
            .registered_in(Arc::clone(&registry));
        let sessions = Arc::new(sessions);
        let service = StreamableHttpService::new(
            move || Ok(template.for_another_client()),
            Arc::clone(&sessions),
            config,
        );
        HttpTools {
            service,
            sessions,
            registry,
            ending,
        }
    }

    /// The ids of the MCP sessions open now (a session leaves when its
    /// client ends it, it goes idle too long, or [`HttpTools::end_all`]).
    pub async fn open_sessions(&self) -> HashSet<Arc<str>> {
        self.sessions
            .sessions
            .read()
            .await
            .keys()
            .cloned()
            .collect()
    }

    /// Answers one request.
    pub async fn handle<B>(
        &self,
        request: http::Request<B>,
    ) -> http::Response<BoxBody<Bytes, Infallible>>
    where
        B: http_body::Body + Send + 'static,
        B::Error: Display,
    {
        self.service.handle(request).await
    }

    /// Ends the calls under way in MCP session `id`, which its client is
    /// ending (rmcp would give them 5 s), and waits until its sandboxes
    /// are gone and their places given back, for up to 5 s.
    pub async fn end_session(&self, id: &str) {
        let Some(sessions) = self.registry.take(id) else {
            return;
        };
        if let Some(sessions) = sessions.upgrade() {
            sessions.stop_all();
        }
        let until = tokio::time::Instant::now() + ENDING;
        while sessions.strong_count() > 0 && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Ends every client's MCP session, and with it the calls under way
    /// (their workers are killed) and the sandboxes; later requests are
    /// refused.
    pub fn end_all(&self) {
        self.ending.cancel();
    }
}

/// The longest [`HttpTools::end_session`] waits for a session's
/// sandboxes to go: rmcp's own wait for its calls.
const ENDING: Duration = Duration::from_secs(5);

/// What a session's idle clock allows beyond a call's own time limit: its
/// answer being written.
const GRACE: Duration = Duration::from_secs(5);
