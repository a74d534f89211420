//! The timeline (SPEC §12): sessions, captures, observations, pushes and promotions over a window
//! of days, newest first, filtered by work context, kind and harness, with the per-day activity
//! counts stacked by work context that the Timeline's chart draws. Read-only, from the graph alone
//! (no continuity log is read), so its cost grows with the window's activity, not the store.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::params;
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{NodeId, SessionId, WorkContextId};
use crate::graph::entities::{parse_ts, ts};
use crate::graph::store::Store;

/// Days a timeline covers unless asked otherwise.
pub const DEFAULT_DAYS: u32 = 30;
/// The longest window.
pub const MAX_DAYS: u32 = 366;
/// Items returned unless asked otherwise, and at most.
pub const DEFAULT_LIMIT: u32 = 200;
pub const MAX_LIMIT: u32 = 2_000;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Session,
    Capture,
    Observation,
    Push,
    Promotion,
}

impl ItemKind {
    pub const ALL: [ItemKind; 5] = [
        ItemKind::Session,
        ItemKind::Capture,
        ItemKind::Observation,
        ItemKind::Push,
        ItemKind::Promotion,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Session => "session",
            ItemKind::Capture => "capture",
            ItemKind::Observation => "observation",
            ItemKind::Push => "push",
            ItemKind::Promotion => "promotion",
        }
    }

    pub fn parse(s: &str) -> Result<ItemKind> {
        ItemKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "unknown timeline kind `{s}`; known: session, capture, observation, push, \
                     promotion"
                ))
            })
    }
}

/// Where an item leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "to", content = "id", rename_all = "snake_case")]
pub enum Target {
    Session(SessionId),
    Observation(i64),
    Proposal(i64),
    Node(NodeId),
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub at: DateTime<Utc>,
    pub kind: ItemKind,
    pub title: String,
    pub detail: Option<String>,
    pub work_context_id: Option<WorkContextId>,
    pub work_context_name: Option<String>,
    pub harness: Option<String>,
    pub target: Option<Target>,
}

/// One work context's count on one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayCount {
    pub work_context_id: Option<WorkContextId>,
    pub name: String,
    pub count: u32,
}

/// One day of the chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    pub counts: Vec<DayCount>,
}

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub work_context: Option<WorkContextId>,
    /// Empty for every kind.
    pub kinds: Vec<ItemKind>,
    /// Sessions and captures of this harness only (other kinds have none and are left out).
    pub harness: Option<String>,
    /// 0 for [`DEFAULT_DAYS`].
    pub days: u32,
    /// 0 for [`DEFAULT_LIMIT`].
    pub limit: u32,
}

/// The timeline of a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timeline {
    pub items: Vec<Item>,
    /// More items matched than the limit; the chart still counts them all.
    pub truncated: bool,
    /// Every day of the window, oldest first.
    pub days: Vec<Day>,
}

/// Every item as (at, kind, title, detail, work context, harness, target kind, target id).
/// The union is filtered by the window, context and harness here; kinds are filtered outside.
const ITEMS: &str = "
WITH items (at, kind, title, detail, wc, harness, tkind, tid) AS (
    SELECT coalesce(s.started_at, s.last_turn_at), 'session',
           coalesce(nullif(s.title, ''), 'Session ' || s.session_id),
           s.turn_count || ' turns' || coalesce(' in ' || s.cwd, ''),
           s.work_context_id, s.harness, 'session', s.session_id
      FROM transcript_sessions s
     WHERE coalesce(s.started_at, s.last_turn_at) >= ?1
    UNION ALL
    SELECT r.captured_at, 'capture',
           'Captured ' || r.entries_written || ' entr' ||
               CASE r.entries_written WHEN 1 THEN 'y' ELSE 'ies' END ||
               ' from ' || coalesce(nullif(s.title, ''), 'session ' || r.session_id),
           r.trigger || ', ' || coalesce(r.capture_mode, r.config_mode) ||
               coalesce(' (fell back: ' || r.fallback_reason || ')', ''),
           r.work_context_id, s.harness, 'session', r.session_id
      FROM capture_runs r LEFT JOIN transcript_sessions s ON s.session_id = r.session_id
     WHERE r.captured_at >= ?1 AND r.entries_written > 0
    UNION ALL
    SELECT o.observed_at, CASE o.source WHEN 'push' THEN 'push' ELSE 'observation' END,
           CASE o.source WHEN 'push' THEN o.text
                ELSE coalesce(o.title, o.path) || ' ' ||
                     CASE o.kind WHEN 'modified' THEN 'edited' ELSE o.kind END END,
           CASE o.source WHEN 'push' THEN NULL ELSE o.text || ' — ' || o.path END,
           o.work_context_id, NULL, 'observation', o.observation_id
      FROM observations o
     WHERE o.observed_at >= ?1
    UNION ALL
    SELECT p.created_at, 'promotion',
           'Proposed ' || replace(p.node_kind, '_', ' ') || ': ' || p.text,
           CASE p.status WHEN 'pending' THEN 'waiting for review'
                         WHEN 'deferred' THEN 'deferred' END,
           p.work_context_id, NULL, 'proposal', p.proposal_id
      FROM promotion_proposals p
     WHERE p.created_at >= ?1
    UNION ALL
    SELECT p.decided_at, 'promotion',
           upper(substr(p.status, 1, 1)) || substr(p.status, 2) || ' ' ||
               replace(p.node_kind, '_', ' ') || ': ' ||
               coalesce((SELECT n.text FROM durable_nodes n WHERE n.node_id = p.node_id), p.text),
           p.decision_note, p.work_context_id, NULL,
           CASE WHEN p.node_id IS NOT NULL THEN 'node' ELSE 'proposal' END,
           coalesce(p.node_id, p.proposal_id)
      FROM promotion_proposals p
     WHERE p.decided_at >= ?1 AND p.status IN ('approved', 'rejected')
)
";

