//! The nightly job (CSA §3.3, §4.3, §5.2; EC Core nightly jobs): sweep every dirty session
//! (`nightly_sweep`), evaluate the promotion rules, rebuild every constellation view (so decayed
//! entries leave them) and regenerate the rollup. Idempotent: a second run on the same day and
//! data captures nothing, proposes nothing and writes the same views.
//!
//! `elnor nightly` runs it headless; the desktop app's scheduler (a later step of issue 6) runs it
//! at `nightly_hour`. The time of the last run is kept in `agent_state`.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::agent::Agent;
use crate::error::Result;
use crate::promotion::{self, Evaluation};
use crate::secrets::SecretStore;
use crate::store::Store;

const LAST_RUN: &str = "nightly_last_run";

/// What one run did.
#[derive(Debug, Clone, Serialize)]
pub struct NightlyReport {
    pub ran_at: DateTime<Utc>,
    /// Sessions the sweep captured, and those whose capture failed (with why).
    pub captured: usize,
    pub capture_failures: Vec<(String, String)>,
    pub promotions: Evaluation,
    pub views_rebuilt: usize,
    pub rollup_segments: usize,
}

/// Runs the nightly job at `now`.
pub fn run(store: &Store, secrets: &dyn SecretStore, now: DateTime<Utc>) -> Result<NightlyReport> {
    let config = store.config()?;
    let mut agent = Agent::new(&config);
    let sweep = agent.sweep(store, secrets, now)?;
    let promotions = promotion::evaluate(store, now)?;
    let views_rebuilt = crate::constellation::rebuild_all(store, now)?;
    let rollup = crate::rollup::generate(store, now)?;
    store.graph().with_conn_result(|c| {
        c.execute(
            "INSERT INTO agent_state (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![LAST_RUN, crate::entities::ts(now)],
        )
    })?;
    Ok(NightlyReport {
        ran_at: now,
        captured: sweep
            .captures
            .iter()
            .filter(|c| c.status == crate::capture::CaptureStatus::Captured)
            .count(),
        capture_failures: sweep.failures,
        promotions,
        views_rebuilt,
        rollup_segments: rollup.segments.len(),
    })
}

/// When the nightly job last ran, if ever.
pub fn last_run(store: &Store) -> Result<Option<DateTime<Utc>>> {
    let at: Option<String> = store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT value FROM agent_state WHERE key = ?1",
            [LAST_RUN],
            |r| r.get(0),
        )
        .optional()
    })?;
    Ok(crate::entities::parse_ts(at))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::secrets::MemorySecrets;

    /// Over the fixture corpus: the first run captures every dirty session and writes views and
    /// the rollup; the second run the same day captures and proposes nothing and leaves the
    /// derived files byte for byte.
    #[test]
    fn nightly_is_idempotent() {
        let (_d, store) = crate::test_support::fixture_store();
        store
            .set_mode(crate::config::ContinuityMode::Deterministic)
            .unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 22, 3, 0, 0).unwrap();
        let first = run(&store, &MemorySecrets::default(), now).unwrap();
        assert!(first.captured > 0, "{first:?}");
        assert!(first.views_rebuilt > 0);
        assert_eq!(last_run(&store).unwrap(), Some(now));
        let files = |store: &Store| -> Vec<Vec<u8>> {
            let mut out = Vec::new();
            for dir in ["mirror/work_context", "rollup"] {
                let mut paths: Vec<_> = std::fs::read_dir(store.root().join(dir))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect();
                paths.sort();
                out.extend(paths.iter().map(|p| std::fs::read(p).unwrap()));
            }
            out
        };
        let before = files(&store);
        let later = now + chrono::Duration::minutes(5);
        let second = run(&store, &MemorySecrets::default(), later).unwrap();
        assert_eq!(second.captured, 0);
        assert!(second.promotions.proposed.is_empty());
        assert_eq!(files(&store), before);
    }
}
