//! Durable nodes and their lifecycle (concept model §4.2–4.5): the obligations and memory
//! directives that approved promotions wrote, read as one kind of thing; the person's edits,
//! supersessions, retirements, confirmations and warrant moves; and the nightly sweep that moves
//! a node down the degradation ladder when its sources decay or are contradicted.
//!
//! Nothing here deletes a node. Every change is a row of `node_history`, a retired or superseded
//! node stays readable with its provenance, and the brief decides from the warrant whether a node
//! is stated, hedged, or left out (and says why in its trace).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, NodeId, WorkContextId};
use crate::base::tokens::{Line, one_line};
use crate::graph::Graph;
use crate::graph::entities::ts;

/// How long a retired or superseded node keeps showing in brief traces as excluded, so the
/// inspector can say why it left; after that it is only in the Knowledge page and its history.
pub const EXCLUDED_TRACE_DAYS: i64 = 30;

/// The two kinds of durable node a promotion writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Obligation,
    MemoryDirective,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Obligation => "obligation",
            NodeKind::MemoryDirective => "memory_directive",
        }
    }

    fn table(self) -> (&'static str, &'static str) {
        match self {
            NodeKind::Obligation => ("obligations", "obligation_id"),
            NodeKind::MemoryDirective => ("memory_directives", "directive_id"),
        }
    }

    fn id_prefix(self) -> &'static str {
        match self {
            NodeKind::Obligation => "ob_",
            NodeKind::MemoryDirective => "md_",
        }
    }
}

