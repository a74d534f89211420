//! Issue 14's checks, measured through the `elnor` binary as a new user would run it on a real
//! history (`init`, `config set mode deterministic`, `ingest`, `watch --once`, no context made by
//! hand), over the development corpus `../shared/fixtures/real` (or `$ELNOR_REAL_FIXTURES`, so
//! the same checks run on other people's histories). The figures are printed; the test fails when
//! a rule of the issue is broken. Without the corpus (a plain clone) it says so and stops.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

fn corpus() -> Option<PathBuf> {
    elnor_fixtures::real()
}

fn elnor(store: &Path, now: Option<&str>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_elnor"));
    cmd.arg("--store")
        .arg(store)
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .env_remove("ELNOR_NOW");
    if let Some(now) = now {
        cmd.env("ELNOR_NOW", now);
    }
    cmd.output().expect("run elnor")
}

use elnor_fixtures::json_of as json;

/// Non-empty lines of every JSONL file under the corpus: each is at least one record.
fn lines_in(real: &Path) -> u64 {
    walk(real)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| {
            std::fs::read(&p)
                .unwrap()
                .split(|b| *b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .count() as u64
        })
        .sum()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Text no card line may carry: injected instructions, wrappers and metadata.
const INJECTED: &[&str] = &[
    "<system-reminder",
    "<command-",
    "<local-command",
    "<environment_context",
    "HEARTBEAT",
    "AGENTS.md instructions",
    "untrusted metadata",
    "<think>",
    "You are ",
    "This session is being continued",
];

#[test]
fn a_new_user_with_real_history() {
    let Some(real) = corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    let roots = elnor_fixtures::root_args(&real);
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    json(elnor(store, None, &["init", "--json"]));
    json(elnor(
        store,
        None,
        &["config", "set", "mode", "deterministic", "--json"],
    ));
    let mut args = vec!["ingest", "--json"];
    args.extend(&roots);
    let ingest = json(elnor(store, None, &args));
    let mut args = vec!["watch", "--once", "--no-files", "--json"];
    args.extend(&roots);
    json(elnor(store, None, &args));
    let mut report = String::new();

    // Every record kept: each non-empty line is one record, or several joined back to back.
    let lines = lines_in(&real);
    let records = ingest["records_added"].as_u64().unwrap();
    let repaired = ingest["repaired"].as_u64().unwrap();
    let malformed = ingest["malformed"].as_u64().unwrap();
    report.push_str(&format!(
        "ingest: {lines} lines, {records} records, {repaired} line(s) repaired, {malformed} malformed\n"
    ));
    assert_eq!(malformed, 0, "no record of the corpus is malformed");
    assert!(records >= lines, "every line gives at least one record");

    // One work context per project folder with two or more top-level sessions.
    let sessions = json(elnor(
        store,
        None,
        &["sessions", "list", "--limit", "100", "--json"],
    ));
    let sessions = sessions["sessions"].as_array().unwrap().clone();
    let primary: Vec<&Value> = sessions
        .iter()
        .filter(|s| s["session_kind"] == "primary")
        .collect();
    let mut by_folder: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for s in &primary {
        if let Some(cwd) = s["cwd"].as_str() {
            // The same folder however the harness wrote it (drive-letter case, separators).
            let key = cwd.replace('\\', "/").trim_end_matches('/').to_lowercase();
            by_folder.entry(key).or_default().push(s);
        }
    }
    let mut scattered = Vec::new();
    for (folder, list) in &by_folder {
        if list.len() < 2 {
            continue;
        }
        let contexts: BTreeSet<&str> = list
            .iter()
            .map(|s| s["work_context_id"].as_str().unwrap_or("none"))
            .collect();
        report.push_str(&format!(
            "project {folder}: {} sessions in {} work context(s) {contexts:?}\n",
            list.len(),
            contexts.len()
        ));
        if contexts.len() != 1 || contexts.contains("none") || contexts.contains("wc_unlinked") {
            scattered.push(folder.clone());
        }
    }
    let unlinked = primary
        .iter()
        .filter(|s| s["work_context_id"].is_null() || s["work_context_id"] == "wc_unlinked")
        .count();
    let kinds: BTreeMap<String, usize> = sessions.iter().fold(BTreeMap::new(), |mut m, s| {
        *m.entry(s["session_kind"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
        m
    });
    report.push_str(&format!(
        "sessions by kind {kinds:?}; top-level unlinked: {unlinked} of {} ({:.0}%)\n",
        primary.len(),
        100.0 * unlinked as f64 / primary.len().max(1) as f64
    ));

    // A replay one hour after each such project's last session: a new session there gets a
    // resume card whose lines are the work.
    let mut no_card = Vec::new();
    for (folder, list) in by_folder.iter().filter(|(_, l)| l.len() >= 2) {
        let last: DateTime<Utc> = list
            .iter()
            .filter_map(|s| s["last_activity_at"].as_str())
            .filter_map(|t| DateTime::parse_from_rfc3339(t).ok())
            .map(|t| t.with_timezone(&Utc))
            .max()
            .unwrap();
        let at = (last + Duration::hours(1)).to_rfc3339();
        let cwd = list[0]["cwd"].as_str().unwrap();
        let brief = json(elnor(store, Some(&at), &["brief", "--cwd", cwd, "--json"]));
        let card: Vec<String> = brief["tiers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["tag"] == "resume")
            .flat_map(|t| t["lines"].as_array().unwrap().clone())
            .filter_map(|l| l.as_str().map(str::to_owned))
            .collect();
        report.push_str(&format!(
            "replay {folder} at {at}: {} card line(s)\n",
            card.len()
        ));
        for line in &card {
            report.push_str(&format!("    {line}\n"));
            for marker in INJECTED {
                assert!(
                    !line.contains(marker),
                    "injected text in a card line: {line}"
                );
            }
        }
        if card.is_empty() {
            no_card.push(folder.clone());
        }
    }

    // Now: nothing older than the rollup window is in Tier 2.
    let rollup = json(elnor(store, None, &["rollup", "--json"]));
    let window = rollup["window_days"].as_i64().unwrap_or(14);
    let oldest_allowed = Utc::now() - Duration::days(window + 1);
    let segments = rollup["segments"].as_array().cloned().unwrap_or_default();
    for s in &segments {
        let at = DateTime::parse_from_rfc3339(s["last_activity_at"].as_str().unwrap()).unwrap();
        assert!(
            at.with_timezone(&Utc) >= oldest_allowed,
            "a segment older than the rollup window: {s}"
        );
    }
    report.push_str(&format!(
        "now: {} Tier 2 segment(s) within the {window}-day window\n",
        segments.len()
    ));
    // Entities worth having: the share of created entities labelled meaningful.
    let labels: BTreeMap<(String, String), bool> = include_str!("real_entity_labels.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            ((cols[0].to_owned(), cols[1].to_owned()), cols[2] == "Y")
        })
        .collect();
    let entities = json(elnor(store, None, &["entities", "list", "--json"]));
    let entities = entities.as_array().cloned().unwrap_or_default();
    let mut meaningful = 0;
    let mut unlabelled = Vec::new();
    for e in &entities {
        let key = (
            e["kind"].as_str().unwrap_or("").to_owned(),
            e["canonical_name"].as_str().unwrap_or("").to_owned(),
        );
        match labels.get(&key) {
            Some(true) => meaningful += 1,
            Some(false) => report.push_str(&format!("  not worth having: {} {}\n", key.0, key.1)),
            None => unlabelled.push(key),
        }
    }
    let share = meaningful as f64 / entities.len().max(1) as f64;
    report.push_str(&format!(
        "entities: {} created, {meaningful} meaningful ({:.0}%), {} unlabelled\n",
        entities.len(),
        100.0 * share,
        unlabelled.len()
    ));
    println!("{report}");
    // On another person's history these labels do not apply; the share is checked on ours.
    if std::env::var_os("ELNOR_REAL_FIXTURES").is_none() {
        assert!(
            unlabelled.is_empty(),
            "label these entities: {unlabelled:?}"
        );
        assert!(
            share >= 0.8,
            "only {:.0}% of entities are meaningful",
            100.0 * share
        );
    }
    assert!(
        scattered.is_empty(),
        "projects scattered over contexts: {scattered:?}"
    );
    assert!(
        unlinked * 20 <= primary.len(),
        "more than 5% of top-level sessions unlinked"
    );
    assert!(no_card.is_empty(), "no resume card for {no_card:?}");
}
