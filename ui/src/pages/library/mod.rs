//! Library (concept model §8): the person's own documents, by collection (a tracked folder) and
//! folder, beside the open document: the file rendered, its frontmatter and outline, and who
//! refers to it (the sessions whose turns name it, the continuity entries and durable nodes whose
//! text does, the watcher's observations of it, the entities it mentions), each opening where it
//! lives. The header's "Add folder" button opens the dialog that makes a folder a collection
//! (`add.rs`); its documents are listed at once.
//!
//! The list is asked of the engine one collection and folder at a time (`library_documents_list`
//! with both), so a large Library never reaches the webview whole; the folder filter's choices
//! come with the collections (`LibraryCollectionRow::folders`).
//!
//! A search hit on a document opens here (`Nav::open_document`).

mod add;
mod collections;
mod document;
mod documents;

use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::nav::{Nav, use_nav};
use add::AddFolderDialog;
use collections::Collections;
use document::DocumentPane;
use documents::{DocumentList, FolderFilter};

/// The page's state; every field is a signal, so handlers share it by copy.
#[derive(Clone, Copy)]
pub(super) struct Library {
    /// The collection (its folder) the list shows; `None` for all of them.
    collection: RwSignal<Option<String>>,
    /// The folder, relative to its collection, the list narrows to; empty for all.
    folder: RwSignal<String>,
    /// The open document's path.
    selected: RwSignal<Option<String>>,
    /// Bumped after a collection is added, so the lists read again.
    generation: RwSignal<u32>,
    /// Whether the "Add folder" dialog is open.
    adding: RwSignal<bool>,
    /// What the last addition brought, said in the header once its dialog has closed.
    added: RwSignal<Option<String>>,
    nav: Nav,
}

#[component]
pub fn LibraryPage() -> impl IntoView {
    let nav = use_nav();
    let lib = Library {
        collection: RwSignal::new(None),
        folder: RwSignal::new(String::new()),
        selected: RwSignal::new(nav.take_document()),
        generation: RwSignal::new(0),
        adding: RwSignal::new(false),
        added: RwSignal::new(None),
        nav,
    };
    let collections = LocalResource::new(move || {
        lib.generation.track();
        api::library_collections_list()
    });
    let documents = LocalResource::new(move || {
        lib.generation.track();
        let collection = lib.collection.get();
        let folder = Some(lib.folder.get()).filter(|f| !f.is_empty());
        api::library_documents_list(elnor_types::LibraryDocumentsRequest { collection, folder })
    });
    let detail = LocalResource::new(move || {
        let path = lib.selected.get();
        async move {
            match path {
                Some(path) => api::library_document_get(path).await.map(Some),
                None => Ok(None),
            }
        }
    });
    // With no collection, the page is the one card that says how to add one: an empty list and an
    // empty document pane beside it would only repeat it. A memo, so the panes are not redrawn on
    // every read.
    let empty = Memo::new(move |_| matches!(collections.get(), Some(Ok(list)) if list.is_empty()));
    view! {
        <div class="page-head">
            <h2>"Library"</h2>
            {move || lib.added.get().map(|a| view! { <span class="saved" id="library-added">{a}</span> })}
            <div class="page-actions">
                <button
                    class="primary"
                    id="library-add-open"
                    on:click=move |_| {
                        lib.added.set(None);
                        lib.adding.set(true);
                    }
                >
                    "Add folder"
                </button>
            </div>
        </div>
        <Show when=move || lib.adding.get()>
            <AddFolderDialog lib />
        </Show>
        <p class="hint">
            "Your own documents: the markdown and text files of the folders you add. Each one "
            "shows the conversations, entries and knowledge that refer to it."
        </p>
        <Loaded resource=collections loading="Reading the collections…" let:list>
            <Collections list lib />
        </Loaded>
        <Show when=move || !empty.get()>
            <div class="review-layout library-layout">
                <div>
                    <FolderFilter collections lib />
                    <Loaded resource=documents loading="Reading the documents…" let:docs>
                        <DocumentList docs lib />
                    </Loaded>
                </div>
                <DocumentPane detail lib />
            </div>
        </Show>
    }
}
