//! `elnor lineage` on a real temporary store made from the project's samples: a first run builds
//! the DAG as it captures, `show` drills from a node, an entry and a brief line to the same turns,
//! `rebuild` writes the same DAG again, and bad ids and arguments are refused with their codes.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn elnor(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(["--now", "2026-11-03T09:00:00Z"])
        .args(args)
        .env_remove("ELNOR_MEMORY")
        .output()
        .expect("run elnor")
}

fn json(out: &Output) -> Value {
    elnor_fixtures::json_of(out.clone())
}

/// A store after a first run over the samples (ingest and capture, as `elnor watch --once`).
fn first_run(store: &Path) {
    let f = elnor_fixtures::samples();
    assert!(
        elnor(store, &["config", "set", "mode", "deterministic"])
            .status
            .success()
    );
    let roots = [
        format!("openclaw={}", f.join("openclaw/agents").display()),
        format!("claude_code={}", f.join("claude-code").display()),
        format!("codex={}", f.join("codex").display()),
    ];
    let mut watch = vec!["watch", "--once"];
    for r in &roots {
        watch.extend(["--root", r.as_str()]);
    }
    let out = elnor(store, &watch);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_first_run_builds_the_dag_and_show_drills_to_the_same_turns_from_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path();
    first_run(store);

    // The captures of the first run built the DAG; a rebuild writes the same nodes back.
    let built = json(&elnor(store, &["lineage", "rebuild", "--json"]));
    assert!(built["nodes"].as_u64().unwrap() > 0, "{built}");
    let again = json(&elnor(store, &["lineage", "rebuild", "--json"]));
    assert_eq!(built, again);

    // A brief line that cites an entry leads to that entry's session summary node.
    let brief = json(&elnor(
        store,
        &["brief", "--cwd", "/home/dana/code/ledger-sync", "--json"],
    ));
    let trace_id = brief["assembly_id"]
        .as_i64()
        .expect("the brief has a trace id");
    let trace = json(&elnor(
        store,
        &["traces", "show", &trace_id.to_string(), "--json"],
    ));
    let line = trace["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "entry" && i["source_id"].is_string())
        .expect("the brief considered an entry");
    let via_trace = json(&elnor(
        store,
        &[
            "lineage",
            "show",
            "--trace",
            &format!("{trace_id}:{}", line["ordinal"]),
            "--json",
        ],
    ));
    let node = via_trace["node"]["node_id"].as_str().unwrap().to_owned();
    assert_eq!(via_trace["node"]["kind"], "session_summary");
    let entry = line["source_id"].as_str().unwrap();
    assert!(
        via_trace["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["entry_id"] == entry),
        "the entry the line cited is linked to its node"
    );
    let via_entry = json(&elnor(
        store,
        &["lineage", "show", "--entry", entry, "--json"],
    ));
    let via_node = json(&elnor(store, &["lineage", "show", &node, "--json"]));
    for other in [&via_entry, &via_node] {
        assert_eq!(other["node"], via_trace["node"]);
        assert_eq!(
            other["transcript"]["transcript"]["turns"],
            via_trace["transcript"]["transcript"]["turns"]
        );
    }
    let turns = via_node["transcript"]["transcript"]["turns"]
        .as_array()
        .unwrap();
    assert!(!turns.is_empty());
    let through = via_node["node"]["through_seq"].as_i64().unwrap();
    assert!(turns.iter().all(|t| t["seq"].as_i64().unwrap() <= through));

    // Human output names the node and its turns.
    let human = elnor(store, &["lineage", "show", &node]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.starts_with(&format!("{node}  session summary")),
        "{text}"
    );
    assert!(
        text.contains("turns (exactly what its capture read"),
        "{text}"
    );

    // Bad input: a hostile or unknown id is an input error (4), a missing choice a usage one (2).
    for bad in ["../etc", "ss_\u{1b}x"] {
        assert_eq!(
            elnor(store, &["lineage", "show", bad]).status.code(),
            Some(4),
            "{bad:?}"
        );
    }
    assert_eq!(
        elnor(store, &["lineage", "show", "ss_000000000000_9"])
            .status
            .code(),
        Some(4)
    );
    assert_eq!(elnor(store, &["lineage", "show"]).status.code(), Some(2));
    assert_eq!(
        elnor(store, &["lineage", "show", "--trace", "x"])
            .status
            .code(),
        Some(2)
    );
    // Another agent's scope does not see the node.
    assert_eq!(
        elnor(
            store,
            &["lineage", "show", &node, "--agent", "codex:nobody"]
        )
        .status
        .code(),
        Some(4)
    );
}
