//! The nightly job (CSA §3.3, §4.3, §5.2, §11.3; EC Core nightly jobs): sweep every dirty session
//! (`nightly_sweep`), evaluate the promotion rules, walk durable nodes down the degradation ladder,
//! measure research-capture utility, rebuild every constellation view (so decayed entries leave
//! them) and regenerate the rollup. Idempotent: a second run on the same day and
//! data captures nothing, proposes nothing and writes the same views.
//!
//! `elnor nightly` runs it headless; the desktop app's scheduler runs it at `nightly_hour` (local
//! time) and catches up after sleep by [`is_due`]. The time of the last run is kept in `agent_state`.

use chrono::{DateTime, FixedOffset, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::error::Result;
use crate::base::secrets::SecretStore;
use crate::graph::store::Store;
use crate::inputs::agent::Agent;
use crate::review::promotion::{self, Evaluation};

const LAST_RUN: &str = "nightly_last_run";

/// What one run did.
#[derive(Debug, Clone, Serialize)]
pub struct NightlyReport {
    pub ran_at: DateTime<Utc>,
    /// Sessions the sweep captured, and those whose capture failed (with why).
    pub captured: usize,
    pub capture_failures: Vec<(String, String)>,
    pub promotions: Evaluation,
    /// Durable nodes the degradation ladder moved.
    pub nodes: crate::review::sweep::Sweep,
    pub research_utility: crate::review::utility::ResearchUtility,
    pub views_rebuilt: usize,
    pub rollup_segments: usize,
}

/// Runs the nightly job at `now`.
pub fn run(store: &Store, secrets: &dyn SecretStore, now: DateTime<Utc>) -> Result<NightlyReport> {
    let config = store.config()?;
    let mut agent = Agent::new(&config);
    let sweep = agent.sweep(store, secrets, now)?;
    let promotions = promotion::evaluate(store, now)?;
    // What the sweep captured is searchable and in the lineage, and the Topics' directives look
    // at it, before the person opens the review queue in the morning.
    crate::usecase::refresh_after_run(store, &sweep, now);
    crate::usecase::collect_quietly(store, now);
    let nodes = crate::usecase::sweep_nodes(store, now)?;
    let research_utility = crate::review::utility::measure(store, now)?;
    let views_rebuilt = crate::views::constellation::rebuild_all(store, now)?;
    let rollup = crate::views::rollup::generate(store, now)?;
    // The heads last, so they show the nodes the ladder moved and the proposals made tonight.
    // Derived data: a failure is logged and the next capture refreshes them.
    if let Err(e) = crate::views::heads::refresh(store, None, now) {
        tracing::warn!(error = %e, "nightly head refresh failed");
    }
    store.graph().with_conn_result(|c| {
        c.execute(
            "INSERT INTO agent_state (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![LAST_RUN, crate::graph::entities::ts(now)],
        )
    })?;
    Ok(NightlyReport {
        ran_at: now,
        captured: sweep
            .captures
            .iter()
            .filter(|c| c.status == crate::inputs::capture::CaptureStatus::Captured)
            .count(),
        capture_failures: sweep.failures,
        promotions,
        nodes,
        research_utility,
        views_rebuilt,
        rollup_segments: rollup.segments.len(),
    })
}

/// The scheduled instant the job is due for at `now`: today's `hour` (in `offset`, the
/// person's local time) when that has passed, else yesterday's. The job is due when it last ran
/// before that instant, which is also how a scheduler catches up after the machine slept through
/// the hour: the first check after waking finds the missed instant.
pub fn scheduled_before(now: DateTime<Utc>, hour: u32, offset: FixedOffset) -> DateTime<Utc> {
    let local = now.with_timezone(&offset);
    let at = |day: chrono::NaiveDate| {
        let naive = day.and_hms_opt(hour.min(23), 0, 0).unwrap_or_default();
        // A fixed offset has no gaps or folds, so the mapping is always single.
        naive
            .and_local_timezone(offset)
            .single()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or(now)
    };
    let today = at(local.date_naive());
    if today <= now {
        today
    } else {
        at(local.date_naive().pred_opt().unwrap_or(local.date_naive()))
    }
}

/// The next scheduled instant after `now`: the local `hour` of the next local day on which it
/// has not yet passed (computed on the local calendar, so a daylight-saving change in between
/// moves it with the clock when `offset` is re-read then).
pub fn next_scheduled(now: DateTime<Utc>, hour: u32, offset: FixedOffset) -> DateTime<Utc> {
    let before = scheduled_before(now, hour, offset);
    let local = before.with_timezone(&offset).date_naive();
    local
        .succ_opt()
        .and_then(|d| d.and_hms_opt(hour.min(23), 0, 0))
        .and_then(|t| t.and_local_timezone(offset).single())
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(before + chrono::Duration::days(1))
}

/// Whether the job is due at `now`, given when it last ran.
pub fn is_due(
    last: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    hour: u32,
    offset: FixedOffset,
) -> bool {
    last.is_none_or(|last| last < scheduled_before(now, hour, offset))
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
    Ok(crate::graph::entities::parse_ts(at))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::base::secrets::MemorySecrets;

    /// The scheduler's rule: due once per local day after the hour, caught up after a sleep
    /// that spanned it, never twice for the same instant.
    #[test]
    fn due_once_a_day_and_after_a_missed_hour() {
        let plus2 = FixedOffset::east_opt(2 * 3600).unwrap();
        let utc = |d, h, m| Utc.with_ymd_and_hms(2026, 11, d, h, m, 0).unwrap();
        // 03:00 at +02:00 is 01:00 UTC.
        assert_eq!(scheduled_before(utc(22, 0, 59), 3, plus2), utc(21, 1, 0));
        assert_eq!(scheduled_before(utc(22, 1, 0), 3, plus2), utc(22, 1, 0));
        // Never ran: due at once.
        assert!(is_due(None, utc(22, 0, 0), 3, plus2));
        // Ran yesterday at the hour: not due before today's hour, due from it on.
        assert!(!is_due(Some(utc(21, 1, 0)), utc(22, 0, 59), 3, plus2));
        assert!(is_due(Some(utc(21, 1, 0)), utc(22, 1, 0), 3, plus2));
        // Ran at today's hour: not due again the same day.
        assert!(!is_due(Some(utc(22, 1, 0)), utc(22, 23, 0), 3, plus2));
        assert_eq!(next_scheduled(utc(22, 0, 59), 3, plus2), utc(22, 1, 0));
        assert_eq!(next_scheduled(utc(22, 1, 0), 3, plus2), utc(23, 1, 0));
        // Asleep from yesterday evening until noon: the first check after waking runs it.
        assert!(is_due(Some(utc(21, 1, 5)), utc(22, 10, 0), 3, plus2));
    }

    /// Over the fixture corpus: the first run captures every dirty session and writes views and
    /// the rollup; the second run the same day captures and proposes nothing and leaves the
    /// derived files byte for byte.
    #[test]
    fn nightly_is_idempotent() {
        let Some((_d, store)) = crate::test_support::fixture_store() else {
            return;
        };
        store
            .set_mode(crate::base::config::ContinuityMode::Deterministic)
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
