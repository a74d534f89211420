//! Incremental ingest on real files and real SQLite: the fixture corpus once and again, appends,
//! rewrites, bad lines, symlinks, OpenClaw's database against its JSONL, and immutability.

use std::io::Write;
use std::path::Path;

use expect_test::expect;

use super::*;
use crate::Store;
use crate::test_support::{copy_fixture, fixtures};

fn fixture_roots(corpus: &Path) -> Vec<SourceRoot> {
    vec![
        SourceRoot {
            harness: Harness::OpenClaw,
            root: corpus.join("openclaw"),
        },
        SourceRoot {
            harness: Harness::ClaudeCode,
            root: corpus.join("claude-code"),
        },
        SourceRoot {
            harness: Harness::Codex,
            root: corpus.join("codex"),
        },
    ]
}

fn run(store: &Store, roots: &[SourceRoot]) -> IngestReport {
    crate::usecase::ingest(store, roots, &mut |_| {}, crate::base::clock::now()).unwrap()
}

fn count(store: &Store, sql: &str) -> i64 {
    store
        .graph()
        .with_conn(|c| c.query_row(sql, [], |r| r.get(0)))
        .unwrap()
}

fn summary(r: &IngestReport) -> String {
    format!(
        "seen {} unchanged {} read {} replaced {} | records +{} turns +{} dup {} | sessions {} | \
         malformed {} utf8 {} oversized {} unknown {} | problems {}",
        r.files_seen,
        r.files_unchanged,
        r.files_read,
        r.files_replaced,
        r.records_added,
        r.turns_added,
        r.duplicates_ignored,
        r.sessions_touched,
        r.malformed,
        r.invalid_utf8,
        r.oversized,
        r.unknown_records,
        r.problems.len()
    )
}

#[test]
fn fixture_corpus_ingests_once_and_reingest_adds_nothing() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let first = run(&store, &fixture_roots(&corpus));
    expect!["seen 11 unchanged 0 read 11 replaced 0 | records +454 turns +258 dup 0 | sessions 11 | malformed 0 utf8 0 oversized 0 unknown 0 | problems 0"]
        .assert_eq(&summary(&first));
    let second = run(&store, &fixture_roots(&corpus));
    expect!["seen 11 unchanged 11 read 0 replaced 0 | records +0 turns +0 dup 0 | sessions 0 | malformed 0 utf8 0 oversized 0 unknown 0 | problems 0"]
        .assert_eq(&summary(&second));
    assert_eq!(count(&store, "SELECT count(*) FROM turns"), 454);
    assert_eq!(
        count(&store, "SELECT count(*) FROM transcript_sessions"),
        11
    );
    assert_eq!(
        count(&store, "SELECT sum(turn_count) FROM transcript_sessions"),
        258
    );
}

#[test]
fn appended_lines_add_exactly_those_turns() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("codex");
    let rel = "codex/sessions/2026/02/23/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
    let full = std::fs::read(corpus.join(rel)).unwrap();
    let lines: Vec<&[u8]> = full.split_inclusive(|b| *b == b'\n').collect();
    let dest = root
        .join("sessions/2026/02/23")
        .join(Path::new(rel).file_name().unwrap());
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    std::fs::write(&dest, lines[..20].concat()).unwrap();

    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = [SourceRoot {
        harness: Harness::Codex,
        root,
    }];
    assert_eq!(run(&store, &roots).records_added, 20);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&dest)
        .unwrap();
    f.write_all(&lines[20..].concat()).unwrap();
    drop(f);
    let second = run(&store, &roots);
    assert_eq!(second.records_added, lines.len() as u64 - 20);
    assert_eq!(second.duplicates_ignored, 0);
    assert_eq!(second.files_replaced, 0);
    // The session row aggregates both runs.
    assert_eq!(
        count(&store, "SELECT record_count FROM transcript_sessions"),
        63
    );
    assert_eq!(
        count(&store, "SELECT turn_count FROM transcript_sessions"),
        17
    );
}

#[test]
fn truncated_and_rewritten_file_is_detected_without_duplicates_or_loss() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("claude");
    let dest = root.join("-home-x/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl");
    copy_fixture(&corpus, "claude-code/spotter_tool_heavy.jsonl", &dest);
    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root,
    }];
    assert_eq!(run(&store, &roots).records_added, 39);

    // The harness rewrote the file: shorter, with a different head and one new record.
    let full = std::fs::read_to_string(&dest).unwrap();
    let kept: Vec<&str> = full.lines().skip(5).take(10).collect();
    let new_record = r#"{"type":"user","uuid":"new-1","sessionId":"d6e0bada-1959-4eec-a9d2-0bfade768d8f","timestamp":"2026-02-11T00:00:00Z","message":{"role":"user","content":"one more thing"}}"#;
    std::fs::write(&dest, format!("{}\n{new_record}\n", kept.join("\n"))).unwrap();
    let report = run(&store, &roots);
    assert_eq!(report.files_replaced, 1);
    assert_eq!(report.records_added, 1, "only the new record is new");
    assert_eq!(report.duplicates_ignored, 10);
    assert_eq!(
        count(&store, "SELECT count(*) FROM turns"),
        40,
        "nothing lost"
    );
}

