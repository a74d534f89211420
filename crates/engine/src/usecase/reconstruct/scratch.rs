//! The scratch store a reconstruction captures into: a consistent copy of the live graph, the
//! config with the mode forced, and the logs holding only what capture did not write. It lives
//! under the store's own `reconstruct/` folder (the same disk, the same permissions) and is
//! removed when dropped, whether the reconstruction finished or failed.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::{ReconstructMode, Window};
use crate::base::config::ContinuityMode;
use crate::base::error::{Error, Result};
use crate::graph::entities::{ENTITY_UPSERTED, ts};
use crate::graph::store::Store;

pub(crate) struct Scratch {
    dir: PathBuf,
    // An `Option` so that `Drop` can close the store before removing its directory.
    store: Option<Store>,
}

impl Scratch {
    /// Copies the live store into a fresh scratch directory and clears what capture made there.
    pub(crate) fn create(
        live: &Store,
        mode: ReconstructMode,
        captured: &BTreeSet<String>,
        now: DateTime<Utc>,
    ) -> Result<Scratch> {
        let parent = live.root().join("reconstruct");
        fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let dir = parent.join(format!(
            "scratch-{}-{}",
            std::process::id(),
            Utc::now().format("%Y%m%dT%H%M%S%.6f")
        ));
        fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        // From here on the guard removes the directory, whatever fails below.
        let mut scratch = Scratch { dir, store: None };
        // `VACUUM INTO` writes a consistent copy from one read transaction, so captures running
        // in the live store meanwhile cannot leave the copy half-written.
        let graph_path = scratch.dir.join("entity_graph.sqlite");
        let target = graph_path.to_string_lossy().into_owned();
        live.graph()
            .with_conn_result(|c| c.execute("VACUUM INTO ?1", [&target]))?;
        copy_dir_files(&live.root().join("config"), &scratch.dir.join("config"))?;
        let store = Store::open(&scratch.dir)?;
        store.set_mode(match mode {
            ReconstructMode::Deterministic => ContinuityMode::Deterministic,
            ReconstructMode::Model => ContinuityMode::Full,
        })?;
        clear_capture_data(&store, now)?;
        copy_own_entries(live, &store, captured)?;
        scratch.store = Some(store);
        Ok(scratch)
    }

    /// The scratch store.
    pub(crate) fn store(&self) -> &Store {
        self.store
            .as_ref()
            .expect("a scratch is only handed out once its store is open")
    }

    /// Puts the session's capture state where the live one stood before `w` ran: normally the
    /// replay of the window before it left it there already; a session whose earlier capture
    /// made no summary (taken for a sub-agent's then) would otherwise be read from too early.
    pub(crate) fn prepare_window(&self, w: &Window) -> Result<()> {
        self.store().graph().with_conn_result(|c| {
            c.execute(
                "UPDATE session_captures SET last_seq = ?2 WHERE session_id = ?1 AND last_seq <> ?2",
                params![w.session_id, w.after_seq],
            )
        })?;
        Ok(())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.store = None;
        if let Err(e) = fs::remove_dir_all(&self.dir) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "scratch store not removed");
        }
        // The parent goes too when no other reconstruction is using it.
        if let Some(parent) = self.dir.parent() {
            let _ = fs::remove_dir(parent);
        }
    }
}

fn copy_dir_files(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to).map_err(|e| Error::io(to, e))?;
    for item in fs::read_dir(from).map_err(|e| Error::io(from, e))? {
        let item = item.map_err(|e| Error::io(from, e))?;
        let path = item.path();
        if path.is_file() {
            let dest = to.join(item.file_name());
            fs::copy(&path, &dest).map_err(|e| Error::io(&dest, e))?;
        }
    }
    Ok(())
}

/// Clears capture's outputs in the scratch graph, keeping what the person made. Entities capture
/// created are removed unless the person touched them since (an edit, a merge, a link, a node or
/// an observation naming them): the replay creates them again when it meets them, at the same
/// point it did the first time, which is what keeps the replay's entity matching the live one's.
/// Entity events already in the outbox are marked consumed so that only the replay's own are
/// delivered as cross-conversation updates.
fn clear_capture_data(store: &Store, now: DateTime<Utc>) -> Result<()> {
    let graph = store.graph();
    let mut conn = graph.conn();
    let tx = conn.transaction().map_err(|e| graph.sql(e))?;
    tx.execute_batch(
        "DELETE FROM session_captures;
         DELETE FROM session_summaries;
         DELETE FROM capture_windows;
         DELETE FROM capture_runs;
         DELETE FROM entry_references;
         DELETE FROM research_captures;
         DELETE FROM context_entity_mentions;",
    )
    .map_err(|e| graph.sql(e))?;
    tx.execute(
        "DELETE FROM entities WHERE entity_id IN (
             SELECT json_extract(payload, '$.entity_id') FROM events
             WHERE event_type = ?1 AND json_extract(payload, '$.change') = 'created'
               AND json_extract(payload, '$.source_kind') = 'capture')
         AND entity_id NOT IN (
             SELECT json_extract(payload, '$.entity_id') FROM events
             WHERE event_type = ?1 AND json_extract(payload, '$.source_kind') <> 'capture')
         AND entity_id NOT IN (SELECT entity_id FROM work_context_entities)
         AND entity_id NOT IN (SELECT entity_id FROM obligations WHERE entity_id IS NOT NULL)
         AND entity_id NOT IN (SELECT entity_id FROM observation_entities)",
        [ENTITY_UPSERTED],
    )
    .map_err(|e| graph.sql(e))?;
    tx.execute(
        "UPDATE events SET consumed_at = ?1 WHERE consumed_at IS NULL",
        [ts(now)],
    )
    .map_err(|e| graph.sql(e))?;
    tx.commit().map_err(|e| graph.sql(e))
}

/// Copies into the scratch logs every live entry capture did not write (its source is no
/// captured session): pushes, observations, updates from the person's own edits.
fn copy_own_entries(live: &Store, scratch: &Store, captured: &BTreeSet<String>) -> Result<()> {
    for wc in live.log_ids()? {
        let log = scratch.log(&wc);
        for e in live.log(&wc).read()?.entries {
            if !captured.contains(e.source_session_id.as_str()) {
                log.append(&e)?;
            }
        }
    }
    Ok(())
}
