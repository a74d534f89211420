//! The decision buttons of an open proposal and their forms: approve, edit and approve, reject
//! with an optional reason, defer.

use leptos::prelude::*;

use super::state::{Decision, Form, Review};

/// Approve, edit and approve, reject and defer for the open proposal `id`.
#[component]
pub(super) fn Actions(id: i64, text: String, review: Review) -> impl IntoView {
    let busy = move || review.busy();
    let edit_box = NodeRef::<leptos::html::Textarea>::new();
    // Focus follows the form, so the keyboard flow (e, type, Ctrl+Enter) needs no mouse.
    Effect::new(move |_| {
        if let Some(el) = edit_box.get() {
            let _ = el.focus();
        }
    });
    let approve_edited = move || {
        review.decide(Decision::Approve {
            ids: vec![id],
            text: Some(review.edit_text.get_untracked()),
        })
    };
    let original = text.clone();
    view! {
        <div class="proposal-actions">
            <button
                class="primary"
                id="review-approve"
                disabled=busy
                on:click=move |_| review.decide(Decision::Approve { ids: vec![id], text: None })
            >
                "Approve"
            </button>
            <button
                class="small"
                id="review-edit"
                disabled=busy
                on:click=move |_| {
                    review.edit_text.set(original.clone());
                    review.form.set(Form::Edit);
                }
            >
                "Edit and approve…"
            </button>
            <button
                class="small"
                id="review-reject"
                disabled=busy
                on:click=move |_| {
                    review.reason.set(String::new());
                    review.form.set(Form::Reject { ids: vec![id], batch: false });
                }
            >
                "Reject…"
            </button>
            <button
                class="small"
                id="review-defer"
                disabled=busy
                on:click=move |_| review.decide(Decision::Defer { ids: vec![id] })
            >
                "Defer"
            </button>
        </div>
        {move || match review.form.get() {
            Form::Edit => {
                view! {
                    <div class="edit-form" id="review-edit-form">
                        <label for="review-edit-text">"In your words (this text is what the graph and the brief will hold):"</label>
                        <textarea
                            id="review-edit-text"
                            rows="3"
                            node_ref=edit_box
                            prop:value=move || review.edit_text.get_untracked()
                            on:input=move |ev| review.edit_text.set(event_target_value(&ev))
                            on:change=move |ev| review.edit_text.set(event_target_value(&ev))
                            on:keydown=move |ev| {
                                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                                    ev.prevent_default();
                                    approve_edited();
                                } else if ev.key() == "Escape" {
                                    review.form.set(Form::None);
                                }
                            }
                        ></textarea>
                        <div class="inline-form">
                            <button
                                class="primary"
                                id="review-approve-edited"
                                disabled=move || busy() || review.edit_text.with(|t| t.trim().is_empty())
                                on:click=move |_| approve_edited()
                            >
                                "Approve with this text"
                            </button>
                            <button class="small" id="review-edit-cancel" on:click=move |_| review.form.set(Form::None)>
                                "Cancel"
                            </button>
                            <span class="hint">"Ctrl+Enter approves, Esc cancels."</span>
                        </div>
                    </div>
                }
                    .into_any()
            }
            Form::Reject { ids, batch: false } => view! { <RejectForm ids review /> }.into_any(),
            _ => ().into_any(),
        }}
    }
}

/// The optional reason for rejecting `ids`, kept with each of them.
#[component]
pub(super) fn RejectForm(ids: Vec<i64>, review: Review) -> impl IntoView {
    let reason_box = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = reason_box.get() {
            let _ = el.focus();
        }
    });
    let what = match ids.as_slice() {
        [one] => format!("Reject #{one}"),
        many => format!("Reject {} proposals", many.len()),
    };
    let ids = StoredValue::new(ids);
    let confirm = move || {
        let reason = Some(review.reason.get_untracked()).filter(|r| !r.trim().is_empty());
        review.decide(Decision::Reject {
            ids: ids.get_value(),
            reason,
        });
    };
    view! {
        <div class="reject-form inline-form" id="review-reject-form">
            <label for="review-reject-reason">{what}</label>
            <input
                type="text"
                id="review-reject-reason"
                placeholder="why (optional): kept with the rejection"
                node_ref=reason_box
                prop:value=move || review.reason.get_untracked()
                on:input=move |ev| review.reason.set(event_target_value(&ev))
                on:change=move |ev| review.reason.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        confirm();
                    } else if ev.key() == "Escape" {
                        review.form.set(Form::None);
                    }
                }
            />
            <button class="primary" id="review-reject-confirm" disabled=move || review.busy() on:click=move |_| confirm()>
                "Reject"
            </button>
            <button class="small" id="review-reject-cancel" on:click=move |_| review.form.set(Form::None)>
                "Cancel"
            </button>
            <span class="hint">"A rejected proposal comes back only if its evidence changes."</span>
        </div>
    }
}
