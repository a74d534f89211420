//! Cross-conversation detection (CSA §5.5): every `graph.entity.upserted` event in the outbox is
//! delivered as a `cross_conversation_update` entry to each *other* work context that references
//! the entity (linked to it, or referenced by one of its sessions), then marked consumed.
//!
//! Driven by graph events, not by a model, so it works in full and deterministic mode alike; in
//! `off` nothing is delivered and events wait. An update already waiting undelivered in a context
//! for the same entity and source session is not written twice.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use rusqlite::params;

use crate::config::{ContinuityConfig, ContinuityMode};
use crate::contexts;
use crate::continuity::{
    CaptureMode, ContinuityEntry, CrossConversationUpdateContent, EntryContent,
};
use crate::entities::{ENTITY_UPSERTED, EntityUpserted, ts};
use crate::error::Result;
use crate::ids::{EntityId, SessionId, WorkContextId};
use crate::store::Store;

/// Delivers every pending entity event; returns how many update entries were written.
pub fn deliver_pending(
    store: &Store,
    config: &ContinuityConfig,
    now: DateTime<Utc>,
) -> Result<usize> {
    if config.mode == ContinuityMode::Off {
        return Ok(0);
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
    // A new entry is a rebuild trigger (CSA §4.3) for each view it landed in.
    crate::constellation::refresh(store, &targets, now);
    Ok(written)
}

/// The undelivered updates already in each target log, as (source session, entity) pairs: each
/// log is read once per delivery run, however many events name it.
#[derive(Default)]
struct Waiting(BTreeMap<WorkContextId, BTreeSet<(SessionId, EntityId)>>);

impl Waiting {
    fn of(
        &mut self,
        store: &Store,
        wc: &WorkContextId,
    ) -> Result<&mut BTreeSet<(SessionId, EntityId)>> {
        if !self.0.contains_key(wc) {
            let mut set = BTreeSet::new();
            // Delivery is recorded in the graph, the log being append-only.
            let delivered = store.graph().update_deliveries(wc.as_str())?;
            for e in store.log(wc).read()?.entries {
                if let EntryContent::CrossConversationUpdate(u) = e.content
                    && !e.delivered
                    && !delivered.contains_key(e.entry_id.as_str())
                {
                    for entity in u.affected_entity_ids {
                        set.insert((u.source_session_id.clone(), entity));
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
    let source_session = match &event.source_session_id {
        Some(s) => s.clone(),
        None => SessionId::new(event.source_kind.clone())?,
    };
    let where_from = match &event.work_context_id {
        Some(wc) => match graph.work_context(wc.as_str()) {
            Ok(w) => format!(" in work context \"{}\"", w.name),
            Err(_) => format!(" in {wc}"),
        },
        None if event.source_kind == "manual" => " by you".to_owned(),
        None => String::new(),
    };
    let summary = match event.change.as_str() {
        "referenced" => format!(
            "{} came up in another conversation{where_from} (session {}).",
            event.canonical_name, source_session
        ),
        "created" => format!("{} was added{where_from}.", event.canonical_name),
        "merged" => format!(
            "{} was merged with another entity{where_from}.",
            event.canonical_name
        ),
        _ => format!("{} was updated{where_from}.", event.canonical_name),
    };
    let mut written = 0;
    for wc in targets {
        let key = (source_session.clone(), event.entity_id.clone());
        if !waiting.of(store, &wc)?.insert(key) {
            continue;
        }
        let mut entry = ContinuityEntry::new(
            wc.clone(),
            source_session.clone(),
            now,
            CaptureMode::Deterministic,
            EntryContent::CrossConversationUpdate(CrossConversationUpdateContent {
                summary: summary.clone(),
                source_session_id: source_session.clone(),
                affected_entity_ids: vec![event.entity_id.clone()],
            }),
            config,
        );
        entry.linked_entity_ids = vec![event.entity_id.clone()];
        store.log(&wc).append(&entry)?;
        written_to.insert(wc.clone());
        written += 1;
    }
    Ok(written)
}
