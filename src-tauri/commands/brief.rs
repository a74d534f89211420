//! The brief and what stands behind it: `brief_preview` (what a fresh session would get now),
//! `constellation_get` (a work context's view with its Tier 1 card), `assemblies_list` and
//! `assemblies_get` (the Inspector's traces), `lineage_expand` (where in a transcript a trace line or
//! an entry came from), `lineage_node` (the node of the lineage DAG it sits in, with what is
//! around it: the Lineage page), `living_facts_list` / `_add` / `_edit` / `_remove`
//! (Tier 3) and `rollup_refresh` (Tier 2).
//!
//! Every brief assembled here is a preview: the app only looks at briefs, it never hands one to an
//! agent, so nothing it shows is marked delivered. Assembly may find a constellation view stale;
//! the engine serves it marked and leaves the rebuild to its caller, which here happens on another
//! blocking task once the reply is ready, so the person never waits for a rebuild.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Local, Utc};
use elnor_engine::LivingFact;
use elnor_engine::NodeItem;
use elnor_engine::{AssemblySummary, TraceRow};
use elnor_engine::{
    BriefRequest, Card, Decision, Delivery, MAX_BUDGET, TIER1_CAP, TIER2_CAP, TIER3_CAP, TraceItem,
};
use elnor_engine::{EntryId, LineageSource, SessionId, Store, WorkContextId};
use elnor_types::commands as cmd;
use elnor_types::{
    AssemblyDetail, AssemblyRow, BriefCard, BriefLine, BriefPreview, CitingLineRow, CommandError,
    ConstellationItemRow, ConstellationNodeRow, ConstellationView, ContextChoiceRow, ExcludedRow,
    LineageEntryRow, LineageNodeDetail, LineageNodeInfo, LineageNodeKind, LineageNodeRow,
    LineageRequest, LineageTurnRow, LineageTurns, LineageWindow, LivingFactRow, LivingFacts,
    RollupSegmentRow, RollupView, SessionHistoryRow, TraceItemRow,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::contexts::{entry_row, non_empty, phase_name};
use crate::state::{AppState, blocking, to_command_error};

/// Assemblies listed when the UI does not say how many.
const DEFAULT_ASSEMBLY_LIMIT: u32 = 50;

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

fn trace_item(t: &TraceItem) -> TraceItemRow {
    TraceItemRow {
        ordinal: None,
        tier: t.tier,
        kind: t.kind.to_owned(),
        source_id: t.source_id.clone(),
        session_id: t.session_id.as_ref().map(ToString::to_string),
        turn_seq: t.turn_seq,
        work_context_id: t.work_context_id.as_ref().map(ToString::to_string),
        text: t.text.clone(),
        tokens: t.tokens,
        decision: t.decision.as_str().to_owned(),
        reason: t.reason.as_str().to_owned(),
        detail: t.detail.clone(),
    }
}

fn trace_row(t: TraceRow) -> TraceItemRow {
    TraceItemRow {
        ordinal: Some(t.ordinal),
        tier: t.tier,
        kind: t.kind,
        source_id: t.source_id,
        session_id: t.session_id.map(|s| s.to_string()),
        turn_seq: t.turn_seq,
        work_context_id: t.work_context_id.map(|w| w.to_string()),
        text: t.text,
        tokens: t.tokens,
        decision: t.decision,
        reason: t.reason,
        detail: t.detail,
    }
}

fn card(c: &Card) -> BriefCard {
    BriefCard {
        tier: c.tier,
        card_type: c.card_type.to_owned(),
        tag: c.tag.to_owned(),
        tokens: c.tokens,
        lines: c
            .lines
            .iter()
            .map(|l| BriefLine {
                text: l.text.clone(),
                tokens: l.tokens,
            })
            .collect(),
        items: c.items.iter().map(trace_item).collect(),
    }
}

fn assembly_row(s: AssemblySummary) -> AssemblyRow {
    AssemblyRow {
        assembly_id: s.assembly_id,
        created_at: s.created_at,
        delivery: s.delivery,
        format: s.format,
        work_context_id: s.work_context_id.map(|w| w.to_string()),
        resolution: s.resolution,
        session_id: s.session_id.map(|s| s.to_string()),
        budget: s.budget,
        total_tokens: s.total_tokens,
        tier_tokens: s.tier_tokens,
        envelope_tokens: s.envelope_tokens,
        stale: s.stale,
        included: s.included,
        dropped: s.dropped,
        excluded: s.excluded,
    }
}

fn fact_row(f: LivingFact) -> LivingFactRow {
    LivingFactRow {
        fact_id: f.fact_id,
        text: f.text,
        position: f.position,
        tokens: f.tokens,
        updated_at: f.updated_at,
    }
}

fn node_row(n: &NodeItem) -> ConstellationNodeRow {
    ConstellationNodeRow {
        node_id: n.node_id.clone(),
        kind: n.kind.clone(),
        text: n.text.clone(),
        due_at: n.due_at.clone(),
    }
}

/// Validates a work context id from the UI, so a hostile one can never become a file path.
fn work_context_id(id: &str) -> Result<WorkContextId, CommandError> {
    WorkContextId::new(id).map_err(err)
}

/// A preview request; the person's local date feeds the brief's temporal block.
fn preview_request(now: DateTime<Utc>) -> BriefRequest {
    BriefRequest::new(now, Local::now().date_naive(), Delivery::Preview)
}

/// Rebuilds stale constellation views on a blocking task of their own, after the reply is made:
/// the request that found them stale should not wait for the rebuild (CSA §4.3).
fn refresh_later(store: Arc<Store>, stale: Vec<WorkContextId>, now: DateTime<Utc>) {
    if stale.is_empty() {
        return;
    }
    tauri::async_runtime::spawn_blocking(move || elnor_engine::refresh_views(&store, &stale, now));
}

#[tauri::command]
pub async fn brief_preview(
    state: State<'_, AppState>,
    request: RequestOf<cmd::BriefPreview>,
) -> ReplyOf<cmd::BriefPreview> {
    let store = state.store()?;
    let wc = non_empty(request.work_context_id)
        .map(|id| work_context_id(&id))
        .transpose()?;
    let now = elnor_engine::now();
    let worker = store.clone();
    let (preview, stale) = blocking(move || {
        let mut req = preview_request(now);
        req.work_context_id = wc;
        req.cwd = non_empty(request.cwd);
        req.session_id = non_empty(request.session_id)
            .map(SessionId::new)
            .transpose()
            .map_err(err)?;
        req.budget = request.budget.unwrap_or(MAX_BUDGET);
        let b = elnor_engine::assemble_brief(&worker, &req).map_err(err)?;
        let preview = BriefPreview {
            assembly_id: b.assembly_id,
            text: elnor_engine::brief_text(&b),
            cards: b.cards.iter().map(card).collect(),
            total_tokens: b.total_tokens,
            envelope_tokens: b.envelope_tokens,
            budget: b.budget,
            max_budget: MAX_BUDGET,
            tier_caps: [TIER1_CAP, TIER2_CAP, TIER3_CAP],
            work_context: b.work_context.as_ref().map(|c| ContextChoiceRow {
                work_context_id: c.work_context_id.to_string(),
                name: c.name.clone(),
                how: c.how.clone(),
            }),
            stale: b.stale,
            warnings: b.warnings,
        };
        Ok((preview, b.needs_rebuild))
    })
    .await?;
    refresh_later(store, stale, now);
    Ok(preview)
}

#[tauri::command]
pub async fn constellation_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ConstellationGet>,
) -> ReplyOf<cmd::ConstellationGet> {
    let store = state.store()?;
    let wc = work_context_id(&request.work_context_id)?;
    let now = elnor_engine::now();
    let worker = store.clone();
    let (view, stale) = blocking(move || {
        let read = elnor_engine::constellation_view(&worker, &wc, now).map_err(err)?;
        // The Tier 1 card comes from a real preview assembly for this context, so what is shown
        // here is exactly what a fresh session in it would get, trimming included.
        let mut req = preview_request(now);
        req.work_context_id = Some(wc.clone());
        let b = elnor_engine::assemble_brief(&worker, &req).map_err(err)?;
        let tier1 = b.card(1).map(card);
        let tier1_absent_reason = match &tier1 {
            Some(_) => None,
            None => Some(
                b.trace
                    .iter()
                    .find(|t| t.tier == 1 && t.decision != Decision::Included)
                    .map(|t| t.detail.clone())
                    .unwrap_or_else(|| "nothing to resume in this work context yet".to_owned()),
            ),
        };
        let c = read.constellation;
        let view = ConstellationView {
            work_context_id: c.work_context_id.to_string(),
            work_context_name: c.work_context_name.clone(),
            local_only: c.local_only,
            as_of: c.as_of.to_string(),
            stale: read.stale,
            active_work_phase: phase_name(c.active_work_phase),
            header: c.header.text.clone(),
            effective_window: c.effective_window,
            sessions_in_last_30_days: c.sessions_in_last_30_days,
            session_history: c
                .session_history
                .iter()
                .map(|s| SessionHistoryRow {
                    entry_id: s.entry_id.to_string(),
                    source_session_id: s.source_session_id.to_string(),
                    captured_at: s.captured_at.to_rfc3339(),
                    last_activity_at: s.last_activity_at.to_rfc3339(),
                    turn_seq: s.turn_seq,
                    summary: s.summary.clone(),
                    line: s.line.text.clone(),
                    tokens: s.line.tokens,
                })
                .collect(),
            open_questions: c
                .open_questions
                .iter()
                .map(|q| ConstellationItemRow {
                    entry_id: q.entry_id.to_string(),
                    text: q.question.clone(),
                    detail: Some(q.context.clone()).filter(|c| !c.is_empty()),
                    reduced_confidence: q.reduced_confidence,
                    source_session_id: q.source_session_id.to_string(),
                    captured_at: q.captured_at.to_rfc3339(),
                    turn_seq: q.turn_seq,
                    tokens: q.line.tokens,
                })
                .collect(),
            key_decisions: c
                .key_decisions
                .iter()
                .map(|d| ConstellationItemRow {
                    entry_id: d.entry_id.to_string(),
                    text: d.decision.clone(),
                    detail: d.rationale.clone().filter(|r| !r.is_empty()),
                    reduced_confidence: d.reduced_confidence,
                    source_session_id: d.source_session_id.to_string(),
                    captured_at: d.captured_at.to_rfc3339(),
                    turn_seq: d.turn_seq,
                    tokens: d.line.tokens,
                })
                .collect(),
            cross_conversation_updates: c
                .cross_conversation_updates
                .iter()
                .map(|u| ConstellationItemRow {
                    entry_id: u.entry_id.to_string(),
                    text: u.summary.clone(),
                    detail: None,
                    reduced_confidence: false,
                    source_session_id: u.source_session_id.to_string(),
                    captured_at: u.captured_at.to_rfc3339(),
                    turn_seq: None,
                    tokens: u.line.tokens,
                })
                .collect(),
            goals: c.goals.iter().map(node_row).collect(),
            obligations: c.obligations.iter().map(node_row).collect(),
            entity_count: c.entities.len() as u32,
            excluded: c
                .excluded
                .iter()
                .map(|x| ExcludedRow {
                    entry_id: x.entry_id.to_string(),
                    kind: x.kind.clone(),
                    text: x.text.clone(),
                    reason: x.reason.as_str().to_owned(),
                    detail: x.detail.clone(),
                })
                .collect(),
            skipped_lines: c.skipped_lines,
            tier1,
            tier1_absent_reason,
            tier1_assembly_id: b.assembly_id,
            tier1_cap: TIER1_CAP,
        };
        Ok((view, b.needs_rebuild))
    })
    .await?;
    refresh_later(store, stale, now);
    Ok(view)
}

