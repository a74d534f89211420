//! Graph entities (SPEC §2, DOC72): kind, canonical name, aliases, optional deadline; create, edit,
//! merge, and the `graph.entity.upserted` event every change writes to the outbox in the same
//! transaction (CSA §5.5), with provenance saying where the change came from.
//!
//! The functions over `&Connection` let capture run them inside its own transaction; the
//! `Graph`-level wrappers in this module are what the CLI and the shell call.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, SessionId, WorkContextId};
use crate::graph::Graph;

mod names;

pub use names::EntityMatcher;
pub(crate) use names::KnownNames;

/// The outbox event type every entity change writes.
pub const ENTITY_UPSERTED: &str = "graph.entity.upserted";

/// The longest entity name or alias accepted.
pub const MAX_NAME_CHARS: usize = 200;

/// One entity with its aliases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entity {
    pub entity_id: EntityId,
    pub kind: String,
    pub canonical_name: String,
    pub aliases: Vec<String>,
    pub deadline: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A new entity.
#[derive(Debug, Clone, Default)]
pub struct NewEntity {
    pub kind: String,
    pub canonical_name: String,
    pub aliases: Vec<String>,
    pub deadline: Option<String>,
}

/// A change to an entity; `None` leaves a field alone.
#[derive(Debug, Clone, Default)]
pub struct EntityEdit {
    pub canonical_name: Option<String>,
    pub kind: Option<String>,
    pub add_aliases: Vec<String>,
    pub remove_aliases: Vec<String>,
    /// `Some(None)` clears the deadline.
    pub deadline: Option<Option<String>>,
}

/// Who or what changed an entity, for provenance and for the event's payload.
#[derive(Debug, Clone)]
pub struct ChangeSource {
    /// `manual` (the person, through the CLI or the app), `capture`, `file` (the file watcher)
    /// or `push` (the person's "I just did X").
    pub kind: &'static str,
    pub session_id: Option<SessionId>,
    pub work_context_id: Option<WorkContextId>,
    /// The observation behind a `file` or `push` change.
    pub observation: Option<ObservedBy>,
}

/// The observation that touched an entity, carried in the event so that the cross-conversation
/// update can name the file or the push (CSA §9) rather than a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ObservedBy {
    pub observation_id: i64,
    /// Stands in for the source session: updates waiting undelivered in a log are not written
    /// twice for one key, so repeated saves of one file make one update, while each push is its
    /// own.
    pub source_key: String,
    /// The update's text, e.g. "Henderson brief edited outside chat (brief.md)."
    pub summary: String,
}

impl ChangeSource {
    /// A change the person made.
    pub fn manual() -> ChangeSource {
        ChangeSource {
            kind: "manual",
            session_id: None,
            work_context_id: None,
            observation: None,
        }
    }

    /// A change capture made while reading `session`, resolved to `work_context`.
    pub fn capture(session: &SessionId, work_context: &WorkContextId) -> ChangeSource {
        ChangeSource {
            kind: "capture",
            session_id: Some(session.clone()),
            work_context_id: Some(work_context.clone()),
            observation: None,
        }
    }
}

/// The payload of a `graph.entity.upserted` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EntityUpserted {
    pub entity_id: EntityId,
    pub canonical_name: String,
    /// `created`, `edited`, `merged` or `referenced`.
    pub change: String,
    pub source_kind: String,
    pub source_session_id: Option<SessionId>,
    pub work_context_id: Option<WorkContextId>,
    /// Set when an observation (a file change or a push) made the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<ObservedBy>,
}

/// Maps SQLite errors on `conn` to the engine's error, naming the database file.
pub(crate) fn sql_err(conn: &Connection) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |source| Error::Sqlite {
        path: conn.path().unwrap_or("entity_graph.sqlite").into(),
        source,
    }
}

pub(crate) fn ts(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Reads back a time written by [`ts`]; anything else (a hand edit) reads as absent.
pub(crate) fn parse_ts(text: Option<String>) -> Option<DateTime<Utc>> {
    text.and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&Utc))
}

fn clean_name(what: &'static str, raw: &str) -> Result<String> {
    let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let reason = if name.is_empty() {
        "must not be empty"
    } else if name.chars().count() > MAX_NAME_CHARS {
        "longer than 200 characters"
    } else if name.chars().any(char::is_control) {
        "contains control characters"
    } else {
        return Ok(name);
    };
    Err(Error::InvalidId {
        what,
        value: raw.chars().take(MAX_NAME_CHARS).collect(),
        reason,
    })
}

