use super::*;
use crate::base::ids::WorkContextId;
use crate::graph::entities::EntityEdit;
use crate::test_support::promotion::{reference, t0, world};

#[test]
fn the_question_rule_fires_at_fourteen_days_and_not_before() {
    let w = world();
    let just_before = t0() + Duration::days(14) - Duration::seconds(1);
    assert!(evaluate(&w.store, just_before).unwrap().proposed.is_empty());
    let at = evaluate(&w.store, t0() + Duration::days(14)).unwrap();
    assert_eq!(at.proposed.len(), 1);
    let p = w.store.graph().proposal(at.proposed[0]).unwrap();
    assert_eq!(
        (p.rule, p.node_kind.as_str(), p.status.as_str()),
        (Rule::UnresolvedQuestion, "obligation", "pending")
    );
    assert_eq!(p.entry_id, w.question.entry_id.as_str());
    assert_eq!(
        p.evidence.deadline.as_deref(),
        Some("2026-12-15T23:59:59.000000Z")
    );
    assert_eq!(p.evidence.sessions, vec!["s1"]);
    assert_eq!(
        p.evidence.because,
        "unresolved for 14 day(s) (rule: 14 or more) and linked to Christensen report, due 2026-12-15"
    );
    // Idempotent: a second run proposes nothing.
    let again = evaluate(&w.store, t0() + Duration::days(15)).unwrap();
    assert_eq!((again.proposed.len(), again.already_known), (0, 1));
    // Approved, the obligation is a "Due" line of its context's next brief.
    let later = t0() + Duration::days(15);
    w.store
        .graph()
        .approve_proposal(p.proposal_id, None, later)
        .unwrap();
    let mut req =
        crate::brief::BriefRequest::new(later, later.date_naive(), crate::brief::Delivery::Preview);
    req.work_context_id = Some(WorkContextId::new("henderson").unwrap());
    let brief = crate::brief::assemble(&w.store, &req).unwrap();
    let due = brief
        .trace
        .iter()
        .find(|t| t.kind == "node")
        .expect("the obligation is a candidate");
    assert_eq!(
        due.text,
        "Due 2026-12-15: When does Christensen deliver the event study data?"
    );
}

