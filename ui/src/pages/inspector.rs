//! Inspector: the brief assemblies the engine recorded (previews from this app and `elnor brief`,
//! deliveries to agents), newest first, and for the selected one the rendered output and every
//! candidate it considered: tier, decision, kind, text, tokens, the reason code with its sentence,
//! and where the candidate came from (session and turn, entry or fact id, work context; a memory
//! directive's id opens it on the Knowledge page).
//!
//! Decisions are told apart by colour and by a `data-decision` attribute, so "in the brief",
//! "cut for budget" and "left out by a rule" never look alike.
//!
//! The list sits left of the selected assembly. Previews (most of what is recorded: Home and every
//! work context preview a brief each time they open) are marked with a dashed border and hidden
//! until "Show previews" is ticked, so the deliveries to agents stand out; an assembly a link
//! opened is shown either way. Work contexts are named, not shown by id, and the long ids of the
//! trace are cut short with a copy button.
//!
//! A line that came from a session has "Show where this came from": it asks the engine for the
//! window of turns behind the line (`lineage_expand`) and opens that session's transcript on the
//! Sessions page at those turns, marked. A line with nothing behind it in a transcript (a fact, a
//! directive, the work context itself) has no such button; when the engine finds no transcript
//! for a line that named a session (a hand-written entry), its reason is shown under the button.
//! Beside it, "Open lineage" shows the summary the line sits in on the Lineage page, with what
//! covers it and what it covers; a line from approved knowledge has it too, knowledge being a node
//! of the lineage.

use std::collections::HashMap;

use elnor_types::{AssemblyDetail, AssemblyRow, LineageRequest, TraceItemRow};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::{Loaded, copy_id, lineage_link, session_link, short_id, short_time};
use crate::nav::use_nav;

/// Assemblies listed at once; older ones are kept by the engine up to its retention setting.
const LISTED: u32 = 100;

#[component]
pub fn InspectorPage() -> impl IntoView {
    let nav = use_nav();
    // A link from Home or a work context names the assembly to open; it is taken once, so coming
    // back to the Inspector later starts from the list.
    let selected = RwSignal::new(nav.take_assembly());
    let generation = RwSignal::new(0u32);
    let assemblies = LocalResource::new(move || {
        generation.track();
        api::assemblies_list(None, Some(LISTED), true)
    });
    let show_previews = RwSignal::new(false);
    // Work context names by id, read once: the list and the trace name contexts, never show ids.
    let names = RwSignal::new(HashMap::<String, String>::new());
    provide_context(ContextNames(names));
    spawn_local(async move {
        if let Ok(rows) = api::work_contexts_list().await {
            names.set(
                rows.into_iter()
                    .map(|r| (r.work_context_id, r.name))
                    .collect(),
            );
        }
    });
    view! {
        <div class="page-head">
            <h2>"Inspector"</h2>
            <div class="page-actions">
                <label class="check">
                    <input
                        id="inspector-show-previews"
                        type="checkbox"
                        prop:checked=move || show_previews.get()
                        on:change=move |ev| show_previews.set(event_target_checked(&ev))
                    />
                    "Show previews"
                </label>
                <button class="small" id="inspector-reload" on:click=move |_| generation.update(|g| *g += 1)>
                    "Reload"
                </button>
            </div>
        </div>
        <p class="hint">
            "Every brief the engine assembles is recorded here with every candidate it considered "
            "and why it is in the brief or not. Previews (Today, a work context's Tier 1 card, "
            <code>"elnor brief --dry-run"</code>
            ") never mark anything delivered."
        </p>
        <div class="inspector-layout">
            <div class="assembly-list">
                <Loaded resource=assemblies loading="Loading assemblies…" let:rows>
                    {assembly_rows(rows, selected, show_previews)}
                </Loaded>
            </div>
            <div class="assembly-view">
                {move || match selected.get() {
                    Some(id) => view! { <AssemblyPanel id /> }.into_any(),
                    None => {
                        view! { <p class="hint">"Pick an assembly to see why each line is in it or not."</p> }
                            .into_any()
                    }
                }}
            </div>
        </div>
    }
}

/// Work context names by id, for the list and the trace.
#[derive(Debug, Clone, Copy)]
struct ContextNames(RwSignal<HashMap<String, String>>);

/// A work context's name, or its id cut short while the names are being read (or when it is gone).
fn context_name(id: &str) -> String {
    use_context::<ContextNames>()
        .and_then(|n| n.0.with(|m| m.get(id).cloned()))
        .unwrap_or_else(|| format!("work context {}", short_id(id)))
}

