//! The timeline (SPEC §12): `timeline`, what happened over a window of days (sessions, captures,
//! file changes, pushes, promotions), newest first, with the per-day counts the page's chart
//! stacks by work context. One engine call, `timeline::query`; this converts its types.

use chrono::Local;
use elnor_engine::timeline::{self, Filter, ItemKind, Target};
use elnor_types::{
    CommandError, Timeline, TimelineDay, TimelineDayCount, TimelineItem, TimelineRequest,
    TimelineTarget,
};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

// Exhaustive: a target the engine adds fails the build here instead of reaching the UI as
// something it cannot open.
fn target(t: Target) -> TimelineTarget {
    match t {
        Target::Session(id) => TimelineTarget::Session {
            session_id: id.to_string(),
        },
        Target::Observation(id) => TimelineTarget::Observation { observation_id: id },
        Target::Proposal(id) => TimelineTarget::Proposal { proposal_id: id },
        Target::Node(id) => TimelineTarget::Node {
            node_id: id.to_string(),
        },
    }
}

fn item(i: timeline::Item) -> TimelineItem {
    TimelineItem {
        // The person's own time: the list reads like their day. The chart's days are UTC days,
        // as the wire says.
        at: i.at.with_timezone(&Local).to_rfc3339(),
        kind: i.kind.as_str().to_owned(),
        title: i.title,
        detail: i.detail,
        work_context_id: i.work_context_id.map(|w| w.to_string()),
        work_context_name: i.work_context_name,
        harness: i.harness,
        target: i.target.map(target),
    }
}

#[tauri::command]
pub async fn timeline(
    state: State<'_, AppState>,
    request: TimelineRequest,
) -> Result<Timeline, CommandError> {
    let store = state.store()?;
    blocking(move || {
        let filter = Filter {
            work_context: request
                .work_context_id
                .filter(|w| !w.is_empty())
                .map(elnor_engine::WorkContextId::new)
                .transpose()
                .map_err(err)?,
            kinds: request
                .kinds
                .iter()
                .map(|k| ItemKind::parse(k))
                .collect::<Result<_, _>>()
                .map_err(err)?,
            harness: request.harness.filter(|h| !h.is_empty()),
            days: request.days,
            limit: request.limit,
        };
        let t = timeline::query(&store, &filter, elnor_engine::clock::now()).map_err(err)?;
        Ok(Timeline {
            items: t.items.into_iter().map(item).collect(),
            truncated: t.truncated,
            days: t
                .days
                .into_iter()
                .map(|d| TimelineDay {
                    day: d.day,
                    counts: d
                        .counts
                        .into_iter()
                        .map(|c| TimelineDayCount {
                            work_context_id: c.work_context_id.map(|w| w.to_string()),
                            name: c.name,
                            count: c.count,
                        })
                        .collect(),
                })
                .collect(),
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's kind names are the ones the wire documents and the page filters by.
    #[test]
    fn kind_names_agree_with_the_wire() {
        let names: Vec<&str> = ItemKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            ["session", "capture", "observation", "push", "promotion"]
        );
    }
}