#[test]
fn bad_lines_are_counted_and_everything_valid_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("oc");
    let dest = root.join("agents/main/sessions/s-bad.jsonl");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let good = |id: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2026-03-08T12:15:35.595Z","message":{{"role":"user","content":"hi {id}"}}}}"#
        )
    };
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"type\":\"session\",\"version\":3,\"id\":\"s-bad\",\"timestamp\":\"2026-03-08T12:00:00Z\",\"cwd\":\"/w\"}\n");
    bytes.extend_from_slice(good("a1").as_bytes());
    bytes.extend_from_slice(b"\n{broken json\n\xff\xfe\xfd not utf8\n");
    bytes.extend_from_slice(&vec![b' '; MAX_RECORD_BYTES + 5]);
    bytes.extend_from_slice(b"\n{\"type\":\"teleport\",\"id\":\"z9\"}\n");
    bytes.extend_from_slice(good("a2").as_bytes());
    bytes.extend_from_slice(b"\n");
    // A partial last line: the writer is mid-record.
    bytes.extend_from_slice(br#"{"type":"message","id":"a3","#);
    std::fs::write(&dest, &bytes).unwrap();

    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = [SourceRoot {
        harness: Harness::OpenClaw,
        root,
    }];
    let report = run(&store, &roots);
    expect!["seen 1 unchanged 0 read 1 replaced 0 | records +4 turns +2 dup 0 | sessions 1 | malformed 1 utf8 1 oversized 1 unknown 1 | problems 4"]
        .assert_eq(&summary(&report));
    assert!(
        report
            .problems
            .iter()
            .all(|p| p.path.ends_with("s-bad.jsonl"))
    );

    // The writer finishes the record: the next run takes it, and only it.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&dest)
        .unwrap();
    f.write_all(br#""parentId":"a2","timestamp":"2026-03-08T12:16:00Z","message":{"role":"user","content":"done"}}"#).unwrap();
    f.write_all(b"\n").unwrap();
    drop(f);
    let report = run(&store, &roots);
    assert_eq!((report.records_added, report.malformed), (1, 0));
    assert_eq!(
        count(&store, "SELECT count(*) FROM turns WHERE text = 'done'"),
        1
    );
}

/// A pi writer bug joins a message and a compaction record on one line with no newline between
/// them: both are stored, at their own offsets, and the line counts as repaired, not malformed.
#[test]
fn two_records_back_to_back_on_one_line_are_both_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("oc");
    let dest = root.join("agents/main/sessions/s-joined.jsonl");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let mut text = String::new();
    text.push_str(r#"{"type":"session","version":3,"id":"s-joined","timestamp":"2026-03-08T12:00:00Z","cwd":"/w"}"#);
    text.push('\n');
    text.push_str(r#"{"type":"message","id":"m1","parentId":null,"timestamp":"2026-03-08T12:15:35Z","message":{"role":"user","content":"Should we keep the old parser?"}}"#);
    text.push_str(r#"{"type":"compaction","id":"c1","parentId":"m1","timestamp":"2026-03-08T12:16:00Z","summary":"Earlier work: the parser.","firstKeptEntryId":"m1","tokensBefore":120000}"#);
    text.push('\n');
    // Not two objects: still malformed.
    text.push_str("{\"type\":\"message\"} trailing words\n");
    std::fs::write(&dest, &text).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let report = run(
        &store,
        &[SourceRoot {
            harness: Harness::OpenClaw,
            root,
        }],
    );
    assert_eq!(
        (report.records_added, report.repaired, report.malformed),
        (3, 1, 1)
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM turns WHERE kind = 'compaction'"
        ),
        1
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(DISTINCT source_offset) FROM turns WHERE session_id = 's-joined'"
        ),
        3
    );
    // A second run reads nothing again.
    let again = run(
        &store,
        &[SourceRoot {
            harness: Harness::OpenClaw,
            root: dir.path().join("oc"),
        }],
    );
    assert_eq!((again.records_added, again.repaired), (0, 0));
}

#[test]
fn symlinks_are_not_followed() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    copy_fixture(
        &corpus,
        "claude-code/spotter_short.jsonl",
        &outside.join("secret.jsonl"),
    );
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("proj")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), root.join("proj/link.jsonl")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("linkdir")).unwrap();
    let (files, problems) = discover(&SourceRoot {
        harness: Harness::ClaudeCode,
        root,
    });
    assert!(files.is_empty(), "{files:?}");
    assert_eq!(problems.len(), 2);
    assert!(
        problems
            .iter()
            .all(|p| p.problem == "symbolic link not followed")
    );
}

/// Builds an OpenClaw per-agent SQLite store, as SCHEMA.md describes it, from a JSONL sample.
fn openclaw_db_from_jsonl(jsonl: &Path, db: &Path) {
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let conn = Connection::open(db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE session_windows (
           session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
           previous_session_id TEXT, reason TEXT, session_scope TEXT NOT NULL DEFAULT 'conversation',
           created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
         CREATE TABLE transcript_events (
           session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL,
           created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq),
           FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE) STRICT;",
    )
    .unwrap();
    let text = std::fs::read_to_string(jsonl).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let session = header["id"].as_str().unwrap();
    conn.execute(
        "INSERT INTO session_windows VALUES (?1, 'agent:main:main', NULL, 'initial', 'conversation', 1, 1)",
        [session],
    )
    .unwrap();
    // Inserted out of order on purpose: readers must order by seq, not rowid.
    let lines: Vec<&str> = text.lines().collect();
    for (seq, line) in lines.iter().enumerate().rev() {
        conn.execute(
            "INSERT INTO transcript_events VALUES (?1, ?2, ?3, 1)",
            params![session, seq as i64, line],
        )
        .unwrap();
    }
}

fn turns_of(store: &Store) -> Vec<(String, String, String, String, String, Option<String>)> {
    store
        .graph()
        .with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT turn_id, role, kind, text, tool_calls, timestamp FROM turns ORDER BY seq",
            )?;
            stmt.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect()
        })
        .unwrap()
}

