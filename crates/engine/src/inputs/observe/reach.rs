//! Where a push will reach, worked out before it is stored: which entities its text and its
//! named entities resolve to, which work context it lands in, and which other contexts hear of
//! it through those entities. The push itself and its preview both read this one answer, so
//! what the preview promises is what the push does.
//!
//! People type pushes quickly and name things the short way: "Called Christensen about the
//! draft" means the entity "Christensen report". Besides whole names and aliases, a push
//! therefore matches an entity or a work context by one *distinctive word* of its name: a
//! capitalised word of four letters or more that belongs to no other entity's (or context's)
//! name and is not one of the generic words names are made of ("report", "project", "notes").
//! A word two names share matches neither, so a partial name never picks one of several.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::{EntityId, WorkContextId};
use crate::graph::Graph;
use crate::graph::{contexts, entities};

/// Words names are built from that say nothing about which thing is meant.
const GENERIC: &[&str] = &[
    "report",
    "reports",
    "project",
    "projects",
    "notes",
    "note",
    "draft",
    "drafts",
    "plan",
    "plans",
    "meeting",
    "meetings",
    "review",
    "reviews",
    "team",
    "document",
    "documents",
    "docs",
    "update",
    "updates",
    "work",
    "file",
    "files",
    "data",
    "system",
    "service",
    "client",
    "clients",
    "brief",
    "memo",
    "task",
    "tasks",
    "spec",
    "specs",
    "design",
    "release",
    "the",
    "and",
    "with",
    "from",
    "into",
    "about",
    "this",
    "that",
    "main",
    "final",
    "new",
    "old",
];

/// How a push found an entity or a work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "how", content = "word")]
pub enum Found {
    /// The person chose it (the push's entity list or its work context).
    Chosen,
    /// Its whole name or an alias occurs in the text.
    Name,
    /// One distinctive word of its name occurs in the text (or was given as the entity).
    Word(String),
    /// Named by the person but unknown: the push creates it as a new entity.
    New,
}

impl Found {
    /// How it was found, in a person's words ("by the word “Christensen”").
    pub fn describe(&self) -> String {
        match self {
            Found::Chosen => "you chose it".into(),
            Found::Name => "named in the text".into(),
            Found::Word(w) => format!("by the word “{w}”"),
            Found::New => "new: it will be created".into(),
        }
    }
}

/// An entity the push touches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReachedEntity {
    /// `None` for an entity the push will create.
    pub entity_id: Option<EntityId>,
    pub name: String,
    pub found: Found,
}

/// A work context the push reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReachedContext {
    pub work_context_id: WorkContextId,
    pub name: String,
    pub found: Found,
    /// For a context told through an entity, that entity's name.
    pub via_entity: Option<String>,
}

/// Everything a push will touch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PushReach {
    pub entities: Vec<ReachedEntity>,
    /// The context the push lands in: the one chosen, else the one its text names (only when it
    /// names exactly one).
    pub work_context: Option<ReachedContext>,
    /// The other contexts that get a cross-conversation update because they reference one of
    /// the entities.
    pub told: Vec<ReachedContext>,
}

impl PushReach {
    /// The ids of the known entities reached, in order.
    pub(crate) fn entity_ids(&self) -> Vec<EntityId> {
        self.entities
            .iter()
            .filter_map(|e| e.entity_id.clone())
            .collect()
    }

    /// The names of the entities the push creates.
    pub(crate) fn created(&self) -> Vec<String> {
        self.entities
            .iter()
            .filter(|e| e.found == Found::New)
            .map(|e| e.name.clone())
            .collect()
    }
}

/// Lower-case words of at least four letters or digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
}

/// For every distinctive word (lower-cased), the one owner whose names hold it capitalised.
fn distinctive<K: Ord + Clone>(names: &[(K, String)]) -> BTreeMap<String, K> {
    let mut owners: BTreeMap<String, BTreeSet<K>> = BTreeMap::new();
    for (owner, name) in names {
        for word in words(name) {
            let lower = word.to_lowercase();
            let capitalised = word.chars().next().is_some_and(char::is_uppercase);
            if capitalised && !GENERIC.contains(&lower.as_str()) {
                owners.entry(lower).or_default().insert(owner.clone());
            }
        }
    }
    // A word any name holds in any case counts as shared, so "Ledger" in one name and "ledger"
    // in another picks neither.
    for (owner, name) in names {
        for word in words(name) {
            if let Some(set) = owners.get_mut(&word.to_lowercase()) {
                set.insert(owner.clone());
            }
        }
    }
    owners
        .into_iter()
        .filter(|(_, set)| set.len() == 1)
        .filter_map(|(word, set)| set.into_iter().next().map(|o| (word, o)))
        .collect()
}

/// The first distinctive word of `text` that `table` knows, with its owner.
fn first_word<K: Clone>(table: &BTreeMap<String, K>, text: &str) -> Option<(String, K)> {
    words(text).find_map(|w| {
        let lower = w.to_lowercase();
        table.get(&lower).map(|o| (w.to_owned(), o.clone()))
    })
}

