//! Benchmarks of the store at the scale of SPEC §14: 2,000 work contexts and 500,000 continuity
//! entries (250 per context). The store is generated once into `target/bench-stores/` (writing log
//! files directly, without per-line fsync) and reused by later runs.
//!
//! `cargo bench -p elnor-engine --bench store`; `ELNOR_BENCH_SCALE=small` uses 200 contexts and
//! 20,000 entries for a quick look.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{Duration, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use elnor_engine::{
    CaptureMode, ContinuityConfig, ContinuityEntry, EntityId, EntryContent, SessionId, Store,
    WorkContextId,
};
use elnor_engine::{KeyDecisionContent, OpenQuestionContent};

struct Scale {
    name: &'static str,
    contexts: usize,
    per_context: usize,
}

fn scale() -> Scale {
    match std::env::var("ELNOR_BENCH_SCALE").as_deref() {
        Ok("small") => Scale {
            name: "small",
            contexts: 200,
            per_context: 100,
        },
        _ => Scale {
            name: "spec",
            contexts: 2_000,
            per_context: 250,
        },
    }
}

fn entry(wc: &WorkContextId, i: usize, config: &ContinuityConfig) -> ContinuityEntry {
    let at = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + Duration::minutes(i as i64);
    let content = if i.is_multiple_of(3) {
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: format!("Decision {i}: keep the lineage DAG append-only for {wc}"),
            rationale: Some("Raw turns are immutable; summaries only add coverage edges".into()),
            superseded_by: None,
        })
    } else {
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: format!("Question {i}: does the brief stay under 420 tokens for {wc}?"),
            context: "Measured on the generated store".into(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        })
    };
    let mut e = ContinuityEntry::new(
        wc.clone(),
        SessionId::new(format!("sess-{}", i / 7)).unwrap(),
        at,
        CaptureMode::Deterministic,
        content,
        config,
    );
    e.linked_entity_ids = vec![EntityId::new(format!("ent_{}", i % 50)).unwrap()];
    e
}

fn store_at_scale(s: &Scale) -> (PathBuf, Store) {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let root = target.join("bench-stores").join(s.name);
    let done = root.join(".generated");
    let store = Store::open(&root).unwrap();
    if !done.exists() {
        eprintln!(
            "generating {} contexts x {} entries at {}",
            s.contexts,
            s.per_context,
            root.display()
        );
        let config = store.config().unwrap();
        for c in 0..s.contexts {
            let wc = WorkContextId::new(format!("wc_bench_{c:05}")).unwrap();
            let file = std::fs::File::create(store.log(&wc).path()).unwrap();
            let mut out = BufWriter::new(file);
            for i in 0..s.per_context {
                writeln!(
                    out,
                    "{}",
                    entry(&wc, c * s.per_context + i, &config)
                        .to_line()
                        .unwrap()
                )
                .unwrap();
            }
            out.flush().unwrap();
        }
        std::fs::write(&done, b"").unwrap();
    }
    (root, store)
}

fn benches(c: &mut Criterion) {
    let s = scale();
    let (_root, store) = store_at_scale(&s);
    let config = store.config().unwrap();
    let wc = WorkContextId::new("wc_bench_00000").unwrap();
    let log = store.log(&wc);

    let mut group = c.benchmark_group(format!("store_{}", s.name));
    group.sample_size(10);
    group.bench_function("status_full_scan", |b| {
        b.iter(|| store.status().unwrap().entries_total)
    });
    group.finish();

    let mut group = c.benchmark_group(format!("log_{}", s.name));
    group.bench_function("read_one_context", |b| {
        b.iter(|| log.read().unwrap().entries.len())
    });
    group.bench_function("tail_10_one_context", |b| {
        b.iter(|| log.tail(10).unwrap().entries.len())
    });
    // Appends go to a scratch context so the measured logs keep their size.
    let scratch = store.log(&WorkContextId::new("wc_bench_scratch").unwrap());
    let mut i = 0;
    group.bench_function("append_fsync", |b| {
        b.iter(|| {
            i += 1;
            scratch
                .append(&entry(scratch.work_context_id(), i, &config))
                .unwrap()
        })
    });
    group.bench_function("config_load", |b| b.iter(|| store.config().unwrap().mode));
    group.finish();
    let _ = std::fs::remove_file(scratch.path());
}

criterion_group!(store, benches);
criterion_main!(store);
