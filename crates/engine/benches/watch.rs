//! The file watcher on a generated store of the spec's scale (SPEC §14): 10,000 tracked markdown
//! files in 100 folders, and 50,000 entities for the mention matcher.
//!
//! Measured: save → stored observation latency at the default debounce (250 ms), p50 and p99 over
//! 60 saves (goal ≤ 500 ms); the silent baseline of 10,000 files; the watcher's idle CPU over 20
//! seconds (as a share of one core, reconcile excluded); and, with criterion, one full reconcile
//! of the 10,000 unchanged files (which runs every `watch_reconcile_minutes`, 10 by default).
//!
//! `cargo bench -p elnor-engine --bench watch`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use criterion::{Criterion, criterion_group, criterion_main};
use elnor_engine::FileWatcher;
use elnor_engine::FolderScope;
use elnor_engine::IgnoreRules;
use elnor_engine::{ContinuityMode, Store};
use rusqlite::params;

const FILES: usize = 10_000;
const FOLDERS: usize = 100;
const ENTITIES: usize = 50_000;
const SAVES: usize = 60;

fn file(root: &Path, i: usize) -> PathBuf {
    root.join(format!("matter-{:03}", i % FOLDERS))
        .join(format!("note-{i:05}.md"))
}

fn generate() -> (tempfile::TempDir, Store, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    let mut conn =
        rusqlite::Connection::open(dir.path().join("store/entity_graph.sqlite")).unwrap();
    let tx = conn.transaction().unwrap();
    let at = Utc::now().to_rfc3339();
    for i in 0..ENTITIES {
        tx.execute(
            "INSERT INTO entities VALUES (?1, 'matter', ?2, NULL, ?3, ?3)",
            params![
                format!("ent_{i:05}"),
                format!("Generated Matter {i:05}"),
                at
            ],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    let root = dir.path().join("notes");
    for i in 0..FILES {
        let path = file(&root, i);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!(
                "# Note {i}\n\nAbout Generated Matter {:05}.\n\n## Status\n\nOpen.\n",
                i % ENTITIES
            ),
        )
        .unwrap();
    }
    let root = std::fs::canonicalize(&root).unwrap();
    store.tracked_folders().add(&root).unwrap();
    (dir, store, root)
}

fn max_id(store: &Store) -> i64 {
    store
        .graph()
        .observations(&elnor_engine::ObservationFilter {
            limit: 1,
            ..Default::default()
        })
        .unwrap()
        .first()
        .map(|o| o.observation_id)
        .unwrap_or(0)
}

/// CPU time (user + system) of this process so far.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here, in clock ticks
    // (100 per second on Linux).
    let ticks = f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |p: f64| samples[((samples.len() as f64 - 1.0) * p).round() as usize];
    (at(0.50), at(0.99))
}

fn bench(c: &mut Criterion) {
    let started = Instant::now();
    let (_dir, store, root) = generate();
    println!(
        "generated {FILES} files in {FOLDERS} folders and {ENTITIES} entities in {:.1?}",
        started.elapsed()
    );
    let store = Arc::new(store);
    let t = Instant::now();
    let watcher = FileWatcher::start(store.clone()).unwrap();
    while !elnor_engine::folder_is_baselined(&store, &root).unwrap() {
        std::thread::sleep(Duration::from_millis(10));
    }
    println!(
        "baseline of {} files: {:.1?}",
        elnor_engine::tracked_file_count(&store).unwrap(),
        t.elapsed()
    );
    // Let the initial reconcile finish before measuring.
    std::thread::sleep(Duration::from_secs(2));
    let mut latencies = Vec::new();
    for n in 0..SAVES {
        let before = max_id(&store);
        let path = file(&root, (n * 167) % FILES);
        let t = Instant::now();
        std::fs::write(
            &path,
            format!("# Note\n\nEdited {n} about Generated Matter 00042.\n"),
        )
        .unwrap();
        while max_id(&store) == before {
            if t.elapsed() > Duration::from_secs(10) {
                panic!("no observation for {} after 10 s", path.display());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        latencies.push(t.elapsed());
        // Saves a little apart, as a person makes them.
        std::thread::sleep(Duration::from_millis(100));
    }
    let (p50, p99) = percentiles(latencies);
    println!(
        "save → stored observation ({SAVES} saves, debounce 250 ms): p50 {p50:.1?}, p99 {p99:.1?}"
    );
    let cpu = cpu_time();
    let wall = Instant::now();
    std::thread::sleep(Duration::from_secs(20));
    let used = cpu_time().saturating_sub(cpu);
    println!(
        "idle over {FILES} tracked files: {used:.1?} CPU in {:.1?} ({:.3}% of one core)",
        wall.elapsed(),
        100.0 * used.as_secs_f64() / wall.elapsed().as_secs_f64()
    );
    drop(watcher);
    let config = store.config().unwrap();
    let rules = IgnoreRules::new(&[]);
    c.bench_function("reconcile of 10,000 unchanged files", |b| {
        b.iter(|| {
            let s = elnor_engine::settle_folder(
                &store,
                &config,
                &rules,
                &root,
                &FolderScope::All,
                Utc::now(),
            )
            .unwrap();
            assert!(s.observations.is_empty());
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(10));
    targets = bench
}
criterion_main!(benches);
