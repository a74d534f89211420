//! The app's long jobs (issue 16): the model download, the embedding backfill, the index
//! rebuild and the reconstruction (issue 19: capture replayed into a scratch store and compared,
//! then applied on request), each run on a thread of its own so the window stays responsive,
//! with progress the UI polls (`jobs_get`, which needs no event permission) and a cancel flag it
//! can raise.
//!
//! One job at a time per kind: starting a kind that is running answers its status instead of
//! starting a second copy, so a double click cannot fetch the model twice. The backfill and the
//! rebuild also exclude each other, because the rebuild deletes the index the backfill is reading
//! from; a reconstruction and either of them exclude each other too, since applying one rebuilds
//! the index whole. A job's outcome (finished, cancelled or failed, with its summary, its result
//! or its error) is kept until the same kind starts again, so the page can show it after the fact.
//!
//! The work itself is one engine call per kind (`commands/jobs.rs`); this only runs it, records
//! what it reports, and survives its panic, which is recorded as a failure.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use elnor_types::{CommandError, ErrorKind, JobKind, JobProgress, JobResult, JobState, JobStatus};

/// How a job's work ended when it did not fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Whether it stopped because it was cancelled.
    pub cancelled: bool,
    /// What it did, in words.
    pub summary: String,
    /// Its final progress, when the work knows it better than its last report.
    pub progress: Option<JobProgress>,
    /// What it produced beyond words, for the page that shows it (a reconstruction's report).
    pub result: Option<JobResult>,
}

/// What a job's work is handed: its cancel flag, and where to report progress.
pub struct Job {
    cancel: Arc<AtomicBool>,
    table: Arc<Mutex<Table>>,
    kind: JobKind,
}

impl Job {
    /// Raised when the person cancels; the engine checks it between reads or batches.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// Records how far the job is, for the next poll.
    pub fn progress(&self, progress: JobProgress) {
        if let Some(entry) = lock(&self.table).get_mut(&self.kind) {
            entry.status.progress = Some(progress);
        }
    }
}

/// One kind's latest job: its status, and the flag that cancels it while it runs.
struct Entry {
    status: JobStatus,
    cancel: Arc<AtomicBool>,
}

type Table = BTreeMap<JobKind, Entry>;

fn lock(table: &Mutex<Table>) -> MutexGuard<'_, Table> {
    table.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The jobs of the app's lifetime, shared by every command.
#[derive(Default)]
pub struct Jobs {
    table: Arc<Mutex<Table>>,
}

/// The kinds that may not run while `kind` does, each with why in words.
fn excluded_by(kind: JobKind) -> &'static [(JobKind, &'static str)] {
    match kind {
        JobKind::Embeddings => &[
            (
                JobKind::Reindex,
                "the search index is being rebuilt; build the embeddings once it has finished",
            ),
            (
                JobKind::Reconstruct,
                "a reconstruction is running, and applying one rebuilds the search index; build \
                 the embeddings once it has finished",
            ),
        ],
        JobKind::Reindex => &[
            (
                JobKind::Embeddings,
                "the embeddings are being built; rebuild the index once they have finished, or \
                 cancel them first",
            ),
            (
                JobKind::Reconstruct,
                "a reconstruction is running, and applying one rebuilds the search index itself; \
                 rebuild once it has finished",
            ),
        ],
        // Applying a reconstruction rebuilds the search index whole: a rebuild or a backfill
        // reading the index under it would lose its work or fail it.
        JobKind::Reconstruct => &[
            (
                JobKind::Reindex,
                "the search index is being rebuilt; reconstruct once it has finished",
            ),
            (
                JobKind::Embeddings,
                "the embeddings are being built; reconstruct once they have finished, or cancel \
                 them first",
            ),
        ],
        JobKind::ModelDownload => &[],
    }
}

impl Jobs {
    /// Every kind's status, in [`JobKind::ALL`] order; a kind not run yet is idle.
    pub fn snapshot(&self) -> Vec<JobStatus> {
        let table = lock(&self.table);
        JobKind::ALL
            .iter()
            .map(|&kind| status_of(&table, kind))
            .collect()
    }

    /// One kind's status.
    pub fn status(&self, kind: JobKind) -> JobStatus {
        status_of(&lock(&self.table), kind)
    }

