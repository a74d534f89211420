//! Work contexts: the list (most recently active first, with a filter box that hides rows in
//! place so hundreds of contexts stay fast; name, origin, local-only, sessions, last activity,
//! rules), a form that creates a
//! named context with its link rules, and the selected context's rules, entities and continuity
//! log, grouped by what the entries say: current phase, open questions, key decisions, session
//! summaries and cross-conversation updates. Below them, every entity of the graph, with a form
//! to add one by hand.
//!
//! Between the context and its log sits its constellation view (CSA §4): where the work stands as
//! the brief sees it (phase, session history, open questions, decisions, updates, what the view
//! left out) and the Tier 1 card a fresh session in this context would get now.
//!
//! Questions and decisions captured without the model came from the heuristic detectors; they
//! carry a "heuristic · reduced confidence" badge so nobody mistakes them for the model's reading.

use elnor_types::{
    ConstellationItemRow, ConstellationView, ContinuityEntryRow, CreateEntityRequest,
    CreateWorkContextRequest, EditEntityRequest, EditWorkContextRequest, WorkContextDetail,
    WorkContextRow,
};
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::components::{session_link, short_time};
use crate::nav::use_nav;

#[component]
pub fn ContextsPage() -> impl IntoView {
    // Bumped after every change so the list and the open context reload.
    let generation = RwSignal::new(0u32);
    // A link elsewhere (a Timeline item) may name the context to open; it is taken once, so coming
    // back later starts from the list.
    let nav = use_nav();
    let selected = RwSignal::new(nav.take_work_context());
    let contexts = LocalResource::new(move || {
        generation.track();
        api::list_work_contexts()
    });
    let filter = RwSignal::new(String::new());
    view! {
        <h2>"Work contexts"</h2>
        <CreateContextCard generation selected />
        <div class="contexts-layout">
            <div class="context-list">
                <input
                    id="context-filter"
                    class="context-filter"
                    type="search"
                    placeholder="Filter by name, folder or id"
                    prop:value=move || filter.get()
                    on:input=move |ev| filter.set(event_target_value(&ev))
                />
                <Loaded resource=contexts loading="Loading work contexts…" let:rows>
                    {context_rows(rows, selected, filter)}
                </Loaded>
            </div>
            <div class="context-view">
                {move || match selected.get() {
                    Some(id) => view! { <ContextDetail id generation /> }.into_any(),
                    None => {
                        view! {
                            <p class="hint">"Pick a work context to see its rules and its log."</p>
                        }
                            .into_any()
                    }
                }}
            </div>
        </div>
        <EntitiesCard generation />
    }
}