#[test]
fn openclaw_sqlite_store_reads_identically_to_its_jsonl() {
    let Some(corpus) = fixtures() else {
        return;
    };
    for sample in [
        "openclaw/openclaw_v3_8555a0a4_first18lines.jsonl",
        "openclaw/pi-mono_before-compaction_lines285-372_with_header.jsonl",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let jsonl_root = dir.path().join("jsonl");
        copy_fixture(
            &corpus,
            sample,
            &jsonl_root.join("agents/main/sessions/s.jsonl"),
        );
        let db_root = dir.path().join("db");
        openclaw_db_from_jsonl(
            &corpus.join(sample),
            &db_root.join("agents/main/agent/openclaw-agent.sqlite"),
        );

        let from_jsonl = Store::open(dir.path().join("a")).unwrap();
        run(
            &from_jsonl,
            &[SourceRoot {
                harness: Harness::OpenClaw,
                root: jsonl_root,
            }],
        );
        let from_db = Store::open(dir.path().join("b")).unwrap();
        let db_roots = [SourceRoot {
            harness: Harness::OpenClaw,
            root: db_root.clone(),
        }];
        let report = run(&from_db, &db_roots);
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        let (a, b) = (turns_of(&from_jsonl), turns_of(&from_db));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{sample}");

        // Incremental: the agent appends an event; only it is read.
        let db = Connection::open(db_root.join("agents/main/agent/openclaw-agent.sqlite")).unwrap();
        let session: String = db
            .query_row("SELECT session_id FROM session_windows", [], |r| r.get(0))
            .unwrap();
        db.execute(
            "INSERT INTO transcript_events VALUES (?1, 10000, ?2, 2)",
            params![
                session,
                r#"{"type":"message","id":"zz000001","parentId":null,"timestamp":"2026-03-09T00:00:00Z","message":{"role":"user","content":"later"}}"#
            ],
        )
        .unwrap();
        drop(db);
        let report = run(&from_db, &db_roots);
        assert_eq!((report.records_added, report.files_read), (1, 1));
        let report = run(&from_db, &db_roots);
        assert_eq!((report.records_added, report.files_unchanged), (0, 1));
    }
}

#[test]
fn raw_turns_are_immutable() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    run(&store, &fixture_roots(&corpus)[..1]);
    let err = store
        .graph()
        .with_conn(|c| c.execute("UPDATE turns SET text = 'x'", []))
        .unwrap_err();
    assert!(err.to_string().contains("immutable"), "{err}");
    let err = store
        .graph()
        .with_conn(|c| c.execute("DELETE FROM turns", []))
        .unwrap_err();
    assert!(err.to_string().contains("immutable"), "{err}");
}

#[test]
fn rewrite_that_keeps_the_head_is_still_detected() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cc");
    let dest = root.join("-w/s-keep.jsonl");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let line = |id: &str, text: &str| {
        format!(
            r#"{{"type":"user","uuid":"{id}","sessionId":"s-keep","timestamp":"2026-02-10T10:00:00Z","message":{{"role":"user","content":"{text}"}}}}"#
        ) + "\n"
    };
    // The first line is longer than the hashed head, so the head stays the same below.
    let long = "x".repeat(5000);
    std::fs::write(&dest, line("a", &long) + &line("b", "second")).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root,
    }];
    assert_eq!(run(&store, &roots).records_added, 2);
    // Same first line, different second line, longer file: the old offset now falls mid-line.
    std::fs::write(
        &dest,
        line("a", &long) + &line("c", "a much longer replacement line") + &line("d", "more"),
    )
    .unwrap();
    let report = run(&store, &roots);
    assert_eq!(report.files_replaced, 1);
    assert_eq!((report.records_added, report.malformed), (2, 0));
    assert_eq!(count(&store, "SELECT count(*) FROM turns"), 4);
    // The status reads the count from the largest `seq`: the line read again and ignored as a
    // duplicate left no gap in it.
    assert_eq!(store.status().unwrap().transcript_records, 4);
}

#[test]
fn discovery_takes_reset_archives_and_skips_checkpoints() {
    let Some(corpus) = fixtures() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("agents/main/sessions");
    let sample = "openclaw/openclaw_v3_8555a0a4_first18lines.jsonl";
    copy_fixture(&corpus, sample, &sessions.join("s1.jsonl"));
    copy_fixture(
        &corpus,
        sample,
        &sessions.join("s0.jsonl.reset.2026-03-01T00-00-00Z"),
    );
    copy_fixture(&corpus, sample, &sessions.join("s1.checkpoint.3.jsonl"));
    std::fs::write(sessions.join("sessions.json"), "{}").unwrap();
    let (files, problems) = discover(&SourceRoot {
        harness: Harness::OpenClaw,
        root: dir.path().to_owned(),
    });
    let names: Vec<String> = files
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s0.jsonl.reset.2026-03-01T00-00-00Z", "s1.jsonl"]);
    assert!(problems.is_empty());
}

/// The project's own samples, which every checkout has: every record of the three harnesses is
/// kept (the cut-off Claude Code line counted malformed, the OpenClaw line holding two records
/// repaired), each session gets its kind, and one project spans Claude Code and Codex.
#[test]
fn the_samples_ingest_every_record_with_kinds_and_projects() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let first = crate::test_support::ingest_dir(&store, &crate::test_support::samples());
    let again = crate::test_support::ingest_dir(&store, &crate::test_support::samples());
    assert_eq!(again.records_added, 0, "a second run adds nothing");
    let rows: Vec<String> = store
        .graph()
        .with_conn_result(|c| {
            let mut s = c.prepare(
                "SELECT s.harness, s.session_id, s.session_kind, s.kind_reason, s.project_key,
                        s.turn_count, s.record_count, s.compaction_count, p.name
                 FROM transcript_sessions s LEFT JOIN projects p USING (project_key)
                 ORDER BY s.started_at, s.session_id",
            )?;
            s.query_map([], |r| {
                Ok(format!(
                    "{} {} {} ({}) project {:?} name {:?}: {} turns, {} records, {} compactions",
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, Option<String>>(8)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, i64>(7)?,
                ))
            })?
            .collect()
        })
        .unwrap();
    let problems: Vec<String> = first
        .problems
        .iter()
        .map(|p| {
            let file = p.path.rsplit('/').next().unwrap_or(&p.path);
            format!("{file}: {} ×{}", p.problem, p.count)
        })
        .collect();
    let report = format!(
        "records {}, turns {}, malformed {}, repaired {}, projects {}",
        first.records_added,
        first.turns_added,
        first.malformed,
        first.repaired,
        first.projects_created
    );
    expect![[r#"
        records 57, turns 38, malformed 1, repaired 1, projects 2
        claude_code 5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11 primary () project Some("/home/dana/code/ledger-sync") name Some("ledger-sync"): 12 turns, 15 records, 0 compactions
        claude_code 5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11:agent-a3f9c21 subagent (started by another session's agent) project Some("/home/dana/code/ledger-sync") name Some("ledger-sync"): 4 turns, 4 records, 0 compactions
        claude_code 8e41a0c3-6d52-4b7f-b2e9-3c7d1a5f9b20 primary () project Some("/home/dana/code/ledger-sync") name Some("ledger-sync"): 7 turns, 8 records, 0 compactions
        codex 019a3c10-7e21-7b40-8d2e-5f6a7b8c9d01 primary () project Some("/home/dana/code/ledger-sync") name Some("ledger-sync"): 6 turns, 16 records, 0 compactions
        codex 019a3c11-0a00-7c00-9e00-aa00bb00cc02 internal (a non-interactive `codex exec` run) project Some("/home/dana/code/ledger-sync") name Some("ledger-sync"): 1 turns, 3 records, 0 compactions
        openclaw c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01 primary () project Some("/home/dana/.openclaw/workspace-henderson") name Some("workspace-henderson"): 8 turns, 11 records, 1 compactions
        problems: [
            "c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01.jsonl: lines holding several records back to back (split, none lost) ×1",
            "5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11.jsonl: malformed records (not JSON objects) ×1",
        ]
    "#]].assert_eq(&format!(
        "{report}\n{}\nproblems: {problems:#?}\n",
        rows.join("\n")
    ));
}

