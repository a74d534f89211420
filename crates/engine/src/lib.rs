//! The ELNOR continuity engine: a headless library that owns the store and everything in it.
//!
//! The engine knows nothing of Tauri, wasm, MCP or any wire format. The `elnor` CLI, the desktop
//! shell and (later) the MCP server are thin adapters over the API exported here, and only here:
//! the modules are private, so each operation has one public path.
//!
//! - **Use cases** change canonical data and rebuild the views they touched: [`pass`], [`ingest`],
//!   [`capture_due`], [`push`], [`decide_proposals`], [`change_node`], [`merge_work_contexts`],
//!   [`run_nightly`], [`reconstruct`], the [`FileWatcher`] …
//! - **Reads** answer from the store: [`assemble_brief`], [`list_sessions`], [`timeline`],
//!   [`constellation_view`], [`projects_overview`] …, and the [`Store`]'s and [`Graph`]'s methods.
//! - **Types** are the ones those take and return, with typed ids ([`WorkContextId`] …).
//!
//! Inside, the modules sit in layers that only look down (ARCHITECTURE.md; `tests/tidy.rs`).

mod base;
mod brief;
mod continuity;
mod graph;
mod inputs;
mod review;
#[cfg(test)]
mod test_support;
mod usecase;
mod views;

// Use cases: canonical writes, then the views they touched.
pub use usecase::access::{grant_search_all, session_in_folder};
pub use usecase::harness::HarnessPaths;
pub use usecase::harness::dreaming::{
    DREAMING_KEY, DREAMING_OFF_LINE, DreamingChange, DreamingState, DreamingStatus,
    disable_dreaming, dreaming_status,
};
pub use usecase::harness::hooks::{
    HookAction, HookEvent, HookFire, HookInput, HookStatus, hook_action, hook_fires, hook_status,
    installed_events as hook_events_installed, record_hook_fire,
};
pub use usecase::harness::setup::{
    FileChange, FileOutcome, SetupReport, SetupRequest, cli_name as harness_cli_name, hook_command,
    setup as setup_harness,
};
pub use usecase::health::census::{FileCensus, LOSS_PERCENT, TypeCount, census};
pub use usecase::health::{HarnessHealth, Health, SourceHealth, health};
pub use usecase::lineage::{
    CitingLine, Drill as LineageDrill, Lineage, LineageSource, LineageSpan, LineageWindow,
    SourceDrill as LineageSourceDrill, drill_down as lineage_drill_down,
    drill_down_from as lineage_drill_down_from, expand_lineage, lineage_node_of, locate_lineage,
    rebuild_lineage, refresh_lineage,
};
pub use usecase::living::{add_living_fact, edit_living_fact, remove_living_fact};
pub use usecase::nightly::{
    NightlyReport, is_due as nightly_is_due, last_run as nightly_last_run,
    next_scheduled as nightly_next_scheduled, run as run_nightly,
};
pub use usecase::reconstruct::{
    Applied as ReconstructApplied, ContextDiff as ReconstructContextDiff,
    DiffCounts as ReconstructCounts, DiffItem as ReconstructItem, ItemChange as ReconstructChange,
    ReconstructMode, ReconstructReport, ReconstructRequest, reconstruct,
};
pub use usecase::sync::{
    Arrival as SyncArrival, SyncConflict, SyncLight, SyncProblem, SyncRequest, SyncStatus, Synced,
    sync, sync_due, sync_status,
};
pub use usecase::today::{
    ACTIVE_DAYS as TODAY_ACTIVE_DAYS, AlertKind, HealthAlert, MovedContext, Today, WaitingQuestion,
    pending_review_count, today, today_with,
};
pub use usecase::watcher::{FileWatcher, OnObservation, WatcherState, WatcherStatus};
pub use usecase::{
    Edited, NewTopic, Pass, TopicChange, TopicEdit, add_library_collection, add_link_rule,
    capture_due, capture_session, change_node, collect_topics, configure, create_entity,
    create_topic, create_work_context, delete_topic, deliver_updates, download_embedding_model,
    edit_entity, edit_topic, edit_work_context, embed, embed_status, find_sessions, ingest,
    link_entity, log_tail, merge_entities, merge_work_contexts, pass, pin_topic_member,
    preview_push, push, reconcile_folders, refresh_heads, refresh_views, reindex, remove_link_rule,
    search, set_setting, sweep_nodes, unlink_entity, unpin_topic_member,
};

