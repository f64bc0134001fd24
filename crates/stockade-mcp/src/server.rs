//! The MCP server handler: lists the tools and answers their calls over
//! one client's sessions. One handler serves one client connection.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Extensions,
    Implementation, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use stockade::Language;
use tokio_util::sync::CancellationToken;

use crate::admission::{Admission, Caller};
use crate::outcome::RunOutput;
use crate::registry::{Registry, SESSION_HEADER};
use crate::sessions::{OptionsFor, Sessions};
use crate::tools::{self, RESET};

/// What `run_python` and `run_javascript` take.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunArgs {
    code: String,
    #[serde(default)]
    inputs: Option<Map<String, Json>>,
}

/// What `reset` takes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetArgs {
    #[serde(default)]
    language: Option<String>,
}

/// Serves the tools to one client: its own sessions, started on first use
/// and ended when the handler is dropped with its connection.
#[derive(Clone)]
pub struct ToolServer {
    sessions: Arc<Sessions>,
    tools: Arc<Vec<Tool>>,
    options_for: OptionsFor,
    admission: Option<Arc<dyn Admission>>,
    /// The protocol versions offered; None: every one rmcp knows.
    versions: Option<&'static [ProtocolVersion]>,
    /// Where an HTTP client's handler is found by its MCP session's id.
    registry: Option<Arc<Registry>>,
}

impl std::fmt::Debug for ToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolServer").finish_non_exhaustive()
    }
}

/// The versions that open with `initialize`, oldest first.
const HANDSHAKE_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

const INSTRUCTIONS: &str = "Runs code in sandboxes that keep their state between calls: `run_python` and `run_javascript` each have one sandbox for this connection; `reset` starts a language afresh. The sandboxes have no network and see no host files but those the tool descriptions name.";

impl ToolServer {
    /// A handler whose sessions start with the options `options_for`
    /// gives for their language.
    pub fn new(options_for: OptionsFor) -> Self {
        let tools = tools::tools(
            &options_for(Language::Python),
            &options_for(Language::JavaScript),
        );
        ToolServer {
            sessions: Arc::new(Sessions::new(Arc::clone(&options_for), None)),
            tools: Arc::new(tools),
            options_for,
            admission: None,
            versions: None,
            registry: None,
        }
    }

    /// This handler, its sandboxes admitted by `admission` before they
    /// start.
    pub fn with_admission(mut self, admission: Arc<dyn Admission>) -> Self {
        self.admission = Some(admission);
        self.for_another_client()
    }

    /// This handler, offering only the protocol versions that open a
    /// connection with `initialize`. From 2026-07-28 on, MCP over HTTP
    /// has no sessions: each request would meet a handler of its own and
    /// the guest's state would not persist from call to call. A client
    /// that speaks both falls back to the handshake and keeps its state.
    pub fn handshake_versions_only(mut self) -> Self {
        self.versions = Some(HANDSHAKE_VERSIONS);
        self
    }