/// Defines a string-coded enum with `as_str`, `FromStr` and `Display`, whose codes are the
/// concept model's words (and the database's values).
macro_rules! coded {
    ($(#[$meta:meta])* $name:ident, $what:literal { $($variant:ident => $code:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }
        }

        impl FromStr for $name {
            type Err = Error;

            fn from_str(s: &str) -> Result<$name> {
                match s {
                    $($code => Ok($name::$variant),)+
                    _ => Err(Error::InvalidInput(format!(
                        "unknown {} `{s}`; one of: {}",
                        $what,
                        [$($code),+].join(", ")
                    ))),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

coded!(
    /// Lifecycle state (concept model §4.2).
    Lifecycle, "lifecycle state" {
        Candidate => "candidate",
        Provisional => "provisional",
        Active => "active",
        Confirmed => "confirmed",
        Contested => "contested",
        Superseded => "superseded",
        Retired => "retired",
        AuditOnly => "audit_only",
    }
);

impl Lifecycle {
    /// Whether the node is still in use (it may be hedged, but it is not history).
    pub fn is_live(self) -> bool {
        matches!(
            self,
            Lifecycle::Provisional
                | Lifecycle::Active
                | Lifecycle::Confirmed
                | Lifecycle::Contested
        )
    }
}

coded!(
    /// Staleness state (concept model §4.3).
    Staleness, "staleness state" {
        NotTimeSensitive => "not_time_sensitive",
        Fresh => "fresh",
        StalePossible => "stale_possible",
        VerificationRequired => "verification_required",
        StaleConfirmed => "stale_confirmed",
        SourceChanged => "source_changed",
        CoverageGapSuspected => "coverage_gap_suspected",
    }
);

coded!(
    /// Use warrant (concept model §4.4), in ladder order: each step warrants less.
    Warrant, "use warrant" {
        Assert => "assert",
        Hedge => "hedge",
        VerifyBeforeUse => "verify_before_use",
        OrientationOnly => "orientation_only",
        SearchOnly => "search_only",
        DoNotInject => "do_not_inject",
    }
);

impl Warrant {
    /// The warrant `steps` rungs down the ladder from `assert`, stopping at `search_only`: the
    /// sweep never takes a node out of search by itself, only the person retires it.
    pub(crate) fn rung(steps: usize) -> Warrant {
        Warrant::ALL[steps.min(4)]
    }

    /// Whether a brief may show a node at this warrant.
    pub fn injects(self) -> bool {
        self <= Warrant::OrientationOnly
    }

    /// The line a brief shows for `text` at this warrant, or `None` when it may not be shown.
    /// The label comes first so a reader (or a model) meets the hedge before the claim.
    pub fn render(self, text: &str) -> Option<String> {
        match self {
            Warrant::Assert => Some(text.to_owned()),
            Warrant::Hedge => Some(format!("(possibly outdated) {text}")),
            Warrant::VerifyBeforeUse => Some(format!("(verify before use) {text}")),
            Warrant::OrientationOnly => Some(format!("(orientation only) {text}")),
            Warrant::SearchOnly | Warrant::DoNotInject => None,
        }
    }
}

/// How a brief treats a node: the line it shows, or why it may not show one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BriefForm {
    /// The line at the node's warrant (hedged with a leading label below `assert`).
    Shown(String),
    /// Left out: `retired` for a retired or superseded node (else its warrant forbids
    /// injection), with the sentence the inspector shows.
    Excluded { retired: bool, detail: String },
}

/// The one rule for showing a node in a brief, for Tier 3's directives and Tier 1's obligations:
/// `base` is the node's card text before any hedge, `updated_at` when its lifecycle last changed.
pub fn brief_form(
    lifecycle: Lifecycle,
    warrant: Warrant,
    reason: &str,
    updated_at: &str,
    base: &str,
) -> BriefForm {
    if !lifecycle.is_live() {
        let day = updated_at.get(..10).unwrap_or(updated_at);
        return BriefForm::Excluded {
            retired: true,
            detail: format!("{lifecycle} on {day}: {reason}"),
        };
    }
    match warrant.render(base) {
        Some(line) => BriefForm::Shown(line),
        None => BriefForm::Excluded {
            retired: false,
            detail: format!("use warrant {warrant}: {reason}"),
        },
    }
}

/// A durable node as the Knowledge page, the CLI and the brief see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Node {
    pub node_id: NodeId,
    pub kind: NodeKind,
    pub text: String,
    pub lifecycle: Lifecycle,
    pub staleness: Staleness,
    pub warrant: Warrant,
    /// Why the warrant is what it is, in a sentence (approval, the person, or the sweep).
    pub warrant_reason: Option<String>,
    pub superseded_by: Option<NodeId>,
    pub work_context_id: Option<WorkContextId>,
    pub entity_id: Option<EntityId>,
    pub due_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// Where a node came from: a continuity entry, a session, a review decision, a node it replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    pub source_kind: String,
    pub source_ref: String,
    pub recorded_at: String,
}

/// One change in a node's life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryEvent {
    /// `approved`, `edited`, `superseded`, `created`, `retired`, `confirmed`, `warrant` or
    /// `degraded`.
    pub action: String,
    pub text: Option<String>,
    pub state: Option<String>,
    pub note: Option<String>,
    pub at: String,
}

/// A node with where it came from and everything that happened to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeDetail {
    pub node: Node,
    pub provenance: Vec<Provenance>,
    pub history: Vec<HistoryEvent>,
}

const SELECT: &str = "SELECT kind, node_id, text, lifecycle_state, staleness_state, use_warrant,
        warrant_reason, superseded_by, work_context_id, entity_id, due_at, created_at, updated_at
   FROM durable_nodes";

pub(crate) fn row_node(r: &rusqlite::Row<'_>) -> rusqlite::Result<Node> {
    row_node_at(r, 0)
}

/// A node from the row's columns starting at `at` (in [`SELECT`]'s order).
fn row_node_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<Node> {
    // Values outside the vocabulary can only come from a hand-edited database; they read as
    // the most careful state rather than failing the whole list.
    let kind: String = r.get(at)?;
    let lifecycle: String = r.get(at + 3)?;
    let staleness: String = r.get(at + 4)?;
    let warrant: Option<String> = r.get(at + 5)?;
    let id: String = r.get(at + 1)?;
    let superseded_by: Option<String> = r.get(at + 7)?;
    Ok(Node {
        node_id: NodeId::new(id).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                at + 1,
                rusqlite::types::Type::Text,
                Box::new(e),
            )
        })?,
        kind: if kind == "obligation" {
            NodeKind::Obligation
        } else {
            NodeKind::MemoryDirective
        },
        text: r.get(at + 2)?,
        lifecycle: lifecycle.parse().unwrap_or(Lifecycle::AuditOnly),
        staleness: staleness.parse().unwrap_or(Staleness::VerificationRequired),
        warrant: warrant
            .as_deref()
            .unwrap_or("assert")
            .parse()
            .unwrap_or(Warrant::VerifyBeforeUse),
        warrant_reason: r.get(at + 6)?,
        superseded_by: superseded_by.and_then(|s| NodeId::new(s).ok()),
        work_context_id: r.get(at + 8)?,
        entity_id: r.get(at + 9)?,
        due_at: r.get(at + 10)?,
        created_at: r.get(at + 11)?,
        updated_at: r.get(at + 12)?,
    })
}

