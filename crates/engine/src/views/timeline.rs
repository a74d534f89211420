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
/// The longest window, and what asks for all of history: a century of days.
pub const MAX_DAYS: u32 = 36_500;

/// Windows up to this many days are charted a bar per day; longer ones a bar per week.
pub const DAILY_UP_TO: u32 = 120;
/// Windows longer than this are charted a bar per month.
pub const WEEKLY_UP_TO: u32 = 730;

/// The chart keeps this many work contexts apart, the most active first; the rest share one
/// "other" bar, so colours never repeat in the legend.
pub const CHART_CONTEXTS: usize = 7;
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

/// One work context's count on one day (or week, or month).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayCount {
    /// `None` for the "other" bar: the less active contexts and work outside any context.
    pub work_context_id: Option<WorkContextId>,
    pub name: String,
    pub count: u32,
}

/// One bar of the chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    /// The first day the bar covers, `YYYY-MM-DD` (UTC).
    pub day: String,
    pub counts: Vec<DayCount>,
}

/// What one bar of the chart covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bucket {
    Day,
    Week,
    Month,
}

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub work_context: Option<WorkContextId>,
    /// Empty for every kind.
    pub kinds: Vec<ItemKind>,
    /// Sessions and captures of this harness only (other kinds have none and are left out).
    pub harness: Option<String>,
    /// 0 for [`DEFAULT_DAYS`]; [`MAX_DAYS`] or more for all of history (from the oldest item).
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
    /// Every bar of the window, oldest first.
    pub days: Vec<Day>,
    /// What each bar covers.
    pub bucket: Bucket,
    /// The chart's legend: the most active contexts, then "other", each with its items in the
    /// window; most items first.
    pub legend: Vec<DayCount>,
    /// The first day of the window (for all of history, the oldest item's).
    pub since: String,
}

