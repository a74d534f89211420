//! The continuity config, `config/continuity_config.json` (CSA §5.1): every field with its
//! default and allowed range, validated on load and on set, written atomically.
//!
//! The rules live in one table, [`FIELDS`], which drives validation, `config get`/`set`, the
//! defaults and the documentation. A failed load never writes: the file on disk stays exactly as
//! the person left it, and the error names the file, the field and the allowed range.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::base::error::{Error, Result};
use crate::base::fsutil::{LockGuard, atomic_write};

/// The config file's schema version (CSA §5.1 `schema_version: z.literal(2)`).
pub const CONFIG_SCHEMA_VERSION: u64 = 2;

/// How the continuity agent captures work state (CSA §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ContinuityMode {
    /// Deterministic capture plus one LLM pass per session end. The default.
    #[default]
    Full,
    /// Deterministic capture only: free and offline.
    Deterministic,
    /// Nothing is captured.
    Off,
}

impl ContinuityMode {
    /// Every mode, in the order Settings shows them.
    pub const ALL: [ContinuityMode; 3] = [
        ContinuityMode::Full,
        ContinuityMode::Deterministic,
        ContinuityMode::Off,
    ];

    /// The mode's name as stored in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            ContinuityMode::Full => "full",
            ContinuityMode::Deterministic => "deterministic",
            ContinuityMode::Off => "off",
        }
    }

    /// Parses a stored mode name.
    pub fn parse(s: &str) -> Option<ContinuityMode> {
        ContinuityMode::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// The validated continuity config. Construct it with [`ContinuityConfig::default`] or by loading
/// a file; every instance satisfies the ranges in [`FIELDS`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContinuityConfig {
    pub mode: ContinuityMode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis_model: Option<String>,
    pub min_dirty_turns: u32,
    pub idle_trigger_minutes: u32,
    pub debounce_minutes: u32,
    pub max_session_history_window: u32,
    pub session_summary_ttl_days: u32,
    pub open_question_ttl_days: u32,
    pub key_decision_ttl_days: u32,
    pub cross_update_ttl_days_after_delivery: u32,
    /// Not a field of CSA §5.1, whose TTL table (§3.3) nonetheless makes this TTL configurable.
    pub work_phase_ttl_days: u32,
    pub deterministic_heuristic_capture: bool,
    /// Make a work context for each project folder found in the transcripts (issue 14).
    pub auto_project_contexts: bool,
    /// Token budget of one `session.read_transcript` (CSA §8.4, "4,000 tokens (configurable)").
    pub transcript_read_max_tokens: u32,
    /// The synthesis model's provider, base URL and call timeout (CSA §5.4); its API key lives
    /// only in the OS keyring, never here.
    pub synthesis_provider: SynthesisProvider,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis_base_url: Option<String>,
    pub synthesis_timeout_seconds: u32,
    /// The spend guard: at most this many model calls per rolling hour and day.
    pub max_model_calls_per_hour: u32,
    pub max_model_calls_per_day: u32,
    /// The synthesis model's temporal profile (CSA §12.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_knowledge_cutoff: Option<String>,
    pub model_date_awareness: DateAwareness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_profile_verified: Option<String>,
    /// The significance gate's base threshold, in percent (CSA §11.2 default 0.5).
    pub significance_threshold_pct: u32,
    /// The gate's multiplier for research inside an active work context, in percent (CSA §11.2
    /// default 0.6; DOC8-tunable).
    pub research_gate_multiplier_pct: u32,
    /// Days of activity the Tier 2 rollup covers (SPEC §2, "DOC73 §6.4 Mechanism 4").
    pub rollup_window_days: u32,
    /// Brief assembly traces kept for the inspector; older ones are deleted as new ones arrive.
    pub trace_retention_assemblies: u32,
    /// Promotion rules (CSA §3.3): days an open question linked to a deadline stays unresolved
    /// before an obligation is proposed, and sessions a decision is stated in before a memory
    /// directive is proposed.
    pub promotion_question_days: u32,
    pub promotion_decision_sessions: u32,
    /// Local hour at which the desktop app runs the nightly job.
    pub nightly_hour: u32,
    /// Days between steps down the degradation ladder (concept model §4.5) once a durable node's
    /// sources have decayed and nobody has confirmed it.
    pub node_decay_step_days: u32,
    /// Quiet time the file watcher waits for after a change before it reads the file, so that a
    /// burst of writes (an editor's save) becomes one observation.
    pub watch_debounce_ms: u32,
    /// Minutes between the file watcher's full reconciles of the tracked folders, which catch
    /// changes the OS did not report.
    pub watch_reconcile_minutes: u32,
    /// Whether agents may search across conversations at all (CSA §7.7's
    /// `cross_surface_query_enabled`); the person's own searches are never turned off.
    pub cross_surface_query_enabled: bool,
    /// Searches an agent session may run per minute, and all agents together per day (CSA §7.6:
    /// 6 and 200); `0` means unlimited. The person's own searches are not counted.
    pub query_rate_per_minute: u32,
    pub query_rate_per_day: u32,
    /// Which embedder search uses for meaning: the built-in local model, or an Ollama or
    /// OpenAI-compatible embedding endpoint (its key, when it needs one, only in the keyring).
    pub embedding_provider: EmbeddingProvider,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_base_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_model: Option<String>,
    pub schema_version: u64,
}

