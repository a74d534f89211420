//! Reconstruct (issue 19): "if capture ran again today over everything already recorded, what
//! would be different?" The person picks the algorithms (today's detectors or the configured
//! model) and optionally one work context, compares, reads the differences per work context, and
//! only then, after a confirmation naming what it changes, applies them (`docs/RECONSTRUCT.md`).
//!
//! The comparison replays every recorded capture window into a scratch copy of the store, which
//! takes seconds on a big one, so it runs as the shell's `reconstruct` job: this page starts it
//! with `reconstruct_start` and polls `jobs_get` until it ends. The job's last outcome is kept by
//! the shell, so leaving the page and coming back shows the last comparison again.
//!
//! `run.rs` holds the controls, `diff.rs` the report and the apply step.

mod diff;
mod run;

use elnor_types::{JobKind, JobResult, JobState, JobStatus, ReconstructStartRequest};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use diff::ReconstructResult;
use run::RunControls;

/// How often the job is read while it runs: each read is an in-memory snapshot in the shell.
const POLL_MS: i32 = 500;

/// The page's handle on the shell's reconstruct job, shared by the controls and the report.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReconstructJob {
    /// The job as last read.
    status: RwSignal<JobStatus>,
    /// Why the shell refused to start the job or to report it, when it did.
    error: RwSignal<Option<String>>,
    /// Whether a read loop runs, so that there is only ever one.
    polling: RwSignal<bool>,
    /// How long the running job has run, as counted by the read loop, for the progress line.
    elapsed_ms: RwSignal<u32>,
}

impl ReconstructJob {
    fn new() -> ReconstructJob {
        ReconstructJob {
            status: RwSignal::new(JobStatus::idle(JobKind::Reconstruct)),
            error: RwSignal::new(None),
            polling: RwSignal::new(false),
            elapsed_ms: RwSignal::new(0),
        }
    }

    fn running(self) -> bool {
        self.status.with(JobStatus::running)
    }

    /// Reads the job until it is no longer running. The loop ends with the page too: a disposed
    /// signal refuses the write.
    fn poll(self) {
        if self.polling.get_untracked() {
            return;
        }
        self.polling.set(true);
        spawn_local(async move {
            loop {
                match api::jobs_get().await {
                    Ok(all) => {
                        let Some(now) = all.into_iter().find(|j| j.kind == JobKind::Reconstruct)
                        else {
                            break;
                        };
                        let running = now.running();
                        if self.status.try_set(now).is_some() || !running {
                            break;
                        }
                    }
                    Err(e) => {
                        self.error.try_set(Some(e.message));
                        break;
                    }
                }
                api::sleep(POLL_MS).await;
                self.elapsed_ms.try_update(|ms| *ms += POLL_MS as u32);
            }
            self.polling.try_set(false);
        });
    }

    /// Starts a comparison, or with `request.apply` an apply, then follows it.
    fn start(self, request: ReconstructStartRequest) {
        self.error.set(None);
        self.elapsed_ms.set(0);
        spawn_local(async move {
            match api::reconstruct_start(request).await {
                Ok(status) => {
                    if self.status.try_set(status).is_none() {
                        self.poll();
                    }
                }
                Err(e) => {
                    self.error.try_set(Some(e.message));
                }
            }
        });
    }

    /// The report of the last job, once it has finished.
    fn report(self) -> Option<elnor_types::ReconstructReport> {
        self.status.with(|s| match (&s.state, &s.result) {
            (JobState::Finished, Some(JobResult::Reconstruct(r))) => Some(r.clone()),
            _ => None,
        })
    }
}

#[component]
pub fn ReconstructPage() -> impl IntoView {
    let job = ReconstructJob::new();
    // A comparison may have run (or still run) while the page was closed: read it once now.
    job.poll();
    let failed = move || {
        job.status.with(|s| {
            (s.state == JobState::Failed).then(|| {
                format!(
                    "The reconstruction failed: {}",
                    s.error.as_deref().unwrap_or("no reason was given")
                )
            })
        })
    };
    view! {
        <h2>"Reconstruct"</h2>
        <p class="hint">
            "If capture ran again today over everything already recorded, what would be "
            "different? Reconstruct replays every recorded capture window into a scratch copy of "
            "the store and compares it with what the store holds, per work context. Comparing "
            "changes nothing; applying is a separate step you confirm."
        </p>
        <RunControls job />
        {move || {
            job.error
                .get()
                .or_else(failed)
                .map(|e| view! { <div class="error" id="reconstruct-error" role="alert">{e}</div> })
        }}
        {move || job.report().map(|r| view! { <ReconstructResult report=r job /> })}
    }
}
