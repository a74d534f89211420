use std::fs;
use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::*;
use crate::base::ids::SessionId;
use crate::base::lease::Acquire;
use crate::continuity::{
    CaptureMode, ContinuityEntry, EntryContent, KeyDecisionContent, OpenQuestionContent,
    SessionSummaryRefContent, WorkPhase, WorkPhaseChangeContent,
};
use crate::graph::store::Store;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
}

/// Appends an entry to `wc`'s log, captured from session summary `ss` at `at`.
fn add(store: &Store, wc: &str, ss: &str, at: DateTime<Utc>, content: EntryContent) {
    let mut e = ContinuityEntry::new(
        WorkContextId::new(wc).unwrap(),
        SessionId::new(format!("s-{ss}")).unwrap(),
        at,
        CaptureMode::Deterministic,
        content,
        &store.config().unwrap(),
    );
    e.linked_doc73_session_summary_id = Some(ss.to_owned());
    store.log(&e.work_context_id).append(&e).unwrap();
}

fn question(q: &str) -> EntryContent {
    EntryContent::OpenQuestion(OpenQuestionContent {
        question: q.into(),
        context: String::new(),
        resolved: false,
        resolved_at: None,
        resolution_summary: None,
    })
}

fn decision(d: &str) -> EntryContent {
    EntryContent::KeyDecision(KeyDecisionContent {
        decision: d.into(),
        rationale: None,
        superseded_by: None,
    })
}

fn summary(ss: &str) -> EntryContent {
    EntryContent::SessionSummaryRef(SessionSummaryRefContent {
        doc73_session_summary_id: ss.into(),
        entities_referenced: Vec::new(),
        procedures_executed: Vec::new(),
        tools_used: Vec::new(),
        turn_count: 12,
        duration_minutes: None,
    })
}

/// Two contexts with a session each: a decision, a question and a phase in `alpha`, a question
/// in `beta`.
fn two_contexts() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let a = now() - Duration::days(2);
    add(
        &store,
        "alpha",
        "ss_aaaaaaaaaaaa_1",
        a,
        summary("ss_aaaaaaaaaaaa_1"),
    );
    add(
        &store,
        "alpha",
        "ss_aaaaaaaaaaaa_1",
        a,
        decision("Ship the importer behind a flag."),
    );
    add(
        &store,
        "alpha",
        "ss_aaaaaaaaaaaa_1",
        a,
        question("Which venue hosts the alpha review?"),
    );
    add(
        &store,
        "alpha",
        "ss_aaaaaaaaaaaa_1",
        a,
        EntryContent::WorkPhaseChange(WorkPhaseChangeContent {
            previous_phase: None,
            new_phase: WorkPhase::Drafting,
            reason: None,
        }),
    );
    let b = now() - Duration::days(1);
    add(
        &store,
        "beta",
        "ss_bbbbbbbbbbbb_7",
        b,
        summary("ss_bbbbbbbbbbbb_7"),
    );
    add(
        &store,
        "beta",
        "ss_bbbbbbbbbbbb_7",
        b,
        question("Which signing key does beta use?"),
    );
    (dir, store)
}

fn thread(wc: &str) -> HeadScope {
    HeadScope::Thread(WorkContextId::new(wc).unwrap())
}

/// Every content line of a head's text (not a heading, not the title) ends with a citation.
fn assert_cited(head: &Head) {
    // The "Left out" section names ids in parentheses instead; it comes last.
    let shown = head.text.split("## Left out").next().unwrap_or_default();
    for line in shown.lines().filter(|l| l.starts_with("- ")) {
        assert!(
            line.ends_with(']'),
            "uncited line {line:?} in\n{}",
            head.text
        );
    }
    for l in &head.lines {
        assert!(!l.citations.is_empty(), "{l:?}");
    }
}

