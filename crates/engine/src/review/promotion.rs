//! Promotion (CSA §3.3, concept model §4): the nightly job proposes durable graph nodes from the
//! continuity logs, and nothing durable enters the graph without the person's decision.
//!
//! Two rules, thresholds in the config: an open question unresolved for `promotion_question_days`
//! (14) and linked to an entity with a deadline becomes a proposed `obligation`; a key decision
//! stated in `promotion_decision_sessions` (3) or more sessions becomes a proposed
//! `memory_directive`. A proposal carries its evidence (entry, sessions, counts, deadline) and an
//! evidence key: evaluating again proposes nothing twice, and a rejected proposal comes back only
//! when its evidence key changes, saying what it renews.
//!
//! Only approval writes the graph: the node with lifecycle `active`, staleness `fresh` and warrant
//! `assert` (the person's approval is what it rests on; [`crate::graph::nodes`] owns what happens to it
//! next), provenance back to the entry, its sessions and the proposal, the entry's
//! promotion record, and a history row. All time is passed in.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, EntryId, NodeId, SessionId, WorkContextId};
use crate::continuity::EntryContent;
use crate::graph::Graph;
use crate::graph::entities::ts;
use crate::graph::nodes::NodeKind;
use crate::graph::store::Store;

/// The warrant reason of a node as approved: the person's decision is what it rests on.
const APPROVED: &str = "approved by the person in the review queue";

/// Which rule made a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    UnresolvedQuestion,
    ReferencedDecision,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::UnresolvedQuestion => "unresolved_question",
            Rule::ReferencedDecision => "referenced_decision",
        }
    }

    /// The kind of node an approval of this rule's proposals writes.
    pub fn node_kind(self) -> NodeKind {
        match self {
            Rule::UnresolvedQuestion => NodeKind::Obligation,
            Rule::ReferencedDecision => NodeKind::MemoryDirective,
        }
    }

    fn parse(s: &str) -> Rule {
        if s == "referenced_decision" {
            Rule::ReferencedDecision
        } else {
            Rule::UnresolvedQuestion
        }
    }

    /// A rule by its exact name (sync reads another device's), `None` for a name it does not know.
    pub(crate) fn from_name(s: &str) -> Option<Rule> {
        [Rule::UnresolvedQuestion, Rule::ReferencedDecision]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// What a proposal rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// When the entry was first captured.
    pub captured_at: DateTime<Utc>,
    /// Every session that recorded or restated it, oldest first.
    pub sessions: Vec<SessionId>,
    /// Days since it was captured, at evaluation.
    pub age_days: i64,
    /// The entity and deadline behind a proposed obligation.
    pub entity_id: Option<EntityId>,
    pub entity_name: Option<String>,
    pub deadline: Option<String>,
    /// The rule's threshold and what the evidence reached, in words.
    pub because: String,
}

/// Where a proposal stands in the review queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    Pending,
    Approved,
    Rejected,
    Deferred,
}

impl ProposalStatus {
    /// The name stored in the graph and shown in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Approved => "approved",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Deferred => "deferred",
        }
    }

    fn parse(s: &str) -> Option<ProposalStatus> {
        [
            ProposalStatus::Pending,
            ProposalStatus::Approved,
            ProposalStatus::Rejected,
            ProposalStatus::Deferred,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
    }

    /// Whether the person can still decide it: pending or deferred.
    pub fn is_open(self) -> bool {
        matches!(self, ProposalStatus::Pending | ProposalStatus::Deferred)
    }
}

impl std::fmt::Display for ProposalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ProposalStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One proposal, pending or decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    pub proposal_id: i64,
    pub rule: Rule,
    pub node_kind: NodeKind,
    pub work_context_id: WorkContextId,
    pub entry_id: EntryId,
    pub text: String,
    pub evidence: Evidence,
    pub status: ProposalStatus,
    pub decision_note: Option<String>,
    pub node_id: Option<NodeId>,
    /// The rejected proposal this one renews with new evidence.
    pub renews: Option<i64>,
    pub created_at: String,
    pub decided_at: Option<String>,
}

