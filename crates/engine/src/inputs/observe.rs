//! External observation (CSA §9, SPEC §11): work the person does outside agent chats, seen by the
//! file watcher over tracked folders ([`files`], [`watcher`]) or told by a manual "I just did X"
//! [`push`]. Each observation is stored (canonical, in the graph) with the entities it mentions;
//! touching those entities emits `graph.entity.upserted` events that name the observation, and
//! cross-conversation delivery turns them into updates in every work context referencing the
//! entities, with text naming the file or the push (CSA §5.5). A push placed in a work context
//! also tells that context directly, since no agent session of it saw the work either; a file is
//! placed in the context whose `cwd` rule holds it (for the timeline and its filters) but reaches
//! logs, that context's included, only through the entities it mentions.
//!
//! Nothing here blocks on the OS watcher: [`files`] compares the disk with what it recorded, so the
//! same code serves an event, a rescan of a new folder, and the periodic reconcile.

pub mod files;
pub mod folders;
pub mod ignore;
pub mod markdown;
pub mod reach;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::base::config::{ContinuityConfig, ContinuityMode};
use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, SessionId, WorkContextId};
use crate::graph::Graph;
use crate::graph::entities::EntityMatcher;
use crate::graph::entities::{self, ChangeSource, NewEntity, ObservedBy, parse_ts, ts};
use crate::graph::store::Store;
use crate::inputs::capture::crossconv;

pub use folders::{TrackedConfig, TrackedFoldersFile};
pub use ignore::default_ignores;

/// The longest push text accepted, in characters.
pub const MAX_PUSH_CHARS: usize = 2_000;

/// The kind of entity a push creates for a name it does not know.
const PUSHED_ENTITY_KIND: &str = "topic";

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservationKind {
    Created,
    Modified,
    Renamed,
    Deleted,
    Pushed,
}

impl ObservationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ObservationKind::Created => "created",
            ObservationKind::Modified => "modified",
            ObservationKind::Renamed => "renamed",
            ObservationKind::Deleted => "deleted",
            ObservationKind::Pushed => "pushed",
        }
    }

    pub fn parse(s: &str) -> Option<ObservationKind> {
        [
            ObservationKind::Created,
            ObservationKind::Modified,
            ObservationKind::Renamed,
            ObservationKind::Deleted,
            ObservationKind::Pushed,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    /// The past participle an update uses: "edited outside chat".
    fn verb(self) -> &'static str {
        match self {
            ObservationKind::Created => "created",
            ObservationKind::Modified => "edited",
            ObservationKind::Renamed => "renamed",
            ObservationKind::Deleted => "deleted",
            ObservationKind::Pushed => "noted",
        }
    }
}

/// Where an observation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservationSource {
    /// The file watcher.
    File,
    /// The person's push.
    Push,
}

impl ObservationSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ObservationSource::File => "file",
            ObservationSource::Push => "push",
        }
    }

    pub fn parse(s: &str) -> Option<ObservationSource> {
        match s {
            "file" => Some(ObservationSource::File),
            "push" => Some(ObservationSource::Push),
            _ => None,
        }
    }
}

/// One stored observation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    pub observation_id: i64,
    pub source: ObservationSource,
    pub kind: ObservationKind,
    pub path: Option<PathBuf>,
    pub from_path: Option<PathBuf>,
    pub title: Option<String>,
    /// The push's text, or the file change's short content delta.
    pub text: String,
    /// A markdown file's headings and links, as JSON.
    pub details: Option<String>,
    pub observed_at: DateTime<Utc>,
    pub work_context_id: Option<WorkContextId>,
    /// The entities it touched, with their names.
    pub entities: Vec<(EntityId, String)>,
    /// Cross-conversation updates it wrote.
    pub updates_written: u32,
}

/// A manual push: "I just did X".
#[derive(Debug, Clone, Default)]
pub struct Push {
    pub text: String,
    pub work_context: Option<WorkContextId>,
    /// Entity names; one not yet in the graph becomes a new entity.
    pub entities: Vec<String>,
}

/// What a push did.
#[derive(Debug, Clone, Serialize)]
pub struct PushOutcome {
    pub observation: Observation,
    pub entities_created: Vec<String>,
    /// Where it reached, as [`reach::reach`] worked it out beforehand.
    pub reach: reach::PushReach,
    /// The work contexts whose logs the push wrote to, whose views the use case rebuilds.
    #[serde(skip)]
    pub touched: BTreeSet<WorkContextId>,
}

