//! The same memory on every machine (issue 40): a store syncs through a git repository the person
//! owns, with the git they have. `elnor sync`, Settings → Sync and the background sync all call
//! [`sync`].
//!
//! What travels is canonical data only, as files that git merges without a conflict because no
//! two devices ever write the same file:
//!
//! ```text
//! ELNOR-SYNC.json                       the repository's mark: format and owner
//! devices/{device}.json                 each device's name
//! continuity/{wc}/{device}/{day}.jsonl  entries each device captured, appended to the file
//!                                       of the day it sent them (format 1: {device}.jsonl)
//! events/{device}/{YYYY-MM}.jsonl       graph changes each device made (graph/sync.rs)
//! ```
//!
//! A sync: finish what an interrupted one left, commit, fetch, merge, take in what other devices
//! wrote (events first, so the contexts exist, then entries: each log becomes the union of both
//! sides ordered by when the work happened), write out what this device made since, commit, push
//! (never by force: a refused push fetches, merges and tries again), then rebuild the views of
//! what changed. Offline, it commits and pushes next time. Raw transcript turns never travel:
//! each machine reads its own harnesses' files. Nor do local-only contexts, machine settings, or
//! secrets (they live in the keyring).

mod apply;
#[cfg(test)]
mod converge_tests;
mod git;
pub(crate) mod record;
mod repo;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::graph::store::Store;
pub use crate::graph::sync::SyncConflict;

use git::Git;

/// Keys of `sync_state` this module keeps.
const REMOTE: &str = "remote";
const OWNER: &str = "owner";
const LAST_SYNC: &str = "last_sync_at";
const LAST_PUSH: &str = "last_push_at";
const LAST_ARRIVAL: &str = "last_arrival";
const UNSEEN_ARRIVALS: &str = "unseen_arrivals";

/// How long the background sync waits between syncs when nothing changed here, and at least
/// between two syncs when something did (a capture, an edit).
pub(crate) const SYNC_EVERY: chrono::Duration = chrono::Duration::minutes(15);
pub(crate) const SYNC_AFTER_CHANGE: chrono::Duration = chrono::Duration::minutes(2);

/// How many times a refused push fetches, merges and tries again before giving up for now.
const PUSH_ATTEMPTS: usize = 4;

/// What a sync is asked to do.
#[derive(Debug, Clone, Default)]
pub struct SyncRequest {
    /// Set (or change) the remote: any git URL, or a path to a bare repository.
    pub remote: Option<String>,
    /// Whose memory this is; by default the person's git `user.email`, else their user name.
    /// A remote that holds another owner's memory is refused.
    pub owner: Option<String>,
}

/// What a sync did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Synced {
    pub device: String,
    pub remote: String,
    /// Whether this device's commits reached the remote.
    pub pushed: bool,
    /// Why the remote could not be reached, when it could not (the work is committed locally).
    pub offline: Option<String>,
    /// Entries and graph changes that arrived from other devices.
    pub arrived_entries: usize,
    pub arrived_changes: usize,
    /// The devices they came from.
    pub from_devices: Vec<String>,
    /// Entries and graph changes this device sent.
    pub sent_entries: usize,
    pub sent_changes: usize,
    /// Work contexts whose data changed here.
    pub touched: Vec<WorkContextId>,
    /// Conflicts this sync found (all of them are in [`SyncStatus::conflicts`]).
    pub conflicts: Vec<SyncConflict>,
    /// What arrived, in words for the person; `None` when nothing did.
    pub arrival: Option<Arrival>,
    pub at: String,
}

/// What one sync brought from the person's other devices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Arrival {
    pub at: String,
    /// The devices it came from, by name (and id when two share a name).
    pub from: Vec<String>,
    pub entries: usize,
    /// The work contexts whose logs or settings changed, by name.
    pub contexts: Vec<String>,
    /// Graph changes by what they were about ("review decisions", "Topic changes", …).
    pub changes: std::collections::BTreeMap<String, usize>,
}

impl Arrival {
    /// One sentence: "From laptop: 120 entries in Thesis and Side work; 2 review decisions."
    pub fn sentence(&self) -> String {
        let mut parts = Vec::new();
        if self.entries > 0 {
            let mut p = format!("{} entr{}", self.entries, plural_y(self.entries));
            if !self.contexts.is_empty() {
                p.push_str(&format!(" in {}", and_list(&self.contexts)));
            }
            parts.push(p);
        }
        let changes: Vec<String> = self
            .changes
            .iter()
            .map(|(what, n)| format!("{n} {}", singular_if_one(what, *n)))
            .collect();
        if !changes.is_empty() {
            parts.push(and_list(&changes));
        }
        format!("From {}: {}.", and_list(&self.from), parts.join("; "))
    }
}

