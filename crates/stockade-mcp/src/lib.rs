//! The Model Context Protocol face of stockade: the tools `run_python`,
//! `run_javascript` and `reset` over sandboxed sessions, one per language
//! for each client connection, so that a guest's state persists from call
//! to call the way an agent expects. `stockade mcp` serves them over stdio
//! ([`serve_stdio`]), `stockade serve` over streamable HTTP ([`HttpTools`]);
//! the handler ([`ToolServer`]) is transport-agnostic.
//!
//! - `tools.rs`: the tools' schemas, and descriptions that tell a model
//!   what the sandbox has;
//! - `sessions.rs`: a client's sessions, replaced when a limit loses one;
//! - `outcome.rs`: a run as structured content and as text;
//! - `json.rs`: a call's `inputs` as guest values;
//! - `server.rs`: the rmcp handler;
//! - `admission.rs`: lets a server bound the sandboxes clients start;
//! - `endpoint.rs`: the streamable HTTP endpoint;
//! - `registry.rs`: its sessions' handlers by session id;
//! - `budget.rs`: what one request may cost before it is parsed;
//! - `stdio.rs`: the stdio transport, each message held to that budget;
//! - `eof.rs`: ends the calls under way when a stdio client goes.

mod admission;
pub mod budget;
mod endpoint;
mod eof;
mod json;
mod outcome;
mod registry;
mod server;
mod sessions;
mod stdio;
mod tools;

pub use admission::{Admission, Caller, Held};
pub use budget::{Refusal, RequestBudget};
pub use endpoint::{HttpOptions, HttpTools};
pub use registry::SESSION_HEADER;
pub use server::ToolServer;
pub use sessions::{MAX_STREAM_BYTES, OptionsFor};

use rmcp::ServiceExt;

/// Why serving stopped early.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// The client's first messages were not an MCP initialization.
    #[error("the MCP connection could not start: {0}")]
    Initialize(String),
    /// The connection failed while serving.
    #[error("the MCP connection failed: {0}")]
    Connection(String),
}

/// Serves one client over this process's stdin and stdout until the
/// client closes its end; every session ends with it, a call under way
/// at once. Each message is held to `budget` before it is parsed.
pub async fn serve_stdio(server: ToolServer, budget: RequestBudget) -> Result<(), McpServeError> {
    let stopper = server.clone();
    let input = eof::OnEnd::new(tokio::io::stdin(), move || stopper.stop_all());
    let running = server
        .serve(stdio::BoundedStdio::new(input, tokio::io::stdout(), budget))
        .await
        .map_err(|err| McpServeError::Initialize(err.to_string()))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|err| McpServeError::Connection(err.to_string()))
}