/// A session id the engine cannot carry (here 130 bytes, over the ids' limit) makes its records
/// malformed: counted, never stored, so every session read back from the store has a valid id.
#[test]
fn records_of_a_session_with_an_unusable_id_are_counted_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("oc");
    let dest = root.join("agents/main/sessions/s-long.jsonl");
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    let id = "x".repeat(130);
    let text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-03-08T12:00:00Z\",\"cwd\":\"/w\"}}\n\
         {{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"2026-03-08T12:15:35.595Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\n"
    );
    std::fs::write(&dest, text).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let report = run(
        &store,
        &[SourceRoot {
            harness: Harness::OpenClaw,
            root,
        }],
    );
    assert_eq!(report.records_added, 0, "{}", summary(&report));
    assert!(report.malformed >= 1, "{}", summary(&report));
    assert_eq!(count(&store, "SELECT count(*) FROM turns"), 0);
    assert_eq!(count(&store, "SELECT count(*) FROM transcript_sessions"), 0);
}

#[test]
fn a_session_is_titled_by_the_persons_first_request_or_its_harness_title() {
    use super::kinds::{display_title, is_slug, title_line};
    // The person's request, as they named the work, wins (issue 38: readers title a session by
    // it); a bare slash command or a lone word gives way to a harness title that says more.
    assert_eq!(
        display_title(Some("Voice fix: MCP"), Some("fix the voice"), None),
        Some("fix the voice".into())
    );
    assert_eq!(
        display_title(Some("Voice fix: MCP"), Some("/resume 019c10ea"), None),
        Some("Voice fix: MCP".into())
    );
    assert_eq!(
        display_title(Some("Voice fix: MCP"), Some("阅读一下文件夹中的文章"), None),
        Some("阅读一下文件夹中的文章".into())
    );
    assert!(is_slug("gentle-hopping-treehouse"));
    assert!(!is_slug("PAI - TPOS"));
    assert_eq!(
        display_title(
            Some("gentle-hopping-treehouse"),
            Some("fix the voice"),
            None
        ),
        Some("fix the voice".into())
    );
    assert_eq!(
        display_title(Some("gentle-hopping-treehouse"), Some(""), None),
        Some("gentle-hopping-treehouse".into())
    );
    assert_eq!(display_title(None, Some("  "), None), None);
    // A session the person asked nothing in is named by what it did, before a slug.
    assert_eq!(
        display_title(
            Some("gentle-hopping-treehouse"),
            Some(""),
            Some("Scheduled job: both domains renew")
        ),
        Some("Scheduled job: both domains renew".into())
    );
    assert_eq!(
        display_title(None, Some("fix the voice"), Some("Restored the session")),
        Some("fix the voice".into())
    );
    // One line, whitespace collapsed, a long line cut at a word with an ellipsis.
    assert_eq!(
        title_line("\n  Split   the ledger\nimport in two").as_deref(),
        Some("Split the ledger")
    );
    let long = "word ".repeat(40);
    let cut = title_line(&long).unwrap();
    assert!(cut.ends_with("word…") && cut.chars().count() <= 91, "{cut}");
    assert_eq!(title_line("```\n---\n"), None);
    // A greeting that opens the line is not the title; a line that is only one stays.
    assert_eq!(
        title_line("Hi! Where should my dotfiles go so the agent reads them?").as_deref(),
        Some("Where should my dotfiles go so the agent reads them?")
    );
    assert_eq!(
        title_line("Hello Jarvis.").as_deref(),
        Some("Hello Jarvis.")
    );
    assert_eq!(
        title_line("can you curl wttr.in for the weather").as_deref(),
        Some("can you curl wttr.in for the weather")
    );
}

#[test]
fn an_opener_gives_way_to_the_request_after_it() {
    use super::kinds::pick_request;
    let lines = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let none = std::collections::BTreeSet::new();
    let cases: &[(&[&str], &str)] = &[
        // A greeting or thanks, then the work.
        (
            &[
                "Hello Jarvis.",
                "Find out why voice feedback stops after a restart",
            ],
            "Find out why voice feedback stops after a restart",
        ),
        (
            &["@helper_bot hi", "清理一下没用的代码文件和旧的日志目录"],
            "清理一下没用的代码文件和旧的日志目录",
        ),
        // A short request followed by short ones stays the title.
        (&["fix tests", "and lint"], "fix tests"),
        // Four characters of a script without spaces already say something.
        (
            &[
                "@helper_bot 报告一下",
                "你为什么没有项目权限，请检查配置文件",
            ],
            "@helper_bot 报告一下",
        ),
        // A slash command says nothing; the request after it is the title.
        (
            &["/resume", "continue the import split"],
            "continue the import split",
        ),
    ];
    for (given, want) in cases {
        assert_eq!(
            pick_request(&lines(given), &none).as_deref(),
            Some(*want),
            "{given:?}"
        );
    }
}

