//! Typed async wrappers around Tauri's `invoke`, one per shell command. Names and types come from
//! `elnor-types`, so the UI and the shell cannot disagree about the wire.

use elnor_types::{
    AddFactRequest, AddLinkRuleRequest, AddSourceRequest, ApiKeyStatus, ApproveRequest,
    AssemblyDetail, AssemblyListRequest, AssemblyRef, AssemblyRow, BriefPreview,
    BriefPreviewRequest, CommandError, ConfigFields, ConnectionTest, ConstellationView,
    ContinuityMode, ContinuitySettings, CreateEntityRequest, CreateWorkContextRequest,
    EditEntityRequest, EditFactRequest, EditWorkContextRequest, EntityListRequest, EntityRow,
    ErrorKind, EvaluationSummary, FactRef, IgnorePatternsRequest, IngestStatus, KnowledgeList,
    KnowledgeListRequest, LivingFacts, MergeRequest, NightlyReportRow, NightlyStatus, NodeDetail,
    NodeRef, NodeRetireRequest, NodeTextRequest, NodeWarrant, NodeWarrantRequest,
    ObservationListRequest, ObservationRef, ObservationRow, PendingCount, ProjectOverviewRow,
    ProposalDetail, ProposalIds, ProposalRef, PushOutcome, PushRequest, RejectRequest,
    RemoveLinkRuleRequest, ReviewListRequest, ReviewOutcome, ReviewQueue, RollupView,
    SessionListRequest, SessionRow, SetApiKeyRequest, SetConfigFieldRequest, SetModeRequest,
    SetSourceEnabledRequest, Settings, SourceRow, StoreStatus, Timeline, TimelineRequest,
    TrackedFolderRequest, TrackedFolders, TurnPage, TurnPageRequest, WorkContextDetail,
    WorkContextRef, WorkContextRow, commands,
};
use serde::{Serialize, de::DeserializeOwned};
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

async fn call<A: Serialize, R: DeserializeOwned>(cmd: &str, args: &A) -> Result<R, CommandError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    let args = args
        .serialize(&serializer)
        .map_err(|e| bridge_error(format!("cannot encode the request: {e}")))?;
    match tauri_invoke(cmd, args).await {
        Ok(value) => serde_wasm_bindgen::from_value(value)
            .map_err(|e| bridge_error(format!("unexpected reply to {cmd}: {e}"))),
        Err(error) => Err(
            serde_wasm_bindgen::from_value::<CommandError>(error.clone()).unwrap_or_else(|_| {
                bridge_error(
                    error
                        .as_string()
                        .unwrap_or_else(|| format!("{cmd} failed: {error:?}")),
                )
            }),
        ),
    }
}

#[derive(Serialize)]
struct NoArgs {}

#[derive(Serialize)]
struct Request<T> {
    request: T,
}

pub async fn store_status() -> Result<StoreStatus, CommandError> {
    call(commands::STORE_STATUS, &NoArgs {}).await
}

pub async fn get_settings() -> Result<Settings, CommandError> {
    call(commands::GET_SETTINGS, &NoArgs {}).await
}

pub async fn set_continuity_mode(mode: ContinuityMode) -> Result<Settings, CommandError> {
    call(
        commands::SET_CONTINUITY_MODE,
        &Request {
            request: SetModeRequest { mode },
        },
    )
    .await
}

pub async fn list_sessions(request: SessionListRequest) -> Result<Vec<SessionRow>, CommandError> {
    call(commands::LIST_SESSIONS, &Request { request }).await
}

pub async fn turn_page(
    session_id: String,
    offset: u64,
    limit: u32,
) -> Result<TurnPage, CommandError> {
    let request = TurnPageRequest {
        session_id,
        offset,
        limit,
    };
    call(commands::TURN_PAGE, &Request { request }).await
}

pub async fn list_sources() -> Result<Vec<SourceRow>, CommandError> {
    call(commands::LIST_SOURCES, &NoArgs {}).await
}

