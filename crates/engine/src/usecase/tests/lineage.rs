//! Lineage expansion over the project's own samples: every captured entry, every brief line with
//! a transcript behind it and every turn expands to turns of its own session, inside its window;
//! what has no transcript says so; a session captured twice has two windows that meet end to end
//! and cover every turn the captures read; windows worked out for summaries stored before they
//! were recorded match the recorded ones.

use super::*;
use crate::brief::{BriefRequest, Delivery};
use crate::test_support::{capture_all, sample_store};

fn later() -> DateTime<Utc> {
    crate::base::clock::parse("2030-01-01T00:00:00Z").unwrap()
}

#[test]
fn every_captured_entry_expands_to_turns_of_its_own_session_inside_its_window() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let mut expanded = 0;
    for wc in store.log_ids().unwrap() {
        for entry in store.log(&wc).read().unwrap().entries {
            let source = LineageSource::Entry {
                entry_id: entry.entry_id.clone(),
                work_context_id: None,
            };
            let lineage = expand_lineage(&store, &source, 50_000, None).unwrap();
            assert_eq!(lineage.span.session_id, entry.source_session_id);
            assert_eq!(lineage.span.work_context_id.as_ref(), Some(&wc));
            assert!(
                lineage.span.exact,
                "{}: {}",
                lineage.span.source, lineage.span.how
            );
            let through = lineage
                .span
                .through_seq
                .expect("a capture read up to a turn");
            assert!(
                !lineage.transcript.turns.is_empty(),
                "{}: no turns",
                lineage.span.source
            );
            for t in &lineage.transcript.turns {
                assert!(t.seq <= through);
                assert!(lineage.span.after_seq.is_none_or(|a| t.seq > a));
            }
            expanded += 1;
        }
    }
    assert!(
        expanded > 5,
        "the samples' captures wrote only {expanded} entries"
    );
}

