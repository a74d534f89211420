//! Embedding vectors beside the search index, and the nearest neighbours of a query.
//!
//! Each embedder has its own folder, `index/vectors/<embedder>/` (vectors of two models do not
//! compare): `vectors.f32` holds one vector of `dims` little-endian `f32`s per embedded document,
//! `vectors.ids` the document's `doc_id` on the line of the same number, and `dims` the vector
//! length, written with the first batch. They sit beside the index rather than in it: document
//! ids are stable (`turn:{seq}`, `entry:{id}`), so `elnor reindex` keeps the vectors instead of
//! embedding everything again. Both only grow: a backfill appends a batch and then its ids, so a
//! run cut short (or cancelled) loses at most that batch and the next run goes on where it
//! stopped (an id line without its vector is never written; a vector without its id line is cut
//! off on load). Like the index they are derived: deleting them means embedding again.
//!
//! Nearest neighbours are a brute-force cosine (the vectors are normalised, so a dot product),
//! over compact forms held in memory by the open index and reloaded only when the backfill has
//! appended: each vector as signed bytes with a scale, and as its sign bits. A filtered query
//! scores its allowed rows in bytes; an unfiltered one over a large store first keeps the rows
//! whose sign bits are closest, scores those in bytes, and rescores the best few with the exact
//! `f32`s read back from the file. At SPEC §14's scale (2 M turns) that is 0.9 GB in memory
//! instead of 3 GB of `f32`; the search benchmark reports what a query costs there.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;
use tantivy::collector::DocSetCollector;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::{TantivyDocument, Term};

use super::embed::Embedder;
use super::{DocKind, SearchIndex, index_err};
use crate::base::error::{Error, Result};

/// How many documents one backfill batch embeds before it is written down.
const BATCH: usize = 64;
/// The longest text embedded per document, in characters (about 130 tokens): the model reads 256
/// at most, and a turn's opening carries most of what it is about.
const EMBED_CHARS: usize = 600;

/// How many candidates the quantised scan hands to the exact rescoring, per result asked for.
const RESCORE_FACTOR: usize = 4;

/// From this many vectors on, an unfiltered search first ranks every vector by the Hamming
/// distance of its sign bits to the query's (48 bytes a vector instead of 384, compared by
/// popcount) and scores only the closest [`BINARY_KEEP`] with the signed bytes: the byte scan of
/// two million vectors takes longer than a query may. Sign bits order vectors only roughly, so
/// the prefilter keeps generously (1% of two million); scoring those in bytes costs a few
/// milliseconds. Its recall is checked on clustered vectors in the tests; on real embeddings at
/// that scale it is not yet measured.
const BINARY_FROM: usize = 100_000;
const BINARY_KEEP: usize = 20_000;

/// Threads one full scan uses: the scan is bound by memory bandwidth, and two keep it from taking
/// every core of the person's machine.
const SCAN_THREADS: usize = 2;

/// The vectors on disk, loaded for search: each as `dims` signed bytes with its own scale (a
/// quarter of the `f32`s' memory, and integer dot products the compiler vectorises), looked up by
/// the 64-bit key of its document id. The ranking the bytes give is refined by rescoring the best
/// candidates with their exact `f32` values, read back from the file.
pub(crate) struct Vectors {
    pub(crate) ids: Vec<String>,
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// The sign of each value, 64 to a word, `words` words a vector.
    bits: Vec<u64>,
    words: usize,
    row_of: std::collections::HashMap<u64, u32>,
    dims: usize,
    data_path: PathBuf,
}

/// The 64-bit key of a document id (FNV-1a): what the index stores as a fast field, so a filter's
/// documents map to vector rows without reading a stored string per document.
pub(crate) fn key_of(doc_id: &str) -> u64 {
    doc_id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A vector as signed bytes and the scale that brings them back: `x ≈ code × scale`.
fn quantise(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    (v.iter().map(|x| (x / scale).round() as i8).collect(), scale)
}

/// A vector's sign bits, 64 to a word.
pub(super) fn sign_bits(v: &[f32]) -> Vec<u64> {
    v.chunks(64)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u64, |w, (i, x)| if *x > 0.0 { w | (1 << i) } else { w })
        })
        .collect()
}

/// The dot product of two byte vectors.
pub(super) fn dot_codes(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU running this has AVX2, the one feature the function is compiled for.
        return unsafe { fast::dot_codes(a, b) };
    }
    dot_codes_portable(a, b)
}

