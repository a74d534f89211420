//! The nightly scheduler: runs the engine's nightly job (sweep, promotion rules, views, rollup)
//! once per local day after `config.nightly_hour`, and on demand from the Review page.
//!
//! A thread of its own wakes every minute and asks the engine's pure rule, `elnor_engine::nightly_is_due`,
//! with the last run recorded in the store and the person's current UTC offset. That check reads
//! the config file and one row, so it costs nothing noticeable; because the rule compares the last
//! run with the most recent scheduled instant, the first check after the machine wakes from a
//! sleep that spanned the hour catches the run up. The first check comes one interval after
//! start, so the window appears without a sweep competing with it.
//!
//! One run at a time: a manual run while a scheduled one is under way is refused with a message,
//! and every run holds the app's agent lock, so it never captures a session while the ingest
//! thread's agent does. A failed run is logged and retried at the next check; a panic in the
//! engine is caught and logged, so the scheduler outlives it.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Local, Offset, Utc};
use elnor_engine::Agent;
use elnor_engine::NightlyReport;
use elnor_engine::Store;
use elnor_engine::{OsKeyring, SecretStore};
use elnor_types::{CommandError, ErrorKind, NightlyReportRow, ResearchUtilityRow};

/// How often the scheduler asks whether the job is due.
pub const CHECK_EVERY: Duration = Duration::from_secs(60);

/// What started a run; shown beside its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    Scheduled,
    Manual,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Trigger::Scheduled => "scheduled",
            Trigger::Manual => "manual",
        }
    }
}

/// The job as this app last saw it. The time of the last run lives in the store (so the CLI's
/// `elnor nightly` counts too); this keeps what only the app knows.
#[derive(Debug, Default)]
pub struct NightlyState {
    pub running: bool,
    /// Why the last run failed, until one succeeds.
    pub last_error: Option<String>,
    pub last_report: Option<NightlyReportRow>,
}

/// Shared between the scheduler thread and the commands.
pub type NightlyHandle = Arc<Mutex<NightlyState>>;

/// The person's current UTC offset. Read at every check, so a change of time zone or daylight
/// saving time applies from the next check on.
pub fn local_offset() -> FixedOffset {
    Local::now().offset().fix()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Clears the `running` flag however the run ends, a panic included.
struct Running<'a>(&'a Mutex<NightlyState>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(self.0).running = false;
    }
}

/// Runs the nightly job at `now`, unless a run is under way, and records the outcome.
pub fn run(
    store: &Store,
    secrets: &dyn SecretStore,
    state: &Mutex<NightlyState>,
    agent: &Mutex<Option<Agent>>,
    trigger: Trigger,
    now: DateTime<Utc>,
) -> Result<NightlyReportRow, CommandError> {
    {
        let mut s = lock(state);
        if s.running {
            return Err(CommandError {
                kind: ErrorKind::InvalidInput,
                message: "the nightly job is already running; its result will show here when it \
                          finishes"
                    .to_owned(),
            });
        }
        s.running = true;
    }
    let running = Running(state);
    let result = {
        // Held for the whole run: the ingest thread's agent must not capture the same sessions
        // at the same time as the sweep.
        let _agent = lock(agent);
        elnor_engine::run_nightly(store, secrets, now)
    };
    let outcome = match result {
        Ok(report) => {
            let row = report_row(&report, trigger);
            let mut s = lock(state);
            s.last_error = None;
            s.last_report = Some(row.clone());
            Ok(row)
        }
        Err(e) => {
            let error = crate::state::to_command_error(&e);
            lock(state).last_error = Some(error.message.clone());
            Err(error)
        }
    };
    drop(running);
    outcome
}

fn report_row(r: &NightlyReport, trigger: Trigger) -> NightlyReportRow {
    NightlyReportRow {
        ran_at: r.ran_at.with_timezone(&Local).to_rfc3339(),
        trigger: trigger.as_str().to_owned(),
        captured: count(r.captured),
        capture_failures: r
            .capture_failures
            .iter()
            .map(|(session, why)| format!("{session}: {why}"))
            .collect(),
        proposed: count(r.promotions.proposed.len()),
        renewed: count(r.promotions.renewed.len()),
        views_rebuilt: count(r.views_rebuilt),
        rollup_segments: count(r.rollup_segments),
        degraded: count(r.nodes.degraded.len()),
        research: research_row(&r.research_utility),
    }
}

/// The wire form of a research-capture utility measurement.
pub fn research_row(u: &elnor_engine::ResearchUtility) -> ResearchUtilityRow {
    ResearchUtilityRow {
        captures: u.captures,
        referenced: u.referenced,
        briefed: u.briefed,
        promoted: u.promoted,
        untouched: u.untouched,
        useful_pct: u.useful_pct(),
    }
}

/// A count for the wire; no store holds four billion of anything a run reports.
pub fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What one check did.
#[derive(Debug)]
pub enum Check {
    NotDue,
    /// A run (started from the Review page) is under way; it records its own time.
    Busy,
    Ran(NightlyReportRow),
    Failed(String),
}

