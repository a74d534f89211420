//! The promotion review queue (CSA §3.3) and the nightly job: `review_list`, `review_get`,
//! `review_approve` / `_reject` / `_defer` (each takes a list of ids, so one command serves a
//! single decision and a batch), `review_evaluate`, `review_count`, `nightly_get` and
//! `nightly_run`; and the Topic membership proposals that collection directives put in the same
//! queue, `memberships_list` and `memberships_decide` (`elnor_engine::decide_memberships`).
//!
//! Nothing durable enters the graph without the person: only `review_approve` writes a node,
//! through the engine's `elnor_engine::decide_proposals`, the one way every adapter decides. A batch decides
//! each proposal on its own and the engine reports the ones that failed beside the ones decided.

use std::collections::BTreeMap;

use chrono::{DateTime, Local, Utc};
use elnor_engine::OsKeyring;
use elnor_engine::Store;
use elnor_engine::{Proposal, ReviewDecision, Rule};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, EvaluationSummary, EvidenceSessionRow, MembershipFailure, MembershipOutcomeRow,
    MembershipProposalRow, NightlyStatus, PendingCount, PromotionRules, ProposalDetail,
    ProposalEvidenceRow, ProposalFailure, ProposalRow, ProposalRule, ProposalStatus, ReviewOutcome,
    ReviewQueue,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::contexts::entry_row;
use super::topics::membership;
use crate::scheduler::{self, Trigger, count, local_offset};
use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

/// The wire's status for the engine's: the same four, so the match is exhaustive and a new one
/// fails to compile here rather than at run time.
fn status(p: &Proposal) -> ProposalStatus {
    match p.status {
        elnor_engine::ProposalStatus::Pending => ProposalStatus::Pending,
        elnor_engine::ProposalStatus::Approved => ProposalStatus::Approved,
        elnor_engine::ProposalStatus::Rejected => ProposalStatus::Rejected,
        elnor_engine::ProposalStatus::Deferred => ProposalStatus::Deferred,
    }
}

/// Work context names, looked up once per reply rather than once per proposal.
pub(crate) type Names = BTreeMap<String, String>;

pub(crate) fn names(store: &Store) -> Result<Names, CommandError> {
    Ok(store
        .graph()
        .work_contexts()
        .map_err(err)?
        .into_iter()
        .map(|wc| (wc.work_context_id.to_string(), wc.name))
        .collect())
}

fn row(p: Proposal, names: &Names) -> Result<ProposalRow, CommandError> {
    let status = status(&p);
    let e = p.evidence;
    Ok(ProposalRow {
        proposal_id: p.proposal_id,
        rule: match p.rule {
            Rule::UnresolvedQuestion => ProposalRule::UnresolvedQuestion,
            Rule::ReferencedDecision => ProposalRule::ReferencedDecision,
        },
        node_kind: p.node_kind.as_str().to_owned(),
        work_context_name: names.get(p.work_context_id.as_str()).cloned(),
        work_context_id: p.work_context_id.to_string(),
        entry_id: p.entry_id.to_string(),
        text: p.text,
        status,
        decision_note: p.decision_note,
        node_id: p.node_id.map(|n| n.to_string()),
        renews: p.renews,
        created_at: p.created_at,
        decided_at: p.decided_at,
        evidence: ProposalEvidenceRow {
            captured_at: e.captured_at.to_rfc3339(),
            age_days: e.age_days,
            sessions: e.sessions.iter().map(ToString::to_string).collect(),
            entity_id: e.entity_id.map(|id| id.to_string()),
            entity_name: e.entity_name,
            deadline: e.deadline,
            because: e.because,
        },
    })
}

/// Everything waiting for the person in the review queue: promotion proposals and Topic
/// membership proposals, which the Review page lists together, so the badge counts both.
fn pending_count(store: &Store) -> Result<u32, CommandError> {
    Ok(count(
        elnor_engine::pending_review_count(store).map_err(err)?,
    ))
}