    /// This handler, entering its clients' sessions in `registry` by the
    /// MCP session id their calls carry.
    pub(crate) fn registered_in(mut self, registry: Arc<Registry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// A handler for another client: the same tools, options and
    /// admission (the descriptions are not worked out again), and
    /// sessions of its own.
    pub fn for_another_client(&self) -> Self {
        ToolServer {
            sessions: Arc::new(Sessions::new(
                Arc::clone(&self.options_for),
                self.admission.clone(),
            )),
            tools: Arc::clone(&self.tools),
            options_for: Arc::clone(&self.options_for),
            admission: self.admission.clone(),
            versions: self.versions,
            registry: self.registry.clone(),
        }
    }

    /// Ends every call under way: the client is gone.
    pub fn stop_all(&self) {
        self.sessions.stop_all();
    }

    fn arguments<T: for<'de> Deserialize<'de>>(
        tool: &str,
        arguments: Option<Map<String, Json>>,
    ) -> Result<T, McpError> {
        serde_json::from_value(Json::Object(arguments.unwrap_or_default())).map_err(|err| {
            McpError::invalid_params(format!("bad arguments for {tool}: {err}"), None)
        })
    }

    async fn run(
        &self,
        language: Language,
        tool: &str,
        arguments: Option<Map<String, Json>>,
        cancel: CancellationToken,
        request: &Extensions,
    ) -> Result<CallToolResult, McpError> {
        let args: RunArgs = Self::arguments(tool, arguments)?;
        let http = request.get::<http::request::Parts>();
        if let Some(registry) = &self.registry
            && let Some(id) = http
                .and_then(|parts| parts.headers.get(SESSION_HEADER))
                .and_then(|id| id.to_str().ok())
        {
            registry.enter(id, &self.sessions);
        }
        let caller = Caller {
            http: http.map(|parts| parts.extensions.clone()),
        };
        let inputs = crate::json::inputs(args.inputs.unwrap_or_default());
        let sessions = Arc::clone(&self.sessions);
        let cancelled = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancelled);
        let mut running = tokio::task::spawn_blocking(move || {
            sessions.run(language, &args.code, inputs, flag, &caller)
        });
        // A cancelled request ends its run (the sandbox is lost, replaced
        // on the next call), or never starts it, instead of holding the
        // language until its time limit.
        let joined = tokio::select! {
            joined = &mut running => joined,
            () = cancel.cancelled() => {
                cancelled.store(true, Ordering::SeqCst);
                running.await
            }
        };
        let ran = joined
            .map_err(|err| McpError::internal_error(format!("the run failed: {err}"), None))?;
        let output = RunOutput::from_ran(ran);
        let text = output.text();
        let failed = output.failed();
        let structured = serde_json::to_value(&output)
            .map_err(|err| McpError::internal_error(err.to_string(), None))?;
        let mut result = if failed {
            CallToolResult::structured_error(structured)
        } else {
            CallToolResult::structured(structured)
        };
        result.content = vec![ContentBlock::text(text)];
        result.content.extend(output.output_content());
        Ok(result)
    }

    async fn reset(
        &self,
        arguments: Option<Map<String, Json>>,
    ) -> Result<CallToolResult, McpError> {
        let args: ResetArgs = Self::arguments(RESET, arguments)?;
        let languages = match args.language.as_deref() {
            None => vec![Language::Python, Language::JavaScript],
            Some(name) => vec![name.parse::<Language>().map_err(|_| {
                McpError::invalid_params(
                    format!("reset: unknown language {name:?} (python or javascript)"),
                    None,
                )
            })?],
        };
        let sessions = Arc::clone(&self.sessions);
        let asked = languages.clone();
        tokio::task::spawn_blocking(move || sessions.reset(&asked))
            .await
            .map_err(|err| McpError::internal_error(format!("the reset failed: {err}"), None))?;
        let names: Vec<&str> = languages.iter().map(|language| language.name()).collect();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Reset: the next {} call starts in a fresh sandbox.",
            names.join(" or ")
        ))]))
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("stockade", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(self.versions.unwrap_or(ProtocolVersion::KNOWN_VERSIONS))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.as_ref();
        let result = match tools::language_of(name) {
            Some(language) => {
                self.run(
                    language,
                    name,
                    request.arguments,
                    context.ct,
                    &context.extensions,
                )
                .await?
            }
            None if name == RESET => self.reset(request.arguments).await?,
            None => {
                return Err(McpError::invalid_params(
                    format!(
                        "no tool named {name:?}: the tools are run_python, run_javascript and reset"
                    ),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_versions_are_the_known_versions_that_initialize() {
        let known: Vec<ProtocolVersion> = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .filter(|version| version.has_initialize())
            .cloned()
            .collect();
        assert_eq!(HANDSHAKE_VERSIONS, known.as_slice());
    }
}