#[test]
fn real_sessions_get_titles_in_words() {
    let Some((_dir, store, _real)) = crate::test_support::real_store() else {
        eprintln!("skipped: no real-history corpus");
        return;
    };
    let q = crate::inputs::sessions::ListQuery {
        limit: Some(100),
        ..Default::default()
    };
    let sessions =
        crate::inputs::sessions::list(store.graph(), &q, crate::base::clock::now()).unwrap();
    let primary: Vec<_> = sessions
        .iter()
        .filter(|s| s.session_kind == super::kinds::SessionKind::Primary)
        .collect();
    let titled: Vec<String> = primary.iter().filter_map(|s| s.display_title()).collect();
    eprintln!(
        "{} of {} primary sessions titled; e.g. {:?}",
        titled.len(),
        primary.len(),
        titled.iter().take(5).collect::<Vec<_>>()
    );
    // Every session had its request read, and no title is an id or injected text.
    assert!(sessions.iter().all(|s| s.request.is_some()));
    assert!(titled.len() * 10 >= primary.len() * 8, "{titled:?}");
    for t in &titled {
        assert!(!t.contains('<') && t.chars().count() <= 91, "{t}");
    }
}

/// An OpenClaw database of a newer release: `event_json` may be NULL with the event
/// zstd-compressed in `event_zstd`. Every other event of the sample is stored compressed.
fn openclaw_compressed_db_from_jsonl(jsonl: &Path, db: &Path) -> String {
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let conn = Connection::open(db).unwrap();
    conn.execute_batch(
        "CREATE TABLE session_windows (
           session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL,
           previous_session_id TEXT, reason TEXT, session_scope TEXT NOT NULL DEFAULT 'conversation',
           created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT;
         CREATE TABLE transcript_events (
           session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, event_zstd BLOB,
           created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) STRICT;",
    )
    .unwrap();
    let text = std::fs::read_to_string(jsonl).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let session = header["id"].as_str().unwrap().to_owned();
    conn.execute(
        "INSERT INTO session_windows VALUES (?1, 'agent:main:main', NULL, 'initial', 'conversation', 1, 1)",
        [&session],
    )
    .unwrap();
    for (seq, line) in text.lines().enumerate() {
        if seq % 2 == 1 {
            let packed = ruzstd::encoding::compress_to_vec(
                line.as_bytes(),
                ruzstd::encoding::CompressionLevel::Fastest,
            );
            conn.execute(
                "INSERT INTO transcript_events VALUES (?1, ?2, NULL, ?3, 1)",
                params![session, seq as i64, packed],
            )
            .unwrap();
        } else {
            conn.execute(
                "INSERT INTO transcript_events VALUES (?1, ?2, ?3, NULL, 1)",
                params![session, seq as i64, line],
            )
            .unwrap();
        }
    }
    session
}

#[test]
fn openclaw_compressed_events_read_like_plain_ones_and_bad_frames_are_counted() {
    let samples = crate::test_support::samples();
    let sample = "openclaw/agents/henderson/sessions/c7d8e9f0-1a2b-4c3d-8e4f-5a6b7c8d9e01.jsonl";
    let dir = tempfile::tempdir().unwrap();
    let jsonl_root = dir.path().join("jsonl");
    copy_fixture(
        &samples,
        sample,
        &jsonl_root.join("agents/main/sessions/s.jsonl"),
    );
    let db_root = dir.path().join("db");
    let db_path = db_root.join("agents/main/agent/openclaw-agent.sqlite");
    let session = openclaw_compressed_db_from_jsonl(&samples.join(sample), &db_path);

    let from_jsonl = Store::open(dir.path().join("a")).unwrap();
    let plain = run(
        &from_jsonl,
        &[SourceRoot {
            harness: Harness::OpenClaw,
            root: jsonl_root,
        }],
    );
    let from_db = Store::open(dir.path().join("b")).unwrap();
    let db_roots = [SourceRoot {
        harness: Harness::OpenClaw,
        root: db_root,
    }];
    let report = run(&from_db, &db_roots);
    // The sample's own quirks (a line holding two records) are reported alike either way.
    let kinds = |r: &IngestReport| -> Vec<(String, u64)> {
        r.problems
            .iter()
            .map(|p| (p.problem.to_string(), p.count))
            .collect()
    };
    assert_eq!(kinds(&report), kinds(&plain));
    let (a, b) = (turns_of(&from_jsonl), turns_of(&from_db));
    assert!(a.len() > 4);
    assert_eq!(a, b);

    // A corrupt frame, a frame that unpacks past the record limit, and a row with neither
    // column are each counted; the good event after them is still read.
    let db = Connection::open(&db_path).unwrap();
    let bomb = ruzstd::encoding::compress_to_vec(
        &vec![b' '; MAX_RECORD_BYTES + 10][..],
        ruzstd::encoding::CompressionLevel::Fastest,
    );
    assert!(bomb.len() < 100_000, "the bomb is small packed");
    let later = r#"{"type":"message","id":"zz000002","parentId":null,"timestamp":"2026-03-09T00:00:00Z","message":{"role":"user","content":"after the bad rows"}}"#;
    for (seq, json, packed) in [
        (
            20_000_i64,
            None::<String>,
            Some(b"not zstd at all".to_vec()),
        ),
        (20_001, None, Some(bomb)),
        (20_002, None, None),
        (
            20_003,
            None,
            Some(ruzstd::encoding::compress_to_vec(
                later.as_bytes(),
                ruzstd::encoding::CompressionLevel::Fastest,
            )),
        ),
    ] {
        db.execute(
            "INSERT INTO transcript_events VALUES (?1, ?2, ?3, ?4, 2)",
            params![session, seq, json, packed],
        )
        .unwrap();
    }
    drop(db);
    let report = run(&from_db, &db_roots);
    assert_eq!(report.records_added, 1, "{report:?}");
    let problems: Vec<(String, u64, Option<u64>)> = report
        .problems
        .iter()
        .map(|p| (p.problem.to_string(), p.count, p.first_at))
        .collect();
    assert_eq!(
        problems,
        [
            (
                "malformed records (not JSON objects)".to_owned(),
                2,
                Some(20_000)
            ),
            ("records over the size limit".to_owned(), 1, Some(20_001)),
        ]
    );
    assert!(
        turns_of(&from_db)
            .iter()
            .any(|t| t.3.contains("after the bad rows"))
    );
}

