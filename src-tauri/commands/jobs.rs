//! The long jobs Settings' Search card starts (issue 16): `model_download_start` (the built-in
//! embedding model, checked against its pinned SHA-256s), `embeddings_start` (the embedding
//! backfill over everything indexed), `reindex_start` (the search index rebuilt), `job_cancel`
//! and `jobs_get` (which also reports the reconstruction `commands/reconstruct.rs` starts). Each
//! start is one engine call run by the app's job runner (`jobs.rs`) on its own thread; this
//! converts what the engine reports into the wire's progress and words.

use std::sync::Arc;

use elnor_engine::{DownloadProgress, DownloadReport, EmbedReport, OsKeyring, Store, SyncReport};
use elnor_types::commands as cmd;
use elnor_types::{Command, JobKind, JobProgress, ReplyOf, RequestOf};
use tauri::State;

use crate::jobs::{Jobs, Outcome};
use crate::state::AppState;

/// A count for the wire; there are never four billion model files.
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn download_progress(p: &DownloadProgress) -> JobProgress {
    JobProgress::Download {
        file: p.file.clone(),
        file_index: small(p.file_index),
        files: small(p.files),
        bytes: p.bytes,
        total: p.total,
    }
}

fn embed_progress(r: &EmbedReport) -> JobProgress {
    JobProgress::Embeddings {
        embedded: r.embedded,
        covered: r.covered,
        documents: r.documents,
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn download_outcome(r: &DownloadReport) -> Outcome {
    let summary = if r.cancelled {
        "Download cancelled; nothing partial was kept.".to_owned()
    } else if r.fetched.is_empty() {
        format!(
            "The model was already installed in {}, checked against its pinned SHA-256s.",
            r.dir.display()
        )
    } else {
        format!(
            "Downloaded {} ({}) into {}, each checked against its pinned SHA-256. Search uses \
             the model from the next query on.",
            r.fetched.join(" and "),
            megabytes(r.bytes),
            r.dir.display()
        )
    };
    Outcome {
        cancelled: r.cancelled,
        summary,
        progress: None,
        result: None,
    }
}

fn embed_outcome(r: &EmbedReport) -> Outcome {
    let mut reach = format!("{} of {} documents embedded", r.covered, r.documents);
    if r.kept_local > 0 {
        reach.push_str(&format!(
            "; {} of local-only work contexts kept off the embedder, which is not on this machine",
            r.kept_local
        ));
    }
    let summary = if r.cancelled {
        format!(
            "Cancelled after embedding {} documents: {reach}. Building again resumes from there.",
            r.embedded
        )
    } else {
        format!("Embedded {} documents: {reach}.", r.embedded)
    };
    Outcome {
        cancelled: r.cancelled,
        summary,
        progress: Some(embed_progress(r)),
        result: None,
    }
}

fn reindex_outcome(r: &SyncReport) -> Outcome {
    Outcome {
        cancelled: false,
        summary: format!("Rebuilt the search index: {} documents.", r.documents),
        progress: None,
        result: None,
    }
}

fn message(e: elnor_engine::Error) -> String {
    e.to_string()
}

/// Starts the model download on `jobs`.
pub(crate) fn start_download(jobs: &Jobs) -> ReplyOf<cmd::ModelDownloadStart> {
    jobs.start(JobKind::ModelDownload, |job| {
        elnor_engine::download_embedding_model(
            &mut |p| job.progress(download_progress(p)),
            job.cancel_flag(),
        )
        .map(|r| download_outcome(&r))
        .map_err(message)
    })
}

/// Starts the embedding backfill of everything on `jobs`.
pub(crate) fn start_embeddings(jobs: &Jobs, store: Arc<Store>) -> ReplyOf<cmd::EmbeddingsStart> {
    jobs.start(JobKind::Embeddings, move |job| {
        elnor_engine::embed(
            &store,
            &OsKeyring::new(),
            None,
            &mut |r| job.progress(embed_progress(r)),
            job.cancel_flag(),
        )
        .map(|r| embed_outcome(&r))
        .map_err(message)
    })
}

/// Starts the index rebuild on `jobs`.
pub(crate) fn start_reindex(jobs: &Jobs, store: Arc<Store>) -> ReplyOf<cmd::ReindexStart> {
    jobs.start(JobKind::Reindex, move |_| {
        elnor_engine::reindex(&store)
            .map(|r| reindex_outcome(&r))
            .map_err(message)
    })
}

#[tauri::command]
pub fn model_download_start(state: State<'_, AppState>) -> ReplyOf<cmd::ModelDownloadStart> {
    start_download(state.jobs())
}

#[tauri::command]
pub fn embeddings_start(state: State<'_, AppState>) -> ReplyOf<cmd::EmbeddingsStart> {
    start_embeddings(state.jobs(), state.store()?)
}

#[tauri::command]
pub fn reindex_start(state: State<'_, AppState>) -> ReplyOf<cmd::ReindexStart> {
    start_reindex(state.jobs(), state.store()?)
}

#[tauri::command]
pub fn job_cancel(
    state: State<'_, AppState>,
    request: RequestOf<cmd::JobCancel>,
) -> <cmd::JobCancel as Command>::Reply {
    state.jobs().cancel(request.kind)
}

#[tauri::command]
pub fn jobs_get(state: State<'_, AppState>) -> <cmd::JobsGet as Command>::Reply {
    state.jobs().snapshot()
}

#[cfg(test)]
mod tests {
    use elnor_types::JobState;

    use super::*;
    use crate::jobs::tests::settled;

    /// The rebuild runs the engine's reindex on the job's thread and says what it indexed.
    #[test]
    fn reindex_rebuilds_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let jobs = Jobs::default();
        start_reindex(&jobs, store.clone()).unwrap();
        let done = settled(&jobs, JobKind::Reindex);
        assert_eq!(done.state, JobState::Finished, "{done:?}");
        let summary = done.summary.unwrap_or_default();
        assert_eq!(summary, "Rebuilt the search index: 0 documents.");
    }

    /// The engine's reports become the wire's progress and words: file i of n with its bytes,
    /// and covered of documents, a cancelled backfill saying it resumes.
    #[test]
    fn reports_in_words() {
        let p = download_progress(&DownloadProgress {
            file: "model.safetensors".into(),
            file_index: 1,
            files: 2,
            bytes: 5,
            total: Some(9),
        });
        assert_eq!(
            p,
            JobProgress::Download {
                file: "model.safetensors".into(),
                file_index: 1,
                files: 2,
                bytes: 5,
                total: Some(9),
            }
        );
        let report = EmbedReport {
            embedded: 64,
            covered: 70,
            documents: 200,
            embedder: "builtin-all-minilm-l6-v2".into(),
            cancelled: true,
            kept_local: 0,
        };
        let outcome = embed_outcome(&report);
        assert!(outcome.cancelled);
        assert_eq!(
            outcome.summary,
            "Cancelled after embedding 64 documents: 70 of 200 documents embedded. Building \
             again resumes from there."
        );
        assert_eq!(
            outcome.progress,
            Some(JobProgress::Embeddings {
                embedded: 64,
                covered: 70,
                documents: 200
            })
        );
        let fetched = download_outcome(&DownloadReport {
            dir: "/m".into(),
            fetched: vec!["vocab.txt".into(), "model.safetensors".into()],
            bytes: 91_000_000,
            cancelled: false,
        });
        assert!(!fetched.cancelled);
        assert!(
            fetched
                .summary
                .starts_with("Downloaded vocab.txt and model.safetensors (91.0 MB) into /m"),
            "{}",
            fetched.summary
        );
    }
}