/// Every item as (at, kind, title, detail, work context, harness, target kind, target id).
/// The union is filtered by the window, context and harness here; kinds are filtered outside.
const ITEMS: &str = "
WITH items (at, kind, title, detail, wc, harness, tkind, tid) AS (
    SELECT coalesce(s.started_at, s.last_turn_at), 'session',
           elnor_session_title(s.title, s.request, s.did, s.session_id),
           s.turn_count || ' turns' || coalesce(' in ' || s.cwd, ''),
           s.work_context_id, s.harness, 'session', s.session_id
      FROM transcript_sessions s
     WHERE coalesce(s.started_at, s.last_turn_at) >= ?1
    UNION ALL
    SELECT r.captured_at, 'capture',
           'Captured ' || r.entries_written || ' entr' ||
               CASE r.entries_written WHEN 1 THEN 'y' ELSE 'ies' END ||
               ' from ' || elnor_session_title(s.title, s.request, s.did, r.session_id),
           elnor_capture_detail(r.trigger, coalesce(r.capture_mode, r.config_mode),
                                r.fallback_reason),
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

/// A session's name in the timeline: its title as lists show it, else its short id.
fn session_title(
    title: Option<String>,
    request: Option<String>,
    did: Option<String>,
    id: String,
) -> String {
    crate::inputs::ingest::kinds::display_title(
        title.as_deref(),
        request.as_deref(),
        did.as_deref(),
    )
    .unwrap_or_else(|| format!("session {}", id.chars().take(8).collect::<String>()))
}

/// Why and how a session was captured, in words: "after it went quiet, offline".
fn capture_detail(trigger: String, mode: Option<String>, fallback: Option<String>) -> String {
    let why = match trigger.as_str() {
        "idle_timeout" => "after it went quiet",
        "debounced_defocus" => "after you switched away",
        "pre_compaction" => "before the harness compacted it",
        "nightly_sweep" => "by the nightly job",
        "manual_request" => "because you asked",
        other => other,
    };
    let how = match mode.as_deref() {
        Some("full") => "with the model",
        Some("deterministic") => "offline",
        Some("off") => "not at all",
        Some(other) => other,
        None => "",
    };
    let mut out = if how.is_empty() {
        why.to_owned()
    } else {
        format!("{why}, {how}")
    };
    if let Some(reason) = fallback {
        out.push_str(&format!(" (the model was not used: {reason})"));
    }
    out
}

/// Registers the functions the timeline's SQL calls on `c`.
fn register_functions(c: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    c.create_scalar_function("elnor_session_title", 4, flags, |ctx| {
        Ok(session_title(
            ctx.get(0)?,
            ctx.get(1)?,
            ctx.get(2)?,
            ctx.get(3)?,
        ))
    })?;
    c.create_scalar_function("elnor_capture_detail", 3, flags, |ctx| {
        Ok(capture_detail(ctx.get(0)?, ctx.get(1)?, ctx.get(2)?))
    })
}

/// The first day of the bar that holds `day`.
fn bucket_start(day: chrono::NaiveDate, bucket: Bucket) -> chrono::NaiveDate {
    use chrono::Datelike;
    match bucket {
        Bucket::Day => day,
        Bucket::Week => day - Duration::days(i64::from(day.weekday().num_days_from_monday())),
        Bucket::Month => day.with_day(1).unwrap_or(day),
    }
}

/// The first day of the bar after the one starting on `start`.
fn next_bucket(start: chrono::NaiveDate, bucket: Bucket) -> chrono::NaiveDate {
    match bucket {
        Bucket::Day => start + Duration::days(1),
        Bucket::Week => start + Duration::days(7),
        Bucket::Month => start
            .checked_add_months(chrono::Months::new(1))
            .unwrap_or(start + Duration::days(31)),
    }
}

/// The timeline for `filter`, as of `now`.
pub fn query(store: &Store, filter: &Filter, now: DateTime<Utc>) -> Result<Timeline> {
    let graph = store.graph();
    // A filter naming a context that does not exist is a mistake to say, not an empty timeline.
    if let Some(wc) = filter.work_context.as_ref().filter(|wc| !wc.is_unlinked()) {
        graph.work_context(wc.as_str())?;
    }
    graph.with_conn_result(register_functions)?;
    let days = match filter.days {
        0 => DEFAULT_DAYS,
        d if d >= MAX_DAYS => {
            // All of history: from the oldest item, whatever its kind.
            let oldest: Option<String> = graph.with_conn_result(|c| {
                c.query_row(
                    &format!("{ITEMS} SELECT min(at) FROM items"),
                    params![ts(DateTime::<Utc>::UNIX_EPOCH)],
                    |r| r.get(0),
                )
            })?;
            let oldest = parse_ts(oldest).unwrap_or(now);
            u32::try_from((now - oldest).num_days() + 1)
                .unwrap_or(MAX_DAYS)
                .clamp(1, MAX_DAYS)
        }
        d => d,
    };
    let bucket = match days {
        d if d <= DAILY_UP_TO => Bucket::Day,
        d if d <= WEEKLY_UP_TO => Bucket::Week,
        _ => Bucket::Month,
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
    // The window's first bar starts where its bucket does, so it is whole too.
    let since = bucket_start(first_day, bucket)
        .and_hms_opt(0, 0, 0)
        .map(|d| d.and_utc())
        .unwrap_or(since);
    // Both queries read the same filtered items, with the context's name beside each.
    let selected = "FROM items i LEFT JOIN work_contexts w ON w.work_context_id = i.wc
         WHERE i.kind IN (SELECT value FROM json_each(?2))
           AND (?3 IS NULL OR i.wc = ?3)
           AND (?4 IS NULL OR i.harness = ?4)";
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
    // The most active contexts keep their own bar; the rest (and work outside any context)
    // share "other".
    let mut totals: BTreeMap<Option<String>, (String, u32)> = BTreeMap::new();
    for (_, wc, name, n) in &counts {
        let entry = totals
            .entry(wc.clone())
            .or_insert_with(|| (name.clone().unwrap_or_default(), 0));
        entry.1 += n.max(&0).to_owned() as u32;
    }
    let mut ranked: Vec<(Option<String>, String, u32)> = totals
        .into_iter()
        .filter(|(wc, _)| wc.is_some())
        .map(|(wc, (name, n))| (wc, name, n))
        .collect();
    ranked.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    ranked.truncate(CHART_CONTEXTS);
    let kept: BTreeMap<String, String> = ranked
        .iter()
        .filter_map(|(wc, name, _)| Some((wc.clone()?, name.clone())))
        .collect();
    let mut by_bar: BTreeMap<chrono::NaiveDate, BTreeMap<Option<String>, u32>> = BTreeMap::new();
    let mut other_total = 0u32;
    for (day, wc, _, n) in counts {
        let Some(day) = day.and_then(|d| chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok())
        else {
            continue;
        };
        let key = wc.filter(|w| kept.contains_key(w));
        let n = n.max(0) as u32;
        if key.is_none() {
            other_total += n;
        }
        *by_bar
            .entry(bucket_start(day, bucket))
            .or_default()
            .entry(key)
            .or_default() += n;
    }
    let other = "other work";
    let count_of = |wc: Option<String>, count: u32| DayCount {
        name: match &wc {
            Some(w) => kept.get(w).cloned().unwrap_or_default(),
            None => other.to_owned(),
        },
        work_context_id: wc.and_then(|w| WorkContextId::new(w).ok()),
        count,
    };
    let mut days = Vec::new();
    let mut start = bucket_start(first_day, bucket);
    let last = now.date_naive();
    while start <= last {
        let counts = by_bar
            .remove(&start)
            .unwrap_or_default()
            .into_iter()
            .map(|(wc, n)| count_of(wc, n))
            .collect();
        days.push(Day {
            day: start.format("%Y-%m-%d").to_string(),
            counts,
        });
        start = next_bucket(start, bucket);
    }
    let mut legend: Vec<DayCount> = ranked
        .into_iter()
        .map(|(wc, name, count)| DayCount {
            work_context_id: wc.and_then(|w| WorkContextId::new(w).ok()),
            name,
            count,
        })
        .collect();
    if other_total > 0 {
        legend.push(DayCount {
            work_context_id: None,
            name: other.to_owned(),
            count: other_total,
        });
    }
    Ok(Timeline {
        items,
        truncated,
        days,
        bucket,
        legend,
        since: bucket_start(first_day, bucket)
            .format("%Y-%m-%d")
            .to_string(),
    })
}

#[cfg(test)]
mod tests;
