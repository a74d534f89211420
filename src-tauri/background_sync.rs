//! The background sync: while a remote is set, the app syncs after captures and edits (once
//! [`elnor_engine::sync_due`] says something waits and two minutes passed) and every fifteen
//! minutes otherwise. The rule is the engine's; this thread only asks it every minute.
//!
//! One sync at a time in the app: the thread and Settings' "Sync now" share [`SyncHandle`], and
//! the engine's own lock keeps the CLI's sync apart too. A failure or an unreachable remote is
//! kept for the sidebar's light and Settings until a sync succeeds; the next check tries again.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use elnor_engine::{Store, SyncProblem, SyncRequest, Synced};

/// How often the thread asks whether a sync is due.
const CHECK_EVERY: Duration = Duration::from_secs(60);

/// What the app knows of its syncs beyond what the store records.
#[derive(Debug, Default)]
pub struct SyncRunState {
    pub running: bool,
    /// Why the last sync failed, or could not reach the remote, until one succeeds.
    pub problem: Option<SyncProblem>,
}

/// Shared by the thread and the Sync commands.
pub type SyncHandle = Arc<Mutex<SyncRunState>>;

fn lock(h: &SyncHandle) -> MutexGuard<'_, SyncRunState> {
    h.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Marks the run over however it ends, a panic included.
struct Running<'a>(&'a SyncHandle);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(self.0).running = false;
    }
}

/// Runs one sync unless one is running; `None` when one was. Records how it ended.
pub fn run_one(
    store: &Store,
    handle: &SyncHandle,
    req: &SyncRequest,
) -> Option<Result<Synced, elnor_engine::Error>> {
    {
        let mut state = lock(handle);
        if state.running {
            return None;
        }
        state.running = true;
    }
    let _running = Running(handle);
    let result = elnor_engine::sync(store, req, elnor_engine::now());
    lock(handle).problem = SyncProblem::of(&result);
    Some(result)
}

/// Starts the thread for the app's lifetime.
pub fn start(store: Arc<Store>, handle: SyncHandle) {
    let spawned = std::thread::Builder::new()
        .name("elnor-sync".to_owned())
        .spawn(move || {
            loop {
                std::thread::sleep(CHECK_EVERY);
                let ran =
                    std::panic::catch_unwind(AssertUnwindSafe(|| {
                        match elnor_engine::sync_due(&store, elnor_engine::now()) {
                            Ok(true) => run_one(&store, &handle, &SyncRequest::default()),
                            Ok(false) => None,
                            Err(e) => Some(Err(e)),
                        }
                    }));
                match ran {
                    Ok(None) => tracing::trace!("sync not due"),
                    Ok(Some(Ok(done))) => tracing::info!(
                        arrived_entries = done.arrived_entries,
                        arrived_changes = done.arrived_changes,
                        sent_entries = done.sent_entries,
                        sent_changes = done.sent_changes,
                        pushed = done.pushed,
                        "background sync ran"
                    ),
                    Ok(Some(Err(e))) => {
                        tracing::warn!(error = %e, "background sync failed; retrying later")
                    }
                    Err(_) => {
                        tracing::error!("background sync panicked; retrying at the next check");
                        lock(&handle).problem = Some(SyncProblem::Failed(
                            "the sync stopped unexpectedly; see the app's log".into(),
                        ));
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the background sync");
    }
}
