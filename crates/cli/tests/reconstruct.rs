//! `elnor reconstruct` through the binary: on a store built from the project's samples (and on
//! the real-history corpus when it is present), a deterministic replay of an unchanged store
//! reports no differences; a log altered as another detector would have left it shows exactly
//! that item, `--apply` restores it, and a second run finds nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn elnor(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .env_remove("ELNOR_NOW")
        .output()
        .expect("run elnor")
}

use elnor_fixtures::json_of as json;

/// `--root HARNESS=DIR` for every harness folder under `base` that exists.
fn roots(base: &Path, codex: &str, openclaw: Vec<PathBuf>) -> Vec<String> {
    let mut dirs = vec![
        ("claude_code", base.join("claude-code")),
        ("codex", base.join(codex)),
    ];
    dirs.extend(openclaw.into_iter().map(|d| ("openclaw", d)));
    dirs.into_iter()
        .filter(|(_, d)| d.is_dir())
        .flat_map(|(h, d)| ["--root".to_owned(), format!("{h}={}", d.display())])
        .collect()
}

/// Init, deterministic mode, ingest and one watch step: every session captured as a new user's
/// first run would.
fn captured_store(store: &Path, roots: &[String]) {
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    json(elnor(store, &["init", "--json"]));
    json(elnor(
        store,
        &["config", "set", "mode", "deterministic", "--json"],
    ));
    let mut args = vec!["ingest", "--json"];
    args.extend(&roots);
    json(elnor(store, &args));
    let mut args = vec!["watch", "--once", "--no-files", "--json"];
    args.extend(&roots);
    json(elnor(store, &args));
}

fn totals(report: &Value) -> (u64, u64, u64, u64, u64) {
    let t = &report["totals"];
    let n = |k: &str| t[k].as_u64().unwrap();
    (n("same"), n("added"), n("removed"), n("changed"), n("kept"))
}

#[test]
fn samples_replay_to_no_differences_and_apply_restores_a_removed_item() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let samples = elnor_fixtures::samples();
    captured_store(
        store,
        &roots(&samples, "codex", vec![samples.join("openclaw/agents")]),
    );

    let report = json(elnor(store, &["reconstruct", "--json"]));
    let (same, added, removed, changed, kept) = totals(&report);
    assert!(same > 0, "{report:#}");
    assert_eq!((added, removed, changed, kept), (0, 0, 0, 0), "{report:#}");
    let human = elnor(store, &["reconstruct"]);
    assert!(human.status.success());
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("No differences."), "{text}");

    // Take one captured question out of a log, as a detector that never found it would have.
    let logs = store.join("continuity");
    let (path, question) = std::fs::read_dir(&logs)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .find_map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let q = text
                .lines()
                .find(|l| l.contains("\"entry_type\":\"open_question\""))?;
            Some((p.clone(), q.to_owned()))
        })
        .expect("a sample log with an open question");
    let before = std::fs::read_to_string(&path).unwrap();
    let altered: String = before
        .lines()
        .filter(|l| *l != question)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, &altered).unwrap();
    let text: Value = serde_json::from_str(&question).unwrap();
    let asked = text["content"]["question"].as_str().unwrap();

    let report = json(elnor(store, &["reconstruct", "--json"]));
    assert_eq!(totals(&report).1, 1, "{report:#}");
    let (_, _, removed, changed, _) = totals(&report);
    assert_eq!((removed, changed), (0, 0));
    let human = String::from_utf8_lossy(&elnor(store, &["reconstruct"]).stdout).into_owned();
    let first_line: String = asked.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown: String = first_line.chars().take(60).collect();
    assert!(
        human.contains(&format!("+ open question: {shown}")),
        "{human}"
    );

    let applied = json(elnor(store, &["reconstruct", "--apply", "--json"]));
    assert_eq!(applied["applied"]["entries_added"], 1, "{applied:#}");
    assert!(std::fs::read_to_string(&path).unwrap().contains(asked));
    assert!(logs.join("backup").is_dir());
    let again = json(elnor(store, &["reconstruct", "--json"]));
    let (_, added, removed, changed, _) = totals(&again);
    assert_eq!((added, removed, changed), (0, 0, 0), "{again:#}");

    // Bad input is refused with the invalid-input code, nothing written.
    let bad = elnor(store, &["reconstruct", "--mode", "fancy"]);
    assert_eq!(bad.status.code(), Some(4));
    let bad = elnor(store, &["reconstruct", "--context", "wc_nowhere"]);
    assert_eq!(
        bad.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// The development corpus of real histories: a deterministic replay of what `watch --once`
/// captured reports no differences. The figures are printed.
#[test]
fn the_real_history_replays_to_no_differences() {
    let Some(real) = elnor_fixtures::real() else {
        println!("skipped: no real-history corpus at ../shared/fixtures/real");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let mut openclaw: Vec<PathBuf> = std::fs::read_dir(real.join("openclaw"))
        .map(|rd| rd.flatten().map(|e| e.path().join("agents")).collect())
        .unwrap_or_default();
    openclaw.sort();
    captured_store(store, &roots(&real, "codex/sessions", openclaw));
    let started = std::time::Instant::now();
    let report = json(elnor(store, &["reconstruct", "--json"]));
    let (same, added, removed, changed, kept) = totals(&report);
    println!(
        "real corpus: {} windows of {} sessions replayed in {:.1}s; {} contexts; {same} same, \
         {added} added, {removed} removed, {changed} changed, {kept} kept",
        report["windows"],
        report["sessions"],
        started.elapsed().as_secs_f64(),
        report["contexts"].as_array().map_or(0, Vec::len),
    );
    let lines: Vec<String> = report["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["items"].as_array().unwrap().iter().take(5))
        .map(|i| format!("{} {}: {}", i["change"], i["kind"], i["text"]))
        .take(20)
        .collect();
    assert!(same > 0);
    assert_eq!((added, removed, changed), (0, 0, 0), "{lines:#?}");
}