fn plural_y(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

fn singular_if_one(what: &str, n: usize) -> String {
    if n == 1 {
        what.strip_suffix('s').unwrap_or(what).to_owned()
    } else {
        what.to_owned()
    }
}

fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// How a process's last sync ended, when it did not go through: what the store cannot know (the
/// app keeps it until a sync succeeds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncProblem {
    /// The remote could not be reached; the work is committed here and waits.
    Offline(String),
    /// The sync failed.
    Failed(String),
}

impl SyncProblem {
    /// What the last run of `sync` says about the next one: nothing when it went through.
    pub fn of(result: &Result<Synced>) -> Option<SyncProblem> {
        match result {
            Ok(done) => done
                .offline
                .as_ref()
                .map(|why| SyncProblem::Offline(why.lines().next().unwrap_or(why).to_owned())),
            Err(e) => Some(SyncProblem::Failed(e.to_string())),
        }
    }

    /// Said to the person.
    pub fn message(&self) -> String {
        match self {
            SyncProblem::Offline(why) => format!("offline: {why}"),
            SyncProblem::Failed(why) => why.clone(),
        }
    }
}

/// The one-word state of sync a glance needs (the app's sidebar light).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncLight {
    /// No remote is set.
    Off,
    Running,
    /// The last sync failed.
    Failed,
    /// Something waits to be sent, or the remote could not be reached.
    Waiting,
    Synced,
}

impl SyncLight {
    pub fn as_str(self) -> &'static str {
        match self {
            SyncLight::Off => "off",
            SyncLight::Running => "running",
            SyncLight::Failed => "failed",
            SyncLight::Waiting => "waiting",
            SyncLight::Synced => "synced",
        }
    }
}

/// Where sync stands (`elnor sync --status`, Settings → Sync).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncStatus {
    pub device: String,
    pub device_name: Option<String>,
    pub remote: Option<String>,
    pub owner: Option<String>,
    pub last_sync_at: Option<String>,
    pub last_push_at: Option<String>,
    /// This device's entries and changes not yet sent, and commits not yet pushed.
    pub unsent_entries: u64,
    pub unsent_changes: u64,
    pub ahead_commits: u64,
    /// Commits on the remote (as last fetched) not yet merged here.
    pub behind_commits: u64,
    /// Devices that have written to the remote, by id and name.
    pub devices: Vec<(String, String)>,
    pub conflicts: Vec<SyncConflict>,
    /// What the last sync that brought anything brought.
    pub last_arrival: Option<Arrival>,
}

impl SyncStatus {
    /// The light for this state, given whether a sync is running and how the last one ended.
    pub fn light(&self, running: bool, problem: Option<&SyncProblem>) -> SyncLight {
        match (&self.remote, running, problem) {
            (None, _, _) => SyncLight::Off,
            (_, true, _) => SyncLight::Running,
            (_, _, Some(SyncProblem::Failed(_))) => SyncLight::Failed,
            (_, _, Some(SyncProblem::Offline(_))) => SyncLight::Waiting,
            _ if self.unsent_entries + self.unsent_changes + self.ahead_commits > 0 => {
                SyncLight::Waiting
            }
            _ => SyncLight::Synced,
        }
    }
}

/// The sync repository's work tree: inside the store, never read by anything but sync.
fn work_tree(store: &Store) -> std::path::PathBuf {
    store.root().join("sync")
}

fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Syncs this store with its remote (see the module's doc).
pub fn sync(store: &Store, req: &SyncRequest, now: DateTime<Utc>) -> Result<Synced> {
    let graph = store.graph();
    let device = graph.device(now)?;
    let remote = match req
        .remote
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
    {
        Some(r) => r.to_owned(),
        None => graph.sync_state(REMOTE)?.ok_or_else(|| {
            Error::InvalidInput(
                "no sync remote is set: run `elnor sync --remote <git URL or path>` once"
                    .to_owned(),
            )
        })?,
    };
    let owner = match req
        .owner
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty())
    {
        Some(o) => o.to_owned(),
        None => match graph.sync_state(OWNER)? {
            Some(o) => o,
            None => repo::person(),
        },
    };
    // One sync at a time per store (the app's background sync, the CLI): the lock dies with its
    // holder, so a killed sync never blocks the next.
    let lock_path = store.root().join("sync.lock");
    let _lock = crate::base::fsutil::LockGuard::acquire(&lock_path)?;
    let git = Git::new(&work_tree(store), &device);
    git.init()?;
    git.recover()?;
    git.set_remote(&remote)?;
    // What a killed sync wrote of this device's files and did not commit is committed first,
    // so the merge below never meets a change of ours outside a commit; what a killed merge
    // left of other devices' files is put back, for the merge to bring again.
    git.restore_all_but(&repo::own_paths(&device), |p| repo::is_own(p, &device))?;
    git.commit_all(&format!("{device}: finish an interrupted sync"))?;

    let mut out = Synced {
        device: device.clone(),
        remote: remote.clone(),
        at: stamp(now),
        ..Synced::default()
    };
    let mut touched: BTreeSet<WorkContextId> = BTreeSet::new();
    let mut from: BTreeSet<String> = BTreeSet::new();
    let mut change_kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for attempt in 1..=PUSH_ATTEMPTS {
        out.offline = git.fetch()?.err();
        if out.offline.is_none() {
            repo::check_remote(&git, &remote, &owner)?;
            repo::merge_remote(&git)?;
        }
        // Whose memory this is, fixed once the remote has said it is ours.
        graph.set_sync_state(OWNER, Some(&owner))?;
        graph.set_sync_state(REMOTE, Some(&remote))?;
        let arrived = repo::take_in(store, &git, &device, now, &mut touched, &mut from)?;
        out.arrived_entries += arrived.entries;
        out.arrived_changes += arrived.changes;
        for (what, n) in arrived.change_kinds {
            *change_kinds.entry(what.to_owned()).or_default() += n;
        }
        out.conflicts.extend(arrived.conflicts);
        let sent = repo::write_out(store, &git, &device, &owner, now)?;
        out.sent_entries += sent.entries;
        out.sent_changes += sent.changes;
        git.commit_all(&format!(
            "{device}: {} entries, {} changes",
            sent.entries, sent.changes
        ))?;
        if out.offline.is_some() {
            break;
        }
        match git.push()? {
            Ok(()) => {
                out.pushed = true;
                graph.set_sync_state(LAST_PUSH, Some(&stamp(now)))?;
                break;
            }
            Err(said) if attempt == PUSH_ATTEMPTS => {
                return Err(Error::InvalidInput(format!(
                    "the remote refused this device's commits {PUSH_ATTEMPTS} times (another \
                     device keeps pushing first); they are committed here and go with the next \
                     sync. git said: {said}"
                )));
            }
            Err(_) => continue,
        }
    }
    graph.set_sync_state(LAST_SYNC, Some(&stamp(now)))?;
    out.from_devices = from.into_iter().collect();
    out.touched = touched.into_iter().collect();
    out.arrival = record_arrival(store, &git, &out, change_kinds)?;
    rebuild(store, &out.touched, now);
    Ok(out)
}

/// Keeps what arrived, for Settings → Sync (the last arrival) and Today (each arrival once).
fn record_arrival(
    store: &Store,
    git: &Git,
    out: &Synced,
    changes: std::collections::BTreeMap<String, usize>,
) -> Result<Option<Arrival>> {
    if out.arrived_entries == 0 && out.arrived_changes == 0 {
        return Ok(None);
    }
    let graph = store.graph();
    let names: std::collections::BTreeMap<String, String> =
        repo::devices(git.dir())?.into_iter().collect();
    let arrival = Arrival {
        at: out.at.clone(),
        from: out
            .from_devices
            .iter()
            .map(|d| match names.get(d) {
                Some(name) => format!("{name} ({d})"),
                None => d.clone(),
            })
            .collect(),
        entries: out.arrived_entries,
        contexts: out
            .touched
            .iter()
            .filter_map(|wc| graph.work_context(wc.as_str()).ok().map(|c| c.name))
            .collect(),
        changes,
    };
    let line = serde_json::to_string(&arrival)
        .map_err(|e| Error::InvalidInput(format!("sync arrival: {e}")))?;
    graph.set_sync_state(LAST_ARRIVAL, Some(&line))?;
    // Today shows each arrival once; a store nobody looks at keeps only the last few. Read and
    // written in one transaction: a Today that takes the list in between would otherwise see
    // the arrivals it took come back.
    graph.update_sync_state(UNSEEN_ARRIVALS, |held| {
        let mut unseen = arrivals_in(held);
        unseen.push(arrival.clone());
        let keep = unseen.len().saturating_sub(20);
        serde_json::to_string(&unseen[keep..])
            .map(Some)
            .map_err(|e| Error::InvalidInput(format!("sync arrivals: {e}")))
    })?;
    Ok(Some(arrival))
}

