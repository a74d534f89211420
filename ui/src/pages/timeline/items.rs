//! The timeline's items, newest first, each linking to what it names (a session, a proposal, a
//! node, a work context, an observation).

use elnor_types::{TIMELINE_ALL_DAYS, Timeline, TimelineItem, TimelineTarget};
use leptos::prelude::*;

use super::chart::activity_chart;
use crate::components::{harness_name, short_time};
use crate::nav::Nav;

pub(super) fn timeline_view(
    t: Timeline,
    window: u32,
    selected: RwSignal<Option<i64>>,
    nav: Nav,
) -> impl IntoView {
    let n = t.items.len();
    let span = if window >= TIMELINE_ALL_DAYS {
        format!("since {}", t.since)
    } else {
        format!("in the past {window} days")
    };
    let summary = format!(
        "{n} item{} {span}{}",
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
                <p>{format!("Nothing happened {span} under these filters.")}</p>
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
            {activity_chart(&t.days, &t.legend, &t.bucket)}
        </div>
        <p class="meta" id="timeline-summary">{summary}</p>
        {list}
    }
}

/// The items, newest first, under a heading per day.
pub(super) fn item_list(
    items: Vec<TimelineItem>,
    selected: RwSignal<Option<i64>>,
    nav: Nav,
) -> impl IntoView {
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

pub(super) fn item_row(
    item: TimelineItem,
    selected: RwSignal<Option<i64>>,
    nav: Nav,
) -> impl IntoView {
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
    meta.extend(item.harness.as_deref().map(|h| harness_name(h).to_owned()));
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
