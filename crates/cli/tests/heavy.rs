//! A first run over a generated heavy user's history (`elnor_fixtures::heavy`, the `ci`
//! preset): the three harnesses' real formats at a few hundred sessions, with compactions,
//! sub-agents, injected context and broken lines. `init`, `ingest`, `capture` and `query` must
//! all succeed on it, every harness must yield turns, and every broken line must be counted in
//! ingest's report rather than stop the run.
//!
//! The generator's determinism (same seed, same bytes) is tested here too, because this is where
//! the `ci` preset is generated anyway.

use std::path::Path;
use std::process::{Command, Output};

use elnor_fixtures::heavy::{self, Preset};
use serde_json::Value;

const NOW: &str = "2026-11-02T09:00:00Z";

fn elnor(store: &Path, args: &[&str]) -> Value {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(["--now", NOW, "--json"])
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .output()
        .expect("run elnor");
    assert!(
        out.status.success(),
        "elnor {args:?}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// A digest of every file under `dir`, by relative path, for the determinism check.
fn digest(dir: &Path) -> Vec<(String, u64, u64)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, u64, u64)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                // FNV-1a over the bytes: enough to tell two files apart here.
                let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3)
                });
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.push((rel, bytes.len() as u64, h));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn the_ci_preset_is_byte_identical_for_one_seed() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // Different thread counts too: the bytes must not depend on who wrote which session.
    let sa = heavy::generate(&Preset::CI, 42, a.path(), 1).unwrap();
    let sb = heavy::generate(&Preset::CI, 42, b.path(), 3).unwrap();
    assert_eq!(sa, sb);
    assert_eq!(digest(a.path()), digest(b.path()));
    let c = tempfile::tempdir().unwrap();
    heavy::generate(&Preset::CI, 43, c.path(), 2).unwrap();
    assert_ne!(
        digest(a.path()),
        digest(c.path()),
        "another seed, another history"
    );
}

#[test]
fn a_first_run_over_the_ci_preset_ingests_captures_and_finds() {
    let corpus = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let store = store_dir.path();
    let seed = 7;
    let s = heavy::generate(&Preset::CI, seed, corpus.path(), 2).unwrap();
    assert!(s.sessions.iter().all(|n| *n > 0), "{s:?}");
    assert!(s.subagent_files > 0 && s.compactions > 0, "{s:?}");
    assert!(
        s.truncated > 0 && s.invalid_utf8 > 0 && s.oversized > 0,
        "{s:?}"
    );

    elnor(store, &["init"]);
    elnor(store, &["config", "set", "mode", "deterministic"]);
    let mut args = vec!["ingest".to_owned()];
    for r in heavy::roots(corpus.path()) {
        args.extend(["--root".to_owned(), r]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = elnor(store, &args);
    assert_eq!(report["files_seen"], s.files, "{report:#}");
    assert!(report["turns_added"].as_u64().unwrap() > 1000, "{report:#}");
    // Every broken line is counted, none is fatal. A truncated line is malformed JSON; the
    // invalid UTF-8 lines are cut too, so ingest may count them under either heading.
    let broken = report["malformed"].as_u64().unwrap() + report["invalid_utf8"].as_u64().unwrap();
    assert_eq!(broken, s.truncated + s.invalid_utf8, "{report:#}");
    assert!(report["invalid_utf8"].as_u64().unwrap() > 0, "{report:#}");
    assert_eq!(report["oversized"], s.oversized, "{report:#}");

    // Every harness yields sessions with turns; compactions and sub-agents are recognised.
    let mut to_capture = Vec::new();
    for harness in ["claude_code", "codex", "openclaw"] {
        let list = elnor(
            store,
            &["sessions", "list", "--harness", harness, "--limit", "100"],
        );
        let rows = list["sessions"].as_array().unwrap();
        assert!(!rows.is_empty(), "no {harness} sessions");
        assert!(
            rows.iter().any(|r| r["turn_count"].as_u64().unwrap() > 0),
            "{harness}: no turns"
        );
        assert!(
            rows.iter()
                .any(|r| r["compaction_count"].as_u64().unwrap() > 0),
            "{harness}: no compaction recognised"
        );
        to_capture.extend(
            rows.iter()
                .filter(|r| {
                    r["turn_count"].as_u64().unwrap() > 5 && r["parent_session_id"].is_null()
                })
                .filter_map(|r| r["session_id"].as_str().map(str::to_owned))
                .take(3),
        );
    }
    let subagents = elnor(
        store,
        &[
            "sessions",
            "list",
            "--harness",
            "claude_code",
            "--text",
            "agent-",
        ],
    );
    let rows = subagents["sessions"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| !r["parent_session_id"].is_null()),
        "no sub-agent session with its parent: {subagents:#}"
    );

    // Capture a few sessions of each harness. The whole history's capture (`capture --sweep`)
    // is the first-run benchmark's business: in a debug build it would take minutes.
    for session in &to_capture {
        elnor(store, &["capture", "--session", session]);
    }
    let status = elnor(store, &["status"]);
    assert!(status["entries_total"].as_u64().unwrap() > 0, "{status:#}");
    assert!(status["work_contexts"].as_u64().unwrap() > 10, "{status:#}");
    assert_eq!(to_capture.len(), 9);

    // A person the generator mentioned in the most sessions is found by search.
    let person = &heavy::Vocabulary::new(&Preset::CI, seed).people[s.top_person()];
    let hits = elnor(store, &["query", "--strategy", "lexical_only", person]);
    let hits = hits["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "no hit for {person}");
}
