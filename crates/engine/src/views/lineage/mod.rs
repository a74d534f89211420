//! The lineage DAG (CONT §7.5, §11; CLOSURE Tier 3): every summary of the work, as a node with
//! explicit coverage edges down to raw turns or to lower nodes, so nothing ELNOR or a harness
//! condensed strands a reader at the surface.
//!
//! Four kinds of node, all in `lineage_nodes` / `lineage_edges` of the graph file:
//!
//! - a **session summary** covers the turns its capture read (`capture_windows`), exactly;
//! - a **compaction summary** is the summary a harness wrote when it compacted a session's
//!   context; it covers that session's turns since the previous compaction, and sits beside the
//!   session summaries of the same turns (a turn may be covered by both);
//! - a **condensation** is ours: per work context and agent, the roots older than the newest
//!   [`CONDENSE_TAIL`] are condensed in time order, [`CONDENSE_FANOUT`] at a time, level upon level;
//! - **knowledge** is a durable node the person approved from a context's log; it covers the
//!   summary of the capture that wrote the promoted entry.
//!
//! Node ids: a session summary keeps its id (`ss_…`), a compaction is `cx_<seq>` of its first
//! record, a condensation `cd_<hash of its scope and children>`, knowledge the durable node's id
//! (`ob_…`, `md_…`).
//!
//! Architecture Invariant: the DAG is derived. It is a pure function of the session summaries,
//! their capture windows, the transcripts and the approved promotions, so [`rebuild`] clears and
//! rewrites the same rows, and no canonical write ever reads it. Its invariants — acyclic, every
//! node expands to a non-empty set of raw turns, no gap in a session's coverage before its recent
//! tail, condensations smaller than what they cover unless marked trivial, coverage within one
//! work context and one agent — are property-tested on generated histories (`tests.rs`).

mod build;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::{SessionId, WorkContextId};
use crate::graph::store::Store;

/// Condensation fan-out: how many nodes one condensation covers.
pub const CONDENSE_FANOUT: usize = 8;
/// The newest roots of a scope left uncondensed: the recent tail a thread head reads as is.
pub const CONDENSE_TAIL: usize = 4;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineageNodeKind {
    SessionSummary,
    CompactionSummary,
    Condensation,
    Knowledge,
}

impl LineageNodeKind {
    /// Every kind, bottom up.
    pub const ALL: [LineageNodeKind; 4] = [
        LineageNodeKind::SessionSummary,
        LineageNodeKind::CompactionSummary,
        LineageNodeKind::Condensation,
        LineageNodeKind::Knowledge,
    ];

    /// The kind as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            LineageNodeKind::SessionSummary => "session_summary",
            LineageNodeKind::CompactionSummary => "compaction_summary",
            LineageNodeKind::Condensation => "condensation",
            LineageNodeKind::Knowledge => "knowledge",
        }
    }

    /// Parses a stored kind.
    pub fn parse(s: &str) -> Option<LineageNodeKind> {
        LineageNodeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// A node of this kind covers raw turns directly (its session's window), not other nodes.
    pub fn covers_turns(self) -> bool {
        matches!(
            self,
            LineageNodeKind::SessionSummary | LineageNodeKind::CompactionSummary
        )
    }
}

/// One node of the DAG, with its lineage metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineageNode {
    pub node_id: String,
    pub kind: LineageNodeKind,
    /// 0 for nodes over raw turns, one more than its highest child otherwise.
    pub level: u32,
    /// The thread scope: the work context whose turns it covers.
    pub work_context_id: WorkContextId,
    /// The agent scope (`harness` or `harness:agent`).
    pub agent_scope: String,
    /// The session of a node over raw turns, and its window: turns after `after_seq` (from the
    /// start when absent) through `through_seq`.
    pub session_id: Option<SessionId>,
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    /// Raw turns reachable below the node (a turn under two children counts twice).
    pub turn_count: u64,
    pub earliest_at: Option<DateTime<Utc>>,
    pub latest_at: Option<DateTime<Utc>>,
    /// How the text was made: `deterministic` or `llm` (our capture), `harness` (a compaction),
    /// `review` (the person approved it).
    pub method: String,
    pub model: Option<String>,
    /// How sure the coverage is: 1 when recorded, less when worked out afterwards.
    pub confidence: f64,
    pub text: String,
    pub tokens: u64,
    /// Tokens of what it covers: its children's texts, or its turns' (a character estimate).
    pub covered_tokens: u64,
    /// A condensation that could not be smaller than its children (they were already terse).
    pub trivial: bool,
}

