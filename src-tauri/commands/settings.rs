//! `settings_get` and `settings_set_mode`: the Settings page. Saving goes through the engine,
//! which validates and writes the config atomically.

use elnor_types::commands as cmd;
use elnor_types::{ContinuityMode, Settings};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::status::wire_mode;
use crate::state::{AppState, blocking, to_command_error};

fn engine_mode(mode: ContinuityMode) -> elnor_engine::ContinuityMode {
    match mode {
        ContinuityMode::Full => elnor_engine::ContinuityMode::Full,
        ContinuityMode::Deterministic => elnor_engine::ContinuityMode::Deterministic,
        ContinuityMode::Off => elnor_engine::ContinuityMode::Off,
    }
}

fn settings(store: &elnor_engine::Store, config: elnor_engine::ContinuityConfig) -> Settings {
    Settings {
        mode: wire_mode(config.mode),
        synthesis_model: config.synthesis_model,
        config_path: store.config_file().path().display().to_string(),
    }
}

#[tauri::command]
pub async fn settings_get(state: State<'_, AppState>) -> ReplyOf<cmd::SettingsGet> {
    let store = state.store()?;
    blocking(move || {
        let config = store.config().map_err(|e| to_command_error(&e))?;
        Ok(settings(&store, config))
    })
    .await
}

#[tauri::command]
pub async fn settings_set_mode(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SettingsSetMode>,
) -> ReplyOf<cmd::SettingsSetMode> {
    let store = state.store()?;
    blocking(move || {
        let config = store
            .set_mode(engine_mode(request.mode))
            .map_err(|e| to_command_error(&e))?;
        Ok(settings(&store, config))
    })
    .await
}