#[test]
fn a_brief_line_expands_through_its_trace_and_a_line_without_a_transcript_says_so() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let wc = store.log_ids().unwrap().remove(0);
    let mut req = BriefRequest::new(later(), later().date_naive(), Delivery::Preview);
    req.work_context_id = Some(wc);
    let brief = crate::brief::assemble(&store, &req).unwrap();
    let detail = store.graph().assembly(brief.assembly_id).unwrap();
    let (mut with_session, mut without) = (0, 0);
    for item in &detail.items {
        let source = LineageSource::TraceItem {
            assembly_id: brief.assembly_id,
            ordinal: item.ordinal,
        };
        match expand_lineage(&store, &source, 50_000, None) {
            Ok(l) => {
                assert!(l.span.source.starts_with("brief line"), "{}", l.span.source);
                assert!(
                    l.transcript
                        .turns
                        .iter()
                        .all(|t| l.span.through_seq.is_none_or(|s| t.seq <= s))
                );
                with_session += 1;
            }
            Err(Error::InvalidInput(why)) => {
                assert!(item.session_id.is_none(), "{why}");
                assert!(why.contains("no turns to expand to"), "{why}");
                without += 1;
            }
            Err(e) => panic!("trace item {}: {e}", item.ordinal),
        }
    }
    assert!(with_session > 0, "no brief line had a transcript behind it");
    assert!(
        without > 0,
        "every brief line had a session; the refusal was never tried"
    );
    let missing = LineageSource::TraceItem {
        assembly_id: brief.assembly_id,
        ordinal: 10_000,
    };
    assert!(matches!(
        expand_lineage(&store, &missing, 1_000, None),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn a_turn_expands_to_itself_and_the_turns_before_it_within_the_budget() {
    let (_dir, store) = sample_store();
    let (session, seq): (String, i64) = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT session_id, max(seq) FROM turns WHERE kind = 'message'
                  GROUP BY session_id ORDER BY count(*) DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })
        .unwrap();
    let source = LineageSource::Turn {
        session_id: SessionId::new(session.as_str()).unwrap(),
        seq,
    };
    let small = expand_lineage(&store, &source, 200, None).unwrap();
    assert!(small.span.exact);
    assert_eq!(small.transcript.turns.last().map(|t| t.seq), Some(seq));
    assert!(small.transcript.total_tokens <= 200);
    // A continuation reads the older turns, never the same ones again.
    if let Some(before) = small.transcript.next_before_seq {
        let older = expand_lineage(&store, &source, 200, Some(before)).unwrap();
        assert!(older.transcript.turns.iter().all(|t| t.seq < before));
    }
    let wrong = LineageSource::Turn {
        session_id: SessionId::new("no-such-session").unwrap(),
        seq,
    };
    assert!(matches!(
        expand_lineage(&store, &wrong, 200, None),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn a_session_captured_twice_has_two_exact_windows_that_meet_end_to_end() {
    let samples = crate::test_support::samples();
    let rel = "claude-code/-home-dana-code-ledger-sync/5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11.jsonl";
    let full = std::fs::read_to_string(samples.join(rel)).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("claude-code");
    let file = root.join("-home-dana-code-ledger-sync/5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    let roots = [crate::inputs::ingest::SourceRoot {
        harness: crate::inputs::transcripts::Harness::ClaudeCode,
        root: root.clone(),
    }];
    let ingest = |upto: usize| {
        std::fs::write(&file, lines[..upto].join("\n") + "\n").unwrap();
        crate::usecase::ingest(&store, &roots, &mut |_| {}, later()).unwrap();
    };
    ingest(lines.len() / 2);
    capture_all(&store, later());
    ingest(lines.len());
    capture_all(&store, later() + chrono::Duration::hours(1));

    let session = "5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11";
    let windows: Vec<(Option<i64>, i64, i64)> = store
        .graph()
        .with_conn(|c| {
            let mut stmt = c.prepare(
                "SELECT after_seq, through_seq, recorded FROM capture_windows
                  WHERE session_id = ?1 ORDER BY through_seq",
            )?;
            stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .unwrap();
    assert_eq!(windows.len(), 2, "{windows:?}");
    let (first, second) = (windows[0], windows[1]);
    assert_eq!(first.0, None);
    assert_eq!(
        second.0,
        Some(first.1),
        "the second starts where the first ended"
    );
    assert!(first.2 == 1 && second.2 == 1);
    let last: i64 = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT max(seq) FROM turns WHERE session_id = ?1 AND kind = 'message'",
                [session],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert!(
        second.1 >= last,
        "the captures together read every message: {second:?} < {last}"
    );

    // Each entry expands to its own capture's turns only.
    let mut seen = std::collections::BTreeSet::new();
    for wc in store.log_ids().unwrap() {
        for entry in store.log(&wc).read().unwrap().entries {
            if entry.source_session_id.as_str() != session {
                continue;
            }
            let l = expand_lineage(
                &store,
                &LineageSource::Entry {
                    entry_id: entry.entry_id.clone(),
                    work_context_id: Some(wc.clone()),
                },
                50_000,
                None,
            )
            .unwrap();
            assert!(l.span.exact);
            assert!(
                l.span.how.starts_with("exactly what its capture read"),
                "{}",
                l.span.how
            );
            let through = l.span.through_seq.unwrap();
            assert!(
                l.transcript
                    .turns
                    .iter()
                    .all(|t| t.seq <= through && l.span.after_seq.is_none_or(|a| t.seq > a))
            );
            seen.insert((l.span.after_seq, through));
        }
    }
    assert_eq!(seen.len(), 2, "entries of both captures: {seen:?}");
}

#[test]
fn windows_worked_out_for_older_summaries_match_the_recorded_ones() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let rows = |c: &rusqlite::Connection, recorded: i64| {
        let mut stmt = c.prepare(
            "SELECT summary_id, after_seq, through_seq FROM capture_windows
              WHERE recorded = ?1 ORDER BY 1",
        )?;
        stmt.query_map([recorded], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<(String, Option<i64>, i64)>>>()
    };
    let recorded = store.graph().with_conn(|c| rows(c, 1)).unwrap();
    assert!(!recorded.is_empty());
    // What the migration works out from the summaries alone, for a store captured before it.
    let sql = include_str!("../../../../../migrations/13-capture-windows/up.sql");
    let start = sql.find("INSERT INTO capture_windows").unwrap();
    let backfill = &sql[start..=start + sql[start..].find(';').unwrap()];
    let worked_out = store
        .graph()
        .with_conn(|c| {
            c.execute("DELETE FROM capture_windows", [])?;
            c.execute_batch(backfill)?;
            rows(c, 0)
        })
        .unwrap();
    assert_eq!(worked_out, recorded);
}

#[test]
fn a_located_window_names_the_rows_of_the_turns_an_expansion_reads() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let wc = store.log_ids().unwrap().remove(0);
    let mut req = BriefRequest::new(later(), later().date_naive(), Delivery::Preview);
    req.work_context_id = Some(wc);
    let brief = crate::brief::assemble(&store, &req).unwrap();
    let detail = store.graph().assembly(brief.assembly_id).unwrap();
    let mut located = 0;
    for item in &detail.items {
        let source = LineageSource::TraceItem {
            assembly_id: brief.assembly_id,
            ordinal: item.ordinal,
        };
        let Ok(window) = locate_lineage(&store, &source) else {
            assert!(item.session_id.is_none());
            continue;
        };
        let expanded = expand_lineage(&store, &source, 50_000, None).unwrap();
        assert_eq!(window.span.session_id, expanded.span.session_id);
        assert_eq!(
            (
                window.span.after_seq,
                window.span.through_seq,
                window.span.exact
            ),
            (
                expanded.span.after_seq,
                expanded.span.through_seq,
                expanded.span.exact
            )
        );
        let v = &window.view;
        let (first, last) = (v.first_position.unwrap(), v.last_position.unwrap());
        assert_eq!(
            v.turns,
            last - first + 1,
            "the window's rows are contiguous"
        );
        // The rows the viewer pages at those positions are the window's turns, the last of them
        // the one named.
        let page = sessions::turn_page(
            store.graph(),
            window.span.session_id.as_str(),
            first,
            u32::try_from(v.turns).unwrap(),
            false,
            100,
        )
        .unwrap();
        assert_eq!(page.turns.len() as u64, v.turns);
        assert!(
            page.turns
                .iter()
                .all(|t| window.span.after_seq.is_none_or(|a| t.seq > a)
                    && window.span.through_seq.is_none_or(|s| t.seq <= s))
        );
        assert_eq!(
            page.turns.last().map(|t| &t.turn_id),
            v.last_turn_id.as_ref()
        );
        if window.span.exact {
            assert_eq!(page.turns.last().map(|t| t.seq), window.span.through_seq);
        }
        located += 1;
    }
    assert!(located > 0, "no brief line had a transcript behind it");
}

/// Temporal drill-down (CLOSURE §1): from a brief line to its node, the node's linked entries
/// are the ones its capture wrote, the brief lines that cited them include the one we came from,
/// its turns are its window's, and another agent's scope does not find it.
#[test]
fn a_brief_line_drills_down_through_its_node_to_the_entries_briefs_and_turns() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let wc = store.log_ids().unwrap().remove(0);
    let mut req = BriefRequest::new(later(), later().date_naive(), Delivery::Preview);
    req.work_context_id = Some(wc.clone());
    let brief = crate::brief::assemble(&store, &req).unwrap();
    let detail = store.graph().assembly(brief.assembly_id).unwrap();
    let line = detail
        .items
        .iter()
        .find(|i| i.kind == "entry" && i.source_id.is_some())
        .expect("the brief considered an entry");
    let node_id = lineage_node_of(
        &store,
        &LineageSource::TraceItem {
            assembly_id: brief.assembly_id,
            ordinal: line.ordinal,
        },
    )
    .unwrap();
    let drill = drill_down(&store, &node_id, None, 50_000).unwrap();
    assert_eq!(drill.node.kind, LineageNodeKind::SessionSummary);
    assert_eq!(drill.node.work_context_id, wc);
    assert!(
        drill
            .entries
            .iter()
            .any(|e| Some(e.entry_id.as_str()) == line.source_id.as_deref()),
        "the cited entry is among the node's entries"
    );
    assert!(
        drill
            .entries
            .iter()
            .all(|e| e.linked_doc73_session_summary_id.as_deref() == Some(node_id.as_str()))
    );
    assert!(
        drill
            .brief_lines
            .iter()
            .any(|b| b.assembly_id == brief.assembly_id && b.ordinal == line.ordinal),
        "the brief line we came from cites it: {:?}",
        drill.brief_lines
    );
    let turns = drill.transcript.as_ref().unwrap();
    assert!(!turns.transcript.turns.is_empty());
    for t in &turns.transcript.turns {
        assert!(drill.node.after_seq.is_none_or(|a| t.seq > a));
        assert!(t.seq <= drill.node.through_seq.unwrap());
    }
    assert!(
        drill.children.is_empty(),
        "a node over turns has no child nodes"
    );
    for s in &drill.siblings {
        assert_eq!(s.work_context_id, drill.node.work_context_id);
        assert_eq!(s.agent_scope, drill.node.agent_scope);
    }
    // Scoped by agent: the node's own scope finds it, another does not.
    assert!(drill_down(&store, &node_id, Some(&drill.node.agent_scope), 1_000).is_ok());
    assert!(matches!(
        drill_down(&store, &node_id, Some("codex:someone-else"), 1_000),
        Err(Error::NotFound { .. })
    ));
    // An entry and the summary itself resolve to the same node.
    let entry = drill.entries[0].entry_id.clone();
    let via_entry = lineage_node_of(
        &store,
        &LineageSource::Entry {
            entry_id: entry,
            work_context_id: None,
        },
    )
    .unwrap();
    assert_eq!(via_entry, node_id);
    for bad in ["", "../x", "a\u{7}b"] {
        assert!(matches!(
            drill_down(&store, bad, None, 1_000),
            Err(Error::InvalidInput(_))
        ));
    }
    assert!(matches!(
        drill_down(&store, "ss_000000000000_1", None, 1_000),
        Err(Error::NotFound { .. })
    ));
}

/// `drill_down_from` is `lineage_node_of` then `drill_down`, in one call, with the work context
/// named: a brief line and a node id give the same node, and the agent scope still applies.
#[test]
fn a_drill_from_a_source_is_the_drill_of_its_node_with_its_context_named() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    let wc = store.log_ids().unwrap().remove(0);
    let mut req = BriefRequest::new(later(), later().date_naive(), Delivery::Preview);
    req.work_context_id = Some(wc.clone());
    let brief = crate::brief::assemble(&store, &req).unwrap();
    let detail = store.graph().assembly(brief.assembly_id).unwrap();
    let line = detail
        .items
        .iter()
        .find(|i| i.kind == "entry" && i.source_id.is_some())
        .expect("the brief considered an entry");
    let source = LineageSource::TraceItem {
        assembly_id: brief.assembly_id,
        ordinal: line.ordinal,
    };
    let node_id = lineage_node_of(&store, &source).unwrap();
    let from = drill_down_from(&store, &source, None, 5_000).unwrap();
    let direct = drill_down(&store, &node_id, None, 5_000).unwrap();
    assert_eq!(from.drill.node, direct.node);
    assert_eq!(from.drill.siblings, direct.siblings);
    assert_eq!(
        from.work_context_name,
        Some(store.graph().work_context(wc.as_str()).unwrap().name)
    );
    let by_id = drill_down_from(&store, &LineageSource::Node { node_id }, None, 5_000).unwrap();
    assert_eq!(by_id.drill.node, direct.node);
    assert!(matches!(
        drill_down_from(&store, &source, Some("codex:someone-else"), 1_000),
        Err(Error::NotFound { .. })
    ));
}

/// Approving a promotion makes a knowledge node over the summary of the capture that wrote the
/// entry; drilling into it lists the promoted entry and walks down to that summary.
#[test]
fn an_approved_promotion_becomes_a_knowledge_node_over_its_entrys_summary() {
    let (_dir, store) = sample_store();
    // Captured the day after the samples' sessions, so their questions are live three weeks on.
    let captured = crate::base::clock::parse("2026-11-03T00:00:00Z").unwrap();
    capture_all(&store, captured);
    crate::views::lineage::rebuild(&store).unwrap();
    // A decision later sessions restated (capture records each restatement as a reference)
    // is proposed for promotion once enough sessions did.
    let (wc, decision) = store
        .log_ids()
        .unwrap()
        .into_iter()
        .find_map(|wc| {
            let d = store
                .log(&wc)
                .read()
                .unwrap()
                .entries
                .into_iter()
                .find(|e| e.entry_type() == crate::continuity::EntryType::KeyDecision)?;
            Some((wc, d))
        })
        .expect("the samples' captures wrote a decision");
    for session in ["later-1", "later-2", "later-3"] {
        store
            .graph()
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO entry_references VALUES (?1, ?2, ?3, '2026-11-10T00:00:00Z')",
                    rusqlite::params![decision.entry_id.as_str(), wc.as_str(), session],
                )
            })
            .unwrap();
    }
    let at = captured + chrono::Duration::days(17);
    let evaluation = crate::review::promotion::evaluate(&store, at).unwrap();
    let proposal_id = *evaluation
        .proposed
        .first()
        .expect("the restated decision is proposed");
    let entry_id: String = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT entry_id FROM promotion_proposals WHERE proposal_id = ?1",
                [proposal_id],
                |r| r.get(0),
            )
        })
        .unwrap();
    crate::review::promotion::decide(
        &store,
        &[proposal_id],
        &crate::review::promotion::ReviewDecision::Approve { text: None },
        at,
    )
    .unwrap();
    let node_id = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT node_id FROM promotion_proposals WHERE proposal_id = ?1",
                [proposal_id],
                |r| r.get::<_, String>(0),
            )
        })
        .unwrap();
    let drill = drill_down(&store, &node_id, None, 10_000).unwrap();
    assert_eq!(drill.node.kind, LineageNodeKind::Knowledge);
    assert_eq!(drill.node.method, "review");
    assert_eq!(drill.children.len(), 1);
    assert_eq!(drill.children[0].kind, LineageNodeKind::SessionSummary);
    assert_eq!(drill.entries.len(), 1);
    assert_eq!(drill.entries[0].entry_id.as_str(), entry_id);
    assert_eq!(
        drill.entries[0].linked_doc73_session_summary_id.as_deref(),
        Some(drill.children[0].node_id.as_str())
    );
    assert!(
        drill.transcript.is_none(),
        "knowledge is walked down, not read"
    );
    let below = drill_down(&store, &drill.children[0].node_id, None, 10_000).unwrap();
    assert!(below.parents.iter().any(|p| p.node_id == node_id));
    assert!(matches!(
        expand_lineage(
            &store,
            &LineageSource::Node {
                node_id: node_id.clone()
            },
            1_000,
            None
        ),
        Err(Error::InvalidInput(_))
    ));
}