fn get_in(c: &Connection, id: &str) -> rusqlite::Result<Option<Node>> {
    c.query_row(&format!("{SELECT} WHERE node_id = ?1"), [id], row_node)
        .optional()
}

fn not_found(id: &str) -> Error {
    Error::NotFound {
        what: "durable node",
        id: id.to_owned(),
    }
}

/// The id of the node that replaces `old` with `text` at `now`: made from the three, so two
/// supersessions of one node never share it.
fn successor_id(old: &Node, text: &str, now: DateTime<Utc>) -> NodeId {
    let digest = Sha256::digest(format!("{}|{text}|{}", old.node_id, ts(now)).as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    NodeId::new(format!("{}{hex}", old.kind.id_prefix()))
        .expect("a prefix and 12 hex digits make a valid id")
}

/// Makes the node `new_id` that replaces `old` with `text`.
fn insert_successor(
    c: &Connection,
    old: &Node,
    new_id: NodeId,
    text: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<NodeId> {
    let id = old.node_id.as_str();
    let reason = format!("supersedes {id}");
    match old.kind {
        NodeKind::Obligation => c.execute(
            "INSERT INTO obligations (obligation_id, entity_id, text, due_at,
                 lifecycle_state, created_at, updated_at, staleness_state, use_warrant,
                 warrant_reason, work_context_id)
             VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?5, 'fresh', 'assert', ?6, ?7)",
            params![
                new_id.as_str(),
                old.entity_id,
                text,
                old.due_at,
                ts(now),
                reason,
                old.work_context_id
            ],
        )?,
        NodeKind::MemoryDirective => c.execute(
            "INSERT INTO memory_directives (directive_id, text, scope, lifecycle_state,
                 use_warrant, created_at, updated_at, tokens, staleness_state,
                 warrant_reason)
             VALUES (?1, ?2, ?3, 'active', 'assert', ?4, ?4, ?5, 'fresh', ?6)",
            params![
                new_id.as_str(),
                text,
                old.work_context_id,
                ts(now),
                rendered_tokens(old.kind, text, Warrant::Assert),
                reason
            ],
        )?,
    };
    c.execute(
        "INSERT INTO provenance (node_id, source_kind, source_ref, recorded_at)
         VALUES (?1, 'supersedes', ?2, ?3)",
        params![new_id.as_str(), id, ts(now)],
    )?;
    c.execute(
        "INSERT OR IGNORE INTO edges (src_id, dst_id, relation, created_at)
         VALUES (?1, ?2, 'supersedes', ?3)",
        params![new_id.as_str(), id, ts(now)],
    )?;
    history_in(
        c,
        &new_id,
        "created",
        Some(text),
        "active",
        Some(&reason),
        now,
    )?;
    Ok(new_id)
}

/// Puts `old` out of use in favour of `new_id`.
fn mark_superseded(
    c: &Connection,
    old: &Node,
    new_id: &NodeId,
    text: &str,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    write_state(
        c,
        old,
        &old.text,
        Lifecycle::Superseded,
        old.staleness,
        Warrant::DoNotInject,
        &format!("superseded by {new_id}"),
        Some(new_id),
        now,
    )?;
    history_in(
        c,
        &old.node_id,
        "superseded",
        None,
        "superseded",
        Some(&format!("by {new_id}: {text}")),
        now,
    )
}

/// The node, which must still be live for the person to change it.
fn live_in(c: &Connection, id: &str, verb: &str) -> Result<Node> {
    let node = get_in(c, id)
        .map_err(|e| Error::InvalidInput(format!("reading node {id}: {e}")))?
        .ok_or_else(|| not_found(id))?;
    if !node.lifecycle.is_live() {
        let successor = node
            .superseded_by
            .as_ref()
            .map(|s| format!(" by {s}"))
            .unwrap_or_default();
        return Err(Error::InvalidInput(format!(
            "node {id} is {}{successor}; it cannot be {verb} (its history is kept as it is)",
            node.lifecycle
        )));
    }
    Ok(node)
}

/// The token count of the line a brief shows for a directive at its warrant, stored with it so
/// the brief needs no tokenizer; `None` when it is never shown.
fn rendered_tokens(kind: NodeKind, text: &str, warrant: Warrant) -> Option<u32> {
    (kind == NodeKind::MemoryDirective)
        .then(|| warrant.render(&one_line(text)))
        .flatten()
        .map(|line| Line::new(line).tokens)
}