// The parsers of outside input as functions of bytes, for the fuzz targets in `fuzz/` only.
#[doc(hidden)]
pub use usecase::fuzzing;

// Base: errors, ids, the clock, config and secrets.
pub use base::clock::{
    init_from_env as init_clock_from_env, now, parse as parse_time, set_override as set_now,
};
pub use base::config::{
    CONFIG_SCHEMA_VERSION, ConfigField, ContinuityConfig, ContinuityMode, DateAwareness,
    EmbeddingProvider, FIELDS as CONFIG_FIELDS, FieldRule, SettingsSection, SynthesisProvider,
    field as config_field,
};
pub use base::error::{Error, ErrorKind, Result};
pub use base::ids::{AgentId, EntityId, EntryId, NodeId, SessionId, TopicId, WorkContextId};
pub use base::lease::{Acquire as LeaseAttempt, Lease, LeaseRecord};
pub use base::secrets::{
    EMBEDDING_API_KEY, MemorySecrets, OsKeyring, SYNTHESIS_API_KEY, SecretStore,
};

// The graph: the store, work contexts, entities, projects, nodes, living facts.
pub use graph::contexts::{
    LinkRule, LinkRuleKind, NewWorkContext, Origin, ProjectsReport, WorkContext, WorkContextEdit,
};
pub use graph::entities::{Entity, EntityEdit, NewEntity};
pub use graph::living::LivingFact;
pub use graph::nodes::{Change, Lifecycle, Node, NodeDetail, NodeKind, Staleness, Warrant};
pub use graph::projects::{Project, of_cwd as project_of_cwd};
pub use graph::store::{Store, StoreLocation};
pub use graph::{Graph, latest_schema_version};

// Continuity logs.
pub use continuity::{
    CaptureMode, ContinuityEntry, ContinuityLog, CrossConversationUpdateContent, EntryContent,
    EntryType, KeyDecisionContent, LogRead, OpenQuestionContent, SessionSummaryRefContent,
    SkippedLine, Status, TornRepair, WorkPhase, WorkPhaseChangeContent,
};

// Inputs: transcripts, sessions, capture, the model, observations.
pub use inputs::agent::{Agent, AgentRun, Trigger};
pub use inputs::capture::{CaptureOutcome, CaptureRequest, CaptureStatus};
pub use inputs::ingest::{IngestProgress, IngestReport, SourceRoot};
pub use inputs::model::{
    Endpoint, FoundBackend, ModelFailure, OLLAMA_DEFAULT_URL, detect as detect_models,
    test_connection,
};
pub use inputs::observe::files::{
    Scope as FolderScope, Settled, is_baselined as folder_is_baselined, settle as settle_folder,
    tracked_file_count,
};
pub use inputs::observe::ignore::IgnoreRules;
pub use inputs::observe::reach::{Found as PushFound, PushReach, ReachedContext, ReachedEntity};
pub use inputs::observe::{
    Observation, ObservationFilter, ObservationKind, ObservationSource, Push, PushOutcome,
    TrackedConfig, TrackedFoldersFile, default_ignores,
};
pub use inputs::sessions::{
    CompactionMark, ListQuery as SessionListQuery, READ_TOKEN_CAP, ReadQuery as TranscriptQuery,
    SessionInfo, SessionSummary, Transcript, TranscriptTurn, TurnPage, ViewWindow, get as session,
    list as list_sessions, read_transcript, summarize as summarize_session,
    turn_page as session_turns,
};
pub use inputs::sources::TranscriptSource;
pub use inputs::transcripts::{Harness, Role, TurnKind, excerpt as transcript_excerpt};

