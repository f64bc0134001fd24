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
use stockade_mcp::budget::request_id;
use stockade_mcp::{
    Admission, Caller, Held, HttpOptions, HttpTools, OptionsFor, Refusal, SESSION_HEADER,
    ToolServer,
};

use crate::Server;
use crate::anonymous::Standing;
use crate::capacity::Capacity;
use crate::mcp_bodies::BodyHold;
use crate::metrics::Metrics;
use crate::tokens::TokenId;

/// Where the MCP endpoint answers.
pub const MCP_PATH: &str = "/mcp";

/// The header of a GET that resumes a request's answer, not the session's
/// event stream.
const LAST_EVENT_ID: &str = "last-event-id";

/// A response body that holds `guard` until it is written out: its
/// session's event stream, or the bytes its request was charged.
struct Holding<G> {
    body: axum::body::Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> Holding<G> {
    /// `response` with its body holding `guard`.
    fn response(response: Response, guard: G) -> Response {
        let (parts, body) = response.into_parts();
        Response::from_parts(
            parts,
            axum::body::Body::new(Holding {
                body,
                _guard: guard,
            }),
        )
    }
}

impl<G: Unpin> http_body::Body for Holding<G> {
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
    options.max_result_bytes = policy.max_result_bytes;
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

/// The `_meta` key of a request that names its own protocol version: the
/// sessionless way (2026-07-28), which rmcp serves with a fresh handler
/// even when a session id comes with it.
const PER_REQUEST_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What `serve` reads of a POST's JSON-RPC message.
#[derive(Debug, Default, serde::Deserialize)]
struct Message {
    method: Option<String>,
    params: Option<Params>,
}

#[derive(Debug, Default, serde::Deserialize)]
struct Params {
    #[serde(rename = "_meta")]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Message {
    fn sessionless(&self) -> bool {
        self.params
            .as_ref()
            .and_then(|params| params.meta.as_ref())
            .is_some_and(|meta| meta.contains_key(PER_REQUEST_VERSION))
    }
}

fn refuse(status: StatusCode, why: impl Into<String>) -> Response {
    (status, why.into()).into_response()
}

/// The caller's token, or the answer that turns the request away: no
/// token; a web page at a server without tokens; a new MCP session while
/// the server drains; a session another token opened.
fn check_caller(server: &Server, request: &Request) -> Result<TokenId, Box<Response>> {
    let headers = request.headers();
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|value| value.as_bytes());
    let Some(token) = server.tokens.check(authorization) else {
        server.metrics.unauthorized();
        return Err(Box::new(
            (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "a bearer token from this server's token file is required\n",
            )
                .into_response(),
        ));
    };
    // Before the body is read: a page must not make the server take in
    // one (rmcp would refuse it, but only after reading it).
    if !server.tokens.required() && headers.contains_key(header::ORIGIN) {
        server.metrics.unauthorized();
        return Err(Box::new(refuse(
            StatusCode::FORBIDDEN,
            "a web page may not use a server without tokens\n",
        )));
    }
    // A caller the server lets in: its connection keeps alive from now.
    if let Some(standing) = request.extensions().get::<Arc<Standing>>() {
        standing.authenticate();
    }
    let session = headers.get(SESSION_HEADER);
    if server.is_draining() && session.is_none() {
        server.metrics.over_capacity();
        return Err(Box::new(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "this server is shutting down; connect to another\n",
        )));
    }
    // A session serves the token that opened it only: another token
    // holding its id (leaked, say) is told there is no such session.
    if let Some(id) = session {
        let owned = id
            .to_str()
            .is_ok_and(|id| server.mcp_sessions.opened_by(&token, id));
        if !owned {
            return Err(Box::new(refuse(
                StatusCode::NOT_FOUND,
                "Not Found: Session not found\n",
            )));
        }
    }
    Ok(token)
}

/// Longest a request's body may take to arrive.
const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A refusal of a request's cost, as MCP's clients read an error: a
/// JSON-RPC error (to the request's id, when its first bytes hold one).
fn refuse_cost(status: StatusCode, id: Option<serde_json::Value>, why: &str) -> Response {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32600, "message": why},
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        error.to_string(),
    )
        .into_response()
}

