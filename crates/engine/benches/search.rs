//! Search at the scale of SPEC §14 (a heavy user: 2,000,000 transcript turns, 500,000 continuity
//! entries, 10,000 Library documents), reported in one run beside its peers: `rg` over the same
//! turns as JSONL, and SQLite FTS5 over the same text.
//!
//! What it reports: the index build time and size (`elnor reindex` from nothing); query latency
//! p50/p99 for `lexical_only` through the real search use case, for FTS5 `MATCH … ORDER BY rank`
//! and for `rg`; how long a new session takes from the start of its ingest until a search finds
//! it; and, when the local model is installed, embedding throughput and `hybrid` latency over the
//! documents embedded in the run.
//!
//! The store is generated once into `target/bench-stores/search-<scale>/` and reused: sessions
//! and turns written straight into the graph (as ingest stores them), the logs as the store bench
//! writes them, Markdown files in a tracked folder. The text is drawn from the words of this
//! repository's own documentation with a Zipf-like skew, so posting lists look like prose rather
//! than uniform noise.
//!
//! `cargo bench -p elnor-engine --bench search`; `ELNOR_BENCH_SCALE=small` (200,000 turns,
//! 50,000 entries, 1,000 documents) for a quick look. `rg` must be on the PATH for its column.
//! `ELNOR_BENCH_REUSE_INDEX=1` keeps an earlier run's index; `ELNOR_BENCH_PROFILE=lexical` (or
//! `hybrid`, or `scoped`: lexical within one work context) runs only those queries in a loop, for
//! a profiler.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use elnor_engine::{Harness, SearchRequest, SourceRoot, Store, Strategy};

struct Scale {
    name: &'static str,
    turns: usize,
    turns_per_session: usize,
    contexts: usize,
    entries_per_context: usize,
    documents: usize,
}

fn scale() -> Scale {
    match std::env::var("ELNOR_BENCH_SCALE").as_deref() {
        Ok("small") => Scale {
            name: "small",
            turns: 200_000,
            turns_per_session: 200,
            contexts: 200,
            entries_per_context: 250,
            documents: 1_000,
        },
        _ => Scale {
            name: "spec",
            turns: 2_000_000,
            turns_per_session: 200,
            contexts: 2_000,
            entries_per_context: 250,
            documents: 10_000,
        },
    }
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// A small deterministic generator (xorshift64*), so every run builds the same store.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The words of this repository's documentation, most frequent first.
fn vocabulary() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut files = vec![root.join("ARCHITECTURE.md"), root.join("README.md")];
    if let Ok(dir) = std::fs::read_dir(root.join("docs")) {
        files.extend(dir.flatten().map(|e| e.path()));
    }
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for w in text.split(|c: char| !c.is_alphabetic()) {
            if w.len() >= 3 {
                *counts.entry(w.to_lowercase()).or_default() += 1;
            }
        }
    }
    let mut words: Vec<(String, usize)> = counts.into_iter().collect();
    words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    words.into_iter().map(|(w, _)| w).collect()
}