/// A rollout in the Codex format of mid-2025: an untyped first line, a state marker, bare items.
const OLD_CODEX: &str = r#"{"id":"3b7c34a5-0000-4f87-8db8-2f6f5bbc8554","timestamp":"2025-08-23T17:19:13.971Z","instructions":null,"git":{"branch":"main"}}
{"record_type":"state"}
{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/ana/weather</cwd>\n</environment_context>"}]}
{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"can you fetch the forecast with curl"}]}
{"record_type":"state"}
{"type":"reasoning","id":"","summary":[],"content":[{"type":"reasoning_text","text":"Use the shell."}]}
{"type":"function_call","id":null,"name":"shell","arguments":"{\"command\":[\"curl\",\"-I\",\"example.org\"]}","call_id":"call_1"}
{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"HTTP/1.1 200 OK\"}"}
{"type":"message","id":null,"role":"assistant","content":[{"type":"output_text","text":"The forecast: sunny."}]}
"#;

fn old_codex_root(dir: &Path) -> (Vec<SourceRoot>, std::path::PathBuf) {
    let folder = dir.join("codex/sessions/2025/08/23");
    std::fs::create_dir_all(&folder).unwrap();
    let path =
        folder.join("rollout-2025-08-23T17-19-13-3b7c34a5-0000-4f87-8db8-2f6f5bbc8554.jsonl");
    std::fs::write(&path, OLD_CODEX).unwrap();
    let roots = vec![SourceRoot {
        harness: Harness::Codex,
        root: dir.join("codex"),
    }];
    (roots, path)
}

#[test]
fn the_old_codex_format_yields_the_person_s_request_the_tool_work_and_the_reply() {
    let dir = tempfile::tempdir().unwrap();
    let (roots, _) = old_codex_root(dir.path());
    let store = Store::open(dir.path().join("store")).unwrap();
    let report = run(&store, &roots);
    // The two state markers are the same bytes with no id of their own: one row, one duplicate.
    assert_eq!(
        (
            report.records_added,
            report.duplicates_ignored,
            report.unknown_records
        ),
        (8, 1, 0)
    );
    let turns: Vec<(String, String, String)> = store
        .graph()
        .with_conn(|c| {
            let mut s = c.prepare(
                "SELECT role, kind, text FROM turns WHERE kind IN ('message','tool_call','tool_result')
                 ORDER BY seq",
            )?;
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .unwrap();
    let shape: Vec<(&str, &str)> = turns
        .iter()
        .map(|(r, k, _)| (r.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        shape,
        [
            ("user", "message"),
            ("assistant", "tool_call"),
            ("tool", "tool_result"),
            ("assistant", "message")
        ]
    );
    assert_eq!(turns[0].2, "can you fetch the forecast with curl");
    let (session, cwd, request): (String, Option<String>, Option<String>) = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT session_id, cwd, request FROM transcript_sessions",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
        .unwrap();
    assert_eq!(session, "3b7c34a5-0000-4f87-8db8-2f6f5bbc8554");
    assert_eq!(cwd.as_deref(), Some("/home/ana/weather"));
    assert_eq!(
        request.as_deref(),
        Some("can you fetch the forecast with curl")
    );
}

#[test]
fn a_file_an_older_build_could_not_read_gets_its_turns_on_the_next_ingest_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let (roots, path) = old_codex_root(dir.path());
    let store = Store::open(dir.path().join("store")).unwrap();
    run(&store, &roots);
    let before_rows = count(&store, "SELECT count(*) FROM turns");
    // What a build without the old format left: every record raw as not understood, the file
    // marked read by parser version 0, the session without turns and its census all unknown.
    store
        .graph()
        .with_conn(|c| {
            c.execute_batch(
                "DROP TRIGGER turns_are_immutable_update;
                 UPDATE turns SET kind = 'unknown', role = 'system';
                 CREATE TRIGGER turns_are_immutable_update BEFORE UPDATE ON turns
                 BEGIN SELECT RAISE(ABORT, 'raw turns are immutable'); END;
                 UPDATE ingest_files SET parser_version = 0, unknown = 9;
                 UPDATE transcript_sessions SET turn_count = 0, request = '', cwd = NULL;
                 DELETE FROM ingest_record_types;
                 INSERT INTO ingest_record_types SELECT source_path, record_type, 'not_understood',
                     count(*), min(source_offset) FROM turns GROUP BY 1, 2;",
            )
        })
        .unwrap();
    let old_max_seq = count(&store, "SELECT max(seq) FROM turns");
    let lost = crate::usecase::health::census::files_that_lost_turns(&store, true).unwrap();
    assert_eq!(lost.len(), 1);
    assert_eq!(lost[0].path, path.display().to_string());
    assert_eq!(
        lost[0].not_understood.iter().map(|t| t.count).sum::<u64>(),
        8
    );

    let report = run(&store, &roots);
    assert_eq!(report.files_read, 1, "{}", summary(&report));
    assert_eq!(count(&store, "SELECT count(*) FROM turns"), before_rows);
    assert_eq!(
        count(&store, "SELECT count(*) FROM turns WHERE kind = 'unknown'"),
        0
    );
    // The new readings come after everything stored before, so capture and search see them.
    assert_eq!(
        count(
            &store,
            &format!("SELECT count(*) FROM turns WHERE seq <= {old_max_seq}")
        ),
        0
    );
    assert_eq!(
        count(&store, "SELECT turn_count FROM transcript_sessions"),
        4
    );
    assert_eq!(
        count(&store, "SELECT record_count FROM transcript_sessions"),
        8
    );
    assert_eq!(
        count(
            &store,
            "SELECT cwd = '/home/ana/weather' FROM transcript_sessions"
        ),
        1
    );
    assert!(
        crate::usecase::health::census::files_that_lost_turns(&store, true)
            .unwrap()
            .is_empty()
    );
    assert_eq!(count(&store, "SELECT unknown FROM ingest_files"), 0);
    // Read once by the current reading, the file is not read again.
    let report = run(&store, &roots);
    assert_eq!((report.files_unchanged, report.records_added), (1, 0));
}

#[test]
fn a_file_in_a_format_nobody_knows_is_named_in_health_and_today_but_skipped_records_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude-code/-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let future = project.join("0b6b3c1e-aaaa-4bbb-8ccc-000000000001.jsonl");
    let mut lines = String::new();
    for i in 0..5 {
        lines.push_str(&format!(
            "{{\"type\":\"utterance-v9\",\"sessionId\":\"0b6b3c1e-aaaa-4bbb-8ccc-000000000001\",\"uuid\":\"u{i}\",\"speaker\":\"human\",\"words\":\"please add dark mode {i}\"}}\n"
        ));
    }
    std::fs::write(&future, lines).unwrap();
    // A file of records skipped on purpose only (Claude Code writes such files): no alarm.
    std::fs::write(
        project.join("0b6b3c1e-aaaa-4bbb-8ccc-000000000002.jsonl"),
        "{\"type\":\"summary\",\"summary\":\"Dark mode\",\"leafUuid\":\"x\"}\n{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{}}\n",
    )
    .unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    run(&store, &claude_code_under(dir.path()));
    let lost = crate::usecase::health::census::files_that_lost_turns(&store, true).unwrap();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].path, future.display().to_string());
    assert_eq!((lost[0].records, lost[0].turns), (5, 0));
    let unread = &lost[0].not_understood[0];
    assert_eq!(
        (
            unread.record_type.as_str(),
            unread.count,
            unread.sample_line
        ),
        ("utterance-v9", 5, Some(1))
    );
    let today = crate::usecase::today::today_with(
        &store,
        crate::base::clock::now(),
        &crate::usecase::harness::HarnessPaths::for_home(dir.path().join("home")),
    )
    .unwrap();
    let alerts: Vec<_> = today
        .alerts
        .iter()
        .filter(|a| a.kind == crate::usecase::today::AlertKind::LostTurns)
        .collect();
    assert_eq!(alerts.len(), 1, "{:?}", today.alerts);
    assert!(alerts[0].message.contains(&future.display().to_string()));
    assert!(alerts[0].message.contains("utterance-v9"));
}