/// The timeline for `filter`, as of `now`.
pub fn query(store: &Store, filter: &Filter, now: DateTime<Utc>) -> Result<Timeline> {
    let days = match filter.days {
        0 => DEFAULT_DAYS,
        d => d.min(MAX_DAYS),
    };
    let limit = match filter.limit {
        0 => DEFAULT_LIMIT,
        l => l.min(MAX_LIMIT),
    };
    // The window starts at the beginning of the oldest day shown, so its first bar is whole.
    let first_day = (now - Duration::days(i64::from(days) - 1)).date_naive();
    let since = first_day
        .and_hms_opt(0, 0, 0)
        .map(|d| d.and_utc())
        .unwrap_or(now);
    let kinds: Vec<&str> = if filter.kinds.is_empty() {
        ItemKind::ALL.iter().map(|k| k.as_str()).collect()
    } else {
        filter.kinds.iter().map(|k| k.as_str()).collect()
    };
    let kinds_json = serde_json::to_string(&kinds).unwrap_or_default();
    let wc = filter.work_context.as_ref().map(WorkContextId::as_str);
    let harness = filter.harness.as_deref();
    // Both queries read the same filtered items, with the context's name beside each.
    let selected = "FROM items i LEFT JOIN work_contexts w ON w.work_context_id = i.wc
         WHERE i.kind IN (SELECT value FROM json_each(?2))
           AND (?3 IS NULL OR i.wc = ?3)
           AND (?4 IS NULL OR i.harness = ?4)";
    let graph = store.graph();
    let (rows, counts) = graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(&format!(
            "{ITEMS} SELECT i.at, i.kind, i.title, i.detail, i.wc, w.name, i.harness, i.tkind,
                    i.tid
             {selected}
             ORDER BY i.at DESC, i.kind, i.tid DESC LIMIT ?5"
        ))?;
        let rows = stmt
            .query_map(
                params![ts(since), kinds_json, wc, harness, i64::from(limit) + 1],
                |r| {
                    Ok((
                        r.get::<_, Option<String>>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, Option<String>>(4)?,
                        r.get::<_, Option<String>>(5)?,
                        r.get::<_, Option<String>>(6)?,
                        r.get::<_, String>(7)?,
                        r.get::<_, rusqlite::types::Value>(8)?,
                    ))
                },
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut stmt = c.prepare_cached(&format!(
            "{ITEMS} SELECT substr(i.at, 1, 10), i.wc, coalesce(w.name, i.wc), count(*)
             {selected}
             GROUP BY 1, 2 ORDER BY 1, 2"
        ))?;
        let counts = stmt
            .query_map(params![ts(since), kinds_json, wc, harness], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, i64>(3)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((rows, counts))
    })?;
    let truncated = rows.len() > limit as usize;
    let items = rows
        .into_iter()
        .take(limit as usize)
        .filter_map(|(at, kind, title, detail, wc, name, harness, tkind, tid)| {
            let at = parse_ts(at)?;
            let kind = ItemKind::parse(&kind).ok()?;
            let tid = match tid {
                rusqlite::types::Value::Integer(n) => n.to_string(),
                rusqlite::types::Value::Text(t) => t,
                _ => String::new(),
            };
            let target = match tkind.as_str() {
                "session" => SessionId::new(tid).ok().map(Target::Session),
                "observation" => tid.parse().ok().map(Target::Observation),
                "proposal" => tid.parse().ok().map(Target::Proposal),
                "node" => NodeId::new(tid).ok().map(Target::Node),
                _ => None,
            };
            Some(Item {
                at,
                kind,
                title,
                detail,
                work_context_id: wc.and_then(|w| WorkContextId::new(w).ok()),
                work_context_name: name,
                harness,
                target,
            })
        })
        .collect();
    let mut by_day: BTreeMap<String, Vec<DayCount>> = BTreeMap::new();
    for (day, wc, name, n) in counts {
        let Some(day) = day else { continue };
        by_day.entry(day).or_default().push(DayCount {
            work_context_id: wc.and_then(|w| WorkContextId::new(w).ok()),
            name: name.unwrap_or_else(|| "no work context".to_owned()),
            count: n.max(0) as u32,
        });
    }
    let days = (0..days)
        .map(|i| {
            let day = (first_day + Duration::days(i64::from(i)))
                .format("%Y-%m-%d")
                .to_string();
            let counts = by_day.remove(&day).unwrap_or_default();
            Day { day, counts }
        })
        .collect();
    Ok(Timeline {
        items,
        truncated,
        days,
    })
}

#[cfg(test)]
mod tests;
