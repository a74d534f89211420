//! The list of work contexts with its filter, and the card that creates a new one.

use elnor_types::{CreateWorkContextRequest, WorkContextRow};
use leptos::prelude::*;

use crate::api;
use crate::components::short_time;

/// Whether a row matches the filter text: its name, id or a rule's pattern holds every word.
pub(super) fn matches_filter(wc: &WorkContextRow, filter: &str) -> bool {
    let hay = format!(
        "{} {} {}",
        wc.name,
        wc.work_context_id,
        wc.rules
            .iter()
            .map(|r| r.pattern.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    )
    .to_lowercase();
    filter
        .to_lowercase()
        .split_whitespace()
        .all(|w| hay.contains(w))
}

pub(super) fn context_rows(
    rows: Vec<WorkContextRow>,
    selected: RwSignal<Option<String>>,
    filter: RwSignal<String>,
) -> AnyView {
    if rows.is_empty() {
        return view! {
            <div class="empty" id="contexts-empty">
                <p>"No work contexts yet."</p>
                <p class="hint">
                    "Create one above with a folder rule, and sessions working in that folder land "
                    "in it when they are captured. Sessions that match no rule are grouped "
                    "automatically by the entities they mention."
                </p>
            </div>
        }
        .into_any();
    }
    rows.into_iter()
        .map(|wc| {
            let id = wc.work_context_id.clone();
            let pick = wc.work_context_id.clone();
            let rules = wc
                .rules
                .iter()
                .map(|r| format!("{}: {}", r.kind, r.pattern))
                .collect::<Vec<_>>()
                .join(" · ");
            let last = wc
                .last_active_at
                .as_deref()
                .map(|t| format!(" · last active {}", short_time(t)))
                .unwrap_or_default();
            let hidden = {
                let wc = wc.clone();
                move || filter.with(|f| !matches_filter(&wc, f))
            };
            view! {
                <button
                    class="context-row"
                    class:filtered-out=hidden
                    class:active=move || selected.with(|s| s.as_deref() == Some(id.as_str()))
                    data-work-context-id=wc.work_context_id.clone()
                    on:click=move |_| selected.set(Some(pick.clone()))
                >
                    <strong>{wc.name.clone()}</strong>
                    <span class="badges">
                        <span class=format!("badge origin-{}", wc.origin)>{wc.origin.clone()}</span>
                        {wc.local_only.then(|| view! { <span class="badge local-only">"local only"</span> })}
                        <span class="meta">
                            {format!(
                                "{} session{}{last}",
                                wc.session_count,
                                if wc.session_count == 1 { "" } else { "s" },
                            )}
                        </span>
                    </span>
                    {(!rules.is_empty()).then(|| view! { <span class="meta rules">{rules}</span> })}
                </button>
            }
        })
        .collect_view()
        .into_any()
}

#[component]
pub(super) fn CreateContextCard(
    generation: RwSignal<u32>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let cwd = RwSignal::new(String::new());
    let session_key = RwSignal::new(String::new());
    let local_only = RwSignal::new(false);
    // The creation on its way: its value is what the card says under the button, "Created …"
    // or the engine's refusal.
    let creating = Action::new_local(move |request: &CreateWorkContextRequest| {
        let request = request.clone();
        async move {
            let wc = api::work_contexts_create(request)
                .await
                .map_err(|e| e.message)?;
            name.set(String::new());
            cwd.set(String::new());
            session_key.set(String::new());
            local_only.set(false);
            selected.set(Some(wc.work_context_id));
            generation.update(|g| *g += 1);
            Ok::<_, String>(format!("Created {}.", wc.name))
        }
    });
    let error = move || creating.value().get().and_then(Result::err);
    let created = move || creating.value().get().and_then(Result::ok);

    let create = move |_| {
        let request = CreateWorkContextRequest {
            name: name.get_untracked(),
            cwd: Some(cwd.get_untracked()),
            session_key: Some(session_key.get_untracked()),
            local_only: local_only.get_untracked(),
        };
        creating.clear();
        creating.dispatch_local(request);
    };

    view! {
        <div class="card">
            <h3>"New work context"</h3>
            <div class="form-grid">
                <label for="wc-name">"Name"</label>
                {text_input("wc-name", "e.g. Spotter OTEL", name)}
                <label for="wc-cwd">"Folder rule"</label>
                {text_input("wc-cwd", "/absolute/folder: sessions working in it or below (optional)", cwd)}
                <label for="wc-session-key">"Session key rule"</label>
                {text_input("wc-session-key", "glob over session or agent id, e.g. agent:research-* (optional)", session_key)}
                <span></span>
                <label class="check">
                    <input
                        id="wc-local-only"
                        type="checkbox"
                        prop:checked=move || local_only.get()
                        on:change=move |ev| local_only.set(event_target_checked(&ev))
                    />
                    "Local only: never send this context's content to a non-local model"
                </label>
            </div>
            <button id="wc-create" class="primary" on:click=create>
                "Create"
            </button>
            {move || error().map(|e| view! { <div class="error" id="wc-create-error" role="alert">{e}</div> })}
            {move || created().map(|c| view! { <p class="saved" id="wc-created">{c}</p> })}
        </div>
    }
}

/// A text input bound both ways to `value`.
pub(super) fn text_input(
    id: &'static str,
    placeholder: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <input
            id=id
            type="text"
            placeholder=placeholder
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        />
    }
}
