//! The record census: what ingest made of every record of every transcript file, by type — a
//! turn, a record skipped on purpose, or one not understood — read back from
//! `ingest_record_types` (see `inputs/ingest.rs`). Health names the files that lost turns: a
//! file with records not understood and no turns at all (a format this build cannot read), or
//! with more than [`LOSS_PERCENT`] of its records not understood (a record type it does not know
//! yet). Records skipped on purpose never raise an alarm.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Serialize;

use crate::base::error::Result;
use crate::graph::store::Store;
use crate::inputs::transcripts::Disposition;

/// A file is a Health problem when more than this share of its records were not understood.
pub const LOSS_PERCENT: u64 = 5;

/// Records of one type in one file, or summed over a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeCount {
    pub record_type: String,
    pub count: u64,
    /// A file holding one of them, and the line it starts on (JSONL files that are still there);
    /// filled in for records not understood.
    pub sample_path: Option<String>,
    pub sample_line: Option<u64>,
}

/// One file's census.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileCensus {
    pub path: String,
    pub records: u64,
    pub turns: u64,
    pub skipped: Vec<TypeCount>,
    pub not_understood: Vec<TypeCount>,
}

impl FileCensus {
    /// Whether this file lost turns (see the module docs).
    pub fn lost_turns(&self) -> bool {
        let unread: u64 = self.not_understood.iter().map(|t| t.count).sum();
        unread > 0 && (self.turns == 0 || unread * 100 > self.records * LOSS_PERCENT)
    }
}

/// The census of every file whose path starts with `prefix` (all files for `""`), by path.
pub fn census(store: &Store, prefix: &str) -> Result<Vec<FileCensus>> {
    let like = format!("{}%", escape_like(prefix));
    let rows = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT source_path, record_type, disposition, count, first_at
             FROM ingest_record_types WHERE source_path LIKE ?1 ESCAPE '\\'
             ORDER BY source_path, disposition, count DESC, record_type",
        )?;
        stmt.query_map([like], row)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    Ok(fold(rows, true))
}

/// The files that lost turns: only those with a record not understood are looked at, through
/// the disposition index, so this stays cheap on a store of years of history. `with_lines`
/// reads each file up to its first such record to say its line (Health and `elnor doctor`);
/// Today, read on every visit, names the file without opening it.
pub fn files_that_lost_turns(store: &Store, with_lines: bool) -> Result<Vec<FileCensus>> {
    let rows = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT source_path, record_type, disposition, count, first_at
             FROM ingest_record_types WHERE source_path IN
                 (SELECT source_path FROM ingest_record_types WHERE disposition = 'not_understood')
             ORDER BY source_path, disposition, count DESC, record_type",
        )?;
        stmt.query_map([], row)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    Ok(fold(rows, with_lines)
        .into_iter()
        .filter(FileCensus::lost_turns)
        .collect())
}

/// One census row: path, type, disposition, count, where the first one starts.
type Row = (String, String, String, i64, Option<i64>);

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
}

fn fold(rows: Vec<Row>, with_lines: bool) -> Vec<FileCensus> {
    let mut files: BTreeMap<String, FileCensus> = BTreeMap::new();
    for (path, record_type, disposition, count, first_at) in rows {
        let count = count.max(0) as u64;
        let file = files.entry(path.clone()).or_insert_with(|| FileCensus {
            path: path.clone(),
            records: 0,
            turns: 0,
            skipped: Vec::new(),
            not_understood: Vec::new(),
        });
        file.records += count;
        let mut entry = TypeCount {
            record_type,
            count,
            sample_path: None,
            sample_line: None,
        };
        match Disposition::parse(&disposition) {
            Some(Disposition::Turn) => file.turns += count,
            Some(Disposition::Skipped) => file.skipped.push(entry),
            // A disposition this build does not know is not one it understood.
            Some(Disposition::NotUnderstood) | None => {
                entry.sample_line = first_at
                    .filter(|_| with_lines)
                    .and_then(|at| line_of(Path::new(&path), at));
                entry.sample_path = Some(path);
                file.not_understood.push(entry);
            }
        }
    }
    files.into_values().collect()
}

/// The census summed over files, by type: skipped and not understood, largest first; each type
/// not understood keeps the first file's sample.
pub fn by_type(files: &[FileCensus]) -> (Vec<TypeCount>, Vec<TypeCount>) {
    let sum = |pick: fn(&FileCensus) -> &Vec<TypeCount>| {
        let mut by: BTreeMap<String, TypeCount> = BTreeMap::new();
        for t in files.iter().flat_map(pick) {
            by.entry(t.record_type.clone())
                .and_modify(|s| s.count += t.count)
                .or_insert_with(|| t.clone());
        }
        let mut out: Vec<TypeCount> = by.into_values().collect();
        out.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.record_type.cmp(&b.record_type))
        });
        out
    };
    (sum(|f| &f.skipped), sum(|f| &f.not_understood))
}

/// The 1-based line a byte offset of a JSONL file falls on, when the file is still there and an
/// offset (not an OpenClaw store's `seq`) can be one.
fn line_of(path: &Path, offset: i64) -> Option<u64> {
    if path.extension().is_some_and(|e| e == "sqlite") || offset < 0 {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut reader = BufReader::new(file.take(offset as u64));
    let mut lines = 1u64;
    loop {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            return Some(lines);
        }
        lines += buf.iter().filter(|b| **b == b'\n').count() as u64;
        let n = buf.len();
        reader.consume(n);
    }
}

fn escape_like(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}
