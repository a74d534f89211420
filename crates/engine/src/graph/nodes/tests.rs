use super::*;
use crate::brief::{self, BriefRequest, Delivery, TraceItem};
// The person's changes and the sweep as the adapters and the nightly job run them: with the views
// that show the node rebuilt, so the briefs below see the result.
use crate::base::ids::{SessionId, WorkContextId};
use crate::continuity::{ContinuityEntry, EntryContent, KeyDecisionContent, OpenQuestionContent};
use crate::review::promotion::evaluate;
use crate::test_support::promotion::{World, reference, t0, world};
use crate::usecase::{change_node as change, sweep_nodes as sweep};

/// The world with its key decision restated by two more sessions and the resulting directive
/// approved at `t0 + 2 days`; returns the directive's id.
fn approved_directive(w: &World) -> String {
    reference(w, "s2", t0() + Duration::days(1));
    reference(w, "s3", t0() + Duration::days(2));
    let at = t0() + Duration::days(2);
    let id = evaluate(&w.store, at).unwrap().proposed[0];
    crate::review::promotion::approve(&w.store, id, None, at)
        .unwrap()
        .node_id
        .unwrap()
        .to_string()
}

/// The world's question promoted to an obligation, approved at `t0 + 14 days`.
fn approved_obligation(w: &World) -> String {
    let at = t0() + Duration::days(14);
    let id = evaluate(&w.store, at).unwrap().proposed[0];
    crate::review::promotion::approve(&w.store, id, None, at)
        .unwrap()
        .node_id
        .unwrap()
        .to_string()
}

/// Every trace item of a preview brief for `henderson` at `now` about `node`.
fn traced(w: &World, node: &str, now: DateTime<Utc>) -> Vec<TraceItem> {
    let mut req = BriefRequest::new(now, now.date_naive(), Delivery::Preview);
    req.work_context_id = Some(WorkContextId::new("henderson").unwrap());
    brief::assemble(&w.store, &req)
        .unwrap()
        .trace
        .into_iter()
        .filter(|t| t.source_id.as_deref() == Some(node))
        .collect()
}

fn one(items: &[TraceItem]) -> (&str, &str, &str, &str) {
    assert_eq!(items.len(), 1, "{items:#?}");
    let t = &items[0];
    (
        t.text.as_str(),
        t.decision.as_str(),
        t.reason.as_str(),
        t.detail.as_str(),
    )
}

fn append(w: &World, session: &str, at: DateTime<Utc>, content: EntryContent) {
    let config = w.store.config().unwrap();
    let wc = WorkContextId::new("henderson").unwrap();
    let e = ContinuityEntry::new(
        wc.clone(),
        SessionId::new(session).unwrap(),
        at,
        crate::continuity::CaptureMode::LlmEnriched,
        content,
        &config,
    );
    w.store.log(&wc).append(&e).unwrap();
}

fn state(w: &World, id: &str) -> (Lifecycle, Staleness, Warrant) {
    let n = w.store.graph().node(id).unwrap().node;
    (n.lifecycle, n.staleness, n.warrant)
}

#[test]
fn decay_walks_the_ladder_a_rung_per_step_and_the_person_restores_it() {
    let w = world();
    let md = approved_directive(&w);
    // The decision was restated and approved on day 2; its TTL is 60 days, so it decays on day 62.
    let day = |d| t0() + Duration::days(d);
    assert!(
        sweep(&w.store, day(62) - Duration::seconds(1))
            .unwrap()
            .degraded
            .is_empty()
    );
    let s = sweep(&w.store, day(62)).unwrap();
    assert_eq!((s.checked, s.degraded.len()), (1, 1));
    assert_eq!(
        state(&w, &md),
        (Lifecycle::Active, Staleness::StalePossible, Warrant::Hedge)
    );
    // Idempotent: the same instant, or later within the step, changes nothing.
    assert!(sweep(&w.store, day(62)).unwrap().degraded.is_empty());
    assert!(sweep(&w.store, day(91)).unwrap().degraded.is_empty());
    // The brief hedges it, and the inspector says why.
    assert_eq!(
        one(&traced(&w, &md, day(63))),
        (
            "(possibly outdated) Lead with price impact, not corrective disclosure.",
            "included",
            "within_budget",
            "fits the Tier 3 card and the total budget; shown at warrant hedge: its sources \
             decayed on 2027-01-02 and nobody has confirmed it since"
        )
    );
    // One more rung per 30 days, down to search_only and no further.
    sweep(&w.store, day(92)).unwrap();
    assert_eq!(state(&w, &md).2, Warrant::VerifyBeforeUse);
    assert_eq!(state(&w, &md).1, Staleness::VerificationRequired);
    sweep(&w.store, day(400)).unwrap();
    assert_eq!(state(&w, &md).2, Warrant::SearchOnly);
    let items = traced(&w, &md, day(400));
    let (_, decision, reason, detail) = one(&items);
    assert_eq!((decision, reason), ("excluded", "warrant"));
    assert!(
        detail.starts_with("use warrant search_only: its sources decayed"),
        "{detail}"
    );
    // The person confirms it: asserted again, and the decay clock restarts from today.
    change(&w.store, &md, Change::Confirm, day(400)).unwrap();
    assert_eq!(
        state(&w, &md),
        (Lifecycle::Confirmed, Staleness::Fresh, Warrant::Assert)
    );
    assert!(sweep(&w.store, day(459)).unwrap().degraded.is_empty());
    assert_eq!(sweep(&w.store, day(460)).unwrap().degraded.len(), 1);
    let actions: Vec<String> = w
        .store
        .graph()
        .node(&md)
        .unwrap()
        .history
        .into_iter()
        .map(|h| h.action)
        .collect();
    assert_eq!(
        actions,
        [
            "approved",
            "degraded",
            "degraded",
            "degraded",
            "confirmed",
            "degraded"
        ]
    );
}

