//! The typed wire between the Leptos UI (wasm32) and the Tauri shell (native).
//!
//! Every command the UI may invoke is named in [`commands`], with its request and response types
//! here. This crate depends on serde alone so it compiles for both targets, and it knows nothing
//! of the engine: the shell converts engine types into these.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A command the UI may invoke, tied at compile time to its wire name, what it takes and what it
/// answers. The UI's one `invoke::<C>` and the shell's handler signatures both use these types, so
/// neither can send or expect anything else.
pub trait Command {
    /// The name the shell registers the handler under (`noun_verb`, as every command is named).
    const NAME: &'static str;
    /// Whether the handler takes a `request` argument; the UI sends `{"request": …}` when it
    /// does and `{}` when it does not.
    const TAKES_REQUEST: bool;
    /// What the UI sends as `request`; `()` when nothing.
    type Request: Serialize + for<'de> Deserialize<'de>;
    /// What the shell answers on success.
    type Reply: Serialize + for<'de> Deserialize<'de>;
}

/// The request a command takes, for the shell's handler signatures.
pub type RequestOf<C> = <C as Command>::Request;

/// What a command's handler returns: its reply, or the engine's refusal.
pub type ReplyOf<C> = Result<<C as Command>::Reply, CommandError>;

/// Declares one unit struct per command with its [`Command`] impl, and [`commands::ALL`].
macro_rules! commands {
    ($($(#[$doc:meta])* $name:ident = $wire:literal ($($request:ty)?) -> $reply:ty;)*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl crate::Command for $name {
                const NAME: &'static str = $wire;
                const TAKES_REQUEST: bool = commands!(@takes $($request)?);
                type Request = commands!(@request $($request)?);
                type Reply = $reply;
            }
        )*

        /// Every command's name, in declaration order: what the shell's handler list, its
        /// permissions and its capability must each name exactly once.
        pub const ALL: &[&str] = &[$($wire),*];
    };
    (@takes) => { false };
    (@takes $request:ty) => { true };
    (@request) => { () };
    (@request $request:ty) => { $request };
}

/// The commands the UI may invoke, named `noun_verb` (`sessions_list`, `review_approve`), shared
/// so the UI and the shell cannot drift apart.
pub mod commands {
    use super::*;

    commands! {
        /// `status_get`: `() -> StoreStatus`
        StatusGet = "status_get"() -> StoreStatus;
        /// `settings_get`: `() -> Settings`
        SettingsGet = "settings_get"() -> Settings;
        /// `settings_set_mode`: `SetModeRequest -> Settings`
        SettingsSetMode = "settings_set_mode"(SetModeRequest) -> Settings;
        /// `sessions_list`: `SessionListRequest -> Vec<SessionRow>`
        SessionsList = "sessions_list"(SessionListRequest) -> Vec<SessionRow>;
        /// `turns_list`: `TurnPageRequest -> TurnPage`
        TurnsList = "turns_list"(TurnPageRequest) -> TurnPage;
        /// `sources_list`: `() -> Vec<SourceRow>`
        SourcesList = "sources_list"() -> Vec<SourceRow>;
        /// `sources_add`: `AddSourceRequest -> Vec<SourceRow>`
        SourcesAdd = "sources_add"(AddSourceRequest) -> Vec<SourceRow>;
        /// `sources_set_enabled`: `SetSourceEnabledRequest -> Vec<SourceRow>`
        SourcesSetEnabled = "sources_set_enabled"(SetSourceEnabledRequest) -> Vec<SourceRow>;
        /// `ingest_start`: `() -> IngestStatus`
        /// (starts an ingest of the enabled sources unless one is running)
        IngestStart = "ingest_start"() -> IngestStatus;
        /// `ingest_get`: `() -> IngestStatus`
        IngestGet = "ingest_get"() -> IngestStatus;
        /// `work_contexts_list`: `() -> Vec<WorkContextRow>` (most recently active first)
        WorkContextsList = "work_contexts_list"() -> Vec<WorkContextRow>;
        /// `today_get`: `() -> TodayView` (what needs the person first, then their projects;
        /// reading it is the person looking, remembered for "moved since you last looked")
        TodayGet = "today_get"() -> TodayView;
        /// `health_get`: `() -> CaptureHealth` (per transcript source what ingest saw of it, per
        /// harness what it recorded lately and whether it went silent, its hooks, and OpenClaw's
        /// Dreaming)
        HealthGet = "health_get"() -> CaptureHealth;
        /// `dreaming_disable`: `() -> DreamingChanged` (writes `enabled: false` for Dreaming into
        /// OpenClaw's config, after a backup; refused with the line to add when it cannot be
        /// edited safely)
        DreamingDisable = "dreaming_disable"() -> DreamingChanged;
        /// `heads_get`: `HeadsRequest -> HeadsView` (the global head or one thread head as a
        /// refresh would write it now, with what did not fit, the edits kept from its blocks and
        /// its deferred writes, and the list of thread heads)
        HeadsGet = "heads_get"(HeadsRequest) -> HeadsView;
        /// `heads_refresh`: `() -> HeadsRefreshed` (rewrites every head under `heads/` now and
        /// retries the deferred writes)
        HeadsRefresh = "heads_refresh"() -> HeadsRefreshed;
        /// `head_write_to`: `HeadWriteRequest -> HeadWriteOutcome` (writes a head into a marked
        /// block of a file the person names, every byte around the block kept)
        HeadWriteTo = "head_write_to"(HeadWriteRequest) -> HeadWriteOutcome;
        /// `projects_list`: `() -> Vec<ProjectOverviewRow>`
        /// (the projects found in the history, newest work first)
        ProjectsList = "projects_list"() -> Vec<ProjectOverviewRow>;
        /// `work_contexts_get`: `WorkContextRef -> WorkContextDetail`
        WorkContextsGet = "work_contexts_get"(WorkContextRef) -> WorkContextDetail;
        /// `work_contexts_create`: `CreateWorkContextRequest -> WorkContextRow`
        WorkContextsCreate = "work_contexts_create"(CreateWorkContextRequest) -> WorkContextRow;
        /// `work_contexts_edit`: `EditWorkContextRequest -> WorkContextRow`
        WorkContextsEdit = "work_contexts_edit"(EditWorkContextRequest) -> WorkContextRow;
        /// `link_rules_add`: `AddLinkRuleRequest -> WorkContextRow`
        LinkRulesAdd = "link_rules_add"(AddLinkRuleRequest) -> WorkContextRow;
        /// `link_rules_remove`: `RemoveLinkRuleRequest -> WorkContextRow`
        LinkRulesRemove = "link_rules_remove"(RemoveLinkRuleRequest) -> WorkContextRow;
        /// `work_contexts_link_entity`: `EntityLinkRequest -> WorkContextRow`
        WorkContextsLinkEntity = "work_contexts_link_entity"(EntityLinkRequest) -> WorkContextRow;
        /// `work_contexts_unlink_entity`: `EntityLinkRequest -> WorkContextRow`
        WorkContextsUnlinkEntity = "work_contexts_unlink_entity"(EntityLinkRequest) -> WorkContextRow;
        /// `entities_list`: `EntityListRequest -> Vec<EntityRow>`
        EntitiesList = "entities_list"(EntityListRequest) -> Vec<EntityRow>;
        /// `entities_create`: `CreateEntityRequest -> EntityRow`
        EntitiesCreate = "entities_create"(CreateEntityRequest) -> EntityRow;
        /// `entities_edit`: `EditEntityRequest -> EntityRow`
        EntitiesEdit = "entities_edit"(EditEntityRequest) -> EntityRow;
        /// `entities_merge`: `MergeRequest -> EntityRow` (keep and absorb are entity ids)
        EntitiesMerge = "entities_merge"(MergeRequest) -> EntityRow;
        /// `work_contexts_merge`: `MergeRequest -> WorkContextRow`
        /// (keep and absorb are work context ids)
        WorkContextsMerge = "work_contexts_merge"(MergeRequest) -> WorkContextRow;
        /// `continuity_get`: `() -> ContinuitySettings`
        ContinuityGet = "continuity_get"() -> ContinuitySettings;
        /// `continuity_set_field`: `SetConfigFieldRequest -> ConfigFields`
        ContinuitySetField = "continuity_set_field"(SetConfigFieldRequest) -> ConfigFields;
        /// `api_key_set`: `SetApiKeyRequest -> ApiKeyStatus`
        ApiKeySet = "api_key_set"(SetApiKeyRequest) -> ApiKeyStatus;
        /// `api_key_clear`: `() -> ApiKeyStatus`
        ApiKeyClear = "api_key_clear"() -> ApiKeyStatus;
        /// `api_key_status`: `() -> ApiKeyStatus` (asks the OS keyring, when the person opens the
        /// key's settings, not before)
        ApiKeyStatusGet = "api_key_status"() -> ApiKeyStatus;
        /// `model_test`: `() -> ConnectionTest`
        ModelTest = "model_test"() -> ConnectionTest;
        /// `model_detect`: `() -> Vec<FoundModel>` (a local Ollama and its models, the agent
        /// CLIs on PATH)
        ModelDetect = "model_detect"() -> Vec<super::FoundModel>;
        /// `brief_preview`: `BriefPreviewRequest -> BriefPreview`
        /// (always a preview: nothing is marked delivered)
        BriefPreview = "brief_preview"(BriefPreviewRequest) -> super::BriefPreview;
        /// `constellation_get`: `WorkContextRef -> ConstellationView`
        ConstellationGet = "constellation_get"(WorkContextRef) -> ConstellationView;
        /// `assemblies_list`: `AssemblyListRequest -> Vec<AssemblyRow>`
        AssembliesList = "assemblies_list"(AssemblyListRequest) -> Vec<AssemblyRow>;
        /// `assemblies_get`: `AssemblyRef -> AssemblyDetail`
        AssembliesGet = "assemblies_get"(AssemblyRef) -> AssemblyDetail;
        /// `lineage_expand`: `LineageRequest -> LineageWindow` (where in its session's transcript
        /// a brief line or an entry came from: the window of turns, located in the transcript
        /// view, without their text, which the viewer pages itself)
        LineageExpand = "lineage_expand"(LineageRequest) -> LineageWindow;
        /// `lineage_node`: `LineageNodeRequest -> LineageNodeDetail` (the node of the lineage
        /// DAG a brief line, an entry, a summary, a turn or a node id sits in, with the nodes
        /// around it, its entries, the brief lines that cited it and its turns)
        LineageNode = "lineage_node"(LineageNodeRequest) -> LineageNodeDetail;
        /// `living_facts_list`: `() -> LivingFacts`
        LivingFactsList = "living_facts_list"() -> LivingFacts;
        /// `living_facts_add`: `AddFactRequest -> LivingFacts`
        LivingFactsAdd = "living_facts_add"(AddFactRequest) -> LivingFacts;
        /// `living_facts_edit`: `EditFactRequest -> LivingFacts`
        LivingFactsEdit = "living_facts_edit"(EditFactRequest) -> LivingFacts;
        /// `living_facts_remove`: `FactRef -> LivingFacts`
        LivingFactsRemove = "living_facts_remove"(FactRef) -> LivingFacts;
        /// `rollup_refresh`: `() -> RollupView` (regenerates Tier 2's rollup now)
        RollupRefresh = "rollup_refresh"() -> RollupView;
        /// `review_list`: `ReviewListRequest -> ReviewQueue`
        ReviewList = "review_list"(ReviewListRequest) -> ReviewQueue;
        /// `review_get`: `ProposalRef -> ProposalDetail`
        ReviewGet = "review_get"(ProposalRef) -> ProposalDetail;
        /// `review_approve`: `ApproveRequest -> ReviewOutcome` (writes the graph)
        ReviewApprove = "review_approve"(ApproveRequest) -> ReviewOutcome;
        /// `review_reject`: `RejectRequest -> ReviewOutcome`
        ReviewReject = "review_reject"(RejectRequest) -> ReviewOutcome;
        /// `review_defer`: `ProposalIds -> ReviewOutcome`
        ReviewDefer = "review_defer"(ProposalIds) -> ReviewOutcome;
        /// `review_evaluate`: `() -> EvaluationSummary` (the promotion rules, now)
        ReviewEvaluate = "review_evaluate"() -> EvaluationSummary;
        /// `review_count`: `() -> PendingCount`
        ReviewCount = "review_count"() -> PendingCount;
        /// `nightly_get`: `() -> NightlyStatus`
        NightlyGet = "nightly_get"() -> NightlyStatus;
        /// `nightly_run`: `() -> NightlyReportRow` (runs the nightly job now, unless it is running)
        NightlyRun = "nightly_run"() -> NightlyReportRow;
        /// `knowledge_list`: `KnowledgeListRequest -> KnowledgeList`
        KnowledgeList = "knowledge_list"(KnowledgeListRequest) -> super::KnowledgeList;
        /// `knowledge_get`: `NodeRef -> NodeDetail`
        KnowledgeGet = "knowledge_get"(NodeRef) -> NodeDetail;
        /// `knowledge_edit`: `NodeTextRequest -> NodeDetail` (the person's correction of the text)
        KnowledgeEdit = "knowledge_edit"(NodeTextRequest) -> NodeDetail;
        /// `knowledge_confirm`: `NodeRef -> NodeDetail`
        KnowledgeConfirm = "knowledge_confirm"(NodeRef) -> NodeDetail;
        /// `knowledge_set_warrant`: `NodeWarrantRequest -> NodeDetail`
        KnowledgeSetWarrant = "knowledge_set_warrant"(NodeWarrantRequest) -> NodeDetail;
        /// `knowledge_retire`: `NodeRetireRequest -> NodeDetail`
        KnowledgeRetire = "knowledge_retire"(NodeRetireRequest) -> NodeDetail;
        /// `knowledge_supersede`: `NodeTextRequest -> NodeDetail`
        /// (the new node that replaces the named one)
        KnowledgeSupersede = "knowledge_supersede"(NodeTextRequest) -> NodeDetail;
        /// `observations_push`: `PushRequest -> PushOutcome` ("I just did X")
        ObservationsPush = "observations_push"(PushRequest) -> PushOutcome;
        /// `observations_preview_push`: `PushRequest -> PushPreview` (where a push would reach,
        /// nothing stored)
        ObservationsPreviewPush = "observations_preview_push"(PushRequest) -> PushPreview;
        /// `observations_list`: `ObservationListRequest -> Vec<ObservationRow>`
        ObservationsList = "observations_list"(ObservationListRequest) -> Vec<ObservationRow>;
        /// `observations_get`: `ObservationRef -> ObservationRow`
        ObservationsGet = "observations_get"(ObservationRef) -> ObservationRow;
        /// `timeline_get`: `TimelineRequest -> Timeline`
        TimelineGet = "timeline_get"(TimelineRequest) -> Timeline;
        /// `search_query`: `SearchQueryRequest -> SearchResults`
        /// (everything said and written, every hit with why it ranked where it did)
        SearchQuery = "search_query"(SearchQueryRequest) -> SearchResults;
        /// `embeddings_get`: `() -> EmbedCoverage`
        /// (the configured embedder, and how far its embeddings reach)
        EmbeddingsGet = "embeddings_get"() -> EmbedCoverage;
        /// `library_collections_list`: `() -> Vec<LibraryCollectionRow>`
        /// (every tracked folder, with its document count)
        LibraryCollectionsList = "library_collections_list"() -> Vec<LibraryCollectionRow>;
        /// `library_collection_add`: `LibraryFolderRequest -> LibraryCollectionRow`
        /// (tracks the folder and records its documents at once)
        LibraryCollectionAdd = "library_collection_add"(LibraryFolderRequest) -> LibraryCollectionRow;
        /// `library_documents_list`: `LibraryDocumentsRequest -> Vec<LibraryDocumentRow>`
        LibraryDocumentsList = "library_documents_list"(LibraryDocumentsRequest) -> Vec<LibraryDocumentRow>;
        /// `library_document_get`: `LibraryDocumentRef -> LibraryDocumentDetail`
        /// (the file rendered, its outline, and who refers to it)
        LibraryDocumentGet = "library_document_get"(LibraryDocumentRef) -> LibraryDocumentDetail;
        /// `topics_list`: `() -> Vec<TopicListRow>` (by name, with member counts)
        TopicsList = "topics_list"() -> Vec<TopicListRow>;
        /// `topic_get`: `TopicRef -> TopicDetail` (the lens now: its members, each with why)
        TopicGet = "topic_get"(TopicRef) -> TopicDetail;
        /// `topic_create`: `CreateTopicRequest -> TopicChanged`
        /// (a directive that is on proposes its backfill at once)
        TopicCreate = "topic_create"(CreateTopicRequest) -> TopicChanged;
        /// `topic_edit`: `EditTopicRequest -> TopicChanged`
        TopicEdit = "topic_edit"(EditTopicRequest) -> TopicChanged;
        /// `topic_delete`: `TopicRef -> ()` (no document goes with it)
        TopicDelete = "topic_delete"(TopicRef) -> ();
        /// `topic_member_pin`: `TopicMemberRequest -> MembershipRow`
        TopicMemberPin = "topic_member_pin"(TopicMemberRequest) -> MembershipRow;
        /// `topic_member_unpin`: `TopicMemberRequest -> ()`
        /// (takes a pinned or approved member out; it is not proposed again)
        TopicMemberUnpin = "topic_member_unpin"(TopicMemberRequest) -> ();
        /// `memberships_list`: `() -> Vec<MembershipProposalRow>`
        /// (the Topic membership proposals waiting in the review queue)
        MembershipsList = "memberships_list"() -> Vec<MembershipProposalRow>;
        /// `memberships_decide`: `MembershipDecision -> MembershipOutcomeRow`
        MembershipsDecide = "memberships_decide"(MembershipDecision) -> MembershipOutcomeRow;
        /// `tracked_folders_get`: `() -> TrackedFolders`
        TrackedFoldersGet = "tracked_folders_get"() -> TrackedFolders;
        /// `tracked_folders_add`: `TrackedFolderRequest -> TrackedFolders`
        TrackedFoldersAdd = "tracked_folders_add"(TrackedFolderRequest) -> TrackedFolders;
        /// `tracked_folders_remove`: `TrackedFolderRequest -> TrackedFolders`
        TrackedFoldersRemove = "tracked_folders_remove"(TrackedFolderRequest) -> TrackedFolders;
        /// `ignore_patterns_set`: `IgnorePatternsRequest -> TrackedFolders`
        IgnorePatternsSet = "ignore_patterns_set"(IgnorePatternsRequest) -> TrackedFolders;
        /// `model_download_start`: `() -> JobStatus`
        /// (fetches the built-in embedding model in the background, unless it is being fetched)
        ModelDownloadStart = "model_download_start"() -> JobStatus;
        /// `embeddings_start`: `() -> JobStatus`
        /// (embeds every indexed document that has no vector yet, in the background)
        EmbeddingsStart = "embeddings_start"() -> JobStatus;
        /// `reindex_start`: `() -> JobStatus`
        /// (deletes the search index and builds it again, in the background)
        ReindexStart = "reindex_start"() -> JobStatus;
        /// `reconstruct_start`: `ReconstructStartRequest -> JobStatus` (captures the stored turns
        /// again into a scratch store and compares, in the background; with `apply`, then makes
        /// the live store match; the report is the job's `result`)
        ReconstructStart = "reconstruct_start"(ReconstructStartRequest) -> JobStatus;
        /// `job_cancel`: `JobRef -> JobStatus` (asks a running job to stop at its next check)
        JobCancel = "job_cancel"(JobRef) -> JobStatus;
        /// `jobs_get`: `() -> Vec<JobStatus>` (every kind of job, in `JobKind::ALL` order)
        JobsGet = "jobs_get"() -> Vec<JobStatus>;
        /// `sync_get`: `() -> SyncView` (where sync stands, without the network: the remote, the
        /// last sync, what waits to be sent, the devices, what came in last, the conflicts, and
        /// the background sync's state)
        SyncGet = "sync_get"() -> SyncView;
        /// `sync_run`: `SyncRunRequest -> SyncRan` (sets the remote when given, then syncs now)
        SyncRun = "sync_run"(SyncRunRequest) -> SyncRan;
    }
}

