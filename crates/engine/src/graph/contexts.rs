//! Work contexts (CSA §3.1): named ones the person makes, with link rules (a project directory, a
//! session key pattern, an entity set) and linked entities; `wc_auto_…` ones capture derives from
//! the entities a session resolved; and `wc_unlinked`. This module owns their rows in the graph,
//! resolving a session to one of them, and merging two of them (graph rows and continuity logs).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, WorkContextId};
use crate::graph::Graph;
use crate::graph::entities::{slug, sql_err, ts};
use crate::graph::store::Store;

mod rules;

pub(crate) use rules::LinkRules;

/// How a session is linked to a named work context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkRuleKind {
    /// The session's working directory is this directory or inside it.
    Cwd,
    /// The session id (or agent id) matches this glob (`*` any run, `?` one character).
    SessionKey,
    /// The session referenced every one of these entities (comma-separated ids).
    EntitySet,
}

impl LinkRuleKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkRuleKind::Cwd => "cwd",
            LinkRuleKind::SessionKey => "session_key",
            LinkRuleKind::EntitySet => "entity_set",
        }
    }

    pub fn parse(s: &str) -> Option<LinkRuleKind> {
        [
            LinkRuleKind::Cwd,
            LinkRuleKind::SessionKey,
            LinkRuleKind::EntitySet,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// One link rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkRule {
    pub rule_id: i64,
    pub kind: LinkRuleKind,
    pub pattern: String,
}

/// Who made a work context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The person, by name.
    Named,
    /// Capture, from a session's most-referenced entities (`wc_auto_…`).
    Auto,
    /// Ingest, for a project found in the transcripts' working directories.
    Project,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Named => "named",
            Origin::Auto => "auto",
            Origin::Project => "project",
        }
    }

    /// The stored name; the graph's CHECK constraint allows `named` and `auto`, and `project`
    /// is derived from the `projects` table, so anything else reads as the person's.
    fn parse(name: &str) -> Origin {
        match name {
            "auto" => Origin::Auto,
            "project" => Origin::Project,
            _ => Origin::Named,
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A work context known to the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkContext {
    pub work_context_id: WorkContextId,
    pub name: String,
    pub domain_lineage: Option<String>,
    pub origin: Origin,
    /// Content of this context is never sent to a non-local model.
    pub local_only: bool,
    pub entity_ids: Vec<EntityId>,
    pub rules: Vec<LinkRule>,
    /// Sessions resolved to this context.
    pub session_count: u64,
    /// When its newest session's last turn happened (RFC 3339): when the work was, not when
    /// ELNOR read it.
    pub last_active_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A new named work context.
#[derive(Debug, Clone, Default)]
pub struct NewWorkContext {
    pub name: String,
    pub domain_lineage: Option<String>,
    pub local_only: bool,
    pub rules: Vec<(LinkRuleKind, String)>,
    pub entity_ids: Vec<EntityId>,
}

/// A change to a work context; `None` leaves a field alone.
#[derive(Debug, Clone, Default)]
pub struct WorkContextEdit {
    pub name: Option<String>,
    /// `Some(None)` clears the tag.
    pub domain_lineage: Option<Option<String>>,
    pub local_only: Option<bool>,
}

/// What resolution knows about a session.
#[derive(Debug, Clone, Default)]
pub struct SessionFacts<'a> {
    pub session_id: &'a str,
    pub agent_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    /// Resolved entities, most referenced first.
    pub entity_ids: &'a [EntityId],
    /// The context an earlier capture resolved this session to, if any.
    pub previous: Option<&'a WorkContextId>,
}

/// Why a session landed where it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Resolution {
    /// A link rule of a named context matched.
    Rule {
        rule_id: i64,
        kind: LinkRuleKind,
        pattern: String,
    },
    /// An earlier capture placed the session here and no rule says otherwise.
    Previous,
    /// `wc_auto_…` from the primary entities.
    Auto { entity_ids: Vec<EntityId> },
    /// No entities: the shared, capped `wc_unlinked`.
    Unlinked,
}

/// How many of a session's entities define its auto work context: the primary few, so that one
/// more file path mentioned later does not move the session elsewhere.
pub const AUTO_PRIMARY_ENTITIES: usize = 3;

/// `wc_auto_{sha256(sorted entity ids)[:12]}` (CSA §3.1).
pub fn auto_id(entity_ids: &[EntityId]) -> WorkContextId {
    let mut ids: Vec<&str> = entity_ids.iter().map(EntityId::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    let digest = Sha256::digest(ids.join(",").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    WorkContextId::new(format!("wc_auto_{}", &hex[..12])).expect("auto ids are valid")
}

/// The Unicode embeddings, overrides and isolates that reorder how text around them is shown.
fn is_direction_override(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn clean_text(what: &'static str, raw: &str, max: usize) -> Result<String> {
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let reason = if text.is_empty() {
        "must not be empty"
    } else if text.chars().count() > max {
        "is too long"
    } else if text
        .chars()
        .any(|c| c.is_control() || is_direction_override(c))
    {
        // A name is shown in lists, briefs and heads: an escape sequence would reach a terminal,
        // and a direction override would make it read as something else (the "Trojan source"
        // trick).
        "must not hold control or direction-override characters"
    } else {
        return Ok(text);
    };
    Err(Error::InvalidId {
        what,
        value: raw
            .chars()
            .filter(|c| !c.is_control() && !is_direction_override(*c))
            .take(max)
            .collect(),
        reason,
    })
}

fn clean_rule(conn: &Connection, kind: LinkRuleKind, raw: &str) -> Result<String> {
    let pattern = raw.trim();
    if pattern.is_empty() || pattern.len() > 500 || pattern.chars().any(char::is_control) {
        return Err(Error::InvalidId {
            what: "link rule",
            value: pattern.chars().take(120).collect(),
            reason: "must be 1-500 printable characters",
        });
    }
    Ok(match kind {
        // A trailing separator would make "/a/b/" miss the session whose cwd is "/a/b".
        LinkRuleKind::Cwd => {
            let trimmed = pattern.trim_end_matches(['/', '\\']);
            if trimmed.is_empty() {
                pattern.to_owned()
            } else {
                trimmed.to_owned()
            }
        }
        LinkRuleKind::SessionKey => pattern.to_owned(),
        LinkRuleKind::EntitySet => {
            let mut ids = BTreeSet::new();
            for id in pattern.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let known = conn
                    .query_row("SELECT 1 FROM entities WHERE entity_id = ?1", [id], |_| {
                        Ok(())
                    })
                    .optional()
                    .map_err(sql_err(conn))?
                    .is_some();
                if !known {
                    return Err(Error::NotFound {
                        what: "entity",
                        id: id.to_owned(),
                    });
                }
                ids.insert(id.to_owned());
            }
            ids.into_iter().collect::<Vec<_>>().join(",")
        }
    })
}

/// `*` matches any run of characters and `?` one; everything else literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn rules_in(conn: &Connection, wc: Option<&str>) -> rusqlite::Result<Vec<(String, LinkRule)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.work_context_id, r.rule_id, r.rule_kind, r.pattern
         FROM work_context_link_rules r
         WHERE ?1 IS NULL OR r.work_context_id = ?1 ORDER BY r.rule_id",
    )?;
    let rows = stmt.query_map([wc], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (wc, rule_id, kind, pattern) = row?;
        if let Some(kind) = LinkRuleKind::parse(&kind) {
            out.push((
                wc,
                LinkRule {
                    rule_id,
                    kind,
                    pattern,
                },
            ));
        }
    }
    Ok(out)
}

/// Resolves a session to a work context (CSA §3.1): a named context's link rule first (the most
/// specific: the longest directory, then a session key, then the largest entity set), then the
/// context an earlier capture chose, then `wc_auto_…` from the primary entities, else
/// `wc_unlinked`.
pub(crate) fn resolve_in(
    conn: &Connection,
    rules: &LinkRules,
    facts: &SessionFacts<'_>,
) -> rusqlite::Result<(WorkContextId, Resolution)> {
    // Contexts ELNOR made for projects: any rule the person wrote outranks theirs, so a rule made
    // after the first ingest (a split, a broader folder, a session key) still takes effect.
    if let Some((wc, rule)) = rules.best(facts)
        && let Ok(id) = WorkContextId::new(wc)
    {
        return Ok((
            id,
            Resolution::Rule {
                rule_id: rule.rule_id,
                kind: rule.kind,
                pattern: rule.pattern,
            },
        ));
    }
    if let Some(previous) = facts.previous {
        // A session an earlier capture placed stays there, so its later captures do not scatter.
        // Only a named context that still exists, or an auto one, counts: a deleted named context
        // must not keep receiving entries.
        let exists = previous.as_str().starts_with("wc_auto_")
            || previous.is_unlinked()
            || conn
                .query_row(
                    "SELECT 1 FROM work_contexts WHERE work_context_id = ?1",
                    [previous.as_str()],
                    |_| Ok(()),
                )
                .optional()?
                .is_some();
        // A session once unlinked moves to an auto context as soon as it has entities.
        if exists && (!previous.is_unlinked() || facts.entity_ids.is_empty()) {
            return Ok((previous.clone(), Resolution::Previous));
        }
    }
    if facts.entity_ids.is_empty() {
        return Ok((WorkContextId::unlinked(), Resolution::Unlinked));
    }
    let primary: Vec<EntityId> = facts
        .entity_ids
        .iter()
        .take(AUTO_PRIMARY_ENTITIES)
        .cloned()
        .collect();
    Ok((
        auto_id(&primary),
        Resolution::Auto {
            entity_ids: primary,
        },
    ))
}

/// The named work context whose `cwd` link rule holds `path` (the longest such directory wins,
/// then the lower rule id), for placing a file the watcher saw.
pub(crate) fn for_path(graph: &Graph, path: &str) -> Result<Option<WorkContextId>> {
    Ok(graph.link_rules()?.for_path(path))
}

/// Makes sure the auto context exists as a row (so it can be listed, renamed or merged), named
/// after its entities and linked to them.
pub(crate) fn ensure_auto_in(
    conn: &Connection,
    wc: &WorkContextId,
    entity_ids: &[EntityId],
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let exists = conn
        .query_row(
            "SELECT 1 FROM work_contexts WHERE work_context_id = ?1",
            [wc.as_str()],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if exists {
        return Ok(());
    }
    let mut names = Vec::new();
    for id in entity_ids {
        let name: Option<String> = conn
            .query_row(
                "SELECT canonical_name FROM entities WHERE entity_id = ?1",
                [id.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        names.extend(name);
    }
    let name: String = names.join(" · ").chars().take(200).collect();
    conn.execute(
        "INSERT INTO work_contexts (work_context_id, name, origin, created_at, updated_at)
         VALUES (?1, ?2, 'auto', ?3, ?3)",
        params![wc.as_str(), name, ts(now)],
    )?;
    for id in entity_ids {
        conn.execute(
            "INSERT OR IGNORE INTO work_context_entities (work_context_id, entity_id)
             VALUES (?1, ?2)",
            params![wc.as_str(), id.as_str()],
        )?;
    }
    Ok(())
}

/// How many of a work context's most-mentioned entities count as its constellation for a
/// session's reference (see [`session_reference_targets_in`]).
pub const REFERENCE_TOP_ENTITIES: i64 = 5;

/// An entity mentioned in more work contexts than this names the person's world (their own
/// name, an employer, a tool used everywhere) rather than a thread of work, so that a session's
/// mere mention of it is news to nobody.
pub const REFERENCE_MAX_CONTEXTS: i64 = 12;

/// The work contexts other than `except` that a *session's mention* of `entity` is news to
/// (CSA §5.5 writes an update to the contexts whose constellation holds the entity). A mention
/// changes nothing about the entity, so it reaches fewer contexts than an edit, a merge or an
/// observation ([`referencing_in`]):
///
/// - the contexts that link the entity;
/// - the contexts where it is among the [`REFERENCE_TOP_ENTITIES`] most mentioned, unless more
///   than [`REFERENCE_MAX_CONTEXTS`] contexts mention it at all;
/// - none for a file named by a relative path: `src/config.rs` names a different file in every
///   project, so the same text in two projects is not the same thing changing.
pub(crate) fn session_reference_targets_in(
    conn: &Connection,
    entity: &str,
    except: Option<&str>,
) -> rusqlite::Result<Vec<WorkContextId>> {
    let row: Option<(String, String)> = conn
        .query_row(
            "SELECT kind, canonical_name FROM entities WHERE entity_id = ?1",
            [entity],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((kind, name)) = row else {
        return Ok(Vec::new());
    };
    if kind == "file" && !names_one_file(&name) {
        return Ok(Vec::new());
    }
    let mentioned_in: i64 = conn.query_row(
        "SELECT count(*) FROM context_entity_mentions WHERE entity_id = ?1",
        [entity],
        |r| r.get(0),
    )?;
    let sql = if mentioned_in > REFERENCE_MAX_CONTEXTS {
        "SELECT work_context_id FROM work_context_entities WHERE entity_id = ?1 ORDER BY 1"
    } else {
        "SELECT work_context_id FROM work_context_entities WHERE entity_id = ?1
         UNION
         SELECT m.work_context_id FROM context_entity_mentions m
         WHERE m.entity_id = ?1
           AND (SELECT count(*) FROM context_entity_mentions o
                WHERE o.work_context_id = m.work_context_id AND o.mentions > m.mentions) < ?2
         ORDER BY 1"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let ids = if mentioned_in > REFERENCE_MAX_CONTEXTS {
        stmt.query_map([entity], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?
    } else {
        stmt.query_map(params![entity, REFERENCE_TOP_ENTITIES], |r| {
            r.get::<_, String>(0)
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
    };
    Ok(ids
        .into_iter()
        .filter(|id| Some(id.as_str()) != except && id != WorkContextId::UNLINKED)
        .filter_map(|id| WorkContextId::new(id).ok())
        .collect())
}

/// Whether a file entity's name picks out one file whatever the project: an absolute path
/// (`/…`, `~/…`, a drive letter or a share). Capture names a file inside the session's project
/// relative to the project's root, so a relative name is only unique within its project.
fn names_one_file(name: &str) -> bool {
    let name = name.replace('\\', "/");
    name.starts_with('/') || name.starts_with("~/") || name.get(1..2) == Some(":")
}

/// Every work context other than `except` that references `entity`: linked explicitly or
/// referenced by one of its captured sessions.
pub(crate) fn referencing_in(
    conn: &Connection,
    entity: &str,
    except: Option<&str>,
) -> rusqlite::Result<Vec<WorkContextId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT work_context_id FROM work_context_entities WHERE entity_id = ?1
         UNION SELECT work_context_id FROM context_entity_mentions WHERE entity_id = ?1
         ORDER BY 1",
    )?;
    let ids = stmt
        .query_map([entity], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(ids
        .into_iter()
        .filter(|id| Some(id.as_str()) != except && id != WorkContextId::UNLINKED)
        .filter_map(|id| WorkContextId::new(id).ok())
        .collect())
}

fn get_in(conn: &Connection, id: &str) -> rusqlite::Result<Option<WorkContext>> {
    let row = conn
        .query_row(
            "SELECT work_context_id, name, domain_lineage,
                    CASE WHEN EXISTS (SELECT 1 FROM projects p
                                      WHERE p.work_context_id = w.work_context_id AND p.made = 1)
                         THEN 'project' ELSE origin END,
                    local_only, created_at, updated_at,
                    (SELECT count(*) FROM transcript_sessions s
                     WHERE s.work_context_id = w.work_context_id),
                    (SELECT max(s.last_turn_at) FROM transcript_sessions s
                     WHERE s.work_context_id = w.work_context_id)
             FROM work_contexts w WHERE work_context_id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, bool>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, Option<String>>(8)?,
                ))
            },
        )
        .optional()?;
    let Some((id, name, lineage, origin, local_only, created, updated, sessions, last_active)) =
        row
    else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT entity_id FROM work_context_entities WHERE work_context_id = ?1
         ORDER BY entity_id",
    )?;
    let entity_ids = stmt
        .query_map([&id], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter_map(|e| EntityId::new(e).ok())
        .collect();
    let rules = rules_in(conn, Some(&id))?
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    Ok(WorkContextId::new(id)
        .ok()
        .map(|work_context_id| WorkContext {
            work_context_id,
            name,
            domain_lineage: lineage,
            origin: Origin::parse(&origin),
            local_only,
            entity_ids,
            rules,
            session_count: sessions.max(0) as u64,
            last_active_at: last_active,
            created_at: created,
            updated_at: updated,
        }))
}

pub(crate) fn is_local_only_in(conn: &Connection, id: &WorkContextId) -> rusqlite::Result<bool> {
    Ok(conn
        .query_row(
            "SELECT local_only FROM work_contexts WHERE work_context_id = ?1",
            [id.as_str()],
            |r| r.get::<_, bool>(0),
        )
        .optional()?
        .unwrap_or(false))
}

/// A work context's display name and local-only flag. A context known only by its log (made by
/// `elnor log append`, with no graph row) is shown by its id and is not local-only.
pub(crate) fn name_and_local_only_in(
    conn: &Connection,
    id: &WorkContextId,
) -> rusqlite::Result<(String, bool)> {
    Ok(conn
        .query_row(
            "SELECT name, local_only FROM work_contexts WHERE work_context_id = ?1",
            [id.as_str()],
            |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)),
        )
        .optional()?
        .unwrap_or_else(|| (id.as_str().to_owned(), false)))
}

fn not_found(id: &str) -> Error {
    Error::NotFound {
        what: "work context",
        id: id.to_owned(),
    }
}

impl Graph {
    /// Creates a named work context with its rules and linked entities.
    pub(crate) fn create_work_context(
        &self,
        new: &NewWorkContext,
        now: DateTime<Utc>,
    ) -> Result<WorkContext> {
        let name = clean_text("work context name", &new.name, 200)?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let base = format!("wc_{}", slug(&name, 60));
        let mut id = base.clone();
        let mut n = 2;
        while get_in(&tx, &id).map_err(|e| self.sql(e))?.is_some() || id == WorkContextId::UNLINKED
        {
            id = format!("{base}_{n}");
            n += 1;
        }
        let lineage = new
            .domain_lineage
            .as_deref()
            .map(|l| clean_text("domain lineage tag", l, 120))
            .transpose()?;
        tx.execute(
            "INSERT INTO work_contexts
                 (work_context_id, name, domain_lineage, origin, local_only, created_at, updated_at)
             VALUES (?1, ?2, ?3, 'named', ?4, ?5, ?5)",
            params![id, name, lineage, new.local_only, ts(now)],
        )
        .map_err(|e| self.sql(e))?;
        for (kind, pattern) in &new.rules {
            let pattern = clean_rule(&tx, *kind, pattern)?;
            tx.execute(
                "INSERT INTO work_context_link_rules (work_context_id, rule_kind, pattern)
                 VALUES (?1, ?2, ?3)",
                params![id, kind.as_str(), pattern],
            )
            .map_err(|e| self.sql(e))?;
        }
        for entity in &new.entity_ids {
            link_in(&tx, &id, entity)?;
        }
        let wc = get_in(&tx, &id).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        wc.ok_or_else(|| not_found(&id))
    }

    /// One work context.
    pub fn work_context(&self, id: &str) -> Result<WorkContext> {
        self.with_conn_result(|c| get_in(c, id))?
            .ok_or_else(|| not_found(id))
    }

    /// Every work context in the graph, the most recently active first (by when the work
    /// happened), then those with no session by name.
    pub fn work_contexts(&self) -> Result<Vec<WorkContext>> {
        self.work_contexts_by_activity(false, None)
    }

    /// The `limit` most recently active work contexts that have sessions, newest work first.
    pub fn active_work_contexts(&self, limit: usize) -> Result<Vec<WorkContext>> {
        self.work_contexts_by_activity(true, Some(limit))
    }

    fn work_contexts_by_activity(
        &self,
        with_sessions_only: bool,
        limit: Option<usize>,
    ) -> Result<Vec<WorkContext>> {
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let ids: Vec<String> = self.with_conn_result(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT w.work_context_id FROM work_contexts w
                 LEFT JOIN (SELECT work_context_id, max(last_turn_at) AS last
                            FROM transcript_sessions GROUP BY work_context_id) s
                   ON s.work_context_id = w.work_context_id
                 WHERE NOT ?1 OR s.work_context_id IS NOT NULL
                 ORDER BY s.last DESC NULLS LAST, w.origin = 'auto', w.name COLLATE NOCASE,
                          w.work_context_id
                 LIMIT ?2",
            )?;
            stmt.query_map(params![with_sessions_only, limit], |r| r.get(0))?
                .collect()
        })?;
        self.with_conn_result(|c| {
            let mut out = Vec::with_capacity(ids.len());
            for id in &ids {
                out.extend(get_in(c, id)?);
            }
            Ok(out)
        })
    }

    /// Renames, retags or changes the local-only flag of a work context.
    pub(crate) fn edit_work_context(
        &self,
        id: &str,
        edit: &WorkContextEdit,
        now: DateTime<Utc>,
    ) -> Result<WorkContext> {
        let current = self.work_context(id)?;
        let name = match &edit.name {
            Some(n) => clean_text("work context name", n, 200)?,
            None => current.name,
        };
        let lineage = match &edit.domain_lineage {
            Some(Some(l)) => Some(clean_text("domain lineage tag", l, 120)?),
            Some(None) => None,
            None => current.domain_lineage,
        };
        let local_only = edit.local_only.unwrap_or(current.local_only);
        self.with_conn_result(|c| {
            // Renaming an auto context makes it the person's: it is named from then on.
            c.execute(
                "UPDATE work_contexts SET name = ?2, domain_lineage = ?3, local_only = ?4,
                     updated_at = ?5,
                     origin = CASE WHEN ?6 THEN 'named' ELSE origin END
                 WHERE work_context_id = ?1",
                params![id, name, lineage, local_only, ts(now), edit.name.is_some()],
            )?;
            crate::graph::touch_in(c, id)
        })?;
        self.work_context(id)
    }

    /// Adds a link rule.
    pub(crate) fn add_link_rule(
        &self,
        id: &str,
        kind: LinkRuleKind,
        pattern: &str,
    ) -> Result<LinkRule> {
        self.work_context(id)?;
        let conn = self.conn();
        let pattern = clean_rule(&conn, kind, pattern)?;
        conn.execute(
            "INSERT INTO work_context_link_rules (work_context_id, rule_kind, pattern)
             VALUES (?1, ?2, ?3)",
            params![id, kind.as_str(), pattern],
        )
        .map_err(|e| self.sql(e))?;
        Ok(LinkRule {
            rule_id: conn.last_insert_rowid(),
            kind,
            pattern,
        })
    }

    /// Makes a work context another device made, under its id (sync). Nothing when it exists.
    pub(crate) fn insert_synced_work_context(
        &self,
        id: &str,
        name: &str,
        origin: &str,
        domain_lineage: Option<&str>,
        local_only: bool,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let id = WorkContextId::new(id)?;
        let name = clean_text("work context name", name, 200)?;
        // The CHECK constraint knows `named` and `auto`; a project's context is `named` with a
        // row in `projects`, which only this machine's own transcripts make.
        let origin = if origin == "auto" { "auto" } else { "named" };
        self.with_conn_result(|c| {
            c.execute(
                "INSERT OR IGNORE INTO work_contexts
                     (work_context_id, name, domain_lineage, origin, local_only, created_at,
                      updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![
                    id.as_str(),
                    name,
                    domain_lineage,
                    origin,
                    local_only,
                    ts(at)
                ],
            )
        })?;
        Ok(())
    }

    /// Adds (`present`) or removes the rule of `kind` and `pattern` (sync); nothing when it is
    /// already so.
    pub(crate) fn set_link_rule_present(
        &self,
        id: &str,
        kind: LinkRuleKind,
        pattern: &str,
        present: bool,
    ) -> Result<()> {
        let found: Vec<i64> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT rule_id FROM work_context_link_rules
                 WHERE work_context_id = ?1 AND rule_kind = ?2 AND pattern = ?3",
            )?;
            stmt.query_map(params![id, kind.as_str(), pattern], |r| r.get(0))?
                .collect()
        })?;
        match (present, found.is_empty()) {
            (true, true) => self.add_link_rule(id, kind, pattern).map(|_| ()),
            (false, false) => {
                for rule in found {
                    self.remove_link_rule(id, rule)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The context a merged-away context went into, following merges of merges; the context
    /// itself when it was never merged away.
    pub(crate) fn merged_into(&self, id: &str) -> Result<String> {
        self.end_of_merges(id, |c| self.work_context(c).is_ok())
    }

    /// Where a merged-away context or entity (`id`) went, following merges of merges (each
    /// merge leaves a provenance row from what was absorbed to what kept it) until one that
    /// `exists`; `id` itself when it exists or was never merged.
    pub(crate) fn end_of_merges(&self, id: &str, exists: impl Fn(&str) -> bool) -> Result<String> {
        let mut current = id.to_owned();
        for _ in 0..32 {
            if exists(&current) {
                return Ok(current);
            }
            let next: Option<String> = self.with_conn_result(|c| {
                c.query_row(
                    "SELECT node_id FROM provenance WHERE source_kind = 'merge' AND source_ref = ?1
                     ORDER BY recorded_at DESC LIMIT 1",
                    [&current],
                    |r| r.get(0),
                )
                .optional()
            })?;
            match next {
                Some(n) if n != current => current = n,
                _ => return Ok(current),
            }
        }
        Ok(current)
    }

    /// Removes a link rule.
    pub(crate) fn remove_link_rule(&self, id: &str, rule_id: i64) -> Result<()> {
        let n = self.with_conn_result(|c| {
            c.execute(
                "DELETE FROM work_context_link_rules WHERE work_context_id = ?1 AND rule_id = ?2",
                params![id, rule_id],
            )
        })?;
        if n == 0 {
            return Err(Error::NotFound {
                what: "link rule",
                id: format!("{id}#{rule_id}"),
            });
        }
        Ok(())
    }

    /// Links an entity to a work context.
    pub(crate) fn link_entity(&self, id: &str, entity: &str) -> Result<()> {
        self.work_context(id)?;
        link_in(&self.conn(), id, entity)
    }

    /// Unlinks an entity from a work context.
    pub(crate) fn unlink_entity(&self, id: &str, entity: &str) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute(
                "DELETE FROM work_context_entities WHERE work_context_id = ?1 AND entity_id = ?2",
                params![id, entity],
            )?;
            crate::graph::touch_in(c, id)
        })?;
        Ok(())
    }

    /// Resolves a session's facts to a work context, without writing anything.
    pub fn resolve_work_context(
        &self,
        facts: &SessionFacts<'_>,
    ) -> Result<(WorkContextId, Resolution)> {
        let rules = self.link_rules()?;
        self.with_conn_result(|c| resolve_in(c, &rules, facts))
    }
}

