//! The node sweep (concept model §4.5): walks every live durable node down the degradation
//! ladder when its sources decay or are contradicted in their continuity logs. It reads the logs,
//! so it sits in the review layer, above the graph that holds the nodes; the nodes module only
//! writes the state it is given.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::{NodeId, WorkContextId};
use crate::base::tokens::one_line;
use crate::continuity::{ContinuityEntry, EntryContent, EntryType};
use crate::graph::entities::parse_ts;
use crate::graph::nodes::{
    Lifecycle, Node, NodeKind, Staleness, Warrant, history_in, touch_views, write_state,
};
use crate::graph::store::Store;

/// One step the sweep took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Degradation {
    pub node_id: NodeId,
    pub from: Warrant,
    pub to: Warrant,
    pub staleness: Staleness,
    pub lifecycle: Lifecycle,
    pub reason: String,
}

/// What one sweep did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sweep {
    /// Live nodes looked at.
    pub checked: usize,
    pub degraded: Vec<Degradation>,
}

/// The entry type a node of this kind is promoted from, whose TTL paces its decay.
fn source_type(kind: NodeKind) -> EntryType {
    match kind {
        NodeKind::Obligation => EntryType::OpenQuestion,
        NodeKind::MemoryDirective => EntryType::KeyDecision,
    }
}

/// What the sweep concluded for one node: the warrant it should have at most, and why.
struct Verdict {
    warrant: Warrant,
    staleness: Staleness,
    lifecycle: Lifecycle,
    reason: String,
}

/// Walks every live node down the degradation ladder as far as its sources warrant (concept
/// model §4.5), never up: only the person restores a node. Triggers:
/// - the source question was resolved, or the source decision superseded, in its continuity log
///   (a contrary entry: the node becomes `contested`);
/// - the source entry is no longer in its log;
/// - an obligation's due date has passed;
/// - the sources decayed (the entry's `decay_at`, moved on by every later session that restated
///   it) and nobody confirmed the node since: one rung at decay, one more every
///   `node_decay_step_days`, down to `search_only` at most.
///
/// Idempotent: a second sweep at the same time changes nothing.
pub(crate) fn sweep(store: &Store, now: DateTime<Utc>) -> Result<Sweep> {
    let config = store.config()?;
    let step = Duration::days(i64::from(config.node_decay_step_days.max(1)));
    let graph = store.graph();
    let nodes = graph.nodes(false)?;
    let mut logs: HashMap<WorkContextId, Vec<ContinuityEntry>> = HashMap::new();
    let mut out = Sweep {
        checked: nodes.len(),
        ..Sweep::default()
    };
    for node in nodes {
        let facts = graph.with_conn_result(|c| sources_of(c, &node))?;
        let ttl = Duration::days(i64::from(source_type(node.kind).ttl_days(&config)));
        let mut verdicts = Vec::new();
        // The decay clock starts at the latest of: the person's last word on the node, and the
        // sources' own decay (moved on by every restatement).
        let mut fresh_until = facts.vouched_at.map(|t| t + ttl);
        for entry_id in &facts.entries {
            let Some(wc) = &node.work_context_id else {
                continue;
            };
            if !logs.contains_key(wc) {
                logs.insert(wc.clone(), store.log(wc).read()?.entries);
            }
            let entries = &logs[wc];
            match source_state(entries, entry_id) {
                None => verdicts.push(Verdict {
                    warrant: Warrant::Hedge,
                    staleness: Staleness::CoverageGapSuspected,
                    lifecycle: node.lifecycle,
                    reason: format!(
                        "its source entry {entry_id} is no longer in the continuity log of {wc}"
                    ),
                }),
                Some(SourceState { decay_at, contrary }) => {
                    let restated = facts.restated_at.get(entry_id).map(|t| *t + ttl);
                    let until = decay_at.max(restated.unwrap_or(decay_at));
                    fresh_until = Some(fresh_until.map_or(until, |f| f.max(until)));
                    if let Some((warrant, reason)) = contrary {
                        verdicts.push(Verdict {
                            warrant,
                            staleness: Staleness::SourceChanged,
                            lifecycle: Lifecycle::Contested,
                            reason,
                        });
                    }
                }
            }
        }
        if let Some(until) = fresh_until
            && until <= now
        {
            let rungs = 1 + ((now - until).num_seconds() / step.num_seconds().max(1)) as usize;
            verdicts.push(Verdict {
                warrant: Warrant::rung(rungs),
                staleness: if rungs > 1 {
                    Staleness::VerificationRequired
                } else {
                    Staleness::StalePossible
                },
                lifecycle: node.lifecycle,
                reason: format!(
                    "its sources decayed on {} and nobody has confirmed it since",
                    until.format("%Y-%m-%d")
                ),
            });
        }
        if node.kind == NodeKind::Obligation
            && let Some(due) =
                parse_ts(node.due_at.clone()).or_else(|| node.due_at.as_deref().and_then(parse_day))
            && due < now
        {
            verdicts.push(Verdict {
                warrant: Warrant::Hedge,
                staleness: Staleness::StalePossible,
                lifecycle: node.lifecycle,
                reason: format!("its due date {} has passed", due.format("%Y-%m-%d")),
            });
        }
        // The most severe verdict decides; a contested lifecycle sticks even when decay weighs
        // more.
        let contested = verdicts.iter().any(|v| v.lifecycle == Lifecycle::Contested);
        let Some(worst) = verdicts.into_iter().max_by_key(|v| v.warrant) else {
            continue;
        };
        let lifecycle = if contested {
            Lifecycle::Contested
        } else {
            node.lifecycle
        };
        if worst.warrant <= node.warrant && lifecycle == node.lifecycle {
            continue;
        }
        let warrant = worst.warrant.max(node.warrant);
        let reason = if worst.warrant > node.warrant {
            worst.reason.clone()
        } else {
            node.warrant_reason.clone().unwrap_or(worst.reason.clone())
        };
        {
            // The connection is released before the views rebuild, which take it again.
            let mut conn = graph.conn();
            let tx = conn.transaction().map_err(|e| graph.sql(e))?;
            (|| {
                write_state(
                    &tx,
                    &node,
                    &node.text,
                    lifecycle,
                    worst.staleness,
                    warrant,
                    &reason,
                    None,
                    now,
                )?;
                history_in(
                    &tx,
                    &node.node_id,
                    "degraded",
                    None,
                    lifecycle.as_str(),
                    Some(&format!("{} → {warrant}: {reason}", node.warrant)),
                    now,
                )?;
                touch_views(&tx, &node)?;
                tx.commit()
            })()
            .map_err(|e| graph.sql(e))?;
        }
        out.degraded.push(Degradation {
            node_id: node.node_id.clone(),
            from: node.warrant,
            to: warrant,
            staleness: worst.staleness,
            lifecycle,
            reason,
        });
    }
    Ok(out)
}

