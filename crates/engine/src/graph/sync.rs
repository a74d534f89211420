//! The graph's side of sync (issue 40): changes the person makes to the graph, kept as events
//! that travel to their other devices, and the per-field clocks that make every device converge
//! on the same graph whatever order the events arrive in.
//!
//! An event is one JSON line (`GraphEvent`); this device's own are recorded by the use case that
//! made the change, other devices' arrive through a sync. Applying an event to a field writes it
//! only when the event is newer than the write in force (by time, then device, then event id), so
//! two devices that have seen the same events hold the same values. A write that loses to, or
//! beats, a concurrent write of this device is kept as a conflict for the person to see.
//!
//! Architecture Invariant: this module stores and orders events; what an event does to the graph
//! is the sync use case's (`usecase/sync`), which calls the graph's own writers.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::graph::Graph;
use crate::graph::entities::ts;

/// One change to the graph, as it travels between devices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphEvent {
    /// `ev_{time}_{device}_{n}`: unique across devices, and sorted by time within one.
    pub event_id: String,
    pub device: String,
    /// When the change was made (the work context's creation for [`GraphChange::ContextKnown`]).
    pub at: DateTime<Utc>,
    #[serde(flatten)]
    pub change: GraphChange,
}

/// What an event changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GraphChange {
    /// A work context exists, as it was made (its fields at its creation time, so a later
    /// rename on any device wins over them).
    ContextKnown {
        context: String,
        name: String,
        origin: String,
        #[serde(default)]
        domain_lineage: Option<String>,
        #[serde(default)]
        local_only: bool,
    },
    /// Fields of a work context set by the person: `name`, `domain_lineage` (null clears it),
    /// `local_only`.
    ContextSet {
        context: String,
        set: BTreeMap<String, serde_json::Value>,
    },
    /// A link rule added (`present`) or removed.
    RuleSet {
        context: String,
        rule_kind: String,
        pattern: String,
        present: bool,
    },
    /// Work context `absorb` merged into `keep`.
    ContextMerge { keep: String, absorb: String },
    /// A promotion proposal decided (`approved`, `rejected`, `deferred`), named by its entry and
    /// rule; the proposal's text and evidence come along for a device that has not made it yet.
    ReviewDecided {
        entry_id: String,
        rule: String,
        work_context: String,
        text: String,
        evidence: serde_json::Value,
        decision: String,
        #[serde(default)]
        final_text: Option<String>,
        #[serde(default)]
        note: Option<String>,
    },
    /// An entity as made, by the person or by a capture (its id is its name's slug, so the
    /// same name made on two devices is one entity).
    EntityKnown {
        entity: String,
        name: String,
        entity_kind: String,
        #[serde(default)]
        aliases: Vec<String>,
        #[serde(default)]
        deadline: Option<String>,
    },
    /// An entity tied to a work context (by a capture, or by the context's making): what the
    /// context's view lists among its entities.
    EntityLinked { entity: String, context: String },
    /// Fields of an entity set by the person: `canonical_name`, `kind`, `deadline` (null
    /// clears it).
    EntitySet {
        entity: String,
        set: BTreeMap<String, serde_json::Value>,
    },
    /// An alias added (`present`) or removed by the person.
    EntityAlias {
        entity: String,
        alias: String,
        present: bool,
    },
    /// Entity `absorb` merged into `keep` by the person.
    EntityMerge { keep: String, absorb: String },
    /// A Topic, as made (its id comes along: it is made from the name and the time).
    TopicKnown {
        topic: String,
        name: String,
        description: String,
        rules: serde_json::Value,
        collecting: bool,
    },
    /// Fields of a Topic set by the person: `name`, `description`, `rules`, `collecting`.
    TopicSet {
        topic: String,
        set: BTreeMap<String, serde_json::Value>,
    },
    /// A Topic deleted: it stays deleted whatever edit of it arrives later.
    TopicDeleted { topic: String },
    /// A document pinned into a Topic (`present`) or taken out of it.
    TopicPin {
        topic: String,
        doc_ref: String,
        doc_kind: String,
        label: String,
        #[serde(default)]
        doc_at: Option<DateTime<Utc>>,
        present: bool,
    },
    /// Fields of a durable node set by the person: `text`, `lifecycle`, `warrant`; `reason`
    /// is what they said.
    NodeSet {
        node: String,
        set: BTreeMap<String, serde_json::Value>,
        #[serde(default)]
        reason: Option<String>,
    },
    /// A living-memory fact the person added, under its key.
    FactKnown {
        fact: String,
        text: String,
        created_at: String,
    },
    /// A living-memory fact's text changed by the person.
    FactSet { fact: String, text: String },
    /// A living-memory fact removed: it stays removed whatever edit of it arrives later.
    FactRemoved { fact: String },
    /// The order the person gave their facts (keys, first first); facts not in it follow.
    FactOrder { order: Vec<String> },
    /// A setting that travels (`ConfigField::travels`) set by the person, with its new value.
    SettingSet {
        key: String,
        value: serde_json::Value,
    },
    /// A durable node replaced by a new one (`successor`, made from the node, the text and
    /// the time, so every device makes the same one).
    NodeSuperseded {
        node: String,
        successor: String,
        text: String,
    },
}

