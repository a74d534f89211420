//! Timeline: what happened, newest first, across everything ELNOR sees: agent sessions, their
//! captures, changes to files in tracked folders, the person's pushes ("I just did X") and
//! promotions to durable knowledge. Filters narrow it by work context, kind and harness over a
//! window of 7, 30 or 90 days.
//!
//! Above the list, a chart of activity per day, stacked by work context, with a legend; the engine
//! sends every day of the window, empty ones too, so a quiet week reads as a gap rather than
//! disappearing. Each item goes where its `target` says: a session opens on the Sessions page, a
//! proposal in Review, a node in Knowledge, a work context on its page, and an observation in a
//! detail pane here (path, old path, title, text, entities and the updates it wrote).

use std::collections::{BTreeMap, BTreeSet};

use elnor_types::{
    ObservationRow, Timeline, TimelineDay, TimelineItem, TimelineKind, TimelineRequest,
    TimelineTarget,
};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::Loaded;
use crate::components::short_time;
use crate::nav::{Nav, use_nav};

/// How the filter names each kind.
fn kind_label(k: TimelineKind) -> &'static str {
    match k {
        TimelineKind::Session => "Sessions",
        TimelineKind::Capture => "Captures",
        TimelineKind::Observation => "File changes",
        TimelineKind::Push => "Pushes",
        TimelineKind::Promotion => "Promotions",
    }
}

/// The windows offered, in days.
const WINDOWS: &[u32] = &[7, 30, 90];

/// The window a fresh page shows: the engine's default.
const DEFAULT_WINDOW: u32 = 30;

/// Colours of the chart's work contexts, in legend order (the busiest first); more contexts than
/// colours reuse them, and the legend still tells them apart by name.
const PALETTE: &[&str] = &[
    "#145e6e", "#d9822b", "#5b4a99", "#2f7d4a", "#b8465f", "#3f7fbf", "#9a7b00", "#6b8e23",
];

/// Activity outside any work context.
const OUTSIDE: &str = "#b8c2c4";

/// Height of the chart's bars area, in SVG units.
const CHART_H: f64 = 120.0;

/// Width of the chart's drawing, in SVG units.
const CHART_W: f64 = 560.0;

