//! External observation (CSA §9): `observations_push` ("I just did X"), `observations_list` and
//! `observations_get` (file changes and pushes), and the tracked folders the file watcher observes:
//! `tracked_folders_get` (with the ignore rules and the watcher's status), `tracked_folders_add`,
//! `tracked_folders_remove` and `ignore_patterns_set`.
//!
//! A push is one engine call, `elnor_engine::push`, which stores the observation and delivers the
//! cross-conversation updates it causes before replying, so the reply's count is what was written.
//! A change to the tracked folders or patterns is saved by the engine, then the app's watcher is
//! told to reload (it re-reads the file and rescans on its own thread); every change replies with
//! the whole Settings group, so the page shows the engine's normalised list.

use std::path::Path;

use chrono::{DateTime, Local, Utc};
use elnor_engine::{
    Observation, ObservationFilter, ObservationSource, Push, TrackedConfig, TrackedFoldersFile,
};
use elnor_engine::{Store, WorkContextId};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, ErrorKind, ObservationRow, ObservedEntity, PushOutcome, PushPreview, PushTarget,
    TrackedFolderRow, TrackedFolders,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::review::{Names, names};
use crate::state::{AppState, blocking, to_command_error};
use crate::watcher::WatcherHandle;

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

/// A time as the person reads it: their own offset.
fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).to_rfc3339()
}

fn work_context_id(id: Option<String>) -> Result<Option<WorkContextId>, CommandError> {
    id.filter(|i| !i.is_empty())
        .map(WorkContextId::new)
        .transpose()
        .map_err(err)
}

pub(crate) fn observation_row(o: Observation, names: &Names) -> ObservationRow {
    let work_context_id = o.work_context_id.map(|w| w.to_string());
    ObservationRow {
        observation_id: o.observation_id,
        kind: o.kind.as_str().to_owned(),
        source: o.source.as_str().to_owned(),
        path: o.path.map(|p| p.display().to_string()),
        from_path: o.from_path.map(|p| p.display().to_string()),
        title: o.title,
        text: o.text,
        observed_at: local(o.observed_at),
        work_context_name: work_context_id.as_ref().and_then(|w| names.get(w).cloned()),
        work_context_id,
        entities: o
            .entities
            .into_iter()
            .map(|(id, name)| ObservedEntity {
                entity_id: id.to_string(),
                name,
            })
            .collect(),
        updates_written: o.updates_written,
    }
}

#[tauri::command]
pub async fn observations_push(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ObservationsPush>,
) -> ReplyOf<cmd::ObservationsPush> {
    let store = state.store()?;
    blocking(move || {
        let outcome =
            elnor_engine::push(&store, &push_of(request)?, elnor_engine::now()).map_err(err)?;
        Ok(PushOutcome {
            observation: observation_row(outcome.observation, &names(&store)?),
            entities_created: outcome.entities_created,
            reach: preview(outcome.reach),
        })
    })
    .await
}

#[tauri::command]
pub async fn observations_preview_push(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ObservationsPreviewPush>,
) -> ReplyOf<cmd::ObservationsPreviewPush> {
    let store = state.store()?;
    blocking(move || {
        Ok(preview(
            elnor_engine::preview_push(&store, &push_of(request)?).map_err(err)?,
        ))
    })
    .await
}

/// The engine's push from the push box's request.
fn push_of(request: elnor_types::PushRequest) -> Result<Push, CommandError> {
    Ok(Push {
        text: request.text,
        work_context: work_context_id(request.work_context_id)?,
        entities: request.entities,
    })
}

/// The engine's reach of a push, as the push box shows it.
fn preview(reach: elnor_engine::PushReach) -> PushPreview {
    let context = |c: elnor_engine::ReachedContext| PushTarget {
        id: Some(c.work_context_id.to_string()),
        name: c.name,
        how: c.found.describe(),
        via: c.via_entity,
    };
    PushPreview {
        entities: reach
            .entities
            .into_iter()
            .map(|e| PushTarget {
                id: e.entity_id.map(|id| id.to_string()),
                name: e.name,
                how: e.found.describe(),
                via: None,
            })
            .collect(),
        lands_in: reach.work_context.map(context),
        told: reach.told.into_iter().map(context).collect(),
    }
}

