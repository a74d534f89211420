//! `status_get`: the store summary shown on Home.

use elnor_types::ReplyOf;
use elnor_types::commands as cmd;
use elnor_types::{ContinuityMode, StoreStatus};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

#[tauri::command]
pub async fn status_get(state: State<'_, AppState>) -> ReplyOf<cmd::StatusGet> {
    let store = state.store()?;
    blocking(move || {
        let s = store.status().map_err(|e| to_command_error(&e))?;
        Ok(StoreStatus {
            store_path: s.store_path.display().to_string(),
            schema_version: s.schema_version,
            log_schema_version: s.log_schema_version,
            entities: s.entities,
            work_contexts: s.work_contexts,
            continuity_logs: s.continuity_logs,
            entries_total: s.entries_total,
            entries_by_type: s
                .entries_by_type
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
            skipped_lines: s.skipped_lines,
            mode: s.config.map(|c| wire_mode(c.mode)),
            config_error: s.config_error,
        })
    })
    .await
}

pub fn wire_mode(mode: elnor_engine::ContinuityMode) -> ContinuityMode {
    match mode {
        elnor_engine::ContinuityMode::Full => ContinuityMode::Full,
        elnor_engine::ContinuityMode::Deterministic => ContinuityMode::Deterministic,
        elnor_engine::ContinuityMode::Off => ContinuityMode::Off,
    }
}
