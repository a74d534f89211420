//! Cross-conversation detection (CSA §5.5): every `graph.entity.upserted` event in the outbox is
//! delivered as a `cross_conversation_update` entry to each *other* work context that references
//! the entity (linked to it, or referenced by one of its sessions), then marked consumed.
//!
//! Driven by graph events, not by a model, so it works in full and deterministic mode alike; in
//! `off` nothing is delivered and events wait. An update already waiting undelivered in a context
//! for the same entity and source session is not written twice.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use crate::base::config::{ContinuityConfig, ContinuityMode};
use crate::base::error::Result;
use crate::base::ids::{EntityId, SessionId, WorkContextId};
use crate::continuity::{
    CaptureMode, ContinuityEntry, CrossConversationUpdateContent, EntryContent,
};
use crate::graph::contexts;
use crate::graph::entities::{ENTITY_UPSERTED, EntityUpserted, ts};
use crate::graph::store::Store;

/// What one delivery run wrote: how many update entries, and into which work contexts' logs
/// (their views are derived from those logs; the caller's use case refreshes them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    pub written: usize,
    pub touched: BTreeSet<WorkContextId>,
}

/// Delivers every pending entity event; says how many update entries it wrote, and where.
///
/// The events of one run are gathered first, then written as one update per source (a session,
/// an observation, the person's edits) and target context, naming every entity that source
/// touched there: a session that mentions five entities a context shares tells it once, not
/// five times. Each target log is read once and appended to once per run.
pub(crate) fn deliver_pending(
    store: &Store,
    config: &ContinuityConfig,
    now: DateTime<Utc>,
) -> Result<Delivered> {
    if config.mode == ContinuityMode::Off {
        return Ok(Delivered::default());
    }
    let graph = store.graph();
    let events: Vec<(i64, String)> = graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT event_id, payload FROM events
             WHERE event_type = ?1 AND consumed_at IS NULL ORDER BY event_id",
        )?;
        stmt.query_map([ENTITY_UPSERTED], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect()
    })?;
    if events.is_empty() {
        return Ok(Delivered::default());
    }
    // Sources in the order of their first event, each with its targets and what it did to the
    // entities each target shares.
    let mut sources: Vec<Source> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (_, payload) in &events {
        // A payload this build cannot read is consumed without delivery rather than retried
        // forever; it is still in the table for inspection.
        let Ok(event) = serde_json::from_str::<EntityUpserted>(payload) else {
            continue;
        };
        let targets = graph.with_conn_result(|c| {
            let except = event.work_context_id.as_ref().map(|w| w.as_str());
            if event.change == "referenced" && event.observation.is_none() {
                contexts::session_reference_targets_in(c, event.entity_id.as_str(), except)
            } else {
                contexts::referencing_in(c, event.entity_id.as_str(), except)
            }
        })?;
        if targets.is_empty() {
            continue;
        }
        let key = match &event.observation {
            Some(o) => format!("observation:{}", o.observation_id),
            None => format!(
                "session:{}",
                event
                    .source_session_id
                    .as_ref()
                    .map(SessionId::as_str)
                    .unwrap_or(event.source_kind.as_str())
            ),
        };
        let at = *index.entry(key).or_insert_with(|| {
            sources.push(Source {
                first: event.clone(),
                targets: BTreeMap::new(),
            });
            sources.len() - 1
        });
        let source = &mut sources[at];
        for wc in targets {
            let touched = source.targets.entry(wc).or_default();
            if !touched.iter().any(|(id, ..)| id == &event.entity_id) {
                touched.push((
                    event.entity_id.clone(),
                    event.canonical_name.clone(),
                    event.change.clone(),
                ));
            }
        }
    }

    let mut waiting = Waiting::default();
    let mut out: BTreeMap<WorkContextId, Vec<ContinuityEntry>> = BTreeMap::new();
    let mut per_observation: Vec<(i64, usize)> = Vec::new();
    for source in &sources {
        let event = &source.first;
        let source_session = match (&event.observation, &event.source_session_id) {
            (Some(o), _) => SessionId::new(o.source_key.clone())?,
            (None, Some(s)) => s.clone(),
            (None, None) => SessionId::new(event.source_kind.clone())?,
        };
        let happened = happened_at(store, &source_session, now)?;
        let where_from = where_from(store, event);
        let mut written = 0;
        for (wc, touched) in &source.targets {
            let summary = match &event.observation {
                // An observation names the file or the push itself (CSA §9): "Henderson brief
                // edited outside chat (brief.md)."
                Some(o) => o.summary.clone(),
                None => session_summary(event, &where_from, touched),
            };
            let entities: Vec<EntityId> = touched.iter().map(|(id, ..)| id.clone()).collect();
            if let Some(entry) = new_update(
                store,
                config,
                wc,
                &source_session,
                &summary,
                &entities,
                now,
                happened,
                &mut waiting,
            )? {
                out.entry(wc.clone()).or_default().push(entry);
                written += 1;
            }
        }
        if let Some(o) = &event.observation {
            per_observation.push((o.observation_id, written));
        }
    }
    let mut written = 0;
    let mut targets = BTreeSet::new();
    for (wc, entries) in &out {
        store.log(wc).append_all(entries)?;
        written += entries.len();
        targets.insert(wc.clone());
    }
    for (observation_id, n) in per_observation {
        crate::inputs::observe::count_updates(graph, observation_id, n)?;
    }
    // The events are consumed once their updates are on disk; a crash before this line
    // delivers them again, and the waiting updates already in the logs keep that from writing
    // anything twice.
    {
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        {
            let mut stmt = tx
                .prepare_cached("UPDATE events SET consumed_at = ?2 WHERE event_id = ?1")
                .map_err(|e| graph.sql(e))?;
            for (event_id, _) in &events {
                stmt.execute(params![event_id, ts(now)])
                    .map_err(|e| graph.sql(e))?;
            }
        }
        tx.commit().map_err(|e| graph.sql(e))?;
    }
    Ok(Delivered {
        written,
        touched: targets,
    })
}

