//! Leases: a small record on disk that says "this writer owns that target until then", so that
//! writers in different processes (the app, the CLI, the MCP server, a hook) never replace one
//! file at the same moment and silently lose each other's work.
//!
//! A lease is `<dir>/<key>.json`, holding its owner's label, process id, host, when it was taken
//! and when it expires, plus a token that tells two leases of one process apart. Taking a free
//! lease creates the file with `create_new`, so two writers can never both create it. A lease
//! held by someone else is refused, and the caller decides what a refusal means (the heads record
//! a deferred write). An expired lease, or one whose process no longer runs on this host, is
//! stale and may be taken over.
//!
//! Every decision (read, judge, create or replace, and the holder's release) happens while the
//! key's advisory lock file (`<dir>/<key>.lock`, see [`LockGuard`]) is held, so two writers that
//! both find a stale lease cannot both take it over. The advisory lock is held only for those few
//! file operations; the lease itself outlives the call, and the process, until released or
//! expired. Nothing here knows what the key names.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::fsutil::{LockGuard, atomic_write, sync_dir};

/// Who holds a lease, and until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// A label for people reading the record: the program that took it.
    pub owner: String,
    pub pid: u32,
    pub host: String,
    pub acquired_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// Unique to this taking of the lease: a release removes the record only when it still
    /// holds this token, so a writer whose lease was taken over never removes its successor's.
    pub token: String,
}

impl LeaseRecord {
    /// Whether a writer at `now` on `host` may take this lease over: it has expired, or its
    /// process is gone from this host (a crashed writer's lease need not wait for its expiry).
    pub fn is_stale(&self, now: DateTime<Utc>, host: &str) -> bool {
        now >= self.expires_at || (self.host == host && !process_alive(self.pid))
    }
}

/// The outcome of an attempt to take a lease.
#[derive(Debug)]
pub enum Acquire {
    /// The lease is ours until released (or dropped, which releases it too).
    Held(Lease),
    /// Someone else holds it; their record says who and until when.
    Busy(LeaseRecord),
}

/// A held lease. Dropping it releases it; [`Lease::release`] does so and reports failures.
#[derive(Debug)]
pub struct Lease {
    dir: PathBuf,
    key: String,
    record: LeaseRecord,
    released: bool,
}

impl Lease {
    /// The record this lease wrote.
    pub fn record(&self) -> &LeaseRecord {
        &self.record
    }

    /// The key it holds.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Gives the lease back: removes its record if the record is still ours.
    pub fn release(mut self) -> Result<()> {
        self.released = true;
        release(&self.dir, &self.key, &self.record.token)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if !self.released {
            // An error path or a panic left the lease held; giving it back now spares the next
            // writer the wait for its expiry. A failure here leaves it to expire.
            let _ = release(&self.dir, &self.key, &self.record.token);
        }
    }
}

/// Checks that `key` can name files in the lease directory: plain characters only, so that no
/// key reaches outside it.
fn check_key(key: &str) -> Result<()> {
    let ok = !key.is_empty()
        && key.len() <= 160
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !key.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "lease key {key:?} may hold only ASCII letters, digits, '-', '_' and '.'"
        )))
    }
}

fn record_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The advisory lock that serialises every decision about `key`'s lease. Callers that keep
/// bookkeeping beside a lease (the heads' deferred writes) take it for their own read-modify-write
/// too, so both sides see one order of events. Never take it while calling [`acquire`] or
/// [`Lease::release`] for the same key: those take it themselves, and an advisory lock is not
/// re-entrant.
pub(crate) fn lock(dir: &Path, key: &str) -> Result<LockGuard> {
    check_key(key)?;
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    LockGuard::acquire(&dir.join(format!("{key}.lock")))
}