/// Which API the synthesis model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SynthesisProvider {
    /// Ollama's `/api/chat`.
    #[default]
    Ollama,
    /// Any endpoint speaking OpenAI's `/v1/chat/completions`.
    OpenaiCompatible,
    /// Claude Code run headless (`claude -p`) with the person's own login.
    ClaudeCli,
    /// Codex run headless (`codex exec`) with the person's own login.
    CodexCli,
}

impl SynthesisProvider {
    pub fn as_str(self) -> &'static str {
        match self {
            SynthesisProvider::Ollama => "ollama",
            SynthesisProvider::OpenaiCompatible => "openai_compatible",
            SynthesisProvider::ClaudeCli => "claude_cli",
            SynthesisProvider::CodexCli => "codex_cli",
        }
    }

    /// Whether calls carry the API key from the keyring: only an OpenAI-compatible endpoint's.
    /// Ollama has no use for one, and an agent CLI uses the login it keeps itself; a key sent
    /// where it is not needed is a key that can leak.
    pub fn takes_key(self) -> bool {
        self == SynthesisProvider::OpenaiCompatible
    }

    /// Whether the model is an agent CLI run on this machine rather than an HTTP endpoint.
    pub fn is_agent_cli(self) -> bool {
        matches!(
            self,
            SynthesisProvider::ClaudeCli | SynthesisProvider::CodexCli
        )
    }
}

/// Which embedder search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EmbeddingProvider {
    /// all-MiniLM-L6-v2, in-process, when its files are on disk.
    #[default]
    Builtin,
    /// Ollama's `/api/embed`.
    Ollama,
    /// Any endpoint speaking OpenAI's `/v1/embeddings`.
    OpenaiCompatible,
}

impl EmbeddingProvider {
    pub fn as_str(self) -> &'static str {
        match self {
            EmbeddingProvider::Builtin => "builtin",
            EmbeddingProvider::Ollama => "ollama",
            EmbeddingProvider::OpenaiCompatible => "openai_compatible",
        }
    }
}

/// Whether a model knows today's date by itself (CSA §12.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DateAwareness {
    ProviderInjected,
    RequiresInjection,
    #[default]
    Unknown,
}

impl Default for ContinuityConfig {
    fn default() -> Self {
        ContinuityConfig {
            mode: ContinuityMode::Full,
            synthesis_model: None,
            min_dirty_turns: 3,
            idle_trigger_minutes: 15,
            debounce_minutes: 30,
            max_session_history_window: 15,
            session_summary_ttl_days: 30,
            open_question_ttl_days: 60,
            key_decision_ttl_days: 60,
            cross_update_ttl_days_after_delivery: 7,
            work_phase_ttl_days: 30,
            deterministic_heuristic_capture: true,
            auto_project_contexts: true,
            transcript_read_max_tokens: 4000,
            synthesis_provider: SynthesisProvider::Ollama,
            synthesis_base_url: None,
            synthesis_timeout_seconds: 60,
            max_model_calls_per_hour: 30,
            max_model_calls_per_day: 200,
            model_knowledge_cutoff: None,
            model_date_awareness: DateAwareness::Unknown,
            model_profile_verified: None,
            significance_threshold_pct: 50,
            research_gate_multiplier_pct: 60,
            rollup_window_days: 14,
            trace_retention_assemblies: 1000,
            promotion_question_days: 14,
            promotion_decision_sessions: 3,
            nightly_hour: 3,
            node_decay_step_days: 30,
            watch_debounce_ms: 250,
            watch_reconcile_minutes: 10,
            cross_surface_query_enabled: true,
            query_rate_per_minute: 6,
            query_rate_per_day: 200,
            embedding_provider: EmbeddingProvider::Builtin,
            embedding_base_url: None,
            embedding_model: None,
            schema_version: CONFIG_SCHEMA_VERSION,
        }
    }
}

