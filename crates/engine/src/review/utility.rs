//! Research-capture utility (CSA §11.3 step 7, SPEC §2 "DOC8 utility tracking"): of the open
//! questions and key decisions captured from research sessions (where the significance gate was
//! lowered by `research_gate_multiplier_pct`), how many were of use later: restated by another
//! session, shown in a delivered brief, or promoted. The nightly job measures it; the ratio is
//! shown beside the multiplier, which stays the person's setting.
//!
//! Capture records the candidates in `research_captures`; [`measure`] stamps the first use of
//! each (a stamp, once set, stays, so traces pruned later lose nothing) and records the counts.

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::error::Result;
use crate::graph::entities::ts;
use crate::graph::store::Store;

/// One measurement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ResearchUtility {
    pub measured_at: String,
    /// Research-mode captures tracked.
    pub captures: u64,
    /// Restated by a later session.
    pub referenced: u64,
    /// Shown in a delivered brief.
    pub briefed: u64,
    /// Promoted to a durable node.
    pub promoted: u64,
    /// Of no later use so far.
    pub untouched: u64,
}

impl ResearchUtility {
    /// The share of research captures of any later use, in percent; `None` before there are any.
    pub fn useful_pct(&self) -> Option<u64> {
        (self.captures > 0).then(|| (self.captures - self.untouched) * 100 / self.captures)
    }
}

/// Stamps first uses and records a measurement at `now` (one per instant; a second measurement
/// at the same instant replaces the first).
pub fn measure(store: &Store, now: DateTime<Utc>) -> Result<ResearchUtility> {
    let graph = store.graph();
    let mut conn = graph.conn();
    let tx = conn.transaction().map_err(|e| graph.sql(e))?;
    let out = (|| {
        tx.execute(
            "UPDATE research_captures SET first_referenced_at = (
                 SELECT MIN(r.seen_at) FROM entry_references r
                  WHERE r.entry_id = research_captures.entry_id
                    AND r.session_id <> research_captures.session_id)
             WHERE first_referenced_at IS NULL",
            [],
        )?;
        tx.execute(
            "UPDATE research_captures SET first_briefed_at = (
                 SELECT MIN(a.created_at) FROM brief_trace_items t
                   JOIN brief_assemblies a ON a.assembly_id = t.assembly_id
                  WHERE t.source_id = research_captures.entry_id
                    AND t.decision = 'included' AND a.delivery = 'delivered')
             WHERE first_briefed_at IS NULL",
            [],
        )?;
        tx.execute(
            "UPDATE research_captures SET promoted_at = (
                 SELECT p.promoted_at FROM entry_promotions p
                  WHERE p.entry_id = research_captures.entry_id)
             WHERE promoted_at IS NULL",
            [],
        )?;
        let u = tx.query_row(
            "SELECT COUNT(*),
                    COUNT(first_referenced_at),
                    COUNT(first_briefed_at),
                    COUNT(promoted_at),
                    SUM(first_referenced_at IS NULL AND first_briefed_at IS NULL
                        AND promoted_at IS NULL)
               FROM research_captures",
            [],
            |r| {
                Ok(ResearchUtility {
                    measured_at: ts(now),
                    captures: r.get::<_, i64>(0)? as u64,
                    referenced: r.get::<_, i64>(1)? as u64,
                    briefed: r.get::<_, i64>(2)? as u64,
                    promoted: r.get::<_, i64>(3)? as u64,
                    untouched: r.get::<_, Option<i64>>(4)?.unwrap_or(0) as u64,
                })
            },
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO research_utility
                 (measured_at, captures, referenced, briefed, promoted, untouched)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                u.measured_at,
                u.captures as i64,
                u.referenced as i64,
                u.briefed as i64,
                u.promoted as i64,
                u.untouched as i64
            ],
        )?;
        Ok(u)
    })()
    .map_err(|e| graph.sql(e))?;
    tx.commit().map_err(|e| graph.sql(e))?;
    Ok(out)
}

/// The latest measurement, if the nightly job has made one.
pub fn latest(store: &Store) -> Result<Option<ResearchUtility>> {
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT measured_at, captures, referenced, briefed, promoted, untouched
               FROM research_utility ORDER BY measured_at DESC LIMIT 1",
            [],
            |r| {
                Ok(ResearchUtility {
                    measured_at: r.get(0)?,
                    captures: r.get::<_, i64>(1)? as u64,
                    referenced: r.get::<_, i64>(2)? as u64,
                    briefed: r.get::<_, i64>(3)? as u64,
                    promoted: r.get::<_, i64>(4)? as u64,
                    untouched: r.get::<_, i64>(5)? as u64,
                })
            },
        )
        .optional()
    })
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    /// Three research captures: one restated by a later session, one promoted, one untouched
    /// (a restatement by its own session does not count). The stamps stay once set.
    #[test]
    fn measures_later_use_of_research_captures() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap();
        assert_eq!(latest(&store).unwrap(), None);
        store
            .graph()
            .with_conn(|c| {
                c.execute_batch(
                    "INSERT INTO research_captures (entry_id, work_context_id, session_id, captured_at)
                     VALUES ('ce_a', 'wc', 's1', '2026-11-01T09:00:00Z'),
                            ('ce_b', 'wc', 's1', '2026-11-01T09:00:00Z'),
                            ('ce_c', 'wc', 's1', '2026-11-01T09:00:00Z');
                     INSERT INTO entry_references VALUES ('ce_a', 'wc', 's2', '2026-11-03T09:00:00Z'),
                                                         ('ce_c', 'wc', 's1', '2026-11-03T09:00:00Z');
                     INSERT INTO entry_promotions VALUES ('ce_b', 'md_1', 1, '2026-11-04T09:00:00Z');",
                )
            })
            .unwrap();
        let u = measure(&store, t + Duration::days(5)).unwrap();
        assert_eq!(
            (u.captures, u.referenced, u.briefed, u.promoted, u.untouched),
            (3, 1, 0, 1, 1)
        );
        assert_eq!(u.useful_pct(), Some(66));
        // Pruning the evidence later loses nothing already stamped.
        store
            .graph()
            .with_conn(|c| c.execute_batch("DELETE FROM entry_references;"))
            .unwrap();
        let again = measure(&store, t + Duration::days(6)).unwrap();
        assert_eq!((again.referenced, again.untouched), (1, 1));
        assert_eq!(latest(&store).unwrap(), Some(again));
    }
}
