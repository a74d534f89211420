//! The change buttons of a node and their forms: edit, confirm, set the warrant, supersede,
//! retire.

use elnor_types::{NodeRow, NodeWarrant};
use leptos::prelude::*;

use super::state::{Change, Form, Knowledge};

/// The person's changes to a live node, each behind its own small form.
#[component]
pub(super) fn Actions(node: NodeRow, k: Knowledge) -> impl IntoView {
    let busy = move || k.busy();
    let id = StoredValue::new(node.node_id.clone());
    let node = StoredValue::new(node);
    let opener = move |form: Form| move |_| node.with_value(|n| k.start(form, n));
    let send = move |change: Change| k.apply(id.get_value(), change);
    let reason = move || Some(k.reason.get_untracked()).filter(|r| !r.trim().is_empty());
    let empty_text = move || k.text.with(|t| t.trim().is_empty());
    let text_box = move |box_id: &'static str| {
        view! {
            <textarea
                id=box_id
                rows="3"
                prop:value=move || k.text.get_untracked()
                on:input=move |ev| k.text.set(event_target_value(&ev))
                on:change=move |ev| k.text.set(event_target_value(&ev))
            ></textarea>
        }
    };
    let reason_box = move |box_id: &'static str, placeholder: &'static str| {
        view! {
            <input
                type="text"
                id=box_id
                placeholder=placeholder
                prop:value=move || k.reason.get_untracked()
                on:input=move |ev| k.reason.set(event_target_value(&ev))
                on:change=move |ev| k.reason.set(event_target_value(&ev))
            />
        }
    };
    let cancel = move || {
        view! {
            <button class="small knowledge-cancel" on:click=move |_| k.form.set(Form::None)>
                "Cancel"
            </button>
        }
    };
    view! {
        <div class="proposal-actions" id="knowledge-actions">
            <button class="small" id="knowledge-edit" disabled=busy on:click=opener(Form::Edit)>
                "Correct the text…"
            </button>
            <button class="small" id="knowledge-confirm" disabled=busy on:click=move |_| send(Change::Confirm)>
                "Confirm it still holds"
            </button>
            <button class="small" id="knowledge-set-warrant" disabled=busy on:click=opener(Form::Warrant)>
                "Set warrant…"
            </button>
            <button class="small" id="knowledge-supersede" disabled=busy on:click=opener(Form::Supersede)>
                "Supersede…"
            </button>
            <button class="small danger" id="knowledge-retire" disabled=busy on:click=opener(Form::Retire)>
                "Retire…"
            </button>
        </div>
        {move || match k.form.get() {
            Form::None => ().into_any(),
            Form::Edit => view! {
                <div class="edit-form" id="knowledge-edit-form">
                    <label for="knowledge-edit-text">
                        "The corrected text (your word restores the warrant to assert; the old text stays in the history):"
                    </label>
                    {text_box("knowledge-edit-text")}
                    <div class="inline-form">
                        <button
                            class="primary"
                            id="knowledge-edit-save"
                            disabled=move || busy() || empty_text()
                            on:click=move |_| send(Change::Edit(k.text.get_untracked()))
                        >
                            "Save the correction"
                        </button>
                        {cancel()}
                    </div>
                </div>
            }
            .into_any(),
            Form::Supersede => view! {
                <div class="edit-form" id="knowledge-supersede-form">
                    <label for="knowledge-supersede-text">
                        "The text of the node that replaces this one (same kind, work context and due date; this one is kept as superseded):"
                    </label>
                    {text_box("knowledge-supersede-text")}
                    <div class="inline-form">
                        <button
                            class="primary"
                            id="knowledge-supersede-save"
                            disabled=move || busy() || empty_text()
                            on:click=move |_| send(Change::Supersede(k.text.get_untracked()))
                        >
                            "Supersede"
                        </button>
                        {cancel()}
                    </div>
                </div>
            }
            .into_any(),
            Form::Warrant => view! {
                <div class="inline-form warrant-form" id="knowledge-warrant-form">
                    <label for="knowledge-warrant-select">"Warrant"</label>
                    <select
                        id="knowledge-warrant-select"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(w) = NodeWarrant::ALL.iter().copied().find(|w| w.as_str() == v) {
                                k.warrant.set(w);
                            }
                        }
                    >
                        {NodeWarrant::ALL
                            .iter()
                            .map(|&w| {
                                view! {
                                    <option value=w.as_str() selected=k.warrant.get_untracked() == w>
                                        {format!("{} — {}", w.label(), w.explanation())}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                    {reason_box("knowledge-warrant-reason-input", "why (optional): shown with the warrant")}
                    <button
                        class="primary"
                        id="knowledge-warrant-save"
                        disabled=busy
                        on:click=move |_| send(Change::Warrant(k.warrant.get_untracked(), reason()))
                    >
                        "Set"
                    </button>
                    {cancel()}
                </div>
            }
            .into_any(),
            Form::Retire => view! {
                <div class="reject-form inline-form" id="knowledge-retire-form">
                    <label for="knowledge-retire-reason">"Retire"</label>
                    {reason_box("knowledge-retire-reason", "why (optional): kept in the history and shown by the Inspector")}
                    <button
                        class="primary"
                        id="knowledge-retire-confirm"
                        disabled=busy
                        on:click=move |_| send(Change::Retire(reason()))
                    >
                        "Retire"
                    </button>
                    {cancel()}
                    <span class="hint">"It leaves every brief; its provenance and history stay."</span>
                </div>
            }
            .into_any(),
        }}
    }
}
