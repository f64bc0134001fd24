//! MCP over streamable HTTP at `/mcp`: the tools `stockade mcp` serves
//! over stdio (`run_python`, `run_javascript`, `reset`), for agents that
//! reach this server over the network. The same token check and drain as
//! `/v1/session` stand in front; each client's sandboxes are workers of
//! this server, held to its policy and counted against `--max-sessions`
//! and the token's share.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use stockade::relay::RelayPolicy;
use stockade::{Language, SessionOptions};
use stockade_mcp::{Admission, Caller, Held, HttpOptions, HttpTools, OptionsFor, ToolServer};

use crate::Server;
use crate::capacity::Capacity;
use crate::mcp_sessions::Stream;
use crate::metrics::Metrics;
use crate::tokens::TokenId;

/// Where the MCP endpoint answers.
pub const MCP_PATH: &str = "/mcp";

/// The header that names a client's MCP session once it has one.
const SESSION_HEADER: &str = "mcp-session-id";

/// The header of a GET that resumes a request's answer, not the session's
/// event stream.
const LAST_EVENT_ID: &str = "last-event-id";

/// A response body that holds its session's event stream open.
struct Streaming {
    body: axum::body::Body,
    _stream: Stream,
}

impl http_body::Body for Streaming {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The token a request was let in with, left in it for the admission.
#[derive(Debug, Clone, Copy)]
struct CallerToken(TokenId);

/// Admits a client's sandbox when the server and the client's token have
/// room for another session; the slot is held as long as the sandbox.
struct CapacityAdmission {
    capacity: Arc<Capacity>,
    metrics: Arc<Metrics>,
}

impl Admission for CapacityAdmission {
    fn admit(&self, caller: &Caller) -> Result<Held, String> {
        // Every request reaches the endpoint through `serve` below, which
        // leaves the token; a call without one did not come that way.
        let Some(CallerToken(token)) = caller
            .http
            .as_ref()
            .and_then(|extensions| extensions.get::<CallerToken>())
        else {
            return Err("this call carried no token".into());
        };
        match self.capacity.take(*token) {
            Ok(slot) => Ok(Box::new(slot)),
            Err(full) => {
                self.metrics.over_capacity();
                Err(full.0)
            }
        }
    }
}

/// The options a client's sandbox of `language` starts with: the
/// server's ceilings, which a relayed session may only ask below.
fn options(policy: &RelayPolicy, language: Language) -> SessionOptions {
    let mut options = SessionOptions::new(language)
        .sandbox(policy.sandbox)
        // A spare would be shared by every client; each worker starts
        // for its own.
        .spare(false);
    options.worker = policy.worker.clone();
    options.cpython.python = policy.python.clone();
    options.request_timeout = policy.request_timeout;
    options.limits.max_duration = Some(policy.max_duration);
    options.limits.max_memory = Some(policy.max_memory);
    options.limits.max_output_bytes = policy.max_output_bytes;
    options.max_threads = policy.max_threads;
    options
}

/// The endpoint for a server listening on `listen` with `policy`.
pub fn endpoint(
    policy: &RelayPolicy,
    listen: SocketAddr,
    tokens_required: bool,
    capacity: Arc<Capacity>,
    metrics: Arc<Metrics>,
    idle_timeout: std::time::Duration,
    max_body_bytes: usize,
) -> HttpTools {
    let held = policy.clone();
    let options_for: OptionsFor = Arc::new(move |language| options(&held, language));
    let tools = ToolServer::new(options_for)
        .with_admission(Arc::new(CapacityAdmission { capacity, metrics }));
    // With tokens, the token keeps web pages out; without, only loopback
    // names and no web origin may reach the endpoint.
    let allowed_hosts = if tokens_required {
        Vec::new()
    } else {
        vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
            listen.ip().to_string(),
        ]
    };
    HttpTools::new(
        tools,
        HttpOptions {
            idle_timeout,
            call_timeout: policy.request_timeout,
            allowed_hosts,
            refuse_web_origins: !tokens_required,
            max_body_bytes,
        },
    )
}