    /// Starts `work` as the job of `kind` on a thread of its own, unless that kind is running
    /// (its status is answered then) or a kind it excludes is (refused, with why).
    pub fn start(
        &self,
        kind: JobKind,
        work: impl FnOnce(&Job) -> Result<Outcome, String> + Send + 'static,
    ) -> Result<JobStatus, CommandError> {
        let cancel = Arc::new(AtomicBool::new(false));
        {
            let mut table = lock(&self.table);
            if let Some(entry) = table.get(&kind)
                && entry.status.running()
            {
                return Ok(entry.status.clone());
            }
            if let Some((_, why)) = excluded_by(kind)
                .iter()
                .find(|(other, _)| status_of(&table, *other).running())
            {
                return Err(CommandError {
                    kind: ErrorKind::InvalidInput,
                    message: (*why).to_owned(),
                });
            }
            table.insert(
                kind,
                Entry {
                    status: JobStatus {
                        state: JobState::Running,
                        ..JobStatus::idle(kind)
                    },
                    cancel: cancel.clone(),
                },
            );
        }
        let job = Job {
            cancel,
            table: self.table.clone(),
            kind,
        };
        let spawned = std::thread::Builder::new()
            .name(format!("elnor-job-{}", kind.as_str()))
            .spawn(move || {
                let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(&job)))
                    .unwrap_or_else(|_| {
                        // The panic message went to stderr through the default hook.
                        tracing::error!(job = kind.as_str(), "job panicked");
                        Err(format!(
                            "the {} stopped unexpectedly; see the app's log",
                            kind.label()
                        ))
                    });
                finish(&job.table, kind, result);
            });
        if let Err(e) = spawned {
            finish(
                &self.table,
                kind,
                Err(format!("cannot start the {}: {e}", kind.label())),
            );
        }
        Ok(self.status(kind))
    }

    /// Asks the running job of `kind` to stop; it stops at its next check, and its status says
    /// so meanwhile. A job that is not running is left as it is.
    pub fn cancel(&self, kind: JobKind) -> JobStatus {
        let mut table = lock(&self.table);
        if let Some(entry) = table.get_mut(&kind)
            && entry.status.running()
        {
            entry.cancel.store(true, Ordering::Relaxed);
            entry.status.cancel_requested = true;
        }
        status_of(&table, kind)
    }
}

fn status_of(table: &Table, kind: JobKind) -> JobStatus {
    table
        .get(&kind)
        .map(|e| e.status.clone())
        .unwrap_or_else(|| JobStatus::idle(kind))
}

