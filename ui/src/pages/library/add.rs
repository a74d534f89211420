//! The "Add folder" dialog, opened by the button in the page's header: the path of a folder to
//! make a collection. On success the dialog closes, the new collection is chosen (so the list
//! shows what it brought) and the header says what was added; a refusal (no such folder, one
//! already added) stays in the dialog with the path as typed.

use leptos::prelude::*;

use super::Library;
use crate::api;
use crate::components::Modal;

#[component]
pub(super) fn AddFolderDialog(lib: Library) -> impl IntoView {
    let path = RwSignal::new(String::new());
    let close = move || lib.adding.set(false);
    let add = Action::new_local(move |path: &String| {
        let path = path.clone();
        async move {
            let c = api::library_collection_add(path)
                .await
                .map_err(|e| e.message)?;
            lib.added.set(Some(format!(
                "Added {} ({} documents).",
                c.name, c.documents
            )));
            lib.collection.set(Some(c.folder));
            lib.folder.set(String::new());
            lib.generation.update(|g| *g += 1);
            lib.adding.set(false);
            Ok::<_, String>(())
        }
    });
    let error = move || add.value().get().and_then(Result::err);
    let busy = add.pending();
    let submit = move || {
        let p = path.get_untracked().trim().to_owned();
        if !p.is_empty() && !busy.get_untracked() {
            add.clear();
            add.dispatch_local(p);
        }
    };
    let path_field = NodeRef::<leptos::html::Input>::new();
    // The path takes the keyboard as the dialog opens.
    Effect::new(move |_| {
        if let Some(input) = path_field.get() {
            let _ = input.focus();
        }
    });
    view! {
        <Modal open=lib.adding id="library-add-form" label="Add folder">
                <h3>"Add folder"</h3>
                <div class="form-grid">
                    <label for="library-add-path">"Folder"</label>
                    <input
                        id="library-add-path"
                        type="text"
                        placeholder="/home/you/notes"
                        node_ref=path_field
                        prop:value=move || path.get()
                        on:input=move |ev| path.set(event_target_value(&ev))
                        on:keydown=move |ev| {
                            if ev.key() == "Enter" {
                                ev.prevent_default();
                                submit();
                            }
                        }
                    />
                </div>
                <p class="hint">
                    "Its markdown (.md) and text (.txt) files become browsable and searchable, and "
                    "the watcher follows their changes. The files stay where they are."
                </p>
                {move || error().map(|e| view! { <div class="error" id="library-add-error" role="alert">{e}</div> })}
                <div class="dialog-buttons">
                    <button class="small" id="library-add-cancel" on:click=move |_| close()>
                        "Close"
                    </button>
                    <button
                        class="primary"
                        id="library-add"
                        disabled=move || busy.get() || path.with(|p| p.trim().is_empty())
                        on:click=move |_| submit()
                    >
                        "Add"
                    </button>
                </div>
        </Modal>
    }
}