/// What values a field accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRule {
    /// An integer in `min..=max`.
    Int { min: u64, max: u64 },
    /// `true` or `false`.
    Bool,
    /// One of the listed strings.
    OneOf(&'static [&'static str]),
    /// A string of at most this many characters, or absent / `null`.
    OptionalText { max_chars: usize },
    /// Exactly this integer.
    Exactly(u64),
}

impl FieldRule {
    /// The allowed values in words, as shown in errors and in `config get`.
    pub fn allowed(self) -> String {
        match self {
            FieldRule::Int { min, max } => format!("an integer from {min} to {max}"),
            FieldRule::Bool => "true or false".to_owned(),
            FieldRule::OneOf(values) => format!("one of {}", values.join(", ")),
            FieldRule::OptionalText { max_chars } => {
                format!("text of at most {max_chars} characters, or null to unset")
            }
            FieldRule::Exactly(n) => format!("exactly {n}"),
        }
    }
}

/// One config field: its key, how a person reads it, its rule and meaning.
#[derive(Debug, Clone, Copy)]
pub struct ConfigField {
    pub key: &'static str,
    /// Its name in Settings, in plain words (never the key).
    pub label: &'static str,
    /// The Settings section it is shown in.
    pub section: SettingsSection,
    pub rule: FieldRule,
    /// One line of help, in plain words.
    pub help: &'static str,
    /// How a person reads each listed value of a one-of field (in the rule's order), or `On` and
    /// `Off` for a flag; empty for other rules.
    pub choice_labels: &'static [&'static str],
}

/// The sections of Settings, in the order they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingsSection {
    Capture,
    ModelsAndKeys,
    Brief,
    ReviewAndNightly,
    Search,
    FoldersAndSources,
    /// The sync remote and where sync stands (no config field: the remote is the store's).
    Sync,
    Privacy,
    /// Not the person's to change (the config format's version).
    Internal,
}

impl SettingsSection {
    /// Every section a person sees, in order.
    pub const SHOWN: [SettingsSection; 8] = [
        SettingsSection::Capture,
        SettingsSection::ModelsAndKeys,
        SettingsSection::Brief,
        SettingsSection::ReviewAndNightly,
        SettingsSection::Search,
        SettingsSection::FoldersAndSources,
        SettingsSection::Sync,
        SettingsSection::Privacy,
    ];

    /// The section's id, for anchors and the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingsSection::Capture => "capture",
            SettingsSection::ModelsAndKeys => "models",
            SettingsSection::Brief => "brief",
            SettingsSection::ReviewAndNightly => "review",
            SettingsSection::Search => "search",
            SettingsSection::FoldersAndSources => "sources",
            SettingsSection::Sync => "sync",
            SettingsSection::Privacy => "privacy",
            SettingsSection::Internal => "internal",
        }
    }

    /// The section's heading.
    pub fn title(self) -> &'static str {
        match self {
            SettingsSection::Capture => "Capture",
            SettingsSection::ModelsAndKeys => "Models & keys",
            SettingsSection::Brief => "Brief",
            SettingsSection::ReviewAndNightly => "Review & nightly",
            SettingsSection::Search => "Search",
            SettingsSection::FoldersAndSources => "Folders & sources",
            SettingsSection::Sync => "Sync",
            SettingsSection::Privacy => "Privacy",
            SettingsSection::Internal => "Internal",
        }
    }
}