#[tauri::command]
pub async fn assemblies_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::AssembliesList>,
) -> ReplyOf<cmd::AssembliesList> {
    let store = state.store()?;
    blocking(move || {
        let wc = non_empty(request.work_context_id);
        store
            .graph()
            .assemblies(
                wc.as_deref(),
                request.limit.unwrap_or(DEFAULT_ASSEMBLY_LIMIT),
                request.include_previews,
            )
            .map(|list| list.into_iter().map(assembly_row).collect())
            .map_err(err)
    })
    .await
}

#[tauri::command]
pub async fn assemblies_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::AssembliesGet>,
) -> ReplyOf<cmd::AssembliesGet> {
    let store = state.store()?;
    blocking(move || {
        let d = store.graph().assembly(request.assembly_id).map_err(err)?;
        Ok(AssemblyDetail {
            summary: assembly_row(d.summary),
            warnings: d.warnings,
            request: d.request,
            output: d.output,
            items: d.items.into_iter().map(trace_row).collect(),
        })
    })
    .await
}

/// The engine's name for what the UI asks to trace; ids are checked here, so a malformed one is
/// refused as invalid input before the store is read.
fn lineage_source(request: LineageRequest) -> Result<LineageSource, CommandError> {
    Ok(match request {
        LineageRequest::TraceLine {
            assembly_id,
            ordinal,
        } => LineageSource::TraceItem {
            assembly_id,
            ordinal,
        },
        LineageRequest::Entry {
            entry_id,
            work_context_id,
        } => LineageSource::Entry {
            entry_id: EntryId::new(entry_id).map_err(err)?,
            work_context_id: work_context_id
                .map(WorkContextId::new)
                .transpose()
                .map_err(err)?,
        },
        LineageRequest::Summary { summary_id } => LineageSource::Summary { summary_id },
        LineageRequest::Turn { session_id, seq } => LineageSource::Turn {
            session_id: SessionId::new(session_id).map_err(err)?,
            seq,
        },
        LineageRequest::Node { node_id } => LineageSource::Node { node_id },
    })
}