fn link_in(conn: &Connection, wc: &str, entity: &str) -> Result<()> {
    let known = conn
        .query_row(
            "SELECT 1 FROM entities WHERE entity_id = ?1",
            [entity],
            |_| Ok(()),
        )
        .optional()
        .map_err(sql_err(conn))?
        .is_some();
    if !known {
        return Err(Error::NotFound {
            what: "entity",
            id: entity.to_owned(),
        });
    }
    conn.execute(
        "INSERT OR IGNORE INTO work_context_entities (work_context_id, entity_id) VALUES (?1, ?2)",
        params![wc, entity],
    )
    .map_err(sql_err(conn))?;
    crate::graph::touch_in(conn, wc).map_err(sql_err(conn))?;
    Ok(())
}

impl Store {
    /// Merges work context `absorb` into `keep`: rules, entity links, mentions and sessions move
    /// over, and every entry of `absorb`'s continuity log is appended to `keep`'s log with its
    /// `work_context_id` rewritten. The absorbed log is then moved to `continuity/merged/`, kept
    /// rather than deleted, so nothing the person had is lost.
    pub(crate) fn merge_work_contexts(
        &self,
        keep: &str,
        absorb: &str,
        now: DateTime<Utc>,
    ) -> Result<WorkContext> {
        if keep == absorb {
            return Err(Error::InvalidEntry(
                "cannot merge a work context into itself".into(),
            ));
        }
        let keep_id = WorkContextId::new(keep)?;
        let absorb_id = WorkContextId::new(absorb)?;
        self.graph().work_context(keep)?;
        self.graph().work_context(absorb)?;
        // The log first: if the process dies after this, the graph still names both contexts and
        // the merge can simply be run again (entries already copied are skipped by id).
        let from = self.log(&absorb_id);
        let into = self.log(&keep_id);
        let existing: BTreeSet<String> = into
            .read()?
            .entries
            .into_iter()
            .map(|e| e.entry_id.to_string())
            .collect();
        for mut entry in from.read()?.entries {
            if existing.contains(entry.entry_id.as_str()) {
                continue;
            }
            entry.work_context_id = keep_id.clone();
            into.append(&entry)?;
        }
        if from.path().exists() {
            let dir = self.root().join("continuity").join("merged");
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let dest = dir.join(format!("{absorb}.{}.jsonl", now.timestamp()));
            std::fs::rename(from.path(), &dest).map_err(|e| Error::io(&dest, e))?;
        }
        let graph = self.graph();
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        for stmt in [
            "UPDATE work_context_link_rules SET work_context_id = ?1 WHERE work_context_id = ?2",
            "INSERT OR IGNORE INTO work_context_entities (work_context_id, entity_id)
             SELECT ?1, entity_id FROM work_context_entities WHERE work_context_id = ?2",
            "INSERT INTO context_entity_mentions
                 (work_context_id, entity_id, mentions, last_session_id, last_seen_at)
             SELECT ?1, entity_id, mentions, last_session_id, last_seen_at
             FROM context_entity_mentions WHERE work_context_id = ?2 AND true
             ON CONFLICT (work_context_id, entity_id)
             DO UPDATE SET mentions = mentions + excluded.mentions",
            "DELETE FROM context_entity_mentions WHERE work_context_id = ?2",
            "UPDATE transcript_sessions SET work_context_id = ?1 WHERE work_context_id = ?2",
            "UPDATE session_captures SET work_context_id = ?1 WHERE work_context_id = ?2",
            "UPDATE goals SET work_context_id = ?1 WHERE work_context_id = ?2",
            // A merged project stays known, so the next ingest does not make it again.
            "UPDATE projects SET work_context_id = ?1 WHERE work_context_id = ?2",
            "UPDATE update_deliveries SET work_context_id = ?1 WHERE work_context_id = ?2",
            // Every statement here is bound to both ids; this one needs only the absorbed one.
            "DELETE FROM constellation_generations WHERE work_context_id = ?2 AND ?1 IS NOT NULL",
            "DELETE FROM work_contexts WHERE work_context_id = ?2",
        ] {
            tx.execute(stmt, params![keep, absorb])
                .map_err(|e| graph.sql(e))?;
        }
        tx.execute(
            "INSERT INTO provenance (node_id, source_kind, source_ref, recorded_at)
             VALUES (?1, 'merge', ?2, ?3)",
            params![keep, absorb, ts(now)],
        )
        .map_err(|e| graph.sql(e))?;
        crate::graph::touch_in(&tx, keep).map_err(|e| graph.sql(e))?;
        tx.commit().map_err(|e| graph.sql(e))?;
        drop(conn);
        graph.work_context(keep)
    }
}

