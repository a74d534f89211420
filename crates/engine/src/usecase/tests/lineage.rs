//! Lineage expansion over the project's own samples: every captured entry, every brief line with
//! a transcript behind it and every turn expands to turns of its own session, inside its window;
//! what has no transcript says so.

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
            assert_eq!(lineage.session_id, entry.source_session_id);
            assert_eq!(lineage.work_context_id.as_ref(), Some(&wc));
            assert!(!lineage.exact, "an entry's window is found by time");
            let through = lineage
                .through_seq
                .expect("a captured session has timed turns");
            assert!(
                !lineage.transcript.turns.is_empty(),
                "{}: no turns",
                lineage.source
            );
            for t in &lineage.transcript.turns {
                assert!(t.seq <= through);
                assert!(lineage.after_seq.is_none_or(|a| t.seq > a));
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
                assert!(l.source.starts_with("brief line"), "{}", l.source);
                assert!(
                    l.transcript
                        .turns
                        .iter()
                        .all(|t| l.through_seq.is_none_or(|s| t.seq <= s))
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
    let _ = without;
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
    assert!(small.exact);
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
        assert_eq!(window.session_id, expanded.session_id);
        assert_eq!(
            (window.after_seq, window.through_seq, window.exact),
            (expanded.after_seq, expanded.through_seq, expanded.exact)
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
            window.session_id.as_str(),
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
                .all(|t| window.after_seq.is_none_or(|a| t.seq > a)
                    && window.through_seq.is_none_or(|s| t.seq <= s))
        );
        assert_eq!(
            page.turns.last().map(|t| &t.turn_id),
            v.last_turn_id.as_ref()
        );
        if window.exact {
            assert_eq!(page.turns.last().map(|t| t.seq), window.through_seq);
        }
        located += 1;
    }
    assert!(located > 0, "no brief line had a transcript behind it");
}
