//! The lineage DAG on a generated heavy-user store (SPEC §14): 2,000 work contexts, 20,000
//! sessions of 100 turns (2,000,000 turns), each session captured twice (40,000 session summaries
//! with their capture windows), every tenth session compacted once with a summary.
//!
//! Measured: the whole DAG built from nothing (`elnor lineage rebuild`, the first run after an
//! upgrade), the refresh of one work context (what each capture pays, off the brief's path), and a
//! drill-down from a session summary with its turns (what `elnor lineage show` and the app's
//! Lineage page wait for). Peer in the same run: one bare SQLite pass over every turn's length,
//! the least any build that reads the turns must do.
//!
//! `cargo bench -p elnor-engine --bench lineage` (`ELNOR_BENCH_KEEP=1` keeps the store).

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use elnor_engine::{Store, WorkContextId};
use rusqlite::params;

const CONTEXTS: usize = 2_000;
const SESSIONS: usize = 20_000;
const TURNS_PER_SESSION: i64 = 100;

fn heavy_store() -> (tempfile::TempDir, Store) {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let t0: DateTime<Utc> = "2025-01-01T00:00:00Z".parse().unwrap();
    let ts = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut conn = rusqlite::Connection::open(dir.path().join("entity_graph.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    let tx = conn.transaction().unwrap();
    {
        let mut session_row = tx
            .prepare(
                "INSERT INTO transcript_sessions (session_id, harness, source_path, cwd,
                     started_at, last_turn_at, turn_count, record_count, compaction_count,
                     work_context_id)
                 VALUES (?1, 'claude_code', ?2, ?3, ?4, ?5, 100, 100, ?6, ?7)",
            )
            .unwrap();
        let mut turn = tx
            .prepare(
                "INSERT INTO turns (seq, turn_id, session_id, harness, role, kind, record_type,
                     text, tool_calls, timestamp, is_sidechain, raw, source_path, source_offset)
                 VALUES (?1, ?2, ?3, 'claude_code', ?4, ?5, 'x', ?6, '[]', ?7, 0, '', ?8, ?9)",
            )
            .unwrap();
        let mut summary = tx
            .prepare("INSERT INTO session_summaries VALUES (?1, ?2, ?3, ?4, 'deterministic')")
            .unwrap();
        let mut window = tx
            .prepare("INSERT INTO capture_windows VALUES (?1, ?2, ?3, ?4, 1)")
            .unwrap();
        let mut seq: i64 = 0;
        for s in 0..SESSIONS {
            let session = format!("sess_{s:05}");
            let wc = format!("wc_ctx_{:04}", s % CONTEXTS);
            let start = t0 + chrono::Duration::minutes(s as i64 * 47);
            let compacted = s % 10 == 0;
            session_row
                .execute(params![
                    session,
                    format!("/x/{session}.jsonl"),
                    format!("/home/p/{}", s % CONTEXTS),
                    ts(start),
                    ts(start + chrono::Duration::minutes(TURNS_PER_SESSION)),
                    i64::from(compacted),
                    wc
                ])
                .unwrap();
            let first = seq + 1;
            for k in 0..TURNS_PER_SESSION {
                seq += 1;
                let (role, kind, text) = if compacted && k == 60 {
                    (
                        "system",
                        "compaction_summary",
                        format!(
                            "Summary of the session so far: the ledger sync for {session} was \
                                 reviewed, the migration plan agreed, two questions remain open."
                        ),
                    )
                } else if k % 2 == 0 {
                    (
                        "user",
                        "message",
                        format!(
                            "Please check the invoice parser for {session}, step {k}; the client wants it by Friday."
                        ),
                    )
                } else {
                    (
                        "assistant",
                        "message",
                        format!(
                            "Checked step {k}: the parser handles the new schema, one edge case left in the totals."
                        ),
                    )
                };
                turn.execute(params![
                    seq,
                    format!("{session}:{k}"),
                    session,
                    role,
                    kind,
                    text,
                    ts(start + chrono::Duration::minutes(k)),
                    format!("/x/{session}.jsonl"),
                    k
                ])
                .unwrap();
            }
            // Two captures: the first half of the session, then the rest.
            let mid = first + TURNS_PER_SESSION / 2 - 1;
            let hex = format!("{:012x}", s);
            for (after, through) in [(None, mid), (Some(mid), seq)] {
                let id = format!("ss_{hex}_{through}");
                summary
                    .execute(params![
                        id,
                        session,
                        format!("Worked on the invoice parser of {session}: schema handled, totals edge case open; next, the client's Friday review."),
                        ts(start + chrono::Duration::minutes(TURNS_PER_SESSION))
                    ])
                    .unwrap();
                window
                    .execute(params![id, session, after, through])
                    .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    eprintln!(
        "heavy store: {CONTEXTS} contexts, {SESSIONS} sessions, {} turns, {} summaries, built in {:.1?}",
        SESSIONS as i64 * TURNS_PER_SESSION,
        SESSIONS * 2,
        started.elapsed()
    );
    (dir, store)
}

fn bench(c: &mut Criterion) {
    let (dir, store) = heavy_store();
    let conn = rusqlite::Connection::open(dir.path().join("entity_graph.sqlite")).unwrap();

    // The peer: one pass over every turn, as any build that reads the turns must make.
    let started = Instant::now();
    let chars: i64 = conn
        .query_row("SELECT sum(length(text)) FROM turns", [], |r| r.get(0))
        .unwrap();
    let scan = started.elapsed();
    let started = Instant::now();
    let report = elnor_engine::rebuild_lineage(&store).unwrap();
    let build = started.elapsed();
    eprintln!(
        "whole DAG: {} nodes, {} edges in {build:.2?}; peer, one SQLite pass over the turns' \
         {chars} characters: {scan:.2?} ({:.1}x)",
        report.nodes,
        report.edges,
        build.as_secs_f64() / scan.as_secs_f64().max(1e-9)
    );

    let wc = WorkContextId::new("wc_ctx_0007").unwrap();
    let mut group = c.benchmark_group("lineage_heavy_store");
    group.sample_size(30);
    group.bench_function("refresh_one_context", |b| {
        b.iter(|| elnor_engine::refresh_lineage(&store, [&wc]).unwrap())
    });
    let node: String = conn
        .query_row(
            "SELECT node_id FROM lineage_nodes WHERE work_context_id = 'wc_ctx_0007'
               AND kind = 'session_summary' ORDER BY node_id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    group.bench_function("drill_down_with_turns", |b| {
        b.iter(|| elnor_engine::lineage_drill_down(&store, &node, None, 2_000).unwrap())
    });
    group.finish();
    if std::env::var_os("ELNOR_BENCH_KEEP").is_some() {
        eprintln!("kept the store at {}", dir.keep().display());
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