impl GraphChange {
    /// The kind as written in the event's `kind` field.
    pub fn kind(&self) -> &'static str {
        match self {
            GraphChange::ContextKnown { .. } => "context_known",
            GraphChange::ContextSet { .. } => "context_set",
            GraphChange::RuleSet { .. } => "rule_set",
            GraphChange::ContextMerge { .. } => "context_merge",
            GraphChange::ReviewDecided { .. } => "review_decided",
            GraphChange::EntityKnown { .. } => "entity_known",
            GraphChange::EntitySet { .. } => "entity_set",
            GraphChange::EntityAlias { .. } => "entity_alias",
            GraphChange::EntityMerge { .. } => "entity_merge",
            GraphChange::EntityLinked { .. } => "entity_linked",
            GraphChange::TopicKnown { .. } => "topic_known",
            GraphChange::TopicSet { .. } => "topic_set",
            GraphChange::TopicDeleted { .. } => "topic_deleted",
            GraphChange::TopicPin { .. } => "topic_pin",
            GraphChange::NodeSet { .. } => "node_set",
            GraphChange::NodeSuperseded { .. } => "node_superseded",
            GraphChange::SettingSet { .. } => "setting_set",
            GraphChange::FactKnown { .. } => "fact_known",
            GraphChange::FactSet { .. } => "fact_set",
            GraphChange::FactRemoved { .. } => "fact_removed",
            GraphChange::FactOrder { .. } => "fact_order",
        }
    }

    /// Whether a change records how something was made (a context, entity, Topic or fact at its
    /// creation), which keeps its own time so that any later edit on any device wins over it.
    pub(crate) fn records_how_it_was_made(&self) -> bool {
        matches!(
            self,
            GraphChange::ContextKnown { .. }
                | GraphChange::EntityKnown { .. }
                | GraphChange::TopicKnown { .. }
                | GraphChange::FactKnown { .. }
        )
    }
}

impl GraphEvent {
    /// The order every device applies events in: time, then device, then id.
    pub fn order_key(&self) -> (DateTime<Utc>, &str, &str) {
        (self.at, &self.device, &self.event_id)
    }

    /// The event as one line of a device's event file.
    pub fn to_line(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::InvalidEntry(format!("graph event {}: {e}", self.event_id)))
    }
}

/// A write in force for one field (see [`Graph::sync_write`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Clock {
    at: String,
    device: String,
    event_id: String,
}

/// What [`Graph::sync_write`] decided for one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// The event is the newest write: apply it.
    Apply,
    /// A newer write is in force: leave the field.
    Stale,
}

/// Two concurrent writes to one field, and which one is in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncConflict {
    pub subject: String,
    pub field: String,
    pub kept_device: String,
    pub kept_value: String,
    pub lost_device: String,
    pub lost_value: String,
    pub found_at: String,
}

/// Keys of `sync_state`.
pub(crate) const DEVICE: &str = "device";
pub(crate) const DEVICE_NAME: &str = "device_name";