/// What one evaluation did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    /// New proposals (including renewals).
    pub proposed: Vec<i64>,
    /// Of those, renewals of rejected proposals.
    pub renewed: Vec<i64>,
    /// Candidates that already have a proposal for the same evidence.
    pub already_known: usize,
}

fn evidence_key(e: &Evidence) -> String {
    let text = format!(
        "{}|{}|{}",
        e.sessions
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(","),
        e.entity_id.as_deref().unwrap_or(""),
        e.deadline.as_deref().unwrap_or("")
    );
    let d = Sha256::digest(text.as_bytes());
    d[..8].iter().map(|b| format!("{b:02x}")).collect()
}

struct Candidate {
    rule: Rule,
    work_context_id: String,
    entry_id: String,
    text: String,
    evidence: Evidence,
}

/// What the person decides about proposals in the review queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewDecision {
    /// Approve, optionally in the person's own words (one proposal at a time).
    Approve { text: Option<String> },
    /// Reject, with an optional reason; the proposal returns only with new evidence.
    Reject { reason: Option<String> },
    /// Put aside: it stays in the queue, after the pending ones.
    Defer,
}

/// A proposal a batch decision could not apply, and why.
#[derive(Debug)]
pub struct ReviewFailure {
    pub proposal_id: i64,
    pub error: Error,
}

/// What a batch decision did: every proposal it decided, and every one it could not.
#[derive(Debug, Default)]
pub struct ReviewOutcome {
    pub decided: Vec<Proposal>,
    pub failed: Vec<ReviewFailure>,
}

/// Applies one decision to each proposal in `ids`: the one way every adapter (CLI, app, MCP)
/// decides. A failure on one proposal (already decided, unknown) is reported with it and does not
/// stop the others. Refused as a whole: no proposal chosen, or one edited text for several
/// proposals (the wording belongs to one of them).
pub fn decide(
    store: &Store,
    ids: &[i64],
    decision: &ReviewDecision,
    now: DateTime<Utc>,
) -> Result<ReviewOutcome> {
    if ids.is_empty() {
        return Err(Error::InvalidInput("no proposal chosen".to_owned()));
    }
    let text = match decision {
        ReviewDecision::Approve { text } => {
            text.as_deref().map(str::trim).filter(|t| !t.is_empty())
        }
        _ => None,
    };
    if text.is_some() && ids.len() > 1 {
        return Err(Error::InvalidInput(
            "an edited text rewords one proposal; approve the others separately".to_owned(),
        ));
    }
    let graph = store.graph();
    let mut outcome = ReviewOutcome::default();
    for &id in ids {
        let result = match decision {
            ReviewDecision::Approve { .. } => approve(store, id, text, now),
            ReviewDecision::Reject { reason } => {
                let reason = reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
                graph.reject_proposal(id, reason, now)
            }
            ReviewDecision::Defer => graph.defer_proposal(id, now),
        };
        let result = result.and_then(|p| {
            graph.record_change(review_change(&p, text), now)?;
            Ok(p)
        });
        match result {
            Ok(p) => outcome.decided.push(p),
            Err(error) => outcome.failed.push(ReviewFailure {
                proposal_id: id,
                error,
            }),
        }
    }
    Ok(outcome)
}

/// A decision as a change that travels to the person's other devices: the proposal is named by
/// its entry and rule (its number is this device's), and carries what another device needs to
/// make it if its own nightly job has not yet.
fn review_change(p: &Proposal, text: Option<&str>) -> crate::graph::sync::GraphChange {
    crate::graph::sync::GraphChange::ReviewDecided {
        entry_id: p.entry_id.to_string(),
        rule: p.rule.as_str().to_owned(),
        work_context: p.work_context_id.to_string(),
        text: p.text.clone(),
        evidence: serde_json::to_value(&p.evidence).unwrap_or_default(),
        decision: p.status.as_str().to_owned(),
        final_text: text.map(str::to_owned),
        note: p.decision_note.clone(),
    }
}

