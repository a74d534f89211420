//! The push box: "I just did X", told to ELNOR by hand. The person writes what they did, may name
//! the work context it belongs to and the entities it is about (comma-separated; unknown names
//! become new entities), and pushes it. The engine records it as an observation, resolves the
//! entities it mentions, and writes cross-conversation updates into the other work contexts that
//! reference them; the reply says all of that, so the person sees what their sentence reached.
//!
//! Before it is sent, the form previews where the push will reach as the person types: the
//! entities its words name (whole names, aliases, or one distinctive word such as "Christensen"
//! for "Christensen report"), the work context it lands in, and the contexts told through its
//! entities. The engine works the preview out the same way the push does.
//!
//! The same form sits on Home and in a dialog that any page opens with Ctrl+Shift+P (⌘⇧P on a
//! Mac) or the sidebar's "I just did…" button; the two differ only in their element ids.

use elnor_types::{PushOutcome, PushPreview, PushRequest, PushTarget};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::{Loaded, Modal};
use crate::nav::use_nav;

/// The dialog's element id.
const DIALOG_ID: &str = "push-dialog";

/// Whether a key press is the push shortcut, Ctrl+Shift+P or ⌘⇧P. `code` names the physical key,
/// so the shortcut works on any keyboard layout; `key` (which Shift makes "P") is the fallback
/// for the rare event that carries no code.
pub fn is_push_shortcut(ev: &web_sys::KeyboardEvent) -> bool {
    (ev.ctrl_key() || ev.meta_key())
        && ev.shift_key()
        && !ev.alt_key()
        && (ev.code() == "KeyP" || ev.key().eq_ignore_ascii_case("p"))
}

/// Whether a modal dialog (this push box, or the Ctrl+K search box) is open over the page. A
/// modal dialog owns the keyboard: the Review page's one-letter shortcuts must not decide
/// proposals behind it.
pub fn dialog_open() -> bool {
    document()
        .query_selector("[role='dialog'][aria-modal='true']")
        .ok()
        .flatten()
        .is_some()
}

/// Splits "Christensen report, Henderson" into names, dropping empty ones.
fn entity_names(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The push form. `prefix` makes its element ids unique (`push` on Home, `push-dialog` in the
/// dialog); `dialog`, when set, is closed by the outcome's link to the Timeline.
#[component]
pub fn PushForm(
    prefix: &'static str,
    /// Puts the cursor in the text box as soon as the form appears.
    #[prop(optional)]
    focus: bool,
    #[prop(optional)] dialog: Option<RwSignal<bool>>,
) -> impl IntoView {
    let activity = use_activity();
    let text = RwSignal::new(String::new());
    let context = RwSignal::new(String::new());
    let entities = RwSignal::new(String::new());
    // The push on its way to the shell: `pending` disables the button, the value is the outcome
    // shown under the form.
    let pushing = Action::new_local(move |request: &PushRequest| {
        let request = request.clone();
        async move {
            let reply = api::observations_push(request).await;
            if reply.is_ok() {
                // The context stays chosen: several pushes in a row are usually about one piece
                // of work. The text and the entities are this push's own.
                text.set(String::new());
                entities.set(String::new());
                activity.bump();
            }
            reply.map_err(|e| e.message)
        }
    });
    let busy = pushing.pending();
    let contexts = LocalResource::new(api::work_contexts_list);
    let text_box = NodeRef::<leptos::html::Textarea>::new();
    if focus {
        Effect::new(move |_| {
            if let Some(el) = text_box.get() {
                let _ = el.focus();
            }
        });
    }
    // The preview follows the inputs, a moment after the typing stops: a newer read replaces an
    // older one, so only the last keystroke's preview is shown.
    let preview = LocalResource::new(move || {
        let request = PushRequest {
            text: text.get().trim().to_owned(),
            work_context_id: Some(context.get()).filter(|c| !c.is_empty()),
            entities: entity_names(&entities.get()),
        };
        async move {
            if request.text.is_empty() && request.entities.is_empty() {
                return None;
            }
            api::sleep(PREVIEW_DELAY_MS).await;
            api::observations_preview_push(request).await.ok()
        }
    });
    let push = move || {
        let said = text.get_untracked();
        if busy.get_untracked() || said.trim().is_empty() {
            return;
        }
        let request = PushRequest {
            text: said.trim().to_owned(),
            work_context_id: Some(context.get_untracked()).filter(|c| !c.is_empty()),
            entities: entity_names(&entities.get_untracked()),
        };
        // The last outcome goes as the next push starts, so it is never read as this one's.
        pushing.clear();
        pushing.dispatch_local(request);
    };
    let id = move |suffix: &str| format!("{prefix}-{suffix}");
    view! {
        <div class="push-form" id=id("form")>
            <textarea
                id=id("text")
                rows="2"
                placeholder="I just… (e.g. sent the Henderson draft to Christensen for review)"
                node_ref=text_box
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    // Enter pushes, as in a chat box; Shift+Enter starts a new line.
                    if ev.key() == "Enter" && !ev.shift_key() {
                        ev.prevent_default();
                        push();
                    }
                }
            ></textarea>
            <div class="inline-form">
                <label for=id("context")>"Work context"</label>
                <Loaded resource=contexts loading="Loading work contexts…" inline=true let:list>
                    {view! {
                        <select
                            id=id("context")
                            on:change=move |ev| context.set(event_target_value(&ev))
                            prop:value=move || context.get()
                        >
                            <option value="">"None in particular"</option>
                            {list
                                .into_iter()
                                .map(|wc| {
                                    view! {
                                        <option value=wc.work_context_id.clone()>
                                            {wc.name.clone()}
                                        </option>
                                    }
                                })
                                .collect_view()}
                        </select>
                    }}
                </Loaded>
            </div>
            <div class="inline-form">
                <label for=id("entities")>"About"</label>
                <input
                    id=id("entities")
                    type="text"
                    placeholder="entities, comma-separated (optional): Christensen report, Henderson"
                    prop:value=move || entities.get()
                    on:input=move |ev| entities.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            push();
                        }
                    }
                />
                <button
                    class="primary"
                    id=id("submit")
                    disabled=move || busy.get() || text.with(|t| t.trim().is_empty())
                    on:click=move |_| push()
                >
                    {move || if busy.get() { "Pushing…" } else { "Push" }}
                </button>
            </div>
            <p class="hint">
                "Enter pushes; Shift+Enter starts a new line. Entities named in the text are "
                "recognised on their own, by their whole name or one distinctive word; names you "
                "list that ELNOR does not know yet become new entities."
            </p>
            {move || {
                pushing
                    .value()
                    .get()
                    .map(|o| match o {
                        Ok(o) => outcome_view(o, prefix, dialog).into_any(),
                        Err(e) => view! { <div class="error" id=id("error") role="alert">{e}</div> }.into_any(),
                    })
            }}
            // Below the outcome, so that the preview emptying as the box is cleared after a push
            // never moves the outcome's link from under the pointer.
            <div class="push-preview" id=id("preview")>
                {move || {
                    preview.get().flatten().map(|p| preview_view(&p))
                }}
            </div>
        </div>
    }
}

