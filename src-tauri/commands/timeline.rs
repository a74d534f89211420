//! The timeline (SPEC §12): `timeline_get`, what happened over a window of days (sessions, captures,
//! file changes, pushes, promotions), newest first, with the per-day counts the page's chart
//! stacks by work context. One engine call, `elnor_engine::timeline`; this converts its types.

use chrono::Local;
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, Timeline, TimelineDay, TimelineDayCount, TimelineItem, TimelineKind,
    TimelineTarget,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

// Exhaustive: a target the engine adds fails the build here instead of reaching the UI as
// something it cannot open.
fn target(t: elnor_engine::TimelineTarget) -> TimelineTarget {
    match t {
        elnor_engine::TimelineTarget::Session(id) => TimelineTarget::Session {
            session_id: id.to_string(),
        },
        elnor_engine::TimelineTarget::Observation(id) => {
            TimelineTarget::Observation { observation_id: id }
        }
        elnor_engine::TimelineTarget::Proposal(id) => TimelineTarget::Proposal { proposal_id: id },
        elnor_engine::TimelineTarget::Node(id) => TimelineTarget::Node {
            node_id: id.to_string(),
        },
    }
}

// Both directions are exhaustive matches: a kind added on either side fails the build here.
fn wire_kind(k: elnor_engine::TimelineItemKind) -> TimelineKind {
    match k {
        elnor_engine::TimelineItemKind::Session => TimelineKind::Session,
        elnor_engine::TimelineItemKind::Capture => TimelineKind::Capture,
        elnor_engine::TimelineItemKind::Observation => TimelineKind::Observation,
        elnor_engine::TimelineItemKind::Push => TimelineKind::Push,
        elnor_engine::TimelineItemKind::Promotion => TimelineKind::Promotion,
    }
}

fn engine_kind(k: TimelineKind) -> elnor_engine::TimelineItemKind {
    match k {
        TimelineKind::Session => elnor_engine::TimelineItemKind::Session,
        TimelineKind::Capture => elnor_engine::TimelineItemKind::Capture,
        TimelineKind::Observation => elnor_engine::TimelineItemKind::Observation,
        TimelineKind::Push => elnor_engine::TimelineItemKind::Push,
        TimelineKind::Promotion => elnor_engine::TimelineItemKind::Promotion,
    }
}

fn item(i: elnor_engine::TimelineItem) -> TimelineItem {
    TimelineItem {
        // The person's own time: the list reads like their day. The chart's days are UTC days,
        // as the wire says.
        at: i.at.with_timezone(&Local).to_rfc3339(),
        kind: wire_kind(i.kind),
        title: i.title,
        detail: i.detail,
        work_context_id: i.work_context_id.map(|w| w.to_string()),
        work_context_name: i.work_context_name,
        harness: i.harness,
        target: i.target.map(target),
    }
}

#[tauri::command]
pub async fn timeline_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TimelineGet>,
) -> ReplyOf<cmd::TimelineGet> {
    let store = state.store()?;
    blocking(move || {
        let filter = elnor_engine::TimelineFilter {
            work_context: request
                .work_context_id
                .filter(|w| !w.is_empty())
                .map(elnor_engine::WorkContextId::new)
                .transpose()
                .map_err(err)?,
            kinds: request.kinds.iter().map(|k| engine_kind(*k)).collect(),
            harness: request.harness.filter(|h| !h.is_empty()),
            days: request.days,
            limit: request.limit,
        };
        let t = elnor_engine::timeline(&store, &filter, elnor_engine::now()).map_err(err)?;
        Ok(Timeline {
            items: t.items.into_iter().map(item).collect(),
            truncated: t.truncated,
            days: t
                .days
                .into_iter()
                .map(|d| TimelineDay {
                    day: d.day,
                    counts: d.counts.into_iter().map(day_count).collect(),
                })
                .collect(),
            bucket: match t.bucket {
                elnor_engine::TimelineBucket::Day => "day",
                elnor_engine::TimelineBucket::Week => "week",
                elnor_engine::TimelineBucket::Month => "month",
            }
            .to_owned(),
            legend: t.legend.into_iter().map(day_count).collect(),
            since: t.since,
        })
    })
    .await
}

/// One context's count in a bar of the chart, or in its legend.
fn day_count(c: elnor_engine::TimelineDayCount) -> TimelineDayCount {
    TimelineDayCount {
        work_context_id: c.work_context_id.map(|w| w.to_string()),
        name: c.name,
        count: c.count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each engine kind has a wire kind with the same name and comes back as itself, so the
    /// names the page shows and filters by are the engine's. (The matches above keep the sets
    /// equal; this keeps the names equal.)
    #[test]
    fn kind_names_agree_with_the_wire() {
        for k in elnor_engine::TimelineItemKind::ALL {
            let wire = wire_kind(k);
            assert_eq!(wire.as_str(), k.as_str());
            assert_eq!(
                serde_json::to_value(wire).unwrap(),
                serde_json::Value::from(k.as_str())
            );
            assert_eq!(engine_kind(wire), k);
        }
        assert_eq!(
            elnor_engine::TimelineItemKind::ALL.len(),
            TimelineKind::ALL.len()
        );
    }
}
