//! The activity chart: one bar per day (per week or month over long windows), stacked by work
//! context, with the engine's legend: the busiest contexts, then "other work".

use elnor_types::{TimelineDay, TimelineDayCount};
use leptos::prelude::*;

/// Colours of the chart's work contexts, in legend order (the busiest first). The engine keeps
/// no more contexts apart than there are colours.
pub(super) const PALETTE: &[&str] = &[
    "#145e6e", "#d9822b", "#5b4a99", "#2f7d4a", "#b8465f", "#3f7fbf", "#9a7b00", "#6b8e23",
];

/// "Other work": the less busy contexts and work outside any context.
pub(super) const OUTSIDE: &str = "#b8c2c4";

/// Height of the chart's bars area, in SVG units.
pub(super) const CHART_H: f64 = 120.0;

/// Width of the chart's drawing, in SVG units.
pub(super) const CHART_W: f64 = 560.0;

/// The engine's legend (the busiest contexts, then "other work"), each with its colour: the
/// position gives the colour, and "other work" has its own grey.
pub(super) fn legend(
    entries: &[TimelineDayCount],
) -> Vec<(Option<String>, String, u32, &'static str)> {
    let mut next = 0;
    entries
        .iter()
        .map(|e| {
            let colour = if e.work_context_id.is_none() {
                OUTSIDE
            } else {
                next += 1;
                PALETTE[(next - 1) % PALETTE.len()]
            };
            (e.work_context_id.clone(), e.name.clone(), e.count, colour)
        })
        .collect()
}

/// Activity per day as SVG bars stacked by work context, one column per day of the window.
pub(super) fn activity_chart(
    days: &[TimelineDay],
    entries: &[TimelineDayCount],
    bucket: &str,
) -> impl IntoView + use<> {
    let legend = legend(entries);
    let per = match bucket {
        "week" => "week",
        "month" => "month",
        _ => "day",
    };
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
        <p class="meta chart-caption">{format!("Activity per {per} (UTC), stacked by work context")}</p>
        <svg
            id="timeline-chart"
            class="activity-chart"
            viewBox=format!("0 0 {width:.0} {}", CHART_H + 18.0)
            role="img"
            aria-label=format!("Activity per {per}, stacked by work context")
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
