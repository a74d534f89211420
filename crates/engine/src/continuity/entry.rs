//! Continuity entry types, field for field as CSA §3.2 (`schema_version: 2`), with the decay
//! rule of CSA §3.3.
//!
//! On disk an entry is one JSON object whose `entry_type` says how to read its `content`. Serde
//! goes through [`RawEntry`] so that the content is parsed strictly by its declared type, and an
//! entry whose type and content disagree is rejected as a whole rather than half-read.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::base::config::ContinuityConfig;
use crate::base::error::{Error, Result};
use crate::base::ids::{AgentId, EntityId, EntryId, SessionId, WorkContextId};

/// The log's schema version.
pub const ENTRY_SCHEMA_VERSION: u32 = 2;

/// The five entry types of CSA §3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryType {
    SessionSummaryRef,
    OpenQuestion,
    KeyDecision,
    CrossConversationUpdate,
    WorkPhaseChange,
}

impl EntryType {
    /// Every entry type, in CSA order.
    pub const ALL: [EntryType; 5] = [
        EntryType::SessionSummaryRef,
        EntryType::OpenQuestion,
        EntryType::KeyDecision,
        EntryType::CrossConversationUpdate,
        EntryType::WorkPhaseChange,
    ];

    /// The type's name as written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryType::SessionSummaryRef => "session_summary_ref",
            EntryType::OpenQuestion => "open_question",
            EntryType::KeyDecision => "key_decision",
            EntryType::CrossConversationUpdate => "cross_conversation_update",
            EntryType::WorkPhaseChange => "work_phase_change",
        }
    }

    /// Parses a type name as written in the log.
    pub fn parse(s: &str) -> Option<EntryType> {
        EntryType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Days an entry of this type lives, from the config (CSA §3.3).
    pub fn ttl_days(self, config: &ContinuityConfig) -> u32 {
        match self {
            EntryType::SessionSummaryRef => config.session_summary_ttl_days,
            EntryType::OpenQuestion => config.open_question_ttl_days,
            EntryType::KeyDecision => config.key_decision_ttl_days,
            // The TTL runs from delivery; until then, capture time stands in for it, so an update
            // nobody ever reads still leaves the log in bounded time.
            EntryType::CrossConversationUpdate => config.cross_update_ttl_days_after_delivery,
            EntryType::WorkPhaseChange => config.work_phase_ttl_days,
        }
    }
}

/// How an entry was captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureMode {
    Deterministic,
    LlmEnriched,
}

/// Work phases (CSA §4.1 `active_work_phase`, a superset of the §3.2 comment's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkPhase {
    Research,
    Drafting,
    Review,
    Revision,
    WaitingForExternal,
    Completed,
    Paused,
    Unknown,
}

