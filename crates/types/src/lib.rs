//! The typed wire between the Leptos UI (wasm32) and the Tauri shell (native).
//!
//! Every command the UI may invoke is named in [`commands`], with its request and response types
//! here. This crate depends on serde alone so it compiles for both targets, and it knows nothing
//! of the engine: the shell converts engine types into these.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Command names, shared so the UI and the shell cannot drift apart.
pub mod commands {
    /// `() -> StoreStatus`
    pub const STORE_STATUS: &str = "store_status";
    /// `() -> Settings`
    pub const GET_SETTINGS: &str = "get_settings";
    /// `SetModeRequest -> Settings`
    pub const SET_CONTINUITY_MODE: &str = "set_continuity_mode";
}

/// The continuity mode (CSA §5.1), as the UI shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContinuityMode {
    Full,
    Deterministic,
    Off,
}

impl ContinuityMode {
    /// Every mode, in display order.
    pub const ALL: [ContinuityMode; 3] = [
        ContinuityMode::Full,
        ContinuityMode::Deterministic,
        ContinuityMode::Off,
    ];

    /// The stored name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            ContinuityMode::Full => "full",
            ContinuityMode::Deterministic => "deterministic",
            ContinuityMode::Off => "off",
        }
    }

    /// A short label for a toggle.
    pub fn label(self) -> &'static str {
        match self {
            ContinuityMode::Full => "Full",
            ContinuityMode::Deterministic => "Deterministic",
            ContinuityMode::Off => "Off",
        }
    }

    /// What choosing the mode means, after CSA §5.1's Settings text.
    pub fn explanation(self) -> &'static str {
        match self {
            ContinuityMode::Full => {
                "Adds LLM-generated narrative through the session summarization pass: rich \
                 session summaries and nuanced open questions and key decisions. Recommended."
            }
            ContinuityMode::Deterministic => {
                "Free and works offline, but does not extract open questions or key decisions \
                 narratively (uses heuristic detection only)."
            }
            ContinuityMode::Off => {
                "Nothing is captured. The resume card is empty; recent activity and living \
                 memory are unaffected."
            }
        }
    }
}

/// The explanatory text of the Continuity section of Settings (CSA §5.1).
pub const CONTINUITY_EXPLANATION: &str = "This feature captures work-state context across \
    sessions. 'Deterministic' mode is free and works offline but does not extract open questions \
    or key decisions narratively (uses heuristic detection only). 'Full' mode adds LLM-generated \
    narrative through the session summarization pass — recommended.";

/// The store summary shown on Home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreStatus {
    pub store_path: String,
    pub schema_version: u32,
    pub log_schema_version: u32,
    pub entities: u64,
    pub work_contexts: u64,
    pub continuity_logs: u64,
    pub entries_total: u64,
    /// Entry type name → count; every type is present.
    pub entries_by_type: BTreeMap<String, u64>,
    pub skipped_lines: u64,
    /// The mode, when the config is valid.
    pub mode: Option<ContinuityMode>,
    /// Why the config could not be read, when it could not.
    pub config_error: Option<String>,
}

/// The Settings page's data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub mode: ContinuityMode,
    pub synthesis_model: Option<String>,
    pub config_path: String,
}

/// Request of [`commands::SET_CONTINUITY_MODE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetModeRequest {
    pub mode: ContinuityMode,
}

/// The class of a failed command, so the UI can choose how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Config,
    InvalidInput,
    Storage,
}

/// Every command's error: a readable message the UI shows as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_stable() {
        // The UI and the shell are built separately; the JSON shape is their contract.
        let req = serde_json::to_string(&SetModeRequest {
            mode: ContinuityMode::Deterministic,
        })
        .unwrap();
        assert_eq!(req, r#"{"mode":"deterministic"}"#);
        let err = serde_json::to_string(&CommandError {
            kind: ErrorKind::Config,
            message: "m".into(),
        })
        .unwrap();
        assert_eq!(err, r#"{"kind":"config","message":"m"}"#);
        for mode in ContinuityMode::ALL {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
    }
}
