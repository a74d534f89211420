//! The search documents that are not conversation: Library documents (the markdown and text
//! files of the tracked folders), observations (file changes and pushes) and durable nodes.
//!
//! Each kind is synced by what it can cheaply tell has changed. Library documents by content
//! hash, as the watcher recorded it in `tracked_files` (the file itself is read only when its hash
//! moved); observations by id, since they are only ever appended; nodes by `updated_at`, since
//! an edit, a warrant move or a retirement rewrites the node in place.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use tantivy::{IndexWriter, TantivyDocument, Term};

use super::{DocKind, SearchIndex, SyncReport, SyncState};
use crate::base::error::Result;
use crate::graph::store::Store;
use crate::inputs::observe::markdown;
use crate::views::library;

/// What the Library, the observations and the nodes look like now, each as a short mark a sync
/// stores and a later `is_behind` compares: a count and mtimes of `tracked_files`, the last
/// observation id, a count and the latest `updated_at` of the nodes.
pub(super) fn marks(store: &Store) -> Result<(String, i64, String)> {
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT (SELECT count(*) || ':' || coalesce(max(mtime_ns), 0) || ':'
                            || coalesce(sum(mtime_ns % 1000003), 0) FROM tracked_files),
                    (SELECT coalesce(max(observation_id), 0) FROM observations),
                    (SELECT count(*) || ':' || coalesce(max(updated_at), '') FROM durable_nodes)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    })
}

/// The text a Library file is searched by: a markdown file's title and text content (its
/// syntax and frontmatter left out), any other text file as it is.
pub(crate) fn document_text(path: &Path, source: &str) -> (Option<String>, String) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if markdown::is_markdown(name) {
        let outline = markdown::parse(source);
        (outline.title, outline.text)
    } else {
        (None, source.to_owned())
    }
}

impl SearchIndex {
    pub(super) fn sync_library(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        let (mark, ..) = marks(store)?;
        if mark == state.library_mark {
            return Ok(());
        }
        let rows: Vec<(String, String, i64, Option<String>, String)> =
            store.graph().with_conn_result(|c| {
                let mut stmt = c.prepare(
                    "SELECT path, hash, mtime_ns, title, entity_ids FROM tracked_files
                     ORDER BY path",
                )?;
                stmt.query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect()
            })?;
        let mut now_indexed: BTreeMap<String, String> = BTreeMap::new();
        for (path, hash, mtime_ns, title, entity_ids) in rows {
            if !library::is_document(Path::new(&path)) {
                continue;
            }
            if state.library.get(&path) == Some(&hash) {
                now_indexed.insert(path, hash);
                continue;
            }
            let doc_id = format!("doc:{path}");
            writer.delete_term(Term::from_field_text(f.doc_id, &doc_id));
            // The file is the person's own and may have changed or gone since the watcher saw
            // it: then it is indexed by the watcher's next pass, which moves the mark again.
            let Ok(source) = fs::read_to_string(&path) else {
                continue;
            };
            let (parsed_title, text) = document_text(Path::new(&path), &source);
            let title = parsed_title.or(title).unwrap_or_else(|| file_name(&path));
            let mut doc = self.new_doc(&doc_id, DocKind::Document);
            doc.add_text(f.path, &path);
            doc.add_text(f.title, &title);
            doc.add_i64(f.at, mtime_ns / 1_000_000_000);
            for entity in entity_ids.split(',').filter(|e| !e.is_empty()) {
                doc.add_text(f.entities, entity);
            }
            // The title leads the text, unless the text already starts with it (a first heading).
            let body = if text.trim_start().starts_with(title.as_str()) {
                text
            } else {
                format!("{title}\n{text}")
            };
            self.add_body(&mut doc, &body);
            doc.add_text(f.ident, &path);
            self.add(writer, doc)?;
            report.library += 1;
            now_indexed.insert(path, hash);
        }
        for gone in state
            .library
            .keys()
            .filter(|p| !now_indexed.contains_key(*p))
        {
            writer.delete_term(Term::from_field_text(f.doc_id, &format!("doc:{gone}")));
            report.library_removed += 1;
        }
        state.library = now_indexed;
        state.library_mark = mark;
        Ok(())
    }

