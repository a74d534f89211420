//! The local sentence embedder: all-MiniLM-L6-v2 run in-process, turning text into 384-dimension
//! unit vectors whose dot product says how close two texts are in meaning.
//!
//! It owns finding the model's files ([`default_dir`]), loading them ([`MiniLm::load`]) and
//! embedding batches of text on a couple of threads ([`MiniLm::embed`]). The tokenizer lives in
//! `wordpiece`, the network in `minilm`; both are written here rather than pulled in from an ML
//! framework, which keeps the build small and free of native libraries and the download to the
//! weights alone. The vectors agree with candle's BERT to about 1e-7, and the token ids with the
//! Hugging Face tokenizer's.
//!
//! The weights are not in the repository: `scripts/setup.sh test` fetches them, checked against a
//! pinned SHA-256, into `~/.cache/elnor/models/all-minilm-l6-v2/`. Without them search stays
//! lexical.

pub(crate) mod download;
mod minilm;
mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::base::error::{Error, Result};

use minilm::Encoder;
use wordpiece::WordPiece;

/// The length of every sentence vector.
pub(crate) const DIMS: usize = 384;

/// The model's folder under the cache folder, and the environment variable that overrides it.
const CACHE_SUBDIR: &str = "elnor/models/all-minilm-l6-v2";
const DIR_VAR: &str = "ELNOR_MINILM_DIR";
const WEIGHTS_FILE: &str = "model.safetensors";
const VOCAB_FILE: &str = "vocab.txt";

/// How many tokens one forward pass takes at most. Batching amortises the per-call overhead of
/// the matrix products, but measured gains stop well before this; the cap bounds the memory of the
/// largest intermediate (the feed-forward activations, 1536 floats a token: 6 MiB here) and keeps
/// batches small enough for the workers to share them out evenly.
const BATCH_TOKENS: usize = 1024;

/// Threads an [`MiniLm::embed`] call uses at most. Two keep a long indexing run from taking every
/// core of the machine the person is working on, while still halving its time.
const WORKERS: usize = 2;

/// all-MiniLM-L6-v2, loaded: its tokenizer and its weights.
pub(crate) struct MiniLm {
    tokenizer: WordPiece,
    encoder: Encoder,
}

impl MiniLm {
    /// Loads `model.safetensors` and `vocab.txt` from `dir`. A missing or unreadable file is an
    /// [`Error::Io`] naming it; a file that is not this model's is an [`Error::InvalidInput`]
    /// saying which file and what is wrong.
    pub(crate) fn load(dir: &Path) -> Result<MiniLm> {
        let vocab_path = dir.join(VOCAB_FILE);
        let vocab = std::fs::read(&vocab_path).map_err(|e| Error::io(&vocab_path, e))?;
        let vocab = String::from_utf8(vocab).map_err(|_| {
            Error::InvalidInput(format!(
                "vocabulary {} is not UTF-8 text: it is not the all-MiniLM-L6-v2 vocab.txt",
                vocab_path.display()
            ))
        })?;
        let tokenizer = WordPiece::from_vocab(&vocab, &vocab_path)?;

        let weights_path = dir.join(WEIGHTS_FILE);
        let weights = std::fs::read(&weights_path).map_err(|e| Error::io(&weights_path, e))?;
        let encoder = Encoder::from_safetensors(&weights, &weights_path)?;

        // Every id the tokenizer can produce needs a row in the embedding table; checking it here
        // lets the forward pass index the table without checks of its own.
        if tokenizer.id_bound() > encoder.vocab_rows() {
            return Err(Error::InvalidInput(format!(
                "vocabulary {} has {} tokens but the model {} embeds only {}: the two files are \
                 not from the same model",
                vocab_path.display(),
                tokenizer.id_bound(),
                weights_path.display(),
                encoder.vocab_rows()
            )));
        }
        Ok(MiniLm { tokenizer, encoder })
    }

    /// One unit vector of [`DIMS`] values for each text, in order. Texts longer than 256 tokens
    /// (about 190 words) are embedded from their start only, as the model was trained.
    pub(crate) fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.embed_in_batches(texts, BATCH_TOKENS)
    }

    /// [`MiniLm::embed`] with forward passes of at most `batch_tokens` tokens, so the tests can
    /// make several batches out of a few short texts.
    fn embed_in_batches(&self, texts: &[&str], batch_tokens: usize) -> Vec<Vec<f32>> {
        let seqs: Vec<Vec<u32>> = texts.iter().map(|t| self.tokenizer.encode(t)).collect();
        // The batches come in a multiple of the workers' number and of near-equal size, so the
        // workers finish together: with one batch fewer than workers, or a small last batch, one
        // thread did most of the work (measured: up to half the throughput lost).
        let tokens: usize = seqs.iter().map(Vec::len).sum();
        let parts = tokens
            .div_ceil(batch_tokens.max(1))
            .next_multiple_of(WORKERS)
            .max(WORKERS);
        let batches = batches(&seqs, tokens.div_ceil(parts).max(1));
        let workers = WORKERS.min(batches.len());
        if workers <= 1 {
            return batches.iter().flat_map(|b| self.encoder.embed(b)).collect();
        }
        // Workers take the next batch as they finish one, so a batch of long texts does not
        // leave the other thread idle; the results are put back in order afterwards.
        let next = AtomicUsize::new(0);
        let mut done: Vec<(usize, Vec<Vec<f32>>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(batch) = batches.get(i) else {
                                break mine;
                            };
                            mine.push((i, self.encoder.embed(batch)));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().flat_map(|(_, vectors)| vectors).collect()
    }
}