impl ConfigField {
    /// Whether the setting is the person's wherever they work, so it travels to their other
    /// devices through sync: what is captured and kept, what briefs hold, review and the nightly
    /// job, and what agents may read. Settings that depend on the machine stay on it: the
    /// continuity mode and the models (one machine has a local model, another does not), the
    /// embedder and its files, the folders and the watcher's timing.
    pub fn travels(&self) -> bool {
        match self.section {
            SettingsSection::Capture => self.key != "mode",
            SettingsSection::Brief
            | SettingsSection::ReviewAndNightly
            | SettingsSection::Privacy => true,
            SettingsSection::ModelsAndKeys
            | SettingsSection::Search
            | SettingsSection::FoldersAndSources
            | SettingsSection::Sync
            | SettingsSection::Internal => false,
        }
    }

    /// What the field asks for, said to a person ("Enter a whole number from 1 to 50.").
    pub fn ask(&self) -> String {
        match self.rule {
            FieldRule::Int { min, max } => format!("Enter a whole number from {min} to {max}."),
            FieldRule::Bool => "Choose on or off.".to_owned(),
            FieldRule::OneOf(_) => {
                format!("Choose one of: {}.", self.choices_in_words().join(", "))
            }
            FieldRule::OptionalText { max_chars } => {
                format!("Enter at most {max_chars} characters, or leave it empty.")
            }
            FieldRule::Exactly(n) => format!("This is always {n}."),
        }
    }

    /// The listed values in words, in the rule's order.
    fn choices_in_words(&self) -> Vec<&'static str> {
        match self.rule {
            FieldRule::OneOf(values) if self.choice_labels.len() == values.len() => {
                self.choice_labels.to_vec()
            }
            FieldRule::OneOf(values) => values.to_vec(),
            _ => Vec::new(),
        }
    }

    /// Checks a value as a person typed it, answering with [`ConfigField::ask`] when it does
    /// not fit, so Settings can say what to enter instead of what the parser found.
    pub fn check_input(&self, raw: &str) -> std::result::Result<(), String> {
        let value = parse_typed(self.rule, raw);
        check_value(self.rule, &value).map_err(|problem| match self.rule {
            // The length is worth saying: "Enter at most 120 characters" alone hides how many
            // were typed.
            FieldRule::OptionalText { .. } => format!("{} ({problem}.)", self.ask()),
            _ => self.ask(),
        })
    }
}

const MODES: &[&str] = &["full", "deterministic", "off"];

