//! Fuzzes the MCP server's tool dispatch, `elnor_mcp::tools::call`, with an arbitrary tool name
//! and arbitrary JSON arguments, on a real store: a temporary store filled by ingesting
//! tests/fixtures, so the tools find sessions, work contexts and turns to read. The input's
//! first line is the tool name and the rest the arguments; arguments that are not a JSON object
//! are dropped here, because the protocol layer (rmcp) only ever hands `call` an object or
//! nothing. Seeds: one valid call of every tool and a few refused ones.
//!
//! `observation_push` writes, so the store grows as the run goes, as a real server's does. Left
//! to grow for the whole run, it made every call slower (700 calls a second at the start, 113 on
//! average over 95,000 calls, with the RSS doubling), so the store is thrown away and built
//! again every [`CALLS_PER_STORE`] calls: the fuzzer still sees a store that writes have
//! changed, at a rate that lets a run reach millions of calls.

#![no_main]

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use elnor_engine::{Harness, SourceRoot, Store};
use elnor_mcp::tools::{self, Context};
use libfuzzer_sys::fuzz_target;

/// How many calls one store serves before it is built again.
const CALLS_PER_STORE: u32 = 2_000;

/// The store and its temporary directory, kept together so the directory is deleted when the
/// store is replaced; `calls` counts the calls it has served.
struct Fixture {
    store: Arc<Store>,
    ctx: Context,
    calls: u32,
    _dir: tempfile::TempDir,
}

thread_local! {
    static FIXTURE: RefCell<Option<Fixture>> = const { RefCell::new(None) };
}

/// A new store with the fixtures ingested. The temporary directory honours `TMPDIR`, which
/// `scripts/fuzz.sh` points at a memory file system when there is one, so that the writes'
/// fsyncs do not set the pace.
fn new_fixture() -> Fixture {
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
        calls: 0,
        _dir: dir,
    }
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
    FIXTURE.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|f| f.calls >= CALLS_PER_STORE) {
            // The old store is dropped before the new one is built, so only one is on disk.
            *slot = None;
            *slot = Some(new_fixture());
        }
        let f = slot.as_mut().expect("a store was just built");
        f.calls += 1;
        if let Ok(outcome) = tools::call(&f.store, &f.ctx, name, args) {
            // What the server sends back: the value cut to its bound.
            let _ = tools::bounded_text(&outcome.value);
            // The work the server does once the result is sent (the brief's view refresh).
            if let Some(after) = outcome.after {
                after();
            }
        }
    });
});
