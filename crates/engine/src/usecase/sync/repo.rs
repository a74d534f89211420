//! The sync repository's files (layout in the module doc): the mark that says whose memory a
//! remote holds, and reading and writing each device's entries and events.
//!
//! Each device appends only to its own files, so git never meets a conflict, and another
//! device's file is read from where the last sync stopped (`sync_files`): a file only grows.
//! A line is read only once it ends in a newline, so a file a killed sync left half-written is
//! read whole next time.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::continuity::ContinuityEntry;
use crate::graph::store::Store;
use crate::graph::sync::{GraphChange, GraphEvent, SyncConflict};

use super::git::{BRANCH, Git};

/// The mark at the repository's root.
const MARK: &str = "ELNOR-SYNC.json";
/// The layout's version; a newer one is refused rather than half-read. Version 2 files a
/// device's entries by the day it sent them (`continuity/{wc}/{device}/{day}.jsonl`); version 1
/// kept one file per device and context, which git stored whole again at every sync, so its cost
/// grew with the history. Both are read.
const FORMAT: u32 = 2;

#[derive(Debug, Serialize, Deserialize)]
struct Mark {
    elnor_sync: u32,
    owner: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct DeviceFile {
    device: String,
    name: String,
}

/// Whose memory this is by default: the person's git e-mail, else their user name.
pub(super) fn person() -> String {
    let email = std::process::Command::new("git")
        .args(["config", "--global", "--get", "user.email"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|e| !e.is_empty());
    email
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("USERNAME").ok())
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "me".to_owned())
}

/// The mark's bytes: the same on every device of one owner, so two stores that each made the
/// repository's first commit merge without a conflict.
fn mark_bytes(owner: &str) -> Result<Vec<u8>> {
    let mut s = serde_json::to_string_pretty(&Mark {
        elnor_sync: FORMAT,
        owner: owner.to_owned(),
    })
    .map_err(|e| Error::InvalidInput(format!("sync mark: {e}")))?;
    s.push('\n');
    Ok(s.into_bytes())
}

/// The format a mark file says, if it exists and can be read.
fn mark_format(path: &Path) -> Option<u32> {
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str::<Mark>(&text)
        .ok()
        .map(|m| m.elnor_sync)
}

/// Pathspecs of the files only `device` writes: its name, its entries in every context, its
/// graph changes. Everything else in the repository arrives by merges.
pub(super) fn own_paths(device: &str) -> Vec<String> {
    vec![
        format!("devices/{device}.json"),
        format!("continuity/*/{device}/*"),
        format!("continuity/*/{device}.jsonl"),
        format!("events/{device}/"),
    ]
}

/// Whether `path` (relative, `/`-separated, as git lists it) is one of the files only `device`
/// writes: the same files [`own_paths`] names.
pub(super) fn is_own(path: &str, device: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        ["devices", file] => *file == format!("{device}.json"),
        ["continuity", _, dev, _] => *dev == device,
        ["continuity", _, file] => *file == format!("{device}.jsonl"),
        ["events", dev, ..] => *dev == device,
        _ => false,
    }
}

/// Refuses a remote that is not an ELNOR sync repository, one of a newer format, or one that
/// holds another owner's memory. An empty remote is welcome.
pub(super) fn check_remote(git: &Git, remote: &str, owner: &str) -> Result<()> {
    let remote_ref = format!("refs/remotes/origin/{BRANCH}");
    if git.rev(&remote_ref)?.is_none() {
        return Ok(());
    }
    let Some(text) = git.show(&remote_ref, MARK)? else {
        return Err(Error::InvalidInput(format!(
            "{remote} already holds commits on `{BRANCH}` and is not an ELNOR sync repository \
             (it has no {MARK}): choose an empty repository, or one an ELNOR store synced to"
        )));
    };
    let mark: Mark = serde_json::from_str(&text).map_err(|e| {
        Error::InvalidInput(format!(
            "{remote}: its {MARK} cannot be read ({e}); it was not written by ELNOR"
        ))
    })?;
    if mark.elnor_sync > FORMAT {
        return Err(Error::InvalidInput(format!(
            "{remote} was written by a newer ELNOR (sync format {}; this one reads {FORMAT}): \
             update ELNOR on this machine",
            mark.elnor_sync
        )));
    }
    if mark.owner != owner {
        return Err(Error::InvalidInput(format!(
            "{remote} holds the ELNOR memory of {:?}, and this store is {owner:?}'s: nothing was \
             merged. If both are you, sync with `--owner {:?}`",
            mark.owner, mark.owner
        )));
    }
    Ok(())
}