/// Which observations to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct ObservationFilter {
    pub work_context: Option<WorkContextId>,
    pub source: Option<ObservationSource>,
    pub since: Option<DateTime<Utc>>,
    /// 0 means 100.
    pub limit: u32,
}

/// An observation about to be stored.
#[derive(Debug, Clone)]
pub(crate) struct NewObservation {
    pub source: ObservationSource,
    pub kind: ObservationKind,
    pub path: Option<PathBuf>,
    pub from_path: Option<PathBuf>,
    pub title: Option<String>,
    pub text: String,
    pub details: Option<String>,
    pub work_context: Option<WorkContextId>,
    /// Entities it touches (already in the graph).
    pub entities: Vec<EntityId>,
    /// Entities to create first, by name (a push naming something new).
    pub create: Vec<String>,
}

impl NewObservation {
    /// The key standing in for a source session: one per file path, so repeated saves of one
    /// file wait as one update; one per push.
    fn source_key(&self, id: i64) -> String {
        match (&self.source, &self.path) {
            (ObservationSource::File, Some(path)) => {
                let digest =
                    <sha2::Sha256 as sha2::Digest>::digest(path.to_string_lossy().as_bytes());
                let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
                format!("file-{hex}")
            }
            _ => format!("push-{id}"),
        }
    }

    /// The update text: "Henderson brief edited outside chat (brief.md)." or "You noted: …".
    fn summary(&self) -> String {
        if self.source == ObservationSource::Push {
            // A brief line is one line: the push's own line breaks become spaces there.
            let words: Vec<&str> = self.text.split_whitespace().collect();
            return format!("You noted: {}", words.join(" "));
        }
        let file = self
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let title = self.title.clone().unwrap_or_else(|| file.clone());
        let from = self
            .from_path
            .as_ref()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let mut s = match (self.kind, from) {
            // Same name, new folder: a move, said with where it went.
            (ObservationKind::Renamed, Some(from)) if from == file => {
                let to = self
                    .path
                    .as_ref()
                    .and_then(|p| p.parent())
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("{title} moved outside chat (to {to}/)")
            }
            (ObservationKind::Renamed, Some(from)) => {
                format!("{title} renamed outside chat ({from} → {file})")
            }
            (kind, _) if title != file && !file.is_empty() => {
                format!("{title} {} outside chat ({file})", kind.verb())
            }
            (kind, _) => format!("{title} {} outside chat", kind.verb()),
        };
        s.push('.');
        s
    }
}

/// Records a push: resolves entities named in the request (creating unknown ones) and mentioned
/// in the text, stores the observation, and delivers the cross-conversation updates it causes.
/// The views are the use case's to rebuild ([`crate::usecase::push`]).
pub(crate) fn push(store: &Store, push: &Push, now: DateTime<Utc>) -> Result<PushOutcome> {
    let text = push.text.trim();
    if text.is_empty() {
        return Err(Error::InvalidInput(
            "a push needs some text: what did you do?".into(),
        ));
    }
    if text.chars().count() > MAX_PUSH_CHARS {
        return Err(Error::InvalidInput(format!(
            "a push is at most {MAX_PUSH_CHARS} characters; this one has {}",
            text.chars().count()
        )));
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(Error::InvalidInput(
            "a push's text contains control characters".into(),
        ));
    }
    let reach = reach::reach(
        store.graph(),
        text,
        &push.entities,
        push.work_context.as_ref(),
    )?;
    let create = reach.created();
    let new = NewObservation {
        source: ObservationSource::Push,
        kind: ObservationKind::Pushed,
        path: None,
        from_path: None,
        title: None,
        text: text.to_owned(),
        details: None,
        work_context: reach
            .work_context
            .as_ref()
            .map(|w| w.work_context_id.clone()),
        entities: reach.entity_ids(),
        create: create.clone(),
    };
    let (observation, touched) = record(store, &store.config()?, new, now)?;
    Ok(PushOutcome {
        observation,
        entities_created: create,
        reach,
        touched,
    })
}

/// The entities whose names or aliases occur in `text`, most mentioned first.
pub(crate) fn mentioned_with(matcher: &EntityMatcher, text: &str) -> Vec<EntityId> {
    let mut counts = BTreeMap::new();
    matcher.count_in(text, &mut counts);
    let mut ids: Vec<(EntityId, u32)> = counts.into_iter().collect();
    ids.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ids.into_iter().map(|(id, _)| id).collect()
}

