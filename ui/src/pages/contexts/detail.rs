//! One work context opened: its name, phase and entities (as chips), its link rules (an entity-set
//! rule's entities as removable chips, picked by name), the rename, flag and merge of another
//! context into it (each change one action), then its constellation view and the rest of its
//! continuity log.

use elnor_types::{
    CommandError, ConstellationView, ContinuityEntryRow, EditWorkContextRequest, EntityRow,
    LineageRequest, LinkRuleRow, WorkContextDetail,
};
use leptos::prelude::*;

use super::constellation::ConstellationCard;
use super::list::text_input;
use crate::api;
use crate::components::{Loaded, lineage_link, short_time};

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
    /// Replaces a rule by one of the same kind with a new pattern (none: just removes it).
    Replace {
        rule_id: i64,
        kind: String,
        pattern: String,
    },
    /// Merges the named context into this one.
    Absorb(String),
    /// Links an entity to this context, by id.
    Link(String),
    /// Takes an entity's link off this context, by id.
    Unlink(String),
}

#[component]
pub(super) fn ContextView(detail: WorkContextDetail, generation: RwSignal<u32>) -> impl IntoView {
    let wc = detail.context.clone();
    let id = wc.work_context_id.clone();
    let rule_kind = RwSignal::new("cwd".to_owned());
    let rule_pattern = RwSignal::new(String::new());
    // The entities picked for a new entity-set rule, by id, shown as chips until it is added.
    let picked = RwSignal::new(Vec::<String>::new());
    let rename = RwSignal::new(wc.name.clone());
    let absorb = RwSignal::new(String::new());
    // Names for ids: the entity-set rules and the picker speak in names, never in ids.
    let entities = LocalResource::new(|| api::entities_list(None));
    let contexts = LocalResource::new(api::work_contexts_list);
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
                    ContextChange::Replace {
                        rule_id,
                        kind,
                        pattern,
                    } => match api::link_rules_remove(id.clone(), rule_id).await {
                        Ok(row) if pattern.is_empty() => Ok(row),
                        Ok(_) => api::link_rules_add(id, kind, pattern).await,
                        Err(e) => Err(e),
                    },
                    ContextChange::Edit { name, local_only } => {
                        let request = EditWorkContextRequest {
                            work_context_id: id,
                            name,
                            local_only,
                        };
                        api::work_contexts_edit(request).await
                    }
                    ContextChange::Link(entity) => api::work_contexts_link_entity(id, entity).await,
                    ContextChange::Unlink(entity) => {
                        api::work_contexts_unlink_entity(id, entity).await
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
        let kind = rule_kind.get_untracked();
        let pattern = if kind == "entity_set" {
            picked.get_untracked().join(",")
        } else {
            rule_pattern.get_untracked()
        };
        send(ContextChange::AddRule { kind, pattern })
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

    // The constellation is read once here: the card shows it, and the log below it shows only
    // the entries the view does not, so nothing is read twice.
    let view_read = LocalResource::new({
        let id = id.clone();
        move || {
            generation.track();
            api::constellation_get(id.clone())
        }
    });
    let entries = StoredValue::new(detail.entries.clone());
    let own_id = StoredValue::new(id.clone());

    view! {
        <div class="card" id="wc-detail" data-work-context-id=id.clone()>
            <div class="detail-head">
                <h3 id="wc-title" title=wc.name.clone()>{wc.name.clone()}</h3>
                {wc.local_only.then(|| view! { <span class="badge local-only">"local only"</span> })}
            </div>
            <p class="meta">
                {origin_label(&wc.origin)}
                " · "
                {format!("{} session{}", wc.session_count, if wc.session_count == 1 { "" } else { "s" })}
                {wc.last_active_at.as_deref().map(|t| format!(" · last active {}", short_time(t)))}
                {wc.domain_lineage.clone().map(|l| format!(" · {l}"))}
            </p>
            <p class="hint" id="wc-phase">
                {detail
                    .current_phase
                    .clone()
                    .map(|p| format!("Current phase: {p}"))
                    .unwrap_or_else(|| "No phase captured yet.".to_owned())}
            </p>
            {move || error().map(|e| view! { <div class="error" id="wc-error" role="alert">{e}</div> })}

            <h4>"Entities"</h4>
            <div class="chips-line" id="wc-entities">
                {if detail.entities.is_empty() {
                    view! { <span class="hint">"No entities linked yet."</span> }.into_any()
                } else {
                    detail
                        .entities
                        .iter()
                        .map(|e| {
                            let full = match &e.deadline {
                                Some(d) => format!("{} ({}, due {d})", e.canonical_name, e.kind),
                                None => format!("{} ({})", e.canonical_name, e.kind),
                            };
                            let entity = e.entity_id.clone();
                            let label = format!("Unlink {}", e.canonical_name);
                            view! {
                                <span class="chip" title=full data-entity-id=e.entity_id.clone()>
                                    <span class="chip-name">{e.canonical_name.clone()}</span>
                                    <span class="chip-kind">{e.kind.clone()}</span>
                                    <button
                                        class="chip-remove"
                                        aria-label=label.clone()
                                        title=label
                                        on:click=move |_| send(ContextChange::Unlink(entity.clone()))
                                    >
                                        "×"
                                    </button>
                                </span>
                            }
                        })
                        .collect_view()
                        .into_any()
                }}
                <Loaded resource=entities loading="Reading entities…" inline=true let:all>
                    {
                        let linked: Vec<String> =
                            detail.entities.iter().map(|e| e.entity_id.clone()).collect();
                        let options = all
                            .into_iter()
                            .filter(|e| !linked.contains(&e.entity_id))
                            .map(|e| view! { <option value=e.entity_id.clone()>{e.canonical_name.clone()}</option> })
                            .collect_view();
                        view! {
                            <select
                                id="wc-link-entity"
                                aria-label="Link an entity"
                                on:change=move |ev| {
                                    let picked = event_target_value(&ev);
                                    if !picked.is_empty() {
                                        send(ContextChange::Link(picked));
                                    }
                                }
                            >
                                <option value="">"Link an entity…"</option>
                                {options}
                            </select>
                        }
                    }
                </Loaded>
            </div>

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
                                let pattern = if r.kind == "entity_set" {
                                    entity_set_chips(r.clone(), entities, send).into_any()
                                } else {
                                    r.pattern.clone().into_any()
                                };
                                view! {
                                    <tr>
                                        <td>{rule_label(&r.kind)}</td>
                                        <td class="path">{pattern}</td>
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
                    <option value="cwd">"Folder"</option>
                    <option value="session_key">"Session key"</option>
                    <option value="entity_set">"Entities"</option>
                </select>
                {move || {
                    if rule_kind.get() == "entity_set" {
                        entity_picker(entities, picked).into_any()
                    } else {
                        text_input("wc-rule-pattern", "/folder, or a glob over session ids", rule_pattern)
                            .into_any()
                    }
                }}
                <button class="small" id="wc-rule-add" on:click=add_rule>
                    "Add rule"
                </button>
            </div>

            <details class="more" id="wc-manage">
                <summary>"Rename, local only, merge"</summary>
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
                    <Loaded resource=contexts loading="Reading work contexts…" inline=true let:all>
                        {
                            let own = own_id.get_value();
                            view! {
                                <select
                                    id="wc-merge-absorb"
                                    on:change=move |ev| absorb.set(event_target_value(&ev))
                                    prop:value=move || absorb.get()
                                >
                                    <option value="">"Merge another work context into this one…"</option>
                                    {all
                                        .into_iter()
                                        .filter(|c| c.work_context_id != own)
                                        .map(|c| {
                                            view! {
                                                <option value=c.work_context_id.clone()>{c.name.clone()}</option>
                                            }
                                        })
                                        .collect_view()}
                                </select>
                            }
                        }
                    </Loaded>
                    <button class="small" id="wc-merge" on:click=merge>
                        "Merge into this one"
                    </button>
                </div>
            </details>
        </div>

        <ConstellationCard view_read />

        <div class="card log" id="wc-log">
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
            <Loaded resource=view_read loading="Reading the log…" let:c>
                {rest_of_log(entries.get_value(), &c)}
            </Loaded>
        </div>
    }
}

/// The log's entries that the constellation view does not show, grouped by type: older or
/// resolved questions and decisions, session summaries, updates.
fn rest_of_log(entries: Vec<ContinuityEntryRow>, c: &ConstellationView) -> AnyView {
    let shown: std::collections::HashSet<&str> = c
        .open_questions
        .iter()
        .chain(&c.key_decisions)
        .chain(&c.cross_conversation_updates)
        .map(|i| i.entry_id.as_str())
        .chain(c.session_history.iter().map(|s| s.entry_id.as_str()))
        .collect();
    let of_type = |t: &str| {
        entries
            .iter()
            .filter(|e| e.entry_type == t && !shown.contains(e.entry_id.as_str()))
            .cloned()
            .collect::<Vec<_>>()
    };
    let groups = [
        (
            "Open questions",
            "wc-open-questions",
            of_type("open_question"),
        ),
        ("Key decisions", "wc-key-decisions", of_type("key_decision")),
        (
            "Session summaries",
            "wc-summaries",
            of_type("session_summary_ref"),
        ),
        (
            "Cross-conversation updates",
            "wc-updates",
            of_type("cross_conversation_update"),
        ),
    ];
    if groups.iter().all(|(_, _, g)| g.is_empty()) {
        return view! { <p class="hint" id="wc-log-empty">"Everything in the log is in the view above."</p> }
            .into_any();
    }
    view! {
        <p class="hint">"What the view above leaves out: older, resolved or summarised entries."</p>
        {groups
            .into_iter()
            .filter(|(_, _, g)| !g.is_empty())
            .map(|(title, id, g)| entry_group(title, id, g, &c.work_context_id))
            .collect_view()}
    }
    .into_any()
}

/// An origin in words.
fn origin_label(origin: &str) -> &'static str {
    match origin {
        "project" => "Project",
        "named" => "Named",
        "auto" => "Automatic",
        _ => "Work context",
    }
}

/// A rule's kind in words.
fn rule_label(kind: &str) -> &'static str {
    match kind {
        "cwd" => "Folder",
        "session_key" => "Session key",
        "entity_set" => "Entities",
        _ => "Rule",
    }
}