/// What a build wrote, and what it could not place.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BuildReport {
    pub contexts: usize,
    pub nodes: usize,
    pub edges: usize,
    /// Session summaries with no window of turns (none found, or the window holds no turns).
    pub summaries_without_window: usize,
    /// Compaction records that carry only a marker, no summary.
    pub compactions_without_summary: usize,
    /// Compaction summaries at a session's start: the turns they replaced are in an earlier
    /// session the record does not name.
    pub compactions_without_history: usize,
    /// Approved knowledge whose entry's capture left no summary to cover.
    pub knowledge_without_lineage: usize,
}

/// Clears the DAG and builds it again for every work context, in one transaction.
pub fn rebuild(store: &Store) -> Result<BuildReport> {
    let contexts: Vec<String> = store.graph().with_conn_result(|c| {
        c.prepare(
            "SELECT work_context_id FROM transcript_sessions WHERE work_context_id IS NOT NULL
             UNION SELECT work_context_id FROM promotion_proposals WHERE status = 'approved'
             ORDER BY 1",
        )?
        .query_map([], |r| r.get(0))?
        .collect()
    })?;
    build_contexts(store, &contexts, true)
}

/// Builds again the part of the DAG of each of `contexts` (after captures wrote to them, or a
/// promotion was decided there), in one transaction.
pub fn refresh<'a>(
    store: &Store,
    contexts: impl IntoIterator<Item = &'a WorkContextId>,
) -> Result<BuildReport> {
    let contexts: Vec<String> = contexts.into_iter().map(|w| w.to_string()).collect();
    build_contexts(store, &contexts, false)
}

/// Builds the whole DAG when it is empty but there are summaries to build it from: the first
/// read after the schema gained the DAG, or after someone deleted it.
pub fn ensure_built(store: &Store) -> Result<Option<BuildReport>> {
    let (nodes, summaries): (i64, i64) = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT (SELECT count(*) FROM (SELECT 1 FROM lineage_nodes LIMIT 1)),
                    (SELECT count(*) FROM (SELECT 1 FROM session_summaries LIMIT 1))",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    })?;
    if nodes == 0 && summaries > 0 {
        return rebuild(store).map(Some);
    }
    Ok(None)
}

/// Rebuilds the nodes of `contexts`, committed at once so a reader never sees half of them;
/// `clear` empties both tables first (a whole rebuild).
fn build_contexts(store: &Store, contexts: &[String], clear: bool) -> Result<BuildReport> {
    // The logs are read before the graph's connection is taken: only contexts with approved
    // promotions are read at all.
    let mut entry_summaries = BTreeMap::new();
    for wc in contexts {
        entry_summaries.insert(wc.as_str(), promoted_entry_summaries(store, wc)?);
    }
    let mut report = BuildReport::default();
    let graph = store.graph();
    let mut conn = graph.conn();
    let sql = |e| graph.sql(e);
    if clear {
        // A whole rebuild reads every context from one snapshot without holding the write lock
        // (seconds on a heavy store), then writes in one short immediate transaction. A capture
        // that lands in between refreshes its own context after it, so nothing stays stale.
        let read = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Deferred)
            .map_err(sql)?;
        let mut built = Vec::with_capacity(contexts.len());
        for wc in contexts {
            report.contexts += 1;
            built.push(
                build::context(&read, wc, &entry_summaries[wc.as_str()], &mut report)
                    .map_err(sql)?,
            );
        }
        read.finish().map_err(sql)?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute_batch("DELETE FROM lineage_edges; DELETE FROM lineage_nodes;")
            .map_err(sql)?;
        for (wc, b) in contexts.iter().zip(&built) {
            write(&tx, wc, b).map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        return Ok(report);
    }
    // A refresh of a few contexts takes milliseconds: it reads and writes under the write lock
    // from the start (an immediate transaction), because a deferred one that read first could
    // not take the lock once another writer had committed, and would fail as busy at once.
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(sql)?;
    for wc in contexts {
        report.contexts += 1;
        let built =
            build::context(&tx, wc, &entry_summaries[wc.as_str()], &mut report).map_err(sql)?;
        write(&tx, wc, &built).map_err(sql)?;
    }
    tx.commit().map_err(sql)?;
    Ok(report)
}