// Views: constellation cards, the rollup, the heads, the home overview, the timeline.
pub use views::constellation::{
    Constellation, NodeItem, ViewRead, rebuild as rebuild_view, rebuild_all as rebuild_views,
    view as constellation_view,
};
pub use views::heads::{
    BLOCK_TAG as HEAD_BLOCK_TAG, DeferredWrite, EditProposal, Failure as HeadFailure,
    GLOBAL_TOKEN_CAP, Head, HeadLine, HeadScope, HeadView, KeptEdit as HeadKeptEdit,
    LEASE_TTL_SECONDS as HEAD_LEASE_TTL_SECONDS, LEFT_OUT_IDS, LeaseTarget, LeftOut,
    LineKind as HeadLineKind, Overview as HeadsOverview, Refresh as HeadsRefresh, THREAD_TOKEN_CAP,
    ThreadHeadSummary, WriteReport as HeadWriteReport, WriteStatus as HeadWriteStatus,
    acquire_lease as acquire_head_lease, overview as heads_overview, path as head_path,
    retry_deferred as retry_deferred_heads, show as show_head, write_to as write_head,
};
pub use views::overview::{ProjectOverview, projects as projects_overview};
pub use views::rollup::{Rollup, generate as generate_rollup, path as rollup_path};
pub use views::timeline::{
    Bucket as TimelineBucket, DEFAULT_DAYS as TIMELINE_DEFAULT_DAYS, DayCount as TimelineDayCount,
    Filter as TimelineFilter, Item as TimelineItem, ItemKind as TimelineItemKind,
    MAX_DAYS as TIMELINE_MAX_DAYS, Target as TimelineTarget, Timeline, query as timeline,
};

// The lineage DAG: every summary with its coverage edges down to raw turns.
pub use views::lineage::{
    BuildReport as LineageBuildReport, CONDENSE_FANOUT, CONDENSE_TAIL, LineageNode,
    LineageNodeKind, counts as lineage_counts,
};

// Search: the index over turns, entries and summaries, and its queries.
pub use views::search::{
    Caller, Citation, DocKind, EmbedReport, Hit, Permission, SearchRequest, SearchResult, Strategy,
    SyncReport, Synthesis as SearchSynthesis, Why,
};

pub use views::search::embed::download::{
    DEFAULT_BASE_URL as EMBEDDING_MODEL_URL, DownloadProgress, DownloadReport,
};

// The Library: collections of the person's documents, and who refers to each.
pub use views::library::{
    Collection as LibraryCollection, Document as LibraryDocument, DocumentQuery as LibraryQuery,
    DocumentRow as LibraryDocumentRow, EntityReference, EntryReference, ObservationReference,
    References as LibraryReferences, SessionReference, collections as library_collections,
    document as library_document, documents as library_documents,
    is_document as is_library_document,
};

// Topics: lenses over what ELNOR holds, and the memberships their directives propose.
pub use graph::topics::{MemberStatus, Membership, Topic, TopicRules};
pub use review::topics::{
    CollectReport, MAX_PROPOSALS_PER_RUN, MembershipOutcome, MembershipProposal,
    decide as decide_memberships, pending as membership_proposals,
};
pub use views::topics::{
    Member as TopicMember, MemberSource, TopicRow, TopicView, list as topics, view as topic_view,
};

// The brief and its traces.
pub use brief::traces::{AssemblySummary, TraceRow};
pub use brief::{
    Brief, BriefRequest, Card, Decision, Delivery, Format, HOOK_CONTEXT_MAX_CHARS,
    HOOK_CONTEXT_MAX_TOKENS, MAX_BUDGET, TIER1_CAP, TIER2_CAP, TIER3_CAP, TraceItem,
    assemble as assemble_brief, hook_output, text as brief_text, warm_last_session,
};

// Review: promotions and the review queue's decisions, research utility.
pub use review::promotion::{
    Evaluation, Proposal, ProposalStatus, ReviewDecision, ReviewFailure, ReviewOutcome, Rule,
    decide as decide_proposals, evaluate as evaluate_promotions,
};
pub use review::sweep::{Degradation, Sweep};
pub use review::utility::{ResearchUtility, latest as latest_utility};
