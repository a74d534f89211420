//! Writing heads, merge-safe (CLOSURE §2): the store's own head files and a marked block inside a
//! file another tool reads, each under a lease, with refusal, deferral and retry.
//!
//! Every write takes the lease of its target first (`heads/.leases/`): the head's scope key for
//! the store's own files, `file-{hash of the canonical path}` for another tool's file. When
//! another writer holds it, nothing is written: the write is recorded as deferred
//! (`heads/.deferred/{key}.json`, one record per target and scope) and the next refresh retries
//! it; a busy head is never a lost write. The head's content is built after the lease is taken,
//! so a write always reflects the store as it was while the writer owned the target. A write that
//! succeeds clears the deferred records other writers left for the same target while someone
//! else held it (its own content supersedes theirs), but never one recorded against its own
//! lease: that writer asked after this content was built, so its retry must still happen.
//!
//! In another tool's file the head lives in a marked block (`base::marked_block`) and every byte
//! around it is kept. When the block's body no longer matches the hash its marker recorded, a
//! person edited it: their body is saved as a proposal under `heads/proposals/` and the block is
//! left alone, unless the caller says the person decided to replace it (`replace_edits`).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::fsutil::{atomic_write, atomic_write_with};
use crate::base::ids::WorkContextId;
use crate::base::lease::{self, Acquire, LeaseRecord};
use crate::base::marked_block;
use crate::graph::store::Store;

use super::{Head, HeadScope};

/// How long a head write's lease lasts. A write takes milliseconds; the margin covers a slow
/// disk, and a writer that crashed is seen as gone long before this (its pid no longer runs).
pub const LEASE_TTL_SECONDS: i64 = 60;
/// The tag of the marked block a head is written in.
pub const BLOCK_TAG: &str = "elnor:head";

/// What became of one write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteStatus {
    /// The target now holds the head.
    Written,
    /// The target already held exactly this head; nothing was written.
    Unchanged,
    /// Another writer held the target's lease: nothing was written, and the write was recorded
    /// for the next refresh to retry.
    Deferred,
    /// The block holds a person's edit: it was kept, their body saved as a proposal, and
    /// nothing was written.
    EditsKept,
}

/// One write's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriteReport {
    pub scope: HeadScope,
    /// The file written (or not): the canonical path of another tool's file, or the store's own
    /// head file.
    pub path: PathBuf,
    pub status: WriteStatus,
    /// Who held the lease, for a deferred write.
    pub held_by: Option<LeaseRecord>,
    /// The proposal a person's edit was saved as.
    pub proposal: Option<EditProposal>,
    /// The head's tokens (0 for a deferred write, whose head was not built).
    pub tokens: u32,
}

/// A write that waits for its target's lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeferredWrite {
    pub scope: HeadScope,
    /// Another tool's file (canonical), or `None` for the store's own head file.
    pub file: Option<PathBuf>,
    /// Whether the write was asked to replace a person's edit.
    pub replace_edits: bool,
    pub deferred_at: DateTime<Utc>,
    /// The lease that refused it.
    pub held_by: LeaseRecord,
}

/// A person's edit inside a head's block, kept instead of overwritten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditProposal {
    pub scope: HeadScope,
    /// The file the block is in.
    pub target: PathBuf,
    pub detected_at: DateTime<Utc>,
    /// The file under `heads/proposals/` holding their body, byte for byte.
    pub body_path: PathBuf,
    /// The hash the block's marker recorded, and the hash of the body found.
    pub recorded_hash: Option<String>,
    pub found_hash: String,
}

/// What [`show`](super::show) answers: the head now, and what waits around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeadView {
    pub head: Head,
    /// People's edits kept from this scope's blocks, oldest first.
    pub proposals: Vec<EditProposal>,
    /// This scope's writes waiting for a lease.
    pub deferred: Vec<DeferredWrite>,
}

/// A target whose lease a caller takes by hand (a test, or another program coordinating with
/// ELNOR's writers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaseTarget {
    /// The store's own file of this head.
    Head(HeadScope),
    /// Another tool's file, whatever heads it holds.
    File(PathBuf),
}

fn heads_dir(store: &Store) -> PathBuf {
    store.root().join("heads")
}

fn leases_dir(store: &Store) -> PathBuf {
    heads_dir(store).join(".leases")
}

fn deferred_dir(store: &Store) -> PathBuf {
    heads_dir(store).join(".deferred")
}

fn proposals_dir(store: &Store) -> PathBuf {
    heads_dir(store).join("proposals")
}

