//! Continuity log: the CSA §3.2 wire shape, round trips of every entry type, torn-tail repair,
//! counted skips of bad lines, `wc_unlinked` eviction and concurrent appends, on real files.

use std::io::Write;

use chrono::{TimeZone, Utc};
use expect_test::expect;

use super::log::{MAX_LINE_BYTES, UNLINKED_CAP};
use super::*;
use crate::base::config::ContinuityConfig;
use crate::base::ids::{EntityId, SessionId, WorkContextId};

fn wc(id: &str) -> WorkContextId {
    WorkContextId::new(id).unwrap()
}

fn question(wc_id: &WorkContextId, n: u32) -> ContinuityEntry {
    let at = Utc.with_ymd_and_hms(2026, 11, 20, 9, n % 60, 0).unwrap();
    ContinuityEntry::new(
        wc_id.clone(),
        SessionId::new(format!("s{n}")).unwrap(),
        at,
        CaptureMode::Deterministic,
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: format!("Question {n}?"),
            context: "ctx".into(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        &ContinuityConfig::default(),
    )
}

fn log_in(dir: &std::path::Path, id: &str) -> ContinuityLog {
    ContinuityLog::new(dir, wc(id))
}

#[test]
fn entry_serialises_exactly_as_csa_3_2() {
    let id = wc("henderson");
    let mut entry = ContinuityEntry::new(
        id,
        SessionId::new("sess-42").unwrap(),
        Utc.with_ymd_and_hms(2026, 11, 20, 9, 0, 0).unwrap(),
        CaptureMode::LlmEnriched,
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Focus on price impact for loss causation".into(),
            rationale: Some("Corrective disclosure alone was insufficient".into()),
            superseded_by: None,
        }),
        &ContinuityConfig::default(),
    );
    entry.entry_id = crate::base::ids::EntryId::new("ce_1").unwrap();
    entry.linked_entity_ids = vec![EntityId::new("ent_judge_chen").unwrap()];
    let json: serde_json::Value = serde_json::from_str(&entry.to_line().unwrap()).unwrap();
    expect![[r#"
        {
          "capture_mode": "llm_enriched",
          "captured_at": "2026-11-20T09:00:00Z",
          "content": {
            "decision": "Focus on price impact for loss causation",
            "rationale": "Corrective disclosure alone was insufficient"
          },
          "decay_at": "2027-01-19T09:00:00Z",
          "delivered": false,
          "entry_id": "ce_1",
          "entry_type": "key_decision",
          "linked_entity_ids": [
            "ent_judge_chen"
          ],
          "promoted_to_graph": false,
          "schema_version": 2,
          "source_session_id": "sess-42",
          "work_context_id": "henderson"
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&json).unwrap());
}

#[test]
fn every_entry_type_round_trips_through_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let id = wc("roundtrip");
    let log = ContinuityLog::new(dir.path(), id.clone());
    let config = ContinuityConfig::default();
    let at = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
    let contents = vec![
        EntryContent::SessionSummaryRef(SessionSummaryRefContent {
            doc73_session_summary_id: "sum_1".into(),
            entities_referenced: vec!["Henderson".into()],
            procedures_executed: vec![],
            tools_used: vec!["grep".into()],
            turn_count: 12,
            duration_minutes: Some(40),
        }),
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: "Which exhibit?".into(),
            context: "drafting".into(),
            resolved: true,
            resolved_at: Some(at),
            resolution_summary: Some("Exhibit 4".into()),
        }),
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Use WAL".into(),
            rationale: None,
            superseded_by: Some(crate::base::ids::EntryId::new("ce_9").unwrap()),
        }),
        EntryContent::CrossConversationUpdate(CrossConversationUpdateContent {
            summary: "Henderson updated elsewhere".into(),
            source_session_id: SessionId::new("s9").unwrap(),
            affected_entity_ids: vec![EntityId::new("e1").unwrap()],
        }),
        EntryContent::WorkPhaseChange(WorkPhaseChangeContent {
            previous_phase: Some(WorkPhase::Research),
            new_phase: WorkPhase::WaitingForExternal,
            reason: None,
        }),
    ];
    let written: Vec<ContinuityEntry> = contents
        .into_iter()
        .map(|c| {
            ContinuityEntry::new(
                id.clone(),
                SessionId::new("s1").unwrap(),
                at,
                CaptureMode::Deterministic,
                c,
                &config,
            )
        })
        .collect();
    for entry in &written {
        assert_eq!(log.append(entry).unwrap(), None);
    }
    let read = log.read().unwrap();
    assert_eq!(read.entries, written);
    assert!(read.skipped.is_empty());
    let ttl: Vec<i64> = read
        .entries
        .iter()
        .map(|e| (e.decay_at - e.captured_at).num_days())
        .collect();
    assert_eq!(ttl, [30, 60, 60, 7, 30]);
    assert_eq!(log.tail(2).unwrap().entries, written[3..]);
}