/// Reads a POST's body and what it asks, charged to its token's share of
/// the bytes requests may hold (`mcp_bodies.rs`) before a byte is read, and
/// held to the request budget before anything parses it; the request is
/// rebuilt around the bytes for rmcp.
async fn read_post(
    server: &Server,
    token: TokenId,
    request: Request,
) -> Result<(Request, Message, Arc<BodyHold>), Box<Response>> {
    let budget = server.mcp_budget;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<usize>().ok());
    if let Some(declared) = declared.filter(|&declared| declared > budget.max_bytes) {
        let refusal = Refusal::TooLarge {
            at_least: declared,
            max: budget.max_bytes,
        };
        return Err(Box::new(refuse_cost(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            &refusal.to_string(),
        )));
    }
    let charge = declared.unwrap_or(budget.max_bytes);
    let mut hold = server.mcp_bodies.take(token, charge).map_err(|why| {
        server.metrics.over_capacity();
        Box::new(refuse_cost(StatusCode::SERVICE_UNAVAILABLE, None, &why))
    })?;
    let (parts, body) = request.into_parts();
    // A body that trickles in would hold its charge: it has as long as a
    // request's headers have.
    let read = tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, charge)).await;
    let body = match read {
        Ok(Ok(body)) => body,
        Ok(Err(_)) => {
            let refusal = Refusal::TooLarge {
                at_least: charge.saturating_add(1),
                max: budget.max_bytes,
            };
            return Err(Box::new(refuse_cost(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                &format!("{refusal} (or it was cut off, or longer than it said)"),
            )));
        }
        Err(_) => {
            return Err(Box::new(refuse_cost(
                StatusCode::REQUEST_TIMEOUT,
                None,
                &format!("the request's body did not arrive within {BODY_TIMEOUT:?}"),
            )));
        }
    };
    hold.shrink_to(body.len());
    if let Err(refusal) = budget.check(&body) {
        return Err(Box::new(refuse_cost(
            StatusCode::PAYLOAD_TOO_LARGE,
            request_id(&body),
            &refusal.to_string(),
        )));
    }
    // rmcp answers a body that is not a message; here it only matters
    // what one asks.
    let message = serde_json::from_slice::<Message>(&body).unwrap_or_default();
    let hold = Arc::new(hold);
    let mut request = Request::from_parts(parts, axum::body::Body::from(body));
    // rmcp keeps the request's parts with its call (a call waits for its
    // language): the charge lives as long as they do, or as the answer.
    request.extensions_mut().insert(Arc::clone(&hold));
    Ok((request, message, hold))
}

/// Answers a request to [`MCP_PATH`]. Every request shows its token; a
/// POST must be part of an MCP session (or open one), never a sessionless
/// request, whose fresh sandbox would lose the guest's state at once.
pub async fn serve(State(server): State<Arc<Server>>, request: Request) -> Response {
    let token = match check_caller(&server, &request) {
        Ok(token) => token,
        Err(refused) => return *refused,
    };
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    match (request.method().clone(), session) {
        (Method::POST, session) => {
            let (request, message, hold) = match read_post(&server, token, request).await {
                Ok(read) => read,
                Err(refused) => return *refused,
            };
            let method = message.method.as_deref();
            if message.sessionless() && method != Some(DISCOVER) {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "this server keeps state in MCP sessions and does not serve sessionless requests (a protocol version in _meta); initialize a session\n",
                );
            }
            let response = match (session, method) {
                (Some(_), _) | (None, Some(DISCOVER)) => forward(&server, token, request).await,
                (None, Some("initialize")) => initialize(server, token, request).await,
                (None, _) => refuse(
                    StatusCode::BAD_REQUEST,
                    "this server keeps state in MCP sessions: a request without Mcp-Session-Id must be initialize\n",
                ),
            };
            // The request's parsed form and its call live until the
            // answer is written out: its bytes stay charged that long.
            Holding::response(response, hold)
        }
        (Method::GET, Some(id)) => event_stream(&server, token, request, &id).await,
        (Method::DELETE, Some(id)) => {
            let mut response = forward(&server, token, request).await;
            // rmcp answers a session's end with 202 Accepted; clients (the
            // MCP Python SDK's) take only 200 or 204 for done, and warn
            // otherwise. Its calls end now (rmcp would give them 5 s), and
            // the answer waits for its places to be free.
            if response.status() == StatusCode::ACCEPTED {
                server.mcp.end_session(&id).await;
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
            response
        }
        _ => forward(&server, token, request).await,
    }
}

/// The `server/discover` probe: answered without a handler's sandboxes,
/// telling a client of the sessionless protocol to use the handshake.
const DISCOVER: &str = "server/discover";

/// Hands the request to rmcp, with the token for the admission.
async fn forward(server: &Server, token: TokenId, mut request: Request) -> Response {
    request.extensions_mut().insert(CallerToken(token));
    server.mcp.handle(request).await.into_response()
}

/// An `initialize`: it takes a place among the MCP sessions until it is
/// answered, and the session it opens is recorded as the token's. Served
/// in a task of its own, so a client that goes mid-answer cannot leave a
/// session opened but never recorded.
async fn initialize(server: Arc<Server>, token: TokenId, request: Request) -> Response {
    let opening = match server
        .mcp_sessions
        .open(token, server.mcp.open_sessions())
        .await
    {
        Ok(opening) => opening,
        Err(why) => {
            server.metrics.over_capacity();
            return refuse(StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n"));
        }
    };
    let answered = tokio::spawn(async move {
        let response = forward(&server, token, request).await;
        opening.opened(
            response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|id| id.to_str().ok()),
        );
        response
    });
    answered.await.unwrap_or_else(|err| {
        refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the initialize failed: {err}\n"),
        )
    })
}

/// A GET: the session's event stream, held open as long as its body, one
/// at a time; or the resumption of one request's answer (a Last-Event-ID
/// naming a request's stream, `N/M`), which rmcp ends with the answer.
async fn event_stream(server: &Server, token: TokenId, request: Request, id: &str) -> Response {
    let resumes_a_request = request
        .headers()
        .get(LAST_EVENT_ID)
        .and_then(|last| last.to_str().ok())
        .is_some_and(|last| last.contains('/'));
    if resumes_a_request {
        return forward(server, token, request).await;
    }
    let Some(stream) = server.mcp_sessions.stream(id) else {
        return refuse(
            StatusCode::CONFLICT,
            "this MCP session has its event stream open already\n",
        );
    };
    Holding::response(forward(server, token, request).await, stream)
}