pub async fn add_source(harness: String, root: String) -> Result<Vec<SourceRow>, CommandError> {
    call(
        commands::ADD_SOURCE,
        &Request {
            request: AddSourceRequest { harness, root },
        },
    )
    .await
}

pub async fn set_source_enabled(
    harness: String,
    root: String,
    enabled: bool,
) -> Result<Vec<SourceRow>, CommandError> {
    call(
        commands::SET_SOURCE_ENABLED,
        &Request {
            request: SetSourceEnabledRequest {
                harness,
                root,
                enabled,
            },
        },
    )
    .await
}

pub async fn start_ingest() -> Result<IngestStatus, CommandError> {
    call(commands::START_INGEST, &NoArgs {}).await
}

pub async fn ingest_status() -> Result<IngestStatus, CommandError> {
    call(commands::INGEST_STATUS, &NoArgs {}).await
}

pub async fn list_work_contexts() -> Result<Vec<WorkContextRow>, CommandError> {
    call(commands::LIST_WORK_CONTEXTS, &NoArgs {}).await
}

pub async fn projects_overview() -> Result<Vec<ProjectOverviewRow>, CommandError> {
    call(commands::PROJECTS_OVERVIEW, &NoArgs {}).await
}

pub async fn get_work_context(work_context_id: String) -> Result<WorkContextDetail, CommandError> {
    let request = WorkContextRef { work_context_id };
    call(commands::GET_WORK_CONTEXT, &Request { request }).await
}

pub async fn create_work_context(
    request: CreateWorkContextRequest,
) -> Result<WorkContextRow, CommandError> {
    call(commands::CREATE_WORK_CONTEXT, &Request { request }).await
}

pub async fn edit_work_context(
    request: EditWorkContextRequest,
) -> Result<WorkContextRow, CommandError> {
    call(commands::EDIT_WORK_CONTEXT, &Request { request }).await
}

pub async fn add_link_rule(
    work_context_id: String,
    kind: String,
    pattern: String,
) -> Result<WorkContextRow, CommandError> {
    let request = AddLinkRuleRequest {
        work_context_id,
        kind,
        pattern,
    };
    call(commands::ADD_LINK_RULE, &Request { request }).await
}

pub async fn remove_link_rule(
    work_context_id: String,
    rule_id: i64,
) -> Result<WorkContextRow, CommandError> {
    let request = RemoveLinkRuleRequest {
        work_context_id,
        rule_id,
    };
    call(commands::REMOVE_LINK_RULE, &Request { request }).await
}

pub async fn list_entities(kind: Option<String>) -> Result<Vec<EntityRow>, CommandError> {
    let request = EntityListRequest { kind };
    call(commands::LIST_ENTITIES, &Request { request }).await
}

pub async fn create_entity(request: CreateEntityRequest) -> Result<EntityRow, CommandError> {
    call(commands::CREATE_ENTITY, &Request { request }).await
}

pub async fn edit_entity(request: EditEntityRequest) -> Result<EntityRow, CommandError> {
    call(commands::EDIT_ENTITY, &Request { request }).await
}

pub async fn merge_entities(keep: String, absorb: String) -> Result<EntityRow, CommandError> {
    let request = MergeRequest { keep, absorb };
    call(commands::MERGE_ENTITIES, &Request { request }).await
}

pub async fn merge_work_contexts(
    keep: String,
    absorb: String,
) -> Result<WorkContextRow, CommandError> {
    let request = MergeRequest { keep, absorb };
    call(commands::MERGE_WORK_CONTEXTS, &Request { request }).await
}

pub async fn get_continuity_settings() -> Result<ContinuitySettings, CommandError> {
    call(commands::GET_CONTINUITY_SETTINGS, &NoArgs {}).await
}

pub async fn set_config_field(key: String, value: String) -> Result<ConfigFields, CommandError> {
    let request = SetConfigFieldRequest { key, value };
    call(commands::SET_CONFIG_FIELD, &Request { request }).await
}

