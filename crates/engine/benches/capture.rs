//! Capture cost as the graph grows: one deterministic capture of a real fixture session (Claude
//! Code, 27 turns) into a named work context whose log already holds 250 entries (SPEC §14 per
//! context), with 0, 2,000, 20,000 and 50,000 (SPEC §14) entities in the graph. The graph keeps
//! its known-name automaton while no name changes, so the iterations measure a capture that
//! finds it built; the cost of building it after a change is measured whole-process in
//! BENCHMARKS.md.
//!
//! `cargo bench -p elnor-engine --bench capture` (needs `../shared/fixtures` beside the checkout).

use std::path::PathBuf;

use chrono::{TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use elnor_engine::CaptureRequest;
use elnor_engine::Harness;
use elnor_engine::MemorySecrets;
use elnor_engine::NewEntity;
use elnor_engine::OpenQuestionContent;
use elnor_engine::SourceRoot;
use elnor_engine::Trigger;
use elnor_engine::capture_session;
use elnor_engine::{CaptureMode, ContinuityEntry, ContinuityMode, EntryContent, SessionId, Store};
use elnor_engine::{LinkRuleKind, NewWorkContext};

const SESSION: &str = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";

fn fixtures() -> PathBuf {
    elnor_fixtures::transcripts().expect("this benchmark reads the shared fixture corpus")
}

fn store_with(entities: usize) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root: fixtures().join("claude-code"),
    }];
    elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap();
    for i in 0..entities {
        elnor_engine::create_entity(
            &store,
            &NewEntity {
                kind: "matter".into(),
                canonical_name: format!("Generated Matter {i:05}"),
                aliases: vec![format!("GM{i:05}")],
                deadline: None,
            },
            now,
        )
        .map(|e| e.value)
        .unwrap();
    }
    let wc = elnor_engine::create_work_context(
        &store,
        &NewWorkContext {
            name: "Spotter OTEL".into(),
            rules: vec![(
                LinkRuleKind::Cwd,
                "/home/USER/projects/spotter-worktrees".into(),
            )],
            ..NewWorkContext::default()
        },
        now,
    )
    .map(|e| e.value)
    .unwrap();
    let config = store.config().unwrap();
    let log = store.log(&wc.work_context_id);
    for i in 0..250 {
        let e = ContinuityEntry::new(
            wc.work_context_id.clone(),
            SessionId::new(format!("old-{i}")).unwrap(),
            now,
            CaptureMode::Deterministic,
            EntryContent::OpenQuestion(OpenQuestionContent {
                question: format!("Earlier open question number {i} about the data timeline"),
                context: String::new(),
                resolved: false,
                resolved_at: None,
                resolution_summary: None,
            }),
            &config,
        );
        log.append(&e).unwrap();
    }
    (dir, store)
}

fn bench(c: &mut Criterion) {
    let secrets = MemorySecrets::default();
    let mut group = c.benchmark_group("capture");
    group.sample_size(20);
    for entities in [0, 2_000, 20_000, 50_000] {
        let (dir, store) = store_with(entities);
        let db = dir.path().join("entity_graph.sqlite");
        let now = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
        group.bench_function(format!("session_27_turns_entities_{entities}"), |b| {
            b.iter(|| {
                // Forget the previous capture so each iteration does the whole work again; its
                // entries are recognised and not appended twice, so the log stays at its size.
                let conn = rusqlite::Connection::open(&db).unwrap();
                conn.execute("DELETE FROM session_captures", []).unwrap();
                drop(conn);
                // The whole operation as `elnor capture SESSION` runs it: capture, then the views.
                capture_session(
                    &store,
                    &secrets,
                    &CaptureRequest {
                        session_id: elnor_engine::SessionId::new(SESSION).unwrap(),
                        trigger: Trigger::ManualRequest,
                        now,
                    },
                )
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
