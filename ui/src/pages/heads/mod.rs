//! Heads: the short Markdown files ELNOR keeps for agents (docs/HEADS.md), shown as the person
//! would want to check them. A switcher picks the global head or one work context's thread head;
//! the head is shown as its sections of lines, each line with chips for what it cites (which open
//! where the line came from), and a meter of its size against its cap. Below it, what did not fit
//! under the cap, the writes waiting for another writer and the edits a person made inside a
//! head's block, and "Write into a file", which puts the head into a marked block of a file
//! another tool reads.
//!
//! Everything shown is one read (`heads_get`), built as a refresh would build it now; "Refresh
//! now" rewrites the files under the store's `heads/` and reads the head again.

mod head;
mod left_out;
mod pending;
mod write;

use elnor_types::{HeadsRefreshed, HeadsRequest, HeadsView};
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use head::HeadCard;
use left_out::LeftOutCard;
use pending::PendingCard;
use write::WriteCard;

/// `n` with thousands separated by commas, as the meter says it: "1,200".
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[component]
pub fn HeadsPage() -> impl IntoView {
    // The work context whose thread head is shown, or `None` for the global head.
    let scope = RwSignal::new(None::<String>);
    // Bumped after a refresh or a write, so the head, its kept edits and its deferred writes are
    // read anew.
    let generation = RwSignal::new(0u32);
    let heads = LocalResource::new(move || {
        generation.track();
        let work_context_id = scope.get();
        api::heads_get(HeadsRequest { work_context_id })
    });
    let refresh = Action::new_local(move |_: &()| async move {
        let done = api::heads_refresh().await.map_err(|e| e.message)?;
        generation.update(|g| *g += 1);
        Ok::<_, String>(done)
    });
    let refreshed = move || {
        refresh.value().get().map(|r| match r {
            Ok(r) => view! { <p class="hint" id="heads-refreshed" role="status">{refreshed_words(&r)}</p> }
                .into_any(),
            Err(e) => view! { <div class="error" id="heads-refresh-error" role="alert">{e}</div> }
                .into_any(),
        })
    };
    view! {
        <div class="page-head">
            <h2>"Heads"</h2>
            <div class="page-actions">
                <button
                    class="small"
                    id="heads-refresh"
                    disabled=move || refresh.pending().get()
                    on:click=move |_| {
                        refresh.dispatch_local(());
                    }
                >
                    "Refresh now"
                </button>
            </div>
        </div>
        <p class="hint">
            "What an agent is given to know where the work stands: the global head across your "
            "active work, and one thread head per work context. Each line says where it came from."
        </p>
        {refreshed}
        <Loaded resource=heads loading="Building the heads…" let:h>
            <HeadsBody heads=h scope />
        </Loaded>
        <WriteCard scope generation />
    }
}

/// The switcher, the head, what did not fit and what waits.
#[component]
fn HeadsBody(heads: HeadsView, scope: RwSignal<Option<String>>) -> impl IntoView {
    let options = heads
        .threads
        .iter()
        .map(|t| {
            let label = format!("{} ({} tokens)", t.name, thousands(u64::from(t.tokens)));
            let selected = heads.work_context_id.as_deref() == Some(t.work_context_id.as_str());
            view! { <option value=t.work_context_id.clone() selected=selected>{label}</option> }
        })
        .collect_view();
    let global_selected = heads.work_context_id.is_none();
    view! {
        <div class="heads-scope">
            <label for="heads-scope">"Head: "</label>
            <select
                id="heads-scope"
                on:change=move |ev| {
                    let value = event_target_value(&ev);
                    scope.set((!value.is_empty()).then_some(value));
                }
            >
                <option value="" selected=global_selected>"Global head (across your active work)"</option>
                <optgroup label="Thread heads">{options}</optgroup>
            </select>
        </div>
        <HeadCard
            title=heads.title
            sections=heads.sections
            tokens=heads.tokens
            cap=heads.cap
            file=heads.file
            work_context_id=heads.work_context_id
        />
        {(!heads.left_out.is_empty()).then(|| view! { <LeftOutCard left_out=heads.left_out cap=heads.cap /> })}
        {(!heads.kept_edits.is_empty() || !heads.deferred.is_empty())
            .then(|| view! { <PendingCard kept=heads.kept_edits deferred=heads.deferred /> })}
    }
}

/// What a refresh did, in one sentence.
fn refreshed_words(r: &HeadsRefreshed) -> String {
    let mut parts = vec![format!(
        "{} rewritten, {} already up to date",
        r.written, r.unchanged
    )];
    if r.deferred > 0 {
        parts.push(format!(
            "{} waiting for another writer (retried at the next refresh)",
            r.deferred
        ));
    }
    if r.edits_kept > 0 {
        parts.push(format!("{} holding a person's edit, kept", r.edits_kept));
    }
    if !r.failures.is_empty() {
        parts.push(format!("failed: {}", r.failures.join("; ")));
    }
    format!("Heads refreshed: {}.", parts.join("; "))
}