/// Approves a proposal (see [`Graph::approve_proposal`]) and rebuilds the views that show the
/// new node, so the very next brief has it, and its context's lineage, where the node becomes a
/// knowledge node over the summary it came from.
pub(crate) fn approve(
    store: &Store,
    id: i64,
    text: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Proposal> {
    let p = store.graph().approve_proposal(id, text, now)?;
    if let Some(node_id) = &p.node_id {
        let node = store.graph().node(node_id)?.node;
        crate::views::constellation::refresh_for_node(store, &node, now)?;
        // Derived data: a failed lineage refresh is logged, and the next capture there or
        // `elnor lineage rebuild` makes it good.
        if let Err(e) = crate::views::lineage::refresh(store, [&p.work_context_id]) {
            tracing::warn!(error = %e, "lineage refresh after an approval failed");
        }
    }
    Ok(p)
}

/// Evaluates both rules over every log at `now` and records new proposals.
pub fn evaluate(store: &Store, now: DateTime<Utc>) -> Result<Evaluation> {
    let config = store.config()?;
    let question_age = Duration::days(i64::from(config.promotion_question_days));
    let min_sessions = config.promotion_decision_sessions as usize;
    let graph = store.graph();
    let promoted: BTreeSet<String> = graph.with_conn_result(|c| {
        let mut stmt = c.prepare("SELECT entry_id FROM entry_promotions")?;
        stmt.query_map([], |r| r.get(0))?.collect()
    })?;
    let mut candidates = Vec::new();
    for wc in store.log_ids()? {
        let entries = store.log(&wc).read()?.entries;
        // The latest record of each question or decision decides its state; the first says
        // when it was raised.
        let mut questions: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut decisions: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (i, e) in entries.iter().enumerate() {
            let key = match &e.content {
                EntryContent::OpenQuestion(q) => Some((&mut questions, q.question.to_lowercase())),
                EntryContent::KeyDecision(d) => Some((&mut decisions, d.decision.to_lowercase())),
                _ => None,
            };
            if let Some((map, key)) = key {
                map.entry(key).and_modify(|v| v.1 = i).or_insert((i, i));
            }
        }
        for (first, last) in questions.into_values() {
            let (e, latest) = (&entries[first], &entries[last]);
            let EntryContent::OpenQuestion(q) = &latest.content else {
                continue;
            };
            if q.resolved
                || latest.is_expired(now)
                || promoted.contains(e.entry_id.as_str())
                || now - e.happened_at() < question_age
            {
                continue;
            }
            // The linked entity with the nearest deadline.
            let deadline = graph.with_conn_result(|c| {
                let mut best: Option<(EntityId, String, String)> = None;
                for id in &e.linked_entity_ids {
                    let row: Option<(String, Option<String>)> = c
                        .query_row(
                            "SELECT canonical_name, deadline FROM entities WHERE entity_id = ?1",
                            [id.as_str()],
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )
                        .optional()?;
                    if let Some((name, Some(deadline))) = row
                        && best.as_ref().is_none_or(|b| deadline < b.2)
                    {
                        best = Some((id.clone(), name, deadline));
                    }
                }
                Ok(best)
            })?;
            let Some((entity_id, entity_name, deadline)) = deadline else {
                continue;
            };
            let age_days = (now - e.happened_at()).num_days();
            candidates.push(Candidate {
                rule: Rule::UnresolvedQuestion,
                work_context_id: wc.to_string(),
                entry_id: e.entry_id.to_string(),
                text: q.question.clone(),
                evidence: Evidence {
                    captured_at: e.captured_at,
                    sessions: vec![e.source_session_id.clone()],
                    age_days,
                    because: format!(
                        "unresolved for {age_days} day(s) (rule: {} or more) and linked to {entity_name}, due {}",
                        config.promotion_question_days,
                        deadline.get(..10).unwrap_or(&deadline)
                    ),
                    entity_id: Some(entity_id),
                    entity_name: Some(entity_name),
                    deadline: Some(deadline),
                },
            });
        }
        for (first, last) in decisions.into_values() {
            let (e, latest) = (&entries[first], &entries[last]);
            let EntryContent::KeyDecision(d) = &latest.content else {
                continue;
            };
            if d.superseded_by.is_some()
                || latest.is_expired(now)
                || promoted.contains(e.entry_id.as_str())
            {
                continue;
            }
            let mut sessions = vec![e.source_session_id.clone()];
            let referenced: Vec<SessionId> = graph.with_conn_result(|c| {
                let mut stmt = c.prepare_cached(
                    "SELECT session_id FROM entry_references WHERE entry_id = ?1
                     ORDER BY seen_at, session_id",
                )?;
                stmt.query_map([e.entry_id.as_str()], |r| r.get(0))?
                    .collect()
            })?;
            for s in referenced {
                if !sessions.contains(&s) {
                    sessions.push(s);
                }
            }
            if sessions.len() < min_sessions {
                continue;
            }
            candidates.push(Candidate {
                rule: Rule::ReferencedDecision,
                work_context_id: wc.to_string(),
                entry_id: e.entry_id.to_string(),
                text: d.decision.clone(),
                evidence: Evidence {
                    captured_at: e.captured_at,
                    age_days: (now - e.happened_at()).num_days(),
                    because: format!(
                        "stated in {} session(s) (rule: {min_sessions} or more)",
                        sessions.len()
                    ),
                    sessions,
                    entity_id: None,
                    entity_name: None,
                    deadline: None,
                },
            });
        }
    }

    let mut out = Evaluation::default();
    let mut conn = graph.conn();
    let tx = conn.transaction().map_err(|e| graph.sql(e))?;
    for c in candidates {
        let key = evidence_key(&c.evidence);
        let last: Option<(i64, String, String)> = tx
            .query_row(
                "SELECT proposal_id, status, evidence_key FROM promotion_proposals
                 WHERE entry_id = ?1 ORDER BY proposal_id DESC LIMIT 1",
                [&c.entry_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| graph.sql(e))?;
        let renews = match last {
            None => None,
            Some((id, status, old_key)) if status == "rejected" && old_key != key => Some(id),
            Some(_) => {
                out.already_known += 1;
                continue;
            }
        };
        let evidence = serde_json::to_string(&c.evidence).unwrap_or_default();
        tx.execute(
            "INSERT INTO promotion_proposals (rule, node_kind, work_context_id, entry_id, text,
                 evidence, evidence_key, status, renews, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?9)",
            params![
                c.rule.as_str(),
                c.rule.node_kind().as_str(),
                c.work_context_id,
                c.entry_id,
                c.text,
                evidence,
                key,
                renews,
                ts(now)
            ],
        )
        .map_err(|e| graph.sql(e))?;
        let id = tx.last_insert_rowid();
        out.proposed.push(id);
        if renews.is_some() {
            out.renewed.push(id);
        }
    }
    tx.commit().map_err(|e| graph.sql(e))?;
    Ok(out)
}

fn row_proposal(r: &rusqlite::Row<'_>) -> rusqlite::Result<Proposal> {
    let evidence: String = r.get(6)?;
    let evidence = serde_json::from_str(&evidence).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(Proposal {
        proposal_id: r.get(0)?,
        rule: Rule::parse(&r.get::<_, String>(1)?),
        // The graph's CHECK constraint allows only the two kinds.
        node_kind: if r.get::<_, String>(2)? == NodeKind::Obligation.as_str() {
            NodeKind::Obligation
        } else {
            NodeKind::MemoryDirective
        },
        work_context_id: r.get(3)?,
        entry_id: r.get(4)?,
        text: r.get(5)?,
        evidence,
        status: {
            // The graph's CHECK constraint allows only these four names.
            let name: String = r.get(7)?;
            ProposalStatus::parse(&name).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    7,
                    rusqlite::types::Type::Text,
                    format!("unknown proposal status {name:?}").into(),
                )
            })?
        },
        decision_note: r.get(8)?,
        node_id: r.get(9)?,
        renews: r.get(10)?,
        created_at: r.get(11)?,
        decided_at: r.get(12)?,
    })
}