/// Every field of the continuity config. CSA §5.1 says "positive" for most integers and gives no
/// upper bound; the upper bounds here catch typos (a TTL of 3000 days instead of 30) while leaving
/// far more room than any real use needs.
pub const FIELDS: &[ConfigField] = &[
    ConfigField {
        key: "mode",
        label: "Continuity mode",
        section: SettingsSection::Capture,
        rule: FieldRule::OneOf(MODES),
        help: "How sessions are captured: with a model, offline, or not at all.",
        choice_labels: &["Full", "Deterministic", "Off"],
    },
    ConfigField {
        key: "synthesis_model",
        label: "Model name",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OptionalText { max_chars: 120 },
        help: "The model that writes session summaries in full mode, such as llama3.1:8b.",
        choice_labels: &[],
    },
    ConfigField {
        key: "min_dirty_turns",
        label: "Messages before a session is captured",
        section: SettingsSection::Capture,
        rule: FieldRule::Int { min: 1, max: 1000 },
        help: "How many of your messages make a session worth capturing.",
        choice_labels: &[],
    },
    ConfigField {
        key: "idle_trigger_minutes",
        label: "Capture after a quiet spell (minutes)",
        section: SettingsSection::Capture,
        rule: FieldRule::Int { min: 1, max: 10080 },
        help: "A changed session is captured once it has been quiet this long.",
        choice_labels: &[],
    },
    ConfigField {
        key: "debounce_minutes",
        label: "Capture after switching away (minutes)",
        section: SettingsSection::Capture,
        rule: FieldRule::Int { min: 1, max: 10080 },
        help: "A changed session is captured this long after you move on to another one.",
        choice_labels: &[],
    },
    ConfigField {
        key: "max_session_history_window",
        label: "Sessions kept in view per work context",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 3, max: 25 },
        help: "How many recent session summaries a work context keeps in view for its brief.",
        choice_labels: &[],
    },
    ConfigField {
        key: "session_summary_ttl_days",
        label: "Keep session summaries (days)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 3650 },
        help: "How long a session's summary stays in its work context's view.",
        choice_labels: &[],
    },
    ConfigField {
        key: "open_question_ttl_days",
        label: "Keep open questions (days)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 3650 },
        help: "How long an open question stays in view before it fades.",
        choice_labels: &[],
    },
    ConfigField {
        key: "key_decision_ttl_days",
        label: "Keep decisions (days)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 3650 },
        help: "How long a decision stays in view before it fades.",
        choice_labels: &[],
    },
    ConfigField {
        key: "cross_update_ttl_days_after_delivery",
        label: "Keep news from other work (days after shown)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 3650 },
        help: "How long news from another work context stays once a session has been told.",
        choice_labels: &[],
    },
    ConfigField {
        key: "work_phase_ttl_days",
        label: "Keep work phases (days)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 3650 },
        help: "How long a work phase (drafting, review…) stays in view.",
        choice_labels: &[],
    },
    ConfigField {
        key: "deterministic_heuristic_capture",
        label: "Guess questions and decisions offline",
        section: SettingsSection::Capture,
        rule: FieldRule::Bool,
        help: "Without a model, find open questions and decisions by pattern matching; they are marked as guessed.",
        choice_labels: &["On", "Off"],
    },
    ConfigField {
        key: "auto_project_contexts",
        label: "A work context per project folder",
        section: SettingsSection::Capture,
        rule: FieldRule::Bool,
        help: "Make a work context for each folder your sessions worked in.",
        choice_labels: &["On", "Off"],
    },
    ConfigField {
        key: "transcript_read_max_tokens",
        label: "Longest read of a past session (tokens)",
        section: SettingsSection::Privacy,
        rule: FieldRule::Int {
            min: 200,
            max: 100_000,
        },
        help: "How much of a past session's transcript an agent may read at once.",
        choice_labels: &[],
    },
    ConfigField {
        key: "synthesis_provider",
        label: "Model service",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OneOf(&["ollama", "openai_compatible", "claude_cli", "codex_cli"]),
        help: "The kind of server the model runs on, or an agent CLI you are signed in to.",
        choice_labels: &[
            "Ollama",
            "OpenAI-compatible",
            "Claude Code (your login)",
            "Codex (your login)",
        ],
    },
    ConfigField {
        key: "synthesis_base_url",
        label: "Model server address",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OptionalText { max_chars: 300 },
        help: "Where the model server listens, such as http://localhost:11434; for an agent CLI, \
               its program if it is not on your PATH.",
        choice_labels: &[],
    },
    ConfigField {
        key: "synthesis_timeout_seconds",
        label: "Give up on a model call after (seconds)",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::Int { min: 1, max: 600 },
        help: "A slower call is dropped and the session is summarised the offline way.",
        choice_labels: &[],
    },
    ConfigField {
        key: "max_model_calls_per_hour",
        label: "Model calls per hour, at most",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::Int {
            min: 0,
            max: 10_000,
        },
        help: "A spend guard over any rolling hour; 0 stops all calls.",
        choice_labels: &[],
    },
    ConfigField {
        key: "max_model_calls_per_day",
        label: "Model calls per day, at most",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::Int {
            min: 0,
            max: 100_000,
        },
        help: "A spend guard over any rolling day; 0 stops all calls.",
        choice_labels: &[],
    },
    ConfigField {
        key: "model_knowledge_cutoff",
        label: "The model's knowledge ends",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OptionalText { max_chars: 10 },
        help: "The month its training data ends, such as 2025-06, so briefs can warn about anything newer.",
        choice_labels: &[],
    },
    ConfigField {
        key: "model_date_awareness",
        label: "Does the model know today's date?",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OneOf(&["provider_injected", "requires_injection", "unknown"]),
        help: "Whether its provider tells it the date, or ELNOR must.",
        choice_labels: &["Its provider tells it", "ELNOR must tell it", "Not known"],
    },
    ConfigField {
        key: "model_profile_verified",
        label: "Model details last checked",
        section: SettingsSection::ModelsAndKeys,
        rule: FieldRule::OptionalText { max_chars: 10 },
        help: "The day you last checked the two settings above, such as 2026-11-22.",
        choice_labels: &[],
    },
    ConfigField {
        key: "significance_threshold_pct",
        label: "How notable a name must be to track it (%)",
        section: SettingsSection::Capture,
        rule: FieldRule::Int { min: 1, max: 100 },
        help: "A name mentioned in sessions becomes a tracked entity when it scores above this.",
        choice_labels: &[],
    },
    ConfigField {
        key: "research_gate_multiplier_pct",
        label: "Easier tracking while researching (%)",
        section: SettingsSection::Capture,
        rule: FieldRule::Int { min: 10, max: 100 },
        help: "During research in an active work context the bar above is multiplied by this.",
        choice_labels: &[],
    },
    ConfigField {
        key: "rollup_window_days",
        label: "Recent activity covers (days)",
        section: SettingsSection::Brief,
        rule: FieldRule::Int { min: 1, max: 90 },
        help: "How far back the brief's recent-activity card looks.",
        choice_labels: &[],
    },
    ConfigField {
        key: "trace_retention_assemblies",
        label: "Brief explanations kept",
        section: SettingsSection::Brief,
        rule: FieldRule::Int {
            min: 10,
            max: 100_000,
        },
        help: "How many brief explanations the Inspector keeps; the oldest go first.",
        choice_labels: &[],
    },
    ConfigField {
        key: "promotion_question_days",
        label: "Propose a reminder after (days)",
        section: SettingsSection::ReviewAndNightly,
        rule: FieldRule::Int { min: 1, max: 365 },
        help: "An open question tied to a deadline that stays open this long is proposed as something you must do.",
        choice_labels: &[],
    },
    ConfigField {
        key: "promotion_decision_sessions",
        label: "Propose a standing rule after (sessions)",
        section: SettingsSection::ReviewAndNightly,
        rule: FieldRule::Int { min: 2, max: 50 },
        help: "A decision restated in this many sessions is proposed as something agents should always follow.",
        choice_labels: &[],
    },
    ConfigField {
        key: "nightly_hour",
        label: "Nightly job at (hour)",
        section: SettingsSection::ReviewAndNightly,
        rule: FieldRule::Int { min: 0, max: 23 },
        help: "The local hour, 0 to 23, at which the app runs the nightly job.",
        choice_labels: &[],
    },
    ConfigField {
        key: "node_decay_step_days",
        label: "Trust fades every (days)",
        section: SettingsSection::ReviewAndNightly,
        rule: FieldRule::Int { min: 1, max: 365 },
        help: "Once its sources have aged, approved knowledge steps down one level of trust this often.",
        choice_labels: &[],
    },
    ConfigField {
        key: "watch_debounce_ms",
        label: "Wait after a file change (milliseconds)",
        section: SettingsSection::FoldersAndSources,
        rule: FieldRule::Int {
            min: 50,
            max: 10_000,
        },
        help: "Quiet time before a changed file is read, so a save in progress is not read half-written.",
        choice_labels: &[],
    },
    ConfigField {
        key: "watch_reconcile_minutes",
        label: "Rescan folders every (minutes)",
        section: SettingsSection::FoldersAndSources,
        rule: FieldRule::Int { min: 1, max: 1440 },
        help: "A full rescan catches changes the system did not report.",
        choice_labels: &[],
    },
    ConfigField {
        key: "cross_surface_query_enabled",
        label: "Agents may search your other conversations",
        section: SettingsSection::Privacy,
        rule: FieldRule::Bool,
        help: "Your own searches always work.",
        choice_labels: &["On", "Off"],
    },
    ConfigField {
        key: "query_rate_per_minute",
        label: "Agent searches per minute, per session",
        section: SettingsSection::Privacy,
        rule: FieldRule::Int { min: 0, max: 1000 },
        help: "0 for no limit.",
        choice_labels: &[],
    },
    ConfigField {
        key: "query_rate_per_day",
        label: "Agent searches per day, all agents",
        section: SettingsSection::Privacy,
        rule: FieldRule::Int {
            min: 0,
            max: 100_000,
        },
        help: "0 for no limit.",
        choice_labels: &[],
    },
    ConfigField {
        key: "embedding_provider",
        label: "Search by meaning with",
        section: SettingsSection::Search,
        rule: FieldRule::OneOf(&["builtin", "ollama", "openai_compatible"]),
        help: "The model that turns text into vectors for search by meaning.",
        choice_labels: &[
            "The built-in model, on this computer",
            "Ollama",
            "An OpenAI-compatible service",
        ],
    },
    ConfigField {
        key: "embedding_base_url",
        label: "Embedding server address",
        section: SettingsSection::Search,
        rule: FieldRule::OptionalText { max_chars: 300 },
        help: "Where the embedding server listens; not needed for the built-in model.",
        choice_labels: &[],
    },
    ConfigField {
        key: "embedding_model",
        label: "Embedding model name",
        section: SettingsSection::Search,
        rule: FieldRule::OptionalText { max_chars: 120 },
        help: "Such as nomic-embed-text; not needed for the built-in model.",
        choice_labels: &[],
    },
    ConfigField {
        key: "schema_version",
        label: "Config format version",
        section: SettingsSection::Internal,
        rule: FieldRule::Exactly(CONFIG_SCHEMA_VERSION),
        help: "The version of the config file's format.",
        choice_labels: &[],
    },
];