/// Reads the record of `key`'s lease, if there is one. An unreadable record (a person's edit, a
/// disk error while it was written) reads as `None`: it holds nobody's claim.
pub fn read(dir: &Path, key: &str) -> Result<Option<LeaseRecord>> {
    check_key(key)?;
    let path = record_path(dir, key);
    match fs::read(&path) {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// Tries to take `key`'s lease for `ttl` at `now`, for `owner` (a label people can read).
pub fn acquire(
    dir: &Path,
    key: &str,
    owner: &str,
    ttl: Duration,
    now: DateTime<Utc>,
) -> Result<Acquire> {
    let _guard = lock(dir, key)?;
    let host = host_name();
    let path = record_path(dir, key);
    let existing = read(dir, key)?;
    if let Some(held) = &existing
        && !held.is_stale(now, &host)
    {
        return Ok(Acquire::Busy(held.clone()));
    }
    let record = LeaseRecord {
        owner: owner.to_owned(),
        pid: std::process::id(),
        host,
        acquired_at: now,
        expires_at: now + ttl,
        token: fresh_token(now),
    };
    let bytes = serde_json::to_vec_pretty(&record)
        .map_err(|e| Error::InvalidInput(format!("lease record: {e}")))?;
    if path.exists() {
        // A stale or unreadable record: taken over in one atomic replacement.
        atomic_write(&path, &bytes)?;
    } else {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(&bytes).map_err(|e| Error::io(&path, e))?;
        file.sync_all().map_err(|e| Error::io(&path, e))?;
        sync_dir(dir)?;
    }
    Ok(Acquire::Held(Lease {
        dir: dir.to_owned(),
        key: key.to_owned(),
        record,
        released: false,
    }))
}

fn release(dir: &Path, key: &str, token: &str) -> Result<()> {
    let _guard = lock(dir, key)?;
    if read(dir, key)?.is_some_and(|r| r.token == token) {
        let path = record_path(dir, key);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Ok(())
}

/// A token no other taking of a lease shares: the moment, the process and a counter.
fn fresh_token(now: DateTime<Utc>) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let wall = Utc::now().timestamp_nanos_opt().unwrap_or_default();
    format!(
        "{}-{}-{wall}-{n}",
        now.timestamp_micros(),
        std::process::id()
    )
}

/// This machine's name, so that a lease says where its process runs (a process id means nothing
/// on another host sharing the store).
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its whole length, and gethostname writes at most that.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc == 0 {
            let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
            let name = String::from_utf8_lossy(&buf[..end]).trim().to_owned();
            if !name.is_empty() {
                return name;
            }
        }
    }
    std::env::var("COMPUTERNAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown-host".into())
}

/// Whether process `pid` runs on this host. Where that cannot be asked, it is assumed alive, so
/// its lease is taken over only once it expires.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        if pid <= 0 {
            return true;
        }
        // SAFETY: signal 0 performs the permission and existence checks only; nothing is sent.
        let rc = unsafe { libc::kill(pid, 0) };
        if rc == 0 {
            return true;
        }
        // EPERM: it exists but belongs to someone else.
        std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn t(sec: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 3, 9, 0, 0).unwrap() + Duration::seconds(sec)
    }

    #[test]
    fn a_held_lease_refuses_others_until_released() {
        let dir = tempfile::tempdir().unwrap();
        let Acquire::Held(first) =
            acquire(dir.path(), "k", "a", Duration::seconds(60), t(0)).unwrap()
        else {
            panic!("a free lease is taken");
        };
        let Acquire::Busy(held) =
            acquire(dir.path(), "k", "b", Duration::seconds(60), t(1)).unwrap()
        else {
            panic!("a held lease is refused");
        };
        assert_eq!(held, *first.record());
        assert_eq!(held.pid, std::process::id());
        first.release().unwrap();
        assert!(read(dir.path(), "k").unwrap().is_none());
        assert!(matches!(
            acquire(dir.path(), "k", "b", Duration::seconds(60), t(2)).unwrap(),
            Acquire::Held(_)
        ));
    }

    #[test]
    fn an_expired_lease_is_taken_over_and_its_late_release_removes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let Acquire::Held(old) =
            acquire(dir.path(), "k", "a", Duration::seconds(10), t(0)).unwrap()
        else {
            panic!()
        };
        let Acquire::Held(new) =
            acquire(dir.path(), "k", "b", Duration::seconds(10), t(11)).unwrap()
        else {
            panic!("an expired lease is stale");
        };
        old.release().unwrap();
        assert_eq!(read(dir.path(), "k").unwrap().as_ref(), Some(new.record()));
    }

    #[test]
    fn a_lease_of_a_gone_process_on_this_host_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let gone = LeaseRecord {
            owner: "crashed".into(),
            // Above any default pid_max, so no process has it.
            pid: 999_999_999,
            host: host_name(),
            acquired_at: t(0),
            expires_at: t(3600),
            token: "x".into(),
        };
        assert!(gone.is_stale(t(1), &host_name()));
        assert!(!gone.is_stale(t(1), "another-host"));
        fs::write(
            dir.path().join("k.json"),
            serde_json::to_vec(&gone).unwrap(),
        )
        .unwrap();
        assert!(matches!(
            acquire(dir.path(), "k", "b", Duration::seconds(60), t(1)).unwrap(),
            Acquire::Held(_)
        ));
    }

    #[test]
    fn hostile_keys_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for key in ["", "../x", "a/b", ".hidden"] {
            assert!(acquire(dir.path(), key, "a", Duration::seconds(1), t(0)).is_err());
        }
    }
}