impl Graph {
    /// A value of this store's sync state (`sync_state`), if set.
    pub fn sync_state(&self, key: &str) -> Result<Option<String>> {
        self.with_conn_result(|c| {
            c.query_row("SELECT value FROM sync_state WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
        })
    }

    /// Sets (or with `None`, clears) a value of this store's sync state.
    pub fn set_sync_state(&self, key: &str, value: Option<&str>) -> Result<()> {
        self.with_conn_result(|c| match value {
            Some(v) => c.execute(
                "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, v],
            ),
            None => c.execute("DELETE FROM sync_state WHERE key = ?1", [key]),
        })
        .map(|_| ())
    }

    /// Reads a value of this store's sync state and writes what `change` makes of it (`None`
    /// clears it) in one transaction, so nothing written meanwhile by another thread or process
    /// (a Today that took the value) is overwritten with what was read before it.
    pub(crate) fn update_sync_state(
        &self,
        key: &str,
        change: impl FnOnce(Option<String>) -> Result<Option<String>>,
    ) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let value: Option<String> = tx
            .query_row("SELECT value FROM sync_state WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        match change(value)? {
            Some(v) => tx.execute(
                "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, v],
            ),
            None => tx.execute("DELETE FROM sync_state WHERE key = ?1", [key]),
        }
        .map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))
    }

    /// Reads and clears a value of this store's sync state in one transaction, so a value
    /// written meanwhile (by a sync in another thread) is never cleared unread.
    pub(crate) fn take_sync_state(&self, key: &str) -> Result<Option<String>> {
        let mut taken = None;
        self.update_sync_state(key, |held| {
            taken = held;
            Ok(None)
        })?;
        Ok(taken)
    }

    /// This store's device id, made on first use: a store copied to another machine keeps it,
    /// so the id is the store's, and the host name is only its label.
    pub fn device(&self, now: DateTime<Utc>) -> Result<String> {
        if let Some(d) = self.sync_state(DEVICE)? {
            return Ok(d);
        }
        let host = crate::base::lease::host_name();
        let seed = format!(
            "{host}\n{}\n{}\n{}",
            self.path().display(),
            now.timestamp_nanos_opt().unwrap_or_default(),
            std::process::id()
        );
        let digest = Sha256::digest(seed.as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        let id = format!("d{hex}");
        self.with_conn_result(|c| {
            c.execute(
                "INSERT OR IGNORE INTO sync_state (key, value) VALUES (?1, ?2), (?3, ?4)",
                params![DEVICE, id, DEVICE_NAME, host],
            )
        })?;
        // Another process may have made it first; its id stands.
        self.sync_state(DEVICE)?
            .ok_or_else(|| Error::InvalidInput("the device id could not be stored".to_owned()))
    }

    /// Records a change this device made, and puts its fields in force. Called by the use case
    /// that made the change, after the change itself was written.
    pub(crate) fn record_change(
        &self,
        change: GraphChange,
        at: DateTime<Utc>,
    ) -> Result<GraphEvent> {
        let mut events = self.record_changes(vec![(change, at)])?;
        events
            .pop()
            .ok_or_else(|| Error::InvalidInput("no change was recorded".to_owned()))
    }

    /// Records many changes this device made, in one transaction: a first sync records every
    /// entity a store's captures made, and a commit (an fsync) for each would take minutes.
    pub(crate) fn record_changes(
        &self,
        changes: Vec<(GraphChange, DateTime<Utc>)>,
    ) -> Result<Vec<GraphEvent>> {
        let Some((_, first_at)) = changes.first() else {
            return Ok(Vec::new());
        };
        let device = self.device(*first_at)?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let recorded = record_in(&tx, &device, changes).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(recorded)
    }

    /// Keeps an event; `arrived_at` is set for another device's. False when it was already kept.
    pub(crate) fn store_event(
        &self,
        event: &GraphEvent,
        arrived_at: Option<DateTime<Utc>>,
    ) -> Result<bool> {
        let body = event.to_line()?;
        self.with_conn_result(|c| store_event_in(c, event, &body, arrived_at))
    }

    /// Whether an event is kept here already.
    pub(crate) fn has_event(&self, event_id: &str) -> Result<bool> {
        self.with_conn_result(|c| {
            c.query_row(
                "SELECT 1 FROM sync_events WHERE event_id = ?1",
                [event_id],
                |_| Ok(()),
            )
            .optional()
        })
        .map(|r| r.is_some())
    }

    /// This device's events not yet written to the sync repository, oldest first.
    pub(crate) fn unexported_events(&self, device: &str) -> Result<Vec<GraphEvent>> {
        let bodies: Vec<String> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT body FROM sync_events WHERE device = ?1 AND exported = 0
                 ORDER BY at, event_id",
            )?;
            stmt.query_map([device], |r| r.get(0))?.collect()
        })?;
        bodies
            .iter()
            .map(|b| {
                serde_json::from_str(b)
                    .map_err(|e| Error::InvalidEntry(format!("stored graph event: {e}")))
            })
            .collect()
    }

    /// The events that name `subject` (a Topic's, a node's id), newest first: what a change of
    /// a thing that is gone since said about it.
    pub(crate) fn events_about(&self, subject: &str) -> Result<Vec<GraphEvent>> {
        let needle = serde_json::to_string(subject)
            .map_err(|e| Error::InvalidEntry(format!("graph event subject: {e}")))?;
        let bodies: Vec<String> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT body FROM sync_events WHERE instr(body, ?1) > 0
                 ORDER BY at DESC, event_id DESC",
            )?;
            stmt.query_map([&needle], |r| r.get(0))?.collect()
        })?;
        Ok(bodies
            .iter()
            .filter_map(|b| serde_json::from_str(b).ok())
            .collect())
    }

    /// The entities whose making no event records yet (made by capture, or before sync): they
    /// travel once, as made.
    pub(crate) fn unrecorded_entities(&self) -> Result<Vec<crate::graph::entities::Entity>> {
        let ids: Vec<String> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT e.entity_id FROM entities e WHERE NOT EXISTS (
                     SELECT 1 FROM sync_clocks k
                     WHERE k.subject = e.entity_id AND k.field = 'canonical_name')
                 ORDER BY e.entity_id",
            )?;
            stmt.query_map([], |r| r.get(0))?.collect()
        })?;
        ids.iter().map(|id| self.entity(id)).collect()
    }

    /// The links of entities to work contexts no event records yet, as (context, entity).
    pub(crate) fn unrecorded_entity_links(&self) -> Result<Vec<(String, String)>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT w.work_context_id, w.entity_id FROM work_context_entities w
                 WHERE NOT EXISTS (
                     SELECT 1 FROM sync_clocks k
                     WHERE k.subject = w.entity_id AND k.field = 'link ' || w.work_context_id)
                 ORDER BY 1, 2",
            )?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
    }

    /// Whether everything that ties an entity to work (links, mentions) is in local-only work
    /// contexts: then its changes stay on this machine. An entity tied to nothing (made by hand)
    /// is the person's everywhere.
    pub(crate) fn entity_is_local_only(&self, entity: &str) -> Result<bool> {
        let (tied, local): (i64, i64) = self.with_conn_result(|c| {
            c.query_row(
                "SELECT COUNT(*), COALESCE(SUM(w.local_only), 0) FROM (
                     SELECT work_context_id FROM work_context_entities WHERE entity_id = ?1
                     UNION
                     SELECT work_context_id FROM context_entity_mentions WHERE entity_id = ?1
                 ) t JOIN work_contexts w ON w.work_context_id = t.work_context_id",
                [entity],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })?;
        Ok(tied > 0 && tied == local)
    }

    /// Marks events as written to the sync repository.
    pub(crate) fn mark_exported(&self, ids: &[String]) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        for id in ids {
            tx.execute(
                "UPDATE sync_events SET exported = 1 WHERE event_id = ?1",
                [id],
            )
            .map_err(|e| self.sql(e))?;
        }
        tx.commit().map_err(|e| self.sql(e))
    }

    /// Whether `event` is the newest write of `subject`.`field`, and if so puts it in force.
    /// `value` (an arriving event's, with the value in force now) records a conflict when the
    /// write it meets is this device's and was not yet sent: the two devices wrote the field
    /// without either seeing the other's write.
    pub(crate) fn sync_write(
        &self,
        event: &GraphEvent,
        subject: &str,
        field: &str,
        conflict: Option<(&str, &str)>,
    ) -> Result<Write> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let write = sync_write_in(&tx, event, subject, field, conflict).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(write)
    }

    /// The newest row of the graph's own event table (`events`, entity news), 0 when empty.
    pub(crate) fn last_graph_event_row(&self) -> Result<i64> {
        self.with_conn_result(|c| {
            c.query_row("SELECT COALESCE(MAX(event_id), 0) FROM events", [], |r| {
                r.get(0)
            })
        })
    }

    /// Marks the news about `entities` written after row `after` as delivered: it came from
    /// another device, which delivered it where it made it.
    pub(crate) fn consume_graph_events_after(
        &self,
        after: i64,
        entities: &[&str],
        at: DateTime<Utc>,
    ) -> Result<()> {
        self.with_conn_result(|c| {
            for entity in entities {
                c.execute(
                    "UPDATE events SET consumed_at = ?2
                     WHERE event_id > ?1 AND consumed_at IS NULL
                       AND json_extract(payload, '$.entity_id') = ?3",
                    params![after, ts(at), entity],
                )?;
            }
            Ok(())
        })
    }

    /// Whether a field of a subject has a write in force.
    pub(crate) fn has_clock(&self, subject: &str, field: &str) -> Result<bool> {
        self.with_conn_result(|c| {
            c.query_row(
                "SELECT 1 FROM sync_clocks WHERE subject = ?1 AND field = ?2",
                params![subject, field],
                |_| Ok(()),
            )
            .optional()
        })
        .map(|r| r.is_some())
    }

    /// The value in force for one field of an entity (`canonical_name`, `kind`, `deadline`), as
    /// the event that wrote it says; `None` when no event wrote it. Events keep what a merge
    /// removed from the graph, so a device can give an entity back the fields another device
    /// kept for it.
    pub(crate) fn entity_field_in_force(
        &self,
        entity: &str,
        field: &str,
    ) -> Result<Option<serde_json::Value>> {
        let body: Option<String> = self.with_conn_result(|c| {
            c.query_row(
                "SELECT e.body FROM sync_clocks k JOIN sync_events e ON e.event_id = k.event_id
                 WHERE k.subject = ?1 AND k.field = ?2",
                params![entity, field],
                |r| r.get(0),
            )
            .optional()
        })?;
        let Some(event) = body.and_then(|b| serde_json::from_str::<GraphEvent>(&b).ok()) else {
            return Ok(None);
        };
        Ok(match event.change {
            GraphChange::EntityKnown {
                name,
                entity_kind,
                deadline,
                ..
            } => match field {
                "canonical_name" => Some(name.into()),
                "kind" => Some(entity_kind.into()),
                "deadline" => Some(deadline.map_or(serde_json::Value::Null, Into::into)),
                _ => None,
            },
            GraphChange::EntitySet { mut set, .. } => set.remove(field),
            _ => None,
        })
    }

    /// The conflicts sync found, newest first.
    pub fn sync_conflicts(&self) -> Result<Vec<SyncConflict>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {CONFLICT_COLUMNS} FROM sync_conflicts ORDER BY conflict_id DESC"
            ))?;
            stmt.query_map([], row_conflict)?.collect()
        })
    }

    /// The conflicts nobody was shown yet, oldest first, marked shown by this call: Today lists
    /// each conflict once.
    pub(crate) fn take_unseen_sync_conflicts(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<SyncConflict>> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let rows = tx
            .prepare(&format!(
                "SELECT {CONFLICT_COLUMNS} FROM sync_conflicts WHERE seen_at IS NULL
                 ORDER BY conflict_id"
            ))
            .and_then(|mut stmt| stmt.query_map([], row_conflict)?.collect())
            .map_err(|e| self.sql(e))?;
        tx.execute(
            "UPDATE sync_conflicts SET seen_at = ?1 WHERE seen_at IS NULL",
            [ts(now)],
        )
        .map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(rows)
    }

    /// Whether an entry already went through sync (sent or received).
    pub(crate) fn synced_entry_ids(&self) -> Result<std::collections::HashSet<String>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare("SELECT entry_id FROM sync_entries")?;
            stmt.query_map([], |r| r.get(0))?.collect()
        })
    }

    /// Records entries as sent or received through sync.
    pub(crate) fn mark_entries_synced(&self, rows: &[(String, String, String)]) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        for (entry, wc, device) in rows {
            tx.execute(
                "INSERT OR IGNORE INTO sync_entries (entry_id, work_context_id, device)
                 VALUES (?1, ?2, ?3)",
                params![entry, wc, device],
            )
            .map_err(|e| self.sql(e))?;
        }
        tx.commit().map_err(|e| self.sql(e))
    }

    /// How many bytes of another device's file were read.
    pub(crate) fn sync_file_offset(&self, path: &str) -> Result<u64> {
        let n: Option<i64> = self.with_conn_result(|c| {
            c.query_row(
                "SELECT bytes FROM sync_files WHERE path = ?1",
                [path],
                |r| r.get(0),
            )
            .optional()
        })?;
        Ok(n.unwrap_or(0).max(0) as u64)
    }

    /// How far each of other devices' files was read, by path.
    pub(crate) fn sync_file_offsets(&self) -> Result<std::collections::HashMap<String, u64>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare("SELECT path, bytes FROM sync_files")?;
            stmt.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64))
            })?
            .collect()
        })
    }

    /// Records how far another device's file was read.
    pub(crate) fn set_sync_file_offset(&self, path: &str, bytes: u64) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute(
                "INSERT INTO sync_files (path, bytes) VALUES (?1, ?2)
                 ON CONFLICT (path) DO UPDATE SET bytes = excluded.bytes",
                params![path, bytes as i64],
            )
        })
        .map(|_| ())
    }

    /// How many of this device's changes wait to be sent: graph events and continuity entries
    /// are counted by the sync use case; this is the events' part.
    pub fn unexported_event_count(&self, device: &str) -> Result<u64> {
        self.with_conn_result(|c| {
            c.query_row(
                "SELECT COUNT(*) FROM sync_events WHERE device = ?1 AND exported = 0",
                [device],
                |r| r.get::<_, i64>(0),
            )
        })
        .map(|n| n.max(0) as u64)
    }
}

