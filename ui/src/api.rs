//! Typed async wrappers around Tauri's `invoke`, one per shell command and named like it
//! (`noun_verb`). Every wrapper goes through [`invoke`], whose command type (from `elnor-types`)
//! fixes the name, the request and the reply, so the UI and the shell cannot disagree about the
//! wire.

use elnor_types::{
    AddFactRequest, AddLinkRuleRequest, AddSourceRequest, ApiKeyStatus, ApproveRequest,
    AssemblyDetail, AssemblyListRequest, AssemblyRef, AssemblyRow, BriefPreview,
    BriefPreviewRequest, CaptureHealth, CommandError, ConfigFields, ConnectionTest,
    ConstellationView, ContinuityMode, ContinuitySettings, CreateEntityRequest,
    CreateWorkContextRequest, DreamingChanged, EditEntityRequest, EditFactRequest,
    EditWorkContextRequest, EmbedCoverage, EntityLinkRequest, EntityListRequest, EntityRow,
    ErrorKind, EvaluationSummary, FactRef, FoundModel, IgnorePatternsRequest, IngestStatus,
    KnowledgeList, KnowledgeListRequest, LineageNodeDetail, LineageNodeRequest, LineageRequest,
    LineageWindow, LivingFacts, MergeRequest, NightlyReportRow, NightlyStatus, NodeDetail, NodeRef,
    NodeRetireRequest, NodeTextRequest, NodeWarrant, NodeWarrantRequest, ObservationListRequest,
    ObservationRef, ObservationRow, PendingCount, ProjectOverviewRow, ProposalDetail, ProposalIds,
    ProposalRef, PushOutcome, PushPreview, PushRequest, RejectRequest, RemoveLinkRuleRequest,
    ReviewListRequest, ReviewOutcome, ReviewQueue, RollupView, SearchQueryRequest, SearchResults,
    SessionListRequest, SessionRow, SetApiKeyRequest, SetConfigFieldRequest, SetModeRequest,
    SetSourceEnabledRequest, Settings, SourceRow, StoreStatus, Timeline, TimelineRequest,
    TodayView, TrackedFolderRequest, TrackedFolders, TurnPage, TurnPageRequest, WorkContextDetail,
    WorkContextRef, WorkContextRow,
};
use elnor_types::{Command, commands as cmd};
use elnor_types::{
    CreateTopicRequest, EditTopicRequest, LibraryCollectionRow, LibraryDocumentDetail,
    LibraryDocumentRef, LibraryDocumentRow, LibraryDocumentsRequest, LibraryFolderRequest,
    MembershipDecision, MembershipOutcomeRow, MembershipProposalRow, MembershipRow, TopicChanged,
    TopicDetail, TopicListRow, TopicMemberRequest, TopicRef,
};
use elnor_types::{HeadWriteOutcome, HeadWriteRequest, HeadsRefreshed, HeadsRequest, HeadsView};
use elnor_types::{JobKind, JobRef, JobStatus, ReconstructStartRequest};
use elnor_types::{SyncRan, SyncRunRequest, SyncView};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    // `withGlobalTauri` exposes the IPC bridge here; `catch` turns a rejected promise into `Err`.
    #[wasm_bindgen(js_namespace = ["window", "__TAURI__", "core"], js_name = invoke, catch)]
    async fn tauri_invoke(cmd: &str, args: JsValue) -> Result<JsValue, JsValue>;
}

fn bridge_error(message: String) -> CommandError {
    CommandError {
        kind: ErrorKind::Storage,
        message,
    }
}