/// A thread head holds only its own context's entries (CLOSURE §6): alpha's head names alpha's
/// decision, question and phase, cites alpha's session summary, and nothing of beta's.
#[test]
fn a_thread_head_holds_only_its_own_context() {
    let (_dir, store) = two_contexts();
    let alpha = build::head(&store, &thread("alpha"), now()).unwrap();
    let beta = build::head(&store, &thread("beta"), now()).unwrap();
    expect_test::expect![[r#"
        # Thread head: alpha (alpha)
        ## Status
        - phase: drafting [ss_aaaaaaaaaaaa_1]
        - last activity 2026-11-20; 1 session(s) captured [ss_aaaaaaaaaaaa_1]
        ## Next actions
        - resolve: Which venue hosts the alpha review? [ss_aaaaaaaaaaaa_1]
        ## Decisions
        - Ship the importer behind a flag. [ss_aaaaaaaaaaaa_1]
        ## Lineage
        - 2026-11-20: 12 turns [ss_aaaaaaaaaaaa_1]
    "#]]
    .assert_eq(&alpha.text);
    for text in ["signing key", "ss_bbbbbbbbbbbb_7", "beta"] {
        assert!(!alpha.text.contains(text), "{text} bled into alpha");
    }
    for text in ["venue", "importer", "ss_aaaaaaaaaaaa_1", "drafting"] {
        assert!(!beta.text.contains(text), "{text} bled into beta");
    }
    assert_cited(&alpha);
    assert_cited(&beta);
    // An unknown context is refused, not rendered empty.
    assert!(build::head(&store, &thread("nowhere"), now()).is_err());
}

/// The global head carries each active context's next action and one line per context, every
/// line cited; a local-only context stays out of it.
#[test]
fn the_global_head_spans_the_active_contexts_and_keeps_local_only_ones_out() {
    let (_dir, store) = two_contexts();
    add(
        &store,
        "secret",
        "ss_cccccccccccc_1",
        now() - Duration::hours(1),
        question("Private matter?"),
    );
    store
        .graph()
        .with_conn(|c| {
            c.execute(
                "INSERT INTO work_contexts (work_context_id, name, origin, local_only, created_at, updated_at)
                 VALUES ('secret', 'Secret', 'named', 1, '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z')",
                [],
            )
        })
        .unwrap();
    let head = build::head(&store, &HeadScope::Global, now()).unwrap();
    expect_test::expect![[r#"
        # MEMORY: active state across work contexts
        ## Next actions
        - beta: resolve: Which signing key does beta use? [ss_bbbbbbbbbbbb_7]
        - alpha: resolve: Which venue hosts the alpha review? [ss_aaaaaaaaaaaa_1]
        ## Work contexts
        - beta, last 2026-11-21: 12 turns [ss_bbbbbbbbbbbb_7]
        - alpha (drafting), last 2026-11-20: 12 turns [ss_aaaaaaaaaaaa_1]
    "#]]
    .assert_eq(&head.text);
    assert!(!head.text.contains("Private"));
    assert_cited(&head);
}

/// Far more open loops than fit: the head stays under its cap, the most referenced loop comes
/// first, and the "Left out" section counts the rest and names only a bounded few.
#[test]
fn the_global_head_stays_under_its_cap_and_names_what_was_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    for i in 0..150 {
        add(
            &store,
            &format!("wc{:03}", i % 30),
            &format!("ss_{:012x}_{i}", i),
            now() - Duration::minutes(i),
            question(&format!(
                "Open loop number {i}: which of the several candidate approaches for the \
                 reconciliation job should we settle on before the review?"
            )),
        );
    }
    let head = build::head(&store, &HeadScope::Global, now()).unwrap();
    assert!(head.tokens <= GLOBAL_TOKEN_CAP, "{}", head.tokens);
    assert_eq!(head.tokens as usize, crate::base::tokens::count(&head.text));
    assert!(
        head.tokens > GLOBAL_TOKEN_CAP * 3 / 4,
        "the cap is used: {}",
        head.tokens
    );
    let total: usize = head.left_out.iter().map(|l| l.count).sum();
    assert_eq!(
        head.lines.len() + total,
        150 + 30,
        "every loop and context is shown or counted"
    );
    assert!(head.text.contains(&format!("## Left out ({total})")));
    for l in &head.left_out {
        assert!(l.ids.len() <= LEFT_OUT_IDS);
    }
    assert!(head.text.lines().count() < 60);
    // The cap holds for a thread too.
    let t = build::head(&store, &thread("wc000"), now()).unwrap();
    assert!(t.tokens <= THREAD_TOKEN_CAP);
    assert_cited(&head);
}

/// Over the project's captured samples: a refresh writes the global head and a thread head per
/// context; the same store and `now` give the same bytes, and deleting `heads/` then refreshing
/// rebuilds identical files.
#[test]
fn deleting_heads_and_refreshing_rebuilds_identical_files() {
    let (dir, store) = crate::test_support::sample_store();
    let at = Utc.with_ymd_and_hms(2026, 11, 3, 9, 0, 0).unwrap();
    crate::test_support::capture_all(&store, at);
    let first = refresh(&store, None, at).unwrap();
    assert!(first.failures.is_empty(), "{:?}", first.failures);
    assert!(
        first
            .reports
            .iter()
            .all(|r| r.status == WriteStatus::Written)
    );
    let snapshot = |root: &Path| {
        let mut files = Vec::new();
        for e in walkdir::WalkDir::new(root.join("heads")).sort_by_file_name() {
            let e = e.unwrap();
            if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md") {
                files.push((
                    e.path().strip_prefix(root).unwrap().to_owned(),
                    fs::read(e.path()).unwrap(),
                ));
            }
        }
        files
    };
    let before = snapshot(dir.path());
    assert!(
        before.len() >= 3,
        "{:?}",
        before.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let global = String::from_utf8(fs::read(dir.path().join("heads/MEMORY.md")).unwrap()).unwrap();
    assert!(global.starts_with("# MEMORY"), "{global}");
    assert!(global.contains("[ss_"), "{global}");
    // Again: nothing changes.
    let again = refresh(&store, None, at).unwrap();
    assert!(
        again
            .reports
            .iter()
            .all(|r| r.status == WriteStatus::Unchanged)
    );
    fs::remove_dir_all(dir.path().join("heads")).unwrap();
    refresh(&store, None, at).unwrap();
    assert_eq!(snapshot(dir.path()), before);
    // `show` builds what the file holds.
    let shown = show(&store, &HeadScope::Global, at).unwrap();
    assert_eq!(shown.head.text, global);
    assert!(shown.proposals.is_empty() && shown.deferred.is_empty());
}

/// A head write while someone else holds the lease is deferred, not lost: the record names the
/// holder, `show` lists it, and the next refresh, once the lease is free, writes it and clears
/// the record.
#[test]
fn a_busy_head_is_deferred_and_retried_by_the_next_refresh() {
    let (dir, store) = two_contexts();
    let target = dir.path().join("AGENTS.md");
    fs::write(&target, "# Agents\n").unwrap();
    let Acquire::Held(lease) =
        acquire_lease(&store, &LeaseTarget::File(target.clone()), "a test", now()).unwrap()
    else {
        panic!("a free lease is taken")
    };
    let r = write_to(&store, &HeadScope::Global, &target, false, now()).unwrap();
    assert_eq!(r.status, WriteStatus::Deferred);
    assert_eq!(r.held_by.as_ref().map(|h| h.owner.as_str()), Some("a test"));
    assert_eq!(fs::read_to_string(&target).unwrap(), "# Agents\n");
    let view = show(&store, &HeadScope::Global, now()).unwrap();
    assert_eq!(view.deferred.len(), 1);
    // Still held: a refresh defers it again (the store's own files are written meanwhile).
    let busy = refresh(&store, None, now()).unwrap();
    assert_eq!(busy.deferred(), 1);
    lease.release().unwrap();
    let done = refresh(&store, None, now()).unwrap();
    assert_eq!(done.deferred(), 0);
    assert!(
        fs::read_to_string(&target)
            .unwrap()
            .contains("<!-- elnor:head scope=global")
    );
    assert!(
        show(&store, &HeadScope::Global, now())
            .unwrap()
            .deferred
            .is_empty()
    );
}

/// The store's own head file is leased too: busy means deferred.
#[test]
fn the_store_head_files_are_leased_too() {
    let (_dir, store) = two_contexts();
    let Acquire::Held(lease) =
        acquire_lease(&store, &LeaseTarget::Head(thread("alpha")), "a test", now()).unwrap()
    else {
        panic!()
    };
    let r = refresh(&store, None, now()).unwrap();
    let alpha = r
        .reports
        .iter()
        .find(|r| r.scope == thread("alpha"))
        .unwrap();
    assert_eq!(alpha.status, WriteStatus::Deferred);
    assert!(!path(&store, &thread("alpha")).exists());
    drop(lease);
    let r = retry_deferred(&store, now()).unwrap();
    assert_eq!(r.reports.len(), 1);
    assert_eq!(r.reports[0].status, WriteStatus::Written);
    assert!(path(&store, &thread("alpha")).exists());
}

/// A person's edit inside the block is kept and saved as a proposal; `replace_edits` overwrites
/// it; the bytes around the block never change.
#[test]
fn an_edited_block_is_kept_as_a_proposal_until_the_person_decides() {
    let (dir, store) = two_contexts();
    let target = dir.path().join("notes.md");
    let before = "Notes — ünïcode ✓\r\nsecond line without final newline";
    fs::write(&target, before).unwrap();
    let r = write_to(&store, &thread("alpha"), &target, false, now()).unwrap();
    assert_eq!(r.status, WriteStatus::Written);
    let written = fs::read(&target).unwrap();
    assert!(written.starts_with(format!("{before}\r\n").as_bytes()));
    assert!(String::from_utf8_lossy(&written).contains("scope=thread-alpha"));
    // The block uses the file's CRLF.
    assert!(String::from_utf8_lossy(&written).contains("## Decisions\r\n"));
    assert_eq!(
        write_to(&store, &thread("alpha"), &target, false, now())
            .unwrap()
            .status,
        WriteStatus::Unchanged
    );
    let edited = String::from_utf8(written)
        .unwrap()
        .replace("Ship the importer", "Ship the NEW importer");
    fs::write(&target, &edited).unwrap();
    let r = write_to(&store, &thread("alpha"), &target, false, now()).unwrap();
    assert_eq!(r.status, WriteStatus::EditsKept);
    assert_eq!(fs::read_to_string(&target).unwrap(), edited);
    let proposal = r.proposal.unwrap();
    assert!(
        fs::read_to_string(&proposal.body_path)
            .unwrap()
            .contains("NEW importer")
    );
    let view = show(&store, &thread("alpha"), now()).unwrap();
    assert_eq!(view.proposals, vec![proposal]);
    let r = write_to(&store, &thread("alpha"), &target, true, now()).unwrap();
    assert_eq!(r.status, WriteStatus::Written);
    let after = fs::read_to_string(&target).unwrap();
    assert!(!after.contains("NEW importer") && after.starts_with(before));
}

/// A capture at a session's end refreshes the heads through the use case; the brief's source
/// never names them (heads are off the agent's start path).
#[test]
fn a_session_end_capture_refreshes_the_heads_and_the_brief_never_reads_them() {
    let (dir, store) = crate::test_support::sample_store();
    let at = Utc.with_ymd_and_hms(2026, 11, 3, 9, 0, 0).unwrap();
    let session: SessionId = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT session_id FROM transcript_sessions ORDER BY session_id LIMIT 1",
                [],
                |r| r.get(0),
            )
        })
        .unwrap();
    let outcome = crate::usecase::capture_session(
        &store,
        &crate::base::secrets::MemorySecrets::default(),
        &crate::inputs::capture::CaptureRequest {
            session_id: session,
            trigger: crate::inputs::agent::Trigger::IdleTimeout,
            now: at,
        },
    )
    .unwrap();
    if outcome.status == crate::inputs::capture::CaptureStatus::Captured {
        assert!(dir.path().join("heads/MEMORY.md").exists());
        for wc in outcome.touched.iter().filter(|wc| !wc.is_unlinked()) {
            assert!(
                path(&store, &HeadScope::Thread(wc.clone())).exists(),
                "{wc}"
            );
        }
    }
    let brief = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/brief");
    for e in walkdir::WalkDir::new(brief) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let text = fs::read_to_string(e.path()).unwrap();
            assert!(
                !text.contains("heads::"),
                "{} names the heads",
                e.path().display()
            );
        }
    }
}

#[test]
fn scope_keys_round_trip_and_hostile_ones_are_refused() {
    for scope in [HeadScope::Global, thread("alpha-1.x")] {
        assert_eq!(HeadScope::from_key(&scope.key()).unwrap(), scope);
    }
    for bad in ["", "thread-", "thread-../x", "global2"] {
        assert!(HeadScope::from_key(bad).is_err(), "{bad}");
    }
}