fn canonical_name(conn: &Connection, id: &EntityId) -> rusqlite::Result<String> {
    conn.query_row(
        "SELECT canonical_name FROM entities WHERE entity_id = ?1",
        params![id.as_str()],
        |r| r.get(0),
    )
}

/// Works out where a push of `text`, naming `named` entities and chosen context `chosen`,
/// reaches.
pub(crate) fn reach(
    graph: &Graph,
    text: &str,
    named: &[String],
    chosen: Option<&WorkContextId>,
) -> Result<PushReach> {
    let known = graph.known_names()?;
    let names = &known.names;
    let words_table = known.words.get_or_init(|| distinctive(names));
    let mut out = PushReach::default();
    let mut seen: BTreeSet<EntityId> = BTreeSet::new();
    let mut add = |out: &mut PushReach, id: EntityId, found: Found| -> Result<()> {
        if seen.insert(id.clone()) {
            let name = graph.with_conn_result(|c| canonical_name(c, &id))?;
            out.entities.push(ReachedEntity {
                entity_id: Some(id),
                name,
                found,
            });
        }
        Ok(())
    };
    for name in named.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        match graph.with_conn_result(|c| entities::find_by_name(c, name))? {
            Some(id) => add(&mut out, id, Found::Chosen)?,
            None => match first_word(words_table, name) {
                // The person typed part of a known name: that entity, not a new one.
                Some((word, id)) if words(name).count() == 1 => {
                    add(&mut out, id, Found::Word(word))?
                }
                _ => out.entities.push(ReachedEntity {
                    entity_id: None,
                    name: name.to_owned(),
                    found: Found::New,
                }),
            },
        }
    }
    for id in super::mentioned_with(&known.matcher, text) {
        add(&mut out, id, Found::Name)?;
    }
    for word in words(text) {
        if let Some(id) = words_table.get(&word.to_lowercase()) {
            add(&mut out, id.clone(), Found::Word(word.to_owned()))?;
        }
    }
    let all_contexts = graph.work_contexts()?;
    out.work_context = match chosen {
        Some(wc) => {
            let context = graph.work_context(wc.as_str())?;
            Some(ReachedContext {
                work_context_id: wc.clone(),
                name: context.name,
                found: Found::Chosen,
                via_entity: None,
            })
        }
        None => {
            let named: Vec<(WorkContextId, String)> = all_contexts
                .iter()
                .filter(|w| w.work_context_id.as_str() != WorkContextId::UNLINKED)
                .map(|w| (w.work_context_id.clone(), w.name.clone()))
                .collect();
            let lower = text.to_lowercase();
            let whole: Vec<&(WorkContextId, String)> = named
                .iter()
                .filter(|(_, n)| {
                    // A one-word, all-lower-case name ("workspace", a folder's) is too often an
                    // ordinary word of the text to place a push by.
                    let marked = n.split_whitespace().count() > 1
                        || n.chars().any(|c| {
                            c.is_uppercase() || c.is_ascii_digit() || c == '-' || c == '_'
                        });
                    n.chars().count() >= 5 && marked && {
                        let n = n.to_lowercase();
                        lower.match_indices(&n).any(|(at, _)| {
                            crate::base::words::on_word_boundary(lower.as_bytes(), at, at + n.len())
                        })
                    }
                })
                .collect();
            match whole.as_slice() {
                [(id, name)] => Some(ReachedContext {
                    work_context_id: id.clone(),
                    name: name.clone(),
                    found: Found::Name,
                    via_entity: None,
                }),
                [] => first_word(&distinctive(&named), text).map(|(word, id)| {
                    let name = named
                        .iter()
                        .find(|(i, _)| *i == id)
                        .map(|(_, n)| n.clone())
                        .unwrap_or_default();
                    ReachedContext {
                        work_context_id: id,
                        name,
                        found: Found::Word(word),
                        via_entity: None,
                    }
                }),
                _ => None,
            }
        }
    };
    let own = out.work_context.as_ref().map(|w| w.work_context_id.clone());
    let mut told: BTreeMap<WorkContextId, &ReachedEntity> = BTreeMap::new();
    for entity in &out.entities {
        let Some(id) = &entity.entity_id else {
            continue;
        };
        let targets = graph.with_conn_result(|c| {
            contexts::referencing_in(c, id.as_str(), own.as_ref().map(|w| w.as_str()))
        })?;
        for wc in targets {
            told.entry(wc).or_insert(entity);
        }
    }
    let told: Vec<ReachedContext> = told
        .into_iter()
        .filter_map(|(wc, entity)| {
            let name = all_contexts
                .iter()
                .find(|w| w.work_context_id == wc)?
                .name
                .clone();
            Some(ReachedContext {
                work_context_id: wc,
                name,
                found: entity.found.clone(),
                via_entity: Some(entity.name.clone()),
            })
        })
        .collect();
    out.told = told;
    Ok(out)
}