#[test]
fn the_decision_rule_fires_at_three_sessions_and_approval_writes_the_node() {
    let w = world();
    let now = t0() + Duration::days(2);
    reference(&w, "s2", t0() + Duration::days(1));
    // Two sessions: not yet (and the question is too young).
    assert!(evaluate(&w.store, now).unwrap().proposed.is_empty());
    reference(&w, "s3", t0() + Duration::days(2));
    let e = evaluate(&w.store, now).unwrap();
    assert_eq!(e.proposed.len(), 1);
    let g = w.store.graph();
    let p = g.proposal(e.proposed[0]).unwrap();
    assert_eq!(
        (p.rule, p.evidence.sessions.len()),
        (Rule::ReferencedDecision, 3)
    );

    let approved = g
        .approve_proposal(p.proposal_id, Some("Lead with price impact."), now)
        .unwrap();
    assert_eq!(approved.status, "approved");
    assert_eq!(
        approved.decision_note.as_deref(),
        Some("approved with an edit")
    );
    let node = approved.node_id.clone().unwrap();
    let (text, state, warrant): (String, String, String) = g
        .with_conn(|c| {
            c.query_row(
                "SELECT text, lifecycle_state, use_warrant FROM memory_directives WHERE directive_id = ?1",
                [&node],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
        })
        .unwrap();
    assert_eq!(
        (text.as_str(), state.as_str(), warrant.as_str()),
        ("Lead with price impact.", "active", "assert")
    );
    let provenance: Vec<(String, String)> = g
        .with_conn(|c| {
            let mut s = c.prepare("SELECT source_kind, source_ref FROM provenance WHERE node_id = ?1 ORDER BY provenance_id")?;
            s.query_map([&node], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
        })
        .unwrap();
    assert_eq!(provenance.len(), 5, "{provenance:?}");
    assert!(provenance.contains(&("continuity_entry".into(), w.decision.entry_id.to_string())));
    // The entry is promoted: no second proposal, and a second decision is refused.
    assert!(evaluate(&w.store, now).unwrap().proposed.is_empty());
    assert!(g.approve_proposal(p.proposal_id, None, now).is_err());
    // The approved directive is in Tier 3 of the next brief.
    let brief = crate::brief::assemble(
        &w.store,
        &crate::brief::BriefRequest::new(now, now.date_naive(), crate::brief::Delivery::Preview),
    )
    .unwrap();
    let tier3 = brief.card(3).expect("Tier 3");
    assert!(
        tier3
            .items
            .iter()
            .any(|i| i.kind == "directive" && i.text == "Lead with price impact.")
    );
}

#[test]
fn a_rejection_is_remembered_until_new_evidence_arrives() {
    let w = world();
    let now = t0() + Duration::days(20);
    let first = evaluate(&w.store, now).unwrap().proposed[0];
    let g = w.store.graph();
    g.reject_proposal(first, Some("Christensen already confirmed the date"), now)
        .unwrap();
    assert!(evaluate(&w.store, now).unwrap().proposed.is_empty());
    assert!(g.proposals(false).unwrap().is_empty(), "the queue is empty");
    // The deadline moves: new evidence, so the proposal comes back and says what it renews.
    g.edit_entity(
        &w.entity,
        &EntityEdit {
            deadline: Some(Some("2026-12-01".into())),
            ..Default::default()
        },
        now,
    )
    .unwrap();
    let again = evaluate(&w.store, now).unwrap();
    assert_eq!(again.renewed.len(), 1);
    let p = g.proposal(again.proposed[0]).unwrap();
    assert_eq!(
        (p.renews, p.evidence.deadline.as_deref()),
        (Some(first), Some("2026-12-01T23:59:59.000000Z"))
    );
    // Deferred proposals stay in the queue, after pending ones.
    g.defer_proposal(p.proposal_id, now).unwrap();
    let queue = g.proposals(false).unwrap();
    assert_eq!((queue.len(), queue[0].status.as_str()), (1, "deferred"));
    assert_eq!(g.proposals(true).unwrap().len(), 2);
}

/// The one way adapters decide: each proposal on its own, failures reported beside the ones
/// decided; an empty choice or one wording for several proposals refused as a whole.
#[test]
fn a_batch_decision_decides_each_and_reports_each_failure() {
    let w = world();
    let now = t0() + Duration::days(20);
    let id = evaluate(&w.store, now).unwrap().proposed[0];
    let refused =
        |ids: &[i64], d: ReviewDecision| decide(&w.store, ids, &d, now).unwrap_err().to_string();
    assert_eq!(refused(&[], ReviewDecision::Defer), "no proposal chosen");
    assert_eq!(
        refused(
            &[id, 999],
            ReviewDecision::Approve {
                text: Some("Chase Christensen".into())
            }
        ),
        "an edited text rewords one proposal; approve the others separately"
    );
    let out = decide(
        &w.store,
        &[999, id],
        &ReviewDecision::Approve { text: None },
        now,
    )
    .unwrap();
    assert_eq!(
        out.decided.len(),
        1,
        "the unknown id does not stop the other"
    );
    assert_eq!(
        (out.decided[0].proposal_id, out.decided[0].status.as_str()),
        (id, "approved")
    );
    assert!(out.decided[0].node_id.is_some(), "approval wrote the node");
    assert_eq!(
        out.failed
            .iter()
            .map(|f| (f.proposal_id, f.error.kind()))
            .collect::<Vec<_>>(),
        [(999, crate::ErrorKind::InvalidInput)]
    );
    // A decided proposal cannot be decided again: a failure, not a panic, and nothing changes.
    let again = decide(
        &w.store,
        &[id],
        &ReviewDecision::Reject {
            reason: Some("  ".into()),
        },
        now,
    )
    .unwrap();
    assert_eq!((again.decided.len(), again.failed.len()), (0, 1));
    assert_eq!(w.store.graph().proposal(id).unwrap().status, "approved");
}