/// How long the preview waits after the last keystroke before it asks the engine.
const PREVIEW_DELAY_MS: i32 = 250;

/// One reached thing in words: its name and how it was found.
fn target_line(t: &PushTarget) -> String {
    match &t.via {
        Some(via) => format!("{} (through {via})", t.name),
        None => format!("{} ({})", t.name, t.how),
    }
}

/// Where the push would reach, as lines under the form.
fn preview_view(p: &PushPreview) -> impl IntoView + use<> {
    let entities = (!p.entities.is_empty()).then(|| {
        let names: Vec<String> = p.entities.iter().map(target_line).collect();
        view! { <li class="preview-entities">"About: " {names.join(", ")}</li> }
    });
    let lands = match &p.lands_in {
        Some(t) => format!("Lands in: {}", target_line(t)),
        None => "Lands in no work context; pick one above to place it.".to_owned(),
    };
    let told = (!p.told.is_empty()).then(|| {
        let names: Vec<String> = p.told.iter().map(target_line).collect();
        view! { <li class="preview-told">"Also tells: " {names.join(", ")}</li> }
    });
    view! {
        <ul class="reach">
            {entities}
            <li class="preview-lands">{lands}</li>
            {told}
        </ul>
    }
}

/// What a push did: its observation, the entities it touched (and which of them are new), and how
/// many cross-conversation updates it wrote, with a link to it on the Timeline.
fn outcome_view(
    o: PushOutcome,
    prefix: &'static str,
    dialog: Option<RwSignal<bool>>,
) -> impl IntoView {
    let nav = use_nav();
    let obs = o.observation;
    let observation_id = obs.observation_id;
    let place = match &obs.work_context_name {
        Some(name) => format!("Pushed as observation #{observation_id}, in {name}."),
        None => format!("Pushed as observation #{observation_id}, outside any work context."),
    };
    let reach = preview_view(&o.reach);
    let entities = if obs.entities.is_empty() {
        "No entities named or recognised in the text.".to_owned()
    } else {
        let names: Vec<String> = obs
            .entities
            .iter()
            .map(|e| {
                if o.entities_created.contains(&e.name) {
                    format!("{} (new)", e.name)
                } else {
                    e.name.clone()
                }
            })
            .collect();
        format!("Entities touched: {}.", names.join(", "))
    };
    let updates = match obs.updates_written {
        0 => "No cross-conversation updates written: no work context references these entities."
            .to_owned(),
        1 => "1 cross-conversation update written into a work context's log.".to_owned(),
        n => format!("{n} cross-conversation updates written into work contexts' logs."),
    };
    view! {
        <div
            class="push-outcome"
            id=format!("{prefix}-outcome")
            data-observation-id=observation_id
            data-updates=obs.updates_written
        >
            <p class="saved">{place}</p>
            <p class="push-entities">{entities}</p>
            <p class="push-updates">{updates}</p>
            {reach}
            <a
                href="#"
                id=format!("{prefix}-open")
                on:click=move |ev| {
                    ev.prevent_default();
                    if let Some(open) = dialog {
                        open.set(false);
                    }
                    nav.open_observation(observation_id);
                }
            >
                "See it on the Timeline"
            </a>
        </div>
    }
}

/// The push form over the current page. Esc, the Close button or a click beside it closes it.
#[component]
pub fn PushDialog(open: RwSignal<bool>) -> impl IntoView {
    view! {
        <Modal open=open id=DIALOG_ID label="I just did…">
            <h3 id="push-dialog-title">"I just did…"</h3>
            <PushForm prefix="push-dialog" focus=true dialog=open />
            <div class="dialog-buttons">
                <span class="hint">"Esc closes."</span>
                <button class="small" id="push-dialog-close" on:click=move |_| open.set(false)>
                    "Close"
                </button>
            </div>
        </Modal>
    }
}