fn write(c: &Connection, wc: &str, built: &build::Built) -> rusqlite::Result<()> {
    c.execute(
        "DELETE FROM lineage_edges WHERE parent_id IN
            (SELECT node_id FROM lineage_nodes WHERE work_context_id = ?1)",
        [wc],
    )?;
    c.execute("DELETE FROM lineage_nodes WHERE work_context_id = ?1", [wc])?;
    let mut insert = c.prepare_cached(
        "INSERT OR IGNORE INTO lineage_nodes
            (node_id, kind, level, work_context_id, agent_scope, session_id, after_seq,
             through_seq, turn_count, earliest_at, latest_at, method, model, confidence, text,
             tokens, covered_tokens, trivial)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
    )?;
    let mut written = BTreeSet::new();
    for n in &built.nodes {
        // A durable node approved from two contexts' proposals is one node; it stays with the
        // context that wrote it first.
        if insert.execute(params![
            n.node_id,
            n.kind.as_str(),
            n.level,
            n.work_context_id,
            n.agent_scope,
            n.session_id,
            n.after_seq,
            n.through_seq,
            n.turn_count,
            n.earliest_at,
            n.latest_at,
            n.method,
            n.model,
            n.confidence,
            n.text,
            n.tokens,
            n.covered_tokens,
            n.trivial
        ])? == 1
        {
            written.insert(n.node_id.as_str());
        }
    }
    let mut edge = c.prepare_cached(
        "INSERT OR IGNORE INTO lineage_edges (parent_id, child_id) VALUES (?1, ?2)",
    )?;
    for (parent, child) in &built.edges {
        if written.contains(parent.as_str()) {
            edge.execute(params![parent, child])?;
        }
    }
    Ok(())
}

/// The summary each promoted entry of `wc` links, read from its log: only contexts with approved
/// promotions are read, so a build does not read every log.
fn promoted_entry_summaries(store: &Store, wc: &str) -> Result<BTreeMap<String, String>> {
    let entries: BTreeSet<String> = store.graph().with_conn_result(|c| {
        c.prepare_cached(
            "SELECT entry_id FROM promotion_proposals
              WHERE work_context_id = ?1 AND status = 'approved'",
        )?
        .query_map([wc], |r| r.get(0))?
        .collect()
    })?;
    if entries.is_empty() {
        return Ok(BTreeMap::new());
    }
    let Ok(id) = WorkContextId::new(wc) else {
        return Ok(BTreeMap::new());
    };
    let read = store.log(&id).read()?;
    Ok(read
        .entries
        .into_iter()
        .filter(|e| entries.contains(e.entry_id.as_str()))
        .filter_map(|e| {
            e.linked_doc73_session_summary_id
                .map(|s| (e.entry_id.to_string(), s))
        })
        .collect())
}

const NODE_COLUMNS: &str = "node_id, kind, level, work_context_id, agent_scope, session_id, \
     after_seq, through_seq, turn_count, earliest_at, latest_at, method, model, confidence, text, \
     tokens, covered_tokens, trivial";

fn node_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LineageNode> {
    let kind: String = r.get(1)?;
    let at = |s: Option<String>| s.and_then(|s| crate::base::clock::parse(&s).ok());
    let bad = |what: &str, value: String| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("lineage node {what} {value:?}").into(),
        )
    };
    Ok(LineageNode {
        node_id: r.get(0)?,
        kind: LineageNodeKind::parse(&kind).ok_or_else(|| bad("kind", kind.clone()))?,
        level: r.get::<_, i64>(2)?.max(0) as u32,
        work_context_id: {
            let wc: String = r.get(3)?;
            WorkContextId::new(wc.clone()).map_err(|_| bad("work context", wc))?
        },
        agent_scope: r.get(4)?,
        session_id: r
            .get::<_, Option<String>>(5)?
            .and_then(|s| SessionId::new(s).ok()),
        after_seq: r.get(6)?,
        through_seq: r.get(7)?,
        turn_count: r.get::<_, i64>(8)?.max(0) as u64,
        earliest_at: at(r.get(9)?),
        latest_at: at(r.get(10)?),
        method: r.get(11)?,
        model: r.get(12)?,
        confidence: r.get(13)?,
        text: r.get(14)?,
        tokens: r.get::<_, i64>(15)?.max(0) as u64,
        covered_tokens: r.get::<_, i64>(16)?.max(0) as u64,
        trivial: r.get(17)?,
    })
}