/// A sentence of `n` words, skewed to the frequent ones (the square of a uniform draw).
fn sentence(rng: &mut Rng, words: &[String], n: usize) -> String {
    (0..n)
        .map(|_| {
            let u = rng.below(words.len());
            let skewed = u * u / words.len();
            words[skewed].as_str()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

struct Paths {
    root: PathBuf,
    store: PathBuf,
    jsonl: PathBuf,
    fts: PathBuf,
    library: PathBuf,
}

fn generate(s: &Scale, words: &[String]) -> Paths {
    let root = target()
        .join("bench-stores")
        .join(format!("search-{}", s.name));
    let p = Paths {
        store: root.join("store"),
        jsonl: root.join("turns.jsonl"),
        fts: root.join("fts5.sqlite"),
        library: root.join("library"),
        root,
    };
    if p.root.join(".generated").exists() {
        return p;
    }
    let _ = std::fs::remove_dir_all(&p.root);
    std::fs::create_dir_all(&p.library).unwrap();
    let started = Instant::now();
    eprintln!("generating {} turns at {}", s.turns, p.root.display());
    let store = Store::open(&p.store).unwrap();
    drop(store);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut db = rusqlite::Connection::open(p.store.join("entity_graph.sqlite")).unwrap();
    let mut fts = rusqlite::Connection::open(&p.fts).unwrap();
    fts.execute_batch("CREATE VIRTUAL TABLE fts USING fts5(text);")
        .unwrap();
    let mut jsonl = BufWriter::new(std::fs::File::create(&p.jsonl).unwrap());
    let t0 = Utc.with_ymd_and_hms(2025, 11, 1, 0, 0, 0).unwrap();
    {
        let tx = db.transaction().unwrap();
        let ftx = fts.transaction().unwrap();
        {
            let mut session = tx
                .prepare(
                    "INSERT INTO transcript_sessions (session_id, harness, source_path, cwd,
                        started_at, last_turn_at, turn_count, record_count)
                     VALUES (?1, 'claude_code', ?2, ?3, ?4, ?5, ?6, ?6)",
                )
                .unwrap();
            let mut turn = tx
                .prepare(
                    "INSERT INTO turns (turn_id, session_id, harness, role, kind, record_type,
                        text, tool_calls, timestamp, is_sidechain, raw, source_path,
                        source_offset)
                     VALUES (?1, ?2, 'claude_code', ?3, 'message', ?3, ?4, '[]', ?5, 0, '{}',
                        ?6, ?7)",
                )
                .unwrap();
            let mut fts_row = ftx.prepare("INSERT INTO fts (text) VALUES (?1)").unwrap();
            let sessions = s.turns / s.turns_per_session;
            for k in 0..sessions {
                let id = format!("00000000-0000-4000-8000-{k:012}");
                let path = format!("/bench/claude/-proj{}/{id}.jsonl", k % 50);
                let start = t0 + chrono::Duration::minutes((k * 50) as i64);
                for i in 0..s.turns_per_session {
                    let role = if i % 2 == 0 { "user" } else { "assistant" };
                    let n = 8 + rng.below(if role == "user" { 20 } else { 60 });
                    let text = sentence(&mut rng, words, n);
                    let at = (start + chrono::Duration::seconds(i as i64 * 20)).to_rfc3339();
                    turn.execute(rusqlite::params![
                        format!("claude_code:{id}:{k}-{i}"),
                        id,
                        role,
                        text,
                        at,
                        path,
                        i as i64
                    ])
                    .unwrap();
                    fts_row.execute([&text]).unwrap();
                    serde_json::to_writer(
                        &mut jsonl,
                        &serde_json::json!({"sessionId": id, "type": role, "message": {"content": text}}),
                    )
                    .unwrap();
                    jsonl.write_all(b"\n").unwrap();
                }
                let end = start + chrono::Duration::seconds(s.turns_per_session as i64 * 20);
                session
                    .execute(rusqlite::params![
                        id,
                        path,
                        format!("/bench/proj{}", k % 50),
                        start.to_rfc3339(),
                        end.to_rfc3339(),
                        s.turns_per_session as i64
                    ])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
        ftx.commit().unwrap();
    }
    jsonl.flush().unwrap();
    // Entries: one log per context, written directly (the store bench does the same).
    let store = Store::open(&p.store).unwrap();
    let config = store.config().unwrap();
    for c in 0..s.contexts {
        let wc = elnor_engine::WorkContextId::new(format!("wc_bench_{c:05}")).unwrap();
        let mut out = BufWriter::new(std::fs::File::create(store.log(&wc).path()).unwrap());
        let ftx = fts.transaction().unwrap();
        for i in 0..s.entries_per_context {
            let question = sentence(&mut rng, words, 12);
            let e = elnor_engine::ContinuityEntry::new(
                wc.clone(),
                elnor_engine::SessionId::new(format!("sess-{c}-{}", i / 10)).unwrap(),
                t0 + chrono::Duration::minutes((c * s.entries_per_context + i) as i64),
                elnor_engine::CaptureMode::Deterministic,
                elnor_engine::EntryContent::OpenQuestion(elnor_engine::OpenQuestionContent {
                    question: format!("{question}?"),
                    context: sentence(&mut rng, words, 10),
                    resolved: false,
                    resolved_at: None,
                    resolution_summary: None,
                }),
                &config,
            );
            writeln!(out, "{}", e.to_line().unwrap()).unwrap();
            ftx.execute("INSERT INTO fts (text) VALUES (?1)", [question])
                .unwrap();
        }
        out.flush().unwrap();
        ftx.commit().unwrap();
    }
    // Library documents, recorded by the watcher's first (silent) scan.
    let ftx = fts.transaction().unwrap();
    for d in 0..s.documents {
        let dir = p.library.join(format!("folder{}", d % 100));
        std::fs::create_dir_all(&dir).unwrap();
        let title = sentence(&mut rng, words, 4);
        let body: Vec<String> = (0..8).map(|_| sentence(&mut rng, words, 30)).collect();
        let text = format!("# {title}\n\n{}\n", body.join("\n\n"));
        std::fs::write(dir.join(format!("note{d}.md")), &text).unwrap();
        ftx.execute("INSERT INTO fts (text) VALUES (?1)", [text])
            .unwrap();
    }
    ftx.commit().unwrap();
    store.tracked_folders().add(&p.library).unwrap();
    elnor_engine::reconcile_folders(&store, Utc::now()).unwrap();
    std::fs::write(p.root.join(".generated"), b"").unwrap();
    eprintln!("generated in {:.0} s", started.elapsed().as_secs_f64());
    p
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// p50 and p99 of `samples`, in milliseconds.
fn percentiles(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    (at(0.5), at(0.99))
}

/// Queries of two or three words of middling frequency: the kind that has to be ranked.
fn queries(words: &[String], n: usize) -> Vec<Vec<String>> {
    let mut rng = Rng(0x5eed);
    let band = &words[words.len() / 50..words.len() / 3];
    (0..n)
        .map(|_| {
            let k = 2 + rng.below(2);
            (0..k)
                .map(|_| band[rng.below(band.len())].clone())
                .collect()
        })
        .collect()
}

fn engine_query(store: &Store, q: &[String], strategy: Strategy) -> (Duration, usize) {
    windowed_query(store, q, strategy, Utc::now(), 0)
}

/// A lexical query over all time within one work context.
fn scoped_query(
    store: &Store,
    q: &[String],
    wc: &elnor_engine::WorkContextId,
) -> (Duration, usize) {
    let mut req = SearchRequest::new(q.join(" "), Utc::now());
    req.strategy = Strategy::LexicalOnly;
    req.hours = 0;
    req.work_context = Some(wc.clone());
    let t = Instant::now();
    let r = elnor_engine::search(store, &req, &elnor_engine::MemorySecrets::default()).unwrap();
    (t.elapsed(), r.hits.len())
}

/// A query within the last `hours` before `now` (the app's default is 720: thirty days).
fn windowed_query(
    store: &Store,
    q: &[String],
    strategy: Strategy,
    now: chrono::DateTime<Utc>,
    hours: u32,
) -> (Duration, usize) {
    let mut req = SearchRequest::new(q.join(" "), now);
    req.strategy = strategy;
    req.hours = hours;
    let t = Instant::now();
    let r = elnor_engine::search(store, &req, &elnor_engine::MemorySecrets::default()).unwrap();
    (t.elapsed(), r.hits.len())
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument (a filter) is ignored.
    let s = scale();
    let words = vocabulary();
    assert!(
        words.len() > 500,
        "the repository's docs give the vocabulary"
    );
    let p = generate(&s, &words);
    let store = Store::open(&p.store).unwrap();

    // `ELNOR_BENCH_REUSE_INDEX=1` keeps the index of an earlier run (its build time is then
    // not measured), for measuring queries again after a change that does not touch indexing.
    let reuse = std::env::var("ELNOR_BENCH_REUSE_INDEX").is_ok_and(|v| v == "1")
        && p.store.join("index/search/meta.json").is_file();
    let t = Instant::now();
    let built = if reuse {
        elnor_engine::SyncReport {
            documents: elnor_engine::embed_status(&store).unwrap().documents,
            ..Default::default()
        }
    } else {
        elnor_engine::reindex(&store).unwrap()
    };
    let build = t.elapsed();
    let index_bytes = dir_size(&p.store.join("index/search"));

    let qs = queries(&words, 60);
    // `ELNOR_BENCH_PROFILE=lexical|hybrid` only runs that strategy's queries, ten rounds, and
    // prints their percentiles: a loop long enough for a profiler (`perf record`) to see.
    if let Ok(which) = std::env::var("ELNOR_BENCH_PROFILE") {
        let strategy = match which.as_str() {
            "hybrid" => Strategy::Hybrid,
            _ => Strategy::LexicalOnly,
        };
        // `scoped`: lexical within one work context, where BM25's statistics are counted in
        // the scope (what an agent's search in its project runs).
        let scope = (which == "scoped").then(|| {
            // One of the projects the sessions were ingested into (400 sessions each).
            let graph = rusqlite::Connection::open(p.store.join("entity_graph.sqlite")).unwrap();
            let id: String = graph
                .query_row(
                    "SELECT work_context_id FROM work_contexts WHERE work_context_id LIKE 'wc_proj_%'
                     ORDER BY work_context_id LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            elnor_engine::WorkContextId::new(id).unwrap()
        });
        let mut times: Vec<Duration> = (0..10)
            .flat_map(|_| qs.iter())
            .map(|q| match &scope {
                Some(wc) => scoped_query(&store, q, wc).0,
                None => engine_query(&store, q, strategy).0,
            })
            .collect();
        let (p50, p99) = percentiles(&mut times);
        println!(
            "{which}: p50 {p50:.2} ms, p99 {p99:.2} ms over {} queries",
            times.len()
        );
        return;
    }
    // Warm the caches the way a running app has them warm.
    for q in qs.iter().take(5) {
        engine_query(&store, q, Strategy::LexicalOnly);
    }
    let mut lexical: Vec<Duration> = qs
        .iter()
        .map(|q| engine_query(&store, q, Strategy::LexicalOnly).0)
        .collect();

    // The app's default window, thirty days, ending where the generated history ends: a filter
    // the lexical query must intersect with.
    let history_end = Utc.with_ymd_and_hms(2025, 11, 1, 0, 0, 0).unwrap()
        + chrono::Duration::minutes((s.turns / s.turns_per_session * 50) as i64);
    let mut windowed: Vec<Duration> = qs
        .iter()
        .map(|q| windowed_query(&store, q, Strategy::LexicalOnly, history_end, 720).0)
        .collect();

    let fts = rusqlite::Connection::open(&p.fts).unwrap();
    let mut stmt = fts
        .prepare("SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY rank LIMIT 5")
        .unwrap();
    let mut fts_times: Vec<Duration> = qs
        .iter()
        .map(|q| {
            let m = q.join(" OR ");
            let t = Instant::now();
            let n = stmt
                .query_map([&m], |r| r.get::<_, i64>(0))
                .unwrap()
                .count();
            std::hint::black_box(n);
            t.elapsed()
        })
        .collect();

    let rg_available = Command::new("rg").arg("--version").output().is_ok();
    let mut rg_times: Vec<Duration> = Vec::new();
    if rg_available {
        for q in qs.iter().take(10) {
            let mut cmd = Command::new("rg");
            cmd.args(["-i", "-c"]);
            for w in q {
                cmd.args(["-e", w]);
            }
            cmd.arg(&p.jsonl);
            let t = Instant::now();
            let out = cmd.output().unwrap();
            std::hint::black_box(out.stdout.len());
            rg_times.push(t.elapsed());
        }
    }

    // A Library document page: who refers to it is a search of the identifier terms for its
    // path, whose cost grows with the index's vocabulary of names.
    let page = p.library.join("folder7/note7.md");
    let t = Instant::now();
    let document = elnor_engine::library_document(&store, &page).unwrap();
    let library_page = t.elapsed();
    std::hint::black_box(document.references.sessions.len());

    // A new session: from the start of its ingest until a search finds its one rare word.
    let new_root = p.root.join("new");
    let _ = std::fs::remove_dir_all(&new_root);
    let project = new_root.join("-bench-fresh");
    std::fs::create_dir_all(&project).unwrap();
    let marker = format!("zqxfresh{}", std::process::id());
    let session = format!("11111111-2222-4333-8444-{:012}", std::process::id());
    let line = serde_json::json!({
        "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/bench/fresh",
        "sessionId": session, "version": "2.1.39", "type": "user", "uuid": "fresh-1",
        "timestamp": Utc::now().to_rfc3339(),
        "message": {"role": "user", "content": format!("Where did the {marker} report go?")}
    });
    std::fs::write(
        project.join(format!("{session}.jsonl")),
        format!("{line}\n"),
    )
    .unwrap();
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root: new_root.clone(),
    }];
    let t = Instant::now();
    elnor_engine::ingest(&store, &roots, &mut |_| {}, Utc::now()).unwrap();
    let ingested = t.elapsed();
    let (_, found) = engine_query(&store, std::slice::from_ref(&marker), Strategy::LexicalOnly);
    let searchable = t.elapsed();
    assert_eq!(found, 1, "the new turn is searchable after its ingest");

    // Embeddings, when the model is installed: throughput on this machine, then hybrid over
    // what the run embedded (the rest of the corpus is reported as not covered).
    let embed_limit = 2_000;
    let t = Instant::now();
    let never = std::sync::atomic::AtomicBool::new(false);
    let embedded = elnor_engine::embed(
        &store,
        &elnor_engine::MemorySecrets::default(),
        Some(embed_limit),
        &mut |_| {},
        &never,
    );
    let embed_time = t.elapsed();
    let hybrid = embedded.as_ref().ok().map(|_| {
        // The first hybrid query loads the vectors; it is not what a query costs afterwards.
        engine_query(&store, &qs[0], Strategy::Hybrid);
        let mut times: Vec<Duration> = qs
            .iter()
            .take(30)
            .map(|q| engine_query(&store, q, Strategy::Hybrid).0)
            .collect();
        percentiles(&mut times)
    });

    // The brute-force neighbour search at the store's full size: vectors for every turn, random
    // beyond those really embedded (their cost is what is measured, not their meaning).
    let folder = p.store.join("index/vectors/builtin-all-minilm-l6-v2");
    let rows_on_disk = std::fs::metadata(folder.join("vectors.f32"))
        .map(|m| m.len() / (384 * 4))
        .unwrap_or(0);
    if rows_on_disk >= s.turns as u64 {
        eprintln!("the vectors of an earlier run are kept: {rows_on_disk} rows");
    }
    let at_scale = if folder.join("dims").is_file() {
        let mut rng = Rng(0xfeed);
        let mut data = BufWriter::new(
            std::fs::OpenOptions::new()
                .append(true)
                .open(folder.join("vectors.f32"))
                .unwrap(),
        );
        let mut ids = BufWriter::new(
            std::fs::OpenOptions::new()
                .append(true)
                .open(folder.join("vectors.ids"))
                .unwrap(),
        );
        let synthetic = if rows_on_disk >= s.turns as u64 {
            0
        } else {
            s.turns
        };
        for seq in 1..=synthetic {
            let v: Vec<f32> = (0..384)
                .map(|_| (rng.below(2001) as f32 - 1000.0) / 1000.0)
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
            for x in &v {
                data.write_all(&(x / norm).to_le_bytes()).unwrap();
            }
            writeln!(ids, "turn:{seq}").unwrap();
        }
        data.flush().unwrap();
        ids.flush().unwrap();
        drop((data, ids));
        let t = Instant::now();
        engine_query(&store, &qs[0], Strategy::Hybrid);
        let load = t.elapsed();
        let mut times: Vec<Duration> = qs
            .iter()
            .take(30)
            .map(|q| engine_query(&store, q, Strategy::Hybrid).0)
            .collect();
        Some((
            load,
            percentiles(&mut times),
            rows_on_disk + synthetic as u64,
        ))
    } else {
        None
    };

    let (lex50, lex99) = percentiles(&mut lexical);
    let (fts50, fts99) = percentiles(&mut fts_times);
    println!(
        "\nsearch at scale `{}`: {} turns, {} entries, {} documents; {} documents indexed",
        s.name,
        s.turns,
        s.contexts * s.entries_per_context,
        s.documents,
        built.documents
    );
    println!(
        "index build (reindex from nothing{}): {:.1} s, {:.0} MB on disk; JSONL {:.0} MB, FTS5 {:.0} MB",
        if reuse { "; reused, not measured" } else { "" },
        build.as_secs_f64(),
        index_bytes as f64 / 1e6,
        std::fs::metadata(&p.jsonl).map(|m| m.len()).unwrap_or(0) as f64 / 1e6,
        std::fs::metadata(&p.fts).map(|m| m.len()).unwrap_or(0) as f64 / 1e6,
    );
    println!(
        "new session: ingested and indexed in {:.0} ms, found by search {:.0} ms after its ingest began (goal ≤ 2000 ms)",
        ingested.as_secs_f64() * 1000.0,
        searchable.as_secs_f64() * 1000.0
    );
    println!(
        "a Library document page with who refers to it: {:.0} ms",
        library_page.as_secs_f64() * 1000.0
    );
    println!("\n| engine | p50 ms | p99 ms | queries |");
    println!("|---|---|---|---|");
    println!(
        "| ELNOR lexical_only | {lex50:.2} | {lex99:.2} | {} |",
        lexical.len()
    );
    let (win50, win99) = percentiles(&mut windowed);
    println!(
        "| ELNOR lexical_only, last 30 days | {win50:.2} | {win99:.2} | {} |",
        windowed.len()
    );
    println!(
        "| SQLite FTS5 (bm25, same text) | {fts50:.2} | {fts99:.2} | {} |",
        fts_times.len()
    );
    if rg_available {
        let (rg50, rg99) = percentiles(&mut rg_times);
        println!(
            "| rg -i -c over the JSONL | {rg50:.0} | {rg99:.0} | {} |",
            rg_times.len()
        );
        println!(
            "\nratios at p50: rg / lexical = {:.0}x, FTS5 / lexical = {:.1}x",
            rg50 / lex50,
            fts50 / lex50
        );
    } else {
        println!("| rg | not on the PATH | | |");
    }
    match (&embedded, hybrid) {
        (Ok(report), Some((h50, h99))) => println!(
            "\nembedding: {} documents in {:.1} s = {:.0} documents/s on this machine; hybrid p50 {h50:.2} ms, p99 {h99:.2} ms with {} of {} documents embedded",
            report.embedded,
            embed_time.as_secs_f64(),
            report.embedded as f64 / embed_time.as_secs_f64(),
            report.covered,
            report.documents
        ),
        (Err(e), _) => println!("\nembedding and hybrid: not measured ({e})"),
        _ => {}
    }
    if let Some((load, (h50, h99), rows)) = at_scale {
        println!(
            "hybrid with a vector for every turn ({rows} vectors, those beyond the embedded ones random): first query {:.1} s (loading and quantising the vectors), then p50 {h50:.1} ms, p99 {h99:.1} ms (goal p99 ≤ 60 ms)",
            load.as_secs_f64()
        );
    }
}
