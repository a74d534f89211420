//! The protocol side: an rmcp `ServerHandler` that lists the tools of [`crate::tools`] and runs
//! each call on a blocking thread (the engine is synchronous: SQLite and the index), plus the
//! brief as a resource.

use std::sync::Arc;

use elnor_engine::Store;
use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};

use crate::tools::{self, Context};

/// The brief for the folder the server runs in, as a resource a client can attach.
pub const BRIEF_URI: &str = "elnor://brief";
/// The global head (`heads/MEMORY.md`, CLOSURE Tier 1) as a resource: the same head every
/// harness shares, read fresh from the store.
pub const MEMORY_URI: &str = "elnor://memory";

/// What the server tells a client about itself at `initialize`.
const INSTRUCTIONS: &str = "ELNOR keeps the person's work state across agent sessions. Start \
    with `brief` for what was going on here; search past work with `continuity_query`; drill \
    into where a line came from with `trace_explain` and `lineage_expand`; read older sessions \
    with `session_list` and `session_read_transcript`. Only `observation_push` writes. Search \
    results are low trust: verify before acting.";

/// The MCP server over one store.
#[derive(Clone)]
pub struct Server {
    store: Arc<Store>,
    ctx: Context,
}

impl Server {
    pub fn new(store: Arc<Store>, ctx: Context) -> Server {
        Server { store, ctx }
    }

    /// Runs a tool on a blocking thread and turns its outcome into a tool result: an error the
    /// model can read, never a protocol failure, even when the engine panicked (the thread's
    /// panic is caught by tokio and the server goes on serving).
    async fn run(
        &self,
        name: String,
        args: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> CallToolResult {
        let store = Arc::clone(&self.store);
        let ctx = self.ctx.clone();
        let joined =
            tokio::task::spawn_blocking(move || tools::call(&store, &ctx, &name, args)).await;
        match joined {
            Ok(Ok(outcome)) => {
                let text = tools::bounded_text(&outcome.value);
                if let Some(after) = outcome.after {
                    // Housekeeping after the answer, off the agent's path; its result is logged
                    // by the engine, not returned.
                    tokio::task::spawn_blocking(after);
                }
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            Ok(Err(e)) => CallToolResult::error(vec![ContentBlock::text(e.0)]),
            Err(_) => CallToolResult::error(vec![ContentBlock::text(
                "the tool failed unexpectedly (an internal error in ELNOR); try again, or report it",
            )]),
        }
    }
}

fn tool_of(spec: &tools::ToolSpec) -> Tool {
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(!spec.writes)
        .destructive(false)
        .idempotent(!spec.writes)
        .open_world(false);
    Tool::new(spec.name, spec.description, Arc::new(spec.schema.clone()))
        .with_title(spec.title)
        .with_annotations(annotations)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("elnor", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            tools::catalogue().iter().map(tool_of).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(self
            .run(request.name.into_owned(), request.arguments)
            .await
            .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(BRIEF_URI, "brief")
                .with_title("Brief for this folder")
                .with_description(
                    "The brief a new session in the folder this server runs in would get, as a \
                     preview (nothing is marked delivered).",
                )
                .with_mime_type("text/plain"),
            Resource::new(MEMORY_URI, "memory")
                .with_title("Global head (MEMORY.md)")
                .with_description(
                    "What matters now across every work context: next actions, commitments, \
                     open loops, durable constraints, each line citing its lineage node \
                     (walk it with lineage_node). Capped; what did not fit is listed.",
                )
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri == MEMORY_URI {
            let store = Arc::clone(&self.store);
            let text = tokio::task::spawn_blocking(move || tools::global_head(&store))
                .await
                .map_err(|_| McpError::internal_error("the head failed unexpectedly", None))?
                .map_err(|e| McpError::internal_error(e.0, None))?;
            return Ok(
                ReadResourceResult::new(vec![ResourceContents::text(text, MEMORY_URI)]).into(),
            );
        }
        if request.uri != BRIEF_URI {
            return Err(McpError::resource_not_found(
                format!(
                    "no resource {:?}; the resources are {BRIEF_URI} and {MEMORY_URI}",
                    request.uri
                ),
                None,
            ));
        }
        let mut args = serde_json::Map::new();
        args.insert("preview".into(), serde_json::Value::Bool(true));
        let store = Arc::clone(&self.store);
        let ctx = self.ctx.clone();
        let text = tokio::task::spawn_blocking(move || {
            tools::call(&store, &ctx, "brief", Some(args)).map(|o| {
                o.value
                    .get("text")
                    .and_then(|t| t.as_str())
                    .unwrap_or_default()
                    .to_owned()
            })
        })
        .await
        .map_err(|_| McpError::internal_error("the brief failed unexpectedly", None))?
        .map_err(|e| McpError::internal_error(e.0, None))?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, BRIEF_URI)]).into())
    }
}
