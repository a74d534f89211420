//! The shell's managed state: the open store (or why it could not be opened), the progress of the
//! running ingest, the continuity agent that captures sessions after each ingest, what the app
//! knows of the nightly job (whether it is running, its last report or error), the file watcher
//! over the tracked folders, and the long jobs Settings starts (`jobs.rs`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use elnor_engine::Agent;
use elnor_engine::{Store, StoreLocation};
use elnor_types::{CommandError, ErrorKind, IngestStatus};

use crate::background_sync::SyncHandle;
use crate::jobs::Jobs;
use crate::scheduler::NightlyHandle;
use crate::watcher::WatcherHandle;

/// Shared by every command.
pub struct AppState {
    store: Result<Arc<Store>, CommandError>,
    ingest: Arc<Mutex<IngestStatus>>,
    /// One agent for the app's lifetime, so that its trigger state (dirty sessions, timers, the
    /// last turn it saw) carries over from one ingest to the next. Created on first use, from the
    /// config of that moment.
    agent: Arc<Mutex<Option<Agent>>>,
    nightly: NightlyHandle,
    /// Started in `run` once the store is open; commands reload it after a Settings change.
    watcher: Arc<WatcherHandle>,
    /// The model download, the embedding backfill and the index rebuild, with their progress.
    jobs: Jobs,
    /// Whether a sync runs now and how the last one ended, shared with the background sync.
    sync: SyncHandle,
}

impl AppState {
    pub fn open(flag: Option<PathBuf>) -> AppState {
        let store = StoreLocation::resolve(flag)
            .and_then(Store::open)
            .map(Arc::new)
            .map_err(|e| to_command_error(&e));
        if let Err(e) = &store {
            eprintln!("elnor-desktop: cannot open the store: {}", e.message);
        }
        AppState {
            store,
            ingest: Arc::default(),
            agent: Arc::default(),
            nightly: Arc::default(),
            watcher: Arc::default(),
            jobs: Jobs::default(),
            sync: SyncHandle::default(),
        }
    }

    /// The sync run state, shared with the background sync thread.
    pub fn sync_handle(&self) -> SyncHandle {
        self.sync.clone()
    }

    /// The shared progress of the running (or last) ingest.
    pub fn ingest_handle(&self) -> Arc<Mutex<IngestStatus>> {
        self.ingest.clone()
    }

    /// The continuity agent shared by every ingest.
    pub fn agent_handle(&self) -> Arc<Mutex<Option<Agent>>> {
        self.agent.clone()
    }

    /// The nightly job's state, shared with the scheduler thread.
    pub fn nightly_handle(&self) -> NightlyHandle {
        self.nightly.clone()
    }

    /// The file watcher, shared with the commands that change what it watches.
    pub fn watcher(&self) -> Arc<WatcherHandle> {
        self.watcher.clone()
    }

    /// The long jobs, with their progress and outcomes.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    pub fn ingest_status(&self) -> IngestStatus {
        self.ingest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn store(&self) -> Result<Arc<Store>, CommandError> {
        self.store.clone()
    }
}

/// Converts an engine error into the wire error the UI shows.
pub fn to_command_error(error: &elnor_engine::Error) -> CommandError {
    let kind = match error.kind() {
        elnor_engine::ErrorKind::Config => ErrorKind::Config,
        elnor_engine::ErrorKind::InvalidInput => ErrorKind::InvalidInput,
        elnor_engine::ErrorKind::Storage => ErrorKind::Storage,
    };
    CommandError {
        kind,
        message: error.to_string(),
    }
}

/// Runs blocking store work off the async runtime's worker threads.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| {
            Err(CommandError {
                kind: ErrorKind::Storage,
                message: format!("internal error: {e}"),
            })
        })
}