/// Reply of [`commands::SyncGet`]: Settings → Sync and the sidebar's light.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncView {
    pub device: String,
    pub device_name: Option<String>,
    /// The remote, when one is set: sync is off until then.
    pub remote: Option<String>,
    pub owner: Option<String>,
    /// RFC 3339.
    pub last_sync_at: Option<String>,
    pub unsent_entries: u64,
    pub unsent_changes: u64,
    pub ahead_commits: u64,
    pub behind_commits: u64,
    /// The devices that wrote to the remote.
    pub devices: Vec<SyncDeviceRow>,
    /// What the last sync that brought anything brought, in a sentence, and when.
    pub last_arrival: Option<String>,
    pub last_arrival_at: Option<String>,
    /// Every conflict sync resolved, newest first.
    pub conflicts: Vec<SyncConflictRow>,
    /// Whether a sync is running now (the background one or the button's).
    pub running: bool,
    /// Why the last sync failed or could not reach the remote, until one succeeds.
    pub problem: Option<String>,
    /// `off` (no remote), `synced`, `waiting` (something to send, or offline), `failed` or
    /// `running`: the sidebar's light.
    pub light: String,
}

/// One device of [`SyncView`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncDeviceRow {
    pub device: String,
    pub name: String,
    /// Whether it is this machine.
    pub this: bool,
}

/// One resolved conflict of [`SyncView`]: two devices wrote one field, the later write is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncConflictRow {
    pub subject: String,
    pub field: String,
    pub kept_device: String,
    pub kept_value: String,
    pub lost_device: String,
    pub lost_value: String,
    pub found_at: String,
}

/// Request of [`commands::SyncRun`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncRunRequest {
    /// Set (or change) the remote: a git URL or a bare repository's path.
    pub remote: Option<String>,
    /// Whose memory this is; by default the person's git `user.email`.
    pub owner: Option<String>,
}

/// Reply of [`commands::SyncRun`]: what the sync did, and where sync stands after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncRan {
    pub pushed: bool,
    /// Why the remote could not be reached (the work is committed here and goes next time).
    pub offline: Option<String>,
    pub sent_entries: u64,
    pub sent_changes: u64,
    /// What arrived, in a sentence; `None` when nothing did.
    pub arrival: Option<String>,
    /// Conflicts this sync resolved.
    pub conflicts: u64,
    pub view: SyncView,
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

/// Request of [`commands::SettingsSetMode`].
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
    /// What the session is called: the harness's own title when it says something, else the
    /// person's first request, else the harness's slug; `None` when there is none of them.
    pub title: Option<String>,
    pub cwd: Option<String>,
    pub has_summary: bool,
    /// The session that spawned this one (sub-agents) or that it branched from.
    pub parent_session_id: Option<String>,
    /// `primary` (a person at work), `subagent` or `internal` (the harness's own run).
    pub session_kind: String,
    /// Why a session is not `primary`.
    pub kind_reason: Option<String>,
    /// The git branch the harness last recorded the session on.
    #[serde(default)]
    pub git_branch: Option<String>,
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
    /// Our id of the turn: what a search hit names, so the viewer can find the turn it opens.
    pub turn_id: String,
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
    /// What the continuity agent captured after the last ingest, in words.
    pub last_capture: Option<String>,
}

/// One link rule of a work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkRuleRow {
    pub rule_id: i64,
    /// `cwd`, `session_key` or `entity_set`.
    pub kind: String,
    pub pattern: String,
}

/// One work context in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkContextRow {
    pub work_context_id: String,
    pub name: String,
    pub domain_lineage: Option<String>,
    /// `project` (made for a project folder found in the history), `named` (made or renamed by
    /// the person) or `auto` (made by capture from the entities).
    pub origin: String,
    pub local_only: bool,
    pub entity_ids: Vec<String>,
    pub rules: Vec<LinkRuleRow>,
    pub session_count: u64,
    /// When the newest session's last turn happened (RFC 3339): when the work was.
    pub last_active_at: Option<String>,
}

/// One project in the first-run overview: where its work stood when its last session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectOverviewRow {
    pub work_context_id: String,
    pub name: String,
    pub origin: String,
    pub session_count: u64,
    /// RFC 3339, when the work happened.
    pub last_active_at: Option<String>,
    /// The latest recorded work phase.
    pub phase: Option<String>,
    /// The latest session summary.
    pub latest_summary: Option<String>,
    /// Unresolved open questions, newest first (at most three).
    pub open_questions: Vec<String>,
    /// Of those, how many the heuristic detectors found (reduced confidence).
    pub heuristic_questions: u64,
}

/// An open question waiting on the person, in a work context active lately.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingQuestionRow {
    pub work_context_id: String,
    pub context_name: String,
    pub question: String,
    /// RFC 3339: when it was first asked.
    pub asked_at: String,
    /// Whole days it has been open.
    pub days_open: u32,
    /// Found by the heuristic detectors.
    pub heuristic: bool,
    /// The session it was asked in.
    #[serde(default)]
    pub source_session_id: String,
}

/// A work context with sessions since the person last looked at Today.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedContextRow {
    pub work_context_id: String,
    pub name: String,
    pub sessions_since: u64,
    /// RFC 3339.
    pub last_active_at: String,
}

/// A capture health problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthAlertRow {
    /// `harness_quiet`, `no_sources`, `no_model`, `nightly_overdue`, `unreadable_lines`,
    /// `hook_never_fired` or `dreaming_on`.
    pub kind: String,
    /// What is wrong and what to do, in the person's words.
    pub message: String,
}