/// Tokens of the node's turns the Lineage page reads: a few screens of excerpts, not the whole
/// window, which the Sessions transcript pages through when the person asks for it.
const LINEAGE_TURN_TOKENS: usize = 6_000;

fn node_kind(kind: elnor_engine::LineageNodeKind) -> LineageNodeKind {
    match kind {
        elnor_engine::LineageNodeKind::SessionSummary => LineageNodeKind::SessionSummary,
        elnor_engine::LineageNodeKind::CompactionSummary => LineageNodeKind::CompactionSummary,
        elnor_engine::LineageNodeKind::Condensation => LineageNodeKind::Condensation,
        elnor_engine::LineageNodeKind::Knowledge => LineageNodeKind::Knowledge,
    }
}

fn lineage_row(n: elnor_engine::LineageNode) -> LineageNodeRow {
    LineageNodeRow {
        first_line: n.text.lines().next().unwrap_or_default().to_owned(),
        node_id: n.node_id,
        kind: node_kind(n.kind),
        level: n.level,
        session_id: n.session_id.map(|s| s.to_string()),
        latest_at: n.latest_at.map(|t| t.to_rfc3339()),
    }
}

#[tauri::command]
pub async fn lineage_node(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LineageNode>,
) -> ReplyOf<cmd::LineageNode> {
    let store = state.store()?;
    blocking(move || {
        let source = lineage_source(request.source)?;
        let found = elnor_engine::lineage_drill_down_from(
            &store,
            &source,
            request.agent_scope.as_deref(),
            LINEAGE_TURN_TOKENS,
        )
        .map_err(err)?;
        let d = found.drill;
        let n = d.node;
        let no_deliveries = BTreeMap::new();
        Ok(LineageNodeDetail {
            node: LineageNodeInfo {
                node_id: n.node_id,
                kind: node_kind(n.kind),
                level: n.level,
                work_context_id: n.work_context_id.to_string(),
                work_context_name: found.work_context_name,
                agent_scope: n.agent_scope,
                session_id: n.session_id.map(|s| s.to_string()),
                after_seq: n.after_seq,
                through_seq: n.through_seq,
                turn_count: n.turn_count,
                earliest_at: n.earliest_at.map(|t| t.to_rfc3339()),
                latest_at: n.latest_at.map(|t| t.to_rfc3339()),
                method: n.method,
                model: n.model,
                confidence: n.confidence,
                text: n.text,
                tokens: n.tokens,
                covered_tokens: n.covered_tokens,
                trivial: n.trivial,
            },
            parents: d.parents.into_iter().map(lineage_row).collect(),
            children: d.children.into_iter().map(lineage_row).collect(),
            siblings: d.siblings.into_iter().map(lineage_row).collect(),
            // The page shows an entry in one line, as the work context's log does; whether it
            // was delivered is the log's concern, not the lineage's.
            entries: d
                .entries
                .iter()
                .map(|e| {
                    let row = entry_row(e, &no_deliveries);
                    LineageEntryRow {
                        entry_id: row.entry_id,
                        entry_type: row.entry_type,
                        text: row.headline,
                        captured_at: row.captured_at,
                    }
                })
                .collect(),
            brief_lines: d
                .brief_lines
                .into_iter()
                .map(|l| CitingLineRow {
                    assembly_id: l.assembly_id,
                    ordinal: l.ordinal,
                    assembled_at: l.assembled_at,
                    session_id: l.session_id.map(|s| s.to_string()),
                    decision: l.decision,
                    text: l.text,
                })
                .collect(),
            turns: d.transcript.map(|t| LineageTurns {
                session_id: t.span.session_id.to_string(),
                after_seq: t.span.after_seq,
                through_seq: t.span.through_seq,
                exact: t.span.exact,
                how: t.span.how,
                truncated: t.transcript.truncated,
                turns: t
                    .transcript
                    .turns
                    .into_iter()
                    .map(|turn| LineageTurnRow {
                        seq: turn.seq,
                        turn_id: turn.turn_id,
                        role: turn.role.as_str().to_owned(),
                        text: turn.content,
                        at: turn.timestamp,
                    })
                    .collect(),
            }),
        })
    })
    .await
}