#[test]
fn a_contrary_entry_contests_the_node_and_a_correction_restores_it() {
    let w = world();
    let md = approved_directive(&w);
    let now = t0() + Duration::days(5);
    // A later session supersedes the decision in the log.
    append(
        &w,
        "s4",
        t0() + Duration::days(4),
        EntryContent::KeyDecision(KeyDecisionContent {
            decision: "Lead with price impact, not corrective disclosure.".into(),
            rationale: None,
            superseded_by: Some(crate::base::ids::EntryId::new("ce_later").unwrap()),
        }),
    );
    let s = sweep(&w.store, now).unwrap();
    assert_eq!(s.degraded.len(), 1);
    assert_eq!(
        state(&w, &md),
        (
            Lifecycle::Contested,
            Staleness::SourceChanged,
            Warrant::OrientationOnly
        )
    );
    assert!(sweep(&w.store, now).unwrap().degraded.is_empty());
    let items = traced(&w, &md, now);
    let (text, decision, _, detail) = one(&items);
    assert_eq!(
        (text, decision),
        (
            "(orientation only) Lead with price impact, not corrective disclosure.",
            "included"
        )
    );
    assert!(detail.ends_with("the decision it came from was superseded by ce_later"));
    // The person corrects the text: their word restores it, the old text stays in history.
    let edited = change(
        &w.store,
        &md,
        Change::Edit("Lead with price impact; keep corrective disclosure as backup.".into()),
        now,
    )
    .unwrap();
    assert_eq!(
        (edited.lifecycle, edited.warrant, edited.text.as_str()),
        (
            Lifecycle::Active,
            Warrant::Assert,
            "Lead with price impact; keep corrective disclosure as backup."
        )
    );
    let last = w.store.graph().node(&md).unwrap().history.pop().unwrap();
    assert_eq!(
        (last.action.as_str(), last.note.as_deref()),
        (
            "edited",
            Some("was: Lead with price impact, not corrective disclosure.")
        )
    );
    assert_eq!(
        one(&traced(&w, &md, now)).0,
        "Lead with price impact; keep corrective disclosure as backup."
    );
}

#[test]
fn a_resolved_question_or_a_passed_due_date_hedges_the_obligation() {
    let w = world();
    let ob = approved_obligation(&w);
    let day = |d| t0() + Duration::days(d);
    assert!(sweep(&w.store, day(15)).unwrap().degraded.is_empty());
    // The deadline (2026-12-15, end of day) passes.
    sweep(&w.store, day(45)).unwrap();
    assert_eq!(
        state(&w, &ob),
        (Lifecycle::Active, Staleness::StalePossible, Warrant::Hedge)
    );
    assert_eq!(
        one(&traced(&w, &ob, day(45))).0,
        "(possibly outdated) Due 2026-12-15: When does Christensen deliver the event study data?"
    );
    // Then the question is resolved in the log: contested, verify before use.
    append(
        &w,
        "s5",
        day(46),
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: "When does Christensen deliver the event study data?".into(),
            context: String::new(),
            resolved: true,
            resolved_at: Some(day(46)),
            resolution_summary: Some("delivered".into()),
        }),
    );
    sweep(&w.store, day(47)).unwrap();
    let n = w.store.graph().node(&ob).unwrap().node;
    assert_eq!(
        (n.lifecycle, n.staleness, n.warrant),
        (
            Lifecycle::Contested,
            Staleness::SourceChanged,
            Warrant::VerifyBeforeUse
        )
    );
    assert_eq!(
        n.warrant_reason.as_deref(),
        Some("the question it came from was marked resolved on 2026-12-17")
    );
}

