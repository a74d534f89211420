//! The file watcher: a thread that keeps the tracked folders observed. notify (inotify on Linux)
//! with a debouncer names the paths that changed; [`files::settle`] decides what happened. Around
//! that, the watcher repairs what the OS misses: a folder created with files already in it is
//! walked (inotify adds the new folder's watch only after some of its files may exist); a tracked
//! folder that disappears is left as recorded (it may be a drive not mounted) and, the moment it
//! (or a new folder of that name) is back, watched again and compared with the record; and every `watch_reconcile_minutes` a full reconcile compares every file
//! with what was recorded. An exhausted inotify watch limit is reported in the status, with the
//! fix, not hidden: the reconcile still catches those folders' changes, only later. Access events
//! (the watcher's own reads) are dropped, so an idle folder costs nothing but a stat per second.
//!
//! The watcher is a use case that runs by itself: it observes through the observe layer, then
//! rebuilds the views of the work contexts the observations wrote to, as every use case does.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use notify_debouncer_full::notify::{self, EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::base::error::{Error, Result};
use crate::graph::store::Store;
use crate::inputs::observe::Observation;
use crate::inputs::observe::files::{self, Scope};
use crate::inputs::observe::ignore::IgnoreRules;

/// How often the thread wakes when nothing happens: to see a removed folder come back and to
/// start the reconcile on time.
const TICK: Duration = Duration::from_secs(1);

/// Whether the watcher is doing its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WatcherState {
    Running,
    /// Running, but something is wrong; see [`WatcherStatus::problem`].
    Degraded,
    Stopped,
}

impl WatcherState {
    pub fn as_str(self) -> &'static str {
        match self {
            WatcherState::Running => "running",
            WatcherState::Degraded => "degraded",
            WatcherState::Stopped => "stopped",
        }
    }
}

/// What the watcher reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WatcherStatus {
    pub state: WatcherState,
    /// Tracked folders and whether each is watched right now.
    pub folders: Vec<(PathBuf, bool)>,
    /// Files recorded in `tracked_files`.
    pub files: u64,
    /// What is wrong and how to fix it.
    pub problem: Option<String>,
    pub last_reconcile_at: Option<DateTime<Utc>>,
    /// Observations stored since the watcher started.
    pub observations: u64,
}

impl Default for WatcherStatus {
    fn default() -> Self {
        WatcherStatus {
            state: WatcherState::Running,
            folders: Vec::new(),
            files: 0,
            problem: None,
            last_reconcile_at: None,
            observations: 0,
        }
    }
}

enum Msg {
    Fs(DebounceEventResult),
    Reload,
    Reconcile,
    Stop,
}

/// Called with each observation the watcher stores (the CLI prints them).
pub type OnObservation = Box<dyn FnMut(&Observation) + Send>;

/// A running watcher; dropping it stops the thread.
pub struct FileWatcher {
    tx: Sender<Msg>,
    status: Arc<Mutex<WatcherStatus>>,
    thread: Option<JoinHandle<()>>,
}

impl FileWatcher {
    /// Starts watching the store's tracked folders.
    pub fn start(store: Arc<Store>) -> Result<FileWatcher> {
        Self::start_with(store, Box::new(|_| {}))
    }

    /// Starts watching, calling `on_observation` for each observation stored.
    pub fn start_with(store: Arc<Store>, on_observation: OnObservation) -> Result<FileWatcher> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let status = Arc::new(Mutex::new(WatcherStatus::default()));
        let config = store.config()?;
        let debounce = Duration::from_millis(u64::from(config.watch_debounce_ms));
        let fs_tx = tx.clone();
        let debouncer = new_debouncer(debounce, None, move |r: DebounceEventResult| {
            // A send fails only once the thread is gone, when nobody needs the event.
            let _ = fs_tx.send(Msg::Fs(r));
        })
        .map_err(|e| Error::InvalidInput(format!("cannot start the file watcher: {e}")))?;
        let mut worker = Worker {
            store,
            debouncer,
            roots: Vec::new(),
            rules: IgnoreRules::new(&[]),
            status: status.clone(),
            on_observation,
            reconcile_every: Duration::from_secs(60 * u64::from(config.watch_reconcile_minutes)),
            last_reconcile: Instant::now(),
            watch_problem: None,
            event_problem: None,
            files: None,
        };
        let thread = std::thread::Builder::new()
            .name("elnor-file-watcher".into())
            .spawn(move || {
                worker.reload();
                worker.reconcile_all();
                loop {
                    match rx.recv_timeout(TICK) {
                        Ok(Msg::Fs(Ok(events))) => {
                            // Reading a file or walking a folder is an access event; acting on
                            // those would make the watcher wake itself forever.
                            let mut paths: Vec<PathBuf> = events
                                .into_iter()
                                .filter(|e| !matches!(e.event.kind, EventKind::Access(_)))
                                .flat_map(|e| e.event.paths)
                                .collect();
                            paths.sort();
                            paths.dedup();
                            if !paths.is_empty() {
                                worker.settle_paths(paths);
                            }
                        }
                        Ok(Msg::Fs(Err(errors))) => {
                            if let Some(e) = errors.first() {
                                worker.event_problem = Some(describe(e));
                            }
                        }
                        Ok(Msg::Reload) => {
                            worker.reload();
                            worker.reconcile_all();
                        }
                        Ok(Msg::Reconcile) => worker.reconcile_all(),
                        Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    worker.check_roots();
                    if worker.last_reconcile.elapsed() >= worker.reconcile_every {
                        worker.reconcile_all();
                    }
                    worker.publish();
                }
                worker.status_mut().state = WatcherState::Stopped;
            })
            .map_err(|e| Error::io("elnor-file-watcher thread", e))?;
        Ok(FileWatcher {
            tx,
            status,
            thread: Some(thread),
        })
    }