/// Records `changes` in `tx` as `device`'s events, in order, each with its fields put in force.
fn record_in(
    tx: &Connection,
    device: &str,
    changes: Vec<(GraphChange, DateTime<Utc>)>,
) -> rusqlite::Result<Vec<GraphEvent>> {
    // Numbered on from this device's count of events: ids are unique per device and time.
    let first: i64 = tx.query_row(
        "SELECT COUNT(*) FROM sync_events WHERE device = ?1",
        [device],
        |r| r.get(0),
    )?;
    let mut out = Vec::with_capacity(changes.len());
    for ((change, at), n) in changes.into_iter().zip(first..) {
        let at = if change.records_how_it_was_made() {
            at
        } else {
            after_writes_in_force(tx, &change, at)?
        };
        let event = GraphEvent {
            event_id: format!("ev_{:016x}_{device}_{n}", at.timestamp_micros()),
            device: device.to_owned(),
            at,
            change,
        };
        let body = event
            .to_line()
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
        store_event_in(tx, &event, &body, None)?;
        for (subject, field) in fields_of(&event.change) {
            sync_write_in(tx, &event, &subject, &field, None)?;
        }
        out.push(event);
    }
    Ok(out)
}

/// `at`, or just after the newest write in force on a field `change` sets, when that write is
/// later. A change made here after another device's arrived was made knowing it, however far
/// ahead that machine's clock runs: it must be the later one, here and everywhere. With the wall
/// clock alone it lost to the arrived write on every other device and stood on this one, and the
/// devices drifted apart (a Lamport clock per field).
fn after_writes_in_force(
    c: &Connection,
    change: &GraphChange,
    at: DateTime<Utc>,
) -> rusqlite::Result<DateTime<Utc>> {
    let mut latest = at;
    for (subject, field) in fields_of(change) {
        let in_force: Option<String> = c
            .query_row(
                "SELECT at FROM sync_clocks WHERE subject = ?1 AND field = ?2",
                params![subject, field],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(t) = crate::graph::entities::parse_ts(in_force)
            && t >= latest
        {
            latest = t + chrono::Duration::microseconds(1);
        }
    }
    Ok(latest)
}

/// Keeps an event (`body` is its line); false when it was kept already.
fn store_event_in(
    c: &Connection,
    event: &GraphEvent,
    body: &str,
    arrived_at: Option<DateTime<Utc>>,
) -> rusqlite::Result<bool> {
    let n = c.execute(
        "INSERT OR IGNORE INTO sync_events (event_id, device, at, kind, body, arrived_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            event.event_id,
            event.device,
            ts(event.at),
            event.change.kind(),
            body,
            arrived_at.map(ts)
        ],
    )?;
    Ok(n == 1)
}