/// Stores an observation and what follows from it; see [`record_all`].
pub(crate) fn record(
    store: &Store,
    config: &ContinuityConfig,
    new: NewObservation,
    now: DateTime<Utc>,
) -> Result<(Observation, BTreeSet<WorkContextId>)> {
    let (mut stored, touched) = record_all(store, config, vec![new], |_| Ok(()), now)?;
    let observation = stored
        .pop()
        .ok_or_else(|| Error::InvalidInput("no observation stored".into()))?;
    Ok((observation, touched))
}

/// Stores observations and what follows from them: in one transaction, each observation, its
/// entity events, and `also` (the watcher's own bookkeeping, so that a crash cannot leave a file
/// observed but not remembered, or the reverse); then the update a push tells its own work context;
/// then one delivery of the events to the other contexts. Returns the observations and the work
/// contexts whose logs were written to, whose views the caller's use case rebuilds.
pub(crate) fn record_all(
    store: &Store,
    config: &ContinuityConfig,
    batch: Vec<NewObservation>,
    also: impl FnOnce(&Connection) -> rusqlite::Result<()>,
    now: DateTime<Utc>,
) -> Result<(Vec<Observation>, BTreeSet<WorkContextId>)> {
    let mut touched = BTreeSet::new();
    let graph = store.graph();
    let mut stored: Vec<(i64, ChangeSource, Vec<EntityId>, &NewObservation)> = Vec::new();
    {
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        for new in &batch {
            let (id, source, entity_ids) = insert_with_entities(&tx, new, now, graph)?;
            stored.push((id, source, entity_ids, new));
        }
        also(&tx).map_err(|e| graph.sql(e))?;
        tx.commit().map_err(|e| graph.sql(e))?;
    }
    for (id, source, entity_ids, new) in &stored {
        // A push placed in a work context tells that context directly: the person said it
        // there. A file is not told to the context whose folder holds it, only through the
        // entities it mentions; otherwise a burst of new files would be a burst of updates there.
        if config.mode != ContinuityMode::Off
            && new.source == ObservationSource::Push
            && let (Some(wc), Some(observed)) = (&new.work_context, &source.observation)
        {
            let mut waiting = crossconv::Waiting::default();
            let written = crossconv::append_update(
                store,
                config,
                wc,
                &SessionId::new(observed.source_key.clone())?,
                &observed.summary,
                entity_ids,
                now,
                &mut waiting,
            )?;
            if written {
                count_updates(graph, *id, 1)?;
                touched.insert(wc.clone());
            }
        }
    }
    if !stored.is_empty() {
        let delivered = crossconv::deliver_pending(store, config, now)?;
        touched.extend(delivered.touched);
    }
    let observations = stored
        .iter()
        .map(|(id, ..)| graph.observation(*id))
        .collect::<Result<_>>()?;
    Ok((observations, touched))
}

/// Inserts one observation with its entities (creating the ones a push names anew) and their
/// `graph.entity.upserted` events.
fn insert_with_entities(
    tx: &Connection,
    new: &NewObservation,
    now: DateTime<Utc>,
    graph: &Graph,
) -> Result<(i64, ChangeSource, Vec<EntityId>)> {
    let id = insert(tx, new, now).map_err(|e| graph.sql(e))?;
    // The event names the context that already knows, so delivery skips it: a push's own context
    // was told directly. A file's context knows nothing of an edit made outside chat, so it is
    // not skipped and hears of it like any other context referencing the entity.
    let source = ChangeSource {
        kind: new.source.as_str(),
        session_id: None,
        work_context_id: match new.source {
            ObservationSource::Push => new.work_context.clone(),
            ObservationSource::File => None,
        },
        observation: Some(ObservedBy {
            observation_id: id,
            source_key: new.source_key(id),
            summary: new.summary(),
        }),
    };
    let mut entity_ids = new.entities.clone();
    let mut created_ids = BTreeSet::new();
    for name in &new.create {
        let created = entities::create_in(
            tx,
            &NewEntity {
                kind: PUSHED_ENTITY_KIND.into(),
                canonical_name: name.clone(),
                ..NewEntity::default()
            },
            Some(&source),
            now,
        )?;
        match created {
            Ok(e) => {
                created_ids.insert(e.clone());
                entity_ids.push(e);
            }
            // Created meanwhile under that name or alias: touch it like a found one.
            Err((_, e)) => entity_ids.push(e),
        }
    }
    let mut seen = BTreeSet::new();
    entity_ids.retain(|e| seen.insert(e.clone()));
    for e in &entity_ids {
        tx.execute(
            "INSERT OR IGNORE INTO observation_entities (observation_id, entity_id)
             VALUES (?1, ?2)",
            params![id, e.as_str()],
        )
        .map_err(|e| graph.sql(e))?;
        // A created entity already has its `created` event.
        if !created_ids.contains(e) {
            entities::changed_in(tx, e, "referenced", &source, now).map_err(|e| graph.sql(e))?;
        }
    }
    Ok((id, source, entity_ids))
}