#[test]
fn append_to_the_wrong_log_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_in(dir.path(), "a");
    let err = log.append(&question(&wc("b"), 1)).unwrap_err();
    assert!(
        err.to_string().contains("belongs to work context b"),
        "{err}"
    );
    assert!(!log.path().exists());
}

#[test]
fn torn_last_line_is_cut_and_preserved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let id = wc("torn");
    let log = ContinuityLog::new(dir.path(), id.clone());
    log.append(&question(&id, 1)).unwrap();
    log.append(&question(&id, 2)).unwrap();
    // Simulate a crash mid-append: half of a third line, no newline.
    let third = question(&id, 3).to_line().unwrap();
    let partial = &third.as_bytes()[..third.len() / 2];
    std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .unwrap()
        .write_all(partial)
        .unwrap();

    let read = log.read().unwrap();
    assert_eq!(read.entries.len(), 2, "complete entries are kept");
    assert!(
        read.skipped.is_empty(),
        "the torn tail is repaired, not skipped"
    );
    let repair = read.repair.expect("repair reported");
    assert_eq!(repair.bytes, partial.len() as u64);
    let aside = repair.preserved_at.expect("partial bytes kept aside");
    assert_eq!(std::fs::read(&aside).unwrap(), partial);
    assert!(aside.starts_with(dir.path().join("torn")));
    assert!(std::fs::read(log.path()).unwrap().ends_with(b"\n"));

    // The next append lands on its own line, and a second read finds nothing to repair.
    assert_eq!(log.append(&question(&id, 4)).unwrap(), None);
    let read = log.read().unwrap();
    assert_eq!(read.entries.len(), 3);
    assert_eq!(read.repair, None);
}

#[test]
fn complete_entry_missing_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let id = wc("nonewline");
    let log = ContinuityLog::new(dir.path(), id.clone());
    std::fs::write(log.path(), question(&id, 1).to_line().unwrap()).unwrap();
    let repair = log.append(&question(&id, 2)).unwrap().expect("repaired");
    assert_eq!(repair.preserved_at, None);
    assert_eq!(log.read().unwrap().entries.len(), 2);
    assert!(!dir.path().join("torn").exists());
}

#[test]
fn file_that_is_only_a_torn_fragment_is_emptied_and_preserved() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_in(dir.path(), "fragment");
    std::fs::write(log.path(), b"{\"entry_id\": \"ce_").unwrap();
    let read = log.read().unwrap();
    assert!(read.entries.is_empty());
    let aside = read.repair.unwrap().preserved_at.unwrap();
    assert_eq!(std::fs::read(aside).unwrap(), b"{\"entry_id\": \"ce_");
    assert_eq!(std::fs::read(log.path()).unwrap(), b"");
}