#[tauri::command]
pub async fn lineage_expand(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LineageExpand>,
) -> ReplyOf<cmd::LineageExpand> {
    let store = state.store()?;
    blocking(move || {
        let source = lineage_source(request)?;
        let w = elnor_engine::locate_lineage(&store, &source).map_err(err)?;
        let span = w.span;
        Ok(LineageWindow {
            source: span.source,
            session_id: span.session_id.to_string(),
            work_context_id: span.work_context_id.map(|id| id.to_string()),
            after_seq: span.after_seq,
            through_seq: span.through_seq,
            exact: span.exact,
            how: span.how,
            turns: w.view.turns,
            first_position: w.view.first_position,
            last_position: w.view.last_position,
            last_turn_id: w.view.last_turn_id,
            last_at: w.view.last_at,
        })
    })
    .await
}

/// Every fact in Tier 3 order: each change replies with the whole list, so the UI shows the
/// engine's order and counts rather than guessing them.
fn facts(store: &Store) -> Result<LivingFacts, CommandError> {
    Ok(LivingFacts {
        facts: store
            .graph()
            .living_facts()
            .map_err(err)?
            .into_iter()
            .map(fact_row)
            .collect(),
        tier3_cap: TIER3_CAP,
    })
}

#[tauri::command]
pub async fn living_facts_list(state: State<'_, AppState>) -> ReplyOf<cmd::LivingFactsList> {
    let store = state.store()?;
    blocking(move || facts(&store)).await
}

