//! Work contexts and entities: `work_contexts_list`, `work_contexts_get` (with its continuity log
//! rendered for reading), `work_contexts_create`, `work_contexts_edit`, `link_rules_add`,
//! `link_rules_remove`, `work_contexts_merge`, `entities_list`, `entities_create`, `entities_edit` and
//! `entities_merge`. Each calls one engine function and
//! converts its types; manual edits then deliver pending entity events, as the engine asks.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use elnor_engine::{ContinuityEntry, EntityId, Store, WorkContextId};
use elnor_engine::{Entity, EntityEdit, NewEntity};
use elnor_engine::{EntryContent, WorkPhase};
use elnor_engine::{LinkRuleKind, NewWorkContext, WorkContext, WorkContextEdit};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, ContinuityEntryRow, EntityRow, ErrorKind, HealthAlertRow, LinkRuleRow,
    MovedContextRow, ProjectOverviewRow, TodayView, WaitingQuestionRow, WorkContextDetail,
    WorkContextRow,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn row(wc: WorkContext) -> WorkContextRow {
    WorkContextRow {
        work_context_id: wc.work_context_id.to_string(),
        name: wc.name,
        domain_lineage: wc.domain_lineage,
        origin: wc.origin.as_str().to_owned(),
        local_only: wc.local_only,
        entity_ids: wc.entity_ids.iter().map(|e| e.to_string()).collect(),
        rules: wc
            .rules
            .into_iter()
            .map(|r| LinkRuleRow {
                rule_id: r.rule_id,
                kind: r.kind.as_str().to_owned(),
                pattern: r.pattern,
            })
            .collect(),
        session_count: wc.session_count,
        last_active_at: wc.last_active_at,
    }
}

fn entity_row(e: Entity) -> EntityRow {
    EntityRow {
        entity_id: e.entity_id.to_string(),
        kind: e.kind,
        canonical_name: e.canonical_name,
        aliases: e.aliases,
        deadline: e.deadline,
    }
}

/// The stored (snake_case) name of a serde enum value, such as a work phase.
pub(crate) fn wire_name<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

pub(crate) fn phase_name(phase: WorkPhase) -> String {
    wire_name(phase).replace('_', " ")
}

pub(crate) fn entry_row(
    e: &ContinuityEntry,
    delivered: &BTreeMap<String, DateTime<Utc>>,
) -> ContinuityEntryRow {
    let (detail, resolved) = match &e.content {
        EntryContent::OpenQuestion(q) => (
            Some(q.context.clone()).filter(|c| !c.is_empty()),
            q.resolved,
        ),
        EntryContent::KeyDecision(d) => (d.rationale.clone(), false),
        EntryContent::WorkPhaseChange(p) => (p.reason.clone(), false),
        EntryContent::SessionSummaryRef(s) => (
            Some(format!(
                "{} turns{}{}",
                s.turn_count,
                s.duration_minutes
                    .map(|m| format!(" over {m} min"))
                    .unwrap_or_default(),
                if s.tools_used.is_empty() {
                    String::new()
                } else {
                    format!("; tools: {}", s.tools_used.join(", "))
                }
            )),
            false,
        ),
        EntryContent::CrossConversationUpdate(_) => (None, false),
    };
    let headline = match &e.content {
        EntryContent::WorkPhaseChange(p) => phase_name(p.new_phase),
        other => other.headline(),
    };
    // Questions and decisions captured without the model come from the heuristic detectors,
    // whose precision is measured but imperfect, so the person must be able to tell them apart.
    let reduced_confidence = e.is_reduced_confidence();
    ContinuityEntryRow {
        entry_id: e.entry_id.to_string(),
        entry_type: e.entry_type().as_str().to_owned(),
        headline,
        detail,
        capture_mode: wire_name(e.capture_mode),
        reduced_confidence,
        resolved,
        captured_at: e.captured_at.to_rfc3339(),
        source_session_id: e.source_session_id.to_string(),
        // Delivery is recorded in the graph, the log being append-only.
        delivered: e.delivered || delivered.contains_key(e.entry_id.as_str()),
    }
}

fn detail(store: &Store, id: &str) -> Result<WorkContextDetail, CommandError> {
    let err = |e: elnor_engine::Error| to_command_error(&e);
    let wc = store.graph().work_context(id).map_err(err)?;
    let entities = wc
        .entity_ids
        .iter()
        .map(|e| store.graph().entity(e.as_str()).map(entity_row))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let read = store.log(&wc.work_context_id).read().map_err(err)?;
    let delivered = store
        .graph()
        .update_deliveries(wc.work_context_id.as_str())
        .map_err(err)?;
    let mut entries: Vec<&ContinuityEntry> = read.entries.iter().collect();
    // Newest first; entries captured together keep their log order (the sort is stable).
    entries.sort_by_key(|e| std::cmp::Reverse(e.captured_at));
    let current_phase = entries.iter().find_map(|e| match &e.content {
        EntryContent::WorkPhaseChange(p) => Some(phase_name(p.new_phase)),
        _ => None,
    });
    Ok(WorkContextDetail {
        context: row(wc),
        entities,
        current_phase,
        entries: entries
            .into_iter()
            .map(|e| entry_row(e, &delivered))
            .collect(),
        skipped_lines: read.skipped.len() as u64,
    })
}