fn sync_write_in(
    tx: &Connection,
    event: &GraphEvent,
    subject: &str,
    field: &str,
    conflict: Option<(&str, &str)>,
) -> rusqlite::Result<Write> {
    let current: Option<Clock> = tx
        .query_row(
            "SELECT at, device, event_id FROM sync_clocks WHERE subject = ?1 AND field = ?2",
            params![subject, field],
            |r| {
                Ok(Clock {
                    at: r.get(0)?,
                    device: r.get(1)?,
                    event_id: r.get(2)?,
                })
            },
        )
        .optional()?;
    let at = ts(event.at);
    // The same event again (a sync that died after the clock and before the field) applies
    // again: writing a field to the value it has is harmless, skipping it is not.
    let newer = match &current {
        None => true,
        Some(c) => {
            (at.as_str(), event.device.as_str(), event.event_id.as_str())
                >= (c.at.as_str(), c.device.as_str(), c.event_id.as_str())
        }
    };
    if let (Some(c), Some((incoming, in_force))) = (&current, conflict)
        && c.device != event.device
        && incoming != in_force
    {
        let unsent: bool = tx
            .query_row(
                "SELECT exported = 0 AND arrived_at IS NULL FROM sync_events
                 WHERE event_id = ?1",
                [&c.event_id],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(false);
        if unsent {
            let (kept, kept_v, lost, lost_v) = if newer {
                (&event.event_id, incoming, &c.event_id, in_force)
            } else {
                (&c.event_id, in_force, &event.event_id, incoming)
            };
            let (kept_d, lost_d) = if newer {
                (&event.device, &c.device)
            } else {
                (&c.device, &event.device)
            };
            tx.execute(
                "INSERT OR IGNORE INTO sync_conflicts (subject, field, kept_event, kept_device,
                     kept_value, lost_event, lost_device, lost_value, found_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    subject,
                    field,
                    kept,
                    kept_d,
                    kept_v,
                    lost,
                    lost_d,
                    lost_v,
                    ts(crate::base::clock::now())
                ],
            )?;
        }
    }
    if !newer {
        return Ok(Write::Stale);
    }
    tx.execute(
        "INSERT INTO sync_clocks (subject, field, at, device, event_id)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (subject, field) DO UPDATE
         SET at = excluded.at, device = excluded.device, event_id = excluded.event_id",
        params![subject, field, at, event.device, event.event_id],
    )?;
    Ok(Write::Apply)
}

