//! Apply: the live store takes the replay's capture-made data, context by context.
//!
//! The continuity log has no way to retract an entry (it is append-only, and an entry's status
//! fields say nothing like "withdrawn"), so a context whose entries must go or change has its log
//! rewritten whole, after a copy of it is kept under `continuity/backup/`
//! ([`crate::continuity::ContinuityLog::rewrite`]). The rewrite works from the entries in the
//! log at that moment, by id: entries a capture appended since the comparison stay, entries a
//! decision of the person's rests on were never planned for removal (see `compare`). A changed
//! entry keeps its live id, capture time and delivery, so proposals, promotions, references and
//! delivery records that name it still do. Session summaries the replay rewrote are kept as
//! they were in a JSONL backup next to the logs' before they are replaced or removed.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::Applied;
use super::compare::{ContextDiff, Side};
use super::scratch::Scratch;
use crate::base::error::{Error, Result};
use crate::base::fsutil::atomic_write;
use crate::base::ids::WorkContextId;
use crate::graph::store::Store;

pub(crate) fn apply(
    store: &Store,
    scratch: &Scratch,
    live: &Side,
    diffs: &[ContextDiff],
    now: DateTime<Utc>,
) -> Result<Applied> {
    let backup_dir = store.root().join("continuity").join("backup");
    let mut applied = Applied::default();
    let planned: Vec<&ContextDiff> = diffs.iter().filter(|d| d.has_plan()).collect();
    applied.kept = diffs.iter().map(|d| d.counts.kept).sum();

    // The graph first: contexts and entities the added entries name, the summaries and windows,
    // and where the replayed sessions belong. A crash after this and before the logs leaves
    // summaries without their new entries, which a second apply completes.
    let summaries_backup = backup_summaries(live, &planned, &backup_dir)?;
    applied.backups.extend(summaries_backup);
    let scratch_path = scratch.store().root().join("entity_graph.sqlite");
    let scratch_path = scratch_path.to_string_lossy().into_owned();
    let scopes: BTreeSet<&WorkContextId> = planned.iter().map(|d| &d.work_context_id).collect();
    {
        let graph = store.graph();
        let mut conn = graph.conn();
        conn.execute("ATTACH DATABASE ?1 AS scratch", [&scratch_path])
            .map_err(|e| graph.sql(e))?;
        let result = (|| -> rusqlite::Result<(usize, usize, usize)> {
            let tx = conn.transaction()?;
            let (mut written, mut removed) = (0, 0);
            for d in &planned {
                tx.execute(
                    "INSERT OR IGNORE INTO main.work_contexts
                     SELECT * FROM scratch.work_contexts WHERE work_context_id = ?1",
                    [d.work_context_id.as_str()],
                )?;
                for e in d.plan.add.iter().chain(d.plan.change.values()) {
                    for entity in &e.linked_entity_ids {
                        tx.execute(
                            "INSERT OR IGNORE INTO main.entities
                             SELECT * FROM scratch.entities WHERE entity_id = ?1",
                            [entity.as_str()],
                        )?;
                        tx.execute(
                            "INSERT OR IGNORE INTO main.entity_aliases
                             SELECT * FROM scratch.entity_aliases WHERE entity_id = ?1
                               AND entity_id IN (SELECT entity_id FROM main.entities)",
                            [entity.as_str()],
                        )?;
                    }
                }
                for id in &d.plan.summaries_write {
                    tx.execute(
                        "INSERT OR REPLACE INTO main.session_summaries
                         SELECT * FROM scratch.session_summaries
                         WHERE doc73_session_summary_id = ?1",
                        [id],
                    )?;
                    tx.execute(
                        "INSERT OR REPLACE INTO main.capture_windows
                         SELECT * FROM scratch.capture_windows WHERE summary_id = ?1",
                        [id],
                    )?;
                    written += 1;
                }
                for id in &d.plan.summaries_remove {
                    tx.execute(
                        "DELETE FROM main.session_summaries WHERE doc73_session_summary_id = ?1",
                        [id],
                    )?;
                    tx.execute(
                        "DELETE FROM main.capture_windows WHERE summary_id = ?1",
                        [id],
                    )?;
                    removed += 1;
                }
            }
            // A replayed session the replay placed in another context moves there, when either
            // context is one being applied: its next capture then continues where the replay
            // says it belongs.
            let moves: Vec<(String, String, String)> = {
                let mut stmt = tx.prepare(
                    "SELECT s.session_id, m.work_context_id, s.work_context_id
                     FROM scratch.session_captures s
                     JOIN main.session_captures m ON m.session_id = s.session_id
                     WHERE m.work_context_id <> s.work_context_id",
                )?;
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<rusqlite::Result<_>>()?
            };
            let mut moved = 0;
            for (session, from, to) in moves {
                if !scopes
                    .iter()
                    .any(|s| s.as_str() == from || s.as_str() == to)
                {
                    continue;
                }
                tx.execute(
                    "UPDATE main.session_captures SET work_context_id = ?2 WHERE session_id = ?1",
                    params![session, to],
                )?;
                tx.execute(
                    "UPDATE main.transcript_sessions SET work_context_id = ?2
                     WHERE session_id = ?1",
                    params![session, to],
                )?;
                moved += 1;
            }
            tx.commit()?;
            Ok((written, removed, moved))
        })();
        let detached = conn.execute("DETACH DATABASE scratch", []);
        let (written, removed, moved) = result.map_err(|e| graph.sql(e))?;
        detached.map_err(|e| graph.sql(e))?;
        applied.summaries_written = written;
        applied.summaries_removed = removed;
        applied.sessions_moved = moved;
    }

    // Then each log, rewritten from its current entries.
    let mut touched: BTreeSet<WorkContextId> = BTreeSet::new();
    for d in &planned {
        let plan = &d.plan;
        if plan.remove.is_empty() && plan.change.is_empty() && plan.add.is_empty() {
            continue;
        }
        let wc = &d.work_context_id;
        let (mut removed, mut changed) = (0, 0);
        let backup = store.log(wc).rewrite(&backup_dir, |entries| {
            let mut out = Vec::with_capacity(entries.len() + plan.add.len());
            for e in entries {
                let id = e.entry_id.to_string();
                if plan.remove.contains(&id) {
                    removed += 1;
                    continue;
                }
                match plan.change.get(&id) {
                    Some(r) => {
                        changed += 1;
                        let mut n = r.clone();
                        n.entry_id = e.entry_id.clone();
                        n.captured_at = e.captured_at;
                        n.delivered = e.delivered;
                        n.promoted_to_graph = e.promoted_to_graph;
                        n.promoted_node_id = e.promoted_node_id.clone();
                        n.work_context_id = e.work_context_id.clone();
                        out.push(n);
                    }
                    None => out.push(e),
                }
            }
            out.extend(plan.add.iter().map(|e| {
                let mut n = e.clone();
                n.work_context_id = wc.clone();
                n
            }));
            out
        })?;
        applied.entries_removed += removed;
        applied.entries_changed += changed;
        applied.entries_added += plan.add.len();
        applied.backups.extend(backup);
        touched.insert(wc.clone());
    }
    for d in &planned {
        touched.insert(d.work_context_id.clone());
    }

    // The views derived from what changed: the contexts' cards, their lineage (summaries and
    // windows were replaced), the rollup, and the search index, rebuilt whole because rewritten
    // logs are not what its per-log marks expect.
    crate::views::constellation::refresh(store, &touched, now);
    if let Err(e) = crate::views::lineage::refresh(store, &touched) {
        tracing::warn!(error = %e, "lineage refresh failed; `elnor lineage rebuild` rebuilds it");
    }
    if !touched.is_empty() {
        if let Err(e) = crate::views::rollup::generate(store, now) {
            tracing::warn!(error = %e, "rollup refresh failed");
        }
        if let Err(e) = crate::views::search::SearchIndex::rebuild(store) {
            tracing::warn!(error = %e, "search index not rebuilt; `elnor reindex` rebuilds it");
        }
    }
    Ok(applied)
}

/// Writes the live summaries apply is about to replace or remove to
/// `continuity/backup/session_summaries.{stamp}.jsonl`, one JSON object a line.
fn backup_summaries(
    live: &Side,
    planned: &[&ContextDiff],
    dir: &std::path::Path,
) -> Result<Option<PathBuf>> {
    let mut lines = String::new();
    for d in planned {
        for id in d
            .plan
            .summaries_write
            .iter()
            .chain(&d.plan.summaries_remove)
        {
            if let Some((session, text, source)) = live.summaries.get(id) {
                let row = serde_json::json!({
                    "doc73_session_summary_id": id,
                    "session_id": session,
                    "text": text,
                    "source": source,
                });
                lines.push_str(&row.to_string());
                lines.push('\n');
            }
        }
    }
    if lines.is_empty() {
        return Ok(None);
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    // The wall clock, not the request's time: two applies at one overridden time keep both.
    let path = dir.join(format!(
        "session_summaries.{}.{}.jsonl",
        Utc::now().format("%Y%m%dT%H%M%S%.6fZ"),
        std::process::id()
    ));
    atomic_write(&path, lines.as_bytes())?;
    Ok(Some(path))
}