/// Invokes command `C` with its request, and reads its reply. The command's name and both types
/// come from its [`Command`] impl, so a call cannot name one command and expect another's reply.
pub async fn invoke<C: Command>(request: C::Request) -> Result<C::Reply, CommandError> {
    let name = C::NAME;
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // The shell's handlers take their input as one `request` argument, or none at all.
    let args = if C::TAKES_REQUEST {
        Args { request }.serialize(&serializer)
    } else {
        NoArgs {}.serialize(&serializer)
    }
    .map_err(|e| bridge_error(format!("cannot encode the request: {e}")))?;
    match tauri_invoke(name, args).await {
        Ok(value) => serde_wasm_bindgen::from_value(value)
            .map_err(|e| bridge_error(format!("unexpected reply to {name}: {e}"))),
        Err(error) => Err(
            serde_wasm_bindgen::from_value::<CommandError>(error.clone()).unwrap_or_else(|_| {
                bridge_error(
                    error
                        .as_string()
                        .unwrap_or_else(|| format!("{name} failed: {error:?}")),
                )
            }),
        ),
    }
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Args<T> {
    request: T,
}

pub async fn status_get() -> Result<StoreStatus, CommandError> {
    invoke::<cmd::StatusGet>(()).await
}

pub async fn settings_get() -> Result<Settings, CommandError> {
    invoke::<cmd::SettingsGet>(()).await
}

pub async fn settings_set_mode(mode: ContinuityMode) -> Result<Settings, CommandError> {
    invoke::<cmd::SettingsSetMode>(SetModeRequest { mode }).await
}

pub async fn sessions_list(request: SessionListRequest) -> Result<Vec<SessionRow>, CommandError> {
    invoke::<cmd::SessionsList>(request).await
}

pub async fn turns_list(
    session_id: String,
    offset: u64,
    limit: u32,
) -> Result<TurnPage, CommandError> {
    let request = TurnPageRequest {
        session_id,
        offset,
        limit,
    };
    invoke::<cmd::TurnsList>(request).await
}

pub async fn sources_list() -> Result<Vec<SourceRow>, CommandError> {
    invoke::<cmd::SourcesList>(()).await
}

pub async fn sources_add(harness: String, root: String) -> Result<Vec<SourceRow>, CommandError> {
    invoke::<cmd::SourcesAdd>(AddSourceRequest { harness, root }).await
}

pub async fn sources_set_enabled(
    harness: String,
    root: String,
    enabled: bool,
) -> Result<Vec<SourceRow>, CommandError> {
    invoke::<cmd::SourcesSetEnabled>(SetSourceEnabledRequest {
        harness,
        root,
        enabled,
    })
    .await
}

pub async fn ingest_start() -> Result<IngestStatus, CommandError> {
    invoke::<cmd::IngestStart>(()).await
}

pub async fn ingest_get() -> Result<IngestStatus, CommandError> {
    invoke::<cmd::IngestGet>(()).await
}

pub async fn work_contexts_list() -> Result<Vec<WorkContextRow>, CommandError> {
    invoke::<cmd::WorkContextsList>(()).await
}

pub async fn projects_list() -> Result<Vec<ProjectOverviewRow>, CommandError> {
    invoke::<cmd::ProjectsList>(()).await
}

pub async fn work_contexts_get(work_context_id: String) -> Result<WorkContextDetail, CommandError> {
    let request = WorkContextRef { work_context_id };
    invoke::<cmd::WorkContextsGet>(request).await
}

pub async fn work_contexts_create(
    request: CreateWorkContextRequest,
) -> Result<WorkContextRow, CommandError> {
    invoke::<cmd::WorkContextsCreate>(request).await
}

pub async fn work_contexts_edit(
    request: EditWorkContextRequest,
) -> Result<WorkContextRow, CommandError> {
    invoke::<cmd::WorkContextsEdit>(request).await
}

pub async fn link_rules_add(
    work_context_id: String,
    kind: String,
    pattern: String,
) -> Result<WorkContextRow, CommandError> {
    let request = AddLinkRuleRequest {
        work_context_id,
        kind,
        pattern,
    };
    invoke::<cmd::LinkRulesAdd>(request).await
}

/// Links an entity to a work context.
pub async fn work_contexts_link_entity(
    work_context_id: String,
    entity_id: String,
) -> Result<WorkContextRow, CommandError> {
    let request = EntityLinkRequest {
        work_context_id,
        entity_id,
    };
    invoke::<cmd::WorkContextsLinkEntity>(request).await
}

/// Takes an entity's link off a work context.
pub async fn work_contexts_unlink_entity(
    work_context_id: String,
    entity_id: String,
) -> Result<WorkContextRow, CommandError> {
    let request = EntityLinkRequest {
        work_context_id,
        entity_id,
    };
    invoke::<cmd::WorkContextsUnlinkEntity>(request).await
}

pub async fn link_rules_remove(
    work_context_id: String,
    rule_id: i64,
) -> Result<WorkContextRow, CommandError> {
    let request = RemoveLinkRuleRequest {
        work_context_id,
        rule_id,
    };
    invoke::<cmd::LinkRulesRemove>(request).await
}

pub async fn entities_list(kind: Option<String>) -> Result<Vec<EntityRow>, CommandError> {
    let request = EntityListRequest { kind };
    invoke::<cmd::EntitiesList>(request).await
}

pub async fn entities_create(request: CreateEntityRequest) -> Result<EntityRow, CommandError> {
    invoke::<cmd::EntitiesCreate>(request).await
}

pub async fn entities_edit(request: EditEntityRequest) -> Result<EntityRow, CommandError> {
    invoke::<cmd::EntitiesEdit>(request).await
}

pub async fn entities_merge(keep: String, absorb: String) -> Result<EntityRow, CommandError> {
    let request = MergeRequest { keep, absorb };
    invoke::<cmd::EntitiesMerge>(request).await
}

pub async fn work_contexts_merge(
    keep: String,
    absorb: String,
) -> Result<WorkContextRow, CommandError> {
    let request = MergeRequest { keep, absorb };
    invoke::<cmd::WorkContextsMerge>(request).await
}

pub async fn continuity_get() -> Result<ContinuitySettings, CommandError> {
    invoke::<cmd::ContinuityGet>(()).await
}

pub async fn continuity_set_field(
    key: String,
    value: String,
) -> Result<ConfigFields, CommandError> {
    let request = SetConfigFieldRequest { key, value };
    invoke::<cmd::ContinuitySetField>(request).await
}

/// Hands the key to the shell, which stores it in the OS keyring; the reply says only whether a
/// key is now stored.
pub async fn api_key_set(api_key: String) -> Result<ApiKeyStatus, CommandError> {
    let request = SetApiKeyRequest { api_key };
    invoke::<cmd::ApiKeySet>(request).await
}

pub async fn api_key_clear() -> Result<ApiKeyStatus, CommandError> {
    invoke::<cmd::ApiKeyClear>(()).await
}

/// Whether the API key is stored: asks the OS keyring now.
pub async fn api_key_status() -> Result<ApiKeyStatus, CommandError> {
    invoke::<cmd::ApiKeyStatusGet>(()).await
}

pub async fn model_test() -> Result<ConnectionTest, CommandError> {
    invoke::<cmd::ModelTest>(()).await
}

/// The models this machine offers for full mode without a key.
pub async fn model_detect() -> Result<Vec<FoundModel>, CommandError> {
    invoke::<cmd::ModelDetect>(()).await
}

/// Assembles a preview brief; the shell never marks anything delivered for it.
pub async fn brief_preview(request: BriefPreviewRequest) -> Result<BriefPreview, CommandError> {
    invoke::<cmd::BriefPreview>(request).await
}

pub async fn constellation_get(work_context_id: String) -> Result<ConstellationView, CommandError> {
    let request = WorkContextRef { work_context_id };
    invoke::<cmd::ConstellationGet>(request).await
}

/// Recent brief assemblies, newest first; the app's previews only with `include_previews`.
pub async fn assemblies_list(
    work_context_id: Option<String>,
    limit: Option<u32>,
    include_previews: bool,
) -> Result<Vec<AssemblyRow>, CommandError> {
    let request = AssemblyListRequest {
        work_context_id,
        limit,
        include_previews,
    };
    invoke::<cmd::AssembliesList>(request).await
}

pub async fn assemblies_get(assembly_id: i64) -> Result<AssemblyDetail, CommandError> {
    let request = AssemblyRef { assembly_id };
    invoke::<cmd::AssembliesGet>(request).await
}

/// Where in its session's transcript a brief line or an entry came from: the window of turns,
/// located as the transcript viewer pages them.
pub async fn lineage_expand(request: LineageRequest) -> Result<LineageWindow, CommandError> {
    invoke::<cmd::LineageExpand>(request).await
}

/// The node of the lineage DAG `source` sits in, with its parents, children, siblings, linked
/// entries, the brief lines that cited it and its turns; `agent_scope` keeps to one agent.
pub async fn lineage_node(
    source: LineageRequest,
    agent_scope: Option<String>,
) -> Result<LineageNodeDetail, CommandError> {
    let request = LineageNodeRequest {
        source,
        agent_scope,
    };
    invoke::<cmd::LineageNode>(request).await
}

pub async fn living_facts_list() -> Result<LivingFacts, CommandError> {
    invoke::<cmd::LivingFactsList>(()).await
}

pub async fn living_facts_add(text: String) -> Result<LivingFacts, CommandError> {
    let request = AddFactRequest { text };
    invoke::<cmd::LivingFactsAdd>(request).await
}

pub async fn living_facts_edit(request: EditFactRequest) -> Result<LivingFacts, CommandError> {
    invoke::<cmd::LivingFactsEdit>(request).await
}

pub async fn living_facts_remove(fact_id: i64) -> Result<LivingFacts, CommandError> {
    let request = FactRef { fact_id };
    invoke::<cmd::LivingFactsRemove>(request).await
}

pub async fn rollup_refresh() -> Result<RollupView, CommandError> {
    invoke::<cmd::RollupRefresh>(()).await
}

/// The review queue: pending then deferred proposals, or every proposal with `all`.
pub async fn review_list(all: bool) -> Result<ReviewQueue, CommandError> {
    let request = ReviewListRequest { all };
    invoke::<cmd::ReviewList>(request).await
}

pub async fn review_get(proposal_id: i64) -> Result<ProposalDetail, CommandError> {
    let request = ProposalRef { proposal_id };
    invoke::<cmd::ReviewGet>(request).await
}

/// Approves proposals; `text` (one proposal only) is the person's own wording.
pub async fn review_approve(
    proposal_ids: Vec<i64>,
    text: Option<String>,
) -> Result<ReviewOutcome, CommandError> {
    let request = ApproveRequest { proposal_ids, text };
    invoke::<cmd::ReviewApprove>(request).await
}

pub async fn review_reject(
    proposal_ids: Vec<i64>,
    reason: Option<String>,
) -> Result<ReviewOutcome, CommandError> {
    let request = RejectRequest {
        proposal_ids,
        reason,
    };
    invoke::<cmd::ReviewReject>(request).await
}

pub async fn review_defer(proposal_ids: Vec<i64>) -> Result<ReviewOutcome, CommandError> {
    let request = ProposalIds { proposal_ids };
    invoke::<cmd::ReviewDefer>(request).await
}

pub async fn review_evaluate() -> Result<EvaluationSummary, CommandError> {
    invoke::<cmd::ReviewEvaluate>(()).await
}

pub async fn review_count() -> Result<PendingCount, CommandError> {
    invoke::<cmd::ReviewCount>(()).await
}

pub async fn nightly_get() -> Result<NightlyStatus, CommandError> {
    invoke::<cmd::NightlyGet>(()).await
}

/// Runs the nightly job now; refused while a run is under way.
pub async fn nightly_run() -> Result<NightlyReportRow, CommandError> {
    invoke::<cmd::NightlyRun>(()).await
}

/// Durable nodes, newest change first: the live ones, or all of them with `all`.
pub async fn knowledge_list(all: bool) -> Result<KnowledgeList, CommandError> {
    let request = KnowledgeListRequest { all };
    invoke::<cmd::KnowledgeList>(request).await
}

pub async fn knowledge_get(node_id: String) -> Result<NodeDetail, CommandError> {
    let request = NodeRef { node_id };
    invoke::<cmd::KnowledgeGet>(request).await
}

/// The person's correction of a node's text.
pub async fn knowledge_edit(node_id: String, text: String) -> Result<NodeDetail, CommandError> {
    let request = NodeTextRequest { node_id, text };
    invoke::<cmd::KnowledgeEdit>(request).await
}

pub async fn knowledge_confirm(node_id: String) -> Result<NodeDetail, CommandError> {
    let request = NodeRef { node_id };
    invoke::<cmd::KnowledgeConfirm>(request).await
}

pub async fn knowledge_set_warrant(
    node_id: String,
    warrant: NodeWarrant,
    reason: Option<String>,
) -> Result<NodeDetail, CommandError> {
    let request = NodeWarrantRequest {
        node_id,
        warrant,
        reason,
    };
    invoke::<cmd::KnowledgeSetWarrant>(request).await
}

pub async fn knowledge_retire(
    node_id: String,
    reason: Option<String>,
) -> Result<NodeDetail, CommandError> {
    let request = NodeRetireRequest { node_id, reason };
    invoke::<cmd::KnowledgeRetire>(request).await
}

/// Replaces a node by a new one with `text`; replies with the new node.
pub async fn knowledge_supersede(
    node_id: String,
    text: String,
) -> Result<NodeDetail, CommandError> {
    let request = NodeTextRequest { node_id, text };
    invoke::<cmd::KnowledgeSupersede>(request).await
}

/// "I just did X": records the push as an observation; the reply says what it touched.
pub async fn observations_push(request: PushRequest) -> Result<PushOutcome, CommandError> {
    invoke::<cmd::ObservationsPush>(request).await
}

/// Today: what needs the person, then their projects; the read counts as their look.
pub async fn today_get() -> Result<TodayView, CommandError> {
    invoke::<cmd::TodayGet>(()).await
}

/// Capture health: per transcript folder what was read, per agent whether it went quiet.
pub async fn health_get() -> Result<CaptureHealth, CommandError> {
    invoke::<cmd::HealthGet>(()).await
}

/// Turns OpenClaw's Dreaming off in its config, after a backup; the reply says what changed.
pub async fn dreaming_disable() -> Result<DreamingChanged, CommandError> {
    invoke::<cmd::DreamingDisable>(()).await
}

/// One head as a refresh would write it now, with what did not fit, its kept edits and its
/// deferred writes, and the list of thread heads.
pub async fn heads_get(request: HeadsRequest) -> Result<HeadsView, CommandError> {
    invoke::<cmd::HeadsGet>(request).await
}

/// Rewrites every head under the store's `heads/` now; the reply counts what happened.
pub async fn heads_refresh() -> Result<HeadsRefreshed, CommandError> {
    invoke::<cmd::HeadsRefresh>(()).await
}

/// Writes a head into a marked block of a file; the reply says what became of the write.
pub async fn head_write_to(request: HeadWriteRequest) -> Result<HeadWriteOutcome, CommandError> {
    invoke::<cmd::HeadWriteTo>(request).await
}

/// Where a push would reach, nothing stored: the push box's preview.
pub async fn observations_preview_push(request: PushRequest) -> Result<PushPreview, CommandError> {
    invoke::<cmd::ObservationsPreviewPush>(request).await
}

/// Observations (file changes and pushes), newest first.
pub async fn observations_list(
    request: ObservationListRequest,
) -> Result<Vec<ObservationRow>, CommandError> {
    invoke::<cmd::ObservationsList>(request).await
}

pub async fn observations_get(observation_id: i64) -> Result<ObservationRow, CommandError> {
    let request = ObservationRef { observation_id };
    invoke::<cmd::ObservationsGet>(request).await
}

/// What happened in a window of days, newest first, with the per-day chart.
pub async fn timeline_get(request: TimelineRequest) -> Result<Timeline, CommandError> {
    invoke::<cmd::TimelineGet>(request).await
}

/// Searches everything said and written; every hit says why it ranked where it did.
pub async fn search_query(request: SearchQueryRequest) -> Result<SearchResults, CommandError> {
    invoke::<cmd::SearchQuery>(request).await
}

/// How many of the indexed documents have an embedding.
pub async fn embeddings_get() -> Result<EmbedCoverage, CommandError> {
    invoke::<cmd::EmbeddingsGet>(()).await
}

/// Starts fetching the built-in embedding model in the background; the reply is the job's status.
pub async fn model_download_start() -> Result<JobStatus, CommandError> {
    invoke::<cmd::ModelDownloadStart>(()).await
}

/// Starts embedding every indexed document that has no vector yet, in the background.
pub async fn embeddings_start() -> Result<JobStatus, CommandError> {
    invoke::<cmd::EmbeddingsStart>(()).await
}

/// Starts rebuilding the search index from the stores, in the background.
pub async fn reindex_start() -> Result<JobStatus, CommandError> {
    invoke::<cmd::ReindexStart>(()).await
}

/// Asks the running job of `kind` to stop.
/// Starts a reconstruction (a comparison, or with `apply` an apply) in the background.
pub async fn reconstruct_start(
    request: ReconstructStartRequest,
) -> Result<JobStatus, CommandError> {
    invoke::<cmd::ReconstructStart>(request).await
}

pub async fn job_cancel(kind: JobKind) -> Result<JobStatus, CommandError> {
    invoke::<cmd::JobCancel>(JobRef { kind }).await
}

/// Every background job's status, in `JobKind::ALL` order.
pub async fn jobs_get() -> Result<Vec<JobStatus>, CommandError> {
    invoke::<cmd::JobsGet>(()).await
}

/// Where sync stands (Settings → Sync, the sidebar's light); no network.
pub async fn sync_get() -> Result<SyncView, CommandError> {
    invoke::<cmd::SyncGet>(()).await
}

/// Sets the remote when the request names one, then syncs now.
pub async fn sync_run(request: SyncRunRequest) -> Result<SyncRan, CommandError> {
    invoke::<cmd::SyncRun>(request).await
}

/// The tracked folders, the ignore rules and the file watcher's state.
pub async fn tracked_folders_get() -> Result<TrackedFolders, CommandError> {
    invoke::<cmd::TrackedFoldersGet>(()).await
}

pub async fn tracked_folders_add(path: String) -> Result<TrackedFolders, CommandError> {
    let request = TrackedFolderRequest { path };
    invoke::<cmd::TrackedFoldersAdd>(request).await
}

pub async fn tracked_folders_remove(path: String) -> Result<TrackedFolders, CommandError> {
    let request = TrackedFolderRequest { path };
    invoke::<cmd::TrackedFoldersRemove>(request).await
}

/// Replaces the person's ignore patterns with `patterns`.
pub async fn ignore_patterns_set(patterns: Vec<String>) -> Result<TrackedFolders, CommandError> {
    let request = IgnorePatternsRequest { patterns };
    invoke::<cmd::IgnorePatternsSet>(request).await
}

/// The Library's collections (tracked folders), with their document counts.
pub async fn library_collections_list() -> Result<Vec<LibraryCollectionRow>, CommandError> {
    invoke::<cmd::LibraryCollectionsList>(()).await
}

/// Adds a folder to the Library; its documents are listed as soon as this replies.
pub async fn library_collection_add(path: String) -> Result<LibraryCollectionRow, CommandError> {
    invoke::<cmd::LibraryCollectionAdd>(LibraryFolderRequest { path }).await
}

pub async fn library_documents_list(
    request: LibraryDocumentsRequest,
) -> Result<Vec<LibraryDocumentRow>, CommandError> {
    invoke::<cmd::LibraryDocumentsList>(request).await
}

/// One document rendered, with who refers to it.
pub async fn library_document_get(path: String) -> Result<LibraryDocumentDetail, CommandError> {
    invoke::<cmd::LibraryDocumentGet>(LibraryDocumentRef { path }).await
}

pub async fn topics_list() -> Result<Vec<TopicListRow>, CommandError> {
    invoke::<cmd::TopicsList>(()).await
}

/// A Topic's lens now: its members, each with why it is one.
pub async fn topic_get(topic_id: String) -> Result<TopicDetail, CommandError> {
    invoke::<cmd::TopicGet>(TopicRef { topic_id }).await
}

pub async fn topic_create(request: CreateTopicRequest) -> Result<TopicChanged, CommandError> {
    invoke::<cmd::TopicCreate>(request).await
}

pub async fn topic_edit(request: EditTopicRequest) -> Result<TopicChanged, CommandError> {
    invoke::<cmd::TopicEdit>(request).await
}

pub async fn topic_delete(topic_id: String) -> Result<(), CommandError> {
    invoke::<cmd::TopicDelete>(TopicRef { topic_id }).await
}

/// Pins a search document (a hit's `doc_id`) into a Topic; the reply is the stored membership.
pub async fn topic_member_pin(
    topic_id: String,
    doc_id: String,
) -> Result<MembershipRow, CommandError> {
    invoke::<cmd::TopicMemberPin>(TopicMemberRequest { topic_id, doc_id }).await
}

/// Takes a pinned or approved member out of a Topic.
pub async fn topic_member_unpin(topic_id: String, doc_id: String) -> Result<(), CommandError> {
    invoke::<cmd::TopicMemberUnpin>(TopicMemberRequest { topic_id, doc_id }).await
}

/// The Topic membership proposals waiting in the review queue.
pub async fn memberships_list() -> Result<Vec<MembershipProposalRow>, CommandError> {
    invoke::<cmd::MembershipsList>(()).await
}

/// Approves or rejects Topic membership proposals.
pub async fn memberships_decide(
    membership_ids: Vec<i64>,
    approve: bool,
) -> Result<MembershipOutcomeRow, CommandError> {
    let request = MembershipDecision {
        membership_ids,
        approve,
    };
    invoke::<cmd::MembershipsDecide>(request).await
}

/// Resolves after `ms` milliseconds (for polling progress).
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