/// Merges what the remote holds into this device's branch. The files are disjoint by device, so
/// a conflict means someone edited the repository by hand: the merge is undone and said so.
pub(super) fn merge_remote(git: &Git) -> Result<()> {
    let remote_ref = format!("refs/remotes/origin/{BRANCH}");
    if git.rev(&remote_ref)?.is_none() {
        return Ok(());
    }
    if git.rev("HEAD")?.is_none() {
        // A device's first sync to a remote that has history: start from it.
        git.run(&["reset", "-q", &remote_ref])?;
        git.run(&["checkout", "-q", "--", "."])?;
        return Ok(());
    }
    let args = [
        "merge",
        "-q",
        "--no-edit",
        "--no-ff",
        "--allow-unrelated-histories",
        &remote_ref,
    ];
    if let Err(e) = git.run(&args) {
        git.ok(&["merge", "--abort"])?;
        return Err(Error::InvalidInput(format!(
            "the remote's history could not be merged with this device's; nothing was changed \
             here. Was the sync repository edited by hand? ({e})"
        )));
    }
    Ok(())
}

/// What arrived in one sync.
#[derive(Default)]
pub(super) struct Arrived {
    pub(super) entries: usize,
    pub(super) changes: usize,
    /// The changes by what they were about (see [`change_topic`]).
    pub(super) change_kinds: BTreeMap<&'static str, usize>,
    pub(super) conflicts: Vec<SyncConflict>,
}

/// What a graph change was about, in the words Today uses for what arrived.
pub(super) fn change_topic(change: &GraphChange) -> &'static str {
    match change {
        GraphChange::ContextKnown { .. }
        | GraphChange::ContextSet { .. }
        | GraphChange::RuleSet { .. }
        | GraphChange::ContextMerge { .. } => "work context changes",
        GraphChange::ReviewDecided { .. } => "review decisions",
        GraphChange::EntityKnown { .. }
        | GraphChange::EntitySet { .. }
        | GraphChange::EntityAlias { .. }
        | GraphChange::EntityMerge { .. }
        | GraphChange::EntityLinked { .. } => "entity edits",
        GraphChange::TopicKnown { .. }
        | GraphChange::TopicSet { .. }
        | GraphChange::TopicDeleted { .. }
        | GraphChange::TopicPin { .. } => "Topic changes",
        GraphChange::NodeSet { .. } | GraphChange::NodeSuperseded { .. } => "knowledge edits",
        GraphChange::SettingSet { .. } => "setting changes",
        GraphChange::FactKnown { .. }
        | GraphChange::FactSet { .. }
        | GraphChange::FactRemoved { .. }
        | GraphChange::FactOrder { .. } => "living-memory edits",
    }
}

/// The complete lines of a file past `offset`, and the offset after the last of them.
fn new_lines(path: &Path, offset: u64) -> Result<(Vec<String>, u64)> {
    let mut file = fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    // A file shorter than what was read was rewritten by hand: read it again from the start
    // (ids make a second reading harmless).
    let from = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(from))
        .map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let Some(end) = bytes.iter().rposition(|b| *b == b'\n') else {
        return Ok((Vec::new(), from));
    };
    let lines = String::from_utf8_lossy(&bytes[..end])
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    Ok((lines, from + end as u64 + 1))
}

/// Files under `dir` (one level), sorted, with their names.
fn files_in(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for item in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let item = item.map_err(|e| Error::io(dir, e))?;
        let name = item.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        out.push((name, item.path()));
    }
    out.sort();
    Ok(out)
}

/// Another device's file of entries.
struct EntryFile {
    /// The path relative to the repository, `/`-separated: the key of how far it was read.
    key: String,
    device: String,
    path: PathBuf,
}

