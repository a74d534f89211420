//! Incremental ingest of harness transcripts into the store's `turns` table.
//!
//! Every record is stored once, immutable, under a stable turn id (`INSERT OR IGNORE`), so a
//! re-read can never duplicate anything. Per source the store remembers where it stopped:
//!
//! - a JSONL file: its size, mtime, the byte offset after the last complete line, and a hash of
//!   its first bytes. Unchanged size and mtime cost one `stat`; a grown file is read from the
//!   offset; a file that shrank below the offset or whose head changed was truncated or replaced,
//!   and is read again from the start (ids make that safe).
//! - an OpenClaw SQLite store: the last `seq` read per session; the database is opened read-only
//!   and read inside one transaction, a consistent snapshot that the live writer cannot disturb.
//!
//! Malformed records, invalid UTF-8 and records over [`MAX_RECORD_BYTES`] are counted per file and
//! reported; everything valid around them is kept. Every record read is also counted in the
//! file's census (`ingest_record_types`) by type and by what it became: a turn, a record skipped
//! on purpose, or one not understood. A file read by an older [`PARSER_VERSION`] that left
//! records not understood is read again from its start, so a format learned since turns them
//! into turns without duplicating anything. A trailing line without its newline is taken
//! only when it is complete JSON, otherwise left for the next run (the writer may be mid-line).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{AgentId, SessionId};
use crate::graph::contexts::ProjectsReport;
use crate::graph::store::Store;
use crate::inputs::transcripts::{
    Disposition, Harness, LineParser, ParserState, Record, Turn, TurnKind,
};

/// Records longer than this are skipped and counted (Codex tool outputs can be large; nothing
/// real comes near this).
pub const MAX_RECORD_BYTES: usize = 8 << 20;

/// The version of the formats' reading. Bump it when a parser learns a record type it used to
/// keep raw as not understood: files whose census holds such records are read again.
pub const PARSER_VERSION: i64 = 1;

/// Bytes hashed to recognise a file that was replaced rather than appended to.
const HEAD_BYTES: u64 = 4096;

/// A transcript root to ingest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceRoot {
    pub harness: Harness,
    pub root: PathBuf,
}

/// How a source file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Jsonl,
    OpenClawDb,
}

/// One file found under a root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceFile {
    pub harness: Harness,
    pub path: PathBuf,
    pub kind: SourceKind,
    pub size: u64,
}

/// Something wrong with one file, counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileProblem {
    pub path: String,
    pub problem: String,
    pub count: u64,
    /// Byte offset (JSONL) or `seq` (SQLite) of the first occurrence.
    pub first_at: Option<u64>,
}

/// What an ingest run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IngestReport {
    pub files_seen: u64,
    pub files_unchanged: u64,
    pub files_read: u64,
    pub files_replaced: u64,
    pub records_added: u64,
    pub turns_added: u64,
    pub duplicates_ignored: u64,
    pub bytes_read: u64,
    pub sessions_touched: u64,
    pub malformed: u64,
    pub invalid_utf8: u64,
    pub oversized: u64,
    pub unknown_records: u64,
    /// Lines that held several JSON records back to back (a writer that lost a newline), split
    /// and stored as separate records.
    pub repaired: u64,
    /// Work contexts made for projects found in this run (see [`crate::graph::contexts::ensure_projects`]).
    pub projects_created: u64,
    pub problems: Vec<FileProblem>,
    /// Sessions that received records, for the passes that run after ingest.
    #[serde(skip)]
    pub(crate) touched: std::collections::BTreeSet<String>,
}

/// Progress of a run, for progress bars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct IngestProgress {
    pub files_done: u64,
    pub files_total: u64,
    pub records: u64,
    pub bytes: u64,
}

