//! The Library (concept model §8; [Library](../../../../../docs/GLOSSARY.md)): the person's own
//! documents, browsable by collection and folder, each with the conversations and knowledge that
//! refer to it.
//!
//! A collection is a tracked folder: the file watcher already records every file under it in
//! `tracked_files` (path, size, mtime, hash, title, entities), so the Library is a read model
//! over that record and the files themselves, and owns no state. Its documents are the markdown
//! and plain-text files ([`is_document`]); a document page reads the file from disk, renders its
//! markdown with pulldown-cmark (raw HTML shown as text, never run), and finds who refers to it:
//! - sessions and continuity entries whose words name the file, through the search index's
//!   `ident` terms (a path is one term there), matched by the path relative to its collection,
//!   so `notes/plan.md` in a turn refers to `/home/me/work/notes/plan.md`;
//! - observations of the file (its changes, and a rename from or to it);
//! - the entities the file mentions, as the watcher resolved them.

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use pulldown_cmark::{Event, Options, Parser, html};
use rusqlite::params;
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, EntryId, SessionId, WorkContextId};
use crate::graph::store::Store;
use crate::inputs::observe::markdown::{self, Link};
use crate::views::search::{DocKind, SearchIndex};

/// The longest file a document page reads and renders, in bytes (the watcher reads files up to
/// the same size for their titles and entities).
pub const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// At most this many referring sessions and entries are listed on a document page.
const MAX_REFERENCES: usize = 200;

/// Whether a path is a Library document: markdown or plain text, by extension.
pub fn is_document(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let lower = name.to_ascii_lowercase();
    markdown::is_markdown(name)
        || [".txt", ".text", ".rst", ".org", ".adoc"]
            .iter()
            .any(|e| lower.ends_with(e))
}

/// A collection: one tracked folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Collection {
    pub folder: PathBuf,
    /// The folder's own name.
    pub name: String,
    /// Library documents recorded under it.
    pub documents: u64,
    /// The folders (relative, `/`-separated) that hold its documents, each ancestor too, for a
    /// folder filter: `notes/2026/q4.md` is in `notes` and `notes/2026`.
    pub folders: Vec<String>,
    /// Whether the folder is on disk now (a missing folder stays tracked until it comes back).
    pub present: bool,
}

/// Which documents to list.
#[derive(Debug, Clone, Default)]
pub struct DocumentQuery {
    /// Only this collection's documents.
    pub collection: Option<PathBuf>,
    /// Only documents under this folder, relative to its collection (`notes/2026`).
    pub folder: Option<String>,
}

/// One document in a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocumentRow {
    pub path: PathBuf,
    pub collection: PathBuf,
    /// The path relative to its collection, with `/` separators.
    pub relative: String,
    pub title: String,
    pub size: u64,
    pub modified_at: Option<DateTime<Utc>>,
}

/// A session whose turns name the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionReference {
    pub session_id: SessionId,
    pub harness: Option<String>,
    /// Turns of the session that name it, and the latest of them.
    pub turns: usize,
    pub first_turn_id: Option<String>,
    pub last_at: Option<DateTime<Utc>>,
}

/// A continuity entry or a durable node whose text names the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryReference {
    pub kind: DocKind,
    pub entry_id: Option<EntryId>,
    pub entry_type: Option<String>,
    pub node_id: Option<String>,
    pub work_context_id: Option<WorkContextId>,
    pub excerpt: String,
    pub at: Option<DateTime<Utc>>,
}

/// An observation of the document: a change the watcher saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ObservationReference {
    pub observation_id: i64,
    pub kind: String,
    pub at: DateTime<Utc>,
    pub text: String,
}

/// An entity the document mentions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntityReference {
    pub entity_id: EntityId,
    pub name: String,
}

/// Everything that refers to a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct References {
    pub sessions: Vec<SessionReference>,
    pub entries: Vec<EntryReference>,
    pub observations: Vec<ObservationReference>,
    pub entities: Vec<EntityReference>,
    /// What a turn or an entry had to name to count: the path relative to its collection.
    pub matched_by: String,
}

/// A document page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Document {
    #[serde(flatten)]
    pub row: DocumentRow,
    pub headings: Vec<String>,
    pub links: Vec<Link>,
    pub frontmatter: Vec<(String, String)>,
    /// The file rendered as HTML: markdown through pulldown-cmark, plain text as a `<pre>`.
    /// Raw HTML in the file is escaped.
    pub html: String,
    /// Whether the file was larger than [`MAX_DOCUMENT_BYTES`] and only its start is shown.
    pub truncated: bool,
    pub references: References,
}