/// Points at a session summary instead of carrying its narrative (CSA §3.2, R2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSummaryRefContent {
    pub doc73_session_summary_id: String,
    #[serde(default)]
    pub entities_referenced: Vec<String>,
    #[serde(default)]
    pub procedures_executed: Vec<String>,
    #[serde(default)]
    pub tools_used: Vec<String>,
    pub turn_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_minutes: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenQuestionContent {
    pub question: String,
    #[serde(default)]
    pub context: String,
    #[serde(default)]
    pub resolved: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_summary: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyDecisionContent {
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// The `entry_id` of a later decision that replaces this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<EntryId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossConversationUpdateContent {
    pub summary: String,
    pub source_session_id: SessionId,
    #[serde(default)]
    pub affected_entity_ids: Vec<EntityId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkPhaseChangeContent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_phase: Option<WorkPhase>,
    pub new_phase: WorkPhase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// An entry's content; its variant is the entry's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryContent {
    SessionSummaryRef(SessionSummaryRefContent),
    OpenQuestion(OpenQuestionContent),
    KeyDecision(KeyDecisionContent),
    CrossConversationUpdate(CrossConversationUpdateContent),
    WorkPhaseChange(WorkPhaseChangeContent),
}

impl EntryContent {
    /// The entry type this content belongs to.
    pub fn entry_type(&self) -> EntryType {
        match self {
            EntryContent::SessionSummaryRef(_) => EntryType::SessionSummaryRef,
            EntryContent::OpenQuestion(_) => EntryType::OpenQuestion,
            EntryContent::KeyDecision(_) => EntryType::KeyDecision,
            EntryContent::CrossConversationUpdate(_) => EntryType::CrossConversationUpdate,
            EntryContent::WorkPhaseChange(_) => EntryType::WorkPhaseChange,
        }
    }

    /// One line of text that says what the entry is about, for listings.
    pub fn headline(&self) -> String {
        match self {
            EntryContent::SessionSummaryRef(c) => format!(
                "session summary {} ({} turns)",
                c.doc73_session_summary_id, c.turn_count
            ),
            EntryContent::OpenQuestion(c) => c.question.clone(),
            EntryContent::KeyDecision(c) => c.decision.clone(),
            EntryContent::CrossConversationUpdate(c) => c.summary.clone(),
            EntryContent::WorkPhaseChange(c) => format!(
                "phase → {}",
                serde_json::to_value(c.new_phase)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ),
        }
    }

    fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        match self {
            EntryContent::SessionSummaryRef(c) => serde_json::to_value(c),
            EntryContent::OpenQuestion(c) => serde_json::to_value(c),
            EntryContent::KeyDecision(c) => serde_json::to_value(c),
            EntryContent::CrossConversationUpdate(c) => serde_json::to_value(c),
            EntryContent::WorkPhaseChange(c) => serde_json::to_value(c),
        }
    }

    fn from_value(entry_type: EntryType, value: serde_json::Value) -> serde_json::Result<Self> {
        Ok(match entry_type {
            EntryType::SessionSummaryRef => {
                EntryContent::SessionSummaryRef(serde_json::from_value(value)?)
            }
            EntryType::OpenQuestion => EntryContent::OpenQuestion(serde_json::from_value(value)?),
            EntryType::KeyDecision => EntryContent::KeyDecision(serde_json::from_value(value)?),
            EntryType::CrossConversationUpdate => {
                EntryContent::CrossConversationUpdate(serde_json::from_value(value)?)
            }
            EntryType::WorkPhaseChange => {
                EntryContent::WorkPhaseChange(serde_json::from_value(value)?)
            }
        })
    }
}

/// One continuity log entry (CSA §3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawEntry", into = "RawEntry")]
pub struct ContinuityEntry {
    pub entry_id: EntryId,
    pub source_session_id: SessionId,
    pub source_agent_id: Option<AgentId>,
    /// When ELNOR captured the entry.
    pub captured_at: DateTime<Utc>,
    /// When the work it records happened: the last turn of the captured window, or the
    /// observation's time. Absent on entries written before issue 14 and on hand-written ones,
    /// which happened when they were captured. Every time rule reads [`Self::happened_at`].
    pub source_at: Option<DateTime<Utc>>,
    pub capture_mode: CaptureMode,
    pub content: EntryContent,
    pub delivered: bool,
    pub promoted_to_graph: bool,
    pub promoted_node_id: Option<String>,
    pub decay_at: DateTime<Utc>,
    pub linked_entity_ids: Vec<EntityId>,
    pub work_context_id: WorkContextId,
    pub linked_doc73_session_summary_id: Option<String>,
}

impl ContinuityEntry {
    /// A fresh, undelivered, unpromoted entry whose `decay_at` follows the config's TTL for its
    /// type, and whose id is derived from the capture time and a process-local counter.
    pub fn new(
        work_context_id: WorkContextId,
        source_session_id: SessionId,
        captured_at: DateTime<Utc>,
        capture_mode: CaptureMode,
        content: EntryContent,
        config: &ContinuityConfig,
    ) -> ContinuityEntry {
        let ttl = Duration::days(i64::from(content.entry_type().ttl_days(config)));
        ContinuityEntry {
            entry_id: EntryId::new(fresh_entry_id(captured_at))
                .expect("generated entry ids are short and printable"),
            source_session_id,
            source_agent_id: None,
            captured_at,
            source_at: None,
            capture_mode,
            content,
            delivered: false,
            promoted_to_graph: false,
            promoted_node_id: None,
            decay_at: captured_at + ttl,
            linked_entity_ids: Vec::new(),
            work_context_id,
            linked_doc73_session_summary_id: None,
        }
    }

    /// Records when the work happened, and lets the type's time-to-live run from then: a
    /// question raised 20 days ago decays as a 20-day-old question, whenever ELNOR read it.
    pub fn happened(mut self, at: DateTime<Utc>, config: &ContinuityConfig) -> ContinuityEntry {
        let ttl = Duration::days(i64::from(self.entry_type().ttl_days(config)));
        self.source_at = Some(at);
        self.decay_at = at + ttl;
        self
    }

