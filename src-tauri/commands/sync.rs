//! Settings → Sync and the sidebar's light: `sync_get` (where sync stands, without the network)
//! and `sync_run` (set the remote when given, then sync now). Each converts, makes one engine
//! call and converts back; the background sync (`background_sync.rs`) shares the run state.

use elnor_engine::{SyncRequest, SyncStatus};
use elnor_types::commands as cmd;
use elnor_types::{CommandError, ErrorKind, SyncConflictRow, SyncDeviceRow, SyncRan, SyncView};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::background_sync::{SyncHandle, run_one};
use crate::state::{AppState, blocking, to_command_error};

fn view(s: SyncStatus, handle: &SyncHandle) -> SyncView {
    let (running, problem) = {
        let state = handle.lock().unwrap_or_else(|e| e.into_inner());
        (state.running, state.problem.clone())
    };
    SyncView {
        light: s.light(running, problem.as_ref()).as_str().to_owned(),
        devices: s
            .devices
            .iter()
            .map(|(id, name)| SyncDeviceRow {
                this: *id == s.device,
                device: id.clone(),
                name: name.clone(),
            })
            .collect(),
        conflicts: s
            .conflicts
            .iter()
            .map(|c| SyncConflictRow {
                subject: c.subject.clone(),
                field: c.field.clone(),
                kept_device: c.kept_device.clone(),
                kept_value: c.kept_value.clone(),
                lost_device: c.lost_device.clone(),
                lost_value: c.lost_value.clone(),
                found_at: c.found_at.clone(),
            })
            .collect(),
        last_arrival: s.last_arrival.as_ref().map(|a| a.sentence()),
        last_arrival_at: s.last_arrival.as_ref().map(|a| a.at.clone()),
        device: s.device,
        device_name: s.device_name,
        remote: s.remote,
        owner: s.owner,
        last_sync_at: s.last_sync_at,
        unsent_entries: s.unsent_entries,
        unsent_changes: s.unsent_changes,
        ahead_commits: s.ahead_commits,
        behind_commits: s.behind_commits,
        running,
        problem: problem.map(|p| p.message()),
    }
}

#[tauri::command]
pub async fn sync_get(state: State<'_, AppState>) -> ReplyOf<cmd::SyncGet> {
    let store = state.store()?;
    let handle = state.sync_handle();
    blocking(move || {
        let s = elnor_engine::sync_status(&store, elnor_engine::now())
            .map_err(|e| to_command_error(&e))?;
        Ok(view(s, &handle))
    })
    .await
}

#[tauri::command]
pub async fn sync_run(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SyncRun>,
) -> ReplyOf<cmd::SyncRun> {
    let store = state.store()?;
    let handle = state.sync_handle();
    blocking(move || {
        let req = SyncRequest {
            remote: request.remote,
            owner: request.owner,
        };
        let done = match run_one(&store, &handle, &req) {
            None => {
                return Err(CommandError {
                    kind: ErrorKind::InvalidInput,
                    message: "a sync is running already; it will be done in a moment".into(),
                });
            }
            Some(result) => result.map_err(|e| to_command_error(&e))?,
        };
        let s = elnor_engine::sync_status(&store, elnor_engine::now())
            .map_err(|e| to_command_error(&e))?;
        Ok(SyncRan {
            pushed: done.pushed,
            offline: done.offline,
            sent_entries: done.sent_entries as u64,
            sent_changes: done.sent_changes as u64,
            arrival: done.arrival.as_ref().map(|a| a.sentence()),
            conflicts: done.conflicts.len() as u64,
            view: view(s, &handle),
        })
    })
    .await
}