/// An entity-set rule as chips of entity names; removing a chip rewrites the rule without it
/// (and removes the rule with its last entity).
fn entity_set_chips(
    rule: LinkRuleRow,
    entities: LocalResource<Result<Vec<EntityRow>, CommandError>>,
    send: impl Fn(ContextChange) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let ids: Vec<String> = rule
        .pattern
        .split(',')
        .map(|i| i.trim().to_owned())
        .filter(|i| !i.is_empty())
        .collect();
    let ids = StoredValue::new(ids);
    view! {
        <span class="chips-line">
            {move || {
                let names = entity_names(entities);
                ids.get_value()
                    .into_iter()
                    .map(|entity| {
                        let name = names
                            .iter()
                            .find(|e| e.entity_id == entity)
                            .map(|e| e.canonical_name.clone())
                            .unwrap_or_else(|| "unknown entity".to_owned());
                        let rest = ids
                            .get_value()
                            .into_iter()
                            .filter(|i| *i != entity)
                            .collect::<Vec<_>>()
                            .join(",");
                        view! {
                            <span class="chip" title=name.clone() data-entity-id=entity.clone()>
                                <span class="chip-name">{name.clone()}</span>
                                <button
                                    class="chip-remove"
                                    title=format!("Remove {name} from this rule")
                                    aria-label=format!("Remove {name}")
                                    on:click=move |_| {
                                        send(ContextChange::Replace {
                                            rule_id: rule.rule_id,
                                            kind: "entity_set".to_owned(),
                                            pattern: rest.clone(),
                                        })
                                    }
                                >
                                    "×"
                                </button>
                            </span>
                        }
                    })
                    .collect_view()
            }}
        </span>
    }
}