/// Merging two work contexts moves the absorbed one's lineage into the kept one: no node is left
/// scoped to a context that no longer exists, and none is lost.
#[test]
fn merging_contexts_moves_their_lineage_with_them() {
    let (_dir, store) = sample_store();
    capture_all(&store, later());
    crate::views::lineage::rebuild(&store).unwrap();
    let before = crate::views::lineage::counts(&store).unwrap();
    let contexts: Vec<String> = store
        .graph()
        .with_conn(|c| {
            c.prepare("SELECT DISTINCT work_context_id FROM lineage_nodes ORDER BY 1")?
                .query_map([], |r| r.get(0))?
                .collect()
        })
        .unwrap();
    assert!(contexts.len() >= 2, "{contexts:?}");
    let keep = WorkContextId::new(contexts[0].clone()).unwrap();
    let absorb = WorkContextId::new(contexts[1].clone()).unwrap();
    crate::usecase::merge_work_contexts(&store, &keep, &absorb, later()).unwrap();
    let left: i64 = store
        .graph()
        .with_conn(|c| {
            c.query_row(
                "SELECT count(*) FROM lineage_nodes WHERE work_context_id = ?1",
                [absorb.as_str()],
                |r| r.get(0),
            )
        })
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(crate::views::lineage::counts(&store).unwrap(), before);
}