fn clean_kind(raw: &str) -> Result<String> {
    let kind = raw.trim().to_lowercase();
    if kind.is_empty()
        || kind.len() > 40
        || !kind
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(Error::InvalidId {
            what: "entity kind",
            value: raw.chars().take(40).collect(),
            reason: "must be 1-40 ASCII letters, digits, '_' or '-'",
        });
    }
    Ok(kind)
}

fn clean_deadline(raw: &str) -> Result<String> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Ok(ts(at.with_timezone(&Utc)));
    }
    if let Ok(day) = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(ts(day
            .and_hms_opt(23, 59, 59)
            .unwrap_or_default()
            .and_utc()));
    }
    Err(Error::InvalidId {
        what: "deadline",
        value: raw.chars().take(60).collect(),
        reason: "must be a date (2026-12-01) or an RFC 3339 time",
    })
}

/// A readable, stable id: `ent_` and the name's ASCII slug, or a hash when the name has no ASCII
/// letters (a Japanese name, say).
pub(crate) fn slug(name: &str, max: usize) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
        if out.len() >= max {
            break;
        }
    }
    if out.is_empty() {
        let digest = Sha256::digest(name.as_bytes());
        out = digest[..5].iter().map(|b| format!("{b:02x}")).collect();
    }
    out
}

fn fresh_entity_id(conn: &Connection, name: &str) -> rusqlite::Result<String> {
    let base = format!("ent_{}", slug(name, 40));
    let mut candidate = base.clone();
    let mut n = 2;
    while conn
        .query_row(
            "SELECT 1 FROM entities WHERE entity_id = ?1",
            [&candidate],
            |_| Ok(()),
        )
        .optional()?
        .is_some()
    {
        candidate = format!("{base}_{n}");
        n += 1;
    }
    Ok(candidate)
}

/// The entity whose canonical name or alias is `name` (ASCII case-insensitive), if any.
pub(crate) fn find_by_name(conn: &Connection, name: &str) -> rusqlite::Result<Option<EntityId>> {
    let id: Option<String> = conn
        .query_row(
            "SELECT entity_id FROM entities WHERE canonical_name = ?1 COLLATE NOCASE
             UNION ALL
             SELECT entity_id FROM entity_aliases WHERE alias = ?1 COLLATE NOCASE
             LIMIT 1",
            [name],
            |r| r.get(0),
        )
        .optional()?;
    Ok(id.and_then(|id| EntityId::new(id).ok()))
}

fn emit(
    conn: &Connection,
    entity_id: &EntityId,
    name: &str,
    change: &str,
    source: &ChangeSource,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let payload = EntityUpserted {
        entity_id: entity_id.clone(),
        canonical_name: name.to_owned(),
        change: change.to_owned(),
        source_kind: source.kind.to_owned(),
        source_session_id: source.session_id.clone(),
        work_context_id: source.work_context_id.clone(),
        observation: source.observation.clone(),
    };
    let payload = serde_json::to_string(&payload).unwrap_or_default();
    // A reference changes nothing a constellation view shows; an edit or merge may change a
    // linked entity's name or deadline there.
    if change != "referenced" {
        crate::graph::touch_entity_in(conn, entity_id.as_str())?;
    }
    conn.execute(
        "INSERT INTO events (event_type, payload, created_at) VALUES (?1, ?2, ?3)",
        params![ENTITY_UPSERTED, payload, ts(now)],
    )?;
    let source_ref = match (&source.session_id, &source.observation) {
        (Some(s), _) => s.as_str().to_owned(),
        (None, Some(o)) => format!("observation:{}", o.observation_id),
        (None, None) => source.kind.to_owned(),
    };
    conn.execute(
        "INSERT INTO provenance (node_id, source_kind, source_ref, recorded_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![entity_id.as_str(), source.kind, source_ref, ts(now)],
    )?;
    Ok(())
}

/// Creates an entity. A name or alias that already names another entity is refused, so that
/// resolution stays unambiguous; merge the two instead. With `source` the creation is recorded
/// (event and provenance) at once; without, the caller records it with [`changed_in`] once it
/// knows where the change belongs (capture learns the work context only after creating).
pub(crate) fn create_in(
    conn: &Connection,
    new: &NewEntity,
    source: Option<&ChangeSource>,
    now: DateTime<Utc>,
) -> Result<std::result::Result<EntityId, (String, EntityId)>> {
    create_as(conn, new, None, source, now)
}