/// The entities read so far, or none while they load or when the read failed.
fn entity_names(entities: LocalResource<Result<Vec<EntityRow>, CommandError>>) -> Vec<EntityRow> {
    entities.get().and_then(Result::ok).unwrap_or_default()
}

/// The picker for a new entity-set rule: a field that suggests entities by name, and the picked
/// ones as removable chips.
fn entity_picker(
    entities: LocalResource<Result<Vec<EntityRow>, CommandError>>,
    picked: RwSignal<Vec<String>>,
) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    // A name typed or chosen from the suggestions is picked as soon as it names an entity.
    let pick = move |text: String| {
        let found = entity_names(entities)
            .into_iter()
            .find(|e| e.canonical_name.eq_ignore_ascii_case(text.trim()));
        if let Some(e) = found {
            picked.update(|p| {
                if !p.contains(&e.entity_id) {
                    p.push(e.entity_id);
                }
            });
            typed.set(String::new());
        } else {
            typed.set(text);
        }
    };
    view! {
        <span class="chips-line" id="wc-rule-entities">
            {move || {
                let names = entity_names(entities);
                picked
                    .get()
                    .into_iter()
                    .map(|entity| {
                        let name = names
                            .iter()
                            .find(|e| e.entity_id == entity)
                            .map(|e| e.canonical_name.clone())
                            .unwrap_or_default();
                        view! {
                            <span class="chip" title=name.clone()>
                                <span class="chip-name">{name.clone()}</span>
                                <button
                                    class="chip-remove"
                                    aria-label=format!("Remove {name}")
                                    on:click=move |_| picked.update(|p| p.retain(|i| *i != entity))
                                >
                                    "×"
                                </button>
                            </span>
                        }
                    })
                    .collect_view()
            }}
            <input
                id="wc-entity-pick"
                type="text"
                list="wc-entity-options"
                placeholder="Entity name"
                prop:value=move || typed.get()
                on:input=move |ev| pick(event_target_value(&ev))
            />
            <datalist id="wc-entity-options">
                {move || {
                    entity_names(entities)
                        .into_iter()
                        .map(|e| view! { <option value=e.canonical_name.clone()>{e.kind.clone()}</option> })
                        .collect_view()
                }}
            </datalist>
        </span>
    }
}

pub(super) fn entry_group(
    title: &'static str,
    id: &'static str,
    entries: Vec<ContinuityEntryRow>,
    work_context_id: &str,
) -> AnyView {
    let count = entries.len();
    view! {
        <h4>{format!("{title} ({count})")}</h4>
        {if entries.is_empty() {
            view! { <p class="hint">"None."</p> }.into_any()
        } else {
            view! { <ul class="entries" id=id>{entries.into_iter().map(|e| entry_item(e, work_context_id.to_owned())).collect_view()}</ul> }
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

/// One entry of the log, with "Open lineage" to the summary its capture wrote it with.
pub(super) fn entry_item(e: ContinuityEntryRow, work_context_id: String) -> impl IntoView {
    let lineage = lineage_link(LineageRequest::Entry {
        entry_id: e.entry_id.clone(),
        work_context_id: Some(work_context_id),
    });
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
                " · "
                {lineage}
            </span>
        </li>
    }
}
