//! The Library (concept model §8): `library_collections_list`, `library_collection_add`,
//! `library_documents_list` and `library_document_get`, the person's own documents by collection
//! (tracked folder) and folder, and one document rendered with who refers to it. One engine call
//! each (`elnor_engine::library_*`, `add_library_collection`); this converts their types.
//!
//! A collection's row carries the folders that hold its documents (the engine lists them), so
//! the page's folder filter can offer them while the documents themselves are listed one folder
//! at a time (`library_documents_list` with `folder`), never the whole Library at once.
//!
//! Adding a collection tracks a folder, so the app's watcher is told to reload afterwards, as
//! Settings' tracked folders do; the engine has already recorded and indexed the folder's files
//! when it replies, so the new documents are listed at once.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, Utc};
use elnor_engine::{LibraryCollection, LibraryDocumentRow as EngineRow, LibraryQuery};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, LibraryCollectionRow, LibraryDocumentDetail, LibraryDocumentRow,
    LibraryEntityRef, LibraryEntryRef, LibraryLinkRow, LibraryObservationRef, LibrarySessionRef,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::search::wire_kind;
use crate::scheduler::count;
use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

/// The person's own time, as the other pages show it.
fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).to_rfc3339()
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// A collection as the page shows it.
fn collection(c: LibraryCollection) -> LibraryCollectionRow {
    LibraryCollectionRow {
        folder: display(&c.folder),
        name: c.name,
        documents: c.documents,
        present: c.present,
        folders: c.folders,
    }
}

fn row(r: EngineRow) -> LibraryDocumentRow {
    LibraryDocumentRow {
        path: display(&r.path),
        collection: display(&r.collection),
        relative: r.relative,
        title: r.title,
        size: r.size,
        modified_at: r.modified_at.map(local),
    }
}

/// A path from the page, which the person may have typed with stray spaces around it.
fn path_of(text: &str) -> PathBuf {
    PathBuf::from(text.trim())
}

#[tauri::command]
pub async fn library_collections_list(
    state: State<'_, AppState>,
) -> ReplyOf<cmd::LibraryCollectionsList> {
    let store = state.store()?;
    blocking(move || {
        let list = elnor_engine::library_collections(&store).map_err(err)?;
        Ok(list.into_iter().map(collection).collect())
    })
    .await
}

#[tauri::command]
pub async fn library_collection_add(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LibraryCollectionAdd>,
) -> ReplyOf<cmd::LibraryCollectionAdd> {
    let store = state.store()?;
    let watcher = state.watcher();
    blocking(move || {
        let added = elnor_engine::add_library_collection(
            &store,
            &path_of(&request.path),
            elnor_engine::now(),
        )
        .map_err(err)?;
        // The folder is tracked now; the watcher follows its changes from here on.
        watcher.reload(store.clone());
        Ok(collection(added))
    })
    .await
}

#[tauri::command]
pub async fn library_documents_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LibraryDocumentsList>,
) -> ReplyOf<cmd::LibraryDocumentsList> {
    let store = state.store()?;
    blocking(move || {
        let query = LibraryQuery {
            collection: request
                .collection
                .filter(|c| !c.trim().is_empty())
                .map(|c| path_of(&c)),
            folder: request.folder.filter(|f| !f.trim().is_empty()),
        };
        let docs = elnor_engine::library_documents(&store, &query).map_err(err)?;
        Ok(docs.into_iter().map(row).collect())
    })
    .await
}

#[tauri::command]
pub async fn library_document_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LibraryDocumentGet>,
) -> ReplyOf<cmd::LibraryDocumentGet> {
    let store = state.store()?;
    blocking(move || {
        let d = elnor_engine::library_document(&store, &path_of(&request.path)).map_err(err)?;
        let refs = d.references;
        Ok(LibraryDocumentDetail {
            row: row(d.row),
            headings: d.headings,
            links: d
                .links
                .into_iter()
                .map(|l| LibraryLinkRow {
                    dest: l.dest,
                    text: l.text,
                })
                .collect(),
            frontmatter: d.frontmatter,
            html: d.html,
            truncated: d.truncated,
            sessions: refs
                .sessions
                .into_iter()
                .map(|s| LibrarySessionRef {
                    session_id: s.session_id.to_string(),
                    harness: s.harness,
                    turns: count(s.turns),
                    first_turn_id: s.first_turn_id,
                    last_at: s.last_at.map(local),
                })
                .collect(),
            entries: refs
                .entries
                .into_iter()
                .map(|e| LibraryEntryRef {
                    kind: wire_kind(e.kind),
                    entry_id: e.entry_id.map(|id| id.to_string()),
                    entry_type: e.entry_type,
                    node_id: e.node_id,
                    work_context_id: e.work_context_id.map(|w| w.to_string()),
                    excerpt: e.excerpt,
                    at: e.at.map(local),
                })
                .collect(),
            observations: refs
                .observations
                .into_iter()
                .map(|o| LibraryObservationRef {
                    observation_id: o.observation_id,
                    kind: o.kind,
                    at: local(o.at),
                    text: o.text,
                })
                .collect(),
            entities: refs
                .entities
                .into_iter()
                .map(|e| LibraryEntityRef {
                    entity_id: e.entity_id.to_string(),
                    name: e.name,
                })
                .collect(),
            matched_by: refs.matched_by,
        })
    })
    .await
}