/// Hands the key to the shell, which stores it in the OS keyring; the reply says only whether a
/// key is now stored.
pub async fn set_api_key(api_key: String) -> Result<ApiKeyStatus, CommandError> {
    let request = SetApiKeyRequest { api_key };
    call(commands::SET_API_KEY, &Request { request }).await
}

pub async fn clear_api_key() -> Result<ApiKeyStatus, CommandError> {
    call(commands::CLEAR_API_KEY, &NoArgs {}).await
}

pub async fn test_model_connection() -> Result<ConnectionTest, CommandError> {
    call(commands::TEST_MODEL_CONNECTION, &NoArgs {}).await
}

/// Assembles a preview brief; the shell never marks anything delivered for it.
pub async fn brief_preview(request: BriefPreviewRequest) -> Result<BriefPreview, CommandError> {
    call(commands::BRIEF_PREVIEW, &Request { request }).await
}

pub async fn constellation_get(work_context_id: String) -> Result<ConstellationView, CommandError> {
    let request = WorkContextRef { work_context_id };
    call(commands::CONSTELLATION_GET, &Request { request }).await
}

pub async fn assemblies_list(
    work_context_id: Option<String>,
    limit: Option<u32>,
) -> Result<Vec<AssemblyRow>, CommandError> {
    let request = AssemblyListRequest {
        work_context_id,
        limit,
    };
    call(commands::ASSEMBLIES_LIST, &Request { request }).await
}

pub async fn assembly_get(assembly_id: i64) -> Result<AssemblyDetail, CommandError> {
    let request = AssemblyRef { assembly_id };
    call(commands::ASSEMBLY_GET, &Request { request }).await
}

pub async fn living_facts_list() -> Result<LivingFacts, CommandError> {
    call(commands::LIVING_FACTS_LIST, &NoArgs {}).await
}

pub async fn living_facts_add(text: String) -> Result<LivingFacts, CommandError> {
    let request = AddFactRequest { text };
    call(commands::LIVING_FACTS_ADD, &Request { request }).await
}

pub async fn living_facts_edit(request: EditFactRequest) -> Result<LivingFacts, CommandError> {
    call(commands::LIVING_FACTS_EDIT, &Request { request }).await
}

pub async fn living_facts_remove(fact_id: i64) -> Result<LivingFacts, CommandError> {
    let request = FactRef { fact_id };
    call(commands::LIVING_FACTS_REMOVE, &Request { request }).await
}

pub async fn rollup_refresh() -> Result<RollupView, CommandError> {
    call(commands::ROLLUP_REFRESH, &NoArgs {}).await
}

/// The review queue: pending then deferred proposals, or every proposal with `all`.
pub async fn review_list(all: bool) -> Result<ReviewQueue, CommandError> {
    let request = ReviewListRequest { all };
    call(commands::REVIEW_LIST, &Request { request }).await
}

pub async fn review_show(proposal_id: i64) -> Result<ProposalDetail, CommandError> {
    let request = ProposalRef { proposal_id };
    call(commands::REVIEW_SHOW, &Request { request }).await
}

/// Approves proposals; `text` (one proposal only) is the person's own wording.
pub async fn review_approve(
    proposal_ids: Vec<i64>,
    text: Option<String>,
) -> Result<ReviewOutcome, CommandError> {
    let request = ApproveRequest { proposal_ids, text };
    call(commands::REVIEW_APPROVE, &Request { request }).await
}

pub async fn review_reject(
    proposal_ids: Vec<i64>,
    reason: Option<String>,
) -> Result<ReviewOutcome, CommandError> {
    let request = RejectRequest {
        proposal_ids,
        reason,
    };
    call(commands::REVIEW_REJECT, &Request { request }).await
}

pub async fn review_defer(proposal_ids: Vec<i64>) -> Result<ReviewOutcome, CommandError> {
    let request = ProposalIds { proposal_ids };
    call(commands::REVIEW_DEFER, &Request { request }).await
}

pub async fn review_evaluate() -> Result<EvaluationSummary, CommandError> {
    call(commands::REVIEW_EVALUATE, &NoArgs {}).await
}