/// [`create_in`] under a given id (an entity another device made), or a fresh one.
fn create_as(
    conn: &Connection,
    new: &NewEntity,
    id: Option<&str>,
    source: Option<&ChangeSource>,
    now: DateTime<Utc>,
) -> Result<std::result::Result<EntityId, (String, EntityId)>> {
    let name = clean_name("entity name", &new.canonical_name)?;
    let kind = clean_kind(&new.kind)?;
    let deadline = new.deadline.as_deref().map(clean_deadline).transpose()?;
    let mut aliases = Vec::new();
    for a in &new.aliases {
        let a = clean_name("alias", a)?;
        if !a.eq_ignore_ascii_case(&name) && !aliases.contains(&a) {
            aliases.push(a);
        }
    }
    let sql = sql_err(conn);
    for n in std::iter::once(&name).chain(&aliases) {
        if let Some(existing) = find_by_name(conn, n).map_err(&sql)? {
            return Ok(Err((n.clone(), existing)));
        }
    }
    let id = match id {
        Some(id) => EntityId::new(id)?.to_string(),
        None => fresh_entity_id(conn, &name).map_err(&sql)?,
    };
    let at = ts(now);
    conn.execute(
        "INSERT INTO entities (entity_id, kind, canonical_name, deadline, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
        params![id, kind, name, deadline, at],
    )
    .map_err(&sql)?;
    for a in &aliases {
        conn.execute(
            "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?1, ?2)",
            params![id, a],
        )
        .map_err(&sql)?;
    }
    let id = EntityId::new(id)?;
    if let Some(source) = source {
        emit(conn, &id, &name, "created", source, now).map_err(&sql)?;
    }
    Ok(Ok(id))
}

/// Records a change of `id` (`created`, `referenced`, …): provenance and an upsert event. A
/// capture that references an entity records it too, which is what lets other work contexts
/// learn that the entity moved on elsewhere (CSA §5.5).
pub(crate) fn changed_in(
    conn: &Connection,
    id: &EntityId,
    change: &str,
    source: &ChangeSource,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let name: String = conn.query_row(
        "SELECT canonical_name FROM entities WHERE entity_id = ?1",
        [id.as_str()],
        |r| r.get(0),
    )?;
    conn.execute(
        "UPDATE entities SET updated_at = ?2 WHERE entity_id = ?1",
        params![id.as_str(), ts(now)],
    )?;
    emit(conn, id, &name, change, source, now)
}