#[tauri::command]
pub async fn living_facts_add(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LivingFactsAdd>,
) -> ReplyOf<cmd::LivingFactsAdd> {
    let store = state.store()?;
    blocking(move || {
        elnor_engine::add_living_fact(&store, &request.text, elnor_engine::now()).map_err(err)?;
        facts(&store)
    })
    .await
}

#[tauri::command]
pub async fn living_facts_edit(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LivingFactsEdit>,
) -> ReplyOf<cmd::LivingFactsEdit> {
    let store = state.store()?;
    blocking(move || {
        elnor_engine::edit_living_fact(
            &store,
            request.fact_id,
            request.text.as_deref(),
            request.position,
            elnor_engine::now(),
        )
        .map_err(err)?;
        facts(&store)
    })
    .await
}

#[tauri::command]
pub async fn living_facts_remove(
    state: State<'_, AppState>,
    request: RequestOf<cmd::LivingFactsRemove>,
) -> ReplyOf<cmd::LivingFactsRemove> {
    let store = state.store()?;
    blocking(move || {
        elnor_engine::remove_living_fact(&store, request.fact_id, elnor_engine::now())
            .map_err(err)?;
        facts(&store)
    })
    .await
}

#[tauri::command]
pub async fn rollup_refresh(state: State<'_, AppState>) -> ReplyOf<cmd::RollupRefresh> {
    let store = state.store()?;
    blocking(move || {
        let r = elnor_engine::generate_rollup(&store, elnor_engine::now()).map_err(err)?;
        Ok(RollupView {
            as_of: r.as_of.to_string(),
            window_days: r.window_days,
            segments: r
                .segments
                .into_iter()
                .map(|s| RollupSegmentRow {
                    work_context_id: s.work_context_id.to_string(),
                    last_activity: s.last_activity.to_rfc3339(),
                    local_only: s.local_only,
                    text: s.line.text,
                    tokens: s.line.tokens,
                })
                .collect(),
        })
    })
    .await
}
