//! The push card on Home and the observations recently recorded, each opening on the Timeline.

use elnor_types::{ObservationListRequest, ObservationRow};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::{Loaded, short_time};
use crate::nav::use_nav;
use crate::push::PushForm;

/// Observations listed under the push box; the Timeline has the rest.
pub(super) const RECENT_OBSERVATIONS: u32 = 5;

/// "I just did…": the push form, then what ELNOR observed last (pushes and file changes), read
/// again after every push, from here or from the dialog.
#[component]
pub(super) fn PushCard() -> impl IntoView {
    let activity = use_activity();
    let recent = LocalResource::new(move || {
        activity.0.track();
        api::observations_list(ObservationListRequest {
            limit: RECENT_OBSERVATIONS,
            ..ObservationListRequest::default()
        })
    });
    view! {
        <div class="card" id="push-card">
            <h3>"I just did…"</h3>
            <p class="hint">
                "Tell ELNOR about work its agents did not see: a call, an email, a document sent. "
                "It goes into the work context's log and reaches the other contexts that share its "
                "entities. Ctrl+Shift+P opens this box from any page."
            </p>
            <PushForm prefix="push" />
            <h4>"Recently observed"</h4>
            <Loaded resource=recent loading="Reading observations…" let:value>
                {recent_list(value)}
            </Loaded>
        </div>
    }
}

pub(super) fn recent_list(rows: Vec<ObservationRow>) -> AnyView {
    if rows.is_empty() {
        return view! {
            <p class="hint" id="recent-observations-empty">
                "Nothing observed yet. Push what you just did above, or add a folder under "
                "Settings → Tracked folders so that changes to your files show up here."
            </p>
        }
        .into_any();
    }
    let nav = use_nav();
    view! {
        <ul class="recent-observations" id="recent-observations">
            {rows
                .into_iter()
                .map(|o| {
                    let id = o.observation_id;
                    let what = o
                        .title
                        .clone()
                        .or_else(|| o.path.clone())
                        .unwrap_or_else(|| o.text.clone());
                    view! {
                        <li data-observation-id=id>
                            <a
                                href="#"
                                on:click=move |ev| {
                                    ev.prevent_default();
                                    nav.open_observation(id);
                                }
                            >
                                <span class="meta">{short_time(&o.observed_at)}</span>
                                <span class=format!("badge obs-{}", o.kind)>{o.kind.clone()}</span>
                                <span class="obs-what">{what}</span>
                            </a>
                            {o.work_context_name.map(|n| view! { <span class="meta">{format!(" · {n}")}</span> })}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}
