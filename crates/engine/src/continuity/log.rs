//! One work context's continuity log file, `continuity/{work_context_id}.jsonl`.
//!
//! Durability policy: an append writes the whole line (entry plus `\n`) with one `write` call on a
//! file opened for appending, then `fdatasync`s the file before returning; a newly created log
//! also gets its directory fsynced. An acknowledged append therefore survives a crash or power
//! loss. Every append and read holds an exclusive advisory lock on `continuity/.locks/{id}.lock`,
//! so the app, the CLI and the MCP server can share a store.
//!
//! A crash mid-append can still leave a torn last line (bytes without a final newline). Opening the
//! log for reading or appending repairs it before anything else: a tail that parses as a complete
//! entry just gets its newline; anything else is moved to `continuity/torn/` (fsynced there first)
//! and cut from the log, so it is kept aside, never silently dropped, and never glued to the next
//! entry. Malformed lines elsewhere are skipped and counted, never fatal.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::entry::ContinuityEntry;
use crate::base::error::{Error, Result};
use crate::base::fsutil::{LockGuard, atomic_write, sync_dir};
use crate::base::ids::WorkContextId;

/// Lines longer than this are skipped unread (and counted), so one enormous line cannot exhaust
/// memory. Real entries are a few hundred bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most entries `wc_unlinked` keeps; older ones are evicted first (CSA §3.1).
pub const UNLINKED_CAP: usize = 20;

/// What a torn-line repair did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TornRepair {
    /// The repaired log.
    pub log: PathBuf,
    /// Bytes of the torn tail.
    pub bytes: u64,
    /// Where the torn bytes were preserved; `None` when the tail was a complete entry that only
    /// lacked its newline and so stayed in the log.
    pub preserved_at: Option<PathBuf>,
}

/// A line that could not be read as an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

/// The result of reading a log: every valid entry in file order, plus what was skipped.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LogRead {
    pub entries: Vec<ContinuityEntry>,
    pub skipped: Vec<SkippedLine>,
    pub repair: Option<TornRepair>,
}

/// Where an incremental read of a log stopped ([`ContinuityLog::read_since`]): the file it read,
/// how far, and the last bytes before that point, which must still be there for the next read to
/// go on from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogMark {
    identity: Option<(u64, u64)>,
    offset: u64,
    ending: Vec<u8>,
}

/// What [`ContinuityLog::read_since`] read: the new entries, the mark to go on from, and whether
/// it had to read the log from its start.
#[derive(Debug)]
pub struct SinceMark {
    pub read: LogRead,
    pub mark: LogMark,
    pub restarted: bool,
}

/// How many bytes before a mark must be unchanged for a read to go on from it. They end with the
/// newline of an entry whose id is unique, so a rewritten log that reused the inode cannot hold
/// them at the same place by chance.
const MARK_ENDING: u64 = 64;

