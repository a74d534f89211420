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
    let mut written = 0;
    let mut waiting = Waiting::default();
    let mut targets = BTreeSet::new();
    for (event_id, payload) in events {
        // A payload this build cannot read is consumed without delivery rather than retried
        // forever; it is still in the table for inspection.
        if let Ok(event) = serde_json::from_str::<EntityUpserted>(&payload) {
            written += deliver(store, config, &event, now, &mut waiting, &mut targets)?;
        }
        graph.with_conn_result(|c| {
            c.execute(
                "UPDATE events SET consumed_at = ?2 WHERE event_id = ?1",
                params![event_id, ts(now)],
            )
        })?;
    }
    Ok(Delivered {
        written,
        touched: targets,
    })
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

fn deliver(
    store: &Store,
    config: &ContinuityConfig,
    event: &EntityUpserted,
    now: DateTime<Utc>,
    waiting: &mut Waiting,
    written_to: &mut BTreeSet<WorkContextId>,
) -> Result<usize> {
    let graph = store.graph();
    let targets = graph.with_conn_result(|c| {
        contexts::referencing_in(
            c,
            event.entity_id.as_str(),
            event.work_context_id.as_ref().map(|w| w.as_str()),
        )
    })?;
    if targets.is_empty() {
        return Ok(0);
    }
    let source_session = match (&event.observation, &event.source_session_id) {
        (Some(o), _) => SessionId::new(o.source_key.clone())?,
        (None, Some(s)) => s.clone(),
        (None, None) => SessionId::new(event.source_kind.clone())?,
    };
    let summary = match &event.observation {
        // An observation names the file or the push itself (CSA §9): "Henderson brief edited
        // outside chat (brief.md)."
        Some(o) => o.summary.clone(),
        None => session_summary(store, event),
    };
    let mut written = 0;
    for wc in targets {
        if append_update(
            store,
            config,
            &wc,
            &source_session,
            &summary,
            std::slice::from_ref(&event.entity_id),
            now,
            waiting,
        )? {
            written_to.insert(wc.clone());
            written += 1;
        }
    }
    if let Some(o) = &event.observation {
        crate::inputs::observe::count_updates(graph, o.observation_id, written)?;
    }
    Ok(written)
}

/// The update text for an entity change a session (or the person's edit) made.
fn session_summary(store: &Store, event: &EntityUpserted) -> String {
    let where_from = match &event.work_context_id {
        Some(wc) => match store.graph().work_context(wc.as_str()) {
            Ok(w) => format!(" in work context \"{}\"", w.name),
            Err(_) => format!(" in {wc}"),
        },
        None if event.source_kind == "manual" => " by you".to_owned(),
        None => String::new(),
    };
    match event.change.as_str() {
        "referenced" => format!(
            "{} came up in another conversation{where_from} (session {}).",
            event.canonical_name,
            event
                .source_session_id
                .as_ref()
                .map(SessionId::as_str)
                .unwrap_or(event.source_kind.as_str())
        ),
        "created" => format!("{} was added{where_from}.", event.canonical_name),
        "merged" => format!(
            "{} was merged with another entity{where_from}.",
            event.canonical_name
        ),
        _ => format!("{} was updated{where_from}.", event.canonical_name),
    }
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
        return Ok(false);
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
    // The update happened when its source session did the work, not when ELNOR delivered it;
    // an observation or a push has no session row and happened now.
    let happened: Option<String> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT last_turn_at FROM transcript_sessions WHERE session_id = ?1",
            [source.as_str()],
            |r| r.get(0),
        )
        .optional()
        .map(Option::flatten)
    })?;
    if let Some(at) = happened
        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc))
        .filter(|t| *t <= now)
    {
        entry = entry.happened(at, config);
    }
    entry.linked_entity_ids = entities.to_vec();
    store.log(wc).append(&entry)?;
    Ok(true)
}