/// Whether a row matches the filter text: its name, id or a rule's pattern holds every word.
fn matches_filter(wc: &WorkContextRow, filter: &str) -> bool {
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

fn context_rows(
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
fn CreateContextCard(
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
            let wc = api::create_work_context(request)
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

#[component]
fn ContextDetail(id: String, generation: RwSignal<u32>) -> impl IntoView {
    let detail = LocalResource::new({
        let id = id.clone();
        move || {
            generation.track();
            api::get_work_context(id.clone())
        }
    });
    view! {
        <Loaded resource=detail loading="Reading the work context…" let:d>
            {view! { <ContextView detail=d generation /> }}
        </Loaded>
    }
}

/// A change to the open work context.
#[derive(Debug, Clone)]
enum ContextChange {
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
fn ContextView(detail: WorkContextDetail, generation: RwSignal<u32>) -> impl IntoView {
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
                        api::add_link_rule(id, kind, pattern).await
                    }
                    ContextChange::RemoveRule(rule_id) => api::remove_link_rule(id, rule_id).await,
                    ContextChange::Edit { name, local_only } => {
                        let request = EditWorkContextRequest {
                            work_context_id: id,
                            name,
                            local_only,
                        };
                        api::edit_work_context(request).await
                    }
                    ContextChange::Absorb(other) => {
                        let merged = api::merge_work_contexts(id, other).await;
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

/// The work context's constellation view and its Tier 1 card. Reading it assembles a preview
/// brief (recorded for the Inspector), so the card shown is exactly what a session would get.
#[component]
fn ConstellationCard(id: String, generation: RwSignal<u32>) -> impl IntoView {
    let view_read = LocalResource::new(move || {
        generation.track();
        api::constellation_get(id.clone())
    });
    view! {
        <div class="card" id="wc-constellation">
            <h3>"Constellation"</h3>
            <Loaded resource=view_read loading="Reading the constellation view…" let:c>
                {view! { <ConstellationBody c /> }}
            </Loaded>
        </div>
    }
}

#[component]
fn ConstellationBody(c: ConstellationView) -> impl IntoView {
    let nav = use_nav();
    let assembly = c.tier1_assembly_id;
    let excluded = c.excluded.len();
    view! {
        <p class="meta" id="constellation-meta">
            {format!(
                "View as of {} · window of {} session(s), {} in the last 30 days",
                c.as_of,
                c.effective_window,
                c.sessions_in_last_30_days,
            )}
            {c
                .stale
                .then(|| {
                    view! {
                        <span
                            class="badge stale"
                            id="constellation-stale"
                            title="The log changed since this view was built; it is shown as is and rebuilt now. Reopen the context to see the new one."
                        >
                            "stale"
                        </span>
                    }
                })}
            {c.local_only.then(|| view! { <span class="badge local-only">"local only"</span> })}
        </p>
        <h4>"Phase"</h4>
        <p id="constellation-phase">{c.active_work_phase.clone()}</p>

        <h4>{format!("Session history ({})", c.session_history.len())}</h4>
        {if c.session_history.is_empty() {
            view! { <p class="hint">"No captured sessions in the window."</p> }.into_any()
        } else {
            view! {
                <ul class="entries" id="constellation-sessions">
                    {c
                        .session_history
                        .iter()
                        .map(|s| {
                            view! {
                                <li class="entry" data-entry-id=s.entry_id.clone()>
                                    <span class="date">{short_time(&s.last_activity_at)}</span>
                                    " "
                                    <span class="headline">{s.line.clone()}</span>
                                    <span class="meta">
                                        {session_link(s.source_session_id.clone(), s.turn_seq)}
                                        {format!(" · {} tokens", s.tokens)}
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        }}
        {constellation_group("Open questions", "constellation-questions", c.open_questions.clone())}
        {constellation_group("Key decisions", "constellation-decisions", c.key_decisions.clone())}
        {constellation_group(
            "Cross-conversation updates",
            "constellation-updates",
            c.cross_conversation_updates.clone(),
        )}
        {(!c.goals.is_empty() || !c.obligations.is_empty())
            .then(|| {
                view! {
                    <h4>"Goals and obligations"</h4>
                    <ul class="entries" id="constellation-nodes">
                        {c
                            .goals
                            .iter()
                            .chain(&c.obligations)
                            .map(|n| {
                                view! {
                                    <li class="entry">
                                        <span class="headline">{n.text.clone()}</span>
                                        <span class="meta">
                                            {n.kind.clone()}
                                            {n.due_at.clone().map(|d| format!(" · due {d}"))}
                                        </span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
            })}
        <h4 id="constellation-excluded-count">{format!("Left out of the view ({excluded})")}</h4>
        {(excluded > 0)
            .then(|| {
                view! {
                    <details id="constellation-excluded">
                        <summary>"Why each was left out"</summary>
                        <ul class="entries">
                            {c
                                .excluded
                                .iter()
                                .map(|x| {
                                    view! {
                                        <li class="entry" data-reason=x.reason.clone()>
                                            <span class="headline">{x.text.clone()}</span>
                                            <code>{x.reason.clone()}</code>
                                            <p class="detail">{x.detail.clone()}</p>
                                        </li>
                                    }
                                })
                                .collect_view()}
                        </ul>
                    </details>
                }
            })}

        <h4>"Tier 1 card a fresh session would get now"</h4>
        {match c.tier1.clone() {
            Some(card) => {
                view! {
                    <div id="constellation-tier1" data-tokens=card.tokens>
                        <p class="meta" id="constellation-tier1-tokens">
                            {format!("{} of {} tokens", card.tokens, c.tier1_cap)}
                        </p>
                        <pre class="brief-text">
                            {card.lines.iter().map(|l| format!("{}\n", l.text)).collect::<String>()}
                        </pre>
                    </div>
                }
                    .into_any()
            }
            None => {
                view! {
                    <p class="hint" id="constellation-tier1-absent">
                        {format!(
                            "No Tier 1 card: {}.",
                            c.tier1_absent_reason.clone().unwrap_or_default(),
                        )}
                    </p>
                }
                    .into_any()
            }
        }}
        <p>
            <a
                href="#"
                id="constellation-why"
                on:click=move |ev| {
                    ev.prevent_default();
                    nav.open_assembly(assembly);
                }
            >
                "Why?"
            </a>
            <span class="meta">{format!(" Preview assembly #{assembly} in the Inspector.")}</span>
        </p>
    }
}

fn constellation_group(
    title: &'static str,
    id: &'static str,
    items: Vec<ConstellationItemRow>,
) -> AnyView {
    let count = items.len();
    view! {
        <h4>{format!("{title} ({count})")}</h4>
        {if items.is_empty() {
            view! { <p class="hint">"None."</p> }.into_any()
        } else {
            view! {
                <ul class="entries" id=id>
                    {items
                        .into_iter()
                        .map(|i| {
                            view! {
                                <li class="entry" data-entry-id=i.entry_id.clone()>
                                    <span class="headline">{i.text.clone()}</span>
                                    {i.reduced_confidence.then(heuristic_badge)}
                                    {i.detail.clone().map(|d| view! { <p class="detail">{d}</p> })}
                                    <span class="meta">
                                        {format!("{} · ", short_time(&i.captured_at))}
                                        {session_link(i.source_session_id.clone(), i.turn_seq)}
                                        {format!(" · {} tokens", i.tokens)}
                                    </span>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            }
                .into_any()
        }}
    }
    .into_any()
}

fn entry_group(title: &'static str, id: &'static str, entries: Vec<ContinuityEntryRow>) -> AnyView {
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
fn heuristic_badge() -> impl IntoView {
    view! {
        <span
            class="badge heuristic"
            title="Found by the heuristic detectors, not by the model: check it before relying on it."
        >
            "heuristic · reduced confidence"
        </span>
    }
}

fn entry_item(e: ContinuityEntryRow) -> impl IntoView {
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

/// Every entity of the graph and a form to add one. Capture creates most entities; adding one by
/// hand lets resolution recognise a name before any session has mentioned it.
/// A change to the entities.
#[derive(Debug, Clone)]
enum EntityChange {
    Create(CreateEntityRequest),
    Edit(EditEntityRequest),
    Merge { keep: String, absorb: String },
}

#[component]
fn EntitiesCard(generation: RwSignal<u32>) -> impl IntoView {
    let entities = LocalResource::new(move || {
        generation.track();
        api::list_entities(None)
    });
    let kind = RwSignal::new("project".to_owned());
    let name = RwSignal::new(String::new());
    let aliases = RwSignal::new(String::new());
    let target = RwSignal::new(String::new());
    let new_name = RwSignal::new(String::new());
    let new_alias = RwSignal::new(String::new());
    let absorb = RwSignal::new(String::new());
    let cleared = move || {
        new_name.set(String::new());
        new_alias.set(String::new());
        absorb.set(String::new());
    };
    // Creating, editing and merging entities share one action: one error line under the card,
    // and every success reloads the list and empties the fields it used.
    let change = Action::new_local(move |change: &EntityChange| {
        let change = change.clone();
        async move {
            match change {
                EntityChange::Create(request) => {
                    api::create_entity(request).await.map_err(|e| e.message)?;
                    name.set(String::new());
                    aliases.set(String::new());
                }
                EntityChange::Edit(request) => {
                    api::edit_entity(request).await.map_err(|e| e.message)?;
                    cleared();
                }
                EntityChange::Merge { keep, absorb } => {
                    api::merge_entities(keep, absorb)
                        .await
                        .map_err(|e| e.message)?;
                    cleared();
                }
            }
            generation.update(|g| *g += 1);
            Ok::<(), String>(())
        }
    });
    let send = move |c: EntityChange| {
        change.clear();
        change.dispatch_local(c);
    };
    let error = move || change.value().get().and_then(Result::err);
    let save_edit = move |_| {
        send(EntityChange::Edit(EditEntityRequest {
            entity_id: target.get_untracked().trim().to_owned(),
            canonical_name: Some(new_name.get_untracked()),
            add_aliases: Some(new_alias.get_untracked().trim().to_owned())
                .filter(|a| !a.is_empty())
                .into_iter()
                .collect(),
            ..EditEntityRequest::default()
        }))
    };
    let merge = move |_| {
        send(EntityChange::Merge {
            keep: target.get_untracked().trim().to_owned(),
            absorb: absorb.get_untracked().trim().to_owned(),
        })
    };
    let create = move |_| {
        send(EntityChange::Create(CreateEntityRequest {
            kind: kind.get_untracked(),
            canonical_name: name.get_untracked(),
            aliases: aliases
                .get_untracked()
                .split(',')
                .map(|a| a.trim().to_owned())
                .filter(|a| !a.is_empty())
                .collect(),
            deadline: None,
        }))
    };
    view! {
        <div class="card">
            <h3>"Entities"</h3>
            <Loaded resource=entities loading="Loading entities…" let:list>
                {if list.is_empty() {
                    return view! { <p class="hint">"No entities yet."</p> }.into_any();
                }
                view! {
                    <ul class="entities" id="entity-list">
                        {list
                            .into_iter()
                            .map(|e| {
                                view! {
                                    <li>
                                        <strong>{e.canonical_name}</strong>
                                        <span class="meta">
                                            {format!(" {} · {}", e.kind, e.entity_id)}
                                            {(!e.aliases.is_empty())
                                                .then(|| format!(" · also {}", e.aliases.join(", ")))}
                                        </span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
                    .into_any()}
            </Loaded>
            <div class="inline-form">
                {text_input("entity-kind", "kind, e.g. project", kind)}
                {text_input("entity-name", "Name", name)}
                {text_input("entity-aliases", "Aliases, separated by commas (optional)", aliases)}
                <button class="small" id="entity-create" on:click=create>
                    "Add entity"
                </button>
            </div>
            <div class="inline-form">
                {text_input("entity-target", "Entity id to change", target)}
                {text_input("entity-new-name", "New name (optional)", new_name)}
                {text_input("entity-new-alias", "Add an alias (optional)", new_alias)}
                <button class="small" id="entity-save" on:click=save_edit>
                    "Save"
                </button>
                {text_input("entity-absorb", "Entity id to merge into it", absorb)}
                <button class="small" id="entity-merge" on:click=merge>
                    "Merge"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" role="alert">{e}</div> })}
        </div>
    }
}

/// A text input bound both ways to `value`.
fn text_input(
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