fn insert(conn: &Connection, new: &NewObservation, now: DateTime<Utc>) -> rusqlite::Result<i64> {
    conn.execute(
        "INSERT INTO observations (source, kind, path, from_path, title, text, details,
                                   work_context_id, observed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            new.source.as_str(),
            new.kind.as_str(),
            new.path.as_ref().map(|p| p.to_string_lossy().into_owned()),
            new.from_path
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            new.title,
            new.text,
            new.details,
            new.work_context.as_ref().map(WorkContextId::as_str),
            ts(now),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Adds `n` to an observation's count of updates written.
pub(crate) fn count_updates(graph: &Graph, observation_id: i64, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    graph.with_conn_result(|c| {
        c.execute(
            "UPDATE observations SET updates_written = updates_written + ?2
             WHERE observation_id = ?1",
            params![observation_id, n as i64],
        )
        .map(|_| ())
    })
}

const COLUMNS: &str = "observation_id, source, kind, path, from_path, title, text, details,
                       observed_at, work_context_id, updates_written";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Observation> {
    let source: String = r.get(1)?;
    let kind: String = r.get(2)?;
    Ok(Observation {
        observation_id: r.get(0)?,
        source: ObservationSource::parse(&source).unwrap_or(ObservationSource::File),
        kind: ObservationKind::parse(&kind).unwrap_or(ObservationKind::Modified),
        path: r.get::<_, Option<String>>(3)?.map(PathBuf::from),
        from_path: r.get::<_, Option<String>>(4)?.map(PathBuf::from),
        title: r.get(5)?,
        text: r.get(6)?,
        details: r.get(7)?,
        observed_at: parse_ts(r.get(8)?).unwrap_or_default(),
        work_context_id: r
            .get::<_, Option<String>>(9)?
            .and_then(|w| WorkContextId::new(w).ok()),
        entities: Vec::new(),
        updates_written: r.get::<_, i64>(10)?.max(0) as u32,
    })
}

fn with_entities(conn: &Connection, mut o: Observation) -> rusqlite::Result<Observation> {
    let mut stmt = conn.prepare_cached(
        "SELECT oe.entity_id, coalesce(e.canonical_name, oe.entity_id)
         FROM observation_entities oe LEFT JOIN entities e ON e.entity_id = oe.entity_id
         WHERE oe.observation_id = ?1 ORDER BY 2",
    )?;
    o.entities = stmt
        .query_map([o.observation_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?
        .filter_map(|r| r.ok())
        .filter_map(|(id, name)| EntityId::new(id).ok().map(|id| (id, name)))
        .collect();
    Ok(o)
}

impl Graph {
    /// One observation.
    pub fn observation(&self, id: i64) -> Result<Observation> {
        self.with_conn_result(|c| {
            let o = c
                .query_row(
                    &format!("SELECT {COLUMNS} FROM observations WHERE observation_id = ?1"),
                    [id],
                    row,
                )
                .optional()?;
            o.map(|o| with_entities(c, o)).transpose()
        })?
        .ok_or_else(|| Error::NotFound {
            what: "observation",
            id: id.to_string(),
        })
    }

    /// Observations, newest first.
    pub fn observations(&self, filter: &ObservationFilter) -> Result<Vec<Observation>> {
        let limit = if filter.limit == 0 { 100 } else { filter.limit };
        self.with_conn_result(|c| {
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM observations
                 WHERE (?1 IS NULL OR work_context_id = ?1)
                   AND (?2 IS NULL OR source = ?2)
                   AND (?3 IS NULL OR observed_at >= ?3)
                 ORDER BY observed_at DESC, observation_id DESC LIMIT ?4"
            ))?;
            let rows = stmt
                .query_map(
                    params![
                        filter.work_context.as_ref().map(WorkContextId::as_str),
                        filter.source.map(ObservationSource::as_str),
                        filter.since.map(ts),
                        limit as i64
                    ],
                    row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            rows.into_iter().map(|o| with_entities(c, o)).collect()
        })
    }
}

#[cfg(test)]
mod tests;