/// Other devices' files of entries, in both layouts: `{wc}/{device}/{day}.jsonl` and, written
/// by format 1, `{wc}/{device}.jsonl`.
fn continuity_files(dir: &Path, this_device: &str) -> Result<Vec<EntryFile>> {
    let mut out = Vec::new();
    for (wc, wc_dir) in files_in(dir)? {
        for (name, path) in files_in(&wc_dir)? {
            if path.is_dir() {
                if name == this_device {
                    continue;
                }
                for (day, file) in files_in(&path)? {
                    if day.ends_with(".jsonl") {
                        out.push(EntryFile {
                            key: format!("continuity/{wc}/{name}/{day}"),
                            device: name.clone(),
                            path: file,
                        });
                    }
                }
            } else if let Some(dev) = name.strip_suffix(".jsonl")
                && dev != this_device
            {
                out.push(EntryFile {
                    key: format!("continuity/{wc}/{name}"),
                    device: dev.to_owned(),
                    path,
                });
            }
        }
    }
    Ok(out)
}

/// Takes in what other devices wrote: their graph changes first (applied in one order on every
/// device), then their entries, each into the log of the context it now belongs to.
pub(super) fn take_in(
    store: &Store,
    git: &Git,
    device: &str,
    now: DateTime<Utc>,
    touched: &mut BTreeSet<WorkContextId>,
    from: &mut BTreeSet<String>,
) -> Result<Arrived> {
    let graph = store.graph();
    let root = git.dir();
    let mut arrived = Arrived::default();
    let conflicts_before = graph.sync_conflicts()?.len();

    // An event is kept, and its file's offset moved, only after it was applied: a sync that
    // dies or fails in between reads it again, and applying it twice is harmless.
    let mut events: Vec<GraphEvent> = Vec::new();
    let mut offsets: Vec<(String, u64)> = Vec::new();
    let mut new_ids: BTreeSet<String> = BTreeSet::new();
    for (dev, dir) in files_in(&root.join("events"))? {
        if dev == device {
            continue;
        }
        for (name, path) in files_in(&dir)? {
            let key = format!("events/{dev}/{name}");
            let (lines, end) = new_lines(&path, graph.sync_file_offset(&key)?)?;
            for line in lines {
                match serde_json::from_str::<GraphEvent>(&line) {
                    Ok(ev) if ev.device == dev => {
                        if !graph.has_event(&ev.event_id)? && new_ids.insert(ev.event_id.clone()) {
                            events.push(ev);
                        }
                    }
                    // A line from a newer ELNOR, or not an event: skipped and said, never fatal.
                    Ok(_) | Err(_) => tracing::warn!(file = %key, "sync: an event line skipped"),
                }
            }
            offsets.push((key, end));
        }
    }
    events.sort_by(|a, b| a.order_key().cmp(&b.order_key()));
    for ev in &events {
        from.insert(ev.device.clone());
        *arrived
            .change_kinds
            .entry(change_topic(&ev.change))
            .or_default() += 1;
        // A change this version cannot apply (a value it refuses, a name taken here) is skipped
        // and said, and kept as seen: it would be refused again, and the changes after it must
        // still apply. Only a storage failure stops the sync, to be retried.
        if let Err(e) = super::apply::apply(store, ev, touched) {
            if e.kind() == crate::base::error::ErrorKind::Storage {
                return Err(e);
            }
            tracing::warn!(event = %ev.event_id, error = %e, "sync: a change left out");
        }
        graph.store_event(ev, Some(now))?;
    }
    for (key, end) in offsets {
        graph.set_sync_file_offset(&key, end)?;
    }
    arrived.changes = events.len();

    let mut seen = graph.synced_entry_ids()?;
    let read_to = graph.sync_file_offsets()?;
    for file in continuity_files(&root.join("continuity"), device)? {
        let offset = read_to.get(&file.key).copied().unwrap_or(0);
        // Most files are days long past, read to their end: only their length is looked at.
        if fs::metadata(&file.path).is_ok_and(|m| m.len() == offset) {
            continue;
        }
        let (lines, end) = new_lines(&file.path, offset)?;
        let dev = file.device.as_str();
        let mut by_context: BTreeMap<String, Vec<ContinuityEntry>> = BTreeMap::new();
        let mut marks = Vec::new();
        for line in lines {
            let Ok(entry) = ContinuityEntry::from_line(line.as_bytes()) else {
                tracing::warn!(file = %file.key, "sync: an entry line skipped");
                continue;
            };
            if !seen.insert(entry.entry_id.to_string()) {
                continue;
            }
            let target = graph.merged_into(entry.work_context_id.as_str())?;
            marks.push((entry.entry_id.to_string(), target.clone(), dev.to_owned()));
            // An entry that decayed on the way is recorded as seen and not brought in.
            if !entry.is_expired(now) {
                by_context.entry(target).or_default().push(entry);
            }
        }
        for (target, entries) in by_context {
            let id = WorkContextId::new(&target)?;
            let added = store.log(&id).merge_in(entries)?;
            if added > 0 {
                arrived.entries += added;
                from.insert(dev.to_owned());
                touched.insert(id);
            }
        }
        graph.mark_entries_synced(&marks)?;
        graph.set_sync_file_offset(&file.key, end)?;
    }
    let all = graph.sync_conflicts()?;
    arrived.conflicts = all[..all.len() - conflicts_before.min(all.len())].to_vec();
    Ok(arrived)
}

