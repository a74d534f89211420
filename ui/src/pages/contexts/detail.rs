//! One work context opened: its name, flag and link rules (each change one action), its
//! continuity log grouped by entry type, and the merge of another context into it.

use elnor_types::{ContinuityEntryRow, EditWorkContextRequest, WorkContextDetail};
use leptos::prelude::*;

use super::constellation::ConstellationCard;
use super::list::text_input;
use crate::api;
use crate::components::Loaded;

#[component]
pub(super) fn ContextDetail(id: String, generation: RwSignal<u32>) -> impl IntoView {
    let detail = LocalResource::new({
        let id = id.clone();
        move || {
            generation.track();
            api::work_contexts_get(id.clone())
        }
    });
    view! {
        <Loaded resource=detail loading="Reading the work context…" let:d>
            <ContextView detail=d generation />
        </Loaded>
    }
}

/// A change to the open work context.
#[derive(Debug, Clone)]
pub(super) enum ContextChange {
    AddRule {
        kind: String,
        pattern: String,
    },
    RemoveRule(i64),
    /// `None` leaves a field alone.
    Edit {
        name: Option<String>,
        local_only: Option<bool>,
    },
    /// Merges the named context into this one.
    Absorb(String),
}

#[component]
pub(super) fn ContextView(detail: WorkContextDetail, generation: RwSignal<u32>) -> impl IntoView {
    let wc = detail.context.clone();
    let id = wc.work_context_id.clone();
    let rule_kind = RwSignal::new("cwd".to_owned());
    let rule_pattern = RwSignal::new(String::new());
    let rename = RwSignal::new(wc.name.clone());
    let absorb = RwSignal::new(String::new());
    // Every change to this context goes through one action: its error is shown above the
    // context, and a success reloads the context (and so this view, with a fresh action).
    let change = Action::new_local({
        let id = id.clone();
        move |change: &ContextChange| {
            let (id, change) = (id.clone(), change.clone());
            async move {
                let reply = match change {
                    ContextChange::AddRule { kind, pattern } => {
                        api::link_rules_add(id, kind, pattern).await
                    }
                    ContextChange::RemoveRule(rule_id) => api::link_rules_remove(id, rule_id).await,
                    ContextChange::Edit { name, local_only } => {
                        let request = EditWorkContextRequest {
                            work_context_id: id,
                            name,
                            local_only,
                        };
                        api::work_contexts_edit(request).await
                    }
                    ContextChange::Absorb(other) => {
                        let merged = api::work_contexts_merge(id, other).await;
                        if merged.is_ok() {
                            absorb.set(String::new());
                        }
                        merged
                    }
                };
                reply
                    .map(|_| generation.update(|g| *g += 1))
                    .map_err(|e| e.message)
            }
        }
    });
    let send = move |c: ContextChange| {
        change.clear();
        change.dispatch_local(c);
    };
    let error = move || change.value().get().and_then(Result::err);
    let add_rule = move |_| {
        send(ContextChange::AddRule {
            kind: rule_kind.get_untracked(),
            pattern: rule_pattern.get_untracked(),
        })
    };
    let remove_rule = move |rule_id: i64| send(ContextChange::RemoveRule(rule_id));
    let edit = move |name: Option<String>, local_only: Option<bool>| {
        send(ContextChange::Edit { name, local_only })
    };
    let merge = move |_| {
        send(ContextChange::Absorb(
            absorb.get_untracked().trim().to_owned(),
        ))
    };

    let of_type = |t: &str| {
        detail
            .entries
            .iter()
            .filter(|e| e.entry_type == t)
            .cloned()
            .collect::<Vec<_>>()
    };
    let questions = of_type("open_question");
    let decisions = of_type("key_decision");
    let summaries = of_type("session_summary_ref");
    let updates = of_type("cross_conversation_update");

    view! {
        <div class="card" id="wc-detail" data-work-context-id=id.clone()>
            <h3 id="wc-title">{wc.name.clone()}</h3>
            <p class="meta">
                <code>{wc.work_context_id.clone()}</code>
                " · "
                {wc.origin.clone()}
                " · "
                {format!("{} sessions", wc.session_count)}
                {wc.domain_lineage.clone().map(|l| format!(" · {l}"))}
            </p>
            <div class="inline-form">
                <input
                    id="wc-rename"
                    type="text"
                    prop:value=move || rename.get()
                    on:input=move |ev| rename.set(event_target_value(&ev))
                />
                <button
                    class="small"
                    id="wc-rename-save"
                    on:click=move |_| edit(Some(rename.get_untracked()), None)
                >
                    "Rename"
                </button>
                <label class="check">
                    <input
                        id="wc-detail-local-only"
                        type="checkbox"
                        prop:checked=wc.local_only
                        on:change=move |ev| edit(None, Some(event_target_checked(&ev)))
                    />
                    "Local only"
                </label>
            </div>
            <div class="inline-form">
                {text_input("wc-merge-absorb", "Id of a work context to merge into this one", absorb)}
                <button class="small" id="wc-merge" on:click=merge>
                    "Merge into this one"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" id="wc-error" role="alert">{e}</div> })}

            <h4>"Link rules"</h4>
            {if wc.rules.is_empty() {
                view! { <p class="hint">"No rules: only sessions placed here by capture belong here."</p> }
                    .into_any()
            } else {
                view! {
                    <table class="rules" id="wc-rules">
                        {wc
                            .rules
                            .iter()
                            .map(|r| {
                                let rule_id = r.rule_id;
                                let remove = remove_rule;
                                view! {
                                    <tr>
                                        <td>{r.kind.clone()}</td>
                                        <td class="path">{r.pattern.clone()}</td>
                                        <td>
                                            <button class="small" on:click=move |_| remove(rule_id)>
                                                "Remove"
                                            </button>
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </table>
                }
                    .into_any()
            }}
            <div class="inline-form">
                <select
                    id="wc-rule-kind"
                    on:change=move |ev| rule_kind.set(event_target_value(&ev))
                    prop:value=move || rule_kind.get()
                >
                    <option value="cwd">"Folder (cwd)"</option>
                    <option value="session_key">"Session key"</option>
                    <option value="entity_set">"Entity set"</option>
                </select>
                {text_input("wc-rule-pattern", "/folder, a glob, or entity ids separated by commas", rule_pattern)}
                <button class="small" id="wc-rule-add" on:click=add_rule>
                    "Add rule"
                </button>
            </div>

            <h4>"Entities"</h4>
            {if detail.entities.is_empty() {
                view! { <p class="hint">"No entities linked yet."</p> }.into_any()
            } else {
                view! {
                    <ul class="entities" id="wc-entities">
                        {detail
                            .entities
                            .iter()
                            .map(|e| {
                                view! {
                                    <li>
                                        <strong>{e.canonical_name.clone()}</strong>
                                        <span class="meta">
                                            {format!(" {}", e.kind)}
                                            {e.deadline.clone().map(|d| format!(" · due {d}"))}
                                        </span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
                    .into_any()
            }}
        </div>

        <ConstellationCard id=id.clone() generation />

        <div class="card log">
            <h3>"Continuity log"</h3>
            {(detail.skipped_lines > 0)
                .then(|| {
                    view! {
                        <p class="hint">
                            {detail.skipped_lines}
                            " unreadable log lines were skipped and left in place."
                        </p>
                    }
                })}
            <h4>"Current phase"</h4>
            <p id="wc-phase">
                {detail.current_phase.clone().unwrap_or_else(|| "not known yet".to_owned())}
            </p>
            {entry_group("Open questions", "wc-open-questions", questions)}
            {entry_group("Key decisions", "wc-key-decisions", decisions)}
            {entry_group("Session summaries", "wc-summaries", summaries)}
            {entry_group("Cross-conversation updates", "wc-updates", updates)}
        </div>
    }
}

pub(super) fn entry_group(
    title: &'static str,
    id: &'static str,
    entries: Vec<ContinuityEntryRow>,
) -> AnyView {
    let count = entries.len();
    view! {
        <h4>{format!("{title} ({count})")}</h4>
        {if entries.is_empty() {
            view! { <p class="hint">"None."</p> }.into_any()
        } else {
            view! { <ul class="entries" id=id>{entries.into_iter().map(entry_item).collect_view()}</ul> }
                .into_any()
        }}
    }
    .into_any()
}

/// The mark of a question or decision found by the heuristic detectors, not by the model.
pub(super) fn heuristic_badge() -> impl IntoView {
    view! {
        <span
            class="badge heuristic"
            title="Found by the heuristic detectors, not by the model: check it before relying on it."
        >
            "heuristic · reduced confidence"
        </span>
    }
}

pub(super) fn entry_item(e: ContinuityEntryRow) -> impl IntoView {
    let when = e
        .captured_at
        .get(..16)
        .unwrap_or(&e.captured_at)
        .replace('T', " ");
    let delivered = (e.entry_type == "cross_conversation_update").then_some(if e.delivered {
        " · delivered"
    } else {
        " · not delivered yet"
    });
    view! {
        <li class="entry" class:resolved=e.resolved data-entry-id=e.entry_id.clone()>
            <span class="headline">{e.headline.clone()}</span>
            {e.reduced_confidence.then(heuristic_badge)}
            {e.resolved.then(|| view! { <span class="badge resolved">"resolved"</span> })}
            {e.detail.clone().map(|d| view! { <p class="detail">{d}</p> })}
            <span class="meta">
                {format!("{when} · {} · session {}", e.capture_mode.replace('_', " "), e.source_session_id)}
                {delivered}
            </span>
        </li>
    }
}
