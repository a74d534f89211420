//! `health_get`: capture health for the Health page, the engine's report converted to the wire;
//! `dreaming_disable`: the page's one-click switch for OpenClaw's Dreaming.
//!
//! Both find the harnesses' settings through [`HarnessPaths::from_env`]: the app reads the same
//! files the harnesses do, where this process's environment says they are, as `elnor doctor`
//! does from a terminal.

use chrono::{DateTime, Utc};
use elnor_engine::{DreamingState, HarnessPaths};
use elnor_types::ReplyOf;
use elnor_types::commands as cmd;
use elnor_types::{
    Age, CaptureHealth, DreamingChanged, DreamingRow, HarnessHealthRow, HookRow, LostFileRow,
    RecordTypeRow, SourceHealthRow,
};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

#[tauri::command]
pub async fn health_get(state: State<'_, AppState>) -> ReplyOf<cmd::HealthGet> {
    let store = state.store()?;
    blocking(move || {
        let paths = HarnessPaths::from_env().map_err(|e| to_command_error(&e))?;
        let h = elnor_engine::health(&store, elnor_engine::now(), &paths)
            .map_err(|e| to_command_error(&e))?;
        let now = h.checked_at;
        // Ages are measured against the report's own moment, so the page says "3 hours ago"
        // about the same instant the engine judged silence at, even under a replayed clock.
        let age = |at: Option<DateTime<Utc>>| {
            at.map(|at| Age {
                at: at.to_rfc3339(),
                minutes_ago: (now - at).num_minutes(),
            })
        };
        let (state, explicit, problem) = match h.dreaming.state {
            DreamingState::On { explicit } => ("on", explicit, None),
            DreamingState::Off => ("off", false, None),
            DreamingState::NoConfig => ("no_config", false, None),
            DreamingState::Malformed { message } => ("unreadable", false, Some(message)),
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
                    records: s.records,
                    turns: s.turns,
                    skipped: s.skipped.into_iter().map(record_type_row).collect(),
                    not_understood: s.not_understood.into_iter().map(record_type_row).collect(),
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
            hooks: h
                .hooks
                .into_iter()
                .map(|k| HookRow {
                    harness: k.harness.as_str().to_owned(),
                    event: k.event,
                    installed: k.installed,
                    settings_file: k.config_path.display().to_string(),
                    last_fired: age(k.last_fired_at),
                    times_fired: k.fire_count,
                    problem: k.problem,
                    setup_command: format!(
                        "elnor setup {}",
                        elnor_engine::harness_cli_name(k.harness)
                    ),
                })
                .collect(),
            dreaming: DreamingRow {
                state: state.to_owned(),
                explicit,
                problem,
                file: h.dreaming.path.display().to_string(),
                what_it_does: h.dreaming.what_it_does,
                line_to_add: h.dreaming.line_to_add,
            },
            lost_files: h
                .lost_files
                .into_iter()
                .map(|f| LostFileRow {
                    path: f.path,
                    records: f.records,
                    turns: f.turns,
                    not_understood: f.not_understood.into_iter().map(record_type_row).collect(),
                })
                .collect(),
        })
    })
    .await
}

fn record_type_row(t: elnor_engine::TypeCount) -> RecordTypeRow {
    RecordTypeRow {
        record_type: t.record_type,
        count: t.count,
        sample_path: t.sample_path,
        sample_line: t.sample_line,
    }
}

/// Turns OpenClaw's Dreaming off in its config, after a backup. A config the engine cannot edit
/// safely is refused with its message, which says why and gives the line to add by hand.
#[tauri::command]
pub async fn dreaming_disable() -> ReplyOf<cmd::DreamingDisable> {
    blocking(move || {
        let paths = HarnessPaths::from_env().map_err(|e| to_command_error(&e))?;
        let change = elnor_engine::disable_dreaming(&paths, false, elnor_engine::now())
            .map_err(|e| to_command_error(&e))?;
        Ok(DreamingChanged {
            file: change.path.display().to_string(),
            backup: change.backup.map(|b| b.display().to_string()),
            changed: change.changed,
            written: change.written,
        })
    })
    .await
}
