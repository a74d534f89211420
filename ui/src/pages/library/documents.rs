//! The Library's document list, grouped by collection, each row its title and path; and the
//! folder filter above it, whose choices are the folders of the chosen collection (of every
//! collection when none is chosen). The engine does the narrowing: the list holds only what the
//! chosen collection and folder contain.

use std::collections::BTreeSet;

use elnor_types::{CommandError, LibraryCollectionRow, LibraryDocumentRow};
use leptos::prelude::*;

use super::Library;
use crate::components::short_time;

/// The collections as read for the page, which carry their folders.
type Collections = LocalResource<Result<Vec<LibraryCollectionRow>, CommandError>>;

/// The last segment of a path, as a collection's heading names it.
fn folder_name(folder: &str) -> &str {
    folder
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(folder)
}

/// The folder choices: the chosen collection's folders, or every collection's (a folder is
/// relative to its collection, so `notes` then narrows each collection to its own `notes`).
#[component]
pub(super) fn FolderFilter(collections: Collections, lib: Library) -> impl IntoView {
    let folders = move || -> Vec<String> {
        let chosen = lib.collection.get();
        collections
            .get()
            .and_then(Result::ok)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| chosen.as_deref().is_none_or(|f| f == c.folder))
            .flat_map(|c| c.folders)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    move || {
        let folders = folders();
        (!folders.is_empty()).then(|| {
            view! {
                <div class="review-toolbar">
                    <label class="check" for="library-folder">
                        "Folder"
                        <select id="library-folder" on:change=move |ev| lib.folder.set(event_target_value(&ev))>
                            <option value="" prop:selected=move || lib.folder.with(String::is_empty)>"all folders"</option>
                            {folders
                                .into_iter()
                                .map(|f| {
                                    let chosen = f.clone();
                                    view! {
                                        <option value=f.clone() prop:selected=move || lib.folder.with(|x| *x == chosen)>
                                            {f.clone()}
                                        </option>
                                    }
                                })
                                .collect_view()}
                        </select>
                    </label>
                </div>
            }
        })
    }
}

#[component]
pub(super) fn DocumentList(docs: Vec<LibraryDocumentRow>, lib: Library) -> impl IntoView {
    if docs.is_empty() {
        return view! {
            <p class="hint" id="library-no-documents">
                "No documents here yet: markdown (.md) and text (.txt) files of the collection's "
                "folder are listed."
            </p>
        }
        .into_any();
    }
    // Opens the first document when nothing is open, so the pane is never blank needlessly.
    if lib.selected.get_untracked().is_none() {
        lib.selected.set(docs.first().map(|d| d.path.clone()));
    }
    let mut last: Option<String> = None;
    let mut rows = Vec::new();
    for d in docs {
        if last.as_deref() != Some(d.collection.as_str()) {
            last = Some(d.collection.clone());
            rows.push(
                view! {
                    <li class="group-head" title=d.collection.clone()>
                        {folder_name(&d.collection).to_owned()}
                    </li>
                }
                .into_any(),
            );
        }
        rows.push(row(d, lib).into_any());
    }
    view! { <ul class="proposal-list document-list" id="library-documents">{rows}</ul> }.into_any()
}

fn row(d: LibraryDocumentRow, lib: Library) -> impl IntoView {
    let (active, clicked) = (d.path.clone(), d.path.clone());
    let mut meta = vec![d.relative.clone()];
    if let Some(m) = &d.modified_at {
        meta.push(short_time(m));
    }
    view! {
        <li
            class="proposal-row document-row"
            class:active=move || lib.selected.with(|s| s.as_deref() == Some(active.as_str()))
            data-path=d.path.clone()
            data-relative=d.relative.clone()
            data-key-item=""
            tabindex="-1"
            on:click=move |_| lib.selected.set(Some(clicked.clone()))
        >
            <div class="proposal-summary">
                <span class="row-title">{d.title.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}