/// The collections: every tracked folder, with its document count.
pub fn collections(store: &Store) -> Result<Vec<Collection>> {
    let folders = store.tracked_folders().load()?.folders;
    let rows = list_rows(store)?;
    Ok(folders
        .into_iter()
        .map(|folder| {
            let mine: Vec<&DocumentRow> = rows.iter().filter(|r| r.collection == folder).collect();
            let documents = mine.len() as u64;
            Collection {
                folders: folders_of(mine.iter().map(|r| r.relative.as_str())),
                name: folder
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| folder.display().to_string()),
                present: folder.is_dir(),
                documents,
                folder,
            }
        })
        .collect())
}

/// The folders that hold documents at these relative paths, each ancestor too, once each and
/// sorted: `notes/2026/may.md` is in `notes` and `notes/2026`.
fn folders_of<'a>(relatives: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut folders = std::collections::BTreeSet::new();
    for relative in relatives {
        let parts: Vec<&str> = relative.split('/').collect();
        folders.extend((1..parts.len()).map(|n| parts[..n].join("/")));
    }
    folders.into_iter().collect()
}

/// The documents of the Library, or of one collection or folder, by collection then path.
pub fn documents(store: &Store, query: &DocumentQuery) -> Result<Vec<DocumentRow>> {
    let folder = query
        .folder
        .as_deref()
        .map(|f| f.trim_matches('/'))
        .filter(|f| !f.is_empty());
    let mut rows = list_rows(store)?;
    rows.retain(|r| {
        query.collection.as_ref().is_none_or(|c| &r.collection == c)
            && folder.is_none_or(|f| {
                r.relative
                    .strip_prefix(f)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    });
    Ok(rows)
}

/// A document page: the file rendered, its outline, and who refers to it. Fails when the path is
/// not a Library document of a tracked folder.
pub fn document(store: &Store, path: &Path) -> Result<Document> {
    let row = list_rows(store)?
        .into_iter()
        .find(|r| r.path == path)
        .ok_or_else(|| Error::NotFound {
            what: "Library document (a markdown or text file of a tracked folder)",
            id: path.display().to_string(),
        })?;
    let (source, truncated) = read_bounded(path)?;
    let outline = markdown::parse(&source);
    let is_markdown = markdown::is_markdown(&row.relative);
    let html = if is_markdown {
        render_markdown(&source)
    } else {
        render_text(&source)
    };
    let references = references(store, &row)?;
    Ok(Document {
        headings: if is_markdown {
            outline.headings
        } else {
            Vec::new()
        },
        links: if is_markdown {
            outline.links
        } else {
            Vec::new()
        },
        frontmatter: if is_markdown {
            outline.frontmatter
        } else {
            Vec::new()
        },
        html,
        truncated,
        references,
        row,
    })
}

/// Every Library document the watcher recorded, under the tracked folder it belongs to.
fn list_rows(store: &Store) -> Result<Vec<DocumentRow>> {
    let folders = store.tracked_folders().load()?.folders;
    let rows: Vec<(String, i64, i64, Option<String>)> = store.graph().with_conn_result(|c| {
        let mut stmt =
            c.prepare("SELECT path, size, mtime_ns, title FROM tracked_files ORDER BY root, path")?;
        stmt.query_map(params![], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect()
    })?;
    let mut out: Vec<DocumentRow> = rows
        .into_iter()
        .filter_map(|(path, size, mtime_ns, title)| {
            let path = PathBuf::from(path);
            if !is_document(&path) {
                return None;
            }
            let collection = folders.iter().find(|f| path.starts_with(f))?.clone();
            let relative = path
                .strip_prefix(&collection)
                .ok()?
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let title = title.unwrap_or_else(|| {
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
            Some(DocumentRow {
                modified_at: DateTime::from_timestamp(
                    mtime_ns.div_euclid(1_000_000_000),
                    mtime_ns.rem_euclid(1_000_000_000) as u32,
                ),
                size: u64::try_from(size).unwrap_or(0),
                title,
                relative,
                collection,
                path,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.collection
            .cmp(&b.collection)
            .then(a.relative.cmp(&b.relative))
    });
    Ok(out)
}

fn read_bounded(path: &Path) -> Result<(String, bool)> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let truncated = bytes.len() as u64 > MAX_DOCUMENT_BYTES;
    bytes.truncate(MAX_DOCUMENT_BYTES as usize);
    Ok((String::from_utf8_lossy(&bytes).into_owned(), truncated))
}

/// Markdown as HTML, with the file's raw HTML turned into text: a document is the person's,
/// but it may hold pasted content, and the app's webview must not run it.
pub(crate) fn render_markdown(source: &str) -> String {
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(source, options).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

/// A plain-text file as one preformatted block, escaped by pulldown-cmark's own HTML writer.
pub(crate) fn render_text(source: &str) -> String {
    use pulldown_cmark::{CodeBlockKind, CowStr, Tag, TagEnd};
    let events = [
        Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)),
        Event::Text(CowStr::Borrowed(source)),
        Event::End(TagEnd::CodeBlock),
    ];
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out
}

fn references(store: &Store, row: &DocumentRow) -> Result<References> {
    let path = row.path.to_string_lossy().into_owned();
    let mut refs = References {
        matched_by: row.relative.clone(),
        ..References::default()
    };
    let index = SearchIndex::open(store)?;
    if index.is_behind(store)? {
        index.sync(store)?;
    }
    let mentions = index.mentions(
        &row.relative,
        &[
            DocKind::Turn,
            DocKind::Entry,
            DocKind::Summary,
            DocKind::Node,
        ],
        MAX_REFERENCES * 4,
    )?;
    for hit in mentions {
        match hit.kind {
            DocKind::Turn | DocKind::Summary => {
                let Some(session) = hit
                    .session_id
                    .as_deref()
                    .and_then(|s| SessionId::new(s).ok())
                else {
                    continue;
                };
                let full = refs.sessions.len() >= MAX_REFERENCES;
                match refs.sessions.iter_mut().find(|s| s.session_id == session) {
                    Some(s) => {
                        s.turns += usize::from(hit.kind == DocKind::Turn);
                        s.last_at = s.last_at.max(hit.at);
                    }
                    None if !full => refs.sessions.push(SessionReference {
                        session_id: session,
                        harness: hit.harness.clone(),
                        turns: usize::from(hit.kind == DocKind::Turn),
                        first_turn_id: hit.turn_id.clone(),
                        last_at: hit.at,
                    }),
                    None => {}
                }
            }
            DocKind::Entry | DocKind::Node if refs.entries.len() < MAX_REFERENCES => {
                refs.entries.push(EntryReference {
                    kind: hit.kind,
                    entry_id: hit.entry_id.as_deref().and_then(|e| EntryId::new(e).ok()),
                    entry_type: hit.entry_type.clone(),
                    node_id: hit.node_id.clone(),
                    work_context_id: hit
                        .work_context_id
                        .as_deref()
                        .and_then(|w| WorkContextId::new(w).ok()),
                    excerpt: hit.excerpt.clone(),
                    at: hit.at,
                })
            }
            _ => {}
        }
    }
    refs.sessions.sort_by(|a, b| {
        b.last_at
            .cmp(&a.last_at)
            .then(a.session_id.cmp(&b.session_id))
    });
    refs.entries.sort_by_key(|e| std::cmp::Reverse(e.at));
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare(
            "SELECT observation_id, kind, observed_at, text FROM observations
             WHERE path = ?1 OR from_path = ?1 ORDER BY observation_id DESC LIMIT 200",
        )?;
        refs.observations = stmt
            .query_map([&path], |r| {
                let at: String = r.get(2)?;
                Ok(ObservationReference {
                    observation_id: r.get(0)?,
                    kind: r.get(1)?,
                    at: crate::graph::entities::parse_ts(Some(at)).unwrap_or_default(),
                    text: r.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        let ids: String = c.query_row(
            "SELECT entity_ids FROM tracked_files WHERE path = ?1",
            [&path],
            |r| r.get(0),
        )?;
        let mut name = c.prepare("SELECT canonical_name FROM entities WHERE entity_id = ?1")?;
        for id in ids.split(',').filter(|i| !i.is_empty()) {
            let Ok(entity_id) = EntityId::new(id) else {
                continue;
            };
            if let Ok(n) = name.query_row([id], |r| r.get::<_, String>(0)) {
                refs.entities.push(EntityReference { entity_id, name: n });
            }
        }
        Ok(())
    })?;
    Ok(refs)
}
