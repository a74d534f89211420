//! Inspector: the brief assemblies the engine recorded (previews from this app and `elnor brief`,
//! deliveries to agents), newest first, and for the selected one the rendered output and every
//! candidate it considered: tier, decision, kind, text, tokens, the reason code with its sentence,
//! and where the candidate came from (session and turn, entry or fact id, work context; a memory
//! directive's id opens it on the Knowledge page).
//!
//! Decisions are told apart by colour and by a `data-decision` attribute, so "in the brief",
//! "cut for budget" and "left out by a rule" never look alike.

use elnor_types::{AssemblyDetail, AssemblyRow, TraceItemRow};
use leptos::prelude::*;

use crate::api;
use crate::components::{Loaded, session_link, short_time};
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
    view! {
        <h2>"Inspector"</h2>
        <p class="hint">
            "Every brief the engine assembles is recorded here with every candidate it considered "
            "and why it is in the brief or not. Previews (Home, a work context's Tier 1 card, "
            <code>"elnor brief --dry-run"</code>
            ") never mark anything delivered."
        </p>
        <div class="inspector-layout">
            <div class="assembly-list">
                <button class="small" id="inspector-reload" on:click=move |_| generation.update(|g| *g += 1)>
                    "Reload"
                </button>
                <Loaded resource=assemblies loading="Loading assemblies…" let:rows>
                    {assembly_rows(rows, selected)}
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

fn assembly_rows(rows: Vec<AssemblyRow>, selected: RwSignal<Option<i64>>) -> AnyView {
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
    view! {
        <ul id="inspector-assemblies">
            {rows
                .into_iter()
                .map(|a| {
                    let id = a.assembly_id;
                    view! {
                        <li data-assembly-id=id data-delivery=a.delivery.clone()>
                            <button
                                class="assembly-row"
                                class:active=move || selected.get() == Some(id)
                                on:click=move |_| selected.set(Some(id))
                            >
                                <strong>
                                    {format!("#{id} · {}", a.work_context_id.clone().unwrap_or_else(|| "no work context".into()))}
                                </strong>
                                <span class="badges">
                                    <span class=format!("badge delivery-{}", a.delivery)>{a.delivery.clone()}</span>
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
    view! {
        <div class="card" id="inspector-detail" data-assembly-id=s.assembly_id>
            <h3>{format!("Assembly #{}", s.assembly_id)}</h3>
            <p class="meta">
                {format!(
                    "{} · {} · {} · work context {} ({})",
                    short_time(&s.created_at),
                    s.delivery,
                    s.format,
                    s.work_context_id.clone().unwrap_or_else(|| "none".into()),
                    s.resolution,
                )}
                {s.session_id.clone().map(|id| format!(" · for session {id}"))}
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
                    <col class="c-tier" />
                    <col class="c-decision" />
                    <col class="c-kind" />
                    <col class="c-text" />
                    <col class="c-tokens" />
                    <col class="c-why" />
                    <col class="c-source" />
                </colgroup>
                <thead>
                    <tr>
                        <th>"Tier"</th>
                        <th>"Decision"</th>
                        <th>"Kind"</th>
                        <th>"Text"</th>
                        <th class="n">"Tokens"</th>
                        <th>"Why"</th>
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
                            .map(trace_row)
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
    if kind != "directive" {
        return view! { <span class="meta source-id">{id}</span> }.into_any();
    }
    let nav = use_nav();
    let (target, label) = (id.clone(), id.clone());
    view! {
        <a
            href="#"
            class="meta source-id node-link"
            data-node-id=id
            title="open in Knowledge"
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

fn trace_row(t: TraceItemRow) -> impl IntoView {
    let class = format!("trace-item decision-{}", t.decision);
    let source = t.source_id.clone();
    let work_context = t.work_context_id.clone();
    view! {
        <tr class=class data-decision=t.decision.clone() data-reason=t.reason.clone() data-tier=t.tier>
            <td class="n">{t.tier}</td>
            <td>
                <span class=format!("decision decision-{}", t.decision)>{t.decision.clone()}</span>
            </td>
            <td>{t.kind.clone()}</td>
            <td class="trace-text">{t.text.clone()}</td>
            <td class="n">{t.tokens}</td>
            <td>
                <code class="trace-reason">{t.reason.clone()}</code>
                <p class="trace-detail">{t.detail.clone()}</p>
            </td>
            <td class="trace-source">
                {t.session_id.clone().map(|id| session_link(id, t.turn_seq))}
                {source.map(|id| source_id(id, &t.kind))}
                {work_context.map(|id| view! { <span class="meta work-context-id">{format!("in {id}")}</span> })}
            </td>
        </tr>
    }
}