/// Today: what needs the person first, then their projects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodayView {
    /// Proposals waiting in Review (the number the Review page lists).
    pub pending_reviews: u32,
    /// The longest-waiting open questions of lately active contexts, the person's first.
    pub waiting_questions: Vec<WaitingQuestionRow>,
    /// All such questions, of which `waiting_questions` is the head.
    pub waiting_question_count: u32,
    /// RFC 3339: when the person looked before this visit (`None` on the first).
    pub last_looked_at: Option<String>,
    pub moved: Vec<MovedContextRow>,
    pub alerts: Vec<HealthAlertRow>,
    /// Projects, newest work first.
    pub projects: Vec<ProjectOverviewRow>,
    /// Every project found in the history (the Work contexts page's Projects group).
    pub project_count: u32,
}

/// One transcript source (a harness's folder or database) on the Health page, as ingest has
/// seen it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceHealthRow {
    /// `claude_code`, `codex` or `openclaw`.
    pub harness: String,
    /// The folder (or database) as the person added it.
    pub root: String,
    pub enabled: bool,
    /// Whether the folder is there now.
    pub exists: bool,
    /// Transcript files ingest has read under it.
    pub files: u64,
    /// When the newest of those files last changed, as an age at `checked_at` (RFC 3339 beside it
    /// for the exact time).
    pub last_file_change: Option<Age>,
    /// When ingest last read one of them.
    pub last_read: Option<Age>,
    /// Lines that could not be read: malformed JSON, invalid text encoding, oversized lines.
    pub problems: u64,
    /// Records of a kind ingest does not know; kept raw, counted here.
    pub unknown_records: u64,
    /// Records read from its files, and the conversation turns they made.
    #[serde(default)]
    pub records: u64,
    #[serde(default)]
    pub turns: u64,
    /// Records read and kept out of the conversation on purpose, by type.
    #[serde(default)]
    pub skipped: Vec<RecordTypeRow>,
    /// Records not understood, by type, each with a file and line holding one.
    #[serde(default)]
    pub not_understood: Vec<RecordTypeRow>,
}

/// Records of one type: how many, and where one of them is (for records not understood).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordTypeRow {
    pub record_type: String,
    pub count: u64,
    pub sample_path: Option<String>,
    pub sample_line: Option<u64>,
}

/// A transcript file that lost turns: records ELNOR could not read, and none or few read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LostFileRow {
    pub path: String,
    pub records: u64,
    pub turns: u64,
    pub not_understood: Vec<RecordTypeRow>,
}

/// A moment on the Health page: when it was, and how long before the report it was, so the page
/// can say "3 hours ago" without a clock of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Age {
    /// RFC 3339.
    pub at: String,
    /// Whole minutes between it and the report's `checked_at` (negative when it is later, as a
    /// file touched after a replayed clock).
    pub minutes_ago: i64,
}

/// One harness on the Health page: what it recorded lately and whether it went quiet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessHealthRow {
    /// `claude_code`, `codex` or `openclaw`.
    pub harness: String,
    /// Sessions with a turn in the last day and in the last week, and their turns.
    pub sessions_day: u64,
    pub sessions_week: u64,
    pub turns_day: u64,
    pub turns_week: u64,
    /// When its newest session's last turn happened.
    pub last_session: Option<Age>,
    /// The usual time between the starts of its sessions (`None` with too few to say).
    pub usual_gap_hours: Option<i64>,
    /// Quiet for far longer than its usual gap.
    pub silent: bool,
    /// Sessions the person worked in that ended without being captured.
    pub uncaptured: u64,
}

/// Reply of [`commands::HealthGet`]: whether ELNOR is still hearing from every agent the person
/// uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureHealth {
    /// RFC 3339: the moment the report describes.
    pub checked_at: String,
    /// Every transcript source, in the order the sources file lists them.
    pub sources: Vec<SourceHealthRow>,
    /// Every harness ELNOR reads, whether or not it has a source.
    pub harnesses: Vec<HarnessHealthRow>,
    /// Every hook ELNOR installs for Claude Code and Codex, and any other that fired, by harness.
    pub hooks: Vec<HookRow>,
    /// Whether OpenClaw's Dreaming runs beside ELNOR.
    pub dreaming: DreamingRow,
    /// Transcript files that lost turns to records ELNOR could not read.
    #[serde(default)]
    pub lost_files: Vec<LostFileRow>,
}

/// One hook of one harness on the Health page: whether the harness's settings install it, and
/// whether it has fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRow {
    /// `claude_code`, `codex` or `openclaw`.
    pub harness: String,
    /// The event as the harness names it: `SessionStart`, `PreCompact`, `SessionEnd`, …
    pub event: String,
    /// The harness's settings run ELNOR for this event.
    pub installed: bool,
    /// The settings file that holds the hook (or would: the one set-up writes).
    pub settings_file: String,
    /// When the hook last fired, as an age at the report's `checked_at`.
    pub last_fired: Option<Age>,
    pub times_fired: u64,
    /// Why the settings file could not be read; `installed` is then false.
    pub problem: Option<String>,
    /// The terminal command that installs ELNOR's hooks for this harness, such as
    /// `elnor setup claude-code`.
    pub setup_command: String,
}

/// Whether OpenClaw's Dreaming runs, on the Health page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DreamingRow {
    /// `on`, `off`, `no_config` (OpenClaw has no config file here) or `unreadable`.
    pub state: String,
    /// On because the config says so, rather than by OpenClaw's default.
    pub explicit: bool,
    /// Why the config could not be read, when `state` is `unreadable`.
    pub problem: Option<String>,
    /// OpenClaw's config file.
    pub file: String,
    /// What Dreaming does and what its state means for ELNOR, in plain words.
    pub what_it_does: String,
    /// The exact line that turns Dreaming off, for a person who edits the file by hand.
    pub line_to_add: String,
}

/// Reply of [`commands::DreamingDisable`]: what turning Dreaming off changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DreamingChanged {
    /// OpenClaw's config file.
    pub file: String,
    /// Where the old config was copied before the write (`None` when nothing was written).
    pub backup: Option<String>,
    /// Whether the config changed: false when it already said Dreaming is off.
    pub changed: bool,
    /// Whether the file was written.
    pub written: bool,
}

/// Names one work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkContextRef {
    pub work_context_id: String,
}

/// One continuity log entry, rendered for reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContinuityEntryRow {
    pub entry_id: String,
    /// `session_summary_ref`, `open_question`, `key_decision`, `cross_conversation_update` or
    /// `work_phase_change`.
    pub entry_type: String,
    /// The question, decision, update or phase, in one line.
    pub headline: String,
    /// The question's context, the decision's rationale or the phase change's reason.
    pub detail: Option<String>,
    /// `deterministic` or `llm_enriched`.
    pub capture_mode: String,
    /// A question or decision found by the heuristic detectors rather than the model: shown with
    /// reduced confidence.
    pub reduced_confidence: bool,
    /// An open question that has been answered.
    pub resolved: bool,
    /// RFC 3339.
    pub captured_at: String,
    pub source_session_id: String,
    pub delivered: bool,
}

/// A work context with its entities and its continuity log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkContextDetail {
    pub context: WorkContextRow,
    pub entities: Vec<EntityRow>,
    /// The newest work phase, when a phase change was captured.
    pub current_phase: Option<String>,
    /// Every readable entry, newest first.
    pub entries: Vec<ContinuityEntryRow>,
    /// Unreadable log lines that were skipped (and left in place).
    pub skipped_lines: u64,
}

/// Request of [`commands::WorkContextsCreate`]; empty rule fields mean no rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateWorkContextRequest {
    pub name: String,
    pub cwd: Option<String>,
    pub session_key: Option<String>,
    pub local_only: bool,
}

/// Request of [`commands::WorkContextsEdit`]; `None` leaves a field alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditWorkContextRequest {
    pub work_context_id: String,
    pub name: Option<String>,
    pub local_only: Option<bool>,
}

/// Request of [`commands::WorkContextsLinkEntity`] and [`commands::WorkContextsUnlinkEntity`]:
/// one entity linked to (or taken from) one work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityLinkRequest {
    pub work_context_id: String,
    pub entity_id: String,
}

/// Request of [`commands::LinkRulesAdd`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddLinkRuleRequest {
    pub work_context_id: String,
    /// `cwd`, `session_key` or `entity_set`.
    pub kind: String,
    pub pattern: String,
}

/// Request of [`commands::LinkRulesRemove`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoveLinkRuleRequest {
    pub work_context_id: String,
    pub rule_id: i64,
}

/// One entity of the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityRow {
    pub entity_id: String,
    pub kind: String,
    pub canonical_name: String,
    pub aliases: Vec<String>,
    pub deadline: Option<String>,
}

/// Request of [`commands::EntitiesList`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityListRequest {
    pub kind: Option<String>,
}

/// Request of [`commands::EntitiesCreate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateEntityRequest {
    pub kind: String,
    pub canonical_name: String,
    pub aliases: Vec<String>,
    pub deadline: Option<String>,
}

/// Request of [`commands::EntitiesEdit`]: `None` and empty lists leave a field alone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditEntityRequest {
    pub entity_id: String,
    pub canonical_name: Option<String>,
    pub kind: Option<String>,
    pub add_aliases: Vec<String>,
    pub remove_aliases: Vec<String>,
    pub deadline: Option<String>,
    pub clear_deadline: bool,
}

/// Request of [`commands::EntitiesMerge`] and [`commands::WorkContextsMerge`]: `absorb` is
/// merged into `keep`, which remains.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeRequest {
    pub keep: String,
    pub absorb: String,
}

/// One field of the continuity config, as text the person can edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigFieldRow {
    pub key: String,
    /// Its name in Settings, in plain words.
    pub label: String,
    /// The id of the Settings section it belongs to (see [`ConfigFields::sections`]).
    pub section: String,
    /// The current value as text; empty when an optional field is unset.
    pub value: String,
    /// The allowed values, in words.
    pub allowed: String,
    /// What the field means.
    pub help: String,
    /// The listed values of a one-of field (a select), or `true`/`false` for a flag.
    pub choices: Vec<String>,
    /// How a person reads each of `choices`, in the same order.
    pub choice_labels: Vec<String>,
    /// What to enter, said to a person ("Enter a whole number from 1 to 50.").
    pub ask: String,
    /// Whether a change travels to the person's other devices through sync; the others are
    /// this machine's alone (the mode, models, embedder, folders).
    #[serde(default)]
    pub travels: bool,
}

/// A section of Settings: its id (an anchor) and heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsSectionRow {
    pub id: String,
    pub title: String,
}

/// Every continuity config field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigFields {
    pub fields: Vec<ConfigFieldRow>,
    /// The sections a person sees, in order; the internal fields belong to none of them.
    pub sections: Vec<SettingsSectionRow>,
    pub config_path: String,
}

/// The Continuity section of Settings. The API key itself never crosses the wire: the UI only
/// learns whether one is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContinuitySettings {
    pub config: ConfigFields,
}

/// Request of [`commands::ContinuitySetField`]: the value as typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetConfigFieldRequest {
    pub key: String,
    pub value: String,
}

/// Request of [`commands::ApiKeySet`]. Its `Debug` hides the key, so it cannot reach a log.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetApiKeyRequest {
    pub api_key: String,
}

impl std::fmt::Debug for SetApiKeyRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SetApiKeyRequest { api_key: <hidden> }")
    }
}

/// Whether the synthesis model's API key is stored in the OS keyring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyStatus {
    pub has_api_key: bool,
}

/// A model this machine offers for full mode without a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoundModel {
    /// The `synthesis_provider` value that selects it.
    pub provider: String,
    /// The Ollama server's address, or the CLI's program.
    pub at: String,
    /// The models Ollama has pulled (empty for an agent CLI).
    pub models: Vec<String>,
}

/// The result of a model connection test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionTest {
    pub ok: bool,
    /// The model's reply when `ok`, else why the call failed.
    pub message: String,
}

/// Request of [`commands::BriefPreview`]: what a fresh session would tell the engine about
/// itself. Every field is optional; an explicit work context wins over the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefPreviewRequest {
    pub work_context_id: Option<String>,
    pub cwd: Option<String>,
    pub session_id: Option<String>,
    /// The surface's token budget for the cards; `None` means the engine's maximum.
    pub budget: Option<u32>,
}

/// One rendered line of a card, with its BPE count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefLine {
    pub text: String,
    pub tokens: u32,
}

/// One candidate a brief assembly considered, and what it decided about it and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceItemRow {
    /// Its place in a recorded trace, which names it to `lineage_expand`; `None` on a brief's
    /// cards, whose lines are named by the stored trace instead.
    #[serde(default)]
    pub ordinal: Option<i64>,
    /// 1, 2 or 3.
    pub tier: u8,
    /// `constellation`, `summary`, `entry`, `update`, `node`, `segment`, `fact` or `directive`.
    pub kind: String,
    /// The entry, summary, node, fact or work context id it came from.
    pub source_id: Option<String>,
    pub session_id: Option<String>,
    /// The last transcript turn the capture behind it saw.
    pub turn_seq: Option<i64>,
    pub work_context_id: Option<String>,
    pub text: String,
    pub tokens: u32,
    /// `included`, `dropped` (by a budget step) or `excluded` (by a rule).
    pub decision: String,
    /// The reason code, such as `within_budget`, `card_limit` or `current_context`.
    pub reason: String,
    /// The reason in words, with the numbers that decided it.
    pub detail: String,
}

