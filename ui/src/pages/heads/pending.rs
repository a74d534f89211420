//! What waits around a head: writes deferred because another program held the target's lease
//! (the next refresh retries them), and edits a person made inside a head's block in another
//! tool's file, which ELNOR kept instead of overwriting.

use elnor_types::{DeferredWriteRow, KeptEditRow};
use leptos::prelude::*;

use crate::components::short_time;

/// Who holds a lease, in words: "elnor (heads), pid 4242 on laptop, until 12:01".
pub(super) fn holder_words(h: &elnor_types::LeaseHolder) -> String {
    format!(
        "{}, pid {} on {}, until {}",
        h.owner,
        h.pid,
        h.host,
        short_time(&h.expires_at)
    )
}

/// A kept edit: whose file, when it was found, and the person's text as they left it.
#[component]
pub(super) fn KeptEdit(kept: KeptEditRow) -> impl IntoView {
    let target = kept.target.clone();
    view! {
        <div class="kept-edit" data-target=target>
            <p>
                "In " <span class="path">{kept.target}</span>
                {format!(", found {}, the head's block holds an edit. ELNOR left it as it was and saved a copy:", short_time(&kept.detected_at))}
            </p>
            <pre class="kept-text">{kept.text}</pre>
            <p class="meta path">{format!("Saved at {}", kept.saved_at)}</p>
        </div>
    }
}

#[component]
pub(super) fn PendingCard(
    kept: Vec<KeptEditRow>,
    deferred: Vec<DeferredWriteRow>,
) -> impl IntoView {
    let deferred = deferred
        .into_iter()
        .map(|d| {
            let target = d
                .target
                .unwrap_or_else(|| "the store's own head file".to_owned());
            view! {
                <li class="deferred-write">
                    {format!(
                        "Waiting to write into {target} since {}: another program holds it ({}). \
                         The next refresh retries it.",
                        short_time(&d.deferred_at),
                        holder_words(&d.held_by),
                    )}
                </li>
            }
        })
        .collect_view();
    let kept = kept
        .into_iter()
        .map(|k| view! { <KeptEdit kept=k /> })
        .collect_view();
    view! {
        <section class="card heads-pending" id="heads-pending">
            <h3>"Waiting and kept"</h3>
            <ul class="deferred-writes">{deferred}</ul>
            <div class="kept-edits" id="heads-kept">{kept}</div>
        </section>
    }
}