/// One scheduler check at `now` in `offset`: runs the job when the engine's rule says it is due.
pub fn check(
    store: &Store,
    secrets: &dyn SecretStore,
    state: &Mutex<NightlyState>,
    agent: &Mutex<Option<Agent>>,
    now: DateTime<Utc>,
    offset: FixedOffset,
) -> Check {
    if lock(state).running {
        return Check::Busy;
    }
    let due = store.config().and_then(|config| {
        let last = elnor_engine::nightly_last_run(store)?;
        Ok(elnor_engine::nightly_is_due(
            last,
            now,
            config.nightly_hour,
            offset,
        ))
    });
    match due {
        Ok(false) => Check::NotDue,
        Ok(true) => match run(store, secrets, state, agent, Trigger::Scheduled, now) {
            Ok(report) => Check::Ran(report),
            Err(e) => Check::Failed(e.message),
        },
        Err(e) => Check::Failed(format!("cannot tell whether the nightly job is due: {e}")),
    }
}

/// Starts the scheduler thread for the app's lifetime.
pub fn start(store: Arc<Store>, state: NightlyHandle, agent: Arc<Mutex<Option<Agent>>>) {
    let spawned = std::thread::Builder::new()
        .name("elnor-nightly".to_owned())
        .spawn(move || {
            let secrets = OsKeyring::new();
            loop {
                std::thread::sleep(CHECK_EVERY);
                let checked = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    check(
                        &store,
                        &secrets,
                        &state,
                        &agent,
                        elnor_engine::now(),
                        local_offset(),
                    )
                }));
                match checked {
                    Ok(Check::NotDue) => tracing::trace!("nightly job not due"),
                    Ok(Check::Busy) => tracing::debug!("nightly job already running"),
                    Ok(Check::Ran(r)) => tracing::info!(
                        captured = r.captured,
                        capture_failures = r.capture_failures.len(),
                        proposed = r.proposed,
                        renewed = r.renewed,
                        views_rebuilt = r.views_rebuilt,
                        "nightly job ran"
                    ),
                    Ok(Check::Failed(why)) => {
                        tracing::warn!(error = %why, "nightly job failed; retrying at the next check")
                    }
                    Err(_) => {
                        // The panic message went to stderr through the default hook.
                        tracing::error!("nightly job panicked; retrying at the next check");
                        lock(&state).last_error =
                            Some("the nightly job stopped unexpectedly; see the app's log".into());
                    }
                }
            }
        });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "cannot start the nightly scheduler");
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use elnor_engine::MemorySecrets;

    use super::*;

    fn utc(d: u32, h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, d, h, m, 0).unwrap()
    }

    /// Due on a store that never ran the job; after a run, not again until the next day's hour
    /// (in the person's offset), and then exactly once.
    #[test]
    fn checks_run_the_job_once_a_local_day() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.set_config("nightly_hour", "3").unwrap();
        let plus2 = FixedOffset::east_opt(2 * 3600).unwrap();
        let state = Mutex::default();
        let agent = Mutex::new(None);
        let secrets = MemorySecrets::default();
        let check_at = |now| check(&store, &secrets, &state, &agent, now, plus2);

        assert!(matches!(check_at(utc(22, 0, 30)), Check::Ran(_)));
        assert_eq!(
            elnor_engine::nightly_last_run(&store).unwrap(),
            Some(utc(22, 0, 30))
        );
        // 00:30 UTC is 02:30 local: the run above was before today's 03:00 local instant.
        assert!(matches!(check_at(utc(22, 0, 59)), Check::NotDue));
        let Check::Ran(report) = check_at(utc(22, 1, 0)) else {
            panic!("due at 03:00 local");
        };
        assert_eq!(report.trigger, "scheduled");
        assert!(matches!(check_at(utc(22, 23, 0)), Check::NotDue));
        let s = state.lock().unwrap();
        assert!(!s.running && s.last_error.is_none() && s.last_report.is_some());
    }

    /// A manual run while one is under way is refused, and leaves the running one alone.
    #[test]
    fn one_run_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let state = Mutex::new(NightlyState {
            running: true,
            ..NightlyState::default()
        });
        let agent = Mutex::new(None);
        let refused = run(
            &store,
            &MemorySecrets::default(),
            &state,
            &agent,
            Trigger::Manual,
            utc(22, 12, 0),
        )
        .unwrap_err();
        assert!(refused.message.contains("already running"), "{refused}");
        assert!(state.lock().unwrap().running);
        // The scheduler's check leaves it to the run under way.
        let checked = check(
            &store,
            &MemorySecrets::default(),
            &state,
            &agent,
            utc(22, 12, 0),
            FixedOffset::east_opt(0).unwrap(),
        );
        assert!(matches!(checked, Check::Busy), "{checked:?}");
        assert_eq!(elnor_engine::nightly_last_run(&store).unwrap(), None);
    }

    /// A config the engine cannot read is a failed check, retried later, not a panic.
    #[test]
    fn a_broken_config_fails_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        std::fs::write(dir.path().join("config/continuity_config.json"), "{").unwrap();
        let state = Mutex::default();
        let checked = check(
            &store,
            &MemorySecrets::default(),
            &state,
            &Mutex::new(None),
            utc(22, 12, 0),
            FixedOffset::east_opt(0).unwrap(),
        );
        assert!(
            matches!(&checked, Check::Failed(why) if why.contains("cannot tell")),
            "{checked:?}"
        );
    }
}