/// The session behind a proposal, with what the store knows of it. A session whose transcript
/// was never ingested (or came through `elnor log append`) is still listed, by id.
pub(crate) fn evidence_session(
    store: &Store,
    id: &str,
    recorded: bool,
) -> Result<EvidenceSessionRow, CommandError> {
    let bare = EvidenceSessionRow {
        session_id: id.to_owned(),
        recorded,
        ingested: false,
        harness: None,
        title: None,
        started_at: None,
        last_activity_at: None,
    };
    match elnor_engine::session(store.graph(), id) {
        Ok(s) => Ok(EvidenceSessionRow {
            ingested: true,
            harness: Some(s.harness.as_str().to_owned()),
            title: s.title,
            started_at: s.started_at,
            last_activity_at: s.last_activity_at,
            ..bare
        }),
        // Not ingested, or an id the transcript store would never hold: show it as it is.
        Err(elnor_engine::Error::NotFound { .. } | elnor_engine::Error::InvalidInput(_)) => {
            Ok(bare)
        }
        Err(e) => Err(err(e)),
    }
}

fn detail(store: &Store, id: i64) -> Result<ProposalDetail, CommandError> {
    let graph = store.graph();
    let names = names(store)?;
    let p = graph.proposal(id).map_err(err)?;
    let renewed = p
        .renews
        .map(|r| graph.proposal(r).map_err(err).and_then(|r| row(r, &names)))
        .transpose()?;
    // The entry as captured, from its context's log. A log that has since dropped the entry
    // leaves the proposal's own copy of the text.
    let entry = store
        .log(&p.work_context_id)
        .read()
        .map_err(err)?
        .entries
        .iter()
        .find(|e| e.entry_id == p.entry_id)
        .map(|e| entry_row(e, &BTreeMap::new()));
    let recorded_by = entry.as_ref().map(|e| e.source_session_id.clone());
    let sessions = p
        .evidence
        .sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // Without the entry, the engine's order says it: the recording session comes first.
            let recorded = recorded_by.as_deref().map_or(i == 0, |r| s == r);
            evidence_session(store, s, recorded)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ProposalDetail {
        proposal: row(p, &names)?,
        entry,
        sessions,
        renewed,
    })
}

/// The engine's batch decision, as the wire's outcome: what was decided, what could not be and
/// why, and how many proposals are still pending.
fn decide(
    store: &Store,
    ids: &[i64],
    decision: ReviewDecision,
) -> Result<ReviewOutcome, CommandError> {
    let outcome =
        elnor_engine::decide_proposals(store, ids, &decision, elnor_engine::now()).map_err(err)?;
    let names = names(store)?;
    Ok(ReviewOutcome {
        decided: outcome
            .decided
            .into_iter()
            .map(|p| row(p, &names))
            .collect::<Result<_, _>>()?,
        failed: outcome
            .failed
            .into_iter()
            .map(|f| ProposalFailure {
                proposal_id: f.proposal_id,
                message: f.error.to_string(),
            })
            .collect(),
        pending: pending_count(store)?,
    })
}

#[tauri::command]
pub async fn review_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReviewList>,
) -> ReplyOf<cmd::ReviewList> {
    let store = state.store()?;
    blocking(move || {
        let names = names(&store)?;
        let list = store.graph().proposals(request.all).map_err(err)?;
        let (pending, deferred) = list.iter().fold((0, 0), |(p, d), x| match x.status {
            elnor_engine::ProposalStatus::Pending => (p + 1, d),
            elnor_engine::ProposalStatus::Deferred => (p, d + 1),
            _ => (p, d),
        });
        // The queue still shows when the config is broken; only the thresholds are missing.
        let (rules, config_error) = match store.config() {
            Ok(c) => (
                Some(PromotionRules {
                    question_days: c.promotion_question_days,
                    decision_sessions: c.promotion_decision_sessions,
                    nightly_hour: c.nightly_hour,
                }),
                None,
            ),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(ReviewQueue {
            proposals: list
                .into_iter()
                .map(|p| row(p, &names))
                .collect::<Result<_, _>>()?,
            pending,
            deferred,
            rules,
            config_error,
        })
    })
    .await
}

#[tauri::command]
pub async fn review_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReviewGet>,
) -> ReplyOf<cmd::ReviewGet> {
    let store = state.store()?;
    blocking(move || detail(&store, request.proposal_id)).await
}

#[tauri::command]
pub async fn review_approve(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReviewApprove>,
) -> ReplyOf<cmd::ReviewApprove> {
    let store = state.store()?;
    let decision = ReviewDecision::Approve { text: request.text };
    blocking(move || decide(&store, &request.proposal_ids, decision)).await
}