/// Looks up a field by key.
pub fn field(key: &str) -> Option<&'static ConfigField> {
    FIELDS.iter().find(|f| f.key == key)
}

fn known_keys() -> String {
    FIELDS.iter().map(|f| f.key).collect::<Vec<_>>().join(", ")
}

/// Checks one JSON value against its field's rule, returning the problem in words.
fn check_value(rule: FieldRule, value: &Value) -> std::result::Result<(), String> {
    match (rule, value) {
        (FieldRule::Int { min, max }, Value::Number(n)) => match n.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(()),
            _ => Err(format!("{n} is out of range")),
        },
        (FieldRule::Bool, Value::Bool(_)) => Ok(()),
        (FieldRule::OneOf(values), Value::String(s)) if values.contains(&s.as_str()) => Ok(()),
        (FieldRule::OneOf(_), Value::String(s)) => Err(format!("{s:?} is not a known value")),
        (FieldRule::OptionalText { .. }, Value::Null) => Ok(()),
        (FieldRule::OptionalText { max_chars }, Value::String(s)) => {
            if s.chars().count() > max_chars {
                Err(format!("{} characters is too long", s.chars().count()))
            } else if s.chars().any(char::is_control) {
                Err("contains control characters".to_owned())
            } else {
                Ok(())
            }
        }
        (FieldRule::Exactly(n), Value::Number(v)) if v.as_u64() == Some(n) => Ok(()),
        (FieldRule::Exactly(_), Value::Number(v)) => Err(format!("{v} is not supported")),
        (_, other) => Err(format!("{} has the wrong type", type_name(other))),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ContinuityConfig {
    /// Validates a parsed JSON document and builds the config from it. Missing fields take their
    /// defaults; unknown fields are errors, because a misspelt key would otherwise be ignored.
    pub fn from_json(path: &Path, doc: &Value) -> Result<ContinuityConfig> {
        let Value::Object(map) = doc else {
            return Err(Error::ConfigSyntax {
                path: path.to_owned(),
                problem: format!("expected a JSON object, found {}", type_name(doc)),
            });
        };
        for (key, value) in map {
            let Some(spec) = field(key) else {
                return Err(Error::ConfigField {
                    path: path.to_owned(),
                    field: key.clone(),
                    problem: "unknown field".to_owned(),
                    allowed: format!("the fields {}", known_keys()),
                });
            };
            check_value(spec.rule, value).map_err(|problem| Error::ConfigField {
                path: path.to_owned(),
                field: key.clone(),
                problem,
                allowed: spec.rule.allowed(),
            })?;
        }
        if !map.contains_key("schema_version") {
            return Err(Error::ConfigField {
                path: path.to_owned(),
                field: "schema_version".to_owned(),
                problem: "missing".to_owned(),
                allowed: FieldRule::Exactly(CONFIG_SCHEMA_VERSION).allowed(),
            });
        }
        // Every value has passed its rule, so this conversion only fails on an internal mismatch
        // between FIELDS and the struct; report it as a syntax problem rather than panic.
        serde_json::from_value(doc.clone()).map_err(|e| Error::ConfigSyntax {
            path: path.to_owned(),
            problem: e.to_string(),
        })
    }

    /// Reads and validates the config file at `path`.
    pub fn load(path: &Path) -> Result<ContinuityConfig> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        ContinuityConfig::from_slice(path, &bytes)
    }

    /// Parses and validates a config file's bytes; `path` only names the file in errors. This is
    /// [`Self::load`] without the read, so the fuzz target checks exactly what loading checks.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<ContinuityConfig> {
        let doc: Value = serde_json::from_slice(bytes).map_err(|e| Error::ConfigSyntax {
            path: path.to_owned(),
            problem: format!("not valid JSON ({e})"),
        })?;
        ContinuityConfig::from_json(path, &doc)
    }

    /// Writes the config atomically (temp file, fsync, rename).
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| Error::ConfigSyntax {
            path: path.to_owned(),
            problem: e.to_string(),
        })?;
        text.push('\n');
        atomic_write(path, text.as_bytes())
    }

    /// The config as a JSON object, with every field present (unset options as `null`).
    pub fn to_json(&self) -> Map<String, Value> {
        let mut map = match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        for key in [
            "synthesis_model",
            "synthesis_base_url",
            "model_knowledge_cutoff",
            "model_profile_verified",
            "embedding_base_url",
            "embedding_model",
        ] {
            map.entry(key).or_insert(Value::Null);
        }
        map
    }

    /// The value of one field, by key.
    pub fn get(&self, key: &str) -> Result<Value> {
        if field(key).is_none() {
            return Err(Error::UnknownConfigKey {
                key: key.to_owned(),
                known: known_keys(),
            });
        }
        Ok(self.to_json().remove(key).unwrap_or(Value::Null))
    }

    /// Returns a copy with `key` set from its textual form (as typed on a command line), after
    /// validating it against the field's rule. `path` only names the file in errors.
    pub fn with_value(&self, path: &Path, key: &str, raw: &str) -> Result<ContinuityConfig> {
        let spec = field(key).ok_or_else(|| Error::UnknownConfigKey {
            key: key.to_owned(),
            known: known_keys(),
        })?;
        let value = parse_typed(spec.rule, raw);
        let mut doc = self.to_json();
        doc.insert(key.to_owned(), value);
        ContinuityConfig::from_json(path, &Value::Object(doc))
    }
}