/// Finds the transcript files under a root. Symbolic links are never followed (a link inside a
/// root could point anywhere), and each one met is reported.
pub fn discover(source: &SourceRoot) -> (Vec<SourceFile>, Vec<FileProblem>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    if !source.root.is_dir() {
        return (files, problems);
    }
    for entry in walkdir::WalkDir::new(&source.root).follow_links(false) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                problems.push(FileProblem {
                    path: e
                        .path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default(),
                    problem: format!("cannot read: {e}"),
                    count: 1,
                    first_at: None,
                });
                continue;
            }
        };
        if entry.path_is_symlink() {
            problems.push(FileProblem {
                path: entry.path().display().to_string(),
                problem: "symbolic link not followed".into(),
                count: 1,
                first_at: None,
            });
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let kind = match source.harness {
            Harness::OpenClaw if name == "openclaw-agent.sqlite" => Some(SourceKind::OpenClawDb),
            // `.checkpoint.` copies repeat their session's records; `.jsonl.reset.<time>` archives
            // hold history from before a reset that may never have been ingested live.
            Harness::OpenClaw
                if (name.ends_with(".jsonl") || name.contains(".jsonl.reset."))
                    && !name.contains(".checkpoint.") =>
            {
                Some(SourceKind::Jsonl)
            }
            Harness::ClaudeCode if name.ends_with(".jsonl") => Some(SourceKind::Jsonl),
            Harness::Codex if name.starts_with("rollout-") && name.ends_with(".jsonl") => {
                Some(SourceKind::Jsonl)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            files.push(SourceFile {
                harness: source.harness,
                path: entry.path().to_owned(),
                kind,
                size: entry.metadata().map(|m| m.len()).unwrap_or(0),
            });
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, problems)
}

/// Ingests every file under `roots` into the database behind `conn`.
pub(crate) fn ingest(
    conn: &mut Connection,
    db_path: &Path,
    roots: &[SourceRoot],
    progress: &mut dyn FnMut(&IngestProgress),
) -> Result<IngestReport> {
    let mut report = IngestReport::default();
    let mut files = Vec::new();
    for root in roots {
        let (found, problems) = discover(root);
        files.extend(found);
        report.problems.extend(problems);
    }
    let mut p = IngestProgress {
        files_total: files.len() as u64,
        ..Default::default()
    };
    progress(&p);
    let started = Instant::now();
    for file in &files {
        report.files_seen += 1;
        let before = (
            report.records_added + report.duplicates_ignored,
            report.bytes_read,
        );
        let result = match file.kind {
            SourceKind::Jsonl => ingest_jsonl(conn, db_path, file, &mut report),
            SourceKind::OpenClawDb => ingest_openclaw_db(conn, db_path, file, &mut report),
        };
        if let Err(e) = result {
            // One unreadable file must not stop the rest; its error is reported with it.
            match e {
                Error::Sqlite { ref path, .. } if path == db_path => return Err(e),
                other => report.problems.push(FileProblem {
                    path: file.path.display().to_string(),
                    problem: other.to_string(),
                    count: 1,
                    first_at: None,
                }),
            }
        }
        p.files_done += 1;
        p.records += report.records_added + report.duplicates_ignored - before.0;
        p.bytes += report.bytes_read - before.1;
        progress(&p);
    }
    kinds::classify_touched(conn, &report.touched)
        .and_then(|()| kinds::title_touched(conn, &report.touched))
        .map_err(|source| Error::Sqlite {
            path: db_path.to_owned(),
            source,
        })?;
    tracing::info!(
        files = report.files_seen,
        records = report.records_added,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "ingest finished"
    );
    Ok(report)
}

/// Splits a line holding several JSON objects back to back (`{…}{…}`) into them, with each
/// one's byte offset in the line. `None` unless the whole line is two or more objects.
pub(crate) fn split_joined(line: &str) -> Option<Vec<(usize, &str)>> {
    let mut parts = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(line).into_iter::<serde::de::IgnoredAny>();
    let mut start = 0;
    while let Some(item) = stream.next() {
        item.ok()?;
        let end = stream.byte_offset();
        let part = &line[start..end];
        let lead = part.len() - part.trim_start().len();
        if !part.trim_start().starts_with('{') {
            return None;
        }
        parts.push((start + lead, part.trim()));
        start = end;
    }
    (parts.len() >= 2 && line[start..].trim().is_empty()).then_some(parts)
}

/// Where a JSONL file was left.
struct FileState {
    size: u64,
    mtime_ns: i64,
    offset: u64,
    head_len: u64,
    head_hash: String,
    last_seq: Option<i64>,
    parser_state: ParserState,
    parser_version: i64,
    /// Records of the file not understood when it was last read.
    unknown: i64,
}

fn load_state(conn: &Connection, key: &str) -> rusqlite::Result<Option<FileState>> {
    conn.query_row(
        "SELECT size, mtime_ns, offset, head_len, head_hash, last_seq, parser_state,
                parser_version, unknown
         FROM ingest_files WHERE source_key = ?1",
        [key],
        |row| {
            let parser_state: String = row.get(6)?;
            Ok(FileState {
                size: row.get::<_, i64>(0)? as u64,
                mtime_ns: row.get(1)?,
                offset: row.get::<_, i64>(2)? as u64,
                head_len: row.get::<_, i64>(3)? as u64,
                head_hash: row.get(4)?,
                last_seq: row.get(5)?,
                parser_state: serde_json::from_str(&parser_state).unwrap_or_default(),
                parser_version: row.get(7)?,
                unknown: row.get(8)?,
            })
        },
    )
    .optional()
}

/// Whether a record's session and agent ids are ones the rest of the engine can carry (not
/// empty, at most 120 bytes, no control characters). A record whose ids are not is malformed:
/// counted, never stored, so every id read back from the store is a valid one.
pub(crate) fn ids_valid(turn: &Turn) -> bool {
    SessionId::new(turn.session_id.as_str()).is_ok()
        && turn
            .agent_id
            .as_deref()
            .is_none_or(|a| AgentId::new(a).is_ok())
}

/// Counts of one file's problems in one run.
#[derive(Default)]
struct Problems {
    malformed: (u64, Option<u64>),
    invalid_utf8: (u64, Option<u64>),
    oversized: (u64, Option<u64>),
    unknown: (u64, Option<u64>),
    repaired: (u64, Option<u64>),
    /// Every record read, by what it became and its type: the count and the first one's place.
    /// Keyed by disposition first so a record's type is looked up as `&str`, with no allocation
    /// per record on the hot path.
    census: std::collections::BTreeMap<Disposition, HashMap<String, (u64, u64)>>,
}

impl Problems {
    fn note(slot: &mut (u64, Option<u64>), at: u64) {
        slot.0 += 1;
        slot.1.get_or_insert(at);
    }

    /// Counts a parsed record in the file's census.
    fn count(&mut self, turn: &Turn, at: u64) {
        let by_type = self.census.entry(turn.kind.disposition()).or_default();
        match by_type.get_mut(turn.record_type.as_str()) {
            Some(slot) => slot.0 += 1,
            None => {
                by_type.insert(turn.record_type.clone(), (1, at));
            }
        }
    }

    fn report(&self, path: &Path, report: &mut IngestReport) {
        report.malformed += self.malformed.0;
        report.invalid_utf8 += self.invalid_utf8.0;
        report.oversized += self.oversized.0;
        report.unknown_records += self.unknown.0;
        report.repaired += self.repaired.0;
        for (what, (count, first)) in [
            ("malformed records (not JSON objects)", self.malformed),
            ("records with invalid UTF-8", self.invalid_utf8),
            ("records over the size limit", self.oversized),
            ("records of unknown type (kept raw)", self.unknown),
            (
                "lines holding several records back to back (split, none lost)",
                self.repaired,
            ),
        ] {
            if count > 0 {
                report.problems.push(FileProblem {
                    path: path.display().to_string(),
                    problem: what.to_owned(),
                    count,
                    first_at: first,
                });
            }
        }
    }
}

/// Session counters gathered while inserting, merged into `transcript_sessions` at the end.
#[derive(Default)]
struct SessionDelta {
    records: i64,
    turns: i64,
    compactions: i64,
    first: Option<DateTime<Utc>>,
    last: Option<DateTime<Utc>>,
}

/// Inserts records for one source inside one transaction.
struct Writer<'a> {
    tx: rusqlite::Transaction<'a>,
    source_path: String,
    deltas: HashMap<String, SessionDelta>,
    /// Reading a file again after [`PARSER_VERSION`] rose: a record stored raw as not understood
    /// is replaced by its new reading.
    upgrade: bool,
    /// Reading from the file's start: its census and counts are replaced, not added to.
    from_start: bool,
}