pub async fn review_pending_count() -> Result<PendingCount, CommandError> {
    call(commands::REVIEW_PENDING_COUNT, &NoArgs {}).await
}

pub async fn nightly_status() -> Result<NightlyStatus, CommandError> {
    call(commands::NIGHTLY_STATUS, &NoArgs {}).await
}

/// Runs the nightly job now; refused while a run is under way.
pub async fn nightly_run() -> Result<NightlyReportRow, CommandError> {
    call(commands::NIGHTLY_RUN, &NoArgs {}).await
}

/// Durable nodes, newest change first: the live ones, or all of them with `all`.
pub async fn knowledge_list(all: bool) -> Result<KnowledgeList, CommandError> {
    let request = KnowledgeListRequest { all };
    call(commands::KNOWLEDGE_LIST, &Request { request }).await
}

pub async fn knowledge_show(node_id: String) -> Result<NodeDetail, CommandError> {
    let request = NodeRef { node_id };
    call(commands::KNOWLEDGE_SHOW, &Request { request }).await
}

/// The person's correction of a node's text.
pub async fn knowledge_edit(node_id: String, text: String) -> Result<NodeDetail, CommandError> {
    let request = NodeTextRequest { node_id, text };
    call(commands::KNOWLEDGE_EDIT, &Request { request }).await
}

pub async fn knowledge_confirm(node_id: String) -> Result<NodeDetail, CommandError> {
    let request = NodeRef { node_id };
    call(commands::KNOWLEDGE_CONFIRM, &Request { request }).await
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
    call(commands::KNOWLEDGE_SET_WARRANT, &Request { request }).await
}

pub async fn knowledge_retire(
    node_id: String,
    reason: Option<String>,
) -> Result<NodeDetail, CommandError> {
    let request = NodeRetireRequest { node_id, reason };
    call(commands::KNOWLEDGE_RETIRE, &Request { request }).await
}

/// Replaces a node by a new one with `text`; replies with the new node.
pub async fn knowledge_supersede(
    node_id: String,
    text: String,
) -> Result<NodeDetail, CommandError> {
    let request = NodeTextRequest { node_id, text };
    call(commands::KNOWLEDGE_SUPERSEDE, &Request { request }).await
}

/// "I just did X": records the push as an observation; the reply says what it touched.
pub async fn push_observation(request: PushRequest) -> Result<PushOutcome, CommandError> {
    call(commands::PUSH_OBSERVATION, &Request { request }).await
}

/// Observations (file changes and pushes), newest first.
pub async fn observations_list(
    request: ObservationListRequest,
) -> Result<Vec<ObservationRow>, CommandError> {
    call(commands::OBSERVATIONS_LIST, &Request { request }).await
}

pub async fn observation_get(observation_id: i64) -> Result<ObservationRow, CommandError> {
    let request = ObservationRef { observation_id };
    call(commands::OBSERVATION_GET, &Request { request }).await
}

/// What happened in a window of days, newest first, with the per-day chart.
pub async fn timeline(request: TimelineRequest) -> Result<Timeline, CommandError> {
    call(commands::TIMELINE, &Request { request }).await
}

/// The tracked folders, the ignore rules and the file watcher's state.
pub async fn tracked_folders() -> Result<TrackedFolders, CommandError> {
    call(commands::TRACKED_FOLDERS, &NoArgs {}).await
}

pub async fn add_tracked_folder(path: String) -> Result<TrackedFolders, CommandError> {
    let request = TrackedFolderRequest { path };
    call(commands::ADD_TRACKED_FOLDER, &Request { request }).await
}

pub async fn remove_tracked_folder(path: String) -> Result<TrackedFolders, CommandError> {
    let request = TrackedFolderRequest { path };
    call(commands::REMOVE_TRACKED_FOLDER, &Request { request }).await
}

/// Replaces the person's ignore patterns with `patterns`.
pub async fn set_ignore_patterns(patterns: Vec<String>) -> Result<TrackedFolders, CommandError> {
    let request = IgnorePatternsRequest { patterns };
    call(commands::SET_IGNORE_PATTERNS, &Request { request }).await
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