/// What one sync wrote out.
#[derive(Default)]
pub(super) struct Sent {
    pub(super) entries: usize,
    pub(super) changes: usize,
}

/// Appends lines to a file and makes them durable before they are counted as sent.
fn append_lines(path: &Path, lines: &[String]) -> Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut bytes = Vec::new();
    for l in lines {
        bytes.extend_from_slice(l.as_bytes());
        bytes.push(b'\n');
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all(&bytes).map_err(|e| Error::io(path, e))?;
    file.sync_data().map_err(|e| Error::io(path, e))
}

/// Writes the mark and this device's file when missing, then this device's entries and graph
/// changes not yet sent. Local-only contexts stay on this machine.
pub(super) fn write_out(
    store: &Store,
    git: &Git,
    device: &str,
    owner: &str,
    now: DateTime<Utc>,
) -> Result<Sent> {
    let graph = store.graph();
    let root = git.dir();
    // A mark of an older format is raised to this one: an older ELNOR would not find the entries
    // filed by day, so it is told to update rather than left to miss them.
    let mark = root.join(MARK);
    if mark_format(&mark) != Some(FORMAT) {
        crate::base::fsutil::atomic_write(&mark, &mark_bytes(owner)?)?;
    }
    let device_file = root.join("devices").join(format!("{device}.json"));
    if !device_file.exists() {
        let name = graph
            .sync_state(crate::graph::sync::DEVICE_NAME)?
            .unwrap_or_else(|| device.to_owned());
        let mut text = serde_json::to_string_pretty(&DeviceFile {
            device: device.to_owned(),
            name,
        })
        .map_err(|e| Error::InvalidInput(format!("device file: {e}")))?;
        text.push('\n');
        if let Some(dir) = device_file.parent() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        crate::base::fsutil::atomic_write(&device_file, text.as_bytes())?;
    }

    let mut sent = Sent::default();
    let seen = graph.synced_entry_ids()?;
    for wc in store.log_ids()? {
        // A log with no context in the graph (written with `elnor log append` under an id of
        // the person's choosing) travels as a log alone.
        let context = graph.work_context(wc.as_str()).ok();
        if context.as_ref().is_some_and(|c| c.local_only) {
            continue;
        }
        let Some(signature) = unread_since_sent(store, &wc)? else {
            continue;
        };
        let fresh: Vec<ContinuityEntry> = store
            .log(&wc)
            .read()?
            .entries
            .into_iter()
            .filter(|e| !seen.contains(e.entry_id.as_str()))
            .collect();
        if fresh.is_empty() {
            graph.set_sync_state(&sent_key(&wc), Some(&signature))?;
            continue;
        }
        if let Some(context) = &context {
            ensure_known(store, context)?;
        }
        let lines = fresh
            .iter()
            .map(ContinuityEntry::to_line)
            .collect::<Result<Vec<_>>>()?;
        let path = root
            .join("continuity")
            .join(wc.as_str())
            .join(device)
            .join(format!("{}.jsonl", now.format("%Y-%m-%d")));
        append_lines(&path, &lines)?;
        let marks: Vec<(String, String, String)> = fresh
            .iter()
            .map(|e| (e.entry_id.to_string(), wc.to_string(), device.to_owned()))
            .collect();
        graph.mark_entries_synced(&marks)?;
        graph.set_sync_state(&sent_key(&wc), Some(&signature))?;
        sent.entries += fresh.len();
    }

    ensure_graph_known(store)?;
    let events = graph.unexported_events(device)?;
    let mut by_month: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ev in &events {
        if is_local_only(store, &ev.change)? {
            continue;
        }
        by_month
            .entry(ev.at.format("%Y-%m").to_string())
            .or_default()
            .push(ev.to_line()?);
    }
    for (month, lines) in &by_month {
        let path = root
            .join("events")
            .join(device)
            .join(format!("{month}.jsonl"));
        append_lines(&path, lines)?;
    }
    let ids: Vec<String> = events.iter().map(|e| e.event_id.clone()).collect();
    graph.mark_exported(&ids)?;
    sent.changes = by_month.values().map(Vec::len).sum();
    Ok(sent)
}