/// Records how the job of `kind` ended.
fn finish(table: &Mutex<Table>, kind: JobKind, result: Result<Outcome, String>) {
    let mut table = lock(table);
    let Some(entry) = table.get_mut(&kind) else {
        return;
    };
    let status = &mut entry.status;
    status.cancel_requested = false;
    match result {
        Ok(outcome) => {
            status.state = if outcome.cancelled {
                JobState::Cancelled
            } else {
                JobState::Finished
            };
            status.summary = Some(outcome.summary);
            status.result = outcome.result;
            if outcome.progress.is_some() {
                status.progress = outcome.progress;
            }
        }
        Err(why) => {
            tracing::warn!(job = kind.as_str(), error = %why, "job failed");
            status.state = JobState::Failed;
            status.error = Some(why);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::*;

    /// Polls until the job of `kind` is no longer running, as the UI does; the shell's command
    /// tests use it too.
    pub(crate) fn settled(jobs: &Jobs, kind: JobKind) -> JobStatus {
        let started = Instant::now();
        loop {
            let s = jobs.status(kind);
            if !s.running() {
                return s;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "{s:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn progress(covered: u64) -> JobProgress {
        JobProgress::Embeddings {
            embedded: covered,
            covered,
            documents: 10,
        }
    }

    /// A job reports progress while it runs, and its outcome is kept after it ends; a second
    /// start while it runs answers the running job instead of starting another.
    #[test]
    fn progress_then_outcome_and_one_at_a_time() {
        let jobs = Jobs::default();
        assert_eq!(jobs.status(JobKind::Embeddings).state, JobState::Idle);
        let (go_on, wait) = mpsc::channel::<()>();
        let started = jobs
            .start(JobKind::Embeddings, move |job| {
                job.progress(progress(4));
                wait.recv().unwrap();
                Ok(Outcome {
                    cancelled: false,
                    summary: "embedded 10".into(),
                    progress: Some(progress(10)),
                    result: None,
                })
            })
            .unwrap();
        assert_eq!(started.state, JobState::Running);
        let deadline = Instant::now() + Duration::from_secs(10);
        while jobs.status(JobKind::Embeddings).progress != Some(progress(4)) {
            assert!(Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(5));
        }
        // The second start's work would fail; it never runs.
        let again = jobs
            .start(JobKind::Embeddings, |_| Err("a second copy ran".into()))
            .unwrap();
        assert_eq!(again.state, JobState::Running);
        assert_eq!(again.progress, Some(progress(4)));
        go_on.send(()).unwrap();
        let done = settled(&jobs, JobKind::Embeddings);
        assert_eq!(done.state, JobState::Finished);
        assert_eq!(done.summary.as_deref(), Some("embedded 10"));
        assert_eq!(done.progress, Some(progress(10)));
        assert_eq!(done.error, None);
        // Every kind is in the snapshot, in the wire's order.
        let all = jobs.snapshot();
        let kinds: Vec<JobKind> = all.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, JobKind::ALL);
        assert_eq!(all[1], done);
        assert_eq!(all[0].state, JobState::Idle);
    }

    /// Cancelling raises the flag the work checks and says so until the work stops; a cancel of
    /// a job that is not running changes nothing.
    #[test]
    fn cancel_reaches_the_work() {
        let jobs = Jobs::default();
        assert_eq!(
            jobs.cancel(JobKind::ModelDownload),
            JobStatus::idle(JobKind::ModelDownload)
        );
        let (asked, seen) = mpsc::channel::<()>();
        jobs.start(JobKind::ModelDownload, move |job| {
            while !job.cancel_flag().load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            // Held here until the test has read the "cancelling" status.
            seen.recv().unwrap();
            Ok(Outcome {
                cancelled: true,
                summary: "stopped".into(),
                progress: None,
                result: None,
            })
        })
        .unwrap();
        let cancelling = jobs.cancel(JobKind::ModelDownload);
        assert!(cancelling.running() && cancelling.cancel_requested);
        asked.send(()).unwrap();
        let done = settled(&jobs, JobKind::ModelDownload);
        assert_eq!(done.state, JobState::Cancelled);
        assert!(!done.cancel_requested);
        assert_eq!(done.summary.as_deref(), Some("stopped"));
        // A new start gets a fresh flag: the old cancel does not stop it.
        jobs.start(JobKind::ModelDownload, |job| {
            Ok(Outcome {
                cancelled: job.cancel_flag().load(Ordering::Relaxed),
                summary: "again".into(),
                progress: None,
                result: None,
            })
        })
        .unwrap();
        assert_eq!(
            settled(&jobs, JobKind::ModelDownload).state,
            JobState::Finished
        );
    }

    /// A failure and a panic are both failed jobs with a reason in words, and the runner goes on.
    #[test]
    fn failures_and_panics_are_recorded() {
        let jobs = Jobs::default();
        jobs.start(JobKind::Reindex, |_| Err("the disk is full".into()))
            .unwrap();
        let failed = settled(&jobs, JobKind::Reindex);
        assert_eq!(failed.state, JobState::Failed);
        assert_eq!(failed.error.as_deref(), Some("the disk is full"));
        jobs.start(JobKind::Reindex, |_| panic!("a bug")).unwrap();
        let panicked = settled(&jobs, JobKind::Reindex);
        assert_eq!(panicked.state, JobState::Failed);
        let why = panicked.error.unwrap_or_default();
        assert!(why.contains("index rebuild stopped unexpectedly"), "{why}");
    }

    /// The backfill and the rebuild refuse to run together, each saying why; the download runs
    /// beside either.
    #[test]
    fn backfill_and_rebuild_exclude_each_other() {
        let jobs = Jobs::default();
        let (release, hold) = mpsc::channel::<()>();
        jobs.start(JobKind::Reindex, move |_| {
            hold.recv().unwrap();
            Ok(Outcome {
                cancelled: false,
                summary: "rebuilt".into(),
                progress: None,
                result: None,
            })
        })
        .unwrap();
        let refused = jobs
            .start(
                JobKind::Embeddings,
                |_| Err("ran beside the rebuild".into()),
            )
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);
        assert!(refused.message.contains("being rebuilt"), "{refused}");
        assert_eq!(jobs.status(JobKind::Embeddings).state, JobState::Idle);
        let download = jobs
            .start(JobKind::ModelDownload, |_| {
                Ok(Outcome {
                    cancelled: false,
                    summary: "fetched".into(),
                    progress: None,
                    result: None,
                })
            })
            .unwrap();
        assert_eq!(download.kind, JobKind::ModelDownload);
        assert_eq!(
            settled(&jobs, JobKind::ModelDownload).state,
            JobState::Finished
        );
        release.send(()).unwrap();
        assert_eq!(settled(&jobs, JobKind::Reindex).state, JobState::Finished);
    }
}
