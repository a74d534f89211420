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
    /// `SessionListRequest -> Vec<SessionRow>`
    pub const LIST_SESSIONS: &str = "list_sessions";
    /// `TurnPageRequest -> TurnPage`
    pub const TURN_PAGE: &str = "turn_page";
    /// `() -> Vec<SourceRow>`
    pub const LIST_SOURCES: &str = "list_sources";
    /// `AddSourceRequest -> Vec<SourceRow>`
    pub const ADD_SOURCE: &str = "add_source";
    /// `SetSourceEnabledRequest -> Vec<SourceRow>`
    pub const SET_SOURCE_ENABLED: &str = "set_source_enabled";
    /// `() -> IngestStatus` (starts an ingest of the enabled sources unless one is running)
    pub const START_INGEST: &str = "start_ingest";
    /// `() -> IngestStatus`
    pub const INGEST_STATUS: &str = "ingest_status";
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

/// Filters of the Sessions list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionListRequest {
    pub harness: Option<String>,
    pub agent_id: Option<String>,
    pub time_window_hours: Option<u32>,
    pub text: Option<String>,
    pub limit: Option<u32>,
}

/// One session in the Sessions list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRow {
    pub session_id: String,
    pub harness: String,
    pub agent_id: Option<String>,
    pub started_at: Option<String>,
    pub last_activity_at: Option<String>,
    pub turn_count: u64,
    pub compaction_count: u64,
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub has_summary: bool,
    /// The session that spawned this one (sub-agents) or that it branched from.
    pub parent_session_id: Option<String>,
}

/// A window of a session's turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnPageRequest {
    pub session_id: String,
    pub offset: u64,
    pub limit: u32,
}

/// One turn in the transcript viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRow {
    pub seq: i64,
    pub role: String,
    pub kind: String,
    pub content: String,
    pub tool_calls: Vec<String>,
    pub timestamp: Option<String>,
    pub is_sidechain: bool,
    pub tokens_before: Option<u64>,
}

/// Turns `offset..offset + turns.len()` of a session of `total`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnPage {
    pub session_id: String,
    pub total: u64,
    pub offset: u64,
    pub turns: Vec<TurnRow>,
    /// Positions of compaction points (first page only).
    pub compactions: Vec<CompactionMark>,
}

/// A compaction point's position in a session's turn list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionMark {
    pub position: u64,
    pub tokens_before: Option<u64>,
}

/// A transcript root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRow {
    pub harness: String,
    pub root: String,
    pub enabled: bool,
    pub exists: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddSourceRequest {
    pub harness: String,
    pub root: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetSourceEnabledRequest {
    pub harness: String,
    pub root: String,
    pub enabled: bool,
}

/// Where an ingest stands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IngestStatus {
    pub running: bool,
    pub files_done: u64,
    pub files_total: u64,
    pub records: u64,
    pub bytes: u64,
    /// The last finished run, in words.
    pub last_summary: Option<String>,
    /// Per-file problems of the last run, in words.
    pub last_problems: Vec<String>,
    pub last_error: Option<String>,
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