fn rule_kind(kind: &str) -> Result<LinkRuleKind, CommandError> {
    LinkRuleKind::parse(kind).ok_or_else(|| CommandError {
        kind: ErrorKind::InvalidInput,
        message: format!("unknown link rule kind {kind:?}; use cwd, session_key or entity_set"),
    })
}

/// Text fields left empty in a form mean "no value".
pub(crate) fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}

#[tauri::command]
pub async fn projects_list(state: State<'_, AppState>) -> ReplyOf<cmd::ProjectsList> {
    let store = state.store()?;
    blocking(move || {
        elnor_engine::projects_overview(&store, OVERVIEW_LIMIT)
            .map(|rows| rows.into_iter().map(project_row).collect())
            .map_err(|e| to_command_error(&e))
    })
    .await
}

/// A project as the app shows it.
fn project_row(p: elnor_engine::ProjectOverview) -> ProjectOverviewRow {
    ProjectOverviewRow {
        work_context_id: p.work_context_id.to_string(),
        name: p.name,
        origin: p.origin.as_str().to_owned(),
        session_count: p.session_count,
        last_active_at: p.last_active_at,
        phase: p.phase.map(phase_name),
        latest_summary: p.latest_summary,
        open_questions: p.open_questions,
        heuristic_questions: p.heuristic_questions as u64,
    }
}

#[tauri::command]
pub async fn today_get(state: State<'_, AppState>) -> ReplyOf<cmd::TodayGet> {
    let store = state.store()?;
    blocking(move || {
        let now = elnor_engine::now();
        let t = elnor_engine::today(&store, now).map_err(|e| to_command_error(&e))?;
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(TodayView {
            pending_reviews: count(t.pending_reviews),
            waiting_questions: t
                .waiting_questions
                .into_iter()
                .map(|q| WaitingQuestionRow {
                    work_context_id: q.work_context_id.to_string(),
                    context_name: q.context_name,
                    question: q.question,
                    asked_at: q.asked_at.to_rfc3339(),
                    days_open: u32::try_from((now - q.asked_at).num_days().max(0))
                        .unwrap_or(u32::MAX),
                    heuristic: q.heuristic,
                    source_session_id: q.source_session_id.to_string(),
                })
                .collect(),
            waiting_question_count: count(t.waiting_question_count),
            last_looked_at: t.last_looked_at.map(|at| at.to_rfc3339()),
            moved: t
                .moved
                .into_iter()
                .map(|m| MovedContextRow {
                    work_context_id: m.work_context_id.to_string(),
                    name: m.name,
                    sessions_since: m.sessions_since,
                    last_active_at: m.last_active_at,
                })
                .collect(),
            alerts: t
                .alerts
                .into_iter()
                .map(|a| HealthAlertRow {
                    kind: a.kind.as_str().to_owned(),
                    message: a.message,
                })
                .collect(),
            projects: t.projects.into_iter().map(project_row).collect(),
            project_count: count(t.project_count),
        })
    })
    .await
}

/// How many projects Home's overview shows.
const OVERVIEW_LIMIT: usize = 12;

