//! Transcript sources and ingest: `sources_list`, `sources_add`, `sources_set_enabled`,
//! `ingest_start` and `ingest_get`. Ingest runs on its own thread; the UI polls
//! `ingest_get` for progress, which needs no event permission. After each successful ingest
//! the continuity agent runs once on the same thread, so newly ingested sessions are captured
//! into their work contexts without a separate step.

use std::path::PathBuf;
use std::sync::Arc;

use elnor_engine::CaptureStatus;
use elnor_engine::Harness;
use elnor_engine::OsKeyring;
use elnor_engine::Store;
use elnor_engine::{Agent, AgentRun};
use elnor_types::commands as cmd;
use elnor_types::{Command, ReplyOf, RequestOf};
use elnor_types::{CommandError, ErrorKind, IngestStatus, SourceRow};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn harness(name: &str) -> Result<Harness, CommandError> {
    Harness::parse(name).ok_or_else(|| CommandError {
        kind: ErrorKind::InvalidInput,
        message: format!("unknown harness {name:?}; use openclaw, claude_code or codex"),
    })
}

fn root(path: &str) -> Result<PathBuf, CommandError> {
    let path = PathBuf::from(path.trim());
    if !path.is_absolute() {
        return Err(CommandError {
            kind: ErrorKind::InvalidInput,
            message: format!("{} is not an absolute path", path.display()),
        });
    }
    Ok(path)
}

fn rows(list: Vec<elnor_engine::TranscriptSource>) -> Vec<SourceRow> {
    list.into_iter()
        .map(|s| SourceRow {
            harness: s.harness.as_str().to_owned(),
            exists: s.root.is_dir(),
            root: s.root.display().to_string(),
            enabled: s.enabled,
        })
        .collect()
}

#[tauri::command]
pub async fn sources_list(state: State<'_, AppState>) -> ReplyOf<cmd::SourcesList> {
    let store = state.store()?;
    blocking(move || {
        store
            .sources()
            .load()
            .map(rows)
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn sources_add(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SourcesAdd>,
) -> ReplyOf<cmd::SourcesAdd> {
    let store = state.store()?;
    let (h, r) = (harness(&request.harness)?, root(&request.root)?);
    blocking(move || {
        store
            .sources()
            .add(h, r)
            .map(rows)
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub async fn sources_set_enabled(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SourcesSetEnabled>,
) -> ReplyOf<cmd::SourcesSetEnabled> {
    let store = state.store()?;
    let (h, r) = (harness(&request.harness)?, root(&request.root)?);
    blocking(move || {
        store
            .sources()
            .set_enabled(h, &r, request.enabled)
            .map(rows)
            .map_err(|e| to_command_error(&e))
    })
    .await
}

#[tauri::command]
pub fn ingest_get(state: State<'_, AppState>) -> <cmd::IngestGet as Command>::Reply {
    state.ingest_status()
}

#[tauri::command]
pub fn ingest_start(state: State<'_, AppState>) -> ReplyOf<cmd::IngestStart> {
    let store: Arc<Store> = state.store()?;
    let progress = state.ingest_handle();
    let agent = state.agent_handle();
    {
        let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
        if p.running {
            return Ok(p.clone());
        }
        *p = IngestStatus {
            running: true,
            ..IngestStatus::default()
        };
    }
    std::thread::spawn(move || {
        let mut agent = agent.lock().unwrap_or_else(|e| e.into_inner());
        let result = store.sources().enabled_roots().and_then(|roots| {
            let agent = match agent.as_mut() {
                Some(a) => a,
                None => agent.insert(Agent::new(&store.config()?)),
            };
            elnor_engine::pass(
                agent,
                &store,
                &roots,
                &OsKeyring::new(),
                elnor_engine::now(),
                &mut |at| {
                    let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
                    p.files_done = at.files_done;
                    p.files_total = at.files_total;
                    p.records = at.records;
                    p.bytes = at.bytes;
                },
            )
        });
        drop(agent);
        // `running` turns false only after capture, so the UI's reload after the ingest already
        // sees the captured entries.
        let mut p = progress.lock().unwrap_or_else(|e| e.into_inner());
        p.running = false;
        match result {
            Ok(pass) => {
                let r = &pass.ingest;
                p.last_summary = Some(format!(
                    "Ingest finished: {} files ({} unchanged), {} new records ({} conversation \
                     turns) in {} sessions.",
                    r.files_seen,
                    r.files_unchanged,
                    r.records_added,
                    r.turns_added,
                    r.sessions_touched
                ));
                p.last_problems = r
                    .problems
                    .iter()
                    .map(|x| format!("{}: {} × {}", x.path, x.count, x.problem))
                    .collect();
                p.last_capture = Some(capture_summary(&pass.run));
                p.last_error = None;
            }
            Err(e) => p.last_error = Some(e.to_string()),
        }
    });
    Ok(state.ingest_status())
}

/// What the continuity agent captured, in words.
fn capture_summary(run: &AgentRun) -> String {
    let captured = run
        .captures
        .iter()
        .filter(|c| c.status == CaptureStatus::Captured)
        .count();
    let mut text = format!("Captured {captured} sessions into their work contexts.");
    if !run.failures.is_empty() {
        text.push_str(&format!(" {} captures failed:", run.failures.len()));
        for (session, error) in run.failures.iter().take(3) {
            text.push_str(&format!(" {session}: {error}."));
        }
    }
    text
}
