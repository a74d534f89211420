//! Fuzzes the MCP server's tool dispatch, `elnor_mcp::tools::call`, with an arbitrary tool name
//! and arbitrary JSON arguments, on a real store: one temporary store per process, opened once
//! and filled by ingesting tests/fixtures, so the tools find sessions, work contexts and turns
//! to read. The input's first line is the tool name and the rest the arguments; arguments that
//! are not a JSON object are dropped here, because the protocol layer (rmcp) only ever hands
//! `call` an object or nothing. `observation_push` writes, so the store grows as the run goes,
//! as a real server's does. Seeds: one valid call of every tool and a few refused ones.

#![no_main]

use std::path::Path;
use std::sync::{Arc, OnceLock};

use elnor_engine::{Harness, SourceRoot, Store};
use elnor_mcp::tools::{self, Context};
use libfuzzer_sys::fuzz_target;

/// The store, kept for the whole process; the temporary directory is kept with it so it is
/// deleted only when the process ends.
struct Fixture {
    store: Arc<Store>,
    ctx: Context,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary store directory");
        let store = Store::open(dir.path().join("store")).expect("open the store");
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let roots = [
            (Harness::ClaudeCode, "claude-code"),
            (Harness::Codex, "codex"),
            (Harness::OpenClaw, "openclaw"),
        ]
        .map(|(harness, sub)| SourceRoot {
            harness,
            root: samples.join(sub),
        });
        elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now())
            .expect("ingest the fixtures");
        Fixture {
            store: Arc::new(store),
            ctx: Context {
                cwd: Some("/home/dana/code/ledger-sync".to_owned()),
            },
            _dir: dir,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (name, args) = text.split_once('\n').unwrap_or((text, ""));
    let args = if args.trim().is_empty() {
        None
    } else {
        match serde_json::from_str::<serde_json::Value>(args) {
            Ok(serde_json::Value::Object(map)) => Some(map),
            _ => return,
        }
    };
    let f = fixture();
    if let Ok(outcome) = tools::call(&f.store, &f.ctx, name, args) {
        // What the server sends back: the value cut to its bound.
        let _ = tools::bounded_text(&outcome.value);
        // The work the server does once the result is sent (the brief's view refresh).
        if let Some(after) = outcome.after {
            after();
        }
    }
});
