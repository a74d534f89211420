//! The slow tier: the live file watcher over real inotify, with real debounce periods and its
//! one-second tick. These tests wait on the OS, so they are `#[ignore]`d to keep
//! `cargo test -p elnor-engine` fast; `scripts/test.sh` runs them in a step of their own. Every
//! wait polls for the state it needs instead of sleeping a fixed time, except the pause after a
//! change that lets a duplicate observation arrive if there were going to be one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use elnor_engine::{
    ContinuityMode, FileWatcher, Observation, ObservationFilter, Store, WatcherState,
    folder_is_baselined,
};

const PATIENCE: Duration = Duration::from_secs(10);

/// A store in deterministic mode tracking one real folder, with a short debounce.
struct World {
    _dir: tempfile::TempDir,
    store: Arc<Store>,
    docs: PathBuf,
}

fn world(before_start: impl FnOnce(&Path)) -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    store.set_mode(ContinuityMode::Deterministic).unwrap();
    store.set_config("watch_debounce_ms", "100").unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let docs = std::fs::canonicalize(&docs).unwrap();
    store.tracked_folders().add(&docs).unwrap();
    before_start(&docs);
    World {
        _dir: dir,
        store: Arc::new(store),
        docs,
    }
}

/// Polls `done` until it holds, failing the test with `what` after [`PATIENCE`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < PATIENCE, "waited {PATIENCE:?} for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts the watcher and waits for its first pass to record the folder's baseline.
fn start(w: &World) -> FileWatcher {
    let watcher = FileWatcher::start(w.store.clone()).unwrap();
    wait_until("the baseline", || {
        folder_is_baselined(&w.store, &w.docs).unwrap()
    });
    watcher
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// Waits until the store holds `n` observations (or 10 s pass), then long enough for any extra
/// one to arrive, and returns them oldest first.
fn wait_for(store: &Store, n: usize) -> Vec<Observation> {
    let list = || {
        let mut l = store
            .graph()
            .observations(&ObservationFilter {
                limit: 10_000,
                ..ObservationFilter::default()
            })
            .unwrap();
        l.reverse();
        l
    };
    let start = Instant::now();
    while list().len() < n && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Several debounce periods: a duplicate would have landed by now.
    std::thread::sleep(Duration::from_millis(400));
    list()
}

fn kinds(list: &[Observation]) -> Vec<&'static str> {
    list.iter().map(|o| o.kind.as_str()).collect()
}

#[test]
#[ignore = "slow tier: a live file watcher; run by scripts/test.sh"]
fn each_change_is_exactly_one_observation() {
    let w = world(|_| {});
    let watcher = start(&w);
    let store = &w.store;
    let f = w.docs.join("notes.md");
    write(&f, "# Notes\n");
    assert_eq!(kinds(&wait_for(store, 1)), ["created"]);
    write(&f, "# Notes\n\nMore.\n");
    assert_eq!(kinds(&wait_for(store, 2)), ["created", "modified"]);
    std::fs::rename(&f, w.docs.join("renamed.md")).unwrap();
    assert_eq!(
        kinds(&wait_for(store, 3)),
        ["created", "modified", "renamed"]
    );
    std::fs::remove_file(w.docs.join("renamed.md")).unwrap();
    assert_eq!(
        kinds(&wait_for(store, 4)),
        ["created", "modified", "renamed", "deleted"]
    );
    // Ignored paths make nothing, even after a full reconcile.
    write(&w.docs.join(".git/index"), "x");
    write(&w.docs.join("draft.md.swp"), "x");
    write(&w.docs.join("node_modules/a/b.js"), "x");
    let before = watcher.status().last_reconcile_at;
    watcher.reconcile_now();
    wait_until("the reconcile", || {
        watcher.status().last_reconcile_at != before
    });
    assert_eq!(wait_for(store, 4).len(), 4);
    // Many files created at once inside a brand-new folder: each exactly once.
    std::fs::create_dir_all(w.docs.join("burst/deep")).unwrap();
    for i in 0..200 {
        std::fs::write(
            w.docs.join(format!("burst/deep/{i:03}.txt")),
            format!("{i}\n"),
        )
        .unwrap();
    }
    let list = wait_for(store, 204);
    assert_eq!(list.len(), 204, "{:?}", kinds(&list));
    assert_eq!(watcher.status().state, WatcherState::Running);
}

#[test]
#[ignore = "slow tier: a live file watcher; run by scripts/test.sh"]
fn a_removed_and_recreated_folder_is_watched_again() {
    let w = world(|docs| write(&docs.join("a.txt"), "a\n"));
    let watcher = start(&w);
    let store = &w.store;
    // A vanished folder is not a burst of deletions (it may be a drive not mounted); its files
    // are compared with what was recorded when it is back.
    std::fs::remove_dir_all(&w.docs).unwrap();
    wait_until("the folder reported missing", || {
        watcher.status().folders == vec![(w.docs.clone(), false)]
    });
    assert_eq!(watcher.status().folders, vec![(w.docs.clone(), false)]);
    std::fs::create_dir_all(&w.docs).unwrap();
    // The watcher's tick sees the folder back and watches it again; then write into it.
    wait_until("the folder watched again", || {
        watcher.status().folders == vec![(w.docs.clone(), true)]
    });
    write(&w.docs.join("b.txt"), "b\n");
    assert_eq!(kinds(&wait_for(store, 2)), ["deleted", "created"]);
    write(&w.docs.join("b.txt"), "b\nb\n");
    assert_eq!(
        kinds(&wait_for(store, 3)),
        ["deleted", "created", "modified"]
    );
    let status = watcher.status();
    assert_eq!(status.folders, vec![(w.docs.clone(), true)]);
    drop(watcher);
}