/// Writes the node's state columns (and the directive's rendered token count).
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_state(
    c: &Connection,
    node: &Node,
    text: &str,
    lifecycle: Lifecycle,
    staleness: Staleness,
    warrant: Warrant,
    reason: &str,
    superseded_by: Option<&NodeId>,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let (table, id_col) = node.kind.table();
    c.execute(
        &format!(
            "UPDATE {table} SET text = ?2, lifecycle_state = ?3, staleness_state = ?4,
                 use_warrant = ?5, warrant_reason = ?6, superseded_by = ?7, updated_at = ?8
             WHERE {id_col} = ?1"
        ),
        params![
            node.node_id.as_str(),
            text,
            lifecycle.as_str(),
            staleness.as_str(),
            warrant.as_str(),
            reason,
            superseded_by.map(NodeId::as_str),
            ts(now)
        ],
    )?;
    if node.kind == NodeKind::MemoryDirective {
        c.execute(
            "UPDATE memory_directives SET tokens = ?2 WHERE directive_id = ?1",
            params![
                node.node_id.as_str(),
                rendered_tokens(node.kind, text, warrant)
            ],
        )?;
    }
    Ok(())
}

pub(crate) fn history_in(
    c: &Connection,
    id: &NodeId,
    action: &str,
    text: Option<&str>,
    state: &str,
    note: Option<&str>,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO node_history (node_id, action, text, state, note, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id.as_str(), action, text, state, note, ts(now)],
    )?;
    Ok(())
}

/// Marks the constellation views that show the node as stale.
pub(crate) fn touch_views(c: &Connection, node: &Node) -> rusqlite::Result<()> {
    if let Some(wc) = &node.work_context_id {
        crate::graph::touch_in(c, wc)?;
    }
    if let Some(entity) = &node.entity_id {
        crate::graph::touch_entity_in(c, entity)?;
    }
    Ok(())
}

fn clean_text(text: &str) -> Result<String> {
    let text = one_line(text);
    if text.is_empty() {
        return Err(Error::InvalidInput(
            "a node's text must not be empty".into(),
        ));
    }
    if text.chars().count() > 500 {
        return Err(Error::InvalidInput(
            "a node's text is at most 500 characters".into(),
        ));
    }
    Ok(text)
}

