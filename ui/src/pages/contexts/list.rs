//! The list of work contexts, grouped by origin and most recently active first, with its filter;
//! and the "New work context" dialog.

use elnor_types::{CreateWorkContextRequest, WorkContextRow};
use leptos::prelude::*;

use crate::api;
use crate::components::{Modal, short_time};

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

/// The list's groups, in the order they are shown: the origin a row carries and its heading.
const GROUPS: &[(&str, &str)] = &[
    ("project", "Projects"),
    ("named", "Named"),
    ("auto", "Automatic"),
];

/// The rows grouped under their origin's heading, each group most recently active first. A
/// heading hides with its last matching row when the filter leaves none.
pub(super) fn context_rows(
    mut rows: Vec<WorkContextRow>,
    selected: RwSignal<Option<String>>,
    filter: RwSignal<String>,
) -> AnyView {
    if rows.is_empty() {
        return view! {
            <div class="empty" id="contexts-empty">
                <p>"No work contexts yet."</p>
                <p class="hint">
                    "Create one with New work context and a folder rule, and sessions working in "
                    "that folder land in it when they are captured. Sessions that match no rule "
                    "are grouped automatically by the entities they mention."
                </p>
            </div>
        }
        .into_any();
    }
    // RFC 3339 times sort as text; contexts never active go last.
    rows.sort_by(|a, b| b.last_active_at.cmp(&a.last_active_at));
    let known = |o: &str| GROUPS.iter().any(|(g, _)| *g == o);
    let mut groups: Vec<(String, &'static str, Vec<WorkContextRow>)> = GROUPS
        .iter()
        .map(|(origin, head)| {
            let members = rows
                .iter()
                .filter(|r| r.origin == *origin)
                .cloned()
                .collect();
            ((*origin).to_owned(), *head, members)
        })
        .collect();
    let others: Vec<_> = rows.iter().filter(|r| !known(&r.origin)).cloned().collect();
    groups.push(("other".to_owned(), "Other", others));
    let all_rows = StoredValue::new(rows);
    let no_match = move || {
        filter.with(|f| all_rows.with_value(|rows| !rows.iter().any(|r| matches_filter(r, f))))
    };
    view! {
        {groups
            .into_iter()
            .filter(|(_, _, members)| !members.is_empty())
            .map(|(origin, head, members)| {
                let group = StoredValue::new(members.clone());
                let empty = move || {
                    filter.with(|f| group.with_value(|m| !m.iter().any(|r| matches_filter(r, f))))
                };
                view! {
                    <div class="list-group-head" class:filtered-out=empty data-group=origin>
                        {format!("{head} · {}", members.len())}
                    </div>
                    {members.into_iter().map(|wc| context_row(wc, selected, filter)).collect_view()}
                }
            })
            .collect_view()}
        <p class="hint" id="contexts-no-match" class:filtered-out=move || !no_match()>
            "No work contexts match this filter."
        </p>
    }
    .into_any()
}

/// One row: the name on one line (in full on hover), its flags, sessions and last activity.
fn context_row(
    wc: WorkContextRow,
    selected: RwSignal<Option<String>>,
    filter: RwSignal<String>,
) -> impl IntoView {
    let id = wc.work_context_id.clone();
    let pick = wc.work_context_id.clone();
    let rules = wc
        .rules
        .iter()
        .map(|r| r.pattern.clone())
        .collect::<Vec<_>>()
        .join(" · ");
    let last = wc
        .last_active_at
        .as_deref()
        .map(|t| format!(" · {}", short_time(t)))
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
            data-origin=wc.origin.clone()
            data-key-item=""
            on:click=move |_| selected.set(Some(pick.clone()))
        >
            <strong title=wc.name.clone()>{wc.name.clone()}</strong>
            <span class="meta">
                {wc.local_only.then(|| view! { <span class="badge local-only">"local only"</span> })}
                {format!(
                    "{} session{}{last}",
                    wc.session_count,
                    if wc.session_count == 1 { "" } else { "s" },
                )}
            </span>
            {(!rules.is_empty())
                .then(|| view! { <span class="meta rules" title=rules.clone()>{rules.clone()}</span> })}
        </button>
    }
}

/// The "New work context" dialog: a name, optional folder and session-key rules and the
/// local-only flag. On success it closes, selects the new context and leaves `created` saying so.
#[component]
pub(super) fn NewContextDialog(
    open: RwSignal<bool>,
    generation: RwSignal<u32>,
    selected: RwSignal<Option<String>>,
    created: RwSignal<Option<String>>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let cwd = RwSignal::new(String::new());
    let session_key = RwSignal::new(String::new());
    let local_only = RwSignal::new(false);
    // The creation on its way: its error stays in the dialog, its success closes it.
    let creating = Action::new_local(move |request: &CreateWorkContextRequest| {
        let request = request.clone();
        async move {
            let wc = api::work_contexts_create(request)
                .await
                .map_err(|e| e.message)?;
            selected.set(Some(wc.work_context_id));
            created.set(Some(format!("Created {}.", wc.name)));
            generation.update(|g| *g += 1);
            open.set(false);
            Ok::<_, String>(())
        }
    });
    let error = move || creating.value().get().and_then(Result::err);
    let create = move || {
        let request = CreateWorkContextRequest {
            name: name.get_untracked(),
            cwd: Some(cwd.get_untracked()),
            session_key: Some(session_key.get_untracked()),
            local_only: local_only.get_untracked(),
        };
        creating.clear();
        creating.dispatch_local(request);
    };
    let name_field = NodeRef::<leptos::html::Input>::new();
    // The name takes the keyboard as the dialog opens.
    Effect::new(move |_| {
        if let Some(input) = name_field.get() {
            let _ = input.focus();
        }
    });
    view! {
        <Modal
            open=open
            id="wc-new-dialog"
            label="New work context"
            on_key=move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                    create();
                }
            }
        >
                <h3>"New work context"</h3>
                <div class="form-grid">
                    <label for="wc-name">"Name"</label>
                    <input
                        id="wc-name"
                        type="text"
                        placeholder="e.g. Spotter OTEL"
                        node_ref=name_field
                        prop:value=move || name.get()
                        on:input=move |ev| name.set(event_target_value(&ev))
                    />
                    <label for="wc-cwd">"Folder rule"</label>
                    {text_input("wc-cwd", "/absolute/folder (optional)", cwd)}
                    <label for="wc-session-key">"Session key rule"</label>
                    {text_input("wc-session-key", "e.g. agent:research-* (optional)", session_key)}
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
                <p class="hint">
                    "Sessions working in the folder or below, or whose session or agent id matches "
                    "the key, land in this context when they are captured."
                </p>
                {move || error().map(|e| view! { <div class="error" id="wc-create-error" role="alert">{e}</div> })}
                <div class="dialog-buttons">
                    <button class="small" id="wc-new-cancel" on:click=move |_| open.set(false)>
                        "Cancel"
                    </button>
                    <button id="wc-create" class="primary" on:click=move |_| create()>
                        "Create"
                    </button>
                </div>
        </Modal>
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
