//! The Search card: the embedder search uses and how far its embeddings reach, with the long jobs
//! that change that (issue 16): downloading the built-in model, building the embeddings, and
//! rebuilding the index. Each job runs in the shell's background; while one runs the card polls
//! `jobs_get` every half second for its progress, and offers Cancel where the engine can stop.

use elnor_types::{EmbedCoverage, JobKind, JobProgress, JobState, JobStatus};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::Loaded;

/// How often the jobs are read while one runs: often enough that a progress bar moves smoothly,
/// and each read is an in-memory snapshot in the shell.
const JOB_POLL_MS: i32 = 500;

/// What the card asks of the shell.
#[derive(Debug, Clone, Copy)]
enum JobCommand {
    Start(JobKind),
    Cancel(JobKind),
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The embedder in words.
fn embedder_line(c: &EmbedCoverage) -> String {
    if c.builtin {
        // The engine names a built-in model's vectors `builtin-<model>`, in lower case.
        let model = match c.embedder.strip_prefix("builtin-").unwrap_or(&c.embedder) {
            "all-minilm-l6-v2" => "all-MiniLM-L6-v2",
            other => other,
        };
        format!("The built-in model, {model}, run on this computer.")
    } else {
        format!(
            "The embedding endpoint {} (embedding_provider, embedding_base_url and \
             embedding_model above).",
            c.embedder
        )
    }
}

/// A running job's progress bar: `(value, max)`, or `None` while its size is not known yet.
fn bar(job: &JobStatus) -> Option<(f64, f64)> {
    match job.progress.as_ref()? {
        JobProgress::Download { bytes, total, .. } => {
            total.map(|t| (*bytes as f64, t.max(1) as f64))
        }
        JobProgress::Embeddings {
            covered, documents, ..
        } => Some((*covered as f64, (*documents).max(1) as f64)),
    }
}

/// The line under a job's button: its progress while it runs, else how it last ended.
fn status_line(job: &JobStatus) -> String {
    let failed = match job.kind {
        JobKind::ModelDownload => "The download failed",
        JobKind::Embeddings => "Building the embeddings failed",
        JobKind::Reindex => "Rebuilding the index failed",
        JobKind::Reconstruct => "The reconstruction failed",
    };
    match job.state {
        JobState::Idle => String::new(),
        JobState::Running if job.cancel_requested => "Cancelling…".to_owned(),
        JobState::Running => match &job.progress {
            Some(JobProgress::Download {
                file,
                file_index,
                files,
                bytes,
                total,
            }) => {
                let of = total.map(|t| format!(" of {}", megabytes(t)));
                format!(
                    "Downloading {file} (file {} of {files}): {}{}",
                    file_index + 1,
                    megabytes(*bytes),
                    of.unwrap_or_default()
                )
            }
            Some(JobProgress::Embeddings {
                covered, documents, ..
            }) => format!("Embedding… {covered} of {documents} documents embedded."),
            None => match job.kind {
                JobKind::ModelDownload => "Connecting…".to_owned(),
                JobKind::Embeddings => "Loading the embedder and the index…".to_owned(),
                JobKind::Reindex => "Rebuilding the search index…".to_owned(),
                JobKind::Reconstruct => "Replaying the recorded captures…".to_owned(),
            },
        },
        JobState::Finished | JobState::Cancelled => job.summary.clone().unwrap_or_default(),
        JobState::Failed => format!(
            "{failed}: {}",
            job.error.as_deref().unwrap_or("no reason was given")
        ),
    }
}

#[component]
pub(super) fn SearchCard() -> impl IntoView {
    // Bumped when a job ends, so the coverage shows what the job changed.
    let generation = RwSignal::new(0u32);
    let coverage = LocalResource::new(move || {
        generation.track();
        api::embeddings_get()
    });
    let jobs = RwSignal::new(Vec::<JobStatus>::new());
    let polling = RwSignal::new(false);
    let poll_error = RwSignal::new(None::<String>);
    // Reads the jobs until none runs. One loop at a time; it ends with the card, since a
    // disposed signal refuses the write.
    let poll = move || {
        if polling.get_untracked() {
            return;
        }
        polling.set(true);
        spawn_local(async move {
            loop {
                match api::jobs_get().await {
                    Ok(now) => {
                        let ended = jobs.try_with_untracked(|before| {
                            before.iter().any(|b| {
                                b.running() && now.iter().any(|n| n.kind == b.kind && !n.running())
                            })
                        });
                        let running = now.iter().any(JobStatus::running);
                        if jobs.try_set(now).is_some() {
                            break;
                        }
                        if ended == Some(true) {
                            generation.update(|g| *g += 1);
                        }
                        if !running {
                            break;
                        }
                    }
                    Err(e) => {
                        poll_error.set(Some(e.message));
                        break;
                    }
                }
                api::sleep(JOB_POLL_MS).await;
            }
            polling.try_set(false);
        });
    };
    // The jobs may have run while Settings was closed: read them once now.
    poll();
    let command = Action::new_local(move |c: &JobCommand| {
        let c = *c;
        async move {
            let status = match c {
                JobCommand::Start(JobKind::ModelDownload) => api::model_download_start().await,
                JobCommand::Start(JobKind::Embeddings) => api::embeddings_start().await,
                JobCommand::Start(JobKind::Reindex) => api::reindex_start().await,
                // The card offers no such button: a reconstruction needs the choices its own
                // page asks for.
                JobCommand::Start(JobKind::Reconstruct) => {
                    return Err("a reconstruction starts on the Reconstruct page".to_owned());
                }
                JobCommand::Cancel(kind) => api::job_cancel(kind).await,
            }
            .map_err(|e| e.message)?;
            jobs.update(|all| match all.iter_mut().find(|j| j.kind == status.kind) {
                Some(j) => *j = status,
                None => all.push(status),
            });
            poll();
            Ok::<(), String>(())
        }
    });
    let send = move |c: JobCommand| {
        poll_error.set(None);
        command.clear();
        command.dispatch_local(c);
    };
    let job = move |kind: JobKind| {
        jobs.with(|all| all.iter().find(|j| j.kind == kind).cloned())
            .unwrap_or_else(|| JobStatus::idle(kind))
    };
    let error = move || {
        command
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| poll_error.get())
    };
    // Until the coverage is read, the download is offered: a new install has the built-in model
    // configured and no model yet.
    let builtin = move || {
        coverage
            .get()
            .and_then(Result::ok)
            .is_none_or(|c| c.builtin)
    };