/// The file's device and inode where the platform has them: a rewrite by rename is another file.
/// Elsewhere there is no identity and every incremental read starts from the beginning.
fn file_identity(meta: &fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The up to [`MARK_ENDING`] bytes before `offset`.
fn ending_at(file: &mut File, offset: u64) -> std::io::Result<Vec<u8>> {
    let start = offset.saturating_sub(MARK_ENDING);
    let mut bytes = vec![0u8; (offset - start) as usize];
    file.seek(SeekFrom::Start(start))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// A handle on one work context's log. Cheap to create; the file is touched only by calls.
#[derive(Debug, Clone)]
pub struct ContinuityLog {
    work_context_id: WorkContextId,
    path: PathBuf,
    lock_path: PathBuf,
    torn_dir: PathBuf,
}

impl ContinuityLog {
    pub(crate) fn new(continuity_dir: &Path, work_context_id: WorkContextId) -> ContinuityLog {
        let name = work_context_id.as_str();
        ContinuityLog {
            path: continuity_dir.join(format!("{name}.jsonl")),
            lock_path: continuity_dir.join(".locks").join(format!("{name}.lock")),
            torn_dir: continuity_dir.join("torn"),
            work_context_id,
        }
    }

    /// The log file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The work context this log belongs to.
    pub fn work_context_id(&self) -> &WorkContextId {
        &self.work_context_id
    }

    fn lock(&self) -> Result<LockGuard> {
        let dir = self.lock_path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        LockGuard::acquire(&self.lock_path)
    }

    /// Repairs a torn last line, if there is one.
    pub fn repair(&self) -> Result<Option<TornRepair>> {
        let _lock = self.lock()?;
        self.repair_locked()
    }

    fn repair_locked(&self) -> Result<Option<TornRepair>> {
        let mut file = match OpenOptions::new().read(true).write(true).open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        let io = |e| Error::io(&self.path, e);
        let len = file.metadata().map_err(io)?.len();
        if len == 0 {
            return Ok(None);
        }
        let Some(start) = tail_start(&mut file, len).map_err(io)? else {
            return Ok(None);
        };
        let tail_len = len - start;
        file.seek(SeekFrom::Start(start)).map_err(io)?;
        let mut tail = Vec::new();
        // A torn tail is at most one partial line; cap the read so a multi-gigabyte unterminated
        // file cannot exhaust memory, and preserve it by copying instead.
        (&mut file)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_to_end(&mut tail)
            .map_err(io)?;
        if tail.len() as u64 == tail_len && ContinuityEntry::from_line(&tail).is_ok() {
            // A complete entry that lost only its newline: finish the line, keep the entry.
            file.seek(SeekFrom::End(0)).map_err(io)?;
            file.write_all(b"\n").map_err(io)?;
            file.sync_data().map_err(io)?;
            tracing::warn!(log = %self.path.display(), "completed a log line missing its newline");
            return Ok(Some(TornRepair {
                log: self.path.clone(),
                bytes: tail_len,
                preserved_at: None,
            }));
        }
        fs::create_dir_all(&self.torn_dir).map_err(|e| Error::io(&self.torn_dir, e))?;
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        let aside = self
            .torn_dir
            .join(format!("{}.{stamp}.partial", self.work_context_id.as_str()));
        {
            let mut out = File::create(&aside).map_err(|e| Error::io(&aside, e))?;
            file.seek(SeekFrom::Start(start)).map_err(io)?;
            std::io::copy(&mut (&mut file).take(tail_len), &mut out)
                .map_err(|e| Error::io(&aside, e))?;
            out.sync_all().map_err(|e| Error::io(&aside, e))?;
        }
        sync_dir(&self.torn_dir)?;
        // Only once the bytes are safely aside is the log cut back to its last complete line.
        file.set_len(start).map_err(io)?;
        file.sync_all().map_err(io)?;
        tracing::warn!(
            log = %self.path.display(),
            preserved_at = %aside.display(),
            bytes = tail_len,
            "repaired a torn last line"
        );
        Ok(Some(TornRepair {
            log: self.path.clone(),
            bytes: tail_len,
            preserved_at: Some(aside),
        }))
    }

    /// Appends one entry durably (see the module docs for the fsync policy). The entry must belong
    /// to this log's work context. Returns the repair made before appending, if any.
    pub fn append(&self, entry: &ContinuityEntry) -> Result<Option<TornRepair>> {
        self.append_all(std::slice::from_ref(entry))
    }

    /// Appends `entries` in one write and one fsync: what a capture or a delivery run writes
    /// into one log is acknowledged together, so it pays one disk flush rather than one per
    /// entry. Every entry must belong to this log's work context; none is written otherwise. A
    /// crash during the write leaves a prefix of the lines, the last maybe torn, which the next
    /// append or read repairs; none of them was acknowledged.
    pub fn append_all(&self, entries: &[ContinuityEntry]) -> Result<Option<TornRepair>> {
        let mut lines = String::new();
        for entry in entries {
            if entry.work_context_id != self.work_context_id {
                return Err(Error::InvalidEntry(format!(
                    "entry {} belongs to work context {}, not {}",
                    entry.entry_id, entry.work_context_id, self.work_context_id
                )));
            }
            lines.push_str(&entry.to_line()?);
            lines.push('\n');
        }
        if lines.is_empty() {
            return Ok(None);
        }
        let _lock = self.lock()?;
        let repair = self.repair_locked()?;
        let created = !self.path.exists();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, e))?;
        file.write_all(lines.as_bytes())
            .map_err(|e| Error::io(&self.path, e))?;
        file.sync_data().map_err(|e| Error::io(&self.path, e))?;
        if created && let Some(dir) = self.path.parent() {
            sync_dir(dir)?;
        }
        if self.work_context_id.is_unlinked() {
            self.evict_locked(UNLINKED_CAP)?;
        }
        Ok(repair)
    }

    /// Replaces the log's entries with what `change` makes of them, keeping the old file as it
    /// was under `backup_dir` first. The log has no way to retract an entry, so a correction
    /// that must take entries out (reconstruct's apply) rewrites the file; the backup keeps the
    /// history, and the new file is written whole and renamed into place, so a crash leaves
    /// either the old log or the new one. Lines that are not valid entries are kept at the end,
    /// as they were: they are for a person to inspect. Returns the backup's path, or `None` when
    /// `change` left the entries as they were and nothing was written.
    pub(crate) fn rewrite(
        &self,
        backup_dir: &Path,
        change: impl FnOnce(Vec<ContinuityEntry>) -> Vec<ContinuityEntry>,
    ) -> Result<Option<PathBuf>> {
        let _lock = self.lock()?;
        self.repair_locked()?;
        let (read, unreadable) = self.read_keeping_unreadable_locked()?;
        let before = read.entries.clone();
        let after = change(read.entries);
        if after == before {
            return Ok(None);
        }
        for e in &after {
            if e.work_context_id != self.work_context_id {
                return Err(Error::InvalidEntry(format!(
                    "entry {} belongs to work context {}, not {}",
                    e.entry_id, e.work_context_id, self.work_context_id
                )));
            }
        }
        let mut bytes = Vec::new();
        for e in &after {
            bytes.extend_from_slice(e.to_line()?.as_bytes());
            bytes.push(b'\n');
        }
        for line in &unreadable {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        fs::create_dir_all(backup_dir).map_err(|e| Error::io(backup_dir, e))?;
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
        let backup = backup_dir.join(format!("{}.{stamp}.jsonl", self.work_context_id.as_str()));
        if self.path.exists() {
            fs::copy(&self.path, &backup).map_err(|e| Error::io(&backup, e))?;
            File::open(&backup)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io(&backup, e))?;
            sync_dir(backup_dir)?;
        } else {
            atomic_write(&backup, b"")?;
        }
        atomic_write(&self.path, &bytes)?;
        Ok(Some(backup))
    }

    /// Adds entries that arrived from another device (sync): the log becomes the union of what
    /// it held and `arriving`, one entry per id, ordered by when the work happened then by id,
    /// so two devices that hold the same entries hold the same bytes. Written whole and renamed
    /// into place: a crash leaves the old log or the new one. Nothing is taken out, so no backup
    /// is kept. Returns how many entries were new.
    pub(crate) fn merge_in(&self, arriving: Vec<ContinuityEntry>) -> Result<usize> {
        let _lock = self.lock()?;
        self.repair_locked()?;
        let (read, unreadable) = self.read_keeping_unreadable_locked()?;
        let mut ids: std::collections::HashSet<String> = read
            .entries
            .iter()
            .map(|e| e.entry_id.to_string())
            .collect();
        let mut all = read.entries;
        let before = all.len();
        for mut e in arriving {
            if ids.insert(e.entry_id.to_string()) {
                e.work_context_id = self.work_context_id.clone();
                all.push(e);
            }
        }
        let added = all.len() - before;
        if added == 0 {
            return Ok(0);
        }
        let key = |e: &ContinuityEntry| (e.happened_at(), e.entry_id.to_string());
        all[before..].sort_by_key(key);
        // What arrives is usually newer than everything here (a day's work from another
        // device): when the log is in order and the arrivals all come after its last entry, the
        // sorted union is the log plus the arrivals, so they are appended, not the log rewritten.
        // A crash mid-append leaves a torn tail the next read repairs; the arrivals are marked
        // received only after this returns, so the next sync brings the rest.
        let in_order = all[..before].windows(2).all(|w| key(&w[0]) <= key(&w[1]));
        let after_last = before == 0 || key(&all[before - 1]) <= key(&all[before]);
        if in_order && after_last && unreadable.is_empty() && self.path.exists() {
            let mut lines = Vec::new();
            for e in &all[before..] {
                lines.extend_from_slice(e.to_line()?.as_bytes());
                lines.push(b'\n');
            }
            let mut file = OpenOptions::new()
                .append(true)
                .open(&self.path)
                .map_err(|e| Error::io(&self.path, e))?;
            file.write_all(&lines)
                .map_err(|e| Error::io(&self.path, e))?;
            file.sync_data().map_err(|e| Error::io(&self.path, e))?;
            return Ok(added);
        }
        all.sort_by_key(key);
        let mut bytes = Vec::new();
        for e in &all {
            bytes.extend_from_slice(e.to_line()?.as_bytes());
            bytes.push(b'\n');
        }
        for line in &unreadable {
            bytes.extend_from_slice(line);
            bytes.push(b'\n');
        }
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        atomic_write(&self.path, &bytes)?;
        Ok(added)
    }

    /// Reads every entry, and keeps the lines that are not entries as they were, for a rewrite
    /// to put back at the end: they are for a person to inspect. The caller holds the lock.
    fn read_keeping_unreadable_locked(&self) -> Result<(LogRead, Vec<Vec<u8>>)> {
        let mut unreadable: Vec<Vec<u8>> = Vec::new();
        let read = self.read_locked(|_, bytes| {
            if !bytes.iter().all(u8::is_ascii_whitespace)
                && ContinuityEntry::from_line(bytes).is_err()
            {
                unreadable.push(bytes.to_vec());
            }
        })?;
        Ok((read, unreadable))
    }

    /// Reads every entry, skipping and counting lines that are not valid entries.
    pub fn read(&self) -> Result<LogRead> {
        let _lock = self.lock()?;
        let repair = self.repair_locked()?;
        let mut read = self.read_locked(|_, _| {})?;
        read.repair = repair;
        Ok(read)
    }

    /// Reads the entries appended since `mark` was taken, and a mark for the next call. A log
    /// that is not the file `mark` was taken on (an eviction or a merge rewrote it), or no longer
    /// holds the bytes it ended with there, is read whole, and `restarted` says so: a caller
    /// keeping something derived from earlier reads must then start it again. A default mark
    /// reads the whole log.
    pub fn read_since(&self, mark: &LogMark) -> Result<SinceMark> {
        let _lock = self.lock()?;
        let repair = self.repair_locked()?;
        let io = |e| Error::io(&self.path, e);
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(SinceMark {
                    read: LogRead {
                        repair,
                        ..LogRead::default()
                    },
                    mark: LogMark::default(),
                    restarted: mark.offset > 0,
                });
            }
            Err(e) => return Err(io(e)),
        };
        let meta = file.metadata().map_err(io)?;
        let len = meta.len();
        let identity = file_identity(&meta);
        // After the repair above the log ends with a whole line, so everything up to `len` is
        // whole lines and the next read starts there.
        let continues = mark.offset > 0
            && identity.is_some()
            && identity == mark.identity
            && len >= mark.offset
            && ending_at(&mut file, mark.offset).map_err(io)? == mark.ending;
        let from = if continues { mark.offset } else { 0 };
        file.seek(SeekFrom::Start(from)).map_err(io)?;
        let mut read = read_lines(BufReader::new(&mut file), |_, _| {}).map_err(io)?;
        read.repair = repair;
        Ok(SinceMark {
            read,
            mark: LogMark {
                identity,
                offset: len,
                ending: ending_at(&mut file, len).map_err(io)?,
            },
            restarted: !continues && mark.offset > 0,
        })
    }

    /// Reads the last `n` entries.
    pub fn tail(&self, n: usize) -> Result<LogRead> {
        let mut read = self.read()?;
        let drop = read.entries.len().saturating_sub(n);
        read.entries.drain(..drop);
        Ok(read)
    }

    /// Reads the file, calling `raw(line_no, bytes)` for every line that fits the size bound.
    fn read_locked(&self, raw: impl FnMut(usize, &[u8])) -> Result<LogRead> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(LogRead::default()),
            Err(e) => return Err(Error::io(&self.path, e)),
        };
        read_lines(BufReader::new(file), raw).map_err(|e| Error::io(&self.path, e))
    }

    /// Keeps only the newest `cap` valid entries. Lines that are not valid entries are kept as
    /// they are: eviction is for entries, and unreadable lines stay for a person to inspect.
    fn evict_locked(&self, cap: usize) -> Result<()> {
        let mut lines: Vec<(Vec<u8>, bool)> = Vec::new();
        self.read_locked(|_, bytes| {
            let valid = ContinuityEntry::from_line(bytes).is_ok();
            lines.push((bytes.to_vec(), valid));
        })?;
        let valid = lines.iter().filter(|(_, v)| *v).count();
        if valid <= cap {
            return Ok(());
        }
        let mut to_evict = valid - cap;
        let mut kept = Vec::new();
        for (bytes, is_valid) in lines {
            if is_valid && to_evict > 0 {
                to_evict -= 1;
                continue;
            }
            kept.extend_from_slice(&bytes);
            kept.push(b'\n');
        }
        atomic_write(&self.path, &kept)
    }
}