#[tauri::command]
pub async fn work_contexts_list(state: State<'_, AppState>) -> ReplyOf<cmd::WorkContextsList> {
    let store = state.store()?;
    blocking(move || {
        store
            .graph()
            .work_contexts()
            .map(|list| list.into_iter().map(row).collect())
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn work_contexts_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsGet>,
) -> ReplyOf<cmd::WorkContextsGet> {
    let store = state.store()?;
    // Validated here so that a hostile id can never become a log file path.
    WorkContextId::new(&request.work_context_id).map_err(|e| to_command_error(&e))?;
    blocking(move || detail(&store, &request.work_context_id)).await
}

#[tauri::command]
pub async fn work_contexts_create(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsCreate>,
) -> ReplyOf<cmd::WorkContextsCreate> {
    let store = state.store()?;
    blocking(move || {
        let rules = [
            (LinkRuleKind::Cwd, non_empty(request.cwd)),
            (LinkRuleKind::SessionKey, non_empty(request.session_key)),
        ]
        .into_iter()
        .filter_map(|(kind, pattern)| pattern.map(|p| (kind, p)))
        .collect();
        let new = NewWorkContext {
            name: request.name,
            local_only: request.local_only,
            rules,
            ..NewWorkContext::default()
        };
        elnor_engine::create_work_context(&store, &new, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn work_contexts_edit(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsEdit>,
) -> ReplyOf<cmd::WorkContextsEdit> {
    let store = state.store()?;
    blocking(move || {
        let edit = WorkContextEdit {
            name: non_empty(request.name),
            local_only: request.local_only,
            ..WorkContextEdit::default()
        };
        let id = WorkContextId::new(request.work_context_id).map_err(|e| to_command_error(&e))?;
        elnor_engine::edit_work_context(&store, &id, &edit, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn link_rules_add(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LinkRulesAdd>,
) -> ReplyOf<cmd::LinkRulesAdd> {
    let store = state.store()?;
    let kind = rule_kind(&request.kind)?;
    blocking(move || {
        let id = WorkContextId::new(request.work_context_id).map_err(|e| to_command_error(&e))?;
        elnor_engine::add_link_rule(&store, &id, kind, &request.pattern, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn link_rules_remove(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LinkRulesRemove>,
) -> ReplyOf<cmd::LinkRulesRemove> {
    let store = state.store()?;
    blocking(move || {
        let id = WorkContextId::new(request.work_context_id).map_err(|e| to_command_error(&e))?;
        elnor_engine::remove_link_rule(&store, &id, request.rule_id, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn work_contexts_link_entity(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsLinkEntity>,
) -> ReplyOf<cmd::WorkContextsLinkEntity> {
    let store = state.store()?;
    blocking(move || {
        let (id, entity) = entity_link(request)?;
        elnor_engine::link_entity(&store, &id, &entity, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn work_contexts_unlink_entity(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsUnlinkEntity>,
) -> ReplyOf<cmd::WorkContextsUnlinkEntity> {
    let store = state.store()?;
    blocking(move || {
        let (id, entity) = entity_link(request)?;
        elnor_engine::unlink_entity(&store, &id, &entity, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

/// The work context and entity of a link request, as the engine's ids.
fn entity_link(
    request: elnor_types::EntityLinkRequest,
) -> Result<(WorkContextId, elnor_engine::EntityId), CommandError> {
    Ok((
        WorkContextId::new(request.work_context_id).map_err(|e| to_command_error(&e))?,
        elnor_engine::EntityId::new(request.entity_id).map_err(|e| to_command_error(&e))?,
    ))
}

#[tauri::command]
pub async fn entities_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::EntitiesList>,
) -> ReplyOf<cmd::EntitiesList> {
    let store = state.store()?;
    blocking(move || {
        store
            .graph()
            .entities(non_empty(request.kind).as_deref())
            .map(|list| list.into_iter().map(entity_row).collect())
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn entities_create(
    state: State<'_, AppState>,
    request: RequestOf<cmd::EntitiesCreate>,
) -> ReplyOf<cmd::EntitiesCreate> {
    let store = state.store()?;
    blocking(move || {
        let new = NewEntity {
            kind: request.kind,
            canonical_name: request.canonical_name,
            aliases: request.aliases,
            deadline: non_empty(request.deadline),
        };
        elnor_engine::create_entity(&store, &new, elnor_engine::now())
            .map(|edited| entity_row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn work_contexts_merge(
    state: State<'_, AppState>,
    request: RequestOf<cmd::WorkContextsMerge>,
) -> ReplyOf<cmd::WorkContextsMerge> {
    let store = state.store()?;
    blocking(move || {
        let keep = WorkContextId::new(request.keep).map_err(|e| to_command_error(&e))?;
        let absorb = WorkContextId::new(request.absorb).map_err(|e| to_command_error(&e))?;
        elnor_engine::merge_work_contexts(&store, &keep, &absorb, elnor_engine::now())
            .map(|edited| row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn entities_edit(
    state: State<'_, AppState>,
    request: RequestOf<cmd::EntitiesEdit>,
) -> ReplyOf<cmd::EntitiesEdit> {
    let store = state.store()?;
    blocking(move || {
        let edit = EntityEdit {
            canonical_name: non_empty(request.canonical_name),
            kind: non_empty(request.kind),
            add_aliases: request.add_aliases,
            remove_aliases: request.remove_aliases,
            deadline: if request.clear_deadline {
                Some(None)
            } else {
                non_empty(request.deadline).map(Some)
            },
        };
        let id = EntityId::new(request.entity_id).map_err(|e| to_command_error(&e))?;
        elnor_engine::edit_entity(&store, &id, &edit, elnor_engine::now())
            .map(|edited| entity_row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn entities_merge(
    state: State<'_, AppState>,
    request: RequestOf<cmd::EntitiesMerge>,
) -> ReplyOf<cmd::EntitiesMerge> {
    let store = state.store()?;
    blocking(move || {
        let keep = EntityId::new(request.keep).map_err(|e| to_command_error(&e))?;
        let absorb = EntityId::new(request.absorb).map_err(|e| to_command_error(&e))?;
        elnor_engine::merge_entities(&store, &keep, &absorb, elnor_engine::now())
            .map(|edited| entity_row(edited.value))
            .map_err(|e| to_command_error(&e))
    })
    .await
}