#[test]
fn claude_code_s_ai_title_titles_the_session_over_its_slug_and_later_summaries() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude-code/-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let id = "7a1f0c2e-1111-4222-8333-444455556666";
    // The person's only message is a slash command's wrapper: no request worth a title.
    let lines = [
        format!(
            r#"{{"type":"user","sessionId":"{id}","uuid":"u1","slug":"gentle-hopping-treehouse","cwd":"/home/ana/app","timestamp":"2026-05-14T10:00:00Z","message":{{"role":"user","content":"<command-name>/init</command-name>"}}}}"#
        ),
        format!(
            r#"{{"type":"ai-title","aiTitle":"Set up the release workflow","sessionId":"{id}"}}"#
        ),
        r#"{"type":"summary","summary":"Some other session's summary","leafUuid":"x"}"#.to_owned(),
        format!(
            r#"{{"type":"last-prompt","lastPrompt":"/init","leafUuid":"u1","sessionId":"{id}"}}"#
        ),
        format!(r#"{{"type":"permission-mode","permissionMode":"default","sessionId":"{id}"}}"#),
        format!(
            r#"{{"type":"attachment","sessionId":"{id}","uuid":"a1","attachment":{{"type":"queued_command","prompt":"also bump the version in Cargo.toml"}}}}"#
        ),
    ];
    std::fs::write(project.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let report = run(&store, &claude_code_under(dir.path()));
    assert_eq!(report.unknown_records, 0, "{}", summary(&report));
    let title: String = store
        .graph()
        .with_conn(|c| c.query_row("SELECT title FROM transcript_sessions", [], |r| r.get(0)))
        .unwrap();
    assert_eq!(title, "Set up the release workflow");
    // The queued command the person typed is their message; the rest is kept aside on purpose.
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM turns WHERE role = 'user' AND kind = 'message'
               AND text = 'also bump the version in Cargo.toml'"
        ),
        1
    );
}

#[test]
fn an_opening_several_sessions_share_titles_none_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude-code/-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let expanded =
        "You must fully embody this agent's persona and follow all activation instructions";
    let session = |id: &str, second: &str| {
        let user = |uuid: &str, minute: u32, text: &str| {
            format!(
                r#"{{"type":"user","sessionId":"{id}","uuid":"{uuid}","cwd":"/home/ana/app","timestamp":"2026-05-14T10:{minute:02}:00Z","message":{{"role":"user","content":"{text}"}}}}"#
            )
        };
        let lines = [user("u1", 0, expanded), user("u2", 1, second)];
        std::fs::write(project.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    };
    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = claude_code_under(dir.path());
    let requests = session_requests;
    // Alone, the opening is the session's first request: nothing says it is a template yet.
    session(
        "11111111-1111-4111-8111-111111111111",
        "draft the pricing page",
    );
    run(&store, &roots);
    assert_eq!(requests(&store), [expanded]);
    // A second session opening with the same words: both are titled by what else was asked.
    session(
        "22222222-2222-4222-8222-222222222222",
        "review the onboarding flow",
    );
    run(&store, &roots);
    assert_eq!(
        requests(&store),
        ["draft the pricing page", "review the onboarding flow"]
    );
    // A third is titled so from its first ingest, and none is read again.
    session(
        "33333333-3333-4333-8333-333333333333",
        "fix the login redirect",
    );
    run(&store, &roots);
    assert_eq!(
        requests(&store),
        [
            "draft the pricing page",
            "review the onboarding flow",
            "fix the login redirect"
        ]
    );
}

