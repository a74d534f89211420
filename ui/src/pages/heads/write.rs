//! "Write into a file": puts the shown head into a marked block of a file another tool reads
//! (AGENTS.md, CLAUDE.md), leaving every byte around the block as it was. The outcome is said in
//! words: written, already there, waiting for another writer (who and until when), or kept
//! because a person edited the block, with their text and a "Replace my edits" that asks first.

use elnor_types::{HeadWriteOutcome, HeadWriteRequest};
use leptos::prelude::*;

use super::pending::{KeptEdit, holder_words};
use crate::api;
use crate::components::Modal;

#[component]
pub(super) fn WriteCard(
    scope: RwSignal<Option<String>>,
    generation: RwSignal<u32>,
) -> impl IntoView {
    let path = RwSignal::new(String::new());
    let confirming = RwSignal::new(false);
    let write = Action::new_local(move |replace_edits: &bool| {
        let request = HeadWriteRequest {
            work_context_id: scope.get_untracked(),
            path: path.get_untracked(),
            replace_edits: *replace_edits,
        };
        async move {
            let outcome = api::head_write_to(request).await.map_err(|e| e.message)?;
            confirming.set(false);
            // A kept edit or a deferral shows in the list of what waits: read the head again.
            generation.update(|g| *g += 1);
            Ok::<_, String>(outcome)
        }
    });
    let busy = write.pending();
    let outcome = move || {
        write.value().get().map(|r| match r {
            Ok(o) => view! { <Outcome outcome=o confirming /> }.into_any(),
            Err(e) => {
                view! { <div class="error" id="head-write-error" role="alert">{e}</div> }.into_any()
            }
        })
    };
    view! {
        <section class="card head-write" id="head-write-card">
            <h3>"Write into a file"</h3>
            <p class="hint">
                "Puts this head into a marked block of a file an agent reads, such as AGENTS.md. "
                "Everything else in the file stays exactly as it is; a missing file is created."
            </p>
            <div class="head-write-form">
                <input
                    id="head-write-path"
                    type="text"
                    placeholder="/path/to/AGENTS.md"
                    prop:value=move || path.get()
                    on:input=move |ev| path.set(event_target_value(&ev))
                />
                <button
                    class="primary"
                    id="head-write"
                    disabled=move || busy.get() || path.with(|p| p.trim().is_empty())
                    on:click=move |_| {
                        write.dispatch_local(false);
                    }
                >
                    "Write"
                </button>
            </div>
            {outcome}
        </section>
        <Show when=move || confirming.get()>
            <Modal open=confirming id="head-replace-confirm" label="Replace the edits in the block">
                <h3>"Replace the edits?"</h3>
                <p>
                    "The head's block in this file holds an edit. Writing replaces the block with "
                    "the head as it is now; the edit stays saved in the store."
                </p>
                <div class="dialog-buttons">
                    <button class="small" id="head-replace-cancel" on:click=move |_| confirming.set(false)>
                        "Cancel"
                    </button>
                    <button
                        class="primary"
                        id="head-replace-yes"
                        disabled=move || busy.get()
                        on:click=move |_| {
                            write.dispatch_local(true);
                        }
                    >
                        "Replace my edits"
                    </button>
                </div>
            </Modal>
        </Show>
    }
}

/// The outcome of one write, in words.
#[component]
fn Outcome(outcome: HeadWriteOutcome, confirming: RwSignal<bool>) -> impl IntoView {
    let path = outcome.path.clone();
    let body = match outcome.status.as_str() {
        "written" => view! { <p>{format!("Written: {path} now holds the head, the rest of the file as it was.")}</p> }
            .into_any(),
        "unchanged" => view! { <p>{format!("{path} already holds this head; nothing was written.")}</p> }
            .into_any(),
        "deferred" => {
            let who = outcome
                .held_by
                .as_ref()
                .map(|h| format!(" ({})", holder_words(h)))
                .unwrap_or_default();
            view! {
                <p>
                    {format!(
                        "Not written yet: another program is writing {path}{who}. The write is \
                         recorded and the next refresh makes it."
                    )}
                </p>
            }
            .into_any()
        }
        _ => view! {
            <p>"Not written: someone edited the head's block in this file, so ELNOR kept their edit."</p>
            {outcome.kept.map(|k| view! { <KeptEdit kept=k /> })}
            <button class="small danger" id="head-replace-edits" on:click=move |_| confirming.set(true)>
                "Replace my edits"
            </button>
        }
        .into_any(),
    };
    view! {
        <div class="head-write-outcome" id="head-write-outcome" data-status=outcome.status role="status">
            {body}
        </div>
    }
}
