//! Sync between stores (devices) through a real bare git repository in a temp folder, with the
//! git on this machine: appends on every side to shared and separate contexts, concurrent edits
//! of one context, a merge on one side and a rename on the other, syncs in every order; then every
//! store holds the same canonical data and rebuilds the same views, nothing is lost or doubled,
//! and the conflicts are listed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use chrono::{DateTime, Duration, TimeZone, Utc};
use elnor_engine::{
    CaptureMode, ContinuityConfig, ContinuityEntry, EntryContent, LinkRuleKind, NewWorkContext,
    OpenQuestionContent, SessionId, Store, SyncRequest, WorkContextEdit, WorkContextId,
    create_work_context, edit_work_context, log_tail, merge_work_contexts, refresh_views, sync,
    sync_status,
};
use tempfile::TempDir;

fn t(minutes: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 20, 9, 0, 0).unwrap() + Duration::minutes(minutes)
}

fn git_available() -> bool {
    Command::new("git").arg("--version").output().is_ok()
}

fn bare_remote() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    assert!(
        elnor_fixtures::bare_git_remote(dir.path()),
        "no git on PATH"
    );
    dir
}

fn remote_of(dir: &TempDir) -> SyncRequest {
    SyncRequest {
        remote: Some(dir.path().display().to_string()),
        owner: Some("dana@example.org".into()),
    }
}

fn question(wc: &WorkContextId, device: &str, n: u32, at: DateTime<Utc>) -> ContinuityEntry {
    let mut e = ContinuityEntry::new(
        wc.clone(),
        SessionId::new(format!("{device}-s{}", n / 50)).unwrap(),
        at,
        CaptureMode::Deterministic,
        EntryContent::OpenQuestion(OpenQuestionContent {
            question: format!("{device}: open question {n}?"),
            context: "ctx".into(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        &ContinuityConfig::default(),
    );
    // Ids unique across devices in one process: the counter is per process.
    e.entry_id = elnor_engine::EntryId::new(format!("ce_{device}_{n}")).unwrap();
    e
}

/// Appends `n` entries to a context's log, one second apart from `start`.
fn append(store: &Store, wc: &WorkContextId, device: &str, n: u32, start: DateTime<Utc>) {
    let entries: Vec<ContinuityEntry> = (0..n)
        .map(|i| question(wc, device, i, start + Duration::seconds(i64::from(i))))
        .collect();
    store.log(wc).append_all(&entries).unwrap();
}

fn context(store: &Store, name: &str, rule: Option<&str>, now: DateTime<Utc>) -> WorkContextId {
    let new = NewWorkContext {
        name: name.into(),
        rules: rule
            .map(|r| vec![(LinkRuleKind::Cwd, r.to_owned())])
            .unwrap_or_default(),
        ..NewWorkContext::default()
    };
    create_work_context(store, &new, now)
        .unwrap()
        .value
        .work_context_id
}

/// A store's canonical data, as text to compare: every log's bytes, and every work context with
/// its name, tag, flag and rules.
fn canonical(store: &Store) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for wc in store.log_ids().unwrap() {
        let bytes = std::fs::read(store.log(&wc).path()).unwrap();
        out.insert(format!("log {wc}"), String::from_utf8(bytes).unwrap());
    }
    for c in store.graph().work_contexts().unwrap() {
        let mut rules: Vec<String> = c
            .rules
            .iter()
            .map(|r| format!("{}:{}", r.kind.as_str(), r.pattern))
            .collect();
        rules.sort();
        out.insert(
            format!("context {}", c.work_context_id),
            format!(
                "{} | {:?} | {} | {}",
                c.name,
                c.domain_lineage,
                c.local_only,
                rules.join(",")
            ),
        );
    }
    out
}

/// The views every store rebuilds, at one time, as bytes.
fn views(store: &Store, at: DateTime<Utc>) -> BTreeMap<String, String> {
    let ids: Vec<WorkContextId> = store
        .graph()
        .work_contexts()
        .unwrap()
        .into_iter()
        .map(|c| c.work_context_id)
        .collect();
    refresh_views(store, &ids, at);
    let mut out = BTreeMap::new();
    let dir = store.root().join("mirror/work_context");
    for item in std::fs::read_dir(&dir).unwrap() {
        let path = item.unwrap().path();
        // The fingerprint is the view's cache key (the log file's size and time, a local
        // counter), not what it shows.
        let text: String = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("\"fingerprint\""))
            .collect::<Vec<_>>()
            .join("\n");
        out.insert(
            path.file_name().unwrap().to_string_lossy().into_owned(),
            text,
        );
    }
    out
}

fn entry_count(store: &Store) -> usize {
    store
        .log_ids()
        .unwrap()
        .iter()
        .map(|wc| store.log(wc).read().unwrap().entries.len())
        .sum()
}

/// Runs git in `dir` as a person would by hand; panics when it fails.
fn git(dir: &Path, args: &[&str]) {
    assert!(
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=x", "-c", "user.email=x@y"])
            .args(args)
            .status()
            .unwrap()
            .success(),
        "git {args:?}"
    );
}

/// A bare remote whose `main` holds these files (path, text), committed by hand.
fn remote_holding(files: &[(&str, String)]) -> TempDir {
    let remote = bare_remote();
    let work = tempfile::tempdir().unwrap();
    git(work.path(), &["init", "-q", "-b", "main"]);
    for (path, text) in files {
        let path = work.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(work.path(), &["add", "-A"]);
    git(work.path(), &["commit", "-q", "-m", "by hand"]);
    git(
        work.path(),
        &["push", "-q", &remote.path().display().to_string(), "main"],
    );
    remote
}

fn devices(n: usize) -> Vec<(TempDir, Store)> {
    (0..n)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            (dir, store)
        })
        .collect()
}