/// Whether a change concerns a local-only context, which never leaves this machine.
fn is_local_only(store: &Store, change: &GraphChange) -> Result<bool> {
    let context = match change {
        GraphChange::ContextKnown { local_only, .. } => return Ok(*local_only),
        GraphChange::ContextSet { context, .. }
        | GraphChange::RuleSet { context, .. }
        | GraphChange::EntityLinked { context, .. } => context,
        GraphChange::ContextMerge { keep, .. } => keep,
        GraphChange::ReviewDecided { work_context, .. } => work_context,
        GraphChange::NodeSet { node, .. } | GraphChange::NodeSuperseded { node, .. } => match store
            .graph()
            .node(node)
            .ok()
            .and_then(|d| d.node.work_context_id)
        {
            Some(wc) => return context_local_only(store, wc.as_str()),
            None => return Ok(false),
        },
        GraphChange::TopicKnown { topic, .. }
        | GraphChange::TopicSet { topic, .. }
        | GraphChange::TopicDeleted { topic }
        | GraphChange::TopicPin { topic, .. } => {
            // A Topic scoped to a local-only context is that context's.
            match topic_scope(store, topic, change)? {
                Some(wc) => return context_local_only(store, &wc),
                None => return Ok(false),
            }
        }
        // An entity belongs to no one context; one that only local-only work knows stays.
        GraphChange::EntityKnown { entity, .. }
        | GraphChange::EntitySet { entity, .. }
        | GraphChange::EntityAlias { entity, .. }
        | GraphChange::EntityMerge { keep: entity, .. } => {
            return store.graph().entity_is_local_only(entity);
        }
        GraphChange::SettingSet { .. }
        | GraphChange::FactKnown { .. }
        | GraphChange::FactSet { .. }
        | GraphChange::FactRemoved { .. }
        | GraphChange::FactOrder { .. } => return Ok(false),
    };
    context_local_only(store, context)
}

/// The work context a Topic is scoped to: as the change itself says it (a Topic made, or its
/// rules changed), else as the Topic stands, else, for a Topic deleted since, as the last of this
/// device's changes that gave its rules said it.
fn topic_scope(store: &Store, topic: &str, change: &GraphChange) -> Result<Option<String>> {
    let scope_of = |rules: &serde_json::Value| {
        rules
            .get("work_context")
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    match change {
        GraphChange::TopicKnown { rules, .. } => return Ok(scope_of(rules)),
        GraphChange::TopicSet { set, .. } if set.contains_key("rules") => {
            return Ok(scope_of(&set["rules"]));
        }
        _ => {}
    }
    let graph = store.graph();
    if let Some(t) = crate::base::ids::TopicId::new(topic)
        .ok()
        .and_then(|id| graph.topic(&id).ok())
    {
        return Ok(t.rules.work_context.map(|wc| wc.to_string()));
    }
    for ev in graph.events_about(topic)? {
        match &ev.change {
            GraphChange::TopicKnown { rules, .. } => return Ok(scope_of(rules)),
            GraphChange::TopicSet { set, .. } if set.contains_key("rules") => {
                return Ok(scope_of(&set["rules"]));
            }
            _ => {}
        }
    }
    Ok(None)
}

fn context_local_only(store: &Store, context: &str) -> Result<bool> {
    Ok(store
        .graph()
        .work_context(context)
        .map(|c| c.local_only)
        .unwrap_or(false))
}

/// Records the Topics, living-memory facts and hand-made entities that exist without an event
/// (made before this version recorded them), each once and at the time it was made: a store's
/// first sync sends the year of work it already holds, and any change made since wins over it.
fn ensure_graph_known(store: &Store) -> Result<()> {
    use crate::usecase::sync::record;
    let graph = store.graph();
    let made = |at: &str| {
        chrono::DateTime::parse_from_rfc3339(at)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|_| Utc::now())
    };
    for t in graph.topics()? {
        if !graph.has_clock(t.topic_id.as_str(), "name")? {
            graph.record_change(record::topic_made(&t), t.created_at)?;
        }
    }
    for f in graph.living_facts()? {
        if !f.fact_key.is_empty() && !graph.has_clock(&f.fact_key, "text")? {
            let change = GraphChange::FactKnown {
                fact: f.fact_key.clone(),
                text: f.text.clone(),
                created_at: f.created_at.clone(),
            };
            graph.record_change(change, made(&f.created_at))?;
        }
    }
    // Entities a capture made (and any made before sync) travel as made, with their links to
    // work contexts, which is what a context's view lists: the other devices rebuild the same
    // view. A link is recorded after its entity, so it arrives after it.
    let entities: Vec<(GraphChange, DateTime<Utc>)> = graph
        .unrecorded_entities()?
        .iter()
        .map(|e| (record::entity_made(e), made(&e.created_at)))
        .collect();
    graph.record_changes(entities)?;
    let now = crate::base::clock::now();
    let links: Vec<(GraphChange, DateTime<Utc>)> = graph
        .unrecorded_entity_links()?
        .into_iter()
        .map(|(context, entity)| (GraphChange::EntityLinked { entity, context }, now))
        .collect();
    graph.record_changes(links)?;
    Ok(())
}

