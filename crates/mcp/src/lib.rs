//! `elnor mcp`: the Model Context Protocol server, a thin adapter that puts the continuity
//! engine's use cases in front of agents (CSA §7, §8). It holds no domain logic: each tool is
//! its arguments' conversion plus one engine call ([`tools`]), served over stdio by the official
//! Rust SDK ([`server`]).
//!
//! The engine stays synchronous; the server runs a small tokio runtime for the protocol and
//! hands every call to a blocking thread, so a slow search never stalls the connection.

mod server;
pub mod tools;

use std::sync::Arc;

use elnor_engine::Store;
use rmcp::ServiceExt;

pub use server::{BRIEF_URI, Server};
pub use tools::{Context, LOW_TRUST_BANNER, ToolError, ToolSpec, catalogue};

/// Why the server stopped other than by its client closing the connection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not start the MCP server's runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("the MCP connection failed: {0}")]
    Protocol(String),
}

/// Serves `store` on stdin/stdout until the client disconnects. `cwd` is the folder the harness
/// started the server in, which tools use when not told one.
pub fn serve_stdio(store: Store, ctx: Context) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = Server::new(Arc::new(store), ctx);
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Protocol(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Protocol(e.to_string()))?;
        Ok(())
    })
}