/// One source of entity changes in a delivery run: its first event (which names the source),
/// and per target context the entities it touched there, each with its name and change.
struct Source {
    first: EntityUpserted,
    targets: BTreeMap<WorkContextId, Vec<(EntityId, String, String)>>,
}

/// The undelivered updates already in each target log, as (source session, entity) pairs, the
/// entity absent for an update naming none: each log is read once per delivery run, however many
/// events name it.
#[derive(Default)]
pub(crate) struct Waiting(BTreeMap<WorkContextId, BTreeSet<(SessionId, Option<EntityId>)>>);

impl Waiting {
    pub(crate) fn of(
        &mut self,
        store: &Store,
        wc: &WorkContextId,
    ) -> Result<&mut BTreeSet<(SessionId, Option<EntityId>)>> {
        if !self.0.contains_key(wc) {
            let mut set = BTreeSet::new();
            // Delivery is recorded in the graph, the log being append-only.
            let delivered = store.graph().update_deliveries(wc.as_str())?;
            for e in store.log(wc).read()?.entries {
                if let EntryContent::CrossConversationUpdate(u) = e.content
                    && !e.delivered
                    && !delivered.contains_key(e.entry_id.as_str())
                {
                    if u.affected_entity_ids.is_empty() {
                        set.insert((u.source_session_id.clone(), None));
                    }
                    for entity in u.affected_entity_ids {
                        set.insert((u.source_session_id.clone(), Some(entity)));
                    }
                }
            }
            self.0.insert(wc.clone(), set);
        }
        Ok(self.0.entry(wc.clone()).or_default())
    }
}

/// Where a session's change happened, for the update's text: its work context's name, "by you"
/// for the person's own edit, or nothing when unknown.
fn where_from(store: &Store, event: &EntityUpserted) -> String {
    match &event.work_context_id {
        Some(wc) => match store.graph().work_context(wc.as_str()) {
            Ok(w) => format!(" in work context \"{}\"", w.name),
            Err(_) => format!(" in {wc}"),
        },
        None if event.source_kind == "manual" => " by you".to_owned(),
        None => String::new(),
    }
}