#[tauri::command]
pub async fn observations_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ObservationsList>,
) -> ReplyOf<cmd::ObservationsList> {
    let store = state.store()?;
    blocking(move || {
        let source = match request.source.as_deref().filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => Some(ObservationSource::parse(s).ok_or_else(|| CommandError {
                kind: ErrorKind::InvalidInput,
                message: format!("unknown observation source `{s}`; known: file, push"),
            })?),
        };
        let filter = ObservationFilter {
            work_context: work_context_id(request.work_context_id)?,
            source,
            since: None,
            limit: request.limit,
        };
        let list = store.graph().observations(&filter).map_err(err)?;
        let names = names(&store)?;
        Ok(list
            .into_iter()
            .map(|o| observation_row(o, &names))
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn observations_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::ObservationsGet>,
) -> ReplyOf<cmd::ObservationsGet> {
    let store = state.store()?;
    blocking(move || {
        let o = store
            .graph()
            .observation(request.observation_id)
            .map_err(err)?;
        Ok(observation_row(o, &names(&store)?))
    })
    .await
}

/// The Settings group: the folders as saved (each with whether it exists now), the patterns, the
/// built-in ignores and the watcher's status.
fn tracked(store: &Store, watcher: &WatcherHandle) -> Result<TrackedFolders, CommandError> {
    let config = store.tracked_folders().load().map_err(err)?;
    Ok(TrackedFolders {
        folders: config
            .folders
            .into_iter()
            .map(|f| TrackedFolderRow {
                exists: f.is_dir(),
                path: f.display().to_string(),
            })
            .collect(),
        ignore_patterns: config.ignore_patterns,
        default_ignores: elnor_engine::default_ignores(),
        watcher: watcher.status(),
    })
}

#[tauri::command]
pub async fn tracked_folders_get(state: State<'_, AppState>) -> ReplyOf<cmd::TrackedFoldersGet> {
    let store = state.store()?;
    let watcher = state.watcher();
    blocking(move || tracked(&store, &watcher)).await
}

/// Applies a change to the tracked folders file, tells the watcher to reload, and replies with
/// the new state; the three folder commands differ only in the change.
async fn change_folders(
    state: State<'_, AppState>,
    change: impl FnOnce(&TrackedFoldersFile) -> elnor_engine::Result<TrackedConfig> + Send + 'static,
) -> Result<TrackedFolders, CommandError> {
    let store = state.store()?;
    let watcher = state.watcher();
    blocking(move || {
        change(&store.tracked_folders()).map_err(err)?;
        watcher.reload(store.clone());
        tracked(&store, &watcher)
    })
    .await
}

#[tauri::command]
pub async fn tracked_folders_add(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TrackedFoldersAdd>,
) -> ReplyOf<cmd::TrackedFoldersAdd> {
    change_folders(state, move |f| f.add(Path::new(request.path.trim()))).await
}

#[tauri::command]
pub async fn tracked_folders_remove(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TrackedFoldersRemove>,
) -> ReplyOf<cmd::TrackedFoldersRemove> {
    change_folders(state, move |f| f.remove(Path::new(request.path.trim()))).await
}

#[tauri::command]
pub async fn ignore_patterns_set(
    state: State<'_, AppState>,
    request: RequestOf<cmd::IgnorePatternsSet>,
) -> ReplyOf<cmd::IgnorePatternsSet> {
    change_folders(state, move |f| f.set_ignore_patterns(request.patterns)).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use elnor_engine::NewWorkContext;

    use super::*;

    /// A push replies with its context's name and its entities, the new one among them.
    #[test]
    fn a_push_converts_with_its_context_and_entities() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let wc = elnor_engine::create_work_context(
            &store,
            &NewWorkContext {
                name: "Henderson".into(),
                ..Default::default()
            },
            elnor_engine::now(),
        )
        .map(|e| e.value)
        .unwrap();
        let push = Push {
            text: "Sent the rebuttal memo to the client".into(),
            work_context: Some(wc.work_context_id.clone()),
            entities: vec!["Rebuttal memo".into()],
        };
        let outcome = elnor_engine::push(&store, &push, elnor_engine::now()).unwrap();
        assert_eq!(outcome.entities_created, ["Rebuttal memo"]);
        let row = observation_row(outcome.observation, &names(&store).unwrap());
        assert_eq!(
            (row.kind.as_str(), row.source.as_str(), row.path),
            ("pushed", "push", None)
        );
        assert_eq!(row.text, "Sent the rebuttal memo to the client");
        assert_eq!(row.work_context_name.as_deref(), Some("Henderson"));
        let entities: Vec<&str> = row.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(entities, ["Rebuttal memo"]);
        assert!(DateTime::parse_from_rfc3339(&row.observed_at).is_ok());
    }

    /// Settings' group: a missing folder is listed as such, and the watcher reports stopped until
    /// started, then running with a first full check once it has scanned.
    #[test]
    fn tracked_folders_show_missing_folders_and_the_watcher() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path().join("store")).unwrap());
        let notes = dir.path().join("notes");
        std::fs::create_dir(&notes).unwrap();
        std::fs::write(notes.join("plan.md"), "# Plan\n").unwrap();
        let gone = dir.path().join("gone");
        store.tracked_folders().add(&notes).unwrap();
        store.tracked_folders().add(&gone).unwrap();
        let watcher = WatcherHandle::default();

        let t = tracked(&store, &watcher).unwrap();
        let folders: Vec<(&str, bool)> = t
            .folders
            .iter()
            .map(|f| (f.path.as_str(), f.exists))
            .collect();
        assert_eq!(
            folders,
            [
                (notes.to_str().unwrap(), true),
                (gone.to_str().unwrap(), false)
            ]
        );
        assert!(!t.default_ignores.is_empty());
        assert_eq!(
            (t.watcher.state.as_str(), t.watcher.problem),
            ("stopped", None)
        );

        watcher.start(store.clone());
        let started = Instant::now();
        let status = loop {
            let s = tracked(&store, &watcher).unwrap().watcher;
            if s.last_reconcile_at.is_some() && s.files == 1 {
                break s;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the watcher never scanned: {s:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(status.state, "running", "{status:?}");
        // Stopping tracking reloads the watcher, which forgets the folder's files.
        store.tracked_folders().remove(&notes).unwrap();
        watcher.reload(store.clone());
        let started = Instant::now();
        while tracked(&store, &watcher).unwrap().watcher.files != 0 {
            assert!(started.elapsed() < Duration::from_secs(20));
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
