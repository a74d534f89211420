//! The detail pane of the selected observation: a file change or a push, with its entities and
//! the updates it wrote.

use elnor_types::ObservationRow;
use leptos::prelude::*;

use crate::api;
use crate::components::{Loaded, short_time};
use crate::nav::Nav;

/// One observation in full, beside the list.
#[component]
pub(super) fn ObservationPane(id: i64, selected: RwSignal<Option<i64>>, nav: Nav) -> impl IntoView {
    let detail = LocalResource::new(move || api::observations_get(id));
    view! {
        <aside class="card observation-pane" id="observation-detail" data-observation-id=id>
            <div class="pane-head">
                <h3>{format!("Observation #{id}")}</h3>
                <button class="small" id="observation-close" on:click=move |_| selected.set(None)>
                    "Close"
                </button>
            </div>
            <Loaded resource=detail loading="Reading the observation…" let:o>
                {observation_view(o, nav)}
            </Loaded>
        </aside>
    }
}

pub(super) fn observation_view(o: ObservationRow, nav: Nav) -> impl IntoView {
    let what = match o.source.as_str() {
        "push" => "Pushed by you".to_owned(),
        _ => format!("File {}", o.kind),
    };
    let context = match (o.work_context_id.clone(), o.work_context_name.clone()) {
        (Some(id), name) => {
            let label = name.unwrap_or_else(|| id.clone());
            view! {
                <a
                    href="#"
                    id="observation-context"
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.open_work_context(id.clone());
                    }
                >
                    {label}
                </a>
            }
            .into_any()
        }
        (None, _) => view! { <span class="hint">"none"</span> }.into_any(),
    };
    let entities = if o.entities.is_empty() {
        view! { <span class="hint">"none named or recognised"</span> }.into_any()
    } else {
        view! {
            <ul class="observation-entities" id="observation-entities">
                {o.entities
                    .iter()
                    .map(|e| view! { <li data-entity-id=e.entity_id.clone()>{e.name.clone()}</li> })
                    .collect_view()}
            </ul>
        }
        .into_any()
    };
    let updates = match o.updates_written {
        0 => "none: no work context references these entities".to_owned(),
        1 => "1 cross-conversation update".to_owned(),
        n => format!("{n} cross-conversation updates"),
    };
    view! {
        <dl class="facts observation-facts">
            <dt>"What"</dt>
            <dd id="observation-kind" data-kind=o.kind.clone()>{what}</dd>
            <dt>"When"</dt>
            <dd id="observation-at">{short_time(&o.observed_at)}</dd>
            {o.path.clone().map(|p| view! { <dt>"Path"</dt><dd class="path" id="observation-path">{p}</dd> })}
            {o.from_path.clone().map(|p| view! { <dt>"Renamed from"</dt><dd class="path" id="observation-from-path">{p}</dd> })}
            {o.title.clone().map(|t| view! { <dt>"Title"</dt><dd id="observation-title">{t}</dd> })}
            <dt>"Work context"</dt>
            <dd>{context}</dd>
            <dt>"Entities"</dt>
            <dd>{entities}</dd>
            <dt>"Updates written"</dt>
            <dd id="observation-updates">{updates}</dd>
        </dl>
        {(!o.text.is_empty()).then(|| view! { <pre class="observation-text" id="observation-text">{o.text.clone()}</pre> })}
    }
}