/// Where a source was left: the file fields for JSONL, `last_seq` for an SQLite session.
#[derive(Default)]
struct Position {
    size: u64,
    mtime_ns: i64,
    offset: u64,
    head_len: u64,
    head_hash: String,
    last_seq: Option<i64>,
}

impl Writer<'_> {
    /// Parses one raw record and stores it, counting what cannot be stored.
    fn take(
        &mut self,
        parser: &mut LineParser,
        raw: &str,
        at: u64,
        problems: &mut Problems,
        report: &mut IngestReport,
    ) -> rusqlite::Result<()> {
        match parser.parse(raw) {
            Record::Malformed(_) => match split_joined(raw) {
                // A writer that lost a newline joins two records on one line; each is stored
                // at its own byte offset so both keep stable ids.
                Some(parts) => {
                    Problems::note(&mut problems.repaired, at);
                    for (within, part) in parts {
                        match parser.parse(part) {
                            Record::Malformed(_) => {
                                Problems::note(&mut problems.malformed, at + within as u64)
                            }
                            Record::Turn(turn) => {
                                if !ids_valid(&turn) {
                                    Problems::note(&mut problems.malformed, at + within as u64);
                                    continue;
                                }
                                if turn.kind == TurnKind::Unknown {
                                    Problems::note(&mut problems.unknown, at + within as u64);
                                }
                                problems.count(&turn, at + within as u64);
                                self.insert(&turn, at + within as u64, report)?;
                            }
                        }
                    }
                    Ok(())
                }
                None => {
                    Problems::note(&mut problems.malformed, at);
                    Ok(())
                }
            },
            Record::Turn(turn) => {
                if !ids_valid(&turn) {
                    Problems::note(&mut problems.malformed, at);
                    return Ok(());
                }
                if turn.kind == TurnKind::Unknown {
                    Problems::note(&mut problems.unknown, at);
                }
                problems.count(&turn, at);
                self.insert(&turn, at, report)
            }
        }
    }

    fn insert(
        &mut self,
        turn: &Turn,
        offset: u64,
        report: &mut IngestReport,
    ) -> rusqlite::Result<()> {
        if self.upgrade && turn.kind != TurnKind::Unknown {
            self.replace_unread(turn)?;
        }
        let mut stmt = self.tx.prepare_cached(
            "INSERT OR IGNORE INTO turns (turn_id, session_id, harness, agent_id, role, kind,
                 record_type, text, tool_calls, timestamp, parent_turn_id, is_sidechain,
                 tokens_before, raw, source_path, source_offset)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?;
        let changed = stmt.execute(params![
            turn.turn_id,
            turn.session_id,
            turn.harness.as_str(),
            turn.agent_id,
            turn.role.as_str(),
            turn.kind.as_str(),
            turn.record_type,
            turn.text,
            serde_json::to_string(&turn.tool_calls).unwrap_or_else(|_| "[]".into()),
            turn.timestamp.map(format_ts),
            turn.parent_turn_id,
            turn.is_sidechain,
            turn.tokens_before.map(|t| t as i64),
            turn.raw,
            self.source_path,
            offset as i64,
        ])?;
        if changed == 0 {
            report.duplicates_ignored += 1;
            return Ok(());
        }
        report.records_added += 1;
        let delta = self.deltas.entry(turn.session_id.clone()).or_default();
        delta.records += 1;
        if turn.kind.is_conversation() {
            delta.turns += 1;
            report.turns_added += 1;
        }
        if turn.kind == TurnKind::Compaction {
            delta.compactions += 1;
        }
        if let Some(ts) = turn.timestamp {
            delta.first = Some(delta.first.map_or(ts, |f| f.min(ts)));
            delta.last = Some(delta.last.map_or(ts, |l| l.max(ts)));
        }
        Ok(())
    }

    /// Takes out the raw, not-understood row a record was stored as by an older reading, so the
    /// insert that follows stores its new reading at the end of `seq` (capture and search follow
    /// `seq`, and would never look back at a row changed in place).
    fn replace_unread(&mut self, turn: &Turn) -> rusqlite::Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "DELETE FROM turns WHERE turn_id = ?1 AND kind = 'unknown' RETURNING session_id",
        )?;
        let gone: Option<String> = stmt.query_row([&turn.turn_id], |r| r.get(0)).optional()?;
        if let Some(session) = gone {
            // The insert counts the record again; its session keeps one.
            self.deltas.entry(session).or_default().records -= 1;
        }
        Ok(())
    }

    /// Writes the file's census: replaced when the file was read from its start, else added to.
    fn write_census(&self, problems: &Problems) -> rusqlite::Result<()> {
        if self.from_start {
            self.tx.execute(
                "DELETE FROM ingest_record_types WHERE source_path = ?1",
                [&self.source_path],
            )?;
        }
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO ingest_record_types (source_path, record_type, disposition, count, first_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (source_path, record_type, disposition) DO UPDATE SET
                 count = count + excluded.count,
                 first_at = min(coalesce(first_at, excluded.first_at), excluded.first_at)",
        )?;
        for (disposition, by_type) in &problems.census {
            for (record_type, (count, first)) in by_type {
                stmt.execute(params![
                    self.source_path,
                    record_type,
                    disposition.as_str(),
                    *count as i64,
                    *first as i64,
                ])?;
            }
        }
        Ok(())
    }

    /// Merges the session counters, saves where the source was left (in the same transaction as
    /// the records, so a crash can never record an offset past unstored records), and commits.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        self,
        key: &str,
        harness: Harness,
        parser: &LineParser,
        position: &Position,
        problems: &Problems,
        replaced: bool,
        report: &mut IngestReport,
    ) -> rusqlite::Result<()> {
        let state = parser.state();
        for (session, d) in &self.deltas {
            // Only the file's own session takes the file's identity; subagent parents and the
            // like are named by their own files.
            let own = state.session_id.as_deref() == Some(session.as_str());
            self.tx.execute(
                "INSERT INTO transcript_sessions (session_id, harness, agent_id, parent_session_id,
                     source_path, cwd, title, started_at, last_turn_at, turn_count, record_count,
                     compaction_count, git_branch, git_repo)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT (session_id) DO UPDATE SET
                     turn_count = turn_count + excluded.turn_count,
                     record_count = record_count + excluded.record_count,
                     compaction_count = compaction_count + excluded.compaction_count,
                     started_at = CASE WHEN started_at IS NULL OR excluded.started_at < started_at
                                  THEN excluded.started_at ELSE started_at END,
                     last_turn_at = CASE WHEN last_turn_at IS NULL OR excluded.last_turn_at > last_turn_at
                                    THEN excluded.last_turn_at ELSE last_turn_at END,
                     agent_id = coalesce(agent_id, excluded.agent_id),
                     parent_session_id = coalesce(parent_session_id, excluded.parent_session_id),
                     cwd = coalesce(cwd, excluded.cwd),
                     title = coalesce(excluded.title, title),
                     git_branch = coalesce(excluded.git_branch, git_branch),
                     git_repo = coalesce(excluded.git_repo, git_repo)",
                params![
                    session,
                    harness.as_str(),
                    state.agent_id,
                    // A parent id that is not a valid session id links nowhere: left out.
                    own.then_some(state.parent_session_id.clone())
                        .flatten()
                        .filter(|p| SessionId::new(p.as_str()).is_ok()),
                    self.source_path,
                    own.then_some(state.cwd.clone()).flatten(),
                    own.then_some(state.title.clone()).flatten(),
                    d.first.map(format_ts),
                    d.last.map(format_ts),
                    d.turns,
                    d.records,
                    d.compactions,
                    own.then_some(state.git.git_branch.clone()).flatten(),
                    own.then_some(state.git.git_repo.clone()).flatten(),
                ],
            )?;
        }
        report.sessions_touched += self.deltas.len() as u64;
        report.touched.extend(self.deltas.keys().cloned());
        self.write_census(problems)?;
        self.tx.execute(
            "INSERT INTO ingest_files (source_key, harness, size, mtime_ns, offset, head_len,
                 head_hash, last_seq, parser_state, malformed, invalid_utf8, oversized, unknown,
                 replaced_count, updated_at, parser_version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
             ON CONFLICT (source_key) DO UPDATE SET
                 size = excluded.size, mtime_ns = excluded.mtime_ns, offset = excluded.offset,
                 head_len = excluded.head_len, head_hash = excluded.head_hash,
                 last_seq = excluded.last_seq, parser_state = excluded.parser_state,
                 malformed = malformed + excluded.malformed,
                 invalid_utf8 = invalid_utf8 + excluded.invalid_utf8,
                 oversized = oversized + excluded.oversized,
                 -- Read from its start, a file's records not understood are what this reading
                 -- found, not added to what an older one did.
                 unknown = CASE WHEN ?17 THEN excluded.unknown ELSE unknown + excluded.unknown END,
                 replaced_count = replaced_count + excluded.replaced_count,
                 updated_at = excluded.updated_at,
                 parser_version = excluded.parser_version",
            params![
                key,
                harness.as_str(),
                position.size as i64,
                position.mtime_ns,
                position.offset as i64,
                position.head_len as i64,
                position.head_hash,
                position.last_seq,
                serde_json::to_string(state).unwrap_or_else(|_| "{}".into()),
                problems.malformed.0 as i64,
                problems.invalid_utf8.0 as i64,
                problems.oversized.0 as i64,
                problems.unknown.0 as i64,
                i64::from(replaced),
                format_ts(crate::base::clock::now()),
                PARSER_VERSION,
                self.from_start,
            ],
        )?;
        self.tx.commit()
    }
}