#[tauri::command]
pub async fn review_reject(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReviewReject>,
) -> ReplyOf<cmd::ReviewReject> {
    let store = state.store()?;
    let decision = ReviewDecision::Reject {
        reason: request.reason,
    };
    blocking(move || decide(&store, &request.proposal_ids, decision)).await
}

#[tauri::command]
pub async fn review_defer(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ReviewDefer>,
) -> ReplyOf<cmd::ReviewDefer> {
    let store = state.store()?;
    blocking(move || decide(&store, &request.proposal_ids, ReviewDecision::Defer)).await
}

#[tauri::command]
pub async fn review_evaluate(state: State<'_, AppState>) -> ReplyOf<cmd::ReviewEvaluate> {
    let store = state.store()?;
    blocking(move || {
        let e = elnor_engine::evaluate_promotions(&store, elnor_engine::now()).map_err(err)?;
        Ok(EvaluationSummary {
            proposed: count(e.proposed.len()),
            renewed: count(e.renewed.len()),
            already_known: count(e.already_known),
            pending: pending_count(&store)?,
        })
    })
    .await
}

#[tauri::command]
pub async fn memberships_list(state: State<'_, AppState>) -> ReplyOf<cmd::MembershipsList> {
    let store = state.store()?;
    blocking(move || {
        let list = elnor_engine::membership_proposals(&store).map_err(err)?;
        Ok(list
            .into_iter()
            .map(|p| MembershipProposalRow {
                membership: membership(p.membership),
                topic_name: p.topic_name,
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn memberships_decide(
    state: State<'_, AppState>,
    request: RequestOf<cmd::MembershipsDecide>,
) -> ReplyOf<cmd::MembershipsDecide> {
    let store = state.store()?;
    blocking(move || {
        let outcome = elnor_engine::decide_memberships(
            &store,
            &request.membership_ids,
            request.approve,
            elnor_engine::now(),
        )
        .map_err(err)?;
        Ok(MembershipOutcomeRow {
            decided: outcome.decided.into_iter().map(membership).collect(),
            failed: outcome
                .failed
                .into_iter()
                .map(|(membership_id, e)| MembershipFailure {
                    membership_id,
                    message: e.to_string(),
                })
                .collect(),
        })
    })
    .await
}

#[tauri::command]
pub async fn review_count(state: State<'_, AppState>) -> ReplyOf<cmd::ReviewCount> {
    let store = state.store()?;
    blocking(move || {
        Ok(PendingCount {
            pending: pending_count(&store)?,
        })
    })
    .await
}

fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).to_rfc3339()
}

#[tauri::command]
pub async fn nightly_get(state: State<'_, AppState>) -> ReplyOf<cmd::NightlyGet> {
    let store = state.store()?;
    let handle = state.nightly_handle();
    blocking(move || {
        let now = elnor_engine::now();
        let last = elnor_engine::nightly_last_run(&store).map_err(err)?;
        let (hour, due, next) = match store.config() {
            Ok(c) => {
                let offset = local_offset();
                let due = elnor_engine::nightly_is_due(last, now, c.nightly_hour, offset);
                let next = if due {
                    now
                } else {
                    elnor_engine::nightly_next_scheduled(now, c.nightly_hour, offset)
                };
                (Some(c.nightly_hour), due, Some(local(next)))
            }
            Err(_) => (None, false, None),
        };
        let research = elnor_engine::latest_utility(&store)
            .map_err(err)?
            .map(|u| scheduler::research_row(&u));
        let s = handle.lock().unwrap_or_else(|e| e.into_inner());
        Ok(NightlyStatus {
            last_run: last.map(local),
            next_run: next,
            due,
            running: s.running,
            nightly_hour: hour,
            last_error: s.last_error.clone(),
            last_report: s.last_report.clone(),
            research,
        })
    })
    .await
}

#[tauri::command]
pub async fn nightly_run(state: State<'_, AppState>) -> ReplyOf<cmd::NightlyRun> {
    let store = state.store()?;
    let (nightly, agent) = (state.nightly_handle(), state.agent_handle());
    blocking(move || {
        scheduler::run(
            &store,
            &OsKeyring::new(),
            &nightly,
            &agent,
            Trigger::Manual,
            elnor_engine::now(),
        )
    })
    .await
}
