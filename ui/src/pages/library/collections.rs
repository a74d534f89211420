//! The Library's collections: one chip per tracked folder with its document count (choosing one
//! narrows the list to it). Folders are added from the header's "Add folder" dialog (`add.rs`).

use elnor_types::LibraryCollectionRow;
use leptos::prelude::*;

use super::Library;

#[component]
pub(super) fn Collections(list: Vec<LibraryCollectionRow>, lib: Library) -> impl IntoView {
    if list.is_empty() {
        return view! {
            <div class="card empty" id="library-empty">
                <p>
                    <strong>"The Library is empty."</strong>
                    " Add a folder of notes: its markdown and text files become browsable and "
                    "searchable, and the watcher follows their changes."
                </p>
                <button class="primary" id="library-add-empty" on:click=move |_| lib.adding.set(true)>
                    "Add folder"
                </button>
            </div>
        }
        .into_any();
    }
    let chips = list
        .into_iter()
        .map(|c| {
            let folder = c.folder.clone();
            let (on, pick) = (folder.clone(), folder.clone());
            let missing =
                (!c.present).then(|| view! { <span class="badge missing">"missing"</span> });
            view! {
                <label
                    class="chip collection-chip"
                    class:on=move || lib.collection.with(|s| s.as_deref() == Some(on.as_str()))
                    data-folder=folder.clone()
                    title=folder
                >
                    <input
                        type="radio"
                        name="library-collection"
                        on:change=move |_| {
                            lib.folder.set(String::new());
                            lib.collection.set(Some(pick.clone()));
                        }
                    />
                    {format!("{} ({})", c.name, c.documents)}
                    {missing}
                </label>
            }
        })
        .collect_view();
    view! {
        <div class="chips" id="library-collections" role="group" aria-label="Collections">
            <label class="chip" class:on=move || lib.collection.with(Option::is_none)>
                <input
                    type="radio"
                    name="library-collection"
                    id="library-all"
                    on:change=move |_| {
                        lib.folder.set(String::new());
                        lib.collection.set(None);
                    }
                />
                "All collections"
            </label>
            {chips}
        </div>
    }
    .into_any()
}