/// The Claude Code root of a test's folder (`<dir>/claude-code`).
fn claude_code_under(dir: &std::path::Path) -> [SourceRoot; 1] {
    [SourceRoot {
        harness: Harness::ClaudeCode,
        root: dir.join("claude-code"),
    }]
}

/// The request each session is titled by, in session-id order.
fn session_requests(store: &Store) -> Vec<String> {
    store
        .graph()
        .with_conn(|c| {
            let mut stmt = c
                .prepare("SELECT request FROM transcript_sessions ORDER BY session_id")
                .unwrap();
            stmt.query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap()
}

/// A resumed or forked session replays the requests its work began with: sessions that share
/// their opening *and* their next request are one piece of work, titled by what the person
/// first asked, not by their second request.
#[test]
fn sessions_replaying_the_same_requests_keep_the_opening_as_their_title() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude-code/-home-ana-app");
    std::fs::create_dir_all(&project).unwrap();
    let session = |id: &str, asks: &[&str]| {
        let lines: Vec<String> = asks
            .iter()
            .enumerate()
            .map(|(i, text)| {
                format!(
                    r#"{{"type":"user","sessionId":"{id}","uuid":"u{i}","cwd":"/home/ana/app","timestamp":"2026-05-14T10:{i:02}:00Z","message":{{"role":"user","content":"{text}"}}}}"#
                )
            })
            .collect();
        std::fs::write(project.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    };
    session(
        "11111111-1111-4111-8111-111111111111",
        &["check the design of the updater", "ok, start implementing"],
    );
    session(
        "22222222-2222-4222-8222-222222222222",
        &[
            "check the design of the updater",
            "ok, start implementing",
            "add a unit test for the login",
        ],
    );
    let store = Store::open(dir.path().join("store")).unwrap();
    run(&store, &claude_code_under(dir.path()));
    assert_eq!(
        session_requests(&store),
        [
            "check the design of the updater",
            "check the design of the updater"
        ]
    );
}

/// The older Codex format dates only the session's start: its turns, dated by their session's
/// last known time, make the session due for capture like any other of last year (taking "now"
/// for them had left it looking just active, and never captured by `watch --once`).
#[test]
fn a_session_whose_records_carry_no_time_is_captured_when_it_is_due() {
    use chrono::TimeZone;
    let dir = tempfile::tempdir().unwrap();
    let (roots, _) = old_codex_root(dir.path());
    let store = Store::open(dir.path().join("store")).unwrap();
    store
        .set_mode(crate::ContinuityMode::Deterministic)
        .unwrap();
    run(&store, &roots);
    let mut agent = crate::inputs::agent::Agent::new(&store.config().unwrap());
    let secrets = crate::base::secrets::MemorySecrets::default();
    let now = chrono::Utc.with_ymd_and_hms(2025, 9, 1, 9, 0, 0).unwrap();
    let ran = agent.run_once(&store, &secrets, now).unwrap();
    let captured: Vec<&str> = ran.captures.iter().map(|c| c.session_id.as_str()).collect();
    assert_eq!(
        captured,
        ["3b7c34a5-0000-4f87-8db8-2f6f5bbc8554"],
        "{ran:?}"
    );
    // Its entries are dated when the work happened, not when it was read.
    let entries: Vec<_> = ran.captures.iter().flat_map(|c| &c.entries).collect();
    assert!(!entries.is_empty());
    for entry in entries {
        assert!(
            entry.happened_at() < now - chrono::Duration::days(5),
            "{entry:?}"
        );
    }
}

/// A session the person asked nothing in (a schedule's heartbeat, a prompt the harness wrote) is
/// titled by what it did: the lead of its agent's report, marked as a scheduled job's, never by
/// the prompt or an id. It is named again as it grows, and a request of the person's, once one
/// comes, wins.
#[test]
fn a_session_nobody_asked_anything_in_is_titled_by_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("claude-code/-home-ana-ops");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join("33333333-3333-4333-8333-333333333333.jsonl");
    let record = |i: usize, role: &str, text: &str| {
        // Claude Code writes the agent's words as content blocks, the person's as a string.
        let content = if role == "assistant" {
            format!(r#"[{{"type":"text","text":"{text}"}}]"#)
        } else {
            format!(r#""{text}""#)
        };
        format!(
            r#"{{"type":"{role}","sessionId":"33333333-3333-4333-8333-333333333333","uuid":"r{i}","cwd":"/home/ana/ops","timestamp":"2026-05-14T10:{i:02}:00Z","message":{{"role":"{role}","content":{content}}}}}"#
        )
    };
    let heartbeat =
        "Read HEARTBEAT.md if it exists. If nothing needs attention, reply HEARTBEAT_OK.";
    let write = |lines: &[String]| std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let mut lines = vec![
        record(0, "user", heartbeat),
        record(1, "assistant", "HEARTBEAT_OK"),
        record(2, "user", heartbeat),
        record(
            3,
            "assistant",
            "Both domains need renewal now: example.org expires in 3 days.",
        ),
    ];
    write(&lines);
    let store = Store::open(dir.path().join("store")).unwrap();
    let roots = claude_code_under(dir.path());
    let title = |store: &Store| {
        crate::inputs::sessions::list(store.graph(), &Default::default(), crate::now())
            .unwrap()
            .into_iter()
            .next()
            .and_then(|s| s.display_title())
    };
    run(&store, &roots);
    assert_eq!(
        title(&store).as_deref(),
        Some("Scheduled job: Both domains need renewal now: example.org expires in 3 days.")
    );
    // The next report names the session anew; then the person asks, and their words win.
    lines.push(record(4, "user", heartbeat));
    lines.push(record(
        5,
        "assistant",
        "**Renewed example.org until 2027.**",
    ));
    write(&lines);
    run(&store, &roots);
    assert_eq!(
        title(&store).as_deref(),
        Some("Scheduled job: Renewed example.org until 2027.")
    );
    lines.push(record(6, "user", "move the renewal check to mondays"));
    write(&lines);
    run(&store, &roots);
    assert_eq!(
        title(&store).as_deref(),
        Some("move the renewal check to mondays")
    );
}