#[test]
fn retire_and_supersede_keep_history_and_leave_the_brief_with_a_reason() {
    let w = world();
    let md = approved_directive(&w);
    let ob = approved_obligation(&w);
    let g = w.store.graph();
    let now = t0() + Duration::days(15);
    assert_eq!(g.nodes(false).unwrap().len(), 2);

    let retired = change(
        &w.store,
        &md,
        Change::Retire(Some("we changed strategy".into())),
        now,
    )
    .unwrap();
    assert_eq!(
        (retired.lifecycle, retired.warrant),
        (Lifecycle::Retired, Warrant::DoNotInject)
    );
    let items = traced(&w, &md, now);
    let (_, decision, reason, detail) = one(&items);
    assert_eq!(
        (decision, reason, detail),
        (
            "excluded",
            "retired",
            "retired on 2026-11-16: we changed strategy"
        )
    );
    // Nothing is deleted: the node and its provenance stay; changing it is refused.
    assert_eq!(g.nodes(false).unwrap().len(), 1);
    assert_eq!(g.nodes(true).unwrap().len(), 2);
    assert!(!g.node(&md).unwrap().provenance.is_empty());
    let err = change(&w.store, &md, Change::Edit("again".into()), now)
        .unwrap_err()
        .to_string();
    assert!(err.contains("is retired; it cannot be edited"), "{err}");

    let new = change(
        &w.store,
        &ob,
        Change::Supersede("Chase Christensen for the event study data by Dec 10.".into()),
        now,
    )
    .unwrap();
    assert!(new.node_id.as_str().starts_with("ob_"));
    assert_eq!(
        (
            new.lifecycle,
            new.due_at.as_deref(),
            new.work_context_id.as_deref()
        ),
        (
            Lifecycle::Active,
            Some("2026-12-15T23:59:59.000000Z"),
            Some("henderson")
        )
    );
    let old = g.node(&ob).unwrap();
    assert_eq!(
        (old.node.lifecycle, old.node.superseded_by.as_ref()),
        (Lifecycle::Superseded, Some(&new.node_id))
    );
    assert_eq!(old.history.last().unwrap().action, "superseded");
    let new_detail = g.node(new.node_id.as_str()).unwrap();
    assert_eq!(
        (
            new_detail.provenance[0].source_kind.as_str(),
            new_detail.provenance[0].source_ref.as_str()
        ),
        ("supersedes", ob.as_str())
    );
    // The brief shows the successor and says why the old one left.
    let items = traced(&w, &ob, now);
    let (_, decision, reason, detail) = one(&items);
    assert_eq!((decision, reason), ("excluded", "retired"));
    assert!(
        detail.starts_with("superseded on 2026-11-16: superseded by ob_"),
        "{detail}"
    );
    assert_eq!(
        one(&traced(&w, new.node_id.as_str(), now)).0,
        "Due 2026-12-15: Chase Christensen for the event study data by Dec 10."
    );
    // After the trace window the retired nodes are no longer candidates at all.
    assert!(traced(&w, &md, now + Duration::days(EXCLUDED_TRACE_DAYS + 1)).is_empty());
}

#[test]
fn bad_input_is_refused_with_a_clear_error() {
    let w = world();
    let md = approved_directive(&w);
    let g = w.store.graph();
    let now = t0() + Duration::days(3);
    assert!(matches!(
        g.node("md_missing").unwrap_err(),
        Error::NotFound { .. }
    ));
    let err = change(&w.store, &md, Change::Edit("  \n ".into()), now)
        .unwrap_err()
        .to_string();
    assert!(err.contains("must not be empty"), "{err}");
    let err = "maybe".parse::<Warrant>().unwrap_err().to_string();
    assert!(
        err.contains("unknown use warrant `maybe`; one of: assert, hedge"),
        "{err}"
    );
    // A warrant set by the person is kept with their reason.
    let n = change(
        &w.store,
        &md,
        Change::Warrant(Warrant::Hedge, Some("not sure the client agrees".into())),
        now,
    )
    .unwrap();
    assert_eq!(
        (n.warrant, n.warrant_reason.as_deref()),
        (Warrant::Hedge, Some("not sure the client agrees"))
    );
}