    pub(super) fn sync_observations(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        type Row = (
            i64,
            Option<String>,
            Option<String>,
            String,
            Option<String>,
            String,
        );
        let rows: Vec<(Row, Vec<String>)> = store.graph().with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT observation_id, path, title, text, work_context_id, observed_at
                 FROM observations WHERE observation_id > ?1 ORDER BY observation_id",
            )?;
            let rows: Vec<Row> = stmt
                .query_map([state.observations_id], |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                })?
                .collect::<rusqlite::Result<_>>()?;
            let mut entities = c.prepare(
                "SELECT entity_id FROM observation_entities WHERE observation_id = ?1
                 ORDER BY entity_id",
            )?;
            rows.into_iter()
                .map(|row| {
                    let ids = entities
                        .query_map([row.0], |r| r.get(0))?
                        .collect::<rusqlite::Result<Vec<String>>>()?;
                    Ok((row, ids))
                })
                .collect()
        })?;
        for ((id, path, title, text, work_context, at), entity_ids) in rows {
            let mut doc = self.new_doc(format!("obs:{id}"), DocKind::Observation);
            doc.add_text(f.observation_id, id.to_string());
            if let Some(p) = &path {
                doc.add_text(f.path, p);
                doc.add_text(f.ident, p);
            }
            if let Some(t) = &title {
                doc.add_text(f.title, t);
            }
            if let Some(wc) = &work_context {
                doc.add_text(f.work_context_id, wc);
            }
            for entity in &entity_ids {
                doc.add_text(f.entities, entity);
            }
            doc.add_i64(f.at, super::seconds(Some(&at)));
            let body = match &title {
                Some(t) => format!("{t}\n{text}"),
                None => text,
            };
            self.add_body(&mut doc, &body);
            self.add(writer, doc)?;
            state.observations_id = id;
            report.observations += 1;
        }
        Ok(())
    }

    pub(super) fn sync_nodes(
        &self,
        store: &Store,
        writer: &mut IndexWriter<TantivyDocument>,
        state: &mut SyncState,
        report: &mut SyncReport,
    ) -> Result<()> {
        let f = self.fields;
        let (.., mark) = marks(store)?;
        if mark == state.nodes_mark {
            return Ok(());
        }
        type Row = (
            String,
            String,
            String,
            Option<String>,
            Option<String>,
            String,
        );
        let rows: Vec<Row> = store.graph().with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT node_id, kind, text, work_context_id, entity_id, updated_at
                 FROM durable_nodes ORDER BY node_id",
            )?;
            stmt.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect()
        })?;
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for (id, kind, text, work_context, entity, updated_at) in rows {
            if state.nodes.get(&id) == Some(&updated_at) {
                seen.insert(id, updated_at);
                continue;
            }
            let doc_id = format!("node:{id}");
            writer.delete_term(Term::from_field_text(f.doc_id, &doc_id));
            let mut doc = self.new_doc(&doc_id, DocKind::Node);
            doc.add_text(f.node_id, &id);
            doc.add_text(f.node_kind, &kind);
            // A directive's scope is a work context id or a wider word (`global`): only an id
            // is a work context to filter by.
            if let Some(wc) = work_context.filter(|w| w.starts_with("wc_")) {
                doc.add_text(f.work_context_id, &wc);
            }
            if let Some(e) = &entity {
                doc.add_text(f.entities, e);
            }
            doc.add_i64(f.at, super::seconds(Some(&updated_at)));
            self.add_body(&mut doc, &text);
            self.add(writer, doc)?;
            report.nodes += 1;
            seen.insert(id, updated_at);
        }
        for gone in state.nodes.keys().filter(|id| !seen.contains_key(*id)) {
            writer.delete_term(Term::from_field_text(f.doc_id, &format!("node:{gone}")));
        }
        state.nodes = seen;
        state.nodes_mark = mark;
        Ok(())
    }
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
        .to_owned()
}
