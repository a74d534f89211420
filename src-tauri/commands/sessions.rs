//! The Sessions view: `sessions_list` and `turns_list` (the virtualised transcript viewer pages
//! through a session by position).

use elnor_engine::{AgentId, Harness, SessionListQuery};
use elnor_types::commands as cmd;
use elnor_types::{CommandError, CompactionMark, ErrorKind, SessionRow, TurnPage, TurnRow};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

/// Characters of one turn sent to the viewer; the raw record stays in the store.
const VIEWER_TURN_CHARS: usize = 4_000;

#[tauri::command]
pub async fn sessions_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SessionsList>,
) -> ReplyOf<cmd::SessionsList> {
    let store = state.store()?;
    blocking(move || {
        let harness = match request.harness.filter(|h| !h.is_empty()) {
            Some(name) => Some(Harness::parse(&name).ok_or_else(|| CommandError {
                kind: ErrorKind::InvalidInput,
                message: format!("unknown harness {name:?}"),
            })?),
            None => None,
        };
        let agent_id = request
            .agent_id
            .filter(|a| !a.is_empty())
            .map(AgentId::new)
            .transpose()
            .map_err(|e| to_command_error(&e))?;
        let q = SessionListQuery {
            harness,
            agent_id,
            time_window_hours: request.time_window_hours,
            text: request.text,
            limit: request.limit,
            ..SessionListQuery::default()
        };
        let rows = elnor_engine::find_sessions(&store, &q, elnor_engine::now())
            .map_err(|e| to_command_error(&e))?;
        Ok(rows
            .into_iter()
            .map(|s| SessionRow {
                title: s.display_title(),
                session_id: s.session_id.to_string(),
                harness: s.harness.as_str().to_owned(),
                agent_id: s.agent_id.map(|a| a.to_string()),
                started_at: s.started_at,
                last_activity_at: s.last_activity_at,
                turn_count: s.turn_count,
                compaction_count: s.compaction_count,
                cwd: s.cwd,
                has_summary: s.has_doc73_summary,
                parent_session_id: s.parent_session_id.map(|p| p.to_string()),
                session_kind: s.session_kind.as_str().to_owned(),
                kind_reason: s.kind_reason,
                git_branch: s.git_branch,
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn turns_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TurnsList>,
) -> ReplyOf<cmd::TurnsList> {
    let store = state.store()?;
    blocking(move || {
        let page = elnor_engine::session_turns(
            store.graph(),
            &request.session_id,
            request.offset,
            request.limit,
            false,
            VIEWER_TURN_CHARS,
        )
        .map_err(|e| to_command_error(&e))?;
        Ok(TurnPage {
            session_id: page.session_id.to_string(),
            total: page.total,
            offset: page.offset,
            turns: page
                .turns
                .into_iter()
                .map(|t| TurnRow {
                    seq: t.seq,
                    turn_id: t.turn_id,
                    role: t.role.as_str().to_owned(),
                    kind: t.kind.as_str().to_owned(),
                    content: t.content,
                    tool_calls: t.tool_calls,
                    timestamp: t.timestamp,
                    is_sidechain: t.is_sidechain,
                    tokens_before: t.tokens_before,
                })
                .collect(),
            compactions: page
                .compactions
                .into_iter()
                .map(|c| CompactionMark {
                    position: c.position,
                    tokens_before: c.tokens_before,
                })
                .collect(),
        })
    })
    .await
}