/// The scenario for `n` devices; returns the stores after everyone synced twice.
fn converge(n: usize) {
    let remote = bare_remote();
    let req = remote_of(&remote);
    let stores = devices(n);
    let names = ["laptop", "desktop", "server"];

    // The first device makes the shared context and sends it; the others receive it.
    let first = &stores[0].1;
    let shared = context(first, "Thesis", Some("/home/dana/thesis"), t(0));
    sync(first, &req, t(1)).unwrap();
    for (_, s) in &stores[1..] {
        let got = sync(s, &req, t(2)).unwrap();
        assert_eq!(got.arrived_changes, 2, "the context and its rule arrive");
        assert_eq!(
            s.graph().work_context(shared.as_str()).unwrap().name,
            "Thesis"
        );
    }

    // Offline work on every side: 1,000 entries to the shared context, 1,000 to one of its own,
    // and each renames the shared context (the last rename, by time, is kept everywhere).
    let mut own = Vec::new();
    for (i, (_, s)) in stores.iter().enumerate() {
        let name = names[i];
        append(s, &shared, name, 1000, t(10 + i as i64));
        let mine = context(s, &format!("Side work {name}"), None, t(20));
        append(s, &mine, &format!("{name}-own"), 1000, t(30));
        own.push(mine);
        let edit = WorkContextEdit {
            name: Some(format!("Thesis ({name})")),
            ..WorkContextEdit::default()
        };
        edit_work_context(s, &shared, &edit, t(40 + i as i64)).unwrap();
    }
    // A merge on the first device (its side context into the shared one) while the second
    // renames the same side context... it never had it; it renames its own and the first merges
    // that one once it arrives, in the round below.
    merge_work_contexts(first, &shared, &own[0], t(50)).unwrap();

    // Syncs in both orders, twice around.
    for round in 0..2 {
        let order: Vec<usize> = if round == 0 {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for i in order {
            sync(&stores[i].1, &req, t(60 + round)).unwrap();
        }
    }
    for (_, s) in &stores {
        sync(s, &req, t(70)).unwrap();
    }

    let want = canonical(&stores[0].1);
    for (i, (_, s)) in stores.iter().enumerate().skip(1) {
        assert_eq!(canonical(s), want, "device {i} differs from device 0");
    }
    // Nothing lost, nothing doubled: every append of every device, once.
    for (_, s) in &stores {
        assert_eq!(entry_count(s), n * 2000);
    }
    let last = names[n - 1];
    assert_eq!(
        stores[0]
            .1
            .graph()
            .work_context(shared.as_str())
            .unwrap()
            .name,
        format!("Thesis ({last})"),
        "the newest rename is kept on every device"
    );
    // The merge applied everywhere: the first device's side context is gone, its entries are in
    // the shared context.
    for (_, s) in &stores {
        assert!(s.graph().work_context(own[0].as_str()).is_err());
        let tail = log_tail(s, &shared, 100_000).unwrap();
        assert!(
            tail.entries
                .iter()
                .any(|e| e.entry_id.as_str() == "ce_laptop-own_0")
        );
    }
    // The rebuilt views are the same bytes.
    let want = views(&stores[0].1, t(80));
    for (i, (_, s)) in stores.iter().enumerate().skip(1) {
        let got = views(s, t(80));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (name, text) in &want {
            assert!(got[name] == *text, "device {i}: view {name} differs");
        }
    }
    // Every device's renames of the shared context met another's unsent one: listed as conflicts
    // on the devices that received them, with what was kept.
    let conflicts: usize = stores
        .iter()
        .map(|(_, s)| s.graph().sync_conflicts().unwrap().len())
        .sum();
    assert!(conflicts >= n - 1, "conflicts listed: {conflicts}");
    for (_, s) in &stores {
        for c in s.graph().sync_conflicts().unwrap() {
            assert_eq!(c.field, "name");
            // Of two concurrent renames, the later one is kept.
            let when = |v: &str| names.iter().position(|n| v == format!("Thesis ({n})"));
            assert!(
                when(&c.kept_value) > when(&c.lost_value),
                "{} kept over {}",
                c.kept_value,
                c.lost_value
            );
        }
        let status = sync_status(s, t(90)).unwrap();
        assert_eq!(status.unsent_entries, 0);
        assert_eq!(status.unsent_changes, 0);
        assert_eq!(status.ahead_commits, 0);
        assert_eq!(status.devices.len(), n);
    }
}

#[test]
fn two_devices_converge() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    converge(2);
}