/// Interprets command-line text by the field's rule: numbers and booleans become JSON numbers and
/// booleans when they parse, `null` unsets optional text, and anything else stays a string so the
/// validator can name the problem.
fn parse_typed(rule: FieldRule, raw: &str) -> Value {
    let raw = raw.trim();
    match rule {
        FieldRule::Int { .. } | FieldRule::Exactly(_) => raw
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(raw.to_owned())),
        FieldRule::Bool => match raw {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::String(other.to_owned()),
        },
        FieldRule::OptionalText { .. } if raw == "null" || raw.is_empty() => Value::Null,
        FieldRule::OptionalText { .. } | FieldRule::OneOf(_) => Value::String(raw.to_owned()),
    }
}

/// The config file of a store, with load / set under a lock so that the app, the CLI and the MCP
/// server changing settings at once never lose each other's changes.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    path: PathBuf,
    lock_path: PathBuf,
}

impl ConfigFile {
    pub(crate) fn new(config_dir: &Path) -> ConfigFile {
        ConfigFile {
            path: config_dir.join("continuity_config.json"),
            lock_path: config_dir.join(".continuity_config.lock"),
        }
    }

    /// The config file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the defaults if no config file exists yet; an existing file is left alone.
    pub(crate) fn ensure_exists(&self) -> Result<()> {
        let _lock = LockGuard::acquire(&self.lock_path)?;
        if !self.path.exists() {
            ContinuityConfig::default().save(&self.path)?;
        }
        Ok(())
    }

    /// Loads and validates the config.
    pub fn load(&self) -> Result<ContinuityConfig> {
        ContinuityConfig::load(&self.path)
    }

    /// Sets one field from its textual form and saves atomically. The current file must itself be
    /// valid: a broken file is reported, never silently replaced.
    pub fn set(&self, key: &str, raw: &str) -> Result<ContinuityConfig> {
        let _lock = LockGuard::acquire(&self.lock_path)?;
        let updated = self.load()?.with_value(&self.path, key, raw)?;
        updated.save(&self.path)?;
        Ok(updated)
    }

    /// Sets the continuity mode.
    pub fn set_mode(&self, mode: ContinuityMode) -> Result<ContinuityConfig> {
        self.set("mode", mode.as_str())
    }
}

#[cfg(test)]
mod tests;