#[inline(always)]
pub(super) fn dot_codes_portable(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum()
}

/// The Hamming distance of each row's sign bits (`q.len()` words a row) to `q`, written to
/// `distances` (one per row), with `histogram[d]` counting the rows at distance `d`.
pub(super) fn hamming_distances(
    bits: &[u64],
    q: &[u64],
    distances: &mut [u16],
    histogram: &mut [u32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") && std::arch::is_x86_feature_detected!("avx2")
    {
        // SAFETY: the CPU running this has both features the function is compiled for.
        return unsafe { fast::hamming_distances(bits, q, distances, histogram) };
    }
    hamming_distances_portable(bits, q, distances, histogram)
}

#[inline(always)]
pub(super) fn hamming_distances_portable(
    bits: &[u64],
    q: &[u64],
    distances: &mut [u16],
    histogram: &mut [u32],
) {
    // The built-in model's 384 dimensions are six words: a fixed width lets the compiler unroll
    // the row. Plain loops, so that everything inlines into the caller compiled for `popcnt`.
    match <&[u64; 6]>::try_from(q) {
        Ok(q) => {
            for (row, out) in bits.chunks_exact(6).zip(distances.iter_mut()) {
                let mut d = 0;
                for i in 0..6 {
                    d += (row[i] ^ q[i]).count_ones();
                }
                histogram[d as usize] += 1;
                *out = d as u16;
            }
        }
        Err(_) => {
            for (row, out) in bits.chunks_exact(q.len().max(1)).zip(distances.iter_mut()) {
                let mut d = 0;
                for (a, b) in row.iter().zip(q) {
                    d += (a ^ b).count_ones();
                }
                histogram[d as usize] += 1;
                *out = d as u16;
            }
        }
    }
}

/// The two loops a query over every vector spends its time in, compiled for the instructions
/// almost every x86-64 machine of the last decade has: without them the build's baseline counts
/// bits with a dozen shifts and masks per word, and multiplies bytes four at a time. Which
/// version runs is decided on the machine at run time.
#[cfg(target_arch = "x86_64")]
mod fast {
    #[target_feature(enable = "avx2")]
    pub(super) fn dot_codes(a: &[i8], b: &[i8]) -> i32 {
        super::dot_codes_portable(a, b)
    }

    #[target_feature(enable = "popcnt,avx2")]
    pub(super) fn hamming_distances(
        bits: &[u64],
        q: &[u64],
        distances: &mut [u16],
        histogram: &mut [u32],
    ) {
        super::hamming_distances_portable(bits, q, distances, histogram)
    }
}

impl Vectors {
    /// The vector folder of `embedder` for the index in `index_dir`
    /// (`index/search/` → `index/vectors/<embedder>/`).
    fn folder(index_dir: &Path, embedder: &str) -> PathBuf {
        index_dir
            .parent()
            .unwrap_or(index_dir)
            .join("vectors")
            .join(embedder)
    }

    /// Loads what the backfill wrote; missing files are an empty set. The file is read a batch
    /// of rows at a time, so loading holds the bytes form only, never every `f32` at once.
    pub(crate) fn load(folder: &Path) -> Result<Vectors> {
        let data_path = folder.join("vectors.f32");
        let dims: usize = match fs::read_to_string(folder.join("dims")) {
            Ok(text) => text.trim().parse().unwrap_or(0),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(Error::io(folder.join("dims"), e)),
        };
        let ids_path = folder.join("vectors.ids");
        let mut ids: Vec<String> = match fs::read_to_string(&ids_path) {
            // Only whole lines are ids: a crash in the middle of appending them can leave the
            // start of one without its newline, which names no document.
            Ok(text) => text
                .split_inclusive('\n')
                .filter_map(|l| l.strip_suffix('\n'))
                .map(str::to_owned)
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&ids_path, e)),
        };
        let mut out = Vectors {
            ids: Vec::new(),
            codes: Vec::new(),
            scales: Vec::new(),
            bits: Vec::new(),
            words: dims.div_ceil(64),
            row_of: Default::default(),
            dims,
            data_path: data_path.clone(),
        };
        if dims == 0 {
            return Ok(out);
        }
        let rows_on_disk = match fs::metadata(&data_path) {
            Ok(m) => (m.len() / (dims as u64 * 4)) as usize,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(Error::io(&data_path, e)),
        };
        let rows = rows_on_disk.min(ids.len());
        ids.truncate(rows);
        out.codes.reserve(rows * dims);
        out.scales.reserve(rows);
        if rows > 0 {
            let mut file = File::open(&data_path).map_err(|e| Error::io(&data_path, e))?;
            let mut buf = vec![0u8; dims * 4 * 4096];
            let mut done = 0;
            while done < rows {
                let take = (rows - done).min(4096);
                let bytes = &mut buf[..take * dims * 4];
                std::io::Read::read_exact(&mut file, bytes)
                    .map_err(|e| Error::io(&data_path, e))?;
                for row in bytes.chunks_exact(dims * 4) {
                    let v: Vec<f32> = row
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect();
                    let (codes, scale) = quantise(&v);
                    out.codes.extend(codes);
                    out.scales.push(scale);
                    out.bits.extend(sign_bits(&v));
                }
                done += take;
            }
        }
        out.row_of = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (key_of(id), i as u32))
            .collect();
        out.ids = ids;
        Ok(out)
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The `limit` documents nearest to `query` among those whose keys are `allowed` (all when
    /// `None`), best first, with their cosine similarity. The bytes rank every candidate; the
    /// best `limit × 4` are rescored exactly. A query of another length than the stored vectors
    /// (the embedder changed its model under the same name) finds nothing.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        allowed: Option<&[u64]>,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        self.nearest_from(query, allowed, limit, BINARY_FROM)
    }

    /// [`nearest`](Self::nearest), with the store size from which the sign-bit prefilter runs
    /// (the tests make it run on a small set).
    pub(crate) fn nearest_from(
        &self,
        query: &[f32],
        allowed: Option<&[u64]>,
        limit: usize,
        binary_from: usize,
    ) -> Result<Vec<(String, f32)>> {
        if self.dims == 0 || query.len() != self.dims || limit == 0 {
            return Ok(Vec::new());
        }
        let (q, _) = quantise(query);
        let score = |row: usize| {
            let codes = &self.codes[row * self.dims..(row + 1) * self.dims];
            dot_codes(&q, codes) as f32 * self.scales[row]
        };
        let keep = limit * RESCORE_FACTOR;
        let mut candidates: Vec<(f32, usize)> = match allowed {
            Some(keys) => {
                let rows: Vec<usize> = keys
                    .iter()
                    .filter_map(|k| self.row_of.get(k))
                    .map(|&row| row as usize)
                    .collect();
                score_rows(&rows, &score)
            }
            None if self.len() >= binary_from => {
                let q_bits = sign_bits(query);
                score_rows(&self.closest_signs(&q_bits, BINARY_KEEP.max(keep)), &score)
            }
            None => self.scan(score, keep),
        };
        top(&mut candidates, keep);
        self.rescore(query, candidates, limit)
    }

    /// Scores every row with `score` on [`SCAN_THREADS`] threads and keeps the best `keep`.
    fn scan(&self, score: impl Fn(usize) -> f32 + Sync, keep: usize) -> Vec<(f32, usize)> {
        let mut all: Vec<(f32, usize)> = in_parts(self.len(), |part| {
            let mut best: Vec<(f32, usize)> = part.map(|row| (score(row), row)).collect();
            top(&mut best, keep);
            best
        })
        .into_iter()
        .flatten()
        .collect();
        top(&mut all, keep);
        all
    }

    /// The `keep` rows whose sign bits differ least from `q_bits`, ties to the lower row. A
    /// distance is at most `dims`, so rather than sorting two million scores this counts the rows
    /// at each distance: one pass on [`SCAN_THREADS`] threads writes every row's distance (two
    /// bytes) and a histogram; the histogram gives the cut-off distance, and a second pass over
    /// the distances, not the bits, takes the rows inside it.
    pub(super) fn closest_signs(&self, q_bits: &[u64], keep: usize) -> Vec<usize> {
        let rows = self.len();
        let buckets = self.words * 64 + 1;
        // Each part's first row, its rows' distances and its histogram.
        let passes: Vec<(usize, Vec<u16>, Vec<u32>)> = in_parts(rows, |part| {
            let mut histogram = vec![0u32; buckets];
            let mut distances = vec![0u16; part.len()];
            hamming_distances(
                &self.bits[part.start * self.words..part.end * self.words],
                q_bits,
                &mut distances,
                &mut histogram,
            );
            (part.start, distances, histogram)
        });
        // The smallest distance `cut` with at least `keep` rows at or under it: every row closer
        // than `cut` is kept, and rows at `cut` in row order until `keep` are.
        let mut below = 0usize;
        let mut cut = buckets;
        for d in 0..buckets {
            let at: usize = passes.iter().map(|(_, _, h)| h[d] as usize).sum();
            if below + at >= keep {
                cut = d;
                break;
            }
            below += at;
        }
        let mut room_at_cut = keep - below.min(keep);
        let mut out = Vec::with_capacity(keep.min(rows));
        for (start, distances, _) in &passes {
            for (j, &d) in distances.iter().enumerate() {
                let d = usize::from(d);
                if d < cut || (d == cut && room_at_cut > 0) {
                    if d == cut {
                        room_at_cut -= 1;
                    }
                    out.push(start + j);
                }
            }
        }
        out
    }

    /// The candidates' exact similarities, read back from the file, best `limit` first.
    fn rescore(
        &self,
        query: &[f32],
        candidates: Vec<(f32, usize)>,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        // Rescore with the exact values: the bytes order near-ties only roughly.
        let mut file = File::open(&self.data_path).map_err(|e| Error::io(&self.data_path, e))?;
        let mut row_bytes = vec![0u8; self.dims * 4];
        let mut exact: Vec<(f32, usize)> = Vec::with_capacity(candidates.len());
        for (_, row) in candidates {
            use std::io::{Read, Seek, SeekFrom};
            file.seek(SeekFrom::Start((row * self.dims * 4) as u64))
                .and_then(|_| file.read_exact(&mut row_bytes))
                .map_err(|e| Error::io(&self.data_path, e))?;
            let similarity = row_bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .zip(query)
                .map(|(a, b)| a * b)
                .sum();
            exact.push((similarity, row));
        }
        exact.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(exact
            .into_iter()
            .take(limit)
            .map(|(s, row)| (self.ids[row].clone(), s))
            .collect())
    }
}