/// The `method` of a JSON-RPC message, when the body is one.
fn first_message_method(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Message {
        method: Option<String>,
    }
    serde_json::from_slice::<Message>(body).ok()?.method
}

/// Answers a request to [`MCP_PATH`]: the token first, then, while the
/// server drains, only the MCP sessions it already has.
pub async fn serve(State(server): State<Arc<Server>>, mut request: Request) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    let Some(token) = server.tokens.check(authorization) else {
        server.metrics.unauthorized();
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a bearer token from this server's token file is required\n",
        )
            .into_response();
    };
    if server.is_draining() && !request.headers().contains_key(SESSION_HEADER) {
        server.metrics.over_capacity();
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "this server is shutting down; connect to another\n",
        )
            .into_response();
    }
    // A session serves the token that opened it only: another token
    // holding its id (leaked, say) is told there is no such session.
    if let Some(id) = request.headers().get(SESSION_HEADER) {
        let owned = id
            .to_str()
            .is_ok_and(|id| server.mcp_sessions.opened_by(&token, id));
        if !owned {
            return (StatusCode::NOT_FOUND, "Not Found: Session not found\n").into_response();
        }
    }
    // A POST without a session must open one: sessionless requests would
    // each meet a fresh sandbox. An initialize takes a place until it is
    // answered.
    let opening = if request.method() == Method::POST
        && !request.headers().contains_key(SESSION_HEADER)
    {
        let (parts, body) = request.into_parts();
        let body = match axum::body::to_bytes(body, server.max_message).await {
            Ok(body) => body,
            Err(_) => {
                return (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request is larger than this server takes, or was cut off\n",
                )
                    .into_response();
            }
        };
        let method = first_message_method(&body);
        request = Request::from_parts(parts, axum::body::Body::from(body));
        match method.as_deref() {
            Some("initialize") => {}
            // Answered without a handler's sandboxes: a client's probe
            // for the sessionless protocol, told to use the handshake.
            Some("server/discover") => return server.mcp.handle(request).await.into_response(),
            _ => {
                return (
                        StatusCode::BAD_REQUEST,
                        "this server keeps state in MCP sessions: a request without Mcp-Session-Id must be initialize\n",
                    )
                        .into_response();
            }
        }
        match server
            .mcp_sessions
            .open(token, server.mcp.open_sessions())
            .await
        {
            Ok(opening) => Some(opening),
            Err(why) => {
                server.metrics.over_capacity();
                return (StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n")).into_response();
            }
        }
    } else {
        None
    };
    let stream = if request.method() == Method::GET
        && !request.headers().contains_key(LAST_EVENT_ID)
        && let Some(id) = request.headers().get(SESSION_HEADER)
        && let Ok(id) = id.to_str()
    {
        match server.mcp_sessions.stream(id) {
            Some(stream) => Some(stream),
            None => {
                return (
                    StatusCode::CONFLICT,
                    "this MCP session has its event stream open already\n",
                )
                    .into_response();
            }
        }
    } else {
        None
    };
    request.extensions_mut().insert(CallerToken(token));
    let ending_a_session = request.method() == Method::DELETE;
    if ending_a_session
        && let Some(id) = request.headers().get(SESSION_HEADER)
        && let Ok(id) = id.to_str()
    {
        server.mcp.end_session(id);
    }
    let mut response = server.mcp.handle(request).await.into_response();
    if let Some(stream) = stream {
        let (parts, body) = response.into_parts();
        response = Response::from_parts(
            parts,
            axum::body::Body::new(Streaming {
                body,
                _stream: stream,
            }),
        );
    }
    if let Some(opening) = opening {
        opening.opened(
            response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|id| id.to_str().ok()),
        );
    }
    // rmcp answers a session's end with 202 Accepted; clients (the MCP
    // Python SDK's) take only 200 or 204 for done, and warn otherwise.
    if ending_a_session && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}