fn assembly_rows(
    rows: Vec<AssemblyRow>,
    selected: RwSignal<Option<i64>>,
    show_previews: RwSignal<bool>,
) -> AnyView {
    if rows.is_empty() {
        return view! {
            <div class="empty" id="inspector-empty">
                <p>"No brief assemblies yet."</p>
                <p class="hint">
                    "Open Home to preview the brief a fresh session would get, or run "
                    <code>"elnor brief --dry-run"</code>
                    "; agents' SessionStart hooks add theirs as they start."
                </p>
            </div>
        }
        .into_any();
    }
    let all_previews = rows.iter().all(|a| a.delivery == "preview");
    view! {
        {all_previews
            .then(|| {
                view! {
                    <p class="hint" id="inspector-only-previews" class:filtered-out=move || show_previews.get()>
                        "Only previews so far: no agent has been given a brief yet. Tick Show previews to see them."
                    </p>
                }
            })}
        <ul id="inspector-assemblies">
            {rows
                .into_iter()
                .map(|a| {
                    let id = a.assembly_id;
                    let preview = a.delivery == "preview";
                    // A preview shows when previews are asked for, or when it is the one open.
                    let hidden = move || preview && !show_previews.get() && selected.get() != Some(id);
                    let context = a.work_context_id.clone();
                    let label = move || {
                        let name = context
                            .as_deref()
                            .map(context_name)
                            .unwrap_or_else(|| "No work context".to_owned());
                        format!("#{id} · {name}")
                    };
                    let label_title = label.clone();
                    view! {
                        <li data-assembly-id=id data-delivery=a.delivery.clone() class:filtered-out=hidden>
                            <button
                                class="assembly-row"
                                class:preview=preview
                                class:active=move || selected.get() == Some(id)
                                data-key-item=""
                                on:click=move |_| selected.set(Some(id))
                            >
                                <strong title=label_title>{label}</strong>
                                <span class="badges">
                                    <span class=format!("badge delivery-{}", a.delivery)>
                                        {if preview { "preview" } else { "delivered" }}
                                    </span>
                                    {a.stale.then(|| view! { <span class="badge stale">"stale view"</span> })}
                                </span>
                                <span class="meta">
                                    {format!(
                                        "{} · {} · {} / {} tokens",
                                        short_time(&a.created_at),
                                        a.format,
                                        a.total_tokens,
                                        a.budget,
                                    )}
                                </span>
                                <span class="meta counts">
                                    {format!(
                                        "{} included · {} dropped · {} excluded",
                                        a.included,
                                        a.dropped,
                                        a.excluded,
                                    )}
                                </span>
                            </button>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn AssemblyPanel(id: i64) -> impl IntoView {
    let detail = LocalResource::new(move || api::assemblies_get(id));
    view! {
        <Loaded resource=detail loading="Reading the assembly…" let:d>
            <AssemblyView detail=d />
        </Loaded>
    }
}

#[component]
fn AssemblyView(detail: AssemblyDetail) -> impl IntoView {
    let s = detail.summary.clone();
    // "all", or one decision: long traces are easier to read one decision at a time.
    let filter = RwSignal::new("all".to_owned());
    let items = detail.items.clone();
    let assembly_id = s.assembly_id;
    view! {
        <div class="card" id="inspector-detail" data-assembly-id=s.assembly_id>
            <h3>{format!("Assembly #{}", s.assembly_id)}</h3>
            <p class="meta">
                {format!(
                    "{} · {} · {} · work context {} ({})",
                    short_time(&s.created_at),
                    s.delivery,
                    s.format,
                    s.work_context_id.as_deref().map(context_name).unwrap_or_else(|| "none".into()),
                    s.resolution,
                )}
                {s.session_id.clone().map(|id| format!(" · for session {}", short_id(&id)))}
            </p>
            <p id="inspector-tokens">
                {format!(
                    "{} of {} tokens in cards (Tier 1 {}, Tier 2 {}, Tier 3 {}), plus {} around them.",
                    s.total_tokens,
                    s.budget,
                    s.tier_tokens[0],
                    s.tier_tokens[1],
                    s.tier_tokens[2],
                    s.envelope_tokens,
                )}
                {s.stale.then_some(" The work context's view was stale and has been rebuilt since.")}
            </p>
            {(!detail.warnings.is_empty())
                .then(|| {
                    view! {
                        <ul class="warnings">
                            {detail.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}
                        </ul>
                    }
                })}
            <details class="output">
                <summary>"Rendered output"</summary>
                <pre class="brief-text" id="inspector-output">{detail.output.clone()}</pre>
            </details>
        </div>
        <div class="card">
            <h3>"Every candidate"</h3>
            <div class="inline-form">
                <label for="inspector-filter">"Show"</label>
                <select
                    id="inspector-filter"
                    on:change=move |ev| filter.set(event_target_value(&ev))
                    prop:value=move || filter.get()
                >
                    <option value="all">{format!("all {}", items.len())}</option>
                    <option value="included">{format!("included ({})", s.included)}</option>
                    <option value="dropped">{format!("dropped for budget ({})", s.dropped)}</option>
                    <option value="excluded">{format!("excluded by a rule ({})", s.excluded)}</option>
                </select>
            </div>
            <table class="trace" id="inspector-items">
                <colgroup>
                    <col class="c-text" />
                    <col class="c-why" />
                    <col class="c-source" />
                </colgroup>
                <thead>
                    <tr>
                        <th>"Candidate"</th>
                        <th>"Decision and why"</th>
                        <th>"Source"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        let shown = filter.get();
                        items
                            .iter()
                            .filter(|t| shown == "all" || t.decision == shown)
                            .cloned()
                            .map(|t| trace_row(t, assembly_id))
                            .collect_view()
                    }}
                </tbody>
            </table>
        </div>
    }
}

/// A candidate's source id; a memory directive's opens its node on the Knowledge page, where the
/// person can see its history or change it.
fn source_id(id: String, kind: &str) -> AnyView {
    // A work context is named, never shown by its id.
    if id.starts_with("wc_") {
        return view! { <span class="meta source-id" data-source-id=id.clone()>{context_name(&id)}</span> }
            .into_any();
    }
    if kind != "directive" {
        let shown = copy_id(id.clone());
        return view! { <span class="meta source-id" data-source-id=id>{shown}</span> }.into_any();
    }
    let nav = use_nav();
    let (target, label) = (id.clone(), short_id(&id));
    view! {
        <a
            href="#"
            class="meta source-id node-link"
            data-node-id=id.clone()
            title=format!("Open {id} in Knowledge")
            on:click=move |ev| {
                ev.prevent_default();
                nav.open_node(target.clone());
            }
        >
            {label}
        </a>
    }
    .into_any()
}

/// "Show where this came from": reads the window of turns behind the line and opens it in the
/// session's transcript, or says why there is none.
#[component]
fn LineageAction(assembly_id: i64, ordinal: i64) -> impl IntoView {
    let nav = use_nav();
    let refused = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let open = move |_| {
        busy.set(true);
        spawn_local(async move {
            let request = LineageRequest::TraceLine {
                assembly_id,
                ordinal,
            };
            match api::lineage_expand(request).await {
                Ok(window) => nav.open_lineage(window),
                Err(e) => {
                    refused.set(Some(e.message));
                    busy.set(false);
                }
            }
        });
    };
    view! {
        <button
            class="lineage-open"
            data-ordinal=ordinal
            title="Open the turns of the session this line was made from, marked in its transcript"
            prop:disabled=move || busy.get()
            on:click=open
        >
            "Show where this came from"
        </button>
        {move || refused.get().map(|why| view! { <p class="hint lineage-refused" role="status">{why}</p> })}
    }
}

fn trace_row(t: TraceItemRow, assembly_id: i64) -> impl IntoView {
    // Only a line that names a session has turns behind it; the engine finds the window.
    let lineage = t
        .ordinal
        .filter(|_| t.session_id.is_some())
        .map(|ordinal| view! { <LineageAction assembly_id ordinal /> });
    // A line from a session or from a durable node sits in the lineage DAG; the Lineage page
    // resolves which node, or says why there is none.
    let node = t
        .ordinal
        .filter(|_| t.session_id.is_some() || matches!(t.kind.as_str(), "directive" | "node"))
        .map(|ordinal| {
            lineage_link(LineageRequest::TraceLine {
                assembly_id,
                ordinal,
            })
        });
    let class = format!("trace-item decision-{}", t.decision);
    let source = t.source_id.clone();
    let work_context = t.work_context_id.clone();
    view! {
        <tr
            class=class
            data-decision=t.decision.clone()
            data-reason=t.reason.clone()
            data-tier=t.tier
            data-ordinal=t.ordinal
            data-session-id=t.session_id.clone()
        >
            <td>
                <span class="trace-text">{t.text.clone()}</span>
                <span class="trace-meta meta">
                    {format!("Tier {} · {} · {} tokens", t.tier, t.kind, t.tokens)}
                </span>
            </td>
            <td>
                <span class=format!("decision decision-{}", t.decision)>{t.decision.clone()}</span>
                " "
                <code class="trace-reason">{t.reason.clone()}</code>
                <p class="trace-detail">{t.detail.clone()}</p>
            </td>
            <td class="trace-source">
                {t.session_id.clone().map(|id| session_link(id, t.turn_seq))}
                {source.map(|id| source_id(id, &t.kind))}
                {work_context
                    .map(|id| {
                        view! {
                            <span class="meta work-context-id" data-work-context-id=id.clone()>
                                {format!("in {}", context_name(&id))}
                            </span>
                        }
                    })}
                {lineage}
                {node}
            </td>
        </tr>
    }
}
