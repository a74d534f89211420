//! Brief assembly traces, the inspector's "why included" (SPEC §6): every assembly with every
//! candidate it considered, stored in the graph database and kept up to the
//! `trace_retention_assemblies` setting.
//!
//! A trace is a record of what happened, not canonical knowledge, so it is written without the
//! per-commit fsync the graph's own writes use: losing the last trace to a power cut is harmless,
//! and the brief is on every agent's start path. Deliveries are written in the same transaction,
//! so an update is never marked delivered by an assembly whose trace does not exist.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{SessionId, WorkContextId};
use crate::brief::{Brief, BriefRequest, Delivery};
use crate::graph::Graph;
use crate::graph::entities::ts;
use crate::graph::store::Store;

/// One assembly, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssemblySummary {
    pub assembly_id: i64,
    pub created_at: String,
    pub delivery: String,
    pub format: String,
    pub work_context_id: Option<WorkContextId>,
    pub resolution: String,
    pub session_id: Option<SessionId>,
    pub budget: u32,
    pub total_tokens: u32,
    pub tier_tokens: [u32; 3],
    pub envelope_tokens: u32,
    pub stale: bool,
    pub included: u32,
    pub dropped: u32,
    pub excluded: u32,
}

/// One trace row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceRow {
    pub ordinal: i64,
    pub tier: u8,
    pub kind: String,
    pub source_id: Option<String>,
    pub session_id: Option<SessionId>,
    pub turn_seq: Option<i64>,
    pub work_context_id: Option<WorkContextId>,
    pub text: String,
    pub tokens: u32,
    pub decision: String,
    pub reason: String,
    pub detail: String,
}

/// One assembly with its trace, request and output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssemblyDetail {
    pub summary: AssemblySummary,
    pub warnings: Vec<String>,
    /// The request as JSON text.
    pub request: String,
    /// The brief's text as delivered or previewed.
    pub output: String,
    pub items: Vec<TraceRow>,
}

/// Previews kept besides the deliveries: enough to follow "Why?" from any recent look at a
/// brief, few enough that they never crowd the Inspector.
pub const PREVIEWS_KEPT: i64 = 20;

/// Stores an assembly and its trace (and, for a delivery, the updates it delivered); returns the
/// assembly id.
pub(crate) fn record(
    store: &Store,
    req: &BriefRequest,
    brief: &Brief,
    output: &str,
) -> Result<i64> {
    let retention = store.config()?.trace_retention_assemblies;
    let graph = store.graph();
    let mut conn = graph.conn();
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| graph.sql(e))?;
    let result = (|| {
        let tx = conn.transaction()?;
        let request = serde_json::to_string(req).unwrap_or_default();
        let warnings = serde_json::to_string(&brief.warnings).unwrap_or_default();
        let tier = |n: u8| brief.card(n).map_or(0, |c| c.tokens);
        tx.execute(
            "INSERT INTO brief_assemblies (created_at, delivery, format, work_context_id,
                 resolution, session_id, budget, total_tokens, tier1_tokens, tier2_tokens,
                 tier3_tokens, envelope_tokens, stale, warnings, request, output)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            params![
                ts(req.now),
                brief.delivery.as_str(),
                brief.format.as_str(),
                brief
                    .work_context
                    .as_ref()
                    .map(|c| c.work_context_id.as_str()),
                brief
                    .work_context
                    .as_ref()
                    .map_or("no work context", |c| c.how.as_str()),
                req.session_id,
                brief.budget,
                brief.total_tokens,
                tier(1),
                tier(2),
                tier(3),
                brief.envelope_tokens,
                brief.stale,
                warnings,
                request,
                output
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut stmt = tx.prepare(
                "INSERT INTO brief_trace_items (assembly_id, ordinal, tier, kind, source_id,
                     session_id, turn_seq, work_context_id, text, tokens, decision, reason, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            for (i, t) in brief.trace.iter().enumerate() {
                stmt.execute(params![
                    id,
                    i as i64,
                    t.tier,
                    t.kind,
                    t.source_id,
                    t.session_id,
                    t.turn_seq,
                    t.work_context_id,
                    t.text,
                    t.tokens,
                    t.decision.as_str(),
                    t.reason.as_str(),
                    t.detail
                ])?;
            }
        }
        if req.delivery == Delivery::Delivered
            && !brief.delivered_updates.is_empty()
            && let Some(c) = &brief.work_context
        {
            crate::brief::mark_delivered_in(
                &tx,
                c.work_context_id.as_str(),
                &brief.delivered_updates,
                id,
                req.now,
            )?;
        }
        // Retention: the newest `retention` deliveries stay, and apart from them the newest
        // [`PREVIEWS_KEPT`] previews, so looking at briefs in the app never pushes out the
        // record of what agents were actually told. Items go with their assembly (cascade).
        let keep = match brief.delivery {
            Delivery::Delivered => i64::from(retention),
            Delivery::Preview => PREVIEWS_KEPT,
        };
        tx.execute(
            "DELETE FROM brief_assemblies WHERE delivery = ?1 AND assembly_id NOT IN (
                 SELECT assembly_id FROM brief_assemblies WHERE delivery = ?1
                 ORDER BY assembly_id DESC LIMIT ?2)",
            params![brief.delivery.as_str(), keep],
        )?;
        tx.commit()?;
        Ok(id)
    })();
    // Back to the graph's durable default whatever happened above.
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(|e| graph.sql(e))?;
    result.map_err(|e| graph.sql(e))
}