fn parse_day(s: &str) -> Option<DateTime<Utc>> {
    chrono::NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d")
        .ok()?
        .and_hms_opt(23, 59, 59)
        .map(|t| t.and_utc())
}

/// What the graph says about a node's sources.
struct Sources {
    /// Continuity entries it was promoted from.
    entries: Vec<String>,
    /// The latest later session that restated each entry.
    restated_at: BTreeMap<String, DateTime<Utc>>,
    /// The person's last approval, edit, confirmation or supersession.
    vouched_at: Option<DateTime<Utc>>,
}

fn sources_of(c: &Connection, node: &Node) -> rusqlite::Result<Sources> {
    let mut stmt = c.prepare_cached(
        "SELECT source_ref FROM provenance
         WHERE node_id = ?1 AND source_kind = 'continuity_entry' ORDER BY provenance_id",
    )?;
    let entries: Vec<String> = stmt
        .query_map([node.node_id.as_str()], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut restated_at = BTreeMap::new();
    for e in &entries {
        let at: Option<String> = c.query_row(
            "SELECT MAX(seen_at) FROM entry_references WHERE entry_id = ?1",
            [e],
            |r| r.get(0),
        )?;
        if let Some(at) = parse_ts(at) {
            restated_at.insert(e.clone(), at);
        }
    }
    let vouched: Option<String> = c.query_row(
        "SELECT MAX(at) FROM node_history WHERE node_id = ?1
           AND action IN ('approved', 'edited', 'confirmed', 'created')",
        [node.node_id.as_str()],
        |r| r.get(0),
    )?;
    Ok(Sources {
        entries,
        restated_at,
        vouched_at: parse_ts(vouched),
    })
}

/// The source entry's decay and whether a later record of the same question or decision
/// contradicts the node.
struct SourceState {
    decay_at: DateTime<Utc>,
    contrary: Option<(Warrant, String)>,
}

fn source_state(entries: &[ContinuityEntry], entry_id: &str) -> Option<SourceState> {
    let first = entries
        .iter()
        .position(|e| e.entry_id.as_str() == entry_id)?;
    let key = |e: &ContinuityEntry| match &e.content {
        EntryContent::OpenQuestion(q) => Some(one_line(&q.question).to_lowercase()),
        EntryContent::KeyDecision(d) => Some(one_line(&d.decision).to_lowercase()),
        _ => None,
    };
    let own = key(&entries[first]);
    // The latest record of the same question or decision decides (as in the views).
    let latest = entries[first..]
        .iter()
        .rev()
        .find(|e| e.entry_type() == entries[first].entry_type() && key(e) == own)
        .unwrap_or(&entries[first]);
    let contrary = match &latest.content {
        EntryContent::OpenQuestion(q) if q.resolved => Some((
            Warrant::VerifyBeforeUse,
            format!(
                "the question it came from was marked resolved{}",
                q.resolved_at
                    .map(|t| format!(" on {}", t.format("%Y-%m-%d")))
                    .unwrap_or_default()
            ),
        )),
        EntryContent::KeyDecision(d) if d.superseded_by.is_some() => Some((
            Warrant::OrientationOnly,
            format!(
                "the decision it came from was superseded by {}",
                d.superseded_by.as_ref().map(|s| s.as_str()).unwrap_or("")
            ),
        )),
        _ => None,
    };
    Some(SourceState {
        decay_at: latest.decay_at,
        contrary,
    })
}
