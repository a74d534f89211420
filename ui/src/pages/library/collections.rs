//! The Library's collections: one chip per tracked folder with its document count (choosing one
//! narrows the list to it), and the "Add folder" form.

use elnor_types::LibraryCollectionRow;
use leptos::prelude::*;

use super::Library;
use crate::api;

#[component]
pub(super) fn Collections(list: Vec<LibraryCollectionRow>, lib: Library) -> impl IntoView {
    let path = RwSignal::new(String::new());
    let add = Action::new_local(|path: &String| {
        let path = path.clone();
        async move {
            api::library_collection_add(path)
                .await
                .map_err(|e| e.message)
        }
    });
    // Each reply, once: a new collection is chosen, so the person sees what it brought.
    Effect::new(move |_| {
        if let Some(Ok(c)) = add.value().get() {
            path.set(String::new());
            lib.collection.set(Some(c.folder));
            lib.folder.set(String::new());
            lib.generation.update(|g| *g += 1);
        }
    });
    let busy = add.pending();
    let submit = move || {
        let p = path.get_untracked().trim().to_owned();
        if !p.is_empty() {
            add.dispatch_local(p);
        }
    };
    let empty = list.is_empty().then(|| {
        view! {
            <p class="hint" id="library-empty">
                "The Library is empty. Add a folder of notes: its markdown and text files become "
                "browsable and searchable, and the watcher follows their changes."
            </p>
        }
    });
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
        {empty}
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
        <div class="filters" id="library-add-form">
            <input
                id="library-add-path"
                type="text"
                placeholder="/home/you/notes (a folder to add)"
                prop:value=move || path.get()
                on:input=move |ev| path.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        submit();
                    }
                }
            />
            <button
                class="primary"
                id="library-add"
                disabled=move || busy.get() || path.with(|p| p.trim().is_empty())
                on:click=move |_| submit()
            >
                "Add folder"
            </button>
            {move || {
                add.value()
                    .get()
                    .map(|r| match r {
                        Ok(c) => view! {
                            <span class="saved-mark" id="library-added">
                                {format!("Added {} ({} documents).", c.name, c.documents)}
                            </span>
                        }
                        .into_any(),
                        Err(e) => view! { <div class="error" id="library-add-error" role="alert">{e}</div> }.into_any(),
                    })
            }}
        </div>
    }
}
