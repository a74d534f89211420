//! `health_get`: capture health for the Health page, the engine's report converted to the wire.

use chrono::{DateTime, Utc};
use elnor_types::ReplyOf;
use elnor_types::commands as cmd;
use elnor_types::{Age, CaptureHealth, HarnessHealthRow, SourceHealthRow};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

#[tauri::command]
pub async fn health_get(state: State<'_, AppState>) -> ReplyOf<cmd::HealthGet> {
    let store = state.store()?;
    blocking(move || {
        let h =
            elnor_engine::health(&store, elnor_engine::now()).map_err(|e| to_command_error(&e))?;
        let now = h.checked_at;
        // Ages are measured against the report's own moment, so the page says "3 hours ago"
        // about the same instant the engine judged silence at, even under a replayed clock.
        let age = |at: Option<DateTime<Utc>>| {
            at.map(|at| Age {
                at: at.to_rfc3339(),
                minutes_ago: (now - at).num_minutes(),
            })
        };
        Ok(CaptureHealth {
            checked_at: now.to_rfc3339(),
            sources: h
                .sources
                .into_iter()
                .map(|s| SourceHealthRow {
                    harness: s.harness.as_str().to_owned(),
                    root: s.root.display().to_string(),
                    enabled: s.enabled,
                    exists: s.exists,
                    files: s.files,
                    last_file_change: age(s.last_file_change),
                    last_read: age(s.last_read),
                    problems: s.problems,
                    unknown_records: s.unknown_records,
                })
                .collect(),
            harnesses: h
                .harnesses
                .into_iter()
                .map(|x| HarnessHealthRow {
                    harness: x.harness.as_str().to_owned(),
                    sessions_day: x.sessions_day,
                    sessions_week: x.sessions_week,
                    turns_day: x.turns_day,
                    turns_week: x.turns_week,
                    last_session: age(x.last_session_at),
                    usual_gap_hours: x.usual_gap_hours,
                    silent: x.silent,
                    uncaptured: x.uncaptured,
                })
                .collect(),
        })
    })
    .await
}
