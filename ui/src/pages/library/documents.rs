//! The Library's document list: grouped by collection, narrowed to a folder by the folder
//! filter (its choices are the folders of the documents listed), each row its title and path.

use std::collections::BTreeSet;

use elnor_types::LibraryDocumentRow;
use leptos::prelude::*;

use super::Library;
use crate::components::short_time;

/// The folders a document sits in, each ancestor too: `a/b/c.md` is in `a` and `a/b`.
fn folders_of(relative: &str) -> Vec<String> {
    let parts: Vec<&str> = relative.split('/').collect();
    (1..parts.len()).map(|n| parts[..n].join("/")).collect()
}

/// Whether a document is under `folder` (a whole path segment, as the engine matches it).
fn under(relative: &str, folder: &str) -> bool {
    folder.is_empty() || relative.starts_with(&format!("{folder}/"))
}

/// The last segment of a path, as a collection's heading names it.
fn folder_name(folder: &str) -> &str {
    folder
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or(folder)
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
    let folders: BTreeSet<String> = docs.iter().flat_map(|d| folders_of(&d.relative)).collect();
    let docs = StoredValue::new(docs);
    let filter = (!folders.is_empty()).then(|| {
        view! {
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
        }
    });
    let rows = move || {
        let folder = lib.folder.get();
        let mut last: Option<String> = None;
        let mut out = Vec::new();
        docs.with_value(|docs| {
            for d in docs.iter().filter(|d| under(&d.relative, &folder)) {
                if last.as_deref() != Some(d.collection.as_str()) {
                    last = Some(d.collection.clone());
                    out.push(
                        view! {
                            <li class="group-head" title=d.collection.clone()>
                                {folder_name(&d.collection).to_owned()}
                            </li>
                        }
                        .into_any(),
                    );
                }
                out.push(row(d.clone(), lib).into_any());
            }
        });
        out
    };
    view! {
        <div class="review-toolbar">{filter}</div>
        <ul class="proposal-list document-list" id="library-documents">{rows}</ul>
    }
    .into_any()
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
            on:click=move |_| lib.selected.set(Some(clicked.clone()))
        >
            <div class="proposal-summary">
                <span class="row-title">{d.title.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}