/// One card of a brief.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefCard {
    pub tier: u8,
    /// `continuity`, `recent_activity` or `living_memory`.
    pub card_type: String,
    pub tag: String,
    pub tokens: u32,
    pub lines: Vec<BriefLine>,
    /// The trace items shown on this card, in card order.
    pub items: Vec<TraceItemRow>,
}

/// The work context a brief is for, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextChoiceRow {
    pub work_context_id: String,
    pub name: String,
    /// How it was chosen, in words.
    pub how: String,
}

/// The brief a fresh session would get now, as previewed (nothing was marked delivered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BriefPreview {
    /// The stored trace's id, for the Inspector.
    pub assembly_id: i64,
    /// The whole brief as the agent would read it.
    pub text: String,
    pub cards: Vec<BriefCard>,
    /// Tokens of the cards, at most `budget`.
    pub total_tokens: u32,
    /// Tokens of the temporal block and the preamble around the cards.
    pub envelope_tokens: u32,
    pub budget: u32,
    /// The engine's ceiling for any budget.
    pub max_budget: u32,
    /// Each tier's own cap, Tier 1 first.
    pub tier_caps: [u32; 3],
    pub work_context: Option<ContextChoiceRow>,
    /// The constellation view used was out of date; it is being rebuilt.
    pub stale: bool,
    pub warnings: Vec<String>,
}

/// One session in a constellation's session history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionHistoryRow {
    pub entry_id: String,
    pub source_session_id: String,
    /// RFC 3339.
    pub captured_at: String,
    /// RFC 3339: the session's last turn when known, else the capture time.
    pub last_activity_at: String,
    pub turn_seq: Option<i64>,
    pub summary: String,
    /// The card line for the session.
    pub line: String,
    pub tokens: u32,
}

/// One open question, key decision or cross-conversation update of a constellation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstellationItemRow {
    pub entry_id: String,
    /// The question, decision or update.
    pub text: String,
    /// The question's context or the decision's rationale.
    pub detail: Option<String>,
    /// Found by the heuristic detectors rather than the model.
    pub reduced_confidence: bool,
    pub source_session_id: String,
    /// RFC 3339.
    pub captured_at: String,
    pub turn_seq: Option<i64>,
    pub tokens: u32,
}

/// A goal or obligation linked to the work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstellationNodeRow {
    pub node_id: String,
    /// `goal` or `obligation`.
    pub kind: String,
    pub text: String,
    pub due_at: Option<String>,
}

/// A log entry the view left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExcludedRow {
    pub entry_id: String,
    /// The entry type.
    pub kind: String,
    pub text: String,
    /// `decayed`, `resolved`, `superseded`, `delivered`, `over_cap` or `outside_window`.
    pub reason: String,
    pub detail: String,
}

/// A work context's constellation view (where the work stands) and the Tier 1 card a fresh
/// session in it would get now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstellationView {
    pub work_context_id: String,
    pub work_context_name: String,
    pub local_only: bool,
    /// The UTC day the view was built for.
    pub as_of: String,
    /// The view no longer matches the log; it was served as is and is being rebuilt.
    pub stale: bool,
    /// The active work phase, in words.
    pub active_work_phase: String,
    pub header: String,
    pub effective_window: u32,
    pub sessions_in_last_30_days: u32,
    pub session_history: Vec<SessionHistoryRow>,
    pub open_questions: Vec<ConstellationItemRow>,
    pub key_decisions: Vec<ConstellationItemRow>,
    pub cross_conversation_updates: Vec<ConstellationItemRow>,
    pub goals: Vec<ConstellationNodeRow>,
    pub obligations: Vec<ConstellationNodeRow>,
    pub entity_count: u32,
    pub excluded: Vec<ExcludedRow>,
    pub skipped_lines: u32,
    /// The Tier 1 card a fresh session in this context would get now, when it would get one.
    pub tier1: Option<BriefCard>,
    /// Why there is no Tier 1 card, when there is none.
    pub tier1_absent_reason: Option<String>,
    /// The preview assembly behind `tier1`, for the Inspector.
    pub tier1_assembly_id: i64,
    /// Tier 1's cap in tokens.
    pub tier1_cap: u32,
}

/// Request of [`commands::AssembliesList`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssemblyListRequest {
    pub work_context_id: Option<String>,
    /// At most this many, newest first; `None` means a default page.
    pub limit: Option<u32>,
    /// Also the previews (the app's looks at a brief); deliveries only when unset.
    #[serde(default)]
    pub include_previews: bool,
}

/// One brief assembly, as listed in the Inspector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssemblyRow {
    pub assembly_id: i64,
    /// RFC 3339.
    pub created_at: String,
    /// `delivered` or `preview`.
    pub delivery: String,
    pub format: String,
    pub work_context_id: Option<String>,
    /// How the work context was chosen, in words.
    pub resolution: String,
    pub session_id: Option<String>,
    pub budget: u32,
    pub total_tokens: u32,
    /// Tokens of each tier's card, Tier 1 first.
    pub tier_tokens: [u32; 3],
    pub envelope_tokens: u32,
    pub stale: bool,
    pub included: u32,
    pub dropped: u32,
    pub excluded: u32,
}

/// Names one brief assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssemblyRef {
    pub assembly_id: i64,
}

/// One assembly with every candidate it considered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssemblyDetail {
    pub summary: AssemblyRow,
    pub warnings: Vec<String>,
    /// The request as JSON text.
    pub request: String,
    /// The brief's text as delivered or previewed.
    pub output: String,
    /// In the order the assembly considered them.
    pub items: Vec<TraceItemRow>,
}

/// Request of [`commands::LineageExpand`]: what to trace back to its turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum LineageRequest {
    /// One line of a recorded brief: its assembly and its place in the trace.
    TraceLine { assembly_id: i64, ordinal: i64 },
    /// A continuity entry; naming its work context saves reading every log to find it.
    Entry {
        entry_id: String,
        work_context_id: Option<String>,
    },
    /// A session summary, by its id (`ss_…`).
    Summary { summary_id: String },
    /// One turn of a session, by its `seq`.
    Turn { session_id: String, seq: i64 },
    /// A node of the lineage DAG, by its id; only a node over raw turns has a window.
    Node { node_id: String },
}

/// Reply of [`commands::LineageExpand`]: the turns of one session a brief line or an entry came
/// from, as the transcript viewer finds them (rows counted as [`commands::TurnsList`] pages them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageWindow {
    /// What was traced, in words.
    pub source: String,
    pub session_id: String,
    pub work_context_id: Option<String>,
    /// The window: turns after `after_seq` (from the start when `None`), up to and including
    /// `through_seq` (to the end when `None`).
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    /// The bounds were recorded with the line (true) or found by time (false).
    pub exact: bool,
    /// How the window was found, in words.
    pub how: String,
    /// How many of the window's turns the transcript viewer shows.
    pub turns: u64,
    /// The viewer's rows of the window's first and last turns (0-based), when it shows any.
    pub first_position: Option<u64>,
    pub last_position: Option<u64>,
    /// The window's last turn: our id, and its time (RFC 3339) when the transcript has one.
    pub last_turn_id: Option<String>,
    pub last_at: Option<String>,
}

/// Request of [`commands::LineageNode`]: the node to show, named directly or through anything
/// that sits in it, seen from one agent's lineage when `agent_scope` is given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageNodeRequest {
    pub source: LineageRequest,
    /// `harness` or `harness:agent`; a node of another agent is then not found.
    pub agent_scope: Option<String>,
}

/// What a node of the lineage DAG is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineageNodeKind {
    /// Our capture's summary of a window of a session's turns.
    SessionSummary,
    /// The summary a harness wrote when it compacted a session's context.
    CompactionSummary,
    /// Ours: several older nodes of one work context and agent condensed into one.
    Condensation,
    /// A durable node the person approved, over the capture its entry came from.
    Knowledge,
}

impl LineageNodeKind {
    /// Whether the node covers raw turns directly (its session's window) rather than nodes.
    pub fn covers_turns(self) -> bool {
        matches!(
            self,
            LineageNodeKind::SessionSummary | LineageNodeKind::CompactionSummary
        )
    }
}

/// One node of the lineage DAG with its metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineageNodeInfo {
    pub node_id: String,
    pub kind: LineageNodeKind,
    /// 0 over raw turns, one more than its highest child otherwise.
    pub level: u32,
    pub work_context_id: String,
    /// The work context's name, when it is still in the graph.
    pub work_context_name: Option<String>,
    /// `harness` or `harness:agent`.
    pub agent_scope: String,
    /// The session of a node over raw turns, and its window: turns after `after_seq` (from the
    /// start when `None`) through `through_seq`.
    pub session_id: Option<String>,
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    /// Raw turns reachable below the node.
    pub turn_count: u64,
    /// RFC 3339.
    pub earliest_at: Option<String>,
    pub latest_at: Option<String>,
    /// `deterministic` or `llm` (our capture), `harness` (a compaction), `review` (approved).
    pub method: String,
    pub model: Option<String>,
    /// 1 when the coverage was recorded, less when it was worked out afterwards.
    pub confidence: f64,
    pub text: String,
    pub tokens: u64,
    /// Tokens of what it covers: its children's texts, or its turns'.
    pub covered_tokens: u64,
    /// A condensation that could not be smaller than its children.
    pub trivial: bool,
}

/// A node next to the one shown (parent, child or sibling), compact enough for a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageNodeRow {
    pub node_id: String,
    pub kind: LineageNodeKind,
    pub level: u32,
    pub session_id: Option<String>,
    /// RFC 3339.
    pub latest_at: Option<String>,
    /// The first line of its text.
    pub first_line: String,
}

/// A continuity entry linked to a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageEntryRow {
    pub entry_id: String,
    /// `session_summary_ref`, `open_question`, `key_decision`, …
    pub entry_type: String,
    /// The entry in one line.
    pub text: String,
    /// RFC 3339.
    pub captured_at: String,
}

/// A brief line that cited a node or one of its entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitingLineRow {
    pub assembly_id: i64,
    pub ordinal: i64,
    /// RFC 3339.
    pub assembled_at: String,
    pub session_id: Option<String>,
    /// `included`, `dropped` or `excluded`.
    pub decision: String,
    pub text: String,
}

/// One turn of a node's window, as the bounded, redacted transcript read gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageTurnRow {
    pub seq: i64,
    pub turn_id: String,
    /// `user`, `assistant`, `system` or `tool`.
    pub role: String,
    /// A redacted, bounded excerpt.
    pub text: String,
    /// RFC 3339, when the transcript has one.
    pub at: Option<String>,
}

/// The turns of a node over raw turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageTurns {
    pub session_id: String,
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    /// The bounds were recorded (true) or worked out (false).
    pub exact: bool,
    /// How the window was found, in words.
    pub how: String,
    /// The window's newest turns that fit the read's budget, oldest first.
    pub turns: Vec<LineageTurnRow>,
    /// Older turns of the window were left out for the budget, or a turn was cut.
    pub truncated: bool,
}

/// Reply of [`commands::LineageNode`]: one node of the lineage DAG and everything around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineageNodeDetail {
    pub node: LineageNodeInfo,
    /// The nodes that cover it: condensations and approved knowledge.
    pub parents: Vec<LineageNodeRow>,
    /// The nodes it covers (none for a node over raw turns: see `turns`).
    pub children: Vec<LineageNodeRow>,
    /// Its parents' other children, or the nodes just before and after it in its thread.
    pub siblings: Vec<LineageNodeRow>,
    /// The continuity entries its capture wrote, or the entry knowledge was promoted from.
    pub entries: Vec<LineageEntryRow>,
    /// Brief lines that cited it or one of its entries, newest first.
    pub brief_lines: Vec<CitingLineRow>,
    /// Its window of turns, for a node over raw turns.
    pub turns: Option<LineageTurns>,
}

/// One of the person's facts or preferences (Tier 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivingFactRow {
    pub fact_id: i64,
    pub text: String,
    /// 1-based order in Tier 3.
    pub position: i64,
    pub tokens: u32,
    /// RFC 3339.
    pub updated_at: String,
}

/// Every fact, in Tier 3 order, and the tier's budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LivingFacts {
    pub facts: Vec<LivingFactRow>,
    /// Tier 3's cap in tokens.
    pub tier3_cap: u32,
}

/// Request of [`commands::LivingFactsAdd`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddFactRequest {
    pub text: String,
}