/// The (subject, field) pairs an event writes, each under last-writer-wins.
pub(crate) fn fields_of(change: &GraphChange) -> Vec<(String, String)> {
    match change {
        GraphChange::ContextKnown { context, .. } => {
            ["name", "origin", "domain_lineage", "local_only"]
                .into_iter()
                .map(|f| (context.clone(), f.to_owned()))
                .collect()
        }
        GraphChange::ContextSet { context, set } => {
            set.keys().map(|f| (context.clone(), f.clone())).collect()
        }
        GraphChange::RuleSet {
            context,
            rule_kind,
            pattern,
            ..
        } => vec![(context.clone(), format!("rule {rule_kind} {pattern}"))],
        GraphChange::ContextMerge { absorb, .. } => {
            vec![(absorb.clone(), "merged_into".to_owned())]
        }
        GraphChange::ReviewDecided { entry_id, rule, .. } => {
            vec![(review_subject(entry_id, rule), "decision".to_owned())]
        }
        GraphChange::EntityKnown { entity, .. } => ENTITY_FIELDS
            .iter()
            .map(|f| (entity.clone(), (*f).to_owned()))
            .collect(),
        GraphChange::EntitySet { entity: s, set } | GraphChange::TopicSet { topic: s, set } => {
            set.keys().map(|f| (s.clone(), f.clone())).collect()
        }
        GraphChange::EntityAlias { entity, alias, .. } => {
            vec![(entity.clone(), alias_field(alias))]
        }
        GraphChange::EntityMerge { absorb, .. } => {
            vec![(absorb.clone(), "merged_into".to_owned())]
        }
        GraphChange::EntityLinked { entity, context } => {
            vec![(entity.clone(), link_field(context))]
        }
        GraphChange::TopicKnown { topic, .. } => TOPIC_FIELDS
            .iter()
            .map(|f| (topic.clone(), (*f).to_owned()))
            .collect(),
        GraphChange::TopicDeleted { topic } => vec![(topic.clone(), "deleted".to_owned())],
        GraphChange::TopicPin { topic, doc_ref, .. } => {
            vec![(topic.clone(), format!("pin {doc_ref}"))]
        }
        GraphChange::NodeSet { node, set, .. } => {
            set.keys().map(|f| (node.clone(), f.clone())).collect()
        }
        GraphChange::NodeSuperseded { node, .. } => vec![(node.clone(), "lifecycle".to_owned())],
        GraphChange::SettingSet { key, .. } => vec![(SETTINGS_SUBJECT.to_owned(), key.clone())],
        GraphChange::FactKnown { fact, .. } | GraphChange::FactSet { fact, .. } => {
            vec![(fact.clone(), "text".to_owned())]
        }
        GraphChange::FactRemoved { fact } => vec![(fact.clone(), "removed".to_owned())],
        GraphChange::FactOrder { .. } => vec![(LIVING_SUBJECT.to_owned(), "order".to_owned())],
    }
}