/// Finds where the torn tail starts: the offset just past the last `\n`, or `None` when the file
/// ends with a newline.
fn tail_start(file: &mut File, len: u64) -> std::io::Result<Option<u64>> {
    let mut end = len;
    let mut buf = vec![0u8; 8192];
    let mut first = true;
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if first {
            if chunk.last() == Some(&b'\n') {
                return Ok(None);
            }
            first = false;
        }
        if let Some(pos) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(start + pos as u64 + 1));
        }
        end = start;
    }
    Ok(Some(0))
}

/// Reads a log's lines from `reader`: the entries, and every line that is not one (too long, or
/// not a valid entry) as a skipped line; blank lines are neither. `raw(line_no, bytes)` sees
/// every line that fits the size bound. Separate from the file so the fuzz target reads exactly
/// as [`ContinuityLog::read`] does.
pub(crate) fn read_lines(
    reader: impl BufRead,
    mut raw: impl FnMut(usize, &[u8]),
) -> std::io::Result<LogRead> {
    let mut out = LogRead::default();
    for_each_line(reader, |line_no, line| match line {
        Line::TooLong(len) => out.skipped.push(SkippedLine {
            line: line_no,
            reason: format!("line of {len} bytes exceeds the {MAX_LINE_BYTES}-byte limit"),
        }),
        Line::Bytes(bytes) => {
            raw(line_no, bytes);
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            match ContinuityEntry::from_line(bytes) {
                Ok(entry) => out.entries.push(entry),
                Err(reason) => out.skipped.push(SkippedLine {
                    line: line_no,
                    reason,
                }),
            }
        }
    })?;
    Ok(out)
}