/// Request of [`commands::LivingFactsEdit`]; `None` leaves a field alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditFactRequest {
    pub fact_id: i64,
    pub text: Option<String>,
    /// The new place, 1 = first; the others shift.
    pub position: Option<i64>,
}

/// Names one fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactRef {
    pub fact_id: i64,
}

/// One work context's segment of the Tier 2 rollup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollupSegmentRow {
    pub work_context_id: String,
    /// RFC 3339.
    pub last_activity: String,
    pub local_only: bool,
    pub text: String,
    pub tokens: u32,
}

/// The Tier 2 rollup of recent activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollupView {
    pub as_of: String,
    pub window_days: u32,
    pub segments: Vec<RollupSegmentRow>,
}

/// Which promotion rule made a proposal (CSA §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalRule {
    /// An open question unresolved for long enough and linked to an entity with a deadline:
    /// proposes an `obligation`.
    UnresolvedQuestion,
    /// A key decision stated in enough sessions: proposes a `memory_directive`.
    ReferencedDecision,
}

impl ProposalRule {
    /// The stored name of the rule.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalRule::UnresolvedQuestion => "unresolved_question",
            ProposalRule::ReferencedDecision => "referenced_decision",
        }
    }
}

/// Where a proposal stands in the review queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    Pending,
    Approved,
    Rejected,
    /// Put aside: still in the queue, after the pending ones.
    Deferred,
}

impl ProposalStatus {
    /// The stored name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Approved => "approved",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Deferred => "deferred",
        }
    }

    /// Whether the person can still approve, reject or defer it.
    pub fn is_open(self) -> bool {
        matches!(self, ProposalStatus::Pending | ProposalStatus::Deferred)
    }
}

/// What a proposal rests on, as the rule saw it when it proposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalEvidenceRow {
    /// When the entry was first captured, RFC 3339.
    pub captured_at: String,
    /// Days since it was captured, at evaluation.
    pub age_days: i64,
    /// Every session that recorded or restated it, oldest first.
    pub sessions: Vec<String>,
    /// The entity and its deadline behind a proposed obligation.
    pub entity_id: Option<String>,
    pub entity_name: Option<String>,
    /// RFC 3339.
    pub deadline: Option<String>,
    /// The rule's threshold and what the evidence reached, in words.
    pub because: String,
}

/// One proposal, pending or decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalRow {
    pub proposal_id: i64,
    pub rule: ProposalRule,
    /// `obligation` or `memory_directive`.
    pub node_kind: String,
    pub work_context_id: String,
    /// The context's name, when it is still in the graph.
    pub work_context_name: Option<String>,
    /// The continuity entry the proposal comes from.
    pub entry_id: String,
    /// The text the node would get.
    pub text: String,
    pub status: ProposalStatus,
    /// The rejection reason, or "approved with an edit".
    pub decision_note: Option<String>,
    /// The node an approval wrote.
    pub node_id: Option<String>,
    /// The rejected proposal this one renews: proposed again because new evidence arrived.
    pub renews: Option<i64>,
    /// RFC 3339.
    pub created_at: String,
    pub decided_at: Option<String>,
    pub evidence: ProposalEvidenceRow,
}

/// Request of [`commands::ReviewList`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewListRequest {
    /// Decided proposals too, not only the queue (pending, then deferred).
    pub all: bool,
}

/// The thresholds the promotion rules use now, from the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromotionRules {
    /// An open question linked to a deadline is proposed after this many days unresolved.
    pub question_days: u32,
    /// A key decision is proposed once stated in this many sessions.
    pub decision_sessions: u32,
    /// The local hour at which the app runs the nightly job.
    pub nightly_hour: u32,
}

/// The review queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewQueue {
    /// Pending proposals newest first, then deferred ones (and decided ones when asked).
    pub proposals: Vec<ProposalRow>,
    pub pending: u32,
    pub deferred: u32,
    /// The rules' thresholds, unless the config cannot be read.
    pub rules: Option<PromotionRules>,
    pub config_error: Option<String>,
}

/// Names one proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalRef {
    pub proposal_id: i64,
}

/// A session behind a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceSessionRow {
    pub session_id: String,
    /// The session that recorded the entry; the others restated it.
    pub recorded: bool,
    /// Whether its transcript is in the store (the fields below come from it).
    pub ingested: bool,
    pub harness: Option<String>,
    pub title: Option<String>,
    /// RFC 3339.
    pub started_at: Option<String>,
    pub last_activity_at: Option<String>,
}

/// One proposal with its evidence laid out for a decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalDetail {
    pub proposal: ProposalRow,
    /// The continuity entry as captured, unless its log no longer holds it.
    pub entry: Option<ContinuityEntryRow>,
    pub sessions: Vec<EvidenceSessionRow>,
    /// The rejected proposal this one renews, with the reason it was rejected.
    pub renewed: Option<ProposalRow>,
}

/// Request of [`commands::ReviewApprove`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApproveRequest {
    pub proposal_ids: Vec<i64>,
    /// The person's own wording; only with a single proposal.
    pub text: Option<String>,
}

/// Request of [`commands::ReviewReject`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectRequest {
    pub proposal_ids: Vec<i64>,
    /// Why, kept with every proposal rejected.
    pub reason: Option<String>,
}

/// Request of [`commands::ReviewDefer`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalIds {
    pub proposal_ids: Vec<i64>,
}

/// A proposal a batch could not decide, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalFailure {
    pub proposal_id: i64,
    pub message: String,
}

/// What a decision (single or batch) did. Each proposal is decided on its own, so one that
/// fails does not hold back the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewOutcome {
    pub decided: Vec<ProposalRow>,
    pub failed: Vec<ProposalFailure>,
    /// Proposals left waiting afterwards, Topic membership proposals included (the badge's
    /// count).
    pub pending: u32,
}

/// What evaluating the promotion rules did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvaluationSummary {
    /// New proposals, renewals included.
    pub proposed: u32,
    /// Of those, rejected proposals proposed again because their evidence changed.
    pub renewed: u32,
    /// Candidates that already have a proposal for the same evidence.
    pub already_known: u32,
    /// Proposals waiting now, Topic membership proposals included (the badge's count).
    pub pending: u32,
}

/// The number of proposals waiting for review, promotion and Topic membership proposals
/// together (the Review badge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCount {
    pub pending: u32,
}

/// What one run of the nightly job did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightlyReportRow {
    /// RFC 3339 in the person's local offset.
    pub ran_at: String,
    /// `scheduled` or `manual`.
    pub trigger: String,
    pub captured: u32,
    /// `session: why` for every capture that failed.
    pub capture_failures: Vec<String>,
    pub proposed: u32,
    pub renewed: u32,
    pub views_rebuilt: u32,
    pub rollup_segments: u32,
    /// Durable nodes the run moved down the warrant ladder.
    pub degraded: u32,
    /// Research-capture utility as this run measured it.
    pub research: ResearchUtilityRow,
}

/// Research-capture utility (CSA §11.3 step 7): of the questions and decisions captured from
/// research sessions, how many were of later use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResearchUtilityRow {
    pub captures: u64,
    pub referenced: u64,
    pub briefed: u64,
    pub promoted: u64,
    pub untouched: u64,
    /// `None` before there are any research captures.
    pub useful_pct: Option<u64>,
}

/// The nightly job as the Review page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NightlyStatus {
    /// RFC 3339 in the person's local offset; `None` if it never ran on this store.
    pub last_run: Option<String>,
    /// When the scheduler runs it next (local offset); now, when it is due.
    pub next_run: Option<String>,
    pub due: bool,
    pub running: bool,
    /// From the config, unless the config cannot be read.
    pub nightly_hour: Option<u32>,
    /// Why the last run in this app failed, until one succeeds.
    pub last_error: Option<String>,
    /// The last run this app made (scheduled or manual).
    pub last_report: Option<NightlyReportRow>,
    /// The latest research-capture utility measurement on this store, by any run.
    pub research: Option<ResearchUtilityRow>,
}

/// Defines a wire enum whose JSON names are the engine's stored words, with `ALL` (in the
/// engine's order), `as_str` and a `label` in words for the UI.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $code:literal, $label:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every value, in the engine's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored name.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }

            /// The name in words.
            pub fn label(self) -> &'static str {
                match self { $($name::$variant => $label),+ }
            }
        }
    };
}

wire_enum!(
    /// The two kinds of durable node an approved proposal writes.
    NodeKind {
        Obligation => "obligation", "obligation",
        MemoryDirective => "memory_directive", "memory directive",
    }
);

wire_enum!(
    /// A durable node's lifecycle state (concept model §4.2).
    NodeLifecycle {
        Candidate => "candidate", "candidate",
        Provisional => "provisional", "provisional",
        Active => "active", "active",
        Confirmed => "confirmed", "confirmed",
        /// A later record in its continuity log contradicts it.
        Contested => "contested", "contested",
        Superseded => "superseded", "superseded",
        Retired => "retired", "retired",
        AuditOnly => "audit_only", "audit only",
    }
);

wire_enum!(
    /// Whether a durable node may be out of date (concept model §4.3).
    NodeStaleness {
        NotTimeSensitive => "not_time_sensitive", "not time-sensitive",
        Fresh => "fresh", "fresh",
        StalePossible => "stale_possible", "possibly stale",
        VerificationRequired => "verification_required", "verification required",
        StaleConfirmed => "stale_confirmed", "stale",
        SourceChanged => "source_changed", "source changed",
        CoverageGapSuspected => "coverage_gap_suspected", "coverage gap suspected",
    }
);

wire_enum!(
    /// A durable node's use warrant (concept model §4.4), in ladder order: each rung warrants
    /// less than the one before.
    NodeWarrant {
        Assert => "assert", "assert",
        Hedge => "hedge", "hedge",
        VerifyBeforeUse => "verify_before_use", "verify before use",
        OrientationOnly => "orientation_only", "orientation only",
        SearchOnly => "search_only", "search only",
        DoNotInject => "do_not_inject", "do not inject",
    }
);

impl NodeWarrant {
    /// What a brief does with a node at this warrant, for the person choosing a rung.
    pub fn explanation(self) -> &'static str {
        match self {
            NodeWarrant::Assert => "stated as it is",
            NodeWarrant::Hedge => "shown as “(possibly outdated) …”",
            NodeWarrant::VerifyBeforeUse => "shown as “(verify before use) …”",
            NodeWarrant::OrientationOnly => "shown as “(orientation only) …”",
            NodeWarrant::SearchOnly => "left out of briefs; found only by search",
            NodeWarrant::DoNotInject => "never put into a brief",
        }
    }
}

/// One durable node (an approved obligation or memory directive), as the Knowledge page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRow {
    pub node_id: String,
    pub kind: NodeKind,
    pub text: String,
    pub lifecycle: NodeLifecycle,
    /// Still in use, perhaps hedged, so the person can change it; retired and superseded nodes
    /// are history and stay as they are. The engine decides which states are live.
    pub live: bool,
    pub staleness: NodeStaleness,
    pub warrant: NodeWarrant,
    /// Why the warrant is what it is, in a sentence (approval, the person, or the nightly sweep).
    pub warrant_reason: Option<String>,
    /// The node that replaced this one.
    pub superseded_by: Option<String>,
    pub work_context_id: Option<String>,
    /// The context's name, when it is still in the graph.
    pub work_context_name: Option<String>,
    /// The entity an obligation is about.
    pub entity_id: Option<String>,
    pub entity_name: Option<String>,
    /// An obligation's due date, RFC 3339.
    pub due_at: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    pub updated_at: String,
}

/// Request of [`commands::KnowledgeList`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeListRequest {
    /// Retired and superseded nodes too, not only the live ones.
    pub all: bool,
}

/// The durable nodes, newest change first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnowledgeList {
    pub nodes: Vec<NodeRow>,
    /// Live nodes in the graph.
    pub live: u32,
    /// Every node in the graph, retired and superseded ones included.
    pub total: u32,
}

/// Names one durable node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRef {
    pub node_id: String,
}

/// One thing a node came from. `source_kind` is `continuity_entry`, `session`, `review` or
/// `supersedes`; the fields after `recorded_at` say what the store still knows of the source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSourceRow {
    pub source_kind: String,
    /// The entry id, session id, `proposal:ID` or the replaced node's id.
    pub source_ref: String,
    /// RFC 3339.
    pub recorded_at: String,
    /// A continuity entry as its log holds it, unless the log no longer does.
    pub entry: Option<ContinuityEntryRow>,
    /// A session, with what the transcript store knows of it.
    pub session: Option<EvidenceSessionRow>,
    /// The review proposal whose approval wrote the node.
    pub proposal_id: Option<i64>,
}

/// One change in a node's life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeHistoryRow {
    /// `approved`, `created`, `edited`, `confirmed`, `warrant`, `degraded`, `retired` or
    /// `superseded`.
    pub action: String,
    /// The text the change gave the node, when it gave one.
    pub text: Option<String>,
    /// The lifecycle state after the change.
    pub state: Option<String>,
    /// The reason, the old text, or the warrant move, in words.
    pub note: Option<String>,
    /// RFC 3339.
    pub at: String,
}