#[component]
pub fn TimelinePage() -> impl IntoView {
    let nav = use_nav();
    let activity = use_activity();
    // A link elsewhere (Home's recent observations, a push's outcome) may name an observation to
    // show; it is taken once, like the other pages' targets.
    let selected = RwSignal::new(nav.take_observation());
    // The push dialog can open over this very page and link back to it; the page is not mounted
    // again then (see `Nav::open_observation`), so a target set while it is shown is taken here.
    Effect::new(move |_| {
        if let Some(id) = nav.take_observation() {
            selected.set(Some(id));
        }
    });
    let context = RwSignal::new(String::new());
    let kinds = RwSignal::new(TimelineKind::ALL.into_iter().collect::<BTreeSet<_>>());
    let harness = RwSignal::new(String::new());
    let days = RwSignal::new(DEFAULT_WINDOW);
    // Bumped by "Refresh": file changes arrive from the watcher while the page is open.
    let generation = RwSignal::new(0u32);
    let contexts = LocalResource::new(api::work_contexts_list);
    let timeline = LocalResource::new(move || {
        // A push made in the dialog lands here at once.
        activity.0.track();
        generation.track();
        let kinds = kinds.get();
        let request = TimelineRequest {
            work_context_id: Some(context.get()).filter(|c| !c.is_empty()),
            // Every kind ticked is the same as none named, and lets the engine add kinds later.
            kinds: if kinds.len() == TimelineKind::ALL.len() {
                Vec::new()
            } else {
                kinds.iter().copied().collect()
            },
            harness: Some(harness.get()).filter(|h| !h.is_empty()),
            days: days.get(),
            limit: 0,
        };
        async move {
            // No kind ticked: nothing to ask for (an empty list would mean every kind).
            if kinds.is_empty() {
                Ok(None)
            } else {
                api::timeline_get(request).await.map(Some)
            }
        }
    });
    view! {
        <h2>"Timeline"</h2>
        <p class="hint">
            "Everything ELNOR saw, newest first: agent sessions and their captures, changes in your "
            "tracked folders, what you pushed, and proposals approved into durable knowledge."
        </p>
        <div class="filters timeline-filters">
            <Loaded resource=contexts loading="Loading work contexts…" inline=true let:list>
                {view! {
                    <select
                        id="timeline-context"
                        on:change=move |ev| context.set(event_target_value(&ev))
                        prop:value=move || context.get()
                    >
                        <option value="">"All work contexts"</option>
                        {list
                            .into_iter()
                            .map(|wc| {
                                view! {
                                    <option value=wc.work_context_id.clone()>{wc.name.clone()}</option>
                                }
                            })
                            .collect_view()}
                    </select>
                }}
            </Loaded>
            <select
                id="timeline-harness"
                title="Sessions and captures of one harness"
                on:change=move |ev| harness.set(event_target_value(&ev))
            >
                <option value="">"All harnesses"</option>
                <option value="claude_code">"Claude Code"</option>
                <option value="codex">"Codex"</option>
                <option value="openclaw">"OpenClaw / pi"</option>
            </select>
            <span class="segmented" role="group" aria-label="Window">
                {WINDOWS
                    .iter()
                    .map(|&d| {
                        view! {
                            <button
                                class="small"
                                id=format!("timeline-days-{d}")
                                class:active=move || days.get() == d
                                on:click=move |_| days.set(d)
                            >
                                {format!("{d} days")}
                            </button>
                        }
                    })
                    .collect_view()}
            </span>
            <button class="small" id="timeline-refresh" on:click=move |_| generation.update(|g| *g += 1)>
                "Refresh"
            </button>
        </div>
        <div class="chips" id="timeline-kinds" role="group" aria-label="Kinds">
            {TimelineKind::ALL
                .into_iter()
                .map(|kind| {
                    let label = kind_label(kind);
                    let name = kind.as_str();
                    view! {
                        <label class="chip" class:on=move || kinds.with(|k| k.contains(&kind))>
                            <input
                                type="checkbox"
                                id=format!("timeline-kind-{name}")
                                prop:checked=move || kinds.with(|k| k.contains(&kind))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    kinds
                                        .update(|k| {
                                            if on {
                                                k.insert(kind);
                                            } else {
                                                k.remove(&kind);
                                            }
                                        });
                                }
                            />
                            {label}
                        </label>
                    }
                })
                .collect_view()}
        </div>
        <div class="timeline-layout" class:with-detail=move || selected.with(Option::is_some)>
            <div class="timeline-main">
                <Loaded resource=timeline loading="Reading the timeline…" let:t>
                    {match t {
                        Some(t) => timeline_view(t, days.get_untracked(), selected, nav).into_any(),
                        None => {
                            view! {
                                <p class="hint" id="timeline-no-kinds">
                                    "Tick at least one kind above to see what happened."
                                </p>
                            }
                                .into_any()
                        }
                    }}
                </Loaded>
            </div>
            {move || selected.get().map(|id| view! { <ObservationPane id selected nav /> })}
        </div>
    }
}

fn timeline_view(
    t: Timeline,
    window: u32,
    selected: RwSignal<Option<i64>>,
    nav: Nav,
) -> impl IntoView {
    let n = t.items.len();
    let summary = format!(
        "{n} item{} in the past {window} days{}",
        if n == 1 { "" } else { "s" },
        if t.truncated {
            ": only the newest are listed (the chart counts them all); narrow the filters or the \
             window to see older ones."
        } else {
            "."
        }
    );
    let list = if t.items.is_empty() {
        view! {
            <div class="empty" id="timeline-empty">
                <p>{format!("Nothing happened in the past {window} days under these filters.")}</p>
                <p class="hint">
                    "Sessions appear after an ingest on the Sessions page, and their captures with "
                    "them; what you did outside an agent, after you push it from Home (or "
                    "Ctrl+Shift+P anywhere); file changes, once you track a folder under Settings → "
                    "Tracked folders. Widening the window or the filters may show older items."
                </p>
            </div>
        }
        .into_any()
    } else {
        item_list(t.items, selected, nav).into_any()
    };
    view! {
        <div class="card" id="timeline-chart-card">
            {activity_chart(&t.days)}
        </div>
        <p class="meta" id="timeline-summary">{summary}</p>
        {list}
    }
}