    /// What the watcher is doing now.
    pub fn status(&self) -> WatcherStatus {
        self.status
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Re-reads the tracked folders, the ignore patterns and the config.
    pub fn reload(&self) {
        let _ = self.tx.send(Msg::Reload);
    }

    /// Runs a full reconcile now rather than at the next interval.
    pub fn reconcile_now(&self) {
        let _ = self.tx.send(Msg::Reconcile);
    }
}

impl Drop for FileWatcher {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One tracked folder and the identity of the directory its watch is on, if any.
struct Root {
    path: PathBuf,
    watched: Option<(u64, u64)>,
}

struct Worker {
    store: Arc<Store>,
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    roots: Vec<Root>,
    rules: IgnoreRules,
    status: Arc<Mutex<WatcherStatus>>,
    on_observation: OnObservation,
    reconcile_every: Duration,
    last_reconcile: Instant,
    /// Why a folder could not be watched, e.g. the watch limit.
    watch_problem: Option<String>,
    /// An error the OS watcher reported after starting.
    event_problem: Option<String>,
    /// The count of remembered files, until a settle or reload may have changed it: an idle
    /// tick then costs no query.
    files: Option<u64>,
}

impl Worker {
    fn status_mut(&self) -> std::sync::MutexGuard<'_, WatcherStatus> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reload(&mut self) {
        let tracked = match self.store.tracked_folders().load() {
            Ok(t) => t,
            Err(e) => {
                self.watch_problem = Some(format!("cannot read the tracked folders: {e}"));
                return;
            }
        };
        if let Ok(config) = self.store.config() {
            self.reconcile_every =
                Duration::from_secs(60 * u64::from(config.watch_reconcile_minutes));
        }
        self.rules = IgnoreRules::new(&tracked.ignore_patterns);
        self.files = None;
        // Folders no longer tracked: unwatched and forgotten, so tracking one again starts with
        // a silent baseline. What was observed in them stays.
        let old = std::mem::take(&mut self.roots);
        for r in old {
            if tracked.folders.contains(&r.path) {
                self.roots.push(r);
            } else {
                let _ = self.debouncer.unwatch(&r.path);
                if let Err(e) = files::forget_root(&self.store, &r.path) {
                    tracing::warn!(folder = %r.path.display(), error = %e, "cannot forget folder");
                }
            }
        }
        for f in tracked.folders {
            if !self.roots.iter().any(|r| r.path == f) {
                self.roots.push(Root {
                    path: f,
                    watched: None,
                });
            }
        }
        self.watch_problem = None;
        for i in 0..self.roots.len() {
            self.ensure_watched(i);
        }
    }

    /// Watches root `i` if it exists and its watch is missing or on a directory that was replaced;
    /// returns whether a new watch was placed.
    fn ensure_watched(&mut self, i: usize) -> bool {
        let path = self.roots[i].path.clone();
        let id = dir_identity(&path);
        if id.is_some() && id == self.roots[i].watched {
            return false;
        }
        if self.roots[i].watched.is_some() {
            let _ = self.debouncer.unwatch(&path);
            self.roots[i].watched = None;
        }
        let Some(id) = id else { return false };
        match self.debouncer.watch(&path, RecursiveMode::Recursive) {
            Ok(()) => {
                self.roots[i].watched = Some(id);
                true
            }
            Err(e) => {
                let problem = describe(&e);
                tracing::warn!(folder = %path.display(), %problem, "cannot watch folder");
                self.watch_problem = Some(format!("{}: {problem}", path.display()));
                false
            }
        }
    }