/// `score` of each of `rows`, on [`SCAN_THREADS`] threads when there are enough rows to be worth
/// a thread: each score reads a row's bytes from wherever they lie, so the rows are bound by
/// memory latency and two threads wait for two at once.
fn score_rows(rows: &[usize], score: &(impl Fn(usize) -> f32 + Sync)) -> Vec<(f32, usize)> {
    if rows.len() < 4_096 {
        return rows.iter().map(|&row| (score(row), row)).collect();
    }
    in_parts(rows.len(), |part| {
        rows[part]
            .iter()
            .map(|&row| (score(row), row))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `work` of each of [`SCAN_THREADS`] consecutive parts of `0..len`, each on its own thread, in
/// the parts' order. A panic in a part is raised again here.
fn in_parts<T: Send>(len: usize, work: impl Fn(std::ops::Range<usize>) -> T + Sync) -> Vec<T> {
    let part = len.div_ceil(SCAN_THREADS).max(1);
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..len)
            .step_by(part)
            .map(|start| scope.spawn(move || work(start..(start + part).min(len))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Keeps the `k` best of `scored` (in no particular order), in linear time.
fn top(scored: &mut Vec<(f32, usize)>, k: usize) {
    if scored.len() > k && k > 0 {
        scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(k);
    }
}

/// What must stay on this machine when the embedder is not on it: the local-only work contexts,
/// and the sessions the graph links to them now. A document is matched by either, so a session
/// linked to a local-only context after its turns were indexed is kept back too.
#[derive(Debug, Default)]
pub(crate) struct LocalOnly {
    pub(crate) contexts: HashSet<String>,
    pub(crate) sessions: HashSet<String>,
}

impl LocalOnly {
    fn is_empty(&self) -> bool {
        self.contexts.is_empty() && self.sessions.is_empty()
    }
}

/// What a backfill did, and how far the vectors reach.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EmbedReport {
    /// Documents embedded by this run.
    pub embedded: u64,
    /// Documents with a vector, and documents in the index, after it.
    pub covered: u64,
    pub documents: u64,
    /// The embedder the vectors belong to.
    pub embedder: String,
    /// Whether the run stopped because it was cancelled (what it finished is kept).
    pub cancelled: bool,
    /// Documents of local-only work contexts left without a vector because the embedder is off
    /// this machine: their text is never sent there, and searches find them by their words.
    pub kept_local: u64,
}

impl SearchIndex {
    /// `embedder`'s vectors, loaded once and again only when the backfill has appended since.
    pub(crate) fn vectors(&self, embedder: &str) -> Result<std::sync::Arc<Vectors>> {
        let folder = Vectors::folder(&self.dir, embedder);
        let size = fs::metadata(folder.join("vectors.f32"))
            .map(|m| m.len())
            .unwrap_or(0);
        let mut cached = self
            .vectors
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((id, at, v)) = cached.as_ref()
            && id == embedder
            && *at == size
        {
            return Ok(v.clone());
        }
        let loaded = std::sync::Arc::new(Vectors::load(&folder)?);
        *cached = Some((embedder.to_owned(), size, loaded.clone()));
        Ok(loaded)
    }

    /// Embeds documents that have no vector yet, entries and summaries first, then turns newest
    /// first, at most `limit` of them (all when `None`); `progress` hears after every batch, and
    /// setting `cancel` stops the run after the batch in hand (what it finished is kept).
    pub fn embed_pending(
        &self,
        embedder: &Embedder<'_>,
        kept_local: &LocalOnly,
        limit: Option<usize>,
        progress: &mut dyn FnMut(&EmbedReport),
        cancel: &AtomicBool,
    ) -> Result<EmbedReport> {
        let f = self.fields;
        let id = embedder.id();
        let vectors = self.vectors(&id)?;
        let have: HashSet<String> = vectors.ids.iter().cloned().collect();
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let mut todo: Vec<(u8, i64, String, String)> = Vec::new();
        let mut skipped_local = 0;
        for segment in searcher.segment_readers() {
            let store = segment
                .get_store_reader(64)
                .map_err(|e| index_err(&self.dir, e))?;
            for doc in segment.doc_ids_alive() {
                let doc: TantivyDocument = store.get(doc).map_err(|e| index_err(&self.dir, e))?;
                let doc_id = self.text_of(&doc, f.doc_id);
                if have.contains(&doc_id) {
                    continue;
                }
                if !kept_local.is_empty()
                    && (kept_local
                        .contexts
                        .contains(&self.text_of(&doc, f.work_context_id))
                        || kept_local
                            .sessions
                            .contains(&self.text_of(&doc, f.session_id)))
                {
                    skipped_local += 1;
                    continue;
                }
                let text = Some(self.text_of(&doc, f.text))
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or_else(|| self.text_of(&doc, f.tool));
                let kind = DocKind::parse(&self.text_of(&doc, f.kind)).unwrap_or(DocKind::Turn);
                let order = if kind == DocKind::Turn { 1 } else { 0 };
                let at = doc.get_first(f.at).and_then(|v| v.as_i64()).unwrap_or(0);
                todo.push((order, -at, doc_id, super::bounded(&text, EMBED_CHARS)));
            }
        }
        todo.sort();
        if let Some(limit) = limit {
            todo.truncate(limit);
        }
        let documents = searcher.num_docs();
        let mut report = EmbedReport {
            embedded: 0,
            covered: have.len() as u64,
            documents,
            embedder: id.clone(),
            cancelled: false,
            kept_local: skipped_local,
        };
        let folder = Vectors::folder(&self.dir, &id);
        let mut dims = vectors.dims;
        if dims > 0 {
            // A run killed between its two appends leaves vectors without ids (or half a vector,
            // or half an id line). Loading ignores them, but the next append must not land after
            // them, or every later id would name the wrong vector: cut both files back first.
            cut_to_rows(&folder, dims, vectors.ids.len())?;
        }
        // Said once before the first batch, so a caller shows where the run starts from at once.
        progress(&report);
        for batch in todo.chunks(BATCH) {
            if cancel.load(Ordering::Relaxed) {
                report.cancelled = true;
                break;
            }
            let texts: Vec<&str> = batch.iter().map(|(.., t)| t.as_str()).collect();
            let embedded = embedder.embed(&texts, super::embed::Purpose::Passage)?;
            let Some(len) = embedded.first().map(Vec::len) else {
                continue;
            };
            if dims == 0 {
                fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
                crate::base::fsutil::atomic_write(
                    &folder.join("dims"),
                    len.to_string().as_bytes(),
                )?;
                dims = len;
            } else if len != dims {
                return Err(Error::InvalidInput(format!(
                    "the embedder {id} now returns vectors of {len} values, not {dims}: delete {} \
                     to embed again with the new model",
                    folder.display()
                )));
            }
            let mut bytes = Vec::with_capacity(batch.len() * dims * 4);
            for v in &embedded {
                bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            }
            // The vectors first, then their ids: a crash between the two leaves vectors without
            // ids, which loading cuts off, never an id pointing at a missing vector.
            append(&folder.join("vectors.f32"), &bytes)?;
            let ids: String = batch
                .iter()
                .map(|(_, _, id, _)| format!("{id}\n"))
                .collect();
            append(&folder.join("vectors.ids"), ids.as_bytes())?;
            report.embedded += batch.len() as u64;
            report.covered += batch.len() as u64;
            progress(&report);
        }
        Ok(report)
    }

    /// How far `embedder`'s vectors reach: documents with a vector, of those in the index.
    pub fn embed_status(&self, embedder: &str) -> Result<EmbedReport> {
        let vectors = self.vectors(embedder)?;
        Ok(EmbedReport {
            embedded: 0,
            covered: vectors.len() as u64,
            documents: self.reader()?.searcher().num_docs(),
            embedder: embedder.to_owned(),
            cancelled: false,
            kept_local: 0,
        })
    }

    /// The keys ([`key_of`]) of the documents a filter query lets through, read from the
    /// index's `key` fast field: no stored document is opened, so a filter matching most of a
    /// large store costs a column read per document.
    pub(crate) fn allowed(
        &self,
        searcher: &tantivy::Searcher,
        filter: &dyn Query,
    ) -> Result<Vec<u64>> {
        let docs = searcher
            .search(filter, &DocSetCollector)
            .map_err(|e| index_err(&self.dir, e))?;
        let mut keys = super::fast::FastValues::<u64>::new(searcher, "key");
        let mut out = Vec::with_capacity(docs.len());
        for addr in docs {
            if let Some(key) = keys.first(addr).map_err(|e| index_err(&self.dir, e))? {
                out.push(key);
            }
        }
        Ok(out)
    }

    /// The stored document with this `doc_id`, if any.
    pub(crate) fn by_doc_id(
        &self,
        searcher: &tantivy::Searcher,
        id: &str,
    ) -> Result<Option<TantivyDocument>> {
        let query = tantivy::query::TermQuery::new(
            Term::from_field_text(self.fields.doc_id, id),
            tantivy::schema::IndexRecordOption::Basic,
        );
        let top = searcher
            .search(
                &query,
                &tantivy::collector::TopDocs::with_limit(1).order_by_score(),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        top.first()
            .map(|(_, addr)| searcher.doc(*addr).map_err(|e| index_err(&self.dir, e)))
            .transpose()
    }
}

/// Cuts `vectors.f32` and `vectors.ids` in `folder` back to their first `rows` rows, the ones
/// whose vector and id were both written whole (what [`Vectors::load`] reads), fsyncing what it
/// cut. Bytes past them are the remains of an interrupted batch, which the run embeds again.
fn cut_to_rows(folder: &Path, dims: usize, rows: usize) -> Result<()> {
    let data = folder.join("vectors.f32");
    truncate_longer(&data, (rows * dims * 4) as u64)?;
    let ids_path = folder.join("vectors.ids");
    let ids = match fs::read(&ids_path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(&ids_path, e)),
    };
    let keep = if rows == 0 {
        0
    } else {
        ids.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(rows - 1)
            .map_or(ids.len(), |(i, _)| i + 1)
    };
    truncate_longer(&ids_path, keep as u64)
}

/// Shortens the file at `path` to `len` bytes when it is longer (a missing file is left so).
fn truncate_longer(path: &Path, len: u64) -> Result<()> {
    let file = match OpenOptions::new().write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, e)),
    };
    if file.metadata().map_err(|e| Error::io(path, e))?.len() > len {
        file.set_len(len).map_err(|e| Error::io(path, e))?;
        file.sync_all().map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

fn append(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut file: File = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all(bytes).map_err(|e| Error::io(path, e))?;
    file.sync_data().map_err(|e| Error::io(path, e))
}