/// The store's own file of a head: `heads/MEMORY.md`, `heads/threads/{id}.md`.
pub fn path(store: &Store, scope: &HeadScope) -> PathBuf {
    match scope {
        HeadScope::Global => heads_dir(store).join("MEMORY.md"),
        HeadScope::Thread(wc) => heads_dir(store).join("threads").join(format!("{wc}.md")),
    }
}

/// `path` made absolute and free of symlinks, so that two spellings of one file share one lease.
/// The file itself may not exist yet; its folder must.
fn canonical(path: &Path) -> Result<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Ok(p);
    }
    let name = path
        .file_name()
        .ok_or_else(|| Error::InvalidInput(format!("{} does not name a file", path.display())))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = fs::canonicalize(parent).map_err(|e| {
        Error::InvalidInput(format!(
            "cannot write a head into {}: its folder {} is not there ({e})",
            path.display(),
            parent.display()
        ))
    })?;
    Ok(dir.join(name))
}

fn file_key(canonical: &Path) -> String {
    let hash = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    format!("file-{}", &format!("{hash:x}")[..16])
}

fn lease_key(target: &LeaseTarget) -> Result<String> {
    Ok(match target {
        LeaseTarget::Head(scope) => scope.key(),
        LeaseTarget::File(p) => file_key(&canonical(p)?),
    })
}

/// A label for the leases this program takes: its executable's name.
fn owner() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "elnor".into());
    format!("{exe} (heads)")
}

/// Takes the lease of `target` for `owner` at `now`, for [`LEASE_TTL_SECONDS`]. While it is
/// held, every head write to that target is deferred.
pub fn acquire_lease(
    store: &Store,
    target: &LeaseTarget,
    owner: &str,
    now: DateTime<Utc>,
) -> Result<Acquire> {
    let key = lease_key(target)?;
    lease::acquire(
        &leases_dir(store),
        &key,
        owner,
        Duration::seconds(LEASE_TTL_SECONDS),
        now,
    )
}