const COLUMNS: &str = "proposal_id, rule, node_kind, work_context_id, entry_id, text, evidence,
    status, decision_note, node_id, renews, created_at, decided_at";

fn get_in(c: &Connection, id: i64) -> rusqlite::Result<Option<Proposal>> {
    c.query_row(
        &format!("SELECT {COLUMNS} FROM promotion_proposals WHERE proposal_id = ?1"),
        [id],
        row_proposal,
    )
    .optional()
}

fn not_found(id: i64) -> Error {
    Error::NotFound {
        what: "proposal",
        id: id.to_string(),
    }
}

fn open_in(c: &Connection, id: i64) -> Result<Proposal> {
    let p = get_in(c, id)
        .map_err(crate::graph::entities::sql_err(c))?
        .ok_or_else(|| not_found(id))?;
    if !p.status.is_open() {
        return Err(Error::InvalidInput(format!(
            "proposal {id} is already {}; only pending or deferred proposals can be decided",
            p.status
        )));
    }
    Ok(p)
}

impl Graph {
    /// Proposals, newest first: the review queue (pending and deferred) or, with `all`, every one.
    pub fn proposals(&self, all: bool) -> Result<Vec<Proposal>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM promotion_proposals
                 WHERE ?1 OR status IN ('pending', 'deferred')
                 ORDER BY status = 'deferred', proposal_id DESC"
            ))?;
            stmt.query_map([all], row_proposal)?.collect()
        })
    }

    /// How many proposals wait for a decision (pending, not deferred): the navigation's badge.
    pub fn pending_proposal_count(&self) -> Result<u64> {
        self.count("SELECT COUNT(*) FROM promotion_proposals WHERE status = 'pending'")
    }

    /// One proposal.
    pub fn proposal(&self, id: i64) -> Result<Proposal> {
        self.with_conn_result(|c| get_in(c, id))?
            .ok_or_else(|| not_found(id))
    }

    /// Approves a proposal, optionally with the person's own wording, and writes its node. The
    /// views are not rebuilt here: [`decide`] is the public way, and does both.
    pub(crate) fn approve_proposal(
        &self,
        id: i64,
        text: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Proposal> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let p = open_in(&tx, id)?;
        let edited = text
            .map(crate::base::tokens::one_line)
            .filter(|t| !t.is_empty() && *t != p.text);
        let final_text = edited.clone().unwrap_or_else(|| p.text.clone());
        let digest = Sha256::digest(p.entry_id.as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        let sql = |e| self.sql(e);
        let node_id = if p.rule == Rule::UnresolvedQuestion {
            let node_id = format!("ob_{hex}");
            tx.execute(
                "INSERT INTO obligations (obligation_id, entity_id, text, due_at, lifecycle_state,
                     created_at, updated_at, staleness_state, use_warrant, warrant_reason,
                     work_context_id)
                 VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?5, 'fresh', 'assert', ?6, ?7)",
                params![
                    node_id,
                    p.evidence.entity_id,
                    final_text,
                    p.evidence.deadline,
                    ts(now),
                    APPROVED,
                    p.work_context_id
                ],
            )
            .map_err(sql)?;
            if let Some(entity) = &p.evidence.entity_id {
                crate::graph::touch_entity_in(&tx, entity).map_err(sql)?;
            }
            node_id
        } else {
            let node_id = format!("md_{hex}");
            tx.execute(
                "INSERT INTO memory_directives (directive_id, text, scope, lifecycle_state,
                     use_warrant, created_at, updated_at, tokens, staleness_state, warrant_reason)
                 VALUES (?1, ?2, ?3, 'active', 'assert', ?4, ?4, ?5, 'fresh', ?6)",
                params![
                    node_id,
                    final_text,
                    p.work_context_id,
                    ts(now),
                    crate::base::tokens::Line::new(&final_text).tokens,
                    APPROVED
                ],
            )
            .map_err(sql)?;
            node_id
        };
        crate::graph::touch_in(&tx, &p.work_context_id).map_err(sql)?;
        let mut sources = vec![
            ("continuity_entry", p.entry_id.to_string()),
            ("review", format!("proposal:{id}")),
        ];
        sources.extend(
            p.evidence
                .sessions
                .iter()
                .map(|s| ("session", s.to_string())),
        );
        for (kind, source) in sources {
            tx.execute(
                "INSERT INTO provenance (node_id, source_kind, source_ref, recorded_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![node_id, kind, source, ts(now)],
            )
            .map_err(sql)?;
        }
        tx.execute(
            "INSERT INTO entry_promotions (entry_id, node_id, proposal_id, promoted_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![p.entry_id, node_id, id, ts(now)],
        )
        .map_err(sql)?;
        tx.execute(
            "INSERT INTO node_history (node_id, action, text, state, note, at)
             VALUES (?1, 'approved', ?2, 'active', ?3, ?4)",
            params![
                node_id,
                final_text,
                edited.as_ref().map(|_| format!("edited from: {}", p.text)),
                ts(now)
            ],
        )
        .map_err(sql)?;
        tx.execute(
            "UPDATE promotion_proposals SET status = 'approved', node_id = ?2, decided_at = ?3,
                 decision_note = ?4
             WHERE proposal_id = ?1",
            params![
                id,
                node_id,
                ts(now),
                edited.map(|_| "approved with an edit".to_owned())
            ],
        )
        .map_err(sql)?;
        let out = get_in(&tx, id).map_err(sql)?.ok_or_else(|| not_found(id))?;
        tx.commit().map_err(sql)?;
        Ok(out)
    }

    /// Rejects a proposal; it comes back only with new evidence.
    pub(crate) fn reject_proposal(
        &self,
        id: i64,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Proposal> {
        self.decide(id, "rejected", reason, now)
    }

    /// The newest proposal for an entry under a rule, if any (sync finds the proposal another
    /// device decided by its entry, the one id both devices share).
    pub(crate) fn proposal_for_entry(
        &self,
        entry_id: &str,
        rule: &str,
    ) -> Result<Option<Proposal>> {
        self.with_conn_result(|c| {
            c.query_row(
                &format!(
                    "SELECT {COLUMNS} FROM promotion_proposals WHERE entry_id = ?1 AND rule = ?2
                     ORDER BY proposal_id DESC LIMIT 1"
                ),
                params![entry_id, rule],
                row_proposal,
            )
            .optional()
        })
    }

    /// Makes a pending proposal another device had (sync), so its decision can apply here.
    pub(crate) fn insert_synced_proposal(
        &self,
        rule: Rule,
        work_context_id: &str,
        entry_id: &str,
        text: &str,
        evidence: &Evidence,
        now: DateTime<Utc>,
    ) -> Result<Proposal> {
        let json = serde_json::to_string(evidence).unwrap_or_default();
        let key = evidence_key(evidence);
        let id = self.with_conn_result(|c| {
            c.execute(
                "INSERT INTO promotion_proposals (rule, node_kind, work_context_id, entry_id, text,
                     evidence, evidence_key, status, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8)",
                params![
                    rule.as_str(),
                    rule.node_kind().as_str(),
                    work_context_id,
                    entry_id,
                    text,
                    json,
                    key,
                    ts(now)
                ],
            )?;
            Ok(c.last_insert_rowid())
        })?;
        self.proposal(id)
    }

    /// Opens a decided proposal again, so that a later decision from another device can be
    /// applied to it (sync); the earlier decision stays in the node's history.
    pub(crate) fn reopen_proposal(&self, id: i64) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute(
                "UPDATE promotion_proposals SET status = 'pending' WHERE proposal_id = ?1",
                [id],
            )
        })
        .map(|_| ())
    }

    /// Marks a proposal decided without writing a node (sync: a rejection that came after this
    /// device's approval, whose node is retired by the caller).
    pub(crate) fn set_proposal_status(
        &self,
        id: i64,
        status: ProposalStatus,
        note: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute(
                "UPDATE promotion_proposals SET status = ?2, decision_note = ?3, decided_at = ?4
                 WHERE proposal_id = ?1",
                params![id, status.as_str(), note, ts(now)],
            )
        })
        .map(|_| ())
    }

    /// Puts a proposal aside; it stays in the queue, after the pending ones.
    pub(crate) fn defer_proposal(&self, id: i64, now: DateTime<Utc>) -> Result<Proposal> {
        self.decide(id, "deferred", None, now)
    }

    fn decide(
        &self,
        id: i64,
        status: &str,
        note: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Proposal> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        open_in(&tx, id)?;
        tx.execute(
            "UPDATE promotion_proposals SET status = ?2, decision_note = ?3, decided_at = ?4
             WHERE proposal_id = ?1",
            params![id, status, note.map(crate::base::tokens::one_line), ts(now)],
        )
        .map_err(|e| self.sql(e))?;
        let out = get_in(&tx, id)
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| not_found(id))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