/// What [`ensure_projects`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProjectsReport {
    /// Work contexts made for projects seen for the first time.
    pub created: Vec<WorkContextId>,
    /// Auto contexts whose every session belonged to one project, merged into its context.
    pub merged: Vec<(WorkContextId, WorkContextId)>,
}

/// Gives each project with primary sessions a named work context, once (issue 14): records the
/// project of each session not yet looked at (a session's cwd never changes, so each is looked at
/// once; `''` marks "not a project"), makes a context named after the folder with a `cwd` rule
/// for its root for every project with a primary session that has none yet (unless a rule
/// already covers the root: the person's, or an earlier project's, since a folder inside a known
/// project belongs to it; or `auto_project_contexts` is off), places the `touched` sessions and
/// the new projects' sessions that no capture has placed, and moves what earlier captures put in
/// auto contexts of that project only, as a merge would. A project is remembered in `projects`,
/// so a context the person deleted or merged away is not made again. The work is proportional to
/// what is new, not to the store: it runs after every ingest.
pub fn ensure_projects(
    store: &Store,
    touched: &BTreeSet<String>,
    now: DateTime<Utc>,
) -> Result<ProjectsReport> {
    let graph = store.graph();
    let home = crate::graph::projects::home_dir();
    let auto = store.config()?.auto_project_contexts;
    let mut report = ProjectsReport::default();
    let mut fresh: Vec<(WorkContextId, String)> = Vec::new();
    {
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        let err = sql_err(&tx);
        let unseen: Vec<(String, String)> = {
            let mut stmt = tx
                .prepare(
                    "SELECT session_id, cwd FROM transcript_sessions
                     WHERE cwd IS NOT NULL AND project_key IS NULL",
                )
                .map_err(&err)?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(&err)?
                .collect::<rusqlite::Result<_>>()
                .map_err(&err)?
        };
        let mut by_cwd: std::collections::HashMap<String, String> =
            std::collections::HashMap::new();
        for (session, cwd) in &unseen {
            let key = by_cwd
                .entry(cwd.clone())
                .or_insert_with(|| {
                    crate::graph::projects::of_cwd(cwd, home.as_deref())
                        .map(|p| p.key)
                        .unwrap_or_default()
                })
                .clone();
            tx.execute(
                "UPDATE transcript_sessions SET project_key = ?2 WHERE session_id = ?1",
                params![session, key],
            )
            .map_err(&err)?;
        }
        // Projects with a person's session and no record yet (new ones, and those skipped while
        // `auto_project_contexts` was off), each with one of its sessions' folders.
        let pending: Vec<(String, String)> = {
            let mut stmt = tx
                .prepare(
                    "SELECT project_key, min(cwd) FROM transcript_sessions
                     WHERE project_key <> '' AND session_kind = 'primary'
                       AND project_key NOT IN (SELECT project_key FROM projects)
                     GROUP BY project_key ORDER BY project_key",
                )
                .map_err(&err)?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(&err)?
                .collect::<rusqlite::Result<_>>()
                .map_err(&err)?
        };
        // The rules as they were before this ingest's projects: a project is covered by a rule
        // the person or an earlier ingest made, not by a sibling's made a moment ago.
        let before = LinkRules::read(&tx).map_err(&err)?;
        for (key, cwd) in &pending {
            let Some(project) =
                crate::graph::projects::of_cwd(cwd, home.as_deref()).filter(|p| &p.key == key)
            else {
                continue;
            };
            let covering = before.covering(&project.root);
            let (wc, made) = match covering {
                Some(wc) => (Some(wc), false),
                None if auto => {
                    let id = project.work_context_id();
                    tx.execute(
                        "INSERT OR IGNORE INTO work_contexts
                             (work_context_id, name, origin, created_at, updated_at)
                         VALUES (?1, ?2, 'named', ?3, ?3)",
                        params![id, project.name, ts(now)],
                    )
                    .map_err(&err)?;
                    tx.execute(
                        "INSERT INTO work_context_link_rules (work_context_id, rule_kind, pattern)
                         VALUES (?1, 'cwd', ?2)",
                        params![id, project.root],
                    )
                    .map_err(&err)?;
                    let wc = WorkContextId::new(id.clone())?;
                    report.created.push(wc.clone());
                    fresh.push((wc, key.clone()));
                    (Some(id), true)
                }
                // Off: nothing is made and nothing remembered, so turning it on later works.
                None => continue,
            };
            tx.execute(
                "INSERT INTO projects (project_key, root, name, work_context_id, made, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![key, project.root, project.name, wc, made, ts(now)],
            )
            .map_err(&err)?;
        }
        // A primary session no capture has placed yet is placed by its link rules now, so every
        // session of a known project shows in its context from the first ingest on. Only the
        // sessions this ingest touched and those of projects just given a context can have
        // changed.
        let rules = LinkRules::read(&tx).map_err(&err)?;
        let mut candidates: BTreeSet<String> = touched.clone();
        for (_, key) in &fresh {
            let mut stmt = tx
                .prepare_cached("SELECT session_id FROM transcript_sessions WHERE project_key = ?1")
                .map_err(&err)?;
            let ids = stmt
                .query_map([key], |r| r.get::<_, String>(0))
                .map_err(&err)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(&err)?;
            candidates.extend(ids);
        }
        for session in &candidates {
            let row: Option<(Option<String>, Option<String>)> = tx
                .query_row(
                    "SELECT agent_id, cwd FROM transcript_sessions
                     WHERE session_id = ?1 AND work_context_id IS NULL
                       AND session_kind = 'primary'
                       AND session_id NOT IN (SELECT session_id FROM session_captures)",
                    [session],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(&err)?;
            let Some((agent, cwd)) = row else {
                continue;
            };
            let facts = SessionFacts {
                session_id: session,
                agent_id: agent.as_deref(),
                cwd: cwd.as_deref(),
                ..SessionFacts::default()
            };
            if let (wc, Resolution::Rule { .. }) = resolve_in(&tx, &rules, &facts).map_err(&err)? {
                tx.execute(
                    "UPDATE transcript_sessions SET work_context_id = ?2 WHERE session_id = ?1",
                    params![session, wc.as_str()],
                )
                .map_err(&err)?;
            }
        }
        drop(err);
        tx.commit().map_err(|e| graph.sql(e))?;
    }
    // Earlier captures of this project's sessions went to auto contexts; an auto context that
    // holds only this project's sessions moves over whole, as a merge moves it.
    for (wc, key) in fresh {
        let autos: Vec<String> = graph.with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT DISTINCT sc.work_context_id FROM session_captures sc
                 JOIN transcript_sessions s ON s.session_id = sc.session_id
                 WHERE s.project_key = ?1 AND sc.work_context_id LIKE 'wc\\_auto\\_%' ESCAPE '\\'
                   AND NOT EXISTS (
                     SELECT 1 FROM session_captures o
                     JOIN transcript_sessions os ON os.session_id = o.session_id
                     WHERE o.work_context_id = sc.work_context_id
                       AND os.project_key IS NOT ?1)
                 ORDER BY 1",
            )?;
            stmt.query_map([&key], |r| r.get(0))?.collect()
        })?;
        for auto in autos {
            if graph.work_context(&auto).is_ok() {
                store.merge_work_contexts(wc.as_str(), &auto, now)?;
                report.merged.push((WorkContextId::new(auto)?, wc.clone()));
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