/// One node with where it came from and everything that happened to it, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeDetail {
    pub node: NodeRow,
    pub provenance: Vec<NodeSourceRow>,
    pub history: Vec<NodeHistoryRow>,
}

/// Request of [`commands::KnowledgeEdit`] and [`commands::KnowledgeSupersede`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeTextRequest {
    pub node_id: String,
    /// The corrected text, or the replacing node's text.
    pub text: String,
}

/// Request of [`commands::KnowledgeSetWarrant`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeWarrantRequest {
    pub node_id: String,
    pub warrant: NodeWarrant,
    /// Why, kept as the node's warrant reason; without one the engine says who set it.
    pub reason: Option<String>,
}

/// Request of [`commands::KnowledgeRetire`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRetireRequest {
    pub node_id: String,
    /// Why, kept in the history and shown by the inspector when a brief leaves it out.
    pub reason: Option<String>,
}

/// Request of [`commands::ObservationsPush`]: "I just did X", with an optional work context and
/// entity names (unknown names become new entities); entity resolution also runs on the text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushRequest {
    pub text: String,
    pub work_context_id: Option<String>,
    pub entities: Vec<String>,
}

/// An entity an observation named or touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedEntity {
    pub entity_id: String,
    pub name: String,
}

/// One observation: a change to a file in a tracked folder, or a push.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservationRow {
    pub observation_id: i64,
    /// `created`, `modified`, `renamed`, `deleted` (files) or `pushed`.
    pub kind: String,
    /// `file` or `push`.
    pub source: String,
    /// The file's path (for a rename, the new one).
    pub path: Option<String>,
    /// A renamed file's old path.
    pub from_path: Option<String>,
    /// A markdown file's title (frontmatter, first heading, or the file name).
    pub title: Option<String>,
    /// The push's text, or the file change's short content delta.
    pub text: String,
    /// RFC 3339.
    pub observed_at: String,
    pub work_context_id: Option<String>,
    pub work_context_name: Option<String>,
    pub entities: Vec<ObservedEntity>,
    /// Cross-conversation updates the observation wrote into work contexts' logs.
    pub updates_written: u32,
}

/// Something a push reaches: an entity, the work context it lands in, or a context told through
/// an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushTarget {
    /// The entity's or work context's id; `None` for an entity the push will create.
    pub id: Option<String>,
    pub name: String,
    /// How it was found, in words: "you chose it", "named in the text", "by the word “X”".
    pub how: String,
    /// For a context told through an entity, that entity's name.
    pub via: Option<String>,
}

/// Where a push reaches (the push box's preview, and what a push did).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushPreview {
    pub entities: Vec<PushTarget>,
    /// The work context it lands in: the one chosen, else the one its text names.
    pub lands_in: Option<PushTarget>,
    /// The other work contexts that hear of it through its entities.
    pub told: Vec<PushTarget>,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushOutcome {
    pub observation: ObservationRow,
    /// Names from the request that were not entities yet and now are.
    pub entities_created: Vec<String>,
    /// Where it reached.
    pub reach: PushPreview,
}

/// Request of [`commands::ObservationsList`], newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservationListRequest {
    pub work_context_id: Option<String>,
    /// `file` or `push`; none for both.
    pub source: Option<String>,
    /// At most this many; 0 means the engine's default.
    pub limit: u32,
}

/// Names one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservationRef {
    pub observation_id: i64,
}

/// What a timeline item is; on the wire, its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    Session,
    Capture,
    Observation,
    Push,
    Promotion,
}

impl TimelineKind {
    /// Every kind, in the order the page offers them.
    pub const ALL: [TimelineKind; 5] = [
        TimelineKind::Session,
        TimelineKind::Capture,
        TimelineKind::Observation,
        TimelineKind::Push,
        TimelineKind::Promotion,
    ];

    /// The name the wire carries (and CSS classes and element ids use).
    pub fn as_str(self) -> &'static str {
        match self {
            TimelineKind::Session => "session",
            TimelineKind::Capture => "capture",
            TimelineKind::Observation => "observation",
            TimelineKind::Push => "push",
            TimelineKind::Promotion => "promotion",
        }
    }
}

/// Request of [`commands::TimelineGet`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineRequest {
    pub work_context_id: Option<String>,
    /// The kinds to show; empty for all.
    pub kinds: Vec<TimelineKind>,
    /// `openclaw`, `claude_code` or `codex`: sessions and captures of that harness only.
    pub harness: Option<String>,
    /// Days back from now; 0 means the engine's default (30), [`TIMELINE_ALL_DAYS`] all of
    /// history.
    pub days: u32,
    /// At most this many items; 0 means the engine's default (200).
    pub limit: u32,
}

/// The window that asks the timeline for all of history.
pub const TIMELINE_ALL_DAYS: u32 = 36_500;

/// Where clicking a timeline item goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum TimelineTarget {
    Session { session_id: String },
    Observation { observation_id: i64 },
    Proposal { proposal_id: i64 },
    Node { node_id: String },
    WorkContext { work_context_id: String },
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineItem {
    /// RFC 3339.
    pub at: String,
    pub kind: TimelineKind,
    pub title: String,
    pub detail: Option<String>,
    pub work_context_id: Option<String>,
    pub work_context_name: Option<String>,
    pub harness: Option<String>,
    pub target: Option<TimelineTarget>,
}

/// One work context's share of a day's activity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineDayCount {
    /// None for activity outside any work context.
    pub work_context_id: Option<String>,
    pub name: String,
    pub count: u32,
}

/// One bar of the activity chart (every bar of the window, empty ones too), stacked by context:
/// a day, a week or a month as [`Timeline::bucket`] says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineDay {
    /// The first day the bar covers, `YYYY-MM-DD`, UTC.
    pub day: String,
    pub counts: Vec<TimelineDayCount>,
}

/// The timeline of a window: items newest first and the per-day chart over the same filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    pub items: Vec<TimelineItem>,
    /// More items matched than `limit`; the chart still counts them all.
    pub truncated: bool,
    pub days: Vec<TimelineDay>,
    /// What one bar covers: `day`, `week` or `month`.
    pub bucket: String,
    /// The chart's legend: the busiest work contexts, then "other work" (no id); busiest first.
    pub legend: Vec<TimelineDayCount>,
    /// The window's first day, `YYYY-MM-DD` (for all of history, the oldest item's bar).
    pub since: String,
}

wire_enum!(
    /// How a search retrieves (CSA §7.4): by the words alone, by meaning (embeddings), or both
    /// ranks fused.
    SearchStrategy {
        LexicalOnly => "lexical_only", "words only",
        EmbeddingAugmented => "embedding_augmented", "meaning (embeddings)",
        Hybrid => "hybrid", "words and meaning",
    }
);

wire_enum!(
    /// What a search hit is.
    SearchKind {
        /// A transcript turn.
        Turn => "turn", "turn",
        /// A continuity entry: an open question, a key decision, a cross-conversation update.
        Entry => "entry", "entry",
        /// A session summary.
        Summary => "summary", "summary",
        /// A Library document: a markdown or text file of a tracked folder.
        Document => "document", "document",
        /// An observation: a file change the watcher saw, or a push.
        Observation => "observation", "observation",
        /// A durable node: an approved obligation or memory directive.
        Node => "node", "durable node",
    }
);

/// Request of [`commands::SearchQuery`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQueryRequest {
    /// What to look for, in the person's own words.
    pub query: String,
    pub strategy: SearchStrategy,
    /// Only this work context's entries and the turns of sessions placed in it.
    pub work_context_id: Option<String>,
    /// The kinds to search; empty for all.
    pub kinds: Vec<SearchKind>,
    /// `openclaw`, `claude_code` or `codex`.
    pub harness: Option<String>,
    /// Only work from the last this many hours; 0 means all time.
    pub hours: u32,
    /// At most this many hits (the engine caps it).
    pub max_results: u32,
    /// Ask the configured synthesis model for a short answer over the hits, citing them.
    pub synthesis: bool,
}

/// Why a hit ranked where it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchWhy {
    /// 1-based rank in the lexical list, and its BM25 score, when the words matched.
    pub lexical_rank: Option<u32>,
    pub lexical_score: Option<f32>,
    /// 1-based rank among the embedding neighbours, and the cosine similarity, when embeddings
    /// took part.
    pub vector_rank: Option<u32>,
    pub similarity: Option<f32>,
    /// The score the final order is by (BM25, similarity, or both lists' scores weighed).
    pub fused_score: f32,
    /// For hybrid, how much the words' list counted against the meanings' (1.0: its best match
    /// stood clearly out; 0.5: both counted equally).
    #[serde(default)]
    pub lexical_weight: Option<f32>,
    /// The same in words, as the engine puts it.
    #[serde(default)]
    pub weighing: Option<String>,
    /// The fields the query matched: `text`, `ident`, `context` (a word found only in the
    /// other side's turn before), `tool`.
    pub fields: Vec<String>,
    /// Days between the work and the query.
    pub age_days: Option<i64>,
}

/// One search hit, with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHitRow {
    /// The document's stable id in the index (`turn:…`, `doc:…`, …), which Topics pin by.
    pub doc_id: String,
    pub kind: SearchKind,
    pub session_id: Option<String>,
    /// Our id of the turn ([`TurnRow::turn_id`]), for a turn hit.
    pub turn_id: Option<String>,
    /// The turn's own id in the harness's file.
    pub record: Option<String>,
    /// A turn's row in its session's transcript view (0-based), to open the viewer there.
    pub position: Option<u64>,
    pub entry_id: Option<String>,
    pub entry_type: Option<String>,
    pub work_context_id: Option<String>,
    pub harness: Option<String>,
    pub role: Option<String>,
    /// A Library document's or an observed file's path, and its title.
    pub path: Option<String>,
    pub title: Option<String>,
    /// A durable node's id and kind (`obligation`, `memory_directive`).
    pub node_id: Option<String>,
    pub node_kind: Option<String>,
    pub observation_id: Option<i64>,
    /// When the work happened, RFC 3339.
    pub at: Option<String>,
    /// A bounded excerpt of the matched text.
    pub excerpt: String,
    /// The score relative to the best hit, 0–1.
    pub relevance_score: f32,
    pub why: SearchWhy,
}

/// What a search found, and how it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResults {
    pub hits: Vec<SearchHitRow>,
    /// The strategy asked for.
    pub strategy: SearchStrategy,
    /// The strategy that ran instead, when the one asked for could not (no embeddings yet).
    pub fallback_mode: Option<SearchStrategy>,
    pub fallback_reason: Option<String>,
    /// Documents with an embedding, of `documents`, when embeddings took part.
    pub embedded: Option<u64>,
    /// Documents in the index when the query ran.
    pub documents: u64,
    /// Always `low_trust`: a search result is evidence to check, not a fact.
    pub trust_banner: String,
    /// The model's answer over the hits, when one was asked for and could be given.
    pub synthesis: Option<SearchSynthesis>,
    /// Why no answer came when one was asked for (no model configured, over the spend limit, a
    /// failed call): said, never silent.
    pub synthesis_fallback: Option<String>,
}

/// A model's answer over a search's hits, with what it cited. Low trust: the answer is a
/// model's reading of the hits, to be checked against them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSynthesis {
    pub answer: String,
    /// Citations of hits the model was given, each with the snippet it quoted.
    pub citations: Vec<SearchCitation>,
    /// Ids the model cited that it was not given: dropped from `citations`, and said here.
    pub dropped: Vec<String>,
    /// Hits from local-only work contexts that were not sent to a model off this machine.
    pub withheld: u64,
}

/// One citation of a hit ([`SearchHitRow::doc_id`]) in a model's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchCitation {
    pub doc_id: String,
    pub snippet: String,
}

/// How far the search embeddings reach: documents with a vector, of the documents indexed.
/// A query that falls back to words alone says so; this says how much of the history meaning
/// would reach once it can run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedCoverage {
    pub covered: u64,
    pub documents: u64,
    /// The name the configured embedder's vectors are kept under (`builtin-multilingual-e5-small`,
    /// `builtin-all-minilm-l6-v2`, or the provider and model of an embedding endpoint).
    pub embedder: String,
    /// Whether the config names the built-in model, the one Settings can download.
    pub builtin: bool,
}

wire_enum!(
    /// The app's long jobs (issue 16). Each runs on a thread of its own in the shell, one at a
    /// time per kind, with progress to poll and a way to cancel it.
    JobKind {
        /// Fetching the built-in embedding model's files (all-MiniLM-L6-v2).
        ModelDownload => "model_download", "model download",
        /// Embedding every indexed document that has no vector yet.
        Embeddings => "embeddings", "embedding backfill",
        /// Deleting the search index and building it again from the stores.
        Reindex => "reindex", "index rebuild",
        /// Capturing the stored turns again into a scratch store, comparing it with the live
        /// store, and on request making the live store match.
        Reconstruct => "reconstruct", "reconstruction",
    }
);

