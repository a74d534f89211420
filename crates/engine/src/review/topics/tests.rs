//! Topics over the project's samples in a real store and a real search index: a lens with a
//! collection directive backfills proposals into the review queue, the person decides them, a
//! new session is proposed after its ingest, and pins and rejections stick.

use std::fs;
use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};

use crate::graph::topics::{MemberStatus, TopicRules};
use crate::inputs::ingest::SourceRoot;
use crate::inputs::transcripts::Harness;
use crate::test_support::ingest_dir;
use crate::usecase::{self, NewTopic, TopicEdit};
use crate::views::topics::{self, MemberSource};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

fn rules(query: &str) -> TopicRules {
    TopicRules {
        query: query.into(),
        ..TopicRules::default()
    }
}

/// A Claude Code session in the harness's JSONL shape whose person asks about `words`.
fn write_session(dir: &Path, session: &str, words: &str) {
    let project = dir.join("-home-dana-ledger");
    fs::create_dir_all(&project).unwrap();
    let line = format!(
        r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dana/ledger","sessionId":"{session}","version":"2.1.39","type":"user","uuid":"{session}-u1","timestamp":"2026-10-31T10:00:00.000Z","message":{{"role":"user","content":"{words}"}}}}"#
    );
    fs::write(project.join(format!("{session}.jsonl")), line + "\n").unwrap();
}

#[test]
fn a_directive_proposes_into_the_review_queue_and_the_lens_shows_what_was_decided() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());

    // A directive needs words to match by; names are unique.
    let no_words = NewTopic {
        name: "Empty".into(),
        collecting: true,
        ..NewTopic::default()
    };
    let err = usecase::create_topic(&store, &no_words, now()).unwrap_err();
    assert!(err.to_string().contains("needs query words"), "{err}");

    let new = NewTopic {
        name: "Ledger sync".into(),
        description: "Why the nightly sync loses rows".into(),
        rules: rules("sync rows"),
        collecting: true,
    };
    let created = usecase::create_topic(&store, &new, now()).unwrap();
    let proposed = created.collected.proposed.clone();
    assert!(proposed.len() >= 2, "the backfill proposes: {proposed:?}");
    assert!(created.topic.collect_since.is_some());
    assert!(proposed.iter().all(|m| m.status == MemberStatus::Pending));
    assert!(
        proposed.iter().all(|m| m
            .reason
            .as_deref()
            .unwrap()
            .contains("\u{201c}sync rows\u{201d}")),
        "{proposed:?}"
    );
    let dup = usecase::create_topic(&store, &new, now()).unwrap_err();
    assert!(dup.to_string().contains("exists already"), "{dup}");

    // The proposals are in the review queue, named by their Topic.
    let queue = super::pending(&store).unwrap();
    assert_eq!(queue.len(), proposed.len());
    assert!(queue.iter().all(|p| p.topic_name == "Ledger sync"));

    // Every proposal holds both words: the directive does not propose a document with one.
    let index = crate::views::search::SearchIndex::open(&store).unwrap();
    for m in &proposed {
        let hit = index.document(&m.doc_ref, now()).unwrap().unwrap();
        let text = hit.excerpt.to_lowercase();
        assert!(text.contains("sync") && text.contains("row"), "{hit:?}");
    }

    // The person approves one and rejects another.
    let (approved, rejected) = (proposed[0].membership_id, proposed[1].membership_id);
    let outcome = super::decide(&store, &[approved], true, now()).unwrap();
    assert_eq!(outcome.decided[0].status, MemberStatus::Approved);
    super::decide(&store, &[rejected], false, now()).unwrap();
    // Deciding twice fails for that one only.
    let again = super::decide(&store, &[approved, rejected], true, now()).unwrap();
    assert_eq!(again.failed.len(), 2);
    assert!(again.decided.is_empty());

    let view = topics::view(&store, &created.topic.topic_id, now()).unwrap();
    assert_eq!(view.pending, proposed.len() - 2);
    let approved_member = view
        .members
        .iter()
        .find(|m| m.membership_id == Some(approved))
        .expect("the approved member is shown");
    assert_eq!(approved_member.source, MemberSource::Approved);
    assert!(approved_member.hit.is_some());
    assert!(
        view.members.iter().all(|m| m.doc_id != proposed[1].doc_ref),
        "a rejected document leaves the lens although the rules match it"
    );
    assert!(view.members.iter().any(|m| m.source == MemberSource::Rule));

    // A second run with nothing new proposes nothing.
    assert!(super::collect(&store, now()).unwrap().proposed.is_empty());

    // A new session that holds the words is proposed by the ingest that brings it in; one
    // without both words is not.
    let transcripts = dir.path().join("new");
    write_session(
        &transcripts,
        "7d6c5b4a-3928-4716-a5b4-c3d2e1f00001",
        "The sync dropped 40 rows again after the retry.",
    );
    write_session(
        &transcripts,
        "7d6c5b4a-3928-4716-a5b4-c3d2e1f00002",
        "The sync finished fine today.",
    );
    let roots = [SourceRoot {
        harness: Harness::ClaudeCode,
        root: transcripts,
    }];
    usecase::ingest(&store, &roots, &mut |_| {}, now()).unwrap();
    let queue = super::pending(&store).unwrap();
    let fresh: Vec<_> = queue
        .iter()
        .filter(|p| {
            !proposed
                .iter()
                .any(|m| m.membership_id == p.membership.membership_id)
        })
        .collect();
    assert_eq!(fresh.len(), 1, "{fresh:?}");
    assert!(
        fresh[0].membership.label.contains("dropped 40 rows"),
        "{fresh:?}"
    );

    // The person pins a document the rules do not match, then takes it out again.
    let other = index
        .matching(
            &crate::views::topics::rules_request(&rules("finished fine"), now()),
            None,
            1,
        )
        .unwrap()
        .remove(0);
    let id = &created.topic.topic_id;
    usecase::pin_topic_member(&store, id, &other.doc_id, now()).unwrap();
    let view = topics::view(&store, id, now()).unwrap();
    assert!(
        view.members
            .iter()
            .any(|m| m.doc_id == other.doc_id && m.source == MemberSource::Pinned)
    );
    usecase::unpin_topic_member(&store, id, &other.doc_id, now()).unwrap();
    let view = topics::view(&store, id, now()).unwrap();
    assert!(view.members.iter().all(|m| m.doc_id != other.doc_id));
    assert!(usecase::pin_topic_member(&store, id, "turn:999999999", now()).is_err());

    // Turning the directive off stops proposals; the list counts what is there.
    let edit = TopicEdit {
        collecting: Some(false),
        ..TopicEdit::default()
    };
    assert!(
        !usecase::edit_topic(&store, id, &edit, now())
            .unwrap()
            .topic
            .collecting
    );
    let rows = topics::list(&store).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].approved, 1);

    // Deleting the Topic takes its memberships, and nothing else.
    let documents = index.document(&proposed[0].doc_ref, now()).unwrap();
    usecase::delete_topic(&store, id).unwrap();
    assert!(topics::list(&store).unwrap().is_empty());
    assert!(super::pending(&store).unwrap().is_empty());
    assert_eq!(
        index.document(&proposed[0].doc_ref, now()).unwrap(),
        documents
    );
}
