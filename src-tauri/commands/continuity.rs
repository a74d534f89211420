//! The Continuity section of Settings: `continuity_get`, `continuity_set_field`,
//! `api_key_status`, `api_key_set`, `api_key_clear` and `model_test`. A change to one of the file
//! watcher's fields (`watch_*`) restarts the app's watcher so it applies at once.
//!
//! The synthesis model's API key goes to the OS keyring and nowhere else. It arrives in
//! `api_key_set`'s request, is handed straight to the keyring, and never appears in a response,
//! an error or a log line: the UI only ever learns whether a key is stored.

use elnor_engine::{CONFIG_FIELDS, FieldRule, SettingsSection};
use elnor_engine::{ContinuityConfig, Store};
use elnor_engine::{Endpoint, test_connection};
use elnor_engine::{OsKeyring, SYNTHESIS_API_KEY, SecretStore};
use elnor_types::commands as cmd;
use elnor_types::{
    ApiKeyStatus, CommandError, ConfigFieldRow, ConfigFields, ConnectionTest, ContinuitySettings,
    ErrorKind, SettingsSectionRow,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

/// Every config field as editable text, in the engine's table order.
fn fields(store: &Store, config: &ContinuityConfig) -> ConfigFields {
    let fields = CONFIG_FIELDS
        .iter()
        .map(|f| {
            let value = match config.get(f.key) {
                Ok(serde_json::Value::String(s)) => s,
                Ok(serde_json::Value::Null) | Err(_) => String::new(),
                Ok(other) => other.to_string(),
            };
            let choices = match f.rule {
                FieldRule::OneOf(values) => values.iter().map(|v| (*v).to_owned()).collect(),
                FieldRule::Bool => vec!["true".to_owned(), "false".to_owned()],
                _ => Vec::new(),
            };
            ConfigFieldRow {
                key: f.key.to_owned(),
                label: f.label.to_owned(),
                section: f.section.as_str().to_owned(),
                value,
                allowed: f.rule.allowed(),
                help: f.help.to_owned(),
                choices,
                choice_labels: f.choice_labels.iter().map(|l| (*l).to_owned()).collect(),
                ask: f.ask(),
                travels: f.travels(),
            }
        })
        .collect();
    ConfigFields {
        fields,
        sections: SettingsSection::SHOWN
            .iter()
            .map(|s| SettingsSectionRow {
                id: s.as_str().to_owned(),
                title: s.title().to_owned(),
            })
            .collect(),
        config_path: store.config_file().path().display().to_string(),
    }
}

fn has_key(keyring: &OsKeyring) -> Result<bool, CommandError> {
    keyring
        .get(SYNTHESIS_API_KEY)
        .map(|k| k.is_some())
        .map_err(|e| to_command_error(&e))
}

#[tauri::command]
pub async fn continuity_get(state: State<'_, AppState>) -> ReplyOf<cmd::ContinuityGet> {
    let store = state.store()?;
    blocking(move || {
        let config = store.config().map_err(|e| to_command_error(&e))?;
        // The keyring is not asked here: a locked one would greet the person with an error
        // before they touched anything. The key's own settings ask it (`api_key_status`).
        Ok(ContinuitySettings {
            config: fields(&store, &config),
        })
    })
    .await
}

#[tauri::command]
pub async fn continuity_set_field(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ContinuitySetField>,
) -> ReplyOf<cmd::ContinuitySetField> {
    let store = state.store()?;
    let watcher = state.watcher();
    blocking(move || {
        let config = elnor_engine::set_setting(&store, &request.key, &request.value)
            .map_err(|e| to_command_error(&e))?;
        // The watcher takes its debounce when it starts, so a change to its fields restarts it
        // (which rescans the folders on its own thread); the person sees the new value at work.
        if request.key.starts_with("watch_") {
            watcher.start(store.clone());
        }
        Ok(fields(&store, &config))
    })
    .await
}

#[tauri::command]
pub async fn api_key_status() -> ReplyOf<cmd::ApiKeyStatusGet> {
    blocking(move || {
        Ok(ApiKeyStatus {
            has_api_key: has_key(&OsKeyring::new())?,
        })
    })
    .await
}

#[tauri::command]
pub async fn api_key_set(request: RequestOf<cmd::ApiKeySet>) -> ReplyOf<cmd::ApiKeySet> {
    let key = request.api_key.trim().to_owned();
    if key.is_empty() {
        return Err(CommandError {
            kind: ErrorKind::InvalidInput,
            message: "the API key is empty; paste the key, or use Remove to forget the stored one"
                .into(),
        });
    }
    blocking(move || {
        let keyring = OsKeyring::new();
        keyring
            .set(SYNTHESIS_API_KEY, &key)
            .map_err(|e| to_command_error(&e))?;
        Ok(ApiKeyStatus {
            has_api_key: has_key(&keyring)?,
        })
    })
    .await
}

#[tauri::command]
pub async fn api_key_clear() -> ReplyOf<cmd::ApiKeyClear> {
    blocking(move || {
        let keyring = OsKeyring::new();
        keyring
            .delete(SYNTHESIS_API_KEY)
            .map_err(|e| to_command_error(&e))?;
        Ok(ApiKeyStatus {
            has_api_key: has_key(&keyring)?,
        })
    })
    .await
}

/// The models this machine offers for full mode without a key: Ollama where the settings say
/// (or its usual address), and the agent CLIs on the app's PATH.
#[tauri::command]
pub async fn model_detect(state: State<'_, AppState>) -> ReplyOf<cmd::ModelDetect> {
    let store = state.store()?;
    blocking(move || {
        let config = store.config().map_err(|e| to_command_error(&e))?;
        let ollama = match (config.synthesis_provider, &config.synthesis_base_url) {
            (elnor_engine::SynthesisProvider::Ollama, Some(url)) if !url.trim().is_empty() => {
                url.clone()
            }
            _ => elnor_engine::OLLAMA_DEFAULT_URL.to_owned(),
        };
        let found = elnor_engine::detect_models(&ollama, std::env::var_os("PATH").as_deref());
        Ok(found
            .into_iter()
            .map(|f| elnor_types::FoundModel {
                provider: f.provider.as_str().to_owned(),
                at: f.at,
                models: f.models,
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn model_test(state: State<'_, AppState>) -> ReplyOf<cmd::ModelTest> {
    let store = state.store()?;
    blocking(move || {
        let config = store.config().map_err(|e| to_command_error(&e))?;
        let failed = |message: String| ConnectionTest { ok: false, message };
        let endpoint = match Endpoint::from_config(&config) {
            Ok(endpoint) => endpoint,
            Err(failure) => return Ok(failed(failure.reason())),
        };
        // Only an OpenAI-compatible endpoint takes the key (Ollama and an agent CLI never get
        // one), and a local one may do without: an unreadable keyring only matters for a
        // remote one, where the keyring's own message says how to fix it.
        let key = if !config.synthesis_provider.takes_key() {
            None
        } else {
            match OsKeyring::new().get(SYNTHESIS_API_KEY) {
                Ok(key) => key,
                Err(_) if endpoint.is_local() => None,
                Err(e) => return Ok(failed(e.to_string())),
            }
        };
        Ok(match test_connection(&endpoint, key.as_deref()) {
            Ok(reply) => ConnectionTest {
                ok: true,
                message: reply,
            },
            Err(failure) => failed(failure.reason()),
        })
    })
    .await
}