/// The update text for what one session (or the person's edits) did to the entities a target
/// shares: one sentence per kind of change, e.g. "Henderson and Judge Chen came up in another
/// conversation in work context \"motion\" (session 42)."
fn session_summary(
    event: &EntityUpserted,
    where_from: &str,
    touched: &[(EntityId, String, String)],
) -> String {
    // The names of the entities whose change matches, as one list, and the verb that agrees
    // with how many there are.
    let names = |change: &dyn Fn(&str) -> bool| -> Option<(String, &'static str)> {
        let list: Vec<&str> = touched
            .iter()
            .filter(|(_, _, c)| change(c))
            .map(|(_, n, _)| n.as_str())
            .collect();
        let verb = if list.len() == 1 { "was" } else { "were" };
        Some(list)
            .filter(|l| !l.is_empty())
            .map(|l| (name_list(&l), verb))
    };
    let session = event
        .source_session_id
        .as_ref()
        .map(SessionId::as_str)
        .unwrap_or(event.source_kind.as_str());
    let mut parts = Vec::new();
    if let Some((n, _)) = names(&|c| c == "referenced") {
        parts.push(format!(
            "{n} came up in another conversation{where_from} (session {session})."
        ));
    }
    if let Some((n, verb)) = names(&|c| c == "created") {
        parts.push(format!("{n} {verb} added{where_from}."));
    }
    if let Some((n, verb)) = names(&|c| c == "merged") {
        parts.push(format!(
            "{n} {verb} merged with another entity{where_from}."
        ));
    }
    if let Some((n, verb)) = names(&|c| !matches!(c, "referenced" | "created" | "merged")) {
        parts.push(format!("{n} {verb} updated{where_from}."));
    }
    parts.join(" ")
}

/// "A", "A and B", "A, B and C", or "A, B, C and 4 more": a list that stays one line.
fn name_list(names: &[&str]) -> String {
    const SHOWN: usize = 3;
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        _ if names.len() <= SHOWN => format!(
            "{} and {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ),
        _ => format!(
            "{} and {} more",
            names[..SHOWN].join(", "),
            names.len() - SHOWN
        ),
    }
}

/// When the source session did the work: an update happened then, not when ELNOR delivered it;
/// an observation or a push has no session row and happened now (`None`).
fn happened_at(
    store: &Store,
    source: &SessionId,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>> {
    let happened: Option<String> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT last_turn_at FROM transcript_sessions WHERE session_id = ?1",
            [source.as_str()],
            |r| r.get(0),
        )
        .optional()
        .map(Option::flatten)
    })?;
    Ok(happened
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc))
        .filter(|t| *t <= now))
}

/// Appends one cross-conversation update to `wc`'s log unless an undelivered one from the same
/// source about the same entities already waits there; returns whether it wrote. An update with
/// no entities (an observation told straight to its own work context) waits once per source.
#[allow(clippy::too_many_arguments)]
pub(crate) fn append_update(
    store: &Store,
    config: &ContinuityConfig,
    wc: &WorkContextId,
    source: &SessionId,
    summary: &str,
    entities: &[EntityId],
    now: DateTime<Utc>,
    waiting: &mut Waiting,
) -> Result<bool> {
    let happened = happened_at(store, source, now)?;
    let Some(entry) = new_update(
        store, config, wc, source, summary, entities, now, happened, waiting,
    )?
    else {
        return Ok(false);
    };
    store.log(wc).append(&entry)?;
    Ok(true)
}

/// The update entry for `wc`, or `None` when an undelivered one from the same source about the
/// same entities already waits there (the entry is counted as waiting from now on, so a run
/// does not make it twice).
#[allow(clippy::too_many_arguments)]
fn new_update(
    store: &Store,
    config: &ContinuityConfig,
    wc: &WorkContextId,
    source: &SessionId,
    summary: &str,
    entities: &[EntityId],
    now: DateTime<Utc>,
    happened: Option<DateTime<Utc>>,
    waiting: &mut Waiting,
) -> Result<Option<ContinuityEntry>> {
    let pending = waiting.of(store, wc)?;
    let keys: Vec<(SessionId, Option<EntityId>)> = if entities.is_empty() {
        vec![(source.clone(), None)]
    } else {
        entities
            .iter()
            .map(|e| (source.clone(), Some(e.clone())))
            .collect()
    };
    if keys.iter().all(|k| pending.contains(k)) {
        return Ok(None);
    }
    pending.extend(keys);
    let mut entry = ContinuityEntry::new(
        wc.clone(),
        source.clone(),
        now,
        CaptureMode::Deterministic,
        EntryContent::CrossConversationUpdate(CrossConversationUpdateContent {
            summary: summary.to_owned(),
            source_session_id: source.clone(),
            affected_entity_ids: entities.to_vec(),
        }),
        config,
    );
    if let Some(at) = happened {
        entry = entry.happened(at, config);
    }
    entry.linked_entity_ids = entities.to_vec();
    Ok(Some(entry))
}