#[test]
fn three_devices_converge() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    converge(3);
}

#[test]
fn a_remote_that_is_not_ours_is_refused_and_nothing_is_merged() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    // A repository with someone's project in it.
    let remote = remote_holding(&[("README.md", "a project\n".to_owned())]);
    let stores = devices(1);
    let s = &stores[0].1;
    let err = sync(s, &remote_of(&remote), t(0)).unwrap_err().to_string();
    assert!(err.contains("not an ELNOR sync repository"), "{err}");

    // Another person's memory.
    let theirs = bare_remote();
    let other = devices(1);
    let wc = context(&other[0].1, "Their work", None, t(0));
    append(&other[0].1, &wc, "them", 3, t(1));
    let mut req = remote_of(&theirs);
    req.owner = Some("someone.else@example.org".into());
    sync(&other[0].1, &req, t(2)).unwrap();
    let err = sync(s, &remote_of(&theirs), t(3)).unwrap_err().to_string();
    assert!(err.contains("someone.else@example.org"), "{err}");
    assert!(s.graph().work_context(wc.as_str()).is_err());
    assert_eq!(entry_count(s), 0);
}

#[test]
fn entries_travel_in_a_file_per_day_sent_and_a_format_1_repository_is_still_read() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    // A remote an older ELNOR wrote: one file per device and context, format 1.
    let old = WorkContextId::new("wc_older").unwrap();
    let lines: String = (0..3)
        .map(|i| {
            let mut line = question(&old, "older", i, t(0)).to_line().unwrap();
            line.push('\n');
            line
        })
        .collect();
    let files = [
        (
            "ELNOR-SYNC.json",
            "{\n  \"elnor_sync\": 1,\n  \"owner\": \"dana@example.org\"\n}\n".to_owned(),
        ),
        ("devices/dolder.json", "{}\n".to_owned()),
        ("continuity/wc_older/dolder.jsonl", lines),
    ];
    let remote = remote_holding(&files);

    let req = remote_of(&remote);
    let stores = devices(2);
    let (a, b) = (&stores[0].1, &stores[1].1);
    let got = sync(a, &req, t(1)).unwrap();
    assert_eq!(got.arrived_entries, 3, "a format 1 file is read");
    let mark = Command::new("git")
        .arg("--git-dir")
        .arg(remote.path())
        .args(["show", "main:ELNOR-SYNC.json"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&mark.stdout).contains("\"elnor_sync\": 2"),
        "the mark is raised, so an older ELNOR asks to be updated rather than missing entries"
    );

    // Two days of a's work: a file each, and the first is not written again on the second day.
    let wc = context(a, "Notes", None, t(2));
    append(a, &wc, "a", 5, t(3));
    sync(a, &req, t(4)).unwrap();
    let day = Duration::days(1);
    append(a, &wc, "a2", 5, t(5) + day);
    let dir = a.root().join("sync/continuity").join(wc.as_str());
    let device_dir = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let first = device_dir.join("2026-11-20.jsonl");
    let before = std::fs::read(&first).unwrap();
    sync(a, &req, t(6) + day).unwrap();
    assert_eq!(std::fs::read(&first).unwrap(), before);
    assert!(device_dir.join("2026-11-21.jsonl").is_file());
    let got = sync(b, &req, t(7) + day).unwrap();
    assert_eq!(got.arrived_entries, 13);
    assert_eq!(canonical(a), canonical(b));
}