/// The arrivals a stored list holds; one that does not parse (written by another version) holds
/// none.
fn arrivals_in(held: Option<String>) -> Vec<Arrival> {
    held.and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// The arrivals nobody was shown yet, oldest first, marked shown by this call: Today lists each
/// once.
pub(crate) fn take_unseen_arrivals(store: &Store) -> Result<Vec<Arrival>> {
    Ok(arrivals_in(store.graph().take_sync_state(UNSEEN_ARRIVALS)?))
}

/// Whether the background sync (the app's, after captures and on a timer) should sync now: a
/// remote is set, and either [`SYNC_EVERY`] passed since the last sync, or something changed
/// here since and [`SYNC_AFTER_CHANGE`] passed. Cheap: a few rows and one `stat` per log.
pub fn sync_due(store: &Store, now: DateTime<Utc>) -> Result<bool> {
    let graph = store.graph();
    if graph.sync_state(REMOTE)?.is_none() {
        return Ok(false);
    }
    let Some(last) = graph
        .sync_state(LAST_SYNC)?
        .and_then(|s| DateTime::parse_from_rfc3339(&s).ok())
        .map(|t| t.with_timezone(&Utc))
    else {
        return Ok(true);
    };
    let since = now - last;
    if since >= SYNC_EVERY {
        return Ok(true);
    }
    if since < SYNC_AFTER_CHANGE {
        return Ok(false);
    }
    let device = graph.device(now)?;
    if graph.unexported_event_count(&device)? > 0 {
        return Ok(true);
    }
    // A log that moved since everything in it was sent (local-only ones never travel).
    repo::any_log_unsent(store)
}

/// Derived data of what arrived is rebuilt here, as after any other canonical write.
fn rebuild(store: &Store, touched: &[WorkContextId], now: DateTime<Utc>) {
    if touched.is_empty() {
        return;
    }
    crate::views::constellation::refresh(store, touched, now);
    super::sync_search(store);
    // The heads of the contexts that changed, and the global head; the others are as they were.
    let changed: BTreeSet<WorkContextId> = touched.iter().cloned().collect();
    if let Err(e) = crate::views::heads::refresh(store, Some(&changed), now) {
        tracing::warn!(error = %e, "heads not refreshed after a sync");
    }
}

/// Where sync stands, without touching the network.
pub fn sync_status(store: &Store, now: DateTime<Utc>) -> Result<SyncStatus> {
    let graph = store.graph();
    let device = graph.device(now)?;
    let mut status = SyncStatus {
        device_name: graph.sync_state(crate::graph::sync::DEVICE_NAME)?,
        remote: graph.sync_state(REMOTE)?,
        owner: graph.sync_state(OWNER)?,
        last_sync_at: graph.sync_state(LAST_SYNC)?,
        last_push_at: graph.sync_state(LAST_PUSH)?,
        unsent_changes: graph.unexported_event_count(&device)?,
        unsent_entries: repo::unsent_entries(store)?,
        conflicts: graph.sync_conflicts()?,
        last_arrival: graph
            .sync_state(LAST_ARRIVAL)?
            .and_then(|s| serde_json::from_str(&s).ok()),
        ..SyncStatus::default()
    };
    let tree = work_tree(store);
    if tree.join(".git").exists() {
        let git = Git::new(&tree, &device);
        let remote_ref = format!("refs/remotes/origin/{}", git::BRANCH);
        if git.rev(&remote_ref)?.is_some() && git.rev("HEAD")?.is_some() {
            status.ahead_commits = git.count(&format!("{remote_ref}..HEAD"))?;
            status.behind_commits = git.count(&format!("HEAD..{remote_ref}"))?;
        } else if git.rev("HEAD")?.is_some() {
            status.ahead_commits = git.count("HEAD")?;
        }
        status.devices = repo::devices(&tree)?;
    }
    status.device = device;
    Ok(status)
}