pub(crate) fn deliveries_in(
    c: &rusqlite::Connection,
    work_context_id: &str,
) -> rusqlite::Result<BTreeMap<String, DateTime<Utc>>> {
    let mut stmt = c.prepare_cached(
        "SELECT entry_id, delivered_at FROM update_deliveries WHERE work_context_id = ?1",
    )?;
    let rows = stmt.query_map([work_context_id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = BTreeMap::new();
    for row in rows {
        let (id, at) = row?;
        if let Some(at) = crate::graph::entities::parse_ts(Some(at)) {
            out.insert(id, at);
        }
    }
    Ok(out)
}

const SUMMARY_COLUMNS: &str = "a.assembly_id, a.created_at, a.delivery, a.format,
    a.work_context_id, a.resolution, a.session_id, a.budget, a.total_tokens, a.tier1_tokens,
    a.tier2_tokens, a.tier3_tokens, a.envelope_tokens, a.stale,
    (SELECT count(*) FROM brief_trace_items i WHERE i.assembly_id = a.assembly_id AND i.decision = 'included'),
    (SELECT count(*) FROM brief_trace_items i WHERE i.assembly_id = a.assembly_id AND i.decision = 'dropped'),
    (SELECT count(*) FROM brief_trace_items i WHERE i.assembly_id = a.assembly_id AND i.decision = 'excluded')";

fn row_summary(r: &rusqlite::Row<'_>) -> rusqlite::Result<AssemblySummary> {
    Ok(AssemblySummary {
        assembly_id: r.get(0)?,
        created_at: r.get(1)?,
        delivery: r.get(2)?,
        format: r.get(3)?,
        work_context_id: r.get(4)?,
        resolution: r.get(5)?,
        session_id: r.get(6)?,
        budget: r.get(7)?,
        total_tokens: r.get(8)?,
        tier_tokens: [r.get(9)?, r.get(10)?, r.get(11)?],
        envelope_tokens: r.get(12)?,
        stale: r.get(13)?,
        included: r.get(14)?,
        dropped: r.get(15)?,
        excluded: r.get(16)?,
    })
}

impl Graph {
    /// Recent assemblies, newest first, optionally of one work context; previews (the app's and
    /// `--dry-run`'s looks at a brief) only when `previews` is set.
    pub fn assemblies(
        &self,
        work_context_id: Option<&str>,
        limit: u32,
        previews: bool,
    ) -> Result<Vec<AssemblySummary>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {SUMMARY_COLUMNS} FROM brief_assemblies a
                 WHERE (?1 IS NULL OR a.work_context_id = ?1) AND (?3 OR a.delivery != 'preview')
                 ORDER BY a.assembly_id DESC LIMIT ?2"
            ))?;
            stmt.query_map(params![work_context_id, limit, previews], row_summary)?
                .collect()
        })
    }

    /// One assembly with its whole trace.
    pub fn assembly(&self, assembly_id: i64) -> Result<AssemblyDetail> {
        let found = self.with_conn_result(|c| {
            let Some((summary, warnings, request, output)) = c
                .query_row(
                    &format!(
                        "SELECT {SUMMARY_COLUMNS}, a.warnings, a.request, a.output
                         FROM brief_assemblies a WHERE a.assembly_id = ?1"
                    ),
                    [assembly_id],
                    |r| {
                        Ok((
                            row_summary(r)?,
                            r.get::<_, String>(17)?,
                            r.get::<_, String>(18)?,
                            r.get::<_, String>(19)?,
                        ))
                    },
                )
                .optional()?
            else {
                return Ok(None);
            };
            let mut stmt = c.prepare(
                "SELECT ordinal, tier, kind, source_id, session_id, turn_seq, work_context_id,
                     text, tokens, decision, reason, detail
                 FROM brief_trace_items WHERE assembly_id = ?1 ORDER BY ordinal",
            )?;
            let items = stmt
                .query_map([assembly_id], |r| {
                    Ok(TraceRow {
                        ordinal: r.get(0)?,
                        tier: r.get(1)?,
                        kind: r.get(2)?,
                        source_id: r.get(3)?,
                        session_id: r.get(4)?,
                        turn_seq: r.get(5)?,
                        work_context_id: r.get(6)?,
                        text: r.get(7)?,
                        tokens: r.get(8)?,
                        decision: r.get(9)?,
                        reason: r.get(10)?,
                        detail: r.get(11)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some(AssemblyDetail {
                summary,
                warnings: serde_json::from_str(&warnings).unwrap_or_default(),
                request,
                output,
                items,
            }))
        })?;
        found.ok_or_else(|| Error::NotFound {
            what: "brief assembly",
            id: assembly_id.to_string(),
        })
    }

    /// The delivered cross-conversation updates of a work context, with when each was
    /// delivered. The log is append-only, so this (not an entry's own `delivered` field) says
    /// whether an update has reached a session.
    pub fn update_deliveries(
        &self,
        work_context_id: &str,
    ) -> Result<BTreeMap<String, DateTime<Utc>>> {
        self.with_conn_result(|c| deliveries_in(c, work_context_id))
    }

    /// When an update was delivered, if it was.
    pub fn update_delivered_at(&self, entry_id: &str) -> Result<Option<DateTime<Utc>>> {
        let at: Option<String> = self.with_conn_result(|c| {
            c.query_row(
                "SELECT delivered_at FROM update_deliveries WHERE entry_id = ?1",
                [entry_id],
                |r| r.get(0),
            )
            .optional()
        })?;
        Ok(crate::graph::entities::parse_ts(at))
    }
}