#[test]
fn two_stores_with_a_year_each_merge_on_their_first_sync() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let remote = bare_remote();
    let req = remote_of(&remote);
    let stores = devices(2);
    // Each had its own history before syncing, and one context of the same name.
    for (i, (_, s)) in stores.iter().enumerate() {
        let own = context(s, &format!("Work {i}"), None, t(0));
        append(s, &own, &format!("d{i}"), 200, t(1));
        let shared = context(s, "Garden", None, t(i as i64));
        append(s, &shared, &format!("g{i}"), 50, t(2));
    }
    sync(&stores[0].1, &req, t(10)).unwrap();
    sync(&stores[1].1, &req, t(11)).unwrap();
    sync(&stores[0].1, &req, t(12)).unwrap();
    assert_eq!(canonical(&stores[0].1), canonical(&stores[1].1));
    assert_eq!(entry_count(&stores[0].1), 500);
}

#[test]
fn offline_sync_commits_and_sends_later() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let remote = bare_remote();
    let stores = devices(2);
    let a = &stores[0].1;
    let wc = context(a, "Notes", None, t(0));
    sync(a, &remote_of(&remote), t(1)).unwrap();
    append(a, &wc, "a", 5, t(2));
    // The remote goes away (a NAS switched off).
    let gone = remote.path().with_extension("away");
    std::fs::rename(remote.path(), &gone).unwrap();
    let got = sync(a, &SyncRequest::default(), t(3)).unwrap();
    assert!(got.offline.is_some() && !got.pushed);
    assert_eq!(got.sent_entries, 5);
    assert!(sync_status(a, t(3)).unwrap().ahead_commits >= 1);
    std::fs::rename(&gone, remote.path()).unwrap();
    let got = sync(a, &SyncRequest::default(), t(4)).unwrap();
    assert!(got.pushed && got.offline.is_none());
    let b = &stores[1].1;
    let got = sync(b, &remote_of(&remote), t(5)).unwrap();
    assert_eq!(got.arrived_entries, 5);
    assert_eq!(
        log_tail(b, &wc, 10).unwrap().entries.len(),
        5,
        "the entries are in the context's log"
    );
}