pub(crate) fn get_in(conn: &Connection, id: &str) -> rusqlite::Result<Option<Entity>> {
    let row = conn
        .query_row(
            "SELECT entity_id, kind, canonical_name, deadline, created_at, updated_at
             FROM entities WHERE entity_id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()?;
    let Some((id, kind, name, deadline, created, updated)) = row else {
        return Ok(None);
    };
    let mut stmt = conn
        .prepare_cached("SELECT alias FROM entity_aliases WHERE entity_id = ?1 ORDER BY alias")?;
    let aliases = stmt
        .query_map([&id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(EntityId::new(id).ok().map(|entity_id| Entity {
        entity_id,
        kind,
        canonical_name: name,
        aliases,
        deadline,
        created_at: created,
        updated_at: updated,
    }))
}

/// Every entity's names (canonical and aliases), for the resolution matcher.
pub(crate) fn all_names(conn: &Connection) -> rusqlite::Result<Vec<(EntityId, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT entity_id, canonical_name FROM entities
         UNION ALL SELECT entity_id, alias FROM entity_aliases",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (id, name) = row?;
        if let Ok(id) = EntityId::new(id) {
            out.push((id, name));
        }
    }
    Ok(out)
}

impl Graph {
    /// Creates an entity; refused when its name or an alias already names another entity.
    pub(crate) fn create_entity(&self, new: &NewEntity, now: DateTime<Utc>) -> Result<Entity> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let id = match create_in(&tx, new, Some(&ChangeSource::manual()), now)? {
            Ok(id) => id,
            Err((name, existing)) => {
                return Err(Error::InvalidEntry(format!(
                    "the name {name:?} already belongs to entity {existing}; edit or merge it instead"
                )));
            }
        };
        let entity = get_in(&tx, id.as_str()).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        entity.ok_or_else(|| Error::NotFound {
            what: "entity",
            id: id.to_string(),
        })
    }

    /// Makes an entity another device's person made, under its id (sync). False when it could
    /// not be made here: one of its names already names another entity (the person merges the
    /// two); nothing happens when the entity is here already.
    pub(crate) fn insert_synced_entity(
        &self,
        id: &str,
        new: &NewEntity,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        if self.entity(id).is_ok() {
            return Ok(true);
        }
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let made = create_as(&tx, new, Some(id), Some(&ChangeSource::manual()), now)?.is_ok();
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(made)
    }

    /// One entity.
    pub fn entity(&self, id: &str) -> Result<Entity> {
        self.with_conn_result(|c| get_in(c, id))?
            .ok_or_else(|| Error::NotFound {
                what: "entity",
                id: id.to_owned(),
            })
    }

    /// Every entity, by name; `kind` filters.
    pub fn entities(&self, kind: Option<&str>) -> Result<Vec<Entity>> {
        let ids: Vec<String> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT entity_id FROM entities WHERE ?1 IS NULL OR kind = ?1
                 ORDER BY canonical_name COLLATE NOCASE, entity_id",
            )?;
            stmt.query_map([kind], |r| r.get(0))?.collect()
        })?;
        self.with_conn_result(|c| {
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                out.extend(get_in(c, id)?);
            }
            Ok(out)
        })
    }

    /// Edits an entity and writes an upsert event.
    pub(crate) fn edit_entity(
        &self,
        id: &str,
        edit: &EntityEdit,
        now: DateTime<Utc>,
    ) -> Result<Entity> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let Some(current) = get_in(&tx, id).map_err(|e| self.sql(e))? else {
            return Err(Error::NotFound {
                what: "entity",
                id: id.to_owned(),
            });
        };
        let name = match &edit.canonical_name {
            Some(n) => clean_name("entity name", n)?,
            None => current.canonical_name.clone(),
        };
        let kind = match &edit.kind {
            Some(k) => clean_kind(k)?,
            None => current.kind.clone(),
        };
        let deadline = match &edit.deadline {
            Some(Some(d)) => Some(clean_deadline(d)?),
            Some(None) => None,
            None => current.deadline.clone(),
        };
        let mut new_names: Vec<String> = Vec::new();
        if name != current.canonical_name {
            new_names.push(name.clone());
        }
        for a in &edit.add_aliases {
            new_names.push(clean_name("alias", a)?);
        }
        for n in &new_names {
            if let Some(other) = find_by_name(&tx, n).map_err(|e| self.sql(e))?
                && other != current.entity_id
            {
                return Err(Error::InvalidEntry(format!(
                    "the name {n:?} already belongs to entity {other}; merge the two instead"
                )));
            }
        }
        tx.execute(
            "UPDATE entities SET canonical_name = ?2, kind = ?3, deadline = ?4, updated_at = ?5
             WHERE entity_id = ?1",
            params![id, name, kind, deadline, ts(now)],
        )
        .map_err(|e| self.sql(e))?;
        for a in &edit.remove_aliases {
            tx.execute(
                "DELETE FROM entity_aliases WHERE entity_id = ?1 AND alias = ?2 COLLATE NOCASE",
                params![id, a.trim()],
            )
            .map_err(|e| self.sql(e))?;
        }
        for a in &edit.add_aliases {
            let a = clean_name("alias", a)?;
            if !a.eq_ignore_ascii_case(&name) {
                tx.execute(
                    "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?1, ?2)",
                    params![id, a],
                )
                .map_err(|e| self.sql(e))?;
            }
        }
        emit(
            &tx,
            &current.entity_id,
            &name,
            "edited",
            &ChangeSource::manual(),
            now,
        )
        .map_err(|e| self.sql(e))?;
        let entity = get_in(&tx, id).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        entity.ok_or_else(|| Error::NotFound {
            what: "entity",
            id: id.to_owned(),
        })
    }

    /// Gives entity `from` the id `to` (sync: two devices merged one pair in opposite
    /// directions, and the pair keeps the smaller id everywhere): a copy under `to`, then `from`
    /// merged into it, so its aliases, links, mentions, edges and history follow.
    pub(crate) fn rekey_entity(&self, from: &str, to: &str, now: DateTime<Utc>) -> Result<()> {
        let made = self.with_conn_result(|c| {
            c.execute(
                "INSERT OR IGNORE INTO entities
                     (entity_id, kind, canonical_name, deadline, created_at, updated_at)
                 SELECT ?2, kind, canonical_name, deadline, created_at, ?3
                 FROM entities WHERE entity_id = ?1",
                params![from, to, ts(now)],
            )
        })?;
        if made == 0 && self.entity(to).is_err() {
            return Err(Error::NotFound {
                what: "entity",
                id: from.to_owned(),
            });
        }
        self.merge_entities(to, from, now).map(|_| ())
    }

    /// Merges `absorb` into `keep`: the absorbed entity's name and aliases become aliases of
    /// `keep`, and its links, mentions, edges and provenance move over; then it is removed. The
    /// merge is recorded as provenance of `keep`, so it can be traced.
    pub(crate) fn merge_entities(
        &self,
        keep: &str,
        absorb: &str,
        now: DateTime<Utc>,
    ) -> Result<Entity> {
        if keep == absorb {
            return Err(Error::InvalidEntry(
                "cannot merge an entity into itself".into(),
            ));
        }
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let sql = |e| self.sql(e);
        let kept = get_in(&tx, keep)
            .map_err(&sql)?
            .ok_or_else(|| Error::NotFound {
                what: "entity",
                id: keep.to_owned(),
            })?;
        let gone = get_in(&tx, absorb)
            .map_err(&sql)?
            .ok_or_else(|| Error::NotFound {
                what: "entity",
                id: absorb.to_owned(),
            })?;
        for alias in std::iter::once(&gone.canonical_name).chain(&gone.aliases) {
            if !alias.eq_ignore_ascii_case(&kept.canonical_name) {
                tx.execute(
                    "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?1, ?2)",
                    params![keep, alias],
                )
                .map_err(&sql)?;
            }
        }
        for stmt in [
            "INSERT OR IGNORE INTO work_context_entities (work_context_id, entity_id)
             SELECT work_context_id, ?1 FROM work_context_entities WHERE entity_id = ?2",
            "INSERT INTO context_entity_mentions
                 (work_context_id, entity_id, mentions, last_session_id, last_seen_at)
             SELECT work_context_id, ?1, mentions, last_session_id, last_seen_at
             FROM context_entity_mentions WHERE entity_id = ?2 AND true
             ON CONFLICT (work_context_id, entity_id)
             DO UPDATE SET mentions = mentions + excluded.mentions",
            "UPDATE OR IGNORE edges SET src_id = ?1 WHERE src_id = ?2",
            "UPDATE OR IGNORE edges SET dst_id = ?1 WHERE dst_id = ?2",
            // Edges left behind by OR IGNORE duplicate one that `keep` already has.
            "DELETE FROM edges WHERE (src_id = ?2 OR dst_id = ?2) AND ?1 IS NOT NULL",
            "UPDATE provenance SET node_id = ?1 WHERE node_id = ?2",
            "UPDATE obligations SET entity_id = ?1 WHERE entity_id = ?2",
        ] {
            tx.execute(stmt, params![keep, absorb]).map_err(&sql)?;
        }
        if kept.deadline.is_none() && gone.deadline.is_some() {
            tx.execute(
                "UPDATE entities SET deadline = ?2 WHERE entity_id = ?1",
                params![keep, gone.deadline],
            )
            .map_err(&sql)?;
        }
        tx.execute("DELETE FROM entities WHERE entity_id = ?1", [absorb])
            .map_err(&sql)?;
        tx.execute(
            "INSERT INTO provenance (node_id, source_kind, source_ref, recorded_at)
             VALUES (?1, 'merge', ?2, ?3)",
            params![keep, absorb, ts(now)],
        )
        .map_err(&sql)?;
        emit(
            &tx,
            &kept.entity_id,
            &kept.canonical_name,
            "merged",
            &ChangeSource::manual(),
            now,
        )
        .map_err(&sql)?;
        let entity = get_in(&tx, keep).map_err(&sql)?;
        tx.commit().map_err(&sql)?;
        entity.ok_or_else(|| Error::NotFound {
            what: "entity",
            id: keep.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests;
