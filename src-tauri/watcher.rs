//! The file watcher's place in the app: started with the window when the store opens (as the
//! nightly scheduler is), kept for the app's lifetime, told to reload when the person changes the
//! tracked folders or ignore patterns in Settings, and restarted when a `watch_*` config field
//! changes, since the debounce is fixed when the engine's watcher starts.
//!
//! The watching itself (notify, settling changes, the periodic reconcile) is the engine's
//! `observe::watcher::FileWatcher`; this only holds it. A watcher that cannot start does not stop
//! the app: Settings shows it as stopped, with the engine's reason as its problem.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::Local;
use elnor_engine::FileWatcher;
use elnor_engine::Store;
use elnor_types::WatcherStatusRow;

/// The app's one file watcher, or why there is none.
#[derive(Default)]
pub struct WatcherHandle {
    slot: Mutex<Slot>,
}

#[derive(Default)]
enum Slot {
    /// The store did not open, so there is nothing to watch for.
    #[default]
    NotStarted,
    Running(FileWatcher),
    Failed(String),
}

impl WatcherHandle {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts watching the store's tracked folders, replacing (and so stopping) a watcher that
    /// is already running. The engine's watcher does its first scan on its own thread, so this
    /// returns at once.
    pub fn start(&self, store: Arc<Store>) {
        let mut slot = self.lock();
        // The old watcher stops (and its thread is joined) before the new one starts, so the two
        // never settle the same folder at once.
        *slot = Slot::NotStarted;
        *slot = match FileWatcher::start(store) {
            Ok(w) => Slot::Running(w),
            Err(e) => {
                tracing::error!(error = %e, "cannot start the file watcher");
                Slot::Failed(format!("the file watcher could not start: {e}"))
            }
        };
    }

    /// Tells the watcher the tracked folders or ignore patterns changed. A watcher that failed to
    /// start is tried again, since the change may be what it needed.
    pub fn reload(&self, store: Arc<Store>) {
        let retry = match &*self.lock() {
            Slot::Running(w) => {
                w.reload();
                false
            }
            Slot::Failed(_) => true,
            Slot::NotStarted => false,
        };
        if retry {
            self.start(store);
        }
    }

    /// The watcher's state for Settings.
    pub fn status(&self) -> WatcherStatusRow {
        match &*self.lock() {
            Slot::Running(w) => {
                let s = w.status();
                WatcherStatusRow {
                    state: s.state.as_str().to_owned(),
                    files: s.files,
                    problem: s.problem,
                    last_reconcile_at: s
                        .last_reconcile_at
                        .map(|t| t.with_timezone(&Local).to_rfc3339()),
                }
            }
            Slot::Failed(why) => stopped(Some(why.clone())),
            Slot::NotStarted => stopped(None),
        }
    }
}

fn stopped(problem: Option<String>) -> WatcherStatusRow {
    WatcherStatusRow {
        state: "stopped".to_owned(),
        files: 0,
        problem,
        last_reconcile_at: None,
    }
}