/// Timestamps are stored in one fixed format so they compare as text.
pub(crate) fn format_ts(ts: DateTime<Utc>) -> String {
    ts.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn hash_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_head(file: &mut File, len: u64) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(len as usize);
    file.seek(SeekFrom::Start(0))?;
    file.take(len).read_to_end(&mut head)?;
    Ok(head)
}

fn ingest_jsonl(
    conn: &mut Connection,
    db_path: &Path,
    file: &SourceFile,
    report: &mut IngestReport,
) -> Result<()> {
    let path = &file.path;
    let key = path.display().to_string();
    let io = |e| Error::io(path, e);
    let sql = |source| Error::Sqlite {
        path: db_path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let (size, mtime) = (meta.len(), mtime_ns(&meta));
    let state = load_state(conn, &key).map_err(sql)?;
    // Read by an older reading that did not understand some of its records: read it all again.
    let upgrade = state
        .as_ref()
        .is_some_and(|s| s.parser_version < PARSER_VERSION && s.unknown > 0);
    if !upgrade
        && let Some(s) = &state
        && s.size == size
        && s.mtime_ns == mtime
        && s.offset == size
    {
        report.files_unchanged += 1;
        return Ok(());
    }
    let mut f = File::open(path).map_err(io)?;
    let (mut offset, parser_state, replaced) = match state {
        Some(s) => {
            let head = read_head(&mut f, s.head_len).map_err(io)?;
            // An appended-to file still has its old head, and a line ends right before the
            // offset; a rewritten file whose head happens to match fails the second check.
            let boundary_ok = s.offset == 0 || {
                let mut byte = [0u8; 1];
                f.seek(SeekFrom::Start(s.offset - 1))
                    .and_then(|_| f.read_exact(&mut byte))
                    .is_ok_and(|_| byte[0] == b'\n')
            };
            if size < s.offset || hash_hex(&head) != s.head_hash || !boundary_ok {
                (0, ParserState::default(), true)
            } else if upgrade {
                (0, ParserState::default(), false)
            } else {
                (s.offset, s.parser_state, false)
            }
        }
        None => (0, ParserState::default(), false),
    };
    if replaced {
        report.files_replaced += 1;
        tracing::info!(file = %path.display(), "transcript was truncated or replaced; reading again");
    }
    report.files_read += 1;
    let mut parser = LineParser::new(file.harness, path, parser_state);
    if offset == 0 {
        let head = read_head(&mut f, 256 << 10).map_err(io)?;
        parser.prime(
            head.split(|b| *b == b'\n')
                .filter_map(|l| std::str::from_utf8(l).ok()),
        );
    }
    f.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut reader = BufReader::with_capacity(256 << 10, f);
    let mut problems = Problems::default();
    let mut writer = Writer {
        tx: conn.transaction().map_err(sql)?,
        source_path: key.clone(),
        deltas: HashMap::new(),
        upgrade,
        from_start: offset == 0,
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        let at = offset;
        let (read, complete, oversized) = read_record(&mut reader, &mut line).map_err(io)?;
        if read == 0 {
            break;
        }
        if !complete {
            // The writer may still be finishing this line: take it only if it is whole JSON.
            let whole = std::str::from_utf8(&line)
                .ok()
                .is_some_and(|t| serde_json::from_str::<serde_json::Value>(t).is_ok());
            if !whole {
                break;
            }
        }
        offset += read;
        report.bytes_read += read;
        if oversized {
            Problems::note(&mut problems.oversized, at);
            continue;
        }
        let text = match std::str::from_utf8(trim_cr(&line)) {
            Ok(t) if t.trim().is_empty() => continue,
            Ok(t) => t,
            Err(_) => {
                Problems::note(&mut problems.invalid_utf8, at);
                continue;
            }
        };
        writer
            .take(&mut parser, text, at, &mut problems, report)
            .map_err(sql)?;
    }
    let head_len = size.min(HEAD_BYTES).min(offset.max(1));
    let head = {
        let mut f = File::open(path).map_err(io)?;
        read_head(&mut f, head_len).map_err(io)?
    };
    let position = Position {
        // With a partial last line left unread, offset < size and the next run looks again.
        size,
        mtime_ns: mtime,
        offset,
        head_hash: hash_hex(&head),
        head_len: head.len() as u64,
        last_seq: None,
    };
    writer
        .finish(
            &key,
            file.harness,
            &parser,
            &position,
            &problems,
            replaced,
            report,
        )
        .map_err(sql)?;
    problems.report(path, report);
    Ok(())
}

/// Reads one record into `buf` (without its newline). Returns the bytes consumed, whether a
/// newline ended it, and whether it was over [`MAX_RECORD_BYTES`] (then `buf` holds nothing).
fn read_record(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<(u64, bool, bool)> {
    let mut consumed = 0u64;
    let mut oversized = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok((consumed, false, oversized));
        }
        let (piece, used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if !oversized {
            if buf.len() + piece.len() > MAX_RECORD_BYTES {
                oversized = true;
                buf.clear();
            } else {
                buf.extend_from_slice(piece);
            }
        }
        reader.consume(used);
        consumed += used as u64;
        if done {
            return Ok((consumed, true, oversized));
        }
    }
}

pub(crate) fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn ingest_openclaw_db(
    conn: &mut Connection,
    db_path: &Path,
    file: &SourceFile,
    report: &mut IngestReport,
) -> Result<()> {
    let path = &file.path;
    let theirs = |source| Error::Sqlite {
        path: path.to_owned(),
        source,
    };
    let ours = |source| Error::Sqlite {
        path: db_path.to_owned(),
        source,
    };
    // Read-only, and never created: a missing or foreign file is an error, not a new database.
    let mut source = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(theirs)?;
    source
        .busy_timeout(crate::graph::BUSY_TIMEOUT)
        .map_err(theirs)?;
    // One read transaction: a consistent snapshot while the agent keeps writing.
    let snapshot = source.transaction().map_err(theirs)?;
    let windows: Vec<(String, i64)> = {
        let mut stmt = snapshot
            .prepare(
                "SELECT w.session_id,
                        (SELECT max(seq) FROM transcript_events e WHERE e.session_id = w.session_id)
                 FROM session_windows w ORDER BY w.created_at, w.session_id",
            )
            .map_err(theirs)?;
        stmt.query_map([], |row| {
            Ok((row.get(0)?, row.get::<_, Option<i64>>(1)?.unwrap_or(-1)))
        })
        .map_err(theirs)?
        .collect::<rusqlite::Result<_>>()
        .map_err(theirs)?
    };
    // Databases written before compressed events have no `event_zstd` column.
    let compressed = snapshot
        .prepare("SELECT 1 FROM pragma_table_info('transcript_events') WHERE name = 'event_zstd'")
        .and_then(|mut s| s.exists([]))
        .map_err(theirs)?;
    let mut read_any = false;
    for (session, max_seq) in windows {
        let key = format!("{}#{session}", path.display());
        let state = load_state(conn, &key).map_err(ours)?;
        let last_seq = state.as_ref().and_then(|s| s.last_seq).unwrap_or(-1);
        if max_seq <= last_seq {
            continue;
        }
        read_any = true;
        let mut parser_state = state.map(|s| s.parser_state).unwrap_or_default();
        parser_state
            .session_id
            .get_or_insert_with(|| session.clone());
        let mut parser = LineParser::new(file.harness, path, parser_state);
        let mut problems = Problems::default();
        // Census rows are per file, and each of a store's sessions is read on its own: added to.
        let mut writer = Writer {
            tx: conn.transaction().map_err(ours)?,
            source_path: path.display().to_string(),
            deltas: HashMap::new(),
            upgrade: false,
            from_start: false,
        };
        let mut seen = last_seq;
        {
            let mut stmt = snapshot
                .prepare(if compressed {
                    "SELECT seq, event_json, event_zstd FROM transcript_events
                     WHERE session_id = ?1 AND seq > ?2 ORDER BY seq"
                } else {
                    "SELECT seq, event_json, NULL FROM transcript_events
                     WHERE session_id = ?1 AND seq > ?2 ORDER BY seq"
                })
                .map_err(theirs)?;
            let mut rows = stmt.query(params![session, last_seq]).map_err(theirs)?;
            while let Some(row) = rows.next().map_err(theirs)? {
                let seq: i64 = row.get(0).map_err(theirs)?;
                seen = seq;
                let at = seq.max(0) as u64;
                let text = match (
                    row.get_ref(1).map_err(theirs)?,
                    row.get_ref(2).map_err(theirs)?,
                ) {
                    (rusqlite::types::ValueRef::Text(bytes), _) => {
                        report.bytes_read += bytes.len() as u64;
                        match std::str::from_utf8(bytes) {
                            Ok(t) => t.to_owned(),
                            Err(_) => {
                                Problems::note(&mut problems.invalid_utf8, at);
                                continue;
                            }
                        }
                    }
                    // Newer OpenClaw releases leave `event_json` NULL and keep the same JSON
                    // zstd-compressed in `event_zstd`.
                    (rusqlite::types::ValueRef::Null, rusqlite::types::ValueRef::Blob(packed)) => {
                        report.bytes_read += packed.len() as u64;
                        match unzstd(packed) {
                            Unpacked::Text(t) => t,
                            Unpacked::Oversized => {
                                Problems::note(&mut problems.oversized, at);
                                continue;
                            }
                            Unpacked::NotUtf8 => {
                                Problems::note(&mut problems.invalid_utf8, at);
                                continue;
                            }
                            Unpacked::Corrupt => {
                                Problems::note(&mut problems.malformed, at);
                                continue;
                            }
                        }
                    }
                    _ => {
                        Problems::note(&mut problems.malformed, at);
                        continue;
                    }
                };
                if text.len() > MAX_RECORD_BYTES {
                    Problems::note(&mut problems.oversized, at);
                    continue;
                }
                writer
                    .take(&mut parser, &text, at, &mut problems, report)
                    .map_err(ours)?;
            }
        }
        let position = Position {
            last_seq: Some(seen),
            ..Position::default()
        };
        writer
            .finish(
                &key,
                file.harness,
                &parser,
                &position,
                &problems,
                false,
                report,
            )
            .map_err(ours)?;
        problems.report(path, report);
    }
    if read_any {
        report.files_read += 1;
    } else {
        report.files_unchanged += 1;
    }
    Ok(())
}

/// One compressed OpenClaw event, unpacked.
enum Unpacked {
    Text(String),
    /// Larger than a record may be once unpacked (a bomb, or a record we skip anyway).
    Oversized,
    NotUtf8,
    Corrupt,
}

/// Unpacks a zstd frame, reading at most one byte past [`MAX_RECORD_BYTES`] so that a small
/// hostile frame cannot expand into gigabytes.
fn unzstd(packed: &[u8]) -> Unpacked {
    use std::io::Read;
    let mut input = packed;
    let Ok(decoder) = ruzstd::decoding::StreamingDecoder::new(&mut input) else {
        return Unpacked::Corrupt;
    };
    let mut out = Vec::new();
    if decoder
        .take(MAX_RECORD_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .is_err()
    {
        return Unpacked::Corrupt;
    }
    if out.len() > MAX_RECORD_BYTES {
        return Unpacked::Oversized;
    }
    match String::from_utf8(out) {
        Ok(t) => Unpacked::Text(t),
        Err(_) => Unpacked::NotUtf8,
    }
}

/// Ingests every transcript under `roots` into the store's graph, then gives new projects their
/// work contexts (see [`crate::graph::contexts::ensure_projects`]), so the first capture already lands
/// there. Runs on its own database connection, so the store stays responsive to other calls
/// meanwhile. The use case ([`crate::usecase::ingest`]) removes the views of contexts merged away.
pub(crate) fn ingest_store(
    store: &Store,
    roots: &[SourceRoot],
    progress: &mut dyn FnMut(&IngestProgress),
    now: DateTime<Utc>,
) -> Result<(IngestReport, ProjectsReport)> {
    let graph = store.graph();
    let mut conn = graph.open_connection()?;
    // Ingest copies what is still in the harness files: if power fails before the WAL reaches
    // the disk, the next run reads those records again. So the per-commit fsync that the
    // graph's own writes need is not needed here, and it would dominate small files.
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| graph.sql(e))?;
    let mut report = ingest(&mut conn, graph.path(), roots, progress)?;
    drop(conn);
    let projects = crate::graph::contexts::ensure_projects(store, &report.touched, now)?;
    report.projects_created = projects.created.len() as u64;
    Ok((report, projects))
}

pub mod kinds;

#[cfg(test)]
mod tests;