    /// Notices a tracked folder that appeared, disappeared or was replaced since the last tick.
    fn check_roots(&mut self) {
        for i in 0..self.roots.len() {
            let exists = dir_identity(&self.roots[i].path).is_some();
            if !exists && self.roots[i].watched.is_some() {
                self.roots[i].watched = None;
                let _ = self.debouncer.unwatch(&self.roots[i].path);
            }
            if self.ensure_watched(i) {
                // The folder is back (or replaced): what changed while it was away, files gone
                // and files already in it, is settled now against what was recorded.
                let path = self.roots[i].path.clone();
                self.settle(&path, &Scope::All);
            }
        }
    }

    fn settle_paths(&mut self, paths: Vec<PathBuf>) {
        let roots: Vec<PathBuf> = self.roots.iter().map(|r| r.path.clone()).collect();
        for root in roots {
            let mine: Vec<PathBuf> = paths
                .iter()
                .filter(|p| p.starts_with(&root))
                .cloned()
                .collect();
            if !mine.is_empty() {
                self.settle(&root, &Scope::Paths(mine));
            }
        }
    }

    fn reconcile_all(&mut self) {
        let roots: Vec<PathBuf> = self.roots.iter().map(|r| r.path.clone()).collect();
        for root in roots {
            self.settle(&root, &Scope::All);
        }
        self.last_reconcile = Instant::now();
        self.status_mut().last_reconcile_at = Some(crate::base::clock::now());
    }

    fn settle(&mut self, root: &Path, scope: &Scope) {
        let config = match self.store.config() {
            Ok(c) => c,
            Err(e) => {
                self.event_problem = Some(format!("cannot read the config: {e}"));
                return;
            }
        };
        // A missing folder is not settled: an unmounted drive would read as every file deleted,
        // and then every file created again. Its files are compared when it comes back.
        if !root.is_dir() {
            return;
        }
        self.files = None;
        let now = crate::base::clock::now();
        match files::settle(&self.store, &config, &self.rules, root, scope, now) {
            Ok(settled) => {
                crate::views::constellation::refresh(&self.store, &settled.touched, now);
                // A file read is a Library document that may have changed, and an observation is
                // a search document of its own: both are searchable as soon as they settle.
                if settled.files_read > 0 || !settled.observations.is_empty() {
                    super::sync_search(&self.store);
                    super::collect_quietly(&self.store, now);
                }
                for o in &settled.observations {
                    (self.on_observation)(o);
                }
                self.status_mut().observations += settled.observations.len() as u64;
                for (path, why) in settled.skipped {
                    tracing::debug!(path = %path.display(), %why, "file skipped until next pass");
                }
            }
            Err(e) => {
                tracing::warn!(folder = %root.display(), error = %e, "cannot settle changes");
                self.event_problem = Some(format!("{}: {e}", root.display()));
            }
        }
    }

    fn publish(&mut self) {
        let files = match self.files {
            Some(n) => n,
            None => {
                let n = files::tracked_file_count(&self.store).unwrap_or(0);
                self.files = Some(n);
                n
            }
        };
        let problem = self.watch_problem.clone().or(self.event_problem.clone());
        let mut s = self.status_mut();
        s.folders = self
            .roots
            .iter()
            .map(|r| (r.path.clone(), r.watched.is_some()))
            .collect();
        s.files = files;
        s.state = if problem.is_some() {
            WatcherState::Degraded
        } else {
            WatcherState::Running
        };
        s.problem = problem;
    }
}

/// The (device, inode) of a directory, to tell a recreated folder from the one being watched.
fn dir_identity(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// Where Linux keeps the per-user inotify watch limit.
const MAX_WATCHES: &str = "/proc/sys/fs/inotify/max_user_watches";

/// An OS watcher error in words, with the fix when there is one.
pub fn describe(e: &notify::Error) -> String {
    match &e.kind {
        notify::ErrorKind::MaxFilesWatch => {
            let limit = std::fs::read_to_string(MAX_WATCHES)
                .map(|s| format!(" (fs.inotify.max_user_watches = {})", s.trim()))
                .unwrap_or_default();
            format!(
                "the inotify watch limit is exhausted{limit}, so some folders are not watched \
                 live; their changes are still found by the periodic reconcile, only later. \
                 Fix: sudo sysctl fs.inotify.max_user_watches=524288, and to keep it after a \
                 reboot: echo fs.inotify.max_user_watches=524288 | sudo tee \
                 /etc/sysctl.d/90-elnor-watch.conf"
            )
        }
        notify::ErrorKind::PathNotFound => "the folder does not exist".to_owned(),
        _ => e.to_string(),
    }
}