/// The sync subject of the settings that travel: one field per setting.
pub(crate) const SETTINGS_SUBJECT: &str = "settings";

/// The sync subject of the living-memory facts' order.
pub(crate) const LIVING_SUBJECT: &str = "living memory";

/// The `sync_state` key of the facts' order in force (keys, JSON).
pub(crate) const LIVING_ORDER: &str = "living_order";

/// The fields of an entity under last-writer-wins.
pub(crate) const ENTITY_FIELDS: [&str; 3] = ["canonical_name", "kind", "deadline"];

/// The sync field of an entity's link to a work context.
pub(crate) fn link_field(context: &str) -> String {
    format!("link {context}")
}

/// The fields of a Topic under last-writer-wins.
pub(crate) const TOPIC_FIELDS: [&str; 4] = ["name", "description", "rules", "collecting"];

/// The field an alias is written under: one per alias, case folded as names are matched.
pub(crate) fn alias_field(alias: &str) -> String {
    format!("alias {}", alias.trim().to_lowercase())
}

/// The sync subject of a proposal: its entry and rule, the same on every device.
pub(crate) fn review_subject(entry_id: &str, rule: &str) -> String {
    format!("review {entry_id} {rule}")
}

/// The columns [`row_conflict`] reads, in its order.
const CONFLICT_COLUMNS: &str =
    "subject, field, kept_device, kept_value, lost_device, lost_value, found_at";

fn row_conflict(r: &rusqlite::Row<'_>) -> rusqlite::Result<SyncConflict> {
    Ok(SyncConflict {
        subject: r.get(0)?,
        field: r.get(1)?,
        kept_device: r.get(2)?,
        kept_value: r.get(3)?,
        lost_device: r.get(4)?,
        lost_value: r.get(5)?,
        found_at: r.get(6)?,
    })
}