/// Legend order: the contexts with the most activity in the window first, then by name; the
/// colour follows from the position.
fn legend(days: &[TimelineDay]) -> Vec<(Option<String>, String, u32, &'static str)> {
    let mut totals: BTreeMap<Option<String>, (String, u32)> = BTreeMap::new();
    for c in days.iter().flat_map(|d| &d.counts) {
        let slot = totals
            .entry(c.work_context_id.clone())
            .or_insert_with(|| (c.name.clone(), 0));
        slot.1 += c.count;
    }
    let mut rows: Vec<_> = totals
        .into_iter()
        .map(|(id, (name, n))| (id, name, n))
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    let mut next = 0;
    rows.into_iter()
        .map(|(id, name, n)| {
            let colour = if id.is_none() {
                OUTSIDE
            } else {
                next += 1;
                PALETTE[(next - 1) % PALETTE.len()]
            };
            (id, name, n, colour)
        })
        .collect()
}

/// Activity per day as SVG bars stacked by work context, one column per day of the window.
fn activity_chart(days: &[TimelineDay]) -> impl IntoView + use<> {
    let legend = legend(days);
    let colour_of =
        |id: &Option<String>| legend.iter().find(|l| &l.0 == id).map_or(OUTSIDE, |l| l.3);
    let max = days
        .iter()
        .map(|d| d.counts.iter().map(|c| c.count).sum::<u32>())
        .max()
        .unwrap_or(0)
        .max(1);
    // A fixed drawing width, the columns sharing it: the SVG scales as a whole (text included)
    // to the card's width, so 7 days get wide bars and 90 narrow ones, never stretched text.
    let left = 26.0;
    let slot = (CHART_W - left) / days.len().max(1) as f64;
    let bar = slot * 0.75;
    let width = CHART_W;
    let scale = CHART_H / f64::from(max);
    let columns = days
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let x = left + slot * i as f64;
            let total: u32 = d.counts.iter().map(|c| c.count).sum();
            // Stacked from the baseline up in legend order, so each context keeps its place.
            let mut stack: Vec<_> = d.counts.iter().collect();
            stack.sort_by_key(|c| legend.iter().position(|l| l.0 == c.work_context_id));
            let mut top = CHART_H;
            let rects = stack
                .into_iter()
                .filter(|c| c.count > 0)
                .map(|c| {
                    let h = f64::from(c.count) * scale;
                    top -= h;
                    view! {
                        <rect
                            class="chart-bar"
                            x=format!("{x:.1}")
                            y=format!("{top:.2}")
                            width=format!("{bar:.2}")
                            height=format!("{h:.2}")
                            fill=colour_of(&c.work_context_id)
                            data-work-context=c.name.clone()
                            data-count=c.count.to_string()
                        >
                            <title>{format!("{} · {}: {}", d.day, c.name, c.count)}</title>
                        </rect>
                    }
                })
                .collect_view();
            view! {
                <g class="chart-day" data-day=d.day.clone() data-total=total.to_string()>
                    <rect
                        class="chart-slot"
                        x=format!("{x:.1}")
                        y="0"
                        width=format!("{bar:.2}")
                        height=format!("{CHART_H}")
                    >
                        <title>{format!("{}: {total} item{}", d.day, if total == 1 { "" } else { "s" })}</title>
                    </rect>
                    {rects}
                </g>
            }
        })
        .collect_view();
    let first = days.first().map(|d| d.day.clone()).unwrap_or_default();
    let last = days.last().map(|d| d.day.clone()).unwrap_or_default();
    // Each swatch is drawn, not a styled span: the CSP allows no inline styles.
    let legend_items = legend
        .iter()
        .map(|(_, name, n, colour)| {
            view! {
                <li>
                    <svg class="swatch" viewBox="0 0 10 10" aria-hidden="true">
                        <rect x="0" y="0" width="10" height="10" rx="2" fill=*colour />
                    </svg>
                    {name.clone()}
                    <span class="meta">{format!(" {n}")}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <p class="meta chart-caption">"Activity per day (UTC days), stacked by work context"</p>
        <svg
            id="timeline-chart"
            class="activity-chart"
            viewBox=format!("0 0 {width:.0} {}", CHART_H + 18.0)
            role="img"
            aria-label="Activity per day, stacked by work context"
        >
            <text class="axis" x="0" y="11">{max.to_string()}</text>
            <text class="axis" x="0" y=format!("{CHART_H}")>"0"</text>
            <line class="axis-line" x1=format!("{left}") x2=format!("{width:.0}") y1=format!("{CHART_H}") y2=format!("{CHART_H}") />
            {columns}
            <text class="axis" x=format!("{left}") y=format!("{}", CHART_H + 15.0)>{first}</text>
            <text class="axis" x=format!("{width:.0}") y=format!("{}", CHART_H + 15.0) text-anchor="end">{last}</text>
        </svg>
        {if legend.is_empty() {
            view! { <p class="hint" id="timeline-legend">"No activity in this window."</p> }.into_any()
        } else {
            view! { <ul class="legend" id="timeline-legend">{legend_items}</ul> }.into_any()
        }}
    }
}

/// The items, newest first, under a heading per day.
fn item_list(items: Vec<TimelineItem>, selected: RwSignal<Option<i64>>, nav: Nav) -> impl IntoView {
    let mut day = String::new();
    let rows = items
        .into_iter()
        .map(|item| {
            let this_day = item.at.get(..10).unwrap_or_default().to_owned();
            let head = (this_day != day).then(|| {
                day = this_day.clone();
                view! { <li class="timeline-day-head">{this_day}</li> }
            });
            view! {
                {head}
                {item_row(item, selected, nav)}
            }
        })
        .collect_view();
    view! { <ul class="timeline-items" id="timeline-items">{rows}</ul> }
}

fn item_row(item: TimelineItem, selected: RwSignal<Option<i64>>, nav: Nav) -> impl IntoView {
    let time = short_time(&item.at)
        .get(11..)
        .unwrap_or_default()
        .to_owned();
    let observation = match &item.target {
        Some(TimelineTarget::Observation { observation_id }) => Some(*observation_id),
        _ => None,
    };
    // Where the item leads, as `to:id` (`session:hend-1`, `proposal:3`, `observation:7`), so that
    // whatever drives the page (the e2e tests) can find an item by what it opens.
    let data_target = item.target.as_ref().map(|t| match t {
        TimelineTarget::Session { session_id } => format!("session:{session_id}"),
        TimelineTarget::Observation { observation_id } => format!("observation:{observation_id}"),
        TimelineTarget::Proposal { proposal_id } => format!("proposal:{proposal_id}"),
        TimelineTarget::Node { node_id } => format!("node:{node_id}"),
        TimelineTarget::WorkContext { work_context_id } => {
            format!("work_context:{work_context_id}")
        }
    });
    let target = item.target.clone();
    let clickable = target.is_some();
    let go = move |_| match target.clone() {
        Some(TimelineTarget::Session { session_id }) => nav.open_session(session_id),
        Some(TimelineTarget::Proposal { proposal_id }) => nav.open_proposal(proposal_id),
        Some(TimelineTarget::Node { node_id }) => nav.open_node(node_id),
        Some(TimelineTarget::WorkContext { work_context_id }) => {
            nav.open_work_context(work_context_id)
        }
        Some(TimelineTarget::Observation { observation_id }) => selected.set(Some(observation_id)),
        None => {}
    };
    let mut meta: Vec<String> = Vec::new();
    meta.extend(item.work_context_name.clone());
    meta.extend(item.harness.as_deref().map(|h| h.replace('_', " ")));
    view! {
        <li
            class="timeline-item"
            class:clickable=clickable
            class:active=move || observation.is_some() && selected.get() == observation
            data-kind=item.kind.as_str()
            data-observation-id=observation.map(|id| id.to_string())
            data-target=data_target
            on:click=go
        >
            <span class="meta timeline-time">{time}</span>
            <span class=format!("badge timeline-kind kind-{}", item.kind.as_str())>{item.kind.as_str()}</span>
            <span class="timeline-text">
                <span class="timeline-title">{item.title.clone()}</span>
                {item.detail.clone().map(|d| view! { <span class="timeline-detail">{d}</span> })}
                {(!meta.is_empty()).then(|| view! { <span class="meta">{meta.join(" · ")}</span> })}
            </span>
        </li>
    }
}

/// One observation in full, beside the list.
#[component]
fn ObservationPane(id: i64, selected: RwSignal<Option<i64>>, nav: Nav) -> impl IntoView {
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

fn observation_view(o: ObservationRow, nav: Nav) -> impl IntoView {
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