/// Records that a context exists (once per context), so a device that receives its entries
/// knows its name. Made at the context's creation time: any rename made since wins over it.
fn ensure_known(store: &Store, context: &crate::graph::contexts::WorkContext) -> Result<()> {
    let graph = store.graph();
    if graph.has_clock(context.work_context_id.as_str(), "origin")? {
        return Ok(());
    }
    let at = chrono::DateTime::parse_from_rfc3339(&context.created_at)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or_else(|_| Utc::now());
    graph.record_change(
        GraphChange::ContextKnown {
            context: context.work_context_id.to_string(),
            name: context.name.clone(),
            origin: context.origin.as_str().to_owned(),
            domain_lineage: context.domain_lineage.clone(),
            local_only: context.local_only,
        },
        at,
    )?;
    Ok(())
}

/// The `sync_state` key of a log's sent mark.
fn sent_key(wc: &WorkContextId) -> String {
    format!("sent {wc}")
}

/// The log's file as it is now (length and modification time), when it changed since every
/// entry in it was sent or received; `None` when it did not, so a sync and the status read only
/// the logs that moved instead of every log of the store. A log rewritten (a merge of arrivals,
/// an eviction) has a new time, so it is read again: the mark saves work, never an entry.
fn unread_since_sent(store: &Store, wc: &WorkContextId) -> Result<Option<String>> {
    let log = store.log(wc);
    let Ok(meta) = fs::metadata(log.path()) else {
        return Ok(Some(String::new()));
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let signature = format!("{}:{modified}", meta.len());
    let mark = store.graph().sync_state(&sent_key(wc))?;
    Ok((mark.as_deref() != Some(signature.as_str())).then_some(signature))
}

/// Whether a log that travels moved since everything in it was sent: one `stat` per log.
pub(super) fn any_log_unsent(store: &Store) -> Result<bool> {
    let graph = store.graph();
    for wc in store.log_ids()? {
        let local = graph
            .work_context(wc.as_str())
            .map(|c| c.local_only)
            .unwrap_or(false);
        if !local && unread_since_sent(store, &wc)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Entries in this store's logs not yet sent.
pub(super) fn unsent_entries(store: &Store) -> Result<u64> {
    let graph = store.graph();
    let seen = graph.synced_entry_ids()?;
    let mut n = 0u64;
    for wc in store.log_ids()? {
        if graph
            .work_context(wc.as_str())
            .map(|c| c.local_only)
            .unwrap_or(false)
            || unread_since_sent(store, &wc)?.is_none()
        {
            continue;
        }
        n += store
            .log(&wc)
            .read()?
            .entries
            .iter()
            .filter(|e| !seen.contains(e.entry_id.as_str()))
            .count() as u64;
    }
    Ok(n)
}

/// The devices that wrote to the repository, by id and name.
pub(super) fn devices(root: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (name, path) in files_in(&root.join("devices"))? {
        let Some(id) = name.strip_suffix(".json") else {
            continue;
        };
        let label = fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<DeviceFile>(&t).ok())
            .map(|d| d.name)
            .unwrap_or_else(|| id.to_owned());
        out.push((id.to_owned(), label));
    }
    Ok(out)
}
