//! Ingest throughput on a generated mixed-harness corpus of realistic size (default 1 GiB of
//! JSONL; SPEC §14 puts a heavy user at ~4 GB), next to the bare `serde_json` parse rate of the
//! same bytes, and the cost of re-ingesting an unchanged world.
//!
//! The corpus is made from the shared fixtures (OpenClaw/pi, Claude Code, Codex): each copy gets
//! fresh session ids, so every copy is a distinct session with distinct turn ids. It is generated
//! once into `target/bench-corpus/` and reused.
//!
//! `cargo bench -p elnor-engine --bench ingest`; `ELNOR_BENCH_CORPUS_MB=100` for a quick run.

use std::path::{Path, PathBuf};
use std::time::Instant;

use elnor_engine::Harness;
use elnor_engine::SourceRoot;
use elnor_engine::Store;

fn fixtures() -> PathBuf {
    elnor_fixtures::transcripts().expect("this benchmark reads the shared fixture corpus")
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"))
}

/// A fixture file, its harness, the session id inside it, and where copies go.
struct Template {
    text: String,
    session: String,
    /// Relative destination for copy `k` with session id `id`.
    dest: fn(&str, usize) -> String,
}

fn templates() -> Vec<Template> {
    let f = fixtures();
    let read = |rel: &str| std::fs::read_to_string(f.join(rel)).expect("fixture");
    let cc_main = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    vec![
        Template {
            text: read("openclaw/openclaw_v3_8555a0a4_first18lines.jsonl"),
            session: "8555a0a4-0b79-459d-939c-e17cdbbf4fe2".into(),
            dest: |id, k| format!("openclaw/agents/agent{}/sessions/{id}.jsonl", k % 7),
        },
        Template {
            text: read("openclaw/pi-mono_before-compaction_lines285-372_with_header.jsonl"),
            session: "ffae836b-9420-4060-ac13-7745215f90ff".into(),
            dest: |id, k| format!("openclaw/agents/agent{}/sessions/{id}.jsonl", k % 7),
        },
        Template {
            text: read("claude-code/spotter_tool_heavy.jsonl"),
            session: "d6e0bada-1959-4eec-a9d2-0bfade768d8f".into(),
            dest: |id, k| format!("claude/-home-u-proj{}/{id}.jsonl", k % 13),
        },
        Template {
            text: read(
                "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04_lines1440-1520_compaction_window.jsonl",
            ),
            session: cc_main.into(),
            dest: |id, k| format!("claude/-home-u-proj{}/{id}.jsonl", k % 13),
        },
        Template {
            text: read(
                "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-aac57f5.jsonl",
            ),
            session: cc_main.into(),
            dest: |id, k| {
                format!(
                    "claude/-home-u-proj{}/{id}/subagents/agent-aac57f5.jsonl",
                    k % 13
                )
            },
        },
        Template {
            text: read(
                "codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
            ),
            session: "019c8bfe-ec25-79e0-97d7-bda6a9c575ff".into(),
            dest: |id, k| {
                format!(
                    "codex/2026/02/{:02}/rollout-2026-02-23T20-34-25-{id}.jsonl",
                    1 + k % 28
                )
            },
        },
        Template {
            text: read(
                "codex/sessions/2026/05/11/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80_EXCERPT_first36of99lines.jsonl",
            ),
            session: "019e1695-0522-7c83-8b39-0dd379793f80".into(),
            dest: |id, k| {
                format!(
                    "codex/2026/05/{:02}/rollout-2026-05-11T13-28-45-{id}.jsonl",
                    1 + k % 28
                )
            },
        },
    ]
}

fn generate(root: &Path, target_bytes: u64) -> (u64, u64) {
    let templates = templates();
    let (mut bytes, mut files) = (0u64, 0u64);
    let mut k = 0usize;
    while bytes < target_bytes {
        for (i, t) in templates.iter().enumerate() {
            let id = format!("{:08x}-{:04x}-4000-8000-{:012x}", k, i, k * 31 + i);
            let dest = root.join((t.dest)(&id, k));
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            let text = t.text.replace(&t.session, &id);
            std::fs::write(&dest, &text).unwrap();
            bytes += text.len() as u64;
            files += 1;
        }
        k += 1;
    }
    (bytes, files)
}

