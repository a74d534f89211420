//! Full mode without a key (issue 37): the synthesis model is an agent CLI the person is signed
//! in to, here a stand-in `claude` executable (a shell script answering as `claude -p
//! --output-format json` does). A capture goes through it, its summary reaches the brief, the
//! call is counted against the spend guard, and `elnor model detect` finds it on PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn elnor(store: &Path, path_var: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_elnor"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env("PATH", path_var)
        .env_remove("ELNOR_MEMORY")
        .env_remove("ELNOR_NOW")
        .output()
        .expect("run elnor")
}

use elnor_fixtures::json_of as json;

/// A stand-in `claude` that answers every prompt with `reply` as its JSON result.
#[cfg(unix)]
fn stand_in_claude(dir: &Path, reply: &Value) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let result =
        serde_json::json!({"type": "result", "is_error": false, "result": reply.to_string()});
    let path = dir.join("claude");
    // It leaves what it was asked in `asked`, so a test can say whether it ran and what it read.
    let asked = dir.join("asked");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncat > '{}'\ncat <<'EOF'\n{result}\nEOF\n",
            asked.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
#[test]
fn full_mode_through_a_signed_in_agent_cli() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    stand_in_claude(
        &bin,
        &serde_json::json!({
            "session_summary": "Added the mid-batch refresh regression test; the staging run is next.",
            "open_questions": [],
            "key_decisions": [],
            "work_phase": "drafting"
        }),
    );
    // The person's PATH with the stand-in first, as an installed CLI would be found.
    let path_var = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let found = json(elnor(
        &store,
        &path_var,
        &[
            "model",
            "detect",
            "--json",
            "--ollama-url",
            "http://127.0.0.1:9",
        ],
    ));
    assert_eq!(found["found"][0]["provider"], "claude_cli", "{found}");
    json(elnor(&store, &path_var, &["init", "--json"]));
    for (k, v) in [("mode", "full"), ("synthesis_provider", "claude_cli")] {
        json(elnor(&store, &path_var, &["config", "set", k, v, "--json"]));
    }
    let samples = elnor_fixtures::samples();
    let root = format!("claude_code={}", samples.join("claude-code").display());
    json(elnor(
        &store,
        &path_var,
        &["ingest", "--root", &root, "--json"],
    ));
    let sessions = json(elnor(&store, &path_var, &["sessions", "list", "--json"]));
    let latest = sessions["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let captured = json(elnor(
        &store,
        &path_var,
        &["capture", "--session", &latest, "--json"],
    ));
    assert_eq!(
        (&captured["capture_mode"], &captured["fallback_reason"]),
        (&Value::from("llm_enriched"), &Value::Null),
        "{captured}"
    );
    assert_eq!(
        captured["summary"],
        "Added the mid-batch refresh regression test; the staging run is next."
    );
    let asked = std::fs::read_to_string(bin.join("asked")).expect("the CLI read a prompt");
    assert!(
        asked.contains("User: "),
        "the conversation went on stdin: {asked}"
    );
    // The capture says what it sent and what came back (and keeps both with its run).
    let exchange = &captured["model_exchange"];
    assert_eq!(exchange["provider"], "claude_cli", "{captured}");
    let input = exchange["input"].as_str().unwrap();
    assert!(
        input.starts_with("User: ") && asked.contains(input),
        "{input}"
    );
    assert!(
        exchange["answer"]
            .as_str()
            .unwrap()
            .contains("Added the mid-batch refresh regression test"),
        "{exchange}"
    );
    let shown = json(elnor(&store, &path_var, &["model", "show", "--json"]));
    assert_eq!(shown["provider"], "claude_cli");
    assert_eq!(shown["calls_last_day"], 1, "{shown}");
    let sessions = json(elnor(&store, &path_var, &["sessions", "list", "--json"]));
    let context = sessions["sessions"][0]["work_context_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let brief = json(elnor(
        &store,
        &path_var,
        &[
            "brief",
            "--context",
            &context,
            "--session",
            "a-new-session",
            "--now",
            "2026-10-28T16:00:00Z",
            "--json",
            "--dry-run",
        ],
    ));
    assert!(
        brief["text"]
            .as_str()
            .unwrap()
            .contains("Added the mid-batch refresh regression test"),
        "{}",
        brief["text"]
    );
}

/// A local-only work context is never sent to an agent CLI (it runs here but sends the prompt to
/// its vendor): the capture falls back to the deterministic summary and says why, and the CLI
/// never runs.
#[cfg(unix)]
#[test]
fn a_local_only_context_never_reaches_an_agent_cli() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    stand_in_claude(&bin, &serde_json::json!({"session_summary": "never used"}));
    let path_var = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    json(elnor(&store, &path_var, &["init", "--json"]));
    for (k, v) in [("mode", "full"), ("synthesis_provider", "claude_cli")] {
        json(elnor(&store, &path_var, &["config", "set", k, v, "--json"]));
    }
    json(elnor(
        &store,
        &path_var,
        &[
            "contexts",
            "create",
            "Ledger (private)",
            "--cwd",
            "/home/dana/code/ledger-sync",
            "--local-only",
            "--json",
        ],
    ));
    let samples = elnor_fixtures::samples();
    let root = format!("claude_code={}", samples.join("claude-code").display());
    json(elnor(
        &store,
        &path_var,
        &["ingest", "--root", &root, "--json"],
    ));
    let sessions = json(elnor(&store, &path_var, &["sessions", "list", "--json"]));
    let latest = sessions["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let captured = json(elnor(
        &store,
        &path_var,
        &["capture", "--session", &latest, "--json"],
    ));
    assert_eq!(captured["capture_mode"], "deterministic", "{captured}");
    assert_eq!(
        captured["fallback_reason"],
        "work context is local-only and the synthesis endpoint is not local"
    );
    assert!(!bin.join("asked").exists(), "the CLI never ran");
}