/// The built-in model's name for its vectors' folder.
pub(crate) const BUILTIN_ID: &str = "builtin-all-minilm-l6-v2";

/// A remote embedder's name for its vectors' folder: provider and model, in file-name-safe
/// characters.
pub(crate) fn remote_id(provider: &str, model: &str) -> String {
    format!("{provider}-{model}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// What turns text into vectors for search: the built-in model, or an embedding endpoint.
pub(crate) enum Embedder<'a> {
    Local(&'a MiniLm),
    /// An Ollama or OpenAI-compatible endpoint (the same two wire protocols as the synthesis
    /// model), with its key when it needs one.
    Remote {
        endpoint: crate::inputs::model::Endpoint,
        key: Option<String>,
    },
}

impl Embedder<'_> {
    /// Whether what it embeds leaves this machine: an endpoint that is not on it (a loopback or
    /// private address). A local-only work context's text is never sent to one.
    pub(crate) fn leaves_this_machine(&self) -> bool {
        matches!(self, Embedder::Remote { endpoint, .. } if !endpoint.is_local())
    }

    /// The embedder's name, which its vectors are kept under: vectors of two models do not
    /// compare, so each has its own folder and a change of model starts a new backfill.
    pub(crate) fn id(&self) -> String {
        match self {
            Embedder::Local(_) => BUILTIN_ID.to_owned(),
            Embedder::Remote { endpoint, .. } => {
                remote_id(endpoint.provider.as_str(), &endpoint.model)
            }
        }
    }

    /// One unit vector per text, in order. A remote failure is an [`Error::InvalidInput`] with
    /// the endpoint's reason (never its key).
    pub(crate) fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        match self {
            Embedder::Local(model) => Ok(model.embed(texts)),
            Embedder::Remote { endpoint, key } => {
                let mut vectors = crate::inputs::model::embed(endpoint, key.as_deref(), texts)
                    .map_err(|f| {
                        Error::InvalidInput(format!(
                            "embedding endpoint {}: {}",
                            endpoint.base_url,
                            f.reason()
                        ))
                    })?;
                // Unit length, so a dot product is the cosine whatever the endpoint returns.
                for v in &mut vectors {
                    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    if norm > 0.0 {
                        v.iter_mut().for_each(|x| *x /= norm);
                    }
                }
                Ok(vectors)
            }
        }
    }
}

/// Consecutive runs of sequences of at most `max_tokens` tokens together (a single longer
/// sequence is a batch of its own).
fn batches(seqs: &[Vec<u32>], max_tokens: usize) -> Vec<&[Vec<u32>]> {
    let mut out = Vec::new();
    let (mut start, mut tokens) = (0, 0);
    for (i, seq) in seqs.iter().enumerate() {
        if tokens + seq.len() > max_tokens && i > start {
            out.push(&seqs[start..i]);
            (start, tokens) = (i, 0);
        }
        tokens += seq.len();
    }
    if start < seqs.len() {
        out.push(&seqs[start..]);
    }
    out
}

/// Where the model's files are: `$ELNOR_MINILM_DIR` when set (even if the files are not there,
/// so that loading names the missing file rather than quietly doing without), else [`home_dir`]
/// when it holds the weights; `None` when neither.
pub(crate) fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(DIR_VAR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let dir = home_dir();
    dir.join(WEIGHTS_FILE).is_file().then_some(dir)
}

/// The model's usual folder, whether or not the files are there: the one `scripts/setup.sh`
/// fills, under the person's cache folder (`~/.cache/elnor/models/all-minilm-l6-v2` on Linux),
/// so that a message can say where to put them.
pub(crate) fn home_dir() -> PathBuf {
    directories::BaseDirs::new()
        .map(|b| b.cache_dir().to_path_buf())
        // Without a home folder there is no cache folder either; `~/.cache` still tells the
        // person reading a message where the files are expected.
        .unwrap_or_else(|| PathBuf::from("~/.cache"))
        .join(CACHE_SUBDIR)
}

#[cfg(test)]
pub(crate) mod tests;