enum Line<'a> {
    Bytes(&'a [u8]),
    TooLong(usize),
}

/// Calls `f` with each line (without its `\n`), never buffering more than [`MAX_LINE_BYTES`].
fn for_each_line(
    mut reader: impl BufRead,
    mut f: impl FnMut(usize, Line<'_>),
) -> std::io::Result<()> {
    let mut line_no = 0;
    let mut buf: Vec<u8> = Vec::new();
    let mut overflow: Option<usize> = None;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            if overflow.is_some() || !buf.is_empty() {
                line_no += 1;
                match overflow {
                    Some(len) => f(line_no, Line::TooLong(len)),
                    None => f(line_no, Line::Bytes(&buf)),
                }
            }
            return Ok(());
        }
        let (piece, consumed, ends_line) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        match overflow.as_mut() {
            Some(len) => *len += piece.len(),
            None if buf.len() + piece.len() > MAX_LINE_BYTES => {
                overflow = Some(buf.len() + piece.len());
                buf.clear();
            }
            None => buf.extend_from_slice(piece),
        }
        reader.consume(consumed);
        if ends_line {
            line_no += 1;
            match overflow.take() {
                Some(len) => f(line_no, Line::TooLong(len)),
                None => f(line_no, Line::Bytes(&buf)),
            }
            buf.clear();
        }
    }
}