/// The node `node_id`, if the DAG holds it.
pub fn node(store: &Store, node_id: &str) -> Result<Option<LineageNode>> {
    store.graph().with_conn_result(|c| {
        c.prepare_cached(&format!(
            "SELECT {NODE_COLUMNS} FROM lineage_nodes WHERE node_id = ?1"
        ))?
        .query_row([node_id], node_from_row)
        .optional()
    })
}

/// The nodes directly above `node_id` (the condensations and knowledge that cover it).
pub fn parents(store: &Store, node_id: &str) -> Result<Vec<LineageNode>> {
    related(
        store,
        node_id,
        "SELECT parent_id FROM lineage_edges WHERE child_id = ?1",
    )
}

/// The nodes directly below `node_id`.
pub fn children(store: &Store, node_id: &str) -> Result<Vec<LineageNode>> {
    related(
        store,
        node_id,
        "SELECT child_id FROM lineage_edges WHERE parent_id = ?1",
    )
}

fn related(store: &Store, node_id: &str, ids: &str) -> Result<Vec<LineageNode>> {
    store.graph().with_conn_result(|c| {
        c.prepare_cached(&format!(
            "SELECT {NODE_COLUMNS} FROM lineage_nodes WHERE node_id IN ({ids})
              ORDER BY latest_at, node_id"
        ))?
        .query_map([node_id], node_from_row)?
        .collect()
    })
}

/// The nodes over raw turns whose window holds turn `seq` of `session_id`.
pub fn covering_turn(store: &Store, session_id: &str, seq: i64) -> Result<Vec<LineageNode>> {
    store.graph().with_conn_result(|c| {
        c.prepare_cached(&format!(
            "SELECT {NODE_COLUMNS} FROM lineage_nodes
              WHERE session_id = ?1 AND through_seq >= ?2 AND coalesce(after_seq, -1) < ?2
              ORDER BY kind, node_id"
        ))?
        .query_map(params![session_id, seq], node_from_row)?
        .collect()
    })
}

/// The roots of `node`'s scope just before and just after it in time: the thread-local context
/// of a node no condensation covers yet.
pub fn neighbours(store: &Store, node: &LineageNode) -> Result<Vec<LineageNode>> {
    let latest = node.latest_at.map(crate::inputs::ingest::format_ts);
    store.graph().with_conn_result(|c| {
        let mut out = Vec::new();
        for (cmp, order) in [("<", "DESC"), (">", "ASC")] {
            let sql = format!(
                "SELECT {NODE_COLUMNS} FROM lineage_nodes n
                  WHERE work_context_id = ?1 AND agent_scope = ?2 AND node_id != ?3
                    AND kind != 'knowledge'
                    AND NOT EXISTS (SELECT 1 FROM lineage_edges e WHERE e.child_id = n.node_id)
                    AND (latest_at, node_id) {cmp} (?4, ?3)
                  ORDER BY latest_at {order}, node_id {order} LIMIT 2"
            );
            let rows: Vec<LineageNode> = c
                .prepare_cached(&sql)?
                .query_map(
                    params![node.work_context_id, node.agent_scope, node.node_id, latest],
                    node_from_row,
                )?
                .collect::<rusqlite::Result<_>>()?;
            out.extend(rows);
        }
        out.sort_by(|a, b| (a.latest_at, &a.node_id).cmp(&(b.latest_at, &b.node_id)));
        Ok(out)
    })
}

/// How many nodes of each kind the DAG holds.
pub fn counts(store: &Store) -> Result<BTreeMap<LineageNodeKind, u64>> {
    store.graph().with_conn_result(|c| {
        let rows: Vec<(String, i64)> = c
            .prepare("SELECT kind, count(*) FROM lineage_nodes GROUP BY kind")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows
            .into_iter()
            .filter_map(|(k, n)| LineageNodeKind::parse(&k).map(|k| (k, n.max(0) as u64)))
            .collect())
    })
}