#[test]
fn malformed_lines_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let id = wc("messy");
    let log = ContinuityLog::new(dir.path(), id.clone());
    let good = question(&id, 1).to_line().unwrap();
    let wrong_content = good.replace("\"open_question\"", "\"key_decision\"");
    let old_schema = good.replace("\"schema_version\":2", "\"schema_version\":1");
    let hostile_wc = good.replace(
        "\"work_context_id\":\"messy\"",
        "\"work_context_id\":\"../x\"",
    );
    let mut bytes = Vec::new();
    for line in [
        good.as_bytes(),
        b"not json at all",
        b"\xff\xfe invalid utf-8",
        wrong_content.as_bytes(),
        old_schema.as_bytes(),
        hostile_wc.as_bytes(),
        b"",
        good.as_bytes(),
    ] {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(&vec![b'x'; MAX_LINE_BYTES + 10]);
    bytes.push(b'\n');
    bytes.extend_from_slice(good.as_bytes());
    bytes.push(b'\n');
    std::fs::write(log.path(), &bytes).unwrap();

    let read = log.read().unwrap();
    assert_eq!(read.entries.len(), 3);
    let skipped: Vec<String> = read
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.line, s.reason.split(" at line").next().unwrap()))
        .collect();
    expect![[r#"
        [
            "2: expected ident",
            "3: expected value",
            "4: content of key_decision entry: missing field `decision`",
            "5: schema_version 1 is not supported (expected 2)",
            "6: invalid work context id \"../x\": must not start with a dot",
            "9: line of 1048586 bytes exceeds the 1048576-byte limit",
        ]
    "#]]
    .assert_debug_eq(&skipped);
    // Reading never rewrites the file: skipped lines stay for a person to inspect.
    assert_eq!(std::fs::read(log.path()).unwrap(), bytes);
}

#[test]
fn unlinked_log_keeps_only_the_newest_twenty() {
    let dir = tempfile::tempdir().unwrap();
    let id = WorkContextId::unlinked();
    let log = ContinuityLog::new(dir.path(), id.clone());
    for n in 0..25 {
        log.append(&question(&id, n)).unwrap();
    }
    let read = log.read().unwrap();
    assert_eq!(read.entries.len(), UNLINKED_CAP);
    let first = &read.entries[0].source_session_id;
    assert_eq!(first.as_str(), "s5");
    // Named work contexts are never capped.
    let named = log_in(dir.path(), "named");
    for n in 0..25 {
        named.append(&question(named.work_context_id(), n)).unwrap();
    }
    assert_eq!(named.read().unwrap().entries.len(), 25);
}

#[test]
fn concurrent_appends_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let id = wc("busy");
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let log = ContinuityLog::new(dir.path(), id.clone());
            let id = id.clone();
            std::thread::spawn(move || {
                for n in 0..25 {
                    log.append(&question(&id, t * 100 + n)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let read = ContinuityLog::new(dir.path(), id).read().unwrap();
    assert_eq!(read.entries.len(), 100);
    assert!(read.skipped.is_empty());
    let mut ids: Vec<_> = read.entries.iter().map(|e| e.entry_id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 100, "entry ids are unique");
}

/// An incremental read returns only what was appended since its mark, goes on across a repaired
/// torn tail, and starts again from the first line when the log was rewritten (the unlinked
/// log's eviction writes a new file) or deleted.
#[test]
fn reading_since_a_mark_returns_only_what_was_appended() {
    let dir = tempfile::tempdir().unwrap();
    let log = log_in(dir.path(), "named");
    let id = log.work_context_id().clone();
    let sessions = |read: &LogRead| -> Vec<String> {
        read.entries
            .iter()
            .map(|e| e.source_session_id.as_str().to_owned())
            .collect()
    };
    let none = log.read_since(&LogMark::default()).unwrap();
    assert!(none.read.entries.is_empty() && !none.restarted);
    log.append_all(&[question(&id, 1), question(&id, 2)])
        .unwrap();
    let first = log.read_since(&none.mark).unwrap();
    assert_eq!(sessions(&first.read), ["s1", "s2"]);
    assert!(!first.restarted);
    let nothing = log.read_since(&first.mark).unwrap();
    assert!(nothing.read.entries.is_empty() && !nothing.restarted);
    log.append(&question(&id, 3)).unwrap();
    // A torn tail after the mark is cut by the repair, and the read goes on from the mark.
    std::fs::OpenOptions::new()
        .append(true)
        .open(log.path())
        .unwrap()
        .write_all(b"{\"torn")
        .unwrap();
    let next = log.read_since(&nothing.mark).unwrap();
    assert_eq!(sessions(&next.read), ["s3"]);
    assert!(!next.restarted && next.read.repair.is_some());
    // Rewritten in place of the old file (as an eviction or a merge does): read whole again.
    let kept = std::fs::read_to_string(log.path()).unwrap();
    let rest: String = kept.lines().skip(1).map(|l| format!("{l}\n")).collect();
    crate::base::fsutil::atomic_write(log.path(), rest.as_bytes()).unwrap();
    let again = log.read_since(&next.mark).unwrap();
    assert_eq!(sessions(&again.read), ["s2", "s3"]);
    assert!(again.restarted);
    // Deleted: nothing, and a restart.
    std::fs::remove_file(log.path()).unwrap();
    let gone = log.read_since(&again.mark).unwrap();
    assert!(gone.read.entries.is_empty() && gone.restarted);
    // Those marks, all along, stood where a whole read would have ended.
    log.append(&question(&id, 4)).unwrap();
    let whole = log.read_since(&LogMark::default()).unwrap();
    assert_eq!(sessions(&whole.read), sessions(&log.read().unwrap()));
}
