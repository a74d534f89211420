//! Review: the promotion review queue (CSA §3.3). The nightly job proposes durable knowledge from
//! the continuity logs (an obligation from a long-open question with a deadline, a memory
//! directive from a decision stated in several sessions); here the person approves (as proposed
//! or in their own words), rejects (with an optional reason) or defers each proposal, one at a
//! time or ticked in a batch, by mouse or by key. Nothing enters the graph until approved.
//!
//! The header shows the nightly job: when it last ran, when it runs next, and a button to run it
//! (or only the promotion rules) now. The list sits beside the selected proposal's evidence: the
//! rule's reason, the entry as captured, the sessions that recorded or restated it with their
//! dates, the deadline, and, for a renewal, the earlier rejection it answers.
//!
//! Below the queue, the Topic membership proposals that the Topics' collection directives made
//! are approved or rejected one by one (`memberships.rs`).

mod decide;
mod memberships;
mod nightly;
mod proposal;
mod queue;
mod state;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::api;
use crate::components::Loaded;
use crate::nav::use_nav;
use crate::push::dialog_open;
use memberships::Memberships;
use nightly::NightlyCard;
use queue::Queue;
use state::{Form, Note, Review};

/// Whether a key press belongs to a text field rather than to the page's shortcuts. Checkboxes
/// and buttons do not count: after ticking a box, the keys should still work.
fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    match el.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            el.get_attribute("type").unwrap_or_default().as_str(),
            "checkbox" | "radio" | "button" | "submit"
        ),
        _ => el.is_content_editable(),
    }
}

#[component]
pub fn ReviewPage() -> impl IntoView {
    let review = Review::new();
    // A link from the Knowledge page names a proposal, usually a decided one: show it among all.
    let nav = use_nav();
    if let Some(id) = nav.take_proposal() {
        review.show_all.set(true);
        review.selected.set(Some(id));
    }
    // Each decision's reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some((verb, reply)) = review.decision.value().get() {
            review.answered(verb, reply);
        }
    });
    let queue = LocalResource::new(move || {
        review.generation.track();
        api::review_list(review.show_all.get())
    });
    // Keeps the key handlers' copy of the list and a valid selection.
    Effect::new(move |_| {
        let Some(Ok(q)) = queue.get() else {
            return;
        };
        let present = |id: i64| q.proposals.iter().any(|p| p.proposal_id == id);
        if !review.selected.get_untracked().is_some_and(present) {
            let first = q
                .proposals
                .iter()
                .find(|p| p.status.is_open())
                .or(q.proposals.first());
            review.selected.set(first.map(|p| p.proposal_id));
        }
        review.checked.update(|c| {
            c.retain(|id| {
                q.proposals
                    .iter()
                    .any(|p| p.proposal_id == *id && p.status.is_open())
            })
        });
        review.listed.set(q.proposals);
    });

    let keys = window_event_listener(ev::keydown, move |ev| {
        // The push dialog (Ctrl+Shift+P) is modal: keys typed while it is open are not decisions.
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing(&ev) || dialog_open() {
            return;
        }
        match ev.key().as_str() {
            "j" | "ArrowDown" => review.move_by(1),
            "k" | "ArrowUp" => review.move_by(-1),
            "a" => review.approve(),
            "e" => review.start_edit(),
            "r" => review.start_reject(),
            "d" => review.defer(),
            "x" => {
                if let Some(p) = review.current_open() {
                    review.toggle_checked(p.proposal_id);
                }
            }
            "Escape" => review.form.set(Form::None),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || keys.remove());

    view! {
        <h2>"Review"</h2>
        <NightlyCard review />
        {move || {
            review
                .note
                .get()
                .map(|n| match n {
                    Note::Done(text) => view! { <p class="saved" id="review-note">{text}</p> }.into_any(),
                    Note::Failed(lines) => {
                        view! {
                            <div class="error" id="review-note" role="alert">
                                {lines.into_iter().map(|l| view! { <p>{l}</p> }).collect_view()}
                            </div>
                        }
                            .into_any()
                    }
                })
        }}
        <Loaded resource=queue loading="Reading the review queue…" let:q>
            <Queue queue=q review />
        </Loaded>
        <Memberships />
    }
}
