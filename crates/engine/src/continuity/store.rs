//! The continuity side of the [`Store`]: where each work context's log lives and which logs exist.
//! The store itself (base) knows only its directory; the logs' layout is this layer's.

use std::fs;

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::continuity::ContinuityLog;
use crate::graph::store::Store;

impl Store {
    /// The continuity log of a work context (the file may not exist yet).
    pub fn log(&self, work_context_id: &WorkContextId) -> ContinuityLog {
        ContinuityLog::new(&self.root().join("continuity"), work_context_id.clone())
    }

    /// Every work context that has a continuity log, sorted. Files whose names are not valid work
    /// context ids are ignored: the engine never writes them, so they are not logs.
    pub fn log_ids(&self) -> Result<Vec<WorkContextId>> {
        let dir = self.root().join("continuity");
        let mut ids = Vec::new();
        for item in fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
            let item = item.map_err(|e| Error::io(&dir, e))?;
            let name = item.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if let Ok(id) = WorkContextId::new(stem) {
                ids.push(id);
            }
        }
        ids.sort();
        Ok(ids)
    }
}
