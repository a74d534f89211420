//! The format census (issue 41): every session file of every harness, in the project's own
//! samples and in the shared corpus (`transcripts/`, `real/`, `real2/`), is ingested as a new
//! user's would be, and what became of each record is printed by harness and type. It fails when
//! a file holding a person's message yields no turn, or when any record is of a type this build
//! does not understand; the types read and kept out of the conversation on purpose are listed
//! in [`SKIPPED_ON_PURPOSE`] with the reason beside each, so a new one needs a reason to pass.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use elnor_engine::{FileCensus, Harness, SourceRoot, Store, census, ingest, now};

/// Record types read and deliberately kept out of the conversation, by harness, with why. A
/// type missing here fails the census when the corpus holds it.
const SKIPPED_ON_PURPOSE: &[(&str, &str, &str)] = &[
    (
        "claude_code",
        "file-history-snapshot",
        "the CLI's backups of edited files",
    ),
    (
        "claude_code",
        "progress",
        "a running tool's partial output; its result is a turn",
    ),
    (
        "claude_code",
        "queue-operation",
        "the input queue's bookkeeping",
    ),
    (
        "claude_code",
        "summary",
        "a session title the CLI generated; read as the title",
    ),
    (
        "claude_code",
        "ai-title",
        "the harness's own title; read as the title",
    ),
    (
        "claude_code",
        "last-prompt",
        "a copy of the person's last message, which is a turn",
    ),
    (
        "claude_code",
        "permission-mode",
        "the permission setting the session ran under",
    ),
    (
        "claude_code",
        "user",
        "isMeta lines the CLI injected (caveats, reminders): context",
    ),
    (
        "claude_code",
        "system/compact_boundary",
        "a compaction point, kept as one",
    ),
    (
        "claude_code",
        "system/",
        "status lines: hook summaries, turn durations, API retries, recaps",
    ),
    (
        "claude_code",
        "attachment/",
        "context the CLI adds to a request: listings, reminders",
    ),
    (
        "codex",
        "session_meta",
        "the session's id, folder and start",
    ),
    (
        "codex",
        "turn_context",
        "the model and sandbox settings of a turn",
    ),
    (
        "codex",
        "event_msg/",
        "UI events; the person's words and the agent's are read from items",
    ),
    (
        "codex",
        "response_item/message",
        "developer and injected user items: context",
    ),
    (
        "codex",
        "response_item/reasoning",
        "the model's hidden reasoning, kept raw",
    ),
    (
        "codex",
        "response_item/ghost_snapshot",
        "the CLI's undo snapshots",
    ),
    ("codex", "compacted", "a compaction point with its summary"),
    (
        "codex",
        "message",
        "old-format injected context (environment, user instructions)",
    ),
    (
        "codex",
        "reasoning",
        "old-format hidden reasoning, kept raw",
    ),
    (
        "codex",
        "record_type/state",
        "old-format markers of saved state",
    ),
    (
        "openclaw",
        "session",
        "the session header: id, folder, version",
    ),
    ("openclaw", "model_change", "the model switched"),
    (
        "openclaw",
        "thinking_level_change",
        "the thinking level switched",
    ),
    (
        "openclaw",
        "custom",
        "extension state (model snapshots, cache times)",
    ),
    (
        "openclaw",
        "compaction",
        "a compaction point with its summary",
    ),
    (
        "openclaw",
        "message",
        "system and injected messages: context",
    ),
];

fn skipped_on_purpose(harness: &str, record_type: &str) -> bool {
    SKIPPED_ON_PURPOSE.iter().any(|(h, t, _)| {
        *h == harness && (record_type == *t || (t.ends_with('/') && record_type.starts_with(*t)))
    })
}

/// Every harness folder under `root`, as ingest roots.
fn roots_under(root: &Path) -> Vec<SourceRoot> {
    [
        ("claude-code", Harness::ClaudeCode),
        ("codex", Harness::Codex),
        ("openclaw", Harness::OpenClaw),
    ]
    .into_iter()
    .map(|(dir, harness)| SourceRoot {
        harness,
        root: root.join(dir),
    })
    .filter(|r| r.root.is_dir())
    .collect()
}