    /// When the work happened: the source time when known, else the capture time.
    pub fn happened_at(&self) -> DateTime<Utc> {
        self.source_at.unwrap_or(self.captured_at)
    }

    /// The entry's type.
    pub fn entry_type(&self) -> EntryType {
        self.content.entry_type()
    }

    /// Whether the entry came from the heuristic detectors (a deterministic open question or key
    /// decision, CSA §5.3), which every view marks as reduced confidence.
    pub fn is_reduced_confidence(&self) -> bool {
        self.capture_mode == CaptureMode::Deterministic
            && matches!(
                self.entry_type(),
                EntryType::OpenQuestion | EntryType::KeyDecision
            )
    }

    /// Whether the entry has decayed at `now`.
    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        self.decay_at <= now
    }
}

/// `ce_{capture time in µs}_{pid}_{counter}`: unique across processes appending at once, and
/// sortable by capture time.
fn fresh_entry_id(at: DateTime<Utc>) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("ce_{}_{}_{n}", at.timestamp_micros(), std::process::id())
}

/// The on-disk shape of an entry.
#[derive(Serialize, Deserialize)]
struct RawEntry {
    entry_id: EntryId,
    entry_type: EntryType,
    source_session_id: SessionId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source_agent_id: Option<AgentId>,
    captured_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source_at: Option<DateTime<Utc>>,
    capture_mode: CaptureMode,
    content: serde_json::Value,
    #[serde(default)]
    delivered: bool,
    #[serde(default)]
    promoted_to_graph: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    promoted_node_id: Option<String>,
    decay_at: DateTime<Utc>,
    #[serde(default)]
    linked_entity_ids: Vec<EntityId>,
    work_context_id: WorkContextId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    linked_doc73_session_summary_id: Option<String>,
    schema_version: u32,
}

impl TryFrom<RawEntry> for ContinuityEntry {
    type Error = String;

    fn try_from(raw: RawEntry) -> std::result::Result<Self, String> {
        if raw.schema_version != ENTRY_SCHEMA_VERSION {
            return Err(format!(
                "schema_version {} is not supported (expected {ENTRY_SCHEMA_VERSION})",
                raw.schema_version
            ));
        }
        let content = EntryContent::from_value(raw.entry_type, raw.content)
            .map_err(|e| format!("content of {} entry: {e}", raw.entry_type.as_str()))?;
        Ok(ContinuityEntry {
            entry_id: raw.entry_id,
            source_session_id: raw.source_session_id,
            source_agent_id: raw.source_agent_id,
            captured_at: raw.captured_at,
            source_at: raw.source_at,
            capture_mode: raw.capture_mode,
            content,
            delivered: raw.delivered,
            promoted_to_graph: raw.promoted_to_graph,
            promoted_node_id: raw.promoted_node_id,
            decay_at: raw.decay_at,
            linked_entity_ids: raw.linked_entity_ids,
            work_context_id: raw.work_context_id,
            linked_doc73_session_summary_id: raw.linked_doc73_session_summary_id,
        })
    }
}

impl From<ContinuityEntry> for RawEntry {
    fn from(entry: ContinuityEntry) -> RawEntry {
        RawEntry {
            entry_id: entry.entry_id,
            entry_type: entry.content.entry_type(),
            source_session_id: entry.source_session_id,
            source_agent_id: entry.source_agent_id,
            captured_at: entry.captured_at,
            source_at: entry.source_at,
            capture_mode: entry.capture_mode,
            // Content types are plain structs of strings, numbers and lists; serialising them to
            // a JSON value cannot fail, and `Null` would be rejected on read rather than lost.
            content: entry.content.to_value().unwrap_or(serde_json::Value::Null),
            delivered: entry.delivered,
            promoted_to_graph: entry.promoted_to_graph,
            promoted_node_id: entry.promoted_node_id,
            decay_at: entry.decay_at,
            linked_entity_ids: entry.linked_entity_ids,
            work_context_id: entry.work_context_id,
            linked_doc73_session_summary_id: entry.linked_doc73_session_summary_id,
            schema_version: ENTRY_SCHEMA_VERSION,
        }
    }
}

impl ContinuityEntry {
    /// Serialises the entry as one log line (without the newline).
    pub fn to_line(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| Error::InvalidEntry(e.to_string()))
    }

    /// Parses one log line.
    pub fn from_line(line: &[u8]) -> std::result::Result<ContinuityEntry, String> {
        serde_json::from_slice(line).map_err(|e| e.to_string())
    }
}