/// The deferred record's file for a lease key and a scope.
fn deferred_path(store: &Store, key: &str, scope: &HeadScope) -> PathBuf {
    let name = if key == scope.key() {
        format!("{key}.json")
    } else {
        format!("{key}--{}.json", scope.key())
    };
    deferred_dir(store).join(name)
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>> {
    match fs::read(path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut bytes = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::InvalidInput(format!("{}: {e}", path.display())))?;
    bytes.push(b'\n');
    atomic_write(path, &bytes)
}

/// Records a refused write, merging with a record already waiting for the same target and scope:
/// a wish to replace a person's edit, once made, is kept until a write honours it.
fn defer(store: &Store, key: &str, write: DeferredWrite) -> Result<()> {
    let _guard = lease::lock(&leases_dir(store), key)?;
    let path = deferred_path(store, key, &write.scope);
    let earlier: Option<DeferredWrite> = read_json(&path)?;
    let write = DeferredWrite {
        replace_edits: write.replace_edits || earlier.is_some_and(|e| e.replace_edits),
        ..write
    };
    write_json(&path, &write)
}

/// After a successful write under the lease with `token`: clears the record of a write deferred
/// for this target and scope while someone else held the lease (this write supersedes it),
/// unless it asked to replace edits and this write did not.
fn clear_deferred(
    store: &Store,
    key: &str,
    scope: &HeadScope,
    token: &str,
    replaced_edits: bool,
) -> Result<()> {
    let _guard = lease::lock(&leases_dir(store), key)?;
    let path = deferred_path(store, key, scope);
    let Some(d) = read_json::<DeferredWrite>(&path)? else {
        return Ok(());
    };
    if d.held_by.token != token && (!d.replace_edits || replaced_edits) {
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Ok(())
}

/// Writes the head of `scope` into the store's own file (`file: None`) or into a marked block of
/// `file`, under the target's lease.
fn write_one(
    store: &Store,
    scope: &HeadScope,
    file: Option<&Path>,
    replace_edits: bool,
    now: DateTime<Utc>,
) -> Result<WriteReport> {
    let (key, target) = match file {
        None => (scope.key(), path(store, scope)),
        Some(f) => {
            let c = canonical(f)?;
            (file_key(&c), c)
        }
    };
    // A thread of an unknown context is refused before anything is leased or deferred.
    if let HeadScope::Thread(wc) = scope {
        super::build::check_exists(store, wc)?;
    }
    let lease = match lease::acquire(
        &leases_dir(store),
        &key,
        &owner(),
        Duration::seconds(LEASE_TTL_SECONDS),
        now,
    )? {
        Acquire::Held(lease) => lease,
        Acquire::Busy(held_by) => {
            defer(
                store,
                &key,
                DeferredWrite {
                    scope: scope.clone(),
                    file: file.map(|_| target.clone()),
                    replace_edits,
                    deferred_at: now,
                    held_by: held_by.clone(),
                },
            )?;
            return Ok(WriteReport {
                scope: scope.clone(),
                path: target,
                status: WriteStatus::Deferred,
                held_by: Some(held_by),
                proposal: None,
                tokens: 0,
            });
        }
    };
    let head = super::build::head(store, scope, now)?;
    let (status, proposal) = match file {
        None => (write_store_file(&target, &head)?, None),
        Some(_) => write_block(store, &target, &head, replace_edits, now)?,
    };
    if matches!(status, WriteStatus::Written | WriteStatus::Unchanged) {
        clear_deferred(store, &key, scope, &lease.record().token, replace_edits)?;
    }
    lease.release()?;
    Ok(WriteReport {
        scope: scope.clone(),
        path: target,
        status,
        held_by: None,
        proposal,
        tokens: head.tokens,
    })
}

/// The store's own head file holds the head and nothing else: it is ours, derived, deletable.
fn write_store_file(target: &Path, head: &Head) -> Result<WriteStatus> {
    if fs::read(target).ok().as_deref() == Some(head.text.as_bytes()) {
        return Ok(WriteStatus::Unchanged);
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    atomic_write(target, head.text.as_bytes())?;
    Ok(WriteStatus::Written)
}

/// Puts the head in its marked block of `target`, keeping every byte around it and the file's
/// permissions, unless the block holds a person's edit (then saved as a proposal).
fn write_block(
    store: &Store,
    target: &Path,
    head: &Head,
    replace_edits: bool,
    now: DateTime<Utc>,
) -> Result<(WriteStatus, Option<EditProposal>)> {
    let (bytes, permissions) = match fs::read(target) {
        Ok(b) => {
            let perms = fs::metadata(target)
                .map_err(|e| Error::io(target, e))?
                .permissions();
            (b, Some(perms))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), None),
        Err(e) => return Err(Error::io(target, e)),
    };
    let key = head.scope.key();
    let found = marked_block::find(&bytes, BLOCK_TAG, "scope", &key)?;
    let newline = marked_block::newline_of(&bytes);
    let block = marked_block::render(BLOCK_TAG, &[("scope", &key)], &head.text, newline);
    if let Some(f) = &found {
        let body = &bytes[f.body.clone()];
        let found_hash = marked_block::body_hash(body);
        let ours = marked_block::body_hash(head.text.as_bytes());
        if !f.is_intact(&bytes) && !replace_edits && found_hash != ours {
            let proposal = save_proposal(store, target, head, f, body, now)?;
            return Ok((WriteStatus::EditsKept, Some(proposal)));
        }
        if bytes[f.range.clone()] == block[..] {
            return Ok((WriteStatus::Unchanged, None));
        }
    }
    let out = marked_block::place(&bytes, found.as_ref(), &block);
    atomic_write_with(target, &out, permissions.as_ref())?;
    Ok((WriteStatus::Written, None))
}

/// Saves a person's edited body, once per distinct body (a second detection of the same edit
/// keeps the first record and its time).
fn save_proposal(
    store: &Store,
    target: &Path,
    head: &Head,
    found: &marked_block::Found,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<EditProposal> {
    let found_hash = marked_block::body_hash(body);
    let stem = format!(
        "{}-{}-{}",
        file_key(target),
        head.scope.key(),
        &found_hash[..16]
    );
    let dir = proposals_dir(store);
    let meta_path = dir.join(format!("{stem}.json"));
    if let Some(existing) = read_json::<EditProposal>(&meta_path)? {
        return Ok(existing);
    }
    fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let body_path = dir.join(format!("{stem}.md"));
    atomic_write(&body_path, body)?;
    let proposal = EditProposal {
        scope: head.scope.clone(),
        target: target.to_owned(),
        detected_at: now,
        body_path,
        recorded_hash: found.recorded_hash.clone(),
        found_hash,
    };
    write_json(&meta_path, &proposal)?;
    Ok(proposal)
}

/// Writes the head of `scope` into a marked block of the file at `path` (created when absent,
/// the block appended when the file has none), under the file's lease. A busy file defers the
/// write (the next refresh retries it); a block a person edited is kept, their body saved as a
/// proposal, unless `replace_edits`.
pub fn write_to(
    store: &Store,
    scope: &HeadScope,
    path: &Path,
    replace_edits: bool,
    now: DateTime<Utc>,
) -> Result<WriteReport> {
    write_one(store, scope, Some(path), replace_edits, now)
}

/// What a [`refresh`] or [`retry_deferred`] did: one report per write, and the heads that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Refresh {
    pub reports: Vec<WriteReport>,
    pub failures: Vec<Failure>,
}

impl Refresh {
    /// The writes still waiting for a lease.
    pub fn deferred(&self) -> usize {
        self.reports
            .iter()
            .filter(|r| r.status == WriteStatus::Deferred)
            .count()
    }
}

/// A head whose write failed (it is derived: the next refresh tries again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub scope: HeadScope,
    pub file: Option<PathBuf>,
    pub error: String,
}

/// Retries every deferred write, into `out`. A record that cannot be read is left in place and
/// logged; a write that fails is logged and stays deferred; both are retried at the next
/// refresh.
fn retry_into(store: &Store, now: DateTime<Utc>, out: &mut Refresh) -> Result<()> {
    for (path, d) in deferred(store)? {
        let Some(d) = d else {
            tracing::warn!(path = %path.display(), "unreadable deferred head write left in place");
            continue;
        };
        match write_one(store, &d.scope, d.file.as_deref(), d.replace_edits, now) {
            Ok(r) => out.reports.push(r),
            Err(e) => {
                tracing::warn!(error = %e, scope = %d.scope.key(), "deferred head write failed");
                out.failures.push(Failure {
                    scope: d.scope.clone(),
                    file: d.file.clone(),
                    error: e.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// Retries every deferred write (see [`refresh`], which does this after its own writes).
pub fn retry_deferred(store: &Store, now: DateTime<Utc>) -> Result<Refresh> {
    let mut out = Refresh::default();
    retry_into(store, now, &mut out)?;
    Ok(out)
}

/// Every deferred record, in name order, with its contents when readable.
fn deferred(store: &Store) -> Result<Vec<(PathBuf, Option<DeferredWrite>)>> {
    let dir = deferred_dir(store);
    let mut paths: Vec<PathBuf> = match fs::read_dir(&dir) {
        Ok(rd) => rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Error::io(&dir, e)),
    };
    paths.sort();
    paths
        .into_iter()
        .map(|p| Ok((p.clone(), read_json(&p)?)))
        .collect()
}

/// Refreshes heads: the thread heads of `contexts` (every context with a log when `None`), then
/// the global head, then every deferred write. A head that fails is reported and the others are
/// still written; an error is returned only when the store's list of logs cannot be read.
pub fn refresh(
    store: &Store,
    contexts: Option<&std::collections::BTreeSet<WorkContextId>>,
    now: DateTime<Utc>,
) -> Result<Refresh> {
    let contexts: Vec<WorkContextId> = match contexts {
        Some(c) => c.iter().cloned().collect(),
        None => store.log_ids()?,
    };
    let mut out = Refresh::default();
    let scopes = contexts
        .into_iter()
        .filter(|wc| !wc.is_unlinked())
        .map(HeadScope::Thread)
        .chain([HeadScope::Global]);
    for scope in scopes {
        match write_one(store, &scope, None, false, now) {
            Ok(r) => out.reports.push(r),
            Err(e) => {
                tracing::warn!(error = %e, scope = %scope.key(), "head refresh failed");
                out.failures.push(Failure {
                    scope,
                    file: None,
                    error: e.to_string(),
                });
            }
        }
    }
    retry_into(store, now, &mut out)?;
    Ok(out)
}

/// The head of `scope` at `now` (built, not read from its file), with the edits kept from its
/// blocks and its writes waiting for a lease.
pub fn show(store: &Store, scope: &HeadScope, now: DateTime<Utc>) -> Result<HeadView> {
    let head = super::build::head(store, scope, now)?;
    let mut proposals: Vec<EditProposal> = Vec::new();
    let dir = proposals_dir(store);
    match fs::read_dir(&dir) {
        Ok(rd) => {
            for entry in rd.flatten() {
                let p = entry.path();
                if p.extension().is_some_and(|x| x == "json")
                    && let Some(proposal) = read_json::<EditProposal>(&p)?
                    && proposal.scope == *scope
                {
                    proposals.push(proposal);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&dir, e)),
    }
    proposals.sort_by(|a, b| (a.detected_at, &a.body_path).cmp(&(b.detected_at, &b.body_path)));
    let deferred = deferred(store)?
        .into_iter()
        .filter_map(|(_, d)| d)
        .filter(|d| d.scope == *scope)
        .collect();
    Ok(HeadView {
        head,
        proposals,
        deferred,
    })
}