/// The benchmark of BENCHMARKS.md ("Sync"): a heavy user's day (SPEC §14: 50 sessions, about
/// 2,500 entries over 10 contexts) sent by one device and taken in by another, for 30 days; it
/// prints the time of each way (median and worst) and the remote's size after the month.
/// `cargo test --release -p elnor-engine --test sync -- --ignored --nocapture a_month`
#[test]
#[ignore = "a benchmark: run by hand, figures in BENCHMARKS.md"]
fn a_month_of_heavy_use_syncs_each_way_in_time() {
    let remote = bare_remote();
    let req = remote_of(&remote);
    let stores = devices(2);
    let (a, b) = (&stores[0].1, &stores[1].1);
    let contexts: Vec<WorkContextId> = (0..10)
        .map(|i| context(a, &format!("Project {i}"), None, t(0)))
        .collect();
    sync(a, &req, t(1)).unwrap();
    sync(b, &req, t(1)).unwrap();
    let (mut send, mut take) = (Vec::new(), Vec::new());
    let days: i64 = std::env::var("ELNOR_SYNC_BENCH_DAYS")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(30);
    for day in 0..days {
        let start = t(day * 24 * 60 + 60);
        for (i, wc) in contexts.iter().enumerate() {
            append(a, wc, &format!("d{day}c{i}"), 250, start);
        }
        let now = start + Duration::hours(12);
        let began = std::time::Instant::now();
        let sent = sync(a, &SyncRequest::default(), now).unwrap();
        send.push(began.elapsed().as_secs_f64());
        assert_eq!(sent.sent_entries, 2500);
        let began = std::time::Instant::now();
        let got = sync(b, &SyncRequest::default(), now).unwrap();
        take.push(began.elapsed().as_secs_f64());
        assert_eq!(got.arrived_entries, 2500);
    }
    let size = |dir: &Path| -> u64 {
        fn walk(p: &Path) -> u64 {
            std::fs::read_dir(p)
                .unwrap()
                .flatten()
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        walk(&p)
                    } else {
                        e.metadata().unwrap().len()
                    }
                })
                .sum()
        }
        walk(dir)
    };
    let before_gc = size(remote.path());
    Command::new("git")
        .arg("-C")
        .arg(remote.path())
        .args(["gc", "-q"])
        .status()
        .unwrap();
    let after_gc = size(remote.path());
    for (way, times) in [("send", &mut send), ("take in", &mut take)] {
        times.sort_by(f64::total_cmp);
        println!(
            "sync {way}: a day's 2,500 entries, median {:.2} s, worst {:.2} s ({days} days)",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
    println!(
        "remote after a month: {:.1} MB, {:.1} MB after git gc",
        before_gc as f64 / 1e6,
        after_gc as f64 / 1e6
    );
}

/// A local-only context never leaves the machine: its entries, its name and its edits stay out of
/// every object the remote holds, while an ordinary context beside it travels.
#[test]
fn a_local_only_context_never_travels() {
    if !git_available() {
        eprintln!("skipped: no git on PATH");
        return;
    }
    let remote = bare_remote();
    let stores = devices(2);
    let a = &stores[0].1;
    let private = create_work_context(
        a,
        &NewWorkContext {
            name: "Medical notes zq7".into(),
            local_only: true,
            ..NewWorkContext::default()
        },
        t(0),
    )
    .unwrap()
    .value
    .work_context_id;
    let mut e = question(&private, "private", 0, t(1));
    if let EntryContent::OpenQuestion(q) = &mut e.content {
        q.question = "Ask about the dosage xk41?".into();
    }
    a.log(&private).append(&e).unwrap();
    let edit = WorkContextEdit {
        name: Some("Medical notes zq7 renamed".into()),
        ..WorkContextEdit::default()
    };
    edit_work_context(a, &private, &edit, t(2)).unwrap();
    // A Topic scoped to the private context, made and deleted: neither travels.
    let lens = elnor_engine::NewTopic {
        name: "Dosage lens qv3".into(),
        description: String::new(),
        rules: elnor_engine::TopicRules {
            query: "dosage".into(),
            work_context: Some(private.clone()),
            ..elnor_engine::TopicRules::default()
        },
        collecting: false,
    };
    let topic = elnor_engine::create_topic(a, &lens, t(2))
        .unwrap()
        .topic
        .topic_id;
    elnor_engine::delete_topic(a, &topic).unwrap();
    let open = context(a, "Garden", None, t(0));
    append(a, &open, "garden", 3, t(1));
    let sent = sync(a, &remote_of(&remote), t(3)).unwrap();
    assert_eq!(
        sent.sent_entries, 3,
        "only the ordinary context's entries are sent"
    );
    let objects = Command::new("git")
        .arg("-C")
        .arg(remote.path())
        .args(["cat-file", "--batch-all-objects", "--batch"])
        .output()
        .unwrap();
    assert!(objects.status.success());
    let all = String::from_utf8_lossy(&objects.stdout);
    assert!(all.contains("garden: open question 0?"));
    for secret in ["zq7", "xk41", "qv3", private.as_str(), topic.as_str()] {
        assert!(!all.contains(secret), "{secret} was pushed");
    }
    let b = &stores[1].1;
    sync(b, &remote_of(&remote), t(4)).unwrap();
    assert!(b.graph().work_context(private.as_str()).is_err());
    assert_eq!(entry_count(b), 3);
}