fn jsonl_files(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.into_path())
        .collect()
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this in test mode: skip there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let mb: u64 = std::env::var("ELNOR_BENCH_CORPUS_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let corpus = target().join(format!("bench-corpus/{mb}mb"));
    let marker = corpus.join(".generated");
    if !marker.exists() {
        let started = Instant::now();
        let _ = std::fs::remove_dir_all(&corpus);
        let (bytes, files) = generate(&corpus, mb << 20);
        std::fs::write(&marker, b"").unwrap();
        eprintln!(
            "generated {files} files, {:.0} MB in {:.1} s at {}",
            bytes as f64 / 1e6,
            started.elapsed().as_secs_f64(),
            corpus.display()
        );
    }

    // Bare parse: every line through serde_json into a Value, files read from the page cache.
    let files = jsonl_files(&corpus);
    let started = Instant::now();
    let (mut bytes, mut lines) = (0u64, 0u64);
    for f in &files {
        let data = std::fs::read(f).unwrap();
        bytes += data.len() as u64;
        for line in data.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            std::hint::black_box(v);
            lines += 1;
        }
    }
    let parse = started.elapsed().as_secs_f64();
    println!(
        "corpus: {} files, {lines} records, {:.0} MB",
        files.len(),
        bytes as f64 / 1e6
    );
    println!(
        "bare serde_json parse: {parse:.1} s, {:.1} MB/s, {:.0} records/s",
        bytes as f64 / 1e6 / parse,
        lines as f64 / parse
    );

    let store_dir = target().join(format!("bench-corpus/{mb}mb-store"));
    let _ = std::fs::remove_dir_all(&store_dir);
    let store = Store::open(&store_dir).unwrap();
    let roots = [
        (Harness::OpenClaw, "openclaw"),
        (Harness::ClaudeCode, "claude"),
        (Harness::Codex, "codex"),
    ]
    .map(|(harness, dir)| SourceRoot {
        harness,
        root: corpus.join(dir),
    });
    let started = Instant::now();
    let report = elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    let ingest = started.elapsed().as_secs_f64();
    assert_eq!(report.records_added, lines, "every record stored once");
    println!(
        "full ingest: {ingest:.1} s, {:.1} MB/s, {:.0} records/s ({:.0}% of the bare parse rate); {} sessions",
        report.bytes_read as f64 / 1e6 / ingest,
        report.records_added as f64 / ingest,
        100.0 * parse / ingest,
        report.sessions_touched
    );
    let started = Instant::now();
    let again = elnor_engine::ingest(&store, &roots, &mut |_| {}, elnor_engine::now()).unwrap();
    let unchanged = started.elapsed().as_secs_f64();
    assert_eq!(again.records_added, 0);
    println!(
        "re-ingest of the unchanged world: {:.3} s for {} files ({:.1} µs per file)",
        unchanged,
        again.files_seen,
        unchanged * 1e6 / again.files_seen.max(1) as f64
    );
    let db = std::fs::metadata(store_dir.join("entity_graph.sqlite"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!("store size: {:.0} MB", db as f64 / 1e6);

    // The transcript viewer pages a long session by position: time pages of a 10,000-turn
    // session at its start, middle and end, in the store that now holds the whole corpus.
    let long_root = target().join(format!("bench-corpus/{mb}mb-long"));
    let _ = std::fs::remove_dir_all(&long_root);
    let file = long_root.join("-home-u-long/long-session-10k.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut text = String::new();
    for i in 0..10_000 {
        let (kind, role) = if i % 2 == 0 {
            ("user", "user")
        } else {
            ("assistant", "assistant")
        };
        text.push_str(&format!(
            r#"{{"type":"{kind}","uuid":"u{i}","parentUuid":"u{}","sessionId":"long-session-10k","timestamp":"2026-02-10T10:00:00.000Z","message":{{"role":"{role}","content":"turn {i}: let us look at the next file and decide what to change"}}}}"#,
            i.max(1) - 1
        ));
        text.push('\n');
    }
    std::fs::write(&file, text).unwrap();
    elnor_engine::ingest(
        &store,
        &[SourceRoot {
            harness: Harness::ClaudeCode,
            root: long_root,
        }],
        &mut |_| {},
        elnor_engine::now(),
    )
    .unwrap();
    for offset in [0u64, 5_000, 9_900] {
        let runs = 50;
        let started = Instant::now();
        for _ in 0..runs {
            let page = elnor_engine::session_turns(
                store.graph(),
                "long-session-10k",
                offset,
                100,
                false,
                4_000,
            )
            .unwrap();
            assert_eq!(page.total, 10_000);
        }
        println!(
            "10,000-turn session: page of 100 at offset {offset}: {:.2} ms",
            started.elapsed().as_secs_f64() * 1e3 / runs as f64
        );
    }
}