impl Graph {
    /// Durable nodes, newest change first: the live ones, or all of them with `all`.
    pub fn nodes(&self, all: bool) -> Result<Vec<Node>> {
        let mut nodes: Vec<Node> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!("{SELECT} ORDER BY updated_at DESC, node_id"))?;
            stmt.query_map([], row_node)?.collect()
        })?;
        if !all {
            nodes.retain(|n| n.lifecycle.is_live());
        }
        Ok(nodes)
    }

    /// The memory directives a brief considers at `now`: live ones, and those retired or
    /// superseded within [`EXCLUDED_TRACE_DAYS`], oldest first. Filtered in SQL because it is on
    /// the brief's start path.
    pub(crate) fn directives_for_brief(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(Node, Option<u32>)>> {
        let since = ts(now - Duration::days(EXCLUDED_TRACE_DAYS));
        self.with_conn_result(|c| {
            // The directive branch of the `durable_nodes` view, with the stored token count first.
            let mut stmt = c.prepare_cached(
                "SELECT m.tokens, 'memory_directive', m.directive_id, m.text, m.lifecycle_state,
                        m.staleness_state, m.use_warrant, m.warrant_reason, m.superseded_by,
                        m.scope, NULL, NULL, m.created_at, m.updated_at
                   FROM memory_directives m
                  WHERE m.lifecycle_state IN ('provisional', 'active', 'confirmed', 'contested')
                     OR m.updated_at >= ?1
                  ORDER BY m.created_at, m.directive_id",
            )?;
            stmt.query_map([since], |r| {
                let tokens: Option<u32> = r.get(0)?;
                Ok((row_node_at(r, 1)?, tokens))
            })?
            .collect()
        })
    }

    /// One node with its provenance and history.
    pub fn node(&self, id: &str) -> Result<NodeDetail> {
        self.with_conn_result(|c| {
            let Some(node) = get_in(c, id)? else {
                return Ok(None);
            };
            let mut stmt = c.prepare_cached(
                "SELECT source_kind, source_ref, recorded_at FROM provenance
                 WHERE node_id = ?1 ORDER BY provenance_id",
            )?;
            let provenance = stmt
                .query_map([id], |r| {
                    Ok(Provenance {
                        source_kind: r.get(0)?,
                        source_ref: r.get(1)?,
                        recorded_at: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut stmt = c.prepare_cached(
                "SELECT action, text, state, note, at FROM node_history
                 WHERE node_id = ?1 ORDER BY history_id",
            )?;
            let history = stmt
                .query_map([id], |r| {
                    Ok(HistoryEvent {
                        action: r.get(0)?,
                        text: r.get(1)?,
                        state: r.get(2)?,
                        note: r.get(3)?,
                        at: r.get(4)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some(NodeDetail {
                node,
                provenance,
                history,
            }))
        })?
        .ok_or_else(|| not_found(id))
    }

    /// The person corrects a node's text. Their word restores it: lifecycle `active`, staleness
    /// `fresh`, warrant `assert`; the old text stays in the history.
    pub(crate) fn edit_node(&self, id: &str, text: &str, now: DateTime<Utc>) -> Result<Node> {
        let text = clean_text(text)?;
        self.node_change(id, "edited", |c, node| {
            let note = format!("was: {}", node.text);
            write_state(
                c,
                node,
                &text,
                Lifecycle::Active,
                Staleness::Fresh,
                Warrant::Assert,
                "corrected by the person",
                None,
                now,
            )?;
            history_in(
                c,
                &node.node_id,
                "edited",
                Some(&text),
                "active",
                Some(&note),
                now,
            )?;
            Ok(node.node_id.clone())
        })
    }

    /// The person confirms a node still holds: lifecycle `confirmed`, staleness `fresh`, warrant
    /// `assert`, and the decay clock starts again.
    pub(crate) fn confirm_node(&self, id: &str, now: DateTime<Utc>) -> Result<Node> {
        self.node_change(id, "confirmed", |c, node| {
            write_state(
                c,
                node,
                &node.text,
                Lifecycle::Confirmed,
                Staleness::Fresh,
                Warrant::Assert,
                "confirmed by the person",
                None,
                now,
            )?;
            history_in(c, &node.node_id, "confirmed", None, "confirmed", None, now)?;
            Ok(node.node_id.clone())
        })
    }

    /// The person sets a node's warrant on the ladder themselves (for example: hedge this).
    pub(crate) fn set_node_warrant(
        &self,
        id: &str,
        warrant: Warrant,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Node> {
        let reason = reason
            .map(one_line)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| format!("set to {warrant} by the person"));
        self.node_change(id, "warrant", |c, node| {
            write_state(
                c,
                node,
                &node.text,
                node.lifecycle,
                node.staleness,
                warrant,
                &reason,
                None,
                now,
            )?;
            let note = format!("{} → {warrant}: {reason}", node.warrant);
            history_in(
                c,
                &node.node_id,
                "warrant",
                None,
                node.lifecycle.as_str(),
                Some(&note),
                now,
            )?;
            Ok(node.node_id.clone())
        })
    }

    /// The person retires a node: it leaves every brief (warrant `do_not_inject`) and stays, with
    /// its history, in the Knowledge page.
    /// Adds a line to a node's history without changing the node (sync: a decision another
    /// device made that a later one overrode). The node need not exist yet.
    pub(crate) fn add_node_history(
        &self,
        id: &str,
        action: &str,
        note: &str,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let id = NodeId::new(id)?;
        self.with_conn_result(|c| history_in(c, &id, action, None, "", Some(note), at))
    }

    pub(crate) fn retire_node(
        &self,
        id: &str,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Node> {
        let reason = reason
            .map(one_line)
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "retired by the person".to_owned());
        self.node_change(id, "retired", |c, node| {
            write_state(
                c,
                node,
                &node.text,
                Lifecycle::Retired,
                node.staleness,
                Warrant::DoNotInject,
                &reason,
                None,
                now,
            )?;
            history_in(
                c,
                &node.node_id,
                "retired",
                None,
                "retired",
                Some(&reason),
                now,
            )?;
            Ok(node.node_id.clone())
        })
    }

    /// The person replaces a node with a new one of the same kind (same work context, entity
    /// and due date). The old node becomes `superseded`, names its successor and leaves the
    /// brief; the new one records what it supersedes. Returns the new node.
    pub(crate) fn supersede_node(&self, id: &str, text: &str, now: DateTime<Utc>) -> Result<Node> {
        let text = clean_text(text)?;
        self.node_change(id, "superseded", |c, old| {
            let new_id = insert_successor(c, old, successor_id(old, &text, now), &text, now)?;
            mark_superseded(c, old, &new_id, &text, now)?;
            Ok(new_id)
        })
    }

    /// Another device's supersession of `id` by `successor` (sync): the successor is made here
    /// too, under the id that device gave it, whatever became of the old node meanwhile, so every
    /// device holds it. The old node is marked superseded only when that is the change in force
    /// on its lifecycle (`in_force`); a later retire, or a later supersession by another device,
    /// stays.
    pub(crate) fn sync_supersede(
        &self,
        id: &str,
        successor: &str,
        text: &str,
        in_force: bool,
        now: DateTime<Utc>,
    ) -> Result<Option<Node>> {
        let text = clean_text(text)?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let sql = |e| self.sql(e);
        let Some(old) = get_in(&tx, id).map_err(sql)? else {
            return Ok(None);
        };
        let successor = NodeId::new(successor)?;
        let new_id = insert_successor(&tx, &old, successor, &text, now).map_err(sql)?;
        if in_force {
            mark_superseded(&tx, &old, &new_id, &text, now).map_err(sql)?;
        } else {
            let note = format!("by {new_id} on another device: {text}; a later change is in force");
            history_in(
                &tx,
                &old.node_id,
                "superseded",
                None,
                old.lifecycle.as_str(),
                Some(&note),
                now,
            )
            .map_err(sql)?;
        }
        touch_views(&tx, &old).map_err(sql)?;
        let made = get_in(&tx, new_id.as_str()).map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(made)
    }

    /// Puts another device's change of a node's fields in force here (sync), whatever state
    /// the node is in: the fields given are the ones whose write is the newest (see
    /// `Graph::sync_write`), so a retire made after an edit keeps the node retired and an edit
    /// made after a retire brings it back, on every device alike. `None` when the node is not
    /// here (its approval has not arrived).
    pub(crate) fn sync_node(
        &self,
        id: &str,
        fields: &SyncedNodeFields,
        action: &str,
        note: &str,
        at: DateTime<Utc>,
    ) -> Result<Option<Node>> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let Some(node) = get_in(&tx, id).map_err(|e| self.sql(e))? else {
            return Ok(None);
        };
        let text = fields.text.as_deref().unwrap_or(&node.text);
        let lifecycle = fields.lifecycle.unwrap_or(node.lifecycle);
        // The person's word makes a node fresh again, as `edit_node` and `confirm_node` do.
        let staleness = match fields.lifecycle {
            Some(Lifecycle::Active | Lifecycle::Confirmed) => Staleness::Fresh,
            _ => node.staleness,
        };
        let warrant = fields.warrant.unwrap_or(node.warrant);
        let reason = node.warrant_reason.as_deref().unwrap_or_default();
        let reason = if fields.lifecycle.is_some() || fields.warrant.is_some() {
            note
        } else {
            reason
        };
        write_state(
            &tx,
            &node,
            text,
            lifecycle,
            staleness,
            warrant,
            reason,
            node.superseded_by.as_ref(),
            at,
        )
        .and_then(|()| {
            history_in(
                &tx,
                &node.node_id,
                action,
                fields.text.as_deref(),
                lifecycle.as_str(),
                Some(note),
                at,
            )
        })
        .and_then(|()| touch_views(&tx, &node))
        .map_err(|e| self.sql(e))?;
        let out = get_in(&tx, id).map_err(|e| self.sql(e))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(out)
    }

    /// Runs one person's change in a transaction: reads the live node, applies `f`, marks the
    /// views that show it stale, and returns the node `f` names (the changed or the new one).
    fn node_change(
        &self,
        id: &str,
        verb: &str,
        f: impl FnOnce(&Connection, &Node) -> rusqlite::Result<NodeId>,
    ) -> Result<Node> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let node = live_in(&tx, id, verb)?;
        let out = f(&tx, &node).map_err(|e| self.sql(e))?;
        touch_views(&tx, &node).map_err(|e| self.sql(e))?;
        let out = get_in(&tx, out.as_str())
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| not_found(out.as_str()))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(out)
    }
}

/// The fields of a node another device changed, each `Some` when that write is in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SyncedNodeFields {
    pub text: Option<String>,
    pub lifecycle: Option<Lifecycle>,
    pub warrant: Option<Warrant>,
}

/// A change the person makes to a durable node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Correct the text; the person's word restores the warrant to `assert`.
    Edit(String),
    /// Confirm it still holds; the decay clock restarts.
    Confirm,
    /// Move it on the ladder, with an optional reason.
    Warrant(Warrant, Option<String>),
    /// Retire it, with an optional reason.
    Retire(Option<String>),
    /// Replace it by a new node with this text.
    Supersede(String),
}

#[cfg(test)]
mod tests;