    let row = move |kind: JobKind, label: &'static str, busy: &'static str, cancel: bool| {
        let id = match kind {
            JobKind::ModelDownload => "model-download",
            JobKind::Embeddings => "embeddings",
            JobKind::Reindex => "reindex",
            JobKind::Reconstruct => "reconstruct",
        };
        view! {
            <div class="job" id=format!("{id}-job")>
                <button
                    class="primary"
                    id=format!("{id}-start")
                    prop:disabled=move || job(kind).running()
                    on:click=move |_| send(JobCommand::Start(kind))
                >
                    {move || if job(kind).running() { busy } else { label }}
                </button>
                {move || {
                    (cancel && job(kind).running())
                        .then(|| {
                            view! {
                                <button
                                    class="small"
                                    id=format!("{id}-cancel")
                                    prop:disabled=move || job(kind).cancel_requested
                                    on:click=move |_| send(JobCommand::Cancel(kind))
                                >
                                    "Cancel"
                                </button>
                            }
                        })
                }}
                {move || {
                    let j = job(kind);
                    j.running()
                        .then(|| bar(&j))
                        .flatten()
                        .map(|(value, max)| {
                            view! { <progress id=format!("{id}-progress") value=value max=max></progress> }
                        })
                }}
                <p
                    class="hint job-status"
                    class:error=move || job(kind).state == JobState::Failed
                    id=format!("{id}-status")
                    data-state=move || job(kind).state.as_str()
                >
                    {move || status_line(&job(kind))}
                </p>
            </div>
        }
    };

    view! {
        <div class="card" id="search-settings">
            <h3>"Search"</h3>
            <p class="hint">
                "Search finds by the words, and by meaning once the documents are embedded. "
                "Embedding runs on this computer with the built-in model, or through the "
                "embedding endpoint the embedding fields above name."
            </p>
            <Loaded resource=coverage loading="Reading the embeddings…" let:c>
                <p id="embedder">{embedder_line(&c)}</p>
                <p class="hint" id="embed-coverage">
                    {format!("{} of {} documents embedded.", c.covered, c.documents)}
                </p>
            </Loaded>
            {move || {
                builtin()
                    .then(|| {
                        view! {
                            <p class="hint">
                                "The built-in model (91 MB) is downloaded once, from its home on "
                                "Hugging Face, and checked against its pinned SHA-256s."
                            </p>
                            {row(JobKind::ModelDownload, "Download model", "Downloading…", true)}
                        }
                    })
            }}
            {row(JobKind::Embeddings, "Build embeddings", "Building…", true)}
            {row(JobKind::Reindex, "Rebuild index", "Rebuilding…", false)}
            {move || error().map(|e| view! { <div class="error" id="search-jobs-error" role="alert">{e}</div> })}
        </div>
    }
}