wire_enum!(
    /// Where a job stands. A job's last outcome is kept until it is started again.
    JobState {
        /// Not run since the app started.
        Idle => "idle", "not run yet",
        Running => "running", "running",
        Finished => "finished", "finished",
        /// Stopped because the person cancelled it; what it finished is kept.
        Cancelled => "cancelled", "cancelled",
        Failed => "failed", "failed",
    }
);

/// How far a running (or the last) job got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobProgress {
    /// The model download: `bytes` of `total` of file `file_index` (0-based) of `files`.
    Download {
        file: String,
        file_index: u32,
        files: u32,
        bytes: u64,
        /// The file's size, when the server said it.
        total: Option<u64>,
    },
    /// The embedding backfill: `covered` of `documents` have a vector, `embedded` by this run.
    Embeddings {
        embedded: u64,
        covered: u64,
        documents: u64,
    },
}

/// One job, as `jobs_get` and every start and cancel answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobStatus {
    pub kind: JobKind,
    pub state: JobState,
    /// A cancel was asked for and the job has not stopped yet (it stops at its next check: the
    /// download between reads, the backfill between batches).
    pub cancel_requested: bool,
    pub progress: Option<JobProgress>,
    /// What a finished or cancelled job did, in words.
    pub summary: Option<String>,
    /// Why a failed job failed, in words.
    pub error: Option<String>,
    /// What a finished job produced beyond its summary, for the kinds whose page shows it (the
    /// reconstruction's report).
    #[serde(default)]
    pub result: Option<JobResult>,
}

/// What a finished job produced, per kind that produces more than words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "report")]
pub enum JobResult {
    Reconstruct(ReconstructReport),
}

impl JobStatus {
    /// A job that has not run since the app started.
    pub fn idle(kind: JobKind) -> JobStatus {
        JobStatus {
            kind,
            state: JobState::Idle,
            cancel_requested: false,
            progress: None,
            summary: None,
            error: None,
            result: None,
        }
    }

    pub fn running(&self) -> bool {
        self.state == JobState::Running
    }
}

/// Request of [`commands::JobCancel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRef {
    pub kind: JobKind,
}

wire_enum!(
    /// Which algorithms a reconstruction runs (`docs/RECONSTRUCT.md`).
    ReconstructMode {
        /// Today's heuristic detectors and the templated summary, as in `deterministic` mode.
        Deterministic => "deterministic", "today's detectors",
        /// The configured synthesis model, once per recorded capture window.
        Model => "model", "the configured model",
    }
);

/// Request of [`commands::ReconstructStart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructStartRequest {
    pub mode: ReconstructMode,
    /// Report (and apply) only this work context; the replay still covers every window.
    pub work_context_id: Option<String>,
    /// Make the live store match the replay. Without it the job only compares.
    pub apply: bool,
}

/// How many items of each count, in one work context or in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructCounts {
    /// Items the replay made exactly as they are.
    pub same: u64,
    /// Items only the replay made: apply would add them.
    pub added: u64,
    /// Items only the live store has: apply would remove them.
    pub removed: u64,
    /// Items both have whose details differ: apply would rewrite them.
    pub changed: u64,
    /// Items the replay would remove or change that apply keeps, because the person reviewed
    /// them.
    pub kept: u64,
}

impl ReconstructCounts {
    /// Added, removed and changed together: kept items are not differences.
    pub fn differences(&self) -> u64 {
        self.added + self.removed + self.changed
    }
}

wire_enum!(
    /// What would happen to one item of a reconstruction's diff.
    ReconstructChange {
        Added => "added", "would add",
        Removed => "removed", "would remove",
        Changed => "changed", "changed",
        Kept => "kept", "kept because you reviewed it",
    }
);

/// One item that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructItem {
    pub change: ReconstructChange,
    /// `open question`, `key decision`, `session summary`, `phase change`,
    /// `cross-conversation update` or `summary text`.
    pub kind: String,
    pub text: String,
    pub session_id: String,
    /// The engine's readable line: `+ open question: …`, with what differs on the lines below.
    pub line: String,
}

/// What would change in one work context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructContextRow {
    pub work_context_id: String,
    /// Its name, when the graph knows the context.
    pub name: Option<String>,
    pub counts: ReconstructCounts,
    /// Every item that is not the same, in the live log's order, then the replay's additions.
    pub items: Vec<ReconstructItem>,
}

/// What apply changed in the live store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructApplied {
    pub entries_added: u64,
    pub entries_removed: u64,
    pub entries_changed: u64,
    /// Live items left because the person reviewed them.
    pub kept: u64,
    pub summaries_written: u64,
    pub summaries_removed: u64,
    pub sessions_moved: u64,
    /// Copies of every log and summary apply rewrote, as they were before.
    pub backups: Vec<String>,
}

/// A reconstruction's report: what the replay found and, after apply, what it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconstructReport {
    pub mode: ReconstructMode,
    /// The work context asked about, or `None` for all.
    pub work_context_id: Option<String>,
    /// Recorded capture windows replayed, and the sessions they belong to.
    pub windows: u64,
    pub sessions: u64,
    /// Windows whose replay captured nothing.
    pub windows_empty: u64,
    /// In model mode, windows where the model failed and the detectors stood in, and the first
    /// reason.
    pub fallbacks: u64,
    pub fallback_reason: Option<String>,
    pub totals: ReconstructCounts,
    /// Every work context with capture-made items on either side.
    pub contexts: Vec<ReconstructContextRow>,
    pub applied: Option<ReconstructApplied>,
}

/// A Library collection: one tracked folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryCollectionRow {
    pub folder: String,
    /// The folder's own name.
    pub name: String,
    /// Library documents (markdown and plain text) recorded under it.
    pub documents: u64,
    /// The folders under it that hold documents, relative to it with `/` separators, each
    /// ancestor too (`notes`, `notes/2026`), sorted: the choices of the Library's folder filter,
    /// so the page need not list every document to offer them.
    pub folders: Vec<String>,
    /// Whether the folder is on disk now (a missing folder stays tracked until it comes back).
    pub present: bool,
}

/// Request of [`commands::LibraryCollectionAdd`]: the folder to add, as an absolute path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryFolderRequest {
    pub path: String,
}

/// Request of [`commands::LibraryDocumentsList`]; `None` lists everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryDocumentsRequest {
    /// Only this collection's documents (its folder).
    pub collection: Option<String>,
    /// Only documents under this folder, relative to its collection (`notes/2026`).
    pub folder: Option<String>,
}

/// One document in a Library listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryDocumentRow {
    pub path: String,
    /// The collection's folder.
    pub collection: String,
    /// The path relative to its collection, with `/` separators.
    pub relative: String,
    pub title: String,
    pub size: u64,
    /// RFC 3339.
    pub modified_at: Option<String>,
}

/// Names one Library document by its absolute path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryDocumentRef {
    pub path: String,
}

/// A link in a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryLinkRow {
    pub dest: String,
    pub text: String,
}

/// A session whose turns name a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibrarySessionRef {
    pub session_id: String,
    pub harness: Option<String>,
    /// Turns of the session that name the document.
    pub turns: u32,
    /// Our id of the first of them ([`TurnRow::turn_id`]), to open the transcript at.
    pub first_turn_id: Option<String>,
    /// The latest of them, RFC 3339.
    pub last_at: Option<String>,
}

/// A continuity entry or a durable node whose text names a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryEntryRef {
    /// `entry` or `node`.
    pub kind: SearchKind,
    pub entry_id: Option<String>,
    pub entry_type: Option<String>,
    pub node_id: Option<String>,
    pub work_context_id: Option<String>,
    pub excerpt: String,
    /// RFC 3339.
    pub at: Option<String>,
}

/// An observation of a document: a change the watcher saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryObservationRef {
    pub observation_id: i64,
    pub kind: String,
    /// RFC 3339.
    pub at: String,
    pub text: String,
}

/// An entity a document mentions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryEntityRef {
    pub entity_id: String,
    pub name: String,
}

/// A document page: the file rendered, its outline, and everything that refers to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryDocumentDetail {
    pub row: LibraryDocumentRow,
    pub headings: Vec<String>,
    pub links: Vec<LibraryLinkRow>,
    pub frontmatter: Vec<(String, String)>,
    /// The file as HTML (markdown rendered, plain text in a `<pre>`). The engine escapes the
    /// file's own raw HTML, so this is safe to put into the page as it is.
    pub html: String,
    /// Whether the file was too long and only its start is shown.
    pub truncated: bool,
    pub sessions: Vec<LibrarySessionRef>,
    pub entries: Vec<LibraryEntryRef>,
    pub observations: Vec<LibraryObservationRef>,
    pub entities: Vec<LibraryEntityRef>,
    /// What a turn or an entry had to name to count: the path relative to its collection.
    pub matched_by: String,
}

wire_enum!(
    /// Why a member is in a Topic's lens.
    MemberSource {
        /// The person put it in.
        Pinned => "pinned", "pinned",
        /// The collection directive proposed it and the person approved it.
        Approved => "approved", "approved",
        /// The lens's rules match it now.
        Rule => "rule", "matching the rules",
    }
);

wire_enum!(
    /// Where a stored Topic membership stands.
    MemberStatus {
        Pinned => "pinned", "pinned",
        /// Proposed by the collection directive, waiting in the review queue.
        Pending => "pending", "pending",
        Approved => "approved", "approved",
        /// Shown nowhere and never proposed again.
        Rejected => "rejected", "rejected",
    }
);

/// A Topic's rules: the documents its lens shows besides its pinned and approved members. A
/// document matches when it holds every query word and passes every filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicRulesRow {
    pub query: String,
    /// Entity ids a document must mention.
    pub entities: Vec<String>,
    pub work_context_id: Option<String>,
    /// The kinds of document it matches; empty for all.
    pub kinds: Vec<SearchKind>,
    /// Only documents from the last this many hours; 0 means all time.
    pub hours: u32,
}

/// A Topic: a lens, and its collection directive's switch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicRow {
    pub topic_id: String,
    pub name: String,
    pub description: String,
    pub rules: TopicRulesRow,
    /// Whether new matching documents are proposed as members into the review queue.
    pub collecting: bool,
    /// RFC 3339: documents up to this time have been looked at by the directive.
    pub collect_since: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A Topic in the list, with its member counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicListRow {
    pub topic: TopicRow,
    pub pinned: u32,
    pub approved: u32,
    /// Proposals of its directive still waiting in the review queue.
    pub pending: u32,
}

/// Names one Topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicRef {
    pub topic_id: String,
}

/// One member as a Topic's lens shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopicMemberRow {
    pub source: MemberSource,
    /// The stored membership, for a pinned or approved member.
    pub membership_id: Option<i64>,
    /// The search document's stable id.
    pub doc_id: String,
    /// The document as the search index has it now, or `None` when it left the index (the
    /// stored label stands in).
    pub hit: Option<SearchHitRow>,
    pub label: String,
    /// In words: why it is a member.
    pub why: String,
}

/// A Topic's lens now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopicDetail {
    pub topic: TopicRow,
    /// Pinned, then approved, then what the rules match.
    pub members: Vec<TopicMemberRow>,
    /// Proposals of its directive still waiting in the review queue.
    pub pending: u32,
}

/// Request of [`commands::TopicCreate`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateTopicRequest {
    pub name: String,
    pub description: String,
    pub rules: TopicRulesRow,
    /// Turns the collection directive on.
    pub collecting: bool,
}

/// Request of [`commands::TopicEdit`]; `None` keeps what it was.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditTopicRequest {
    pub topic_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub rules: Option<TopicRulesRow>,
    pub collecting: Option<bool>,
}

/// A Topic after a change, and what its directive proposed at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicChanged {
    pub topic: TopicRow,
    /// New proposals of this Topic, now in the review queue.
    pub proposed: u32,
    /// When the directive matched more new documents than one run proposes, how many.
    pub too_broad: Option<u32>,
}

/// Request of [`commands::TopicMemberPin`] and [`commands::TopicMemberUnpin`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicMemberRequest {
    pub topic_id: String,
    /// The search document's id, as a hit or a member gives it.
    pub doc_id: String,
}

/// A stored Topic membership.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipRow {
    pub membership_id: i64,
    pub topic_id: String,
    /// The search document's id.
    pub doc_ref: String,
    /// The search document's kind by name (`turn`, `entry`, `document`, …).
    pub kind: String,
    pub label: String,
    pub status: MemberStatus,
    /// Why the directive proposed it.
    pub reason: Option<String>,
    /// When the member's work happened, RFC 3339.
    pub at: Option<String>,
    pub proposed_at: String,
    pub decided_at: Option<String>,
}

/// A membership proposal in the review queue, with its Topic's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipProposalRow {
    pub membership: MembershipRow,
    pub topic_name: String,
}