/// Whether a transcript file holds a message of the person's, read by shape without the
/// engine's parsers: a record whose role or type is `user` (other than tool results and
/// harness-injected lines), or a Codex `user_message` event.
fn has_person_message(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    text.lines().any(|line| {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            return false;
        };
        let field =
            |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
        let payload = v.get("payload").cloned().unwrap_or_default();
        if field(&payload, "type").as_deref() == Some("user_message") {
            return true;
        }
        let message = v.get("message").cloned().unwrap_or_default();
        let user = field(&v, "role").as_deref() == Some("user")
            || field(&message, "role").as_deref() == Some("user")
            || field(&v, "type").as_deref() == Some("user");
        let content = message
            .get("content")
            .or(v.get("content"))
            .cloned()
            .unwrap_or_default();
        let tool_result = content.as_array().is_some_and(|blocks| {
            blocks.iter().any(|b| {
                matches!(
                    b.get("type").and_then(|t| t.as_str()),
                    Some("tool_result" | "toolResult")
                )
            })
        });
        let injected = v.get("isMeta").and_then(|m| m.as_bool()) == Some(true);
        let said = serde_json::to_string(&content).unwrap_or_default();
        // The old Codex format writes injected context as user messages: an environment or
        // instructions block alone is not the person's.
        let wrapper =
            said.contains("<environment_context>") || said.contains("<user_instructions>");
        user && !tool_result && !injected && !wrapper
    })
}

fn harness_of(path: &str) -> &'static str {
    if path.contains("/claude-code/") {
        "claude_code"
    } else if path.contains("/codex/") {
        "codex"
    } else {
        "openclaw"
    }
}

#[test]
fn every_session_file_with_a_person_s_message_yields_turns_and_every_record_is_understood() {
    let mut corpora: Vec<(String, PathBuf)> = vec![("samples".into(), elnor_fixtures::samples())];
    for (name, dir) in [
        ("transcripts", elnor_fixtures::transcripts()),
        ("real", elnor_fixtures::real()),
        ("real2", elnor_fixtures::real2()),
    ] {
        if let Some(dir) = dir {
            corpora.push((name.into(), dir));
        }
    }
    let mut failures = Vec::new();
    for (name, dir) in &corpora {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path().join("store")).unwrap();
        let roots = roots_under(dir);
        ingest(&store, &roots, &mut |_| {}, now()).unwrap();
        let files: Vec<FileCensus> = census(&store, "").unwrap();
        // harness → type → (turns, skipped, not understood)
        let mut table: BTreeMap<(&str, String), [u64; 3]> = BTreeMap::new();
        for f in &files {
            let h = harness_of(&f.path);
            for t in &f.skipped {
                table.entry((h, t.record_type.clone())).or_default()[1] += t.count;
            }
            for t in &f.not_understood {
                table.entry((h, t.record_type.clone())).or_default()[2] += t.count;
            }
            table.entry((h, "(turns)".into())).or_default()[0] += f.turns;
            if f.turns == 0 && has_person_message(Path::new(&f.path)) {
                failures.push(format!(
                    "{name}: {} has a person's message and 0 turns",
                    f.path
                ));
            }
        }
        println!("\n{name}: {} file(s)", files.len());
        println!(
            "  {:<12} {:<40} {:>7} {:>8} {:>8}",
            "harness", "record type", "turns", "skipped", "unknown"
        );
        for ((h, t), [turns, skipped, unknown]) in &table {
            println!("  {h:<12} {t:<40} {turns:>7} {skipped:>8} {unknown:>8}");
            if *skipped > 0 && t != "(turns)" && !skipped_on_purpose(h, t) {
                failures.push(format!(
                    "{name}: {h} {t}: {skipped} record(s) skipped without a listed reason"
                ));
            }
            if *unknown > 0 {
                failures.push(format!(
                    "{name}: {h} {t}: {unknown} record(s) not understood"
                ));
            }
        }
        for f in files.iter().filter(|f| f.lost_turns()) {
            failures.push(format!(
                "{name}: {} lost turns ({} of {} records not understood)",
                f.path,
                f.not_understood.iter().map(|t| t.count).sum::<u64>(),
                f.records
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "format census:\n{}",
        failures.join("\n")
    );
}