/// Request of [`commands::MembershipsDecide`]: approve or reject these proposals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipDecision {
    pub membership_ids: Vec<i64>,
    pub approve: bool,
}

/// A membership a batch could not decide, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipFailure {
    pub membership_id: i64,
    pub message: String,
}

/// What a batch of membership decisions did; each is decided on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MembershipOutcomeRow {
    pub decided: Vec<MembershipRow>,
    pub failed: Vec<MembershipFailure>,
}

/// One tracked folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedFolderRow {
    pub path: String,
    /// Whether the folder exists right now (a removed folder stays tracked and is watched again
    /// when it comes back).
    pub exists: bool,
}

/// What the file watcher is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatcherStatusRow {
    /// `running`, `degraded` (watching, but something is wrong: see `problem`), `stopped`.
    pub state: String,
    /// Files in the tracked folders the watcher knows.
    pub files: u64,
    /// What is wrong and how to fix it, e.g. an exhausted inotify watch limit.
    pub problem: Option<String>,
    /// RFC 3339.
    pub last_reconcile_at: Option<String>,
}

/// The tracked folders, the ignore rules and the watcher's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedFolders {
    pub folders: Vec<TrackedFolderRow>,
    /// The person's own ignore patterns (globs such as `*.bak` or `drafts/**`).
    pub ignore_patterns: Vec<String>,
    /// The built-in ignore rules, for display.
    pub default_ignores: Vec<String>,
    pub watcher: WatcherStatusRow,
}

/// Request of [`commands::TrackedFoldersAdd`] and [`commands::TrackedFoldersRemove`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedFolderRequest {
    pub path: String,
}

/// Request of [`commands::IgnorePatternsSet`]: the whole list, replacing the old one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnorePatternsRequest {
    pub patterns: Vec<String>,
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
    fn command_names_are_unique_and_noun_verb() {
        let mut seen = std::collections::BTreeSet::new();
        for name in commands::ALL {
            assert!(seen.insert(*name), "{name} is declared twice");
            // `noun_verb`: lower-case words joined by underscores, at least two of them.
            assert!(name.contains('_'), "{name}");
            assert!(
                name.split('_')
                    .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
                "{name}"
            );
        }
        // A command's constants are the ones the UI sends.
        assert_eq!(<commands::SessionsList as Command>::NAME, "sessions_list");
        const { assert!(<commands::SessionsList as Command>::TAKES_REQUEST) };
        const { assert!(!<commands::StatusGet as Command>::TAKES_REQUEST) };
    }

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
        let key = format!(
            "{:?}",
            SetApiKeyRequest {
                api_key: "sk-secret".into()
            }
        );
        assert!(!key.contains("sk-secret"), "{key}");
        for mode in ContinuityMode::ALL {
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
        }
        // An empty preview request leaves every choice to the engine.
        let preview = serde_json::to_string(&BriefPreviewRequest::default()).unwrap();
        assert_eq!(
            preview,
            r#"{"work_context_id":null,"cwd":null,"session_id":null,"budget":null}"#
        );
        let edit = serde_json::to_string(&EditFactRequest {
            fact_id: 3,
            text: None,
            position: Some(1),
        })
        .unwrap();
        assert_eq!(edit, r#"{"fact_id":3,"text":null,"position":1}"#);
        // Review: the engine's stored names for rules and statuses.
        for rule in [
            ProposalRule::UnresolvedQuestion,
            ProposalRule::ReferencedDecision,
        ] {
            let json = serde_json::to_string(&rule).unwrap();
            assert_eq!(json, format!("\"{}\"", rule.as_str()));
        }
        for status in [
            ProposalStatus::Pending,
            ProposalStatus::Approved,
            ProposalStatus::Rejected,
            ProposalStatus::Deferred,
        ] {
            let json = serde_json::to_string(&status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
        let approve = serde_json::to_string(&ApproveRequest {
            proposal_ids: vec![4],
            text: Some("t".into()),
        })
        .unwrap();
        assert_eq!(approve, r#"{"proposal_ids":[4],"text":"t"}"#);
        // Search: the engine's strategy and kind names, which `elnor query` takes too.
        let names = |all: &[SearchStrategy]| -> Vec<String> {
            all.iter()
                .map(|s| serde_json::to_string(s).unwrap())
                .collect()
        };
        assert_eq!(
            names(SearchStrategy::ALL),
            ["\"lexical_only\"", "\"embedding_augmented\"", "\"hybrid\""]
        );
        let search = serde_json::to_string(&SearchQueryRequest {
            query: "q".into(),
            strategy: SearchStrategy::Hybrid,
            work_context_id: None,
            kinds: vec![SearchKind::Turn, SearchKind::Summary],
            harness: None,
            hours: 0,
            max_results: 5,
            synthesis: true,
        })
        .unwrap();
        assert_eq!(
            search,
            r#"{"query":"q","strategy":"hybrid","work_context_id":null,"kinds":["turn","summary"],"harness":null,"hours":0,"max_results":5,"synthesis":true}"#
        );
    }

    #[test]
    fn node_enums_use_the_engine_words() {
        fn check<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
            all: &[T],
            name: impl Fn(&T) -> &'static str,
        ) -> Vec<&'static str> {
            all.iter()
                .map(|v| {
                    let json = serde_json::to_string(v).unwrap();
                    assert_eq!(json, format!("\"{}\"", name(v)));
                    assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), v);
                    name(v)
                })
                .collect()
        }
        // The stored words of the concept model; the shell maps the engine's enums onto these
        // and its own test checks the two agree.
        assert_eq!(
            check(NodeKind::ALL, |k| k.as_str()),
            ["obligation", "memory_directive"]
        );
        assert_eq!(
            check(NodeLifecycle::ALL, |l| l.as_str()),
            [
                "candidate",
                "provisional",
                "active",
                "confirmed",
                "contested",
                "superseded",
                "retired",
                "audit_only"
            ]
        );
        assert_eq!(
            check(NodeStaleness::ALL, |s| s.as_str()),
            [
                "not_time_sensitive",
                "fresh",
                "stale_possible",
                "verification_required",
                "stale_confirmed",
                "source_changed",
                "coverage_gap_suspected"
            ]
        );
        assert_eq!(
            check(NodeWarrant::ALL, |w| w.as_str()),
            [
                "assert",
                "hedge",
                "verify_before_use",
                "orientation_only",
                "search_only",
                "do_not_inject"
            ]
        );
        // Topics: the engine's words for why a member is in a lens and where a membership stands.
        assert_eq!(
            check(MemberSource::ALL, |s| s.as_str()),
            ["pinned", "approved", "rule"]
        );
        assert_eq!(
            check(MemberStatus::ALL, |s| s.as_str()),
            ["pinned", "pending", "approved", "rejected"]
        );
        // The ladder's order is the enum's order: each rung warrants less.
        assert!(NodeWarrant::ALL.windows(2).all(|w| w[0] < w[1]));
        let warrant = serde_json::to_string(&NodeWarrantRequest {
            node_id: "md_1".into(),
            warrant: NodeWarrant::VerifyBeforeUse,
            reason: None,
        })
        .unwrap();
        assert_eq!(
            warrant,
            r#"{"node_id":"md_1","warrant":"verify_before_use","reason":null}"#
        );
    }

    /// The jobs' words are part of the contract: the UI polls `jobs_get` and names a job to
    /// cancel by its kind.
    #[test]
    fn jobs_on_the_wire() {
        let kinds: Vec<String> = JobKind::ALL
            .iter()
            .map(|k| serde_json::to_string(k).unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "\"model_download\"",
                "\"embeddings\"",
                "\"reindex\"",
                "\"reconstruct\""
            ]
        );
        for k in JobKind::ALL {
            assert_eq!(
                serde_json::to_string(k).unwrap(),
                format!("\"{}\"", k.as_str())
            );
        }
        let cancel = serde_json::to_string(&JobRef {
            kind: JobKind::Embeddings,
        })
        .unwrap();
        assert_eq!(cancel, r#"{"kind":"embeddings"}"#);
        let status = JobStatus {
            state: JobState::Running,
            progress: Some(JobProgress::Download {
                file: "vocab.txt".into(),
                file_index: 0,
                files: 2,
                bytes: 10,
                total: Some(20),
            }),
            ..JobStatus::idle(JobKind::ModelDownload)
        };
        let json = serde_json::to_string(&status).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"model_download","state":"running","cancel_requested":false,"progress":{"download":{"file":"vocab.txt","file_index":0,"files":2,"bytes":10,"total":20}},"summary":null,"error":null,"result":null}"#
        );
        assert_eq!(serde_json::from_str::<JobStatus>(&json).unwrap(), status);
        assert!(status.running() && !JobStatus::idle(JobKind::Reindex).running());
    }
}

/// Request of [`commands::HeadsGet`]: which head to show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadsRequest {
    /// A work context's thread head; the global head when `None`.
    pub work_context_id: Option<String>,
}

/// One line of a head: its words and what it cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadLineRow {
    /// The line's kind, snake_case (`next_action`, `open_loop`, `lineage`, …).
    pub kind: String,
    pub text: String,
    /// Session summary ids (`ss_…`), continuity entry ids (`ce_…`) or durable node ids
    /// (`ob_…`, `md_…`).
    pub citations: Vec<String>,
    /// The entry or node the line came from.
    pub source: String,
}

/// One section of a head: the lines of one kind, in the order the head shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadSection {
    pub kind: String,
    /// The section's heading without its Markdown marks ("Next actions").
    pub heading: String,
    pub lines: Vec<HeadLineRow>,
}

/// The lines of one kind that did not fit under the cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutRow {
    pub kind: String,
    /// The kind's name in words ("open loops").
    pub name: String,
    pub count: u64,
    /// The first few of their sources, the rest only counted.
    pub ids: Vec<String>,
}

/// Who holds a file's lease, from the lease record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseHolder {
    /// The program that took it.
    pub owner: String,
    pub pid: u32,
    pub host: String,
    /// RFC 3339.
    pub expires_at: String,
}

/// A person's edit inside a head's block, kept instead of overwritten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptEditRow {
    /// The file the block is in.
    pub target: String,
    /// When ELNOR found the edit (RFC 3339).
    pub detected_at: String,
    /// Their text as they left it in the block.
    pub text: String,
    /// Where ELNOR saved it (under the store's `heads/proposals/`).
    pub saved_at: String,
}

/// A write waiting for its target's lease; the next refresh retries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeferredWriteRow {
    /// Another tool's file, or `None` for the store's own head file.
    pub target: Option<String>,
    pub replace_edits: bool,
    /// RFC 3339.
    pub deferred_at: String,
    pub held_by: LeaseHolder,
}

/// One work context's thread head, as the scope switcher lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadHeadRow {
    pub work_context_id: String,
    pub name: String,
    pub tokens: u32,
    pub cap: u32,
}

/// Reply of [`commands::HeadsGet`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadsView {
    /// The thread head's work context, or `None` for the global head.
    pub work_context_id: Option<String>,
    /// The head's title without its Markdown mark.
    pub title: String,
    /// The sections in the head's order.
    pub sections: Vec<HeadSection>,
    /// The cl100k tokens of the whole head and its hard cap.
    pub tokens: u32,
    pub cap: u32,
    /// What did not fit, by kind.
    pub left_out: Vec<LeftOutRow>,
    /// The Markdown a refresh writes (and a block holds).
    pub text: String,
    /// The store's own file of this head.
    pub file: String,
    pub kept_edits: Vec<KeptEditRow>,
    pub deferred: Vec<DeferredWriteRow>,
    /// Every work context's thread head, by name.
    pub threads: Vec<ThreadHeadRow>,
}

/// Reply of [`commands::HeadsRefresh`]: how many head writes each way ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadsRefreshed {
    pub written: u64,
    pub unchanged: u64,
    /// Writes that found their target's lease held; the next refresh retries them.
    pub deferred: u64,
    /// Writes whose block holds a person's edit, kept.
    pub edits_kept: u64,
    /// The heads that could not be written, with why.
    pub failures: Vec<String>,
}

/// Request of [`commands::HeadWriteTo`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadWriteRequest {
    /// A work context's thread head; the global head when `None`.
    pub work_context_id: Option<String>,
    /// The file to write into (created when absent; its folder must exist).
    pub path: String,
    /// Overwrite the block even though the person edited it.
    pub replace_edits: bool,
}

/// Reply of [`commands::HeadWriteTo`]: what became of the write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadWriteOutcome {
    /// `written`, `unchanged`, `deferred` or `edits_kept`.
    pub status: String,
    /// The file, as ELNOR resolved it.
    pub path: String,
    /// Who held the lease, for a deferred write.
    pub held_by: Option<LeaseHolder>,
    /// The person's edit that was kept, for `edits_kept`.
    pub kept: Option<KeptEditRow>,
    /// The head's tokens (0 when it was not built).
    pub tokens: u32,
}
