//! Embedding vectors beside the search index, and the nearest neighbours of a query.
//!
//! `index/vectors/vectors.f32` holds one vector of [`DIMS`] little-endian `f32`s per embedded
//! document, and `vectors.ids` the document's `doc_id` on the line of the same number. They sit
//! beside the index rather than in it: document ids are stable (`turn:{seq}`, `entry:{id}`), so
//! `elnor reindex` keeps the vectors instead of embedding everything again. Both only
//! grow: a backfill appends a batch and then its ids, so a run cut short loses at most that batch
//! and the next run goes on where it stopped (an id line without its vector is never written; a
//! vector without its id line is cut off on load). Like the index they are derived: deleting them
//! means embedding again.
//!
//! Nearest neighbours are a brute-force cosine over every vector (they are normalised, so a dot
//! product): 384 multiplications per document per query. The vectors are held in memory by the
//! open index and reloaded only when the backfill has appended; at SPEC §14's scale (2 M turns)
//! that is 3 GB of `f32`, which is why a quantised or graph index is the next step there (the
//! search benchmark reports the cost at the scale it embedded).

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::collector::DocSetCollector;
use tantivy::query::Query;
use tantivy::schema::Value;
use tantivy::{TantivyDocument, Term};

use super::embed::{DIMS, MiniLm};
use super::{DocKind, SearchIndex, index_err};
use crate::base::error::{Error, Result};

/// How many documents one backfill batch embeds before it is written down.
const BATCH: usize = 64;
/// The longest text embedded per document, in characters (about 130 tokens): the model reads 256
/// at most, and a turn's opening carries most of what it is about.
const EMBED_CHARS: usize = 600;

/// The vectors on disk, loaded.
pub(crate) struct Vectors {
    pub(crate) ids: Vec<String>,
    data: Vec<f32>,
}

impl Vectors {
    /// The vector files of the index in `index_dir` (`index/search/` → `index/vectors/`).
    fn paths(index_dir: &Path) -> (PathBuf, PathBuf) {
        let dir = index_dir.parent().unwrap_or(index_dir).join("vectors");
        (dir.join("vectors.f32"), dir.join("vectors.ids"))
    }

    /// Loads what the backfill wrote; missing files are an empty set.
    pub(crate) fn load(dir: &Path) -> Result<Vectors> {
        let (data_path, ids_path) = Self::paths(dir);
        let ids: Vec<String> = match fs::read_to_string(&ids_path) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&ids_path, e)),
        };
        let bytes = match fs::read(&data_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&data_path, e)),
        };
        let whole = (bytes.len() / (DIMS * 4)).min(ids.len());
        let data = bytes[..whole * DIMS * 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Vectors {
            ids: ids[..whole].to_vec(),
            data,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The `limit` documents nearest to `query` among those `allowed` (all when `None`), best
    /// first, with their cosine similarity.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        allowed: Option<&HashSet<String>>,
        limit: usize,
    ) -> Vec<(String, f32)> {
        let mut scored: Vec<(usize, f32)> = self
            .data
            .chunks_exact(DIMS)
            .enumerate()
            .filter(|(i, _)| allowed.is_none_or(|a| a.contains(&self.ids[*i])))
            .map(|(i, v)| (i, v.iter().zip(query).map(|(a, b)| a * b).sum()))
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(limit)
            .map(|(i, s)| (self.ids[i].clone(), s))
            .collect()
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
}

impl SearchIndex {
    /// The vectors, loaded once and again only when the backfill has appended to them since.
    pub(crate) fn vectors(&self) -> Result<std::sync::Arc<Vectors>> {
        let (data_path, _) = Vectors::paths(&self.dir);
        let size = fs::metadata(&data_path).map(|m| m.len()).unwrap_or(0);
        let mut cached = self
            .vectors
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((at, v)) = cached.as_ref()
            && *at == size
        {
            return Ok(v.clone());
        }
        let loaded = std::sync::Arc::new(Vectors::load(&self.dir)?);
        *cached = Some((size, loaded.clone()));
        Ok(loaded)
    }

    /// Embeds documents that have no vector yet, entries and summaries first, then turns newest
    /// first, at most `limit` of them (all when `None`); `progress` hears after every batch.
    pub fn embed_pending(
        &self,
        model: &MiniLm,
        limit: Option<usize>,
        progress: &mut dyn FnMut(&EmbedReport),
    ) -> Result<EmbedReport> {
        let f = self.fields;
        let vectors = self.vectors()?;
        let have: HashSet<String> = vectors.ids.iter().cloned().collect();
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let mut todo: Vec<(u8, i64, String, String)> = Vec::new();
        for segment in searcher.segment_readers() {
            let store = segment
                .get_store_reader(64)
                .map_err(|e| index_err(&self.dir, e))?;
            for doc in segment.doc_ids_alive() {
                let doc: TantivyDocument = store.get(doc).map_err(|e| index_err(&self.dir, e))?;
                let id = self.text_of(&doc, f.doc_id);
                if have.contains(&id) {
                    continue;
                }
                let text = Some(self.text_of(&doc, f.text))
                    .filter(|t| !t.trim().is_empty())
                    .unwrap_or_else(|| self.text_of(&doc, f.tool));
                let kind = DocKind::parse(&self.text_of(&doc, f.kind)).unwrap_or(DocKind::Turn);
                let order = if kind == DocKind::Turn { 1 } else { 0 };
                let at = doc.get_first(f.at).and_then(|v| v.as_i64()).unwrap_or(0);
                todo.push((order, -at, id, super::bounded(&text, EMBED_CHARS)));
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
        };
        let (data_path, ids_path) = Vectors::paths(&self.dir);
        for batch in todo.chunks(BATCH) {
            let texts: Vec<&str> = batch.iter().map(|(.., t)| t.as_str()).collect();
            let embedded = model.embed(&texts);
            let mut bytes = Vec::with_capacity(batch.len() * DIMS * 4);
            for v in &embedded {
                bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            }
            // The vectors first, then their ids: a crash between the two leaves vectors without
            // ids, which loading cuts off, never an id pointing at a missing vector.
            append(&data_path, &bytes)?;
            let ids: String = batch
                .iter()
                .map(|(_, _, id, _)| format!("{id}\n"))
                .collect();
            append(&ids_path, ids.as_bytes())?;
            report.embedded += batch.len() as u64;
            report.covered += batch.len() as u64;
            progress(&report);
        }
        Ok(report)
    }

    /// How far the vectors reach: documents with a vector, of those in the index.
    pub fn embed_status(&self) -> Result<EmbedReport> {
        let vectors = self.vectors()?;
        Ok(EmbedReport {
            embedded: 0,
            covered: vectors.len() as u64,
            documents: self.reader()?.searcher().num_docs(),
        })
    }

    /// The `doc_id`s of the documents a filter query lets through, read with the query's own
    /// searcher (one reader per query, not one per lookup).
    pub(crate) fn allowed(
        &self,
        searcher: &tantivy::Searcher,
        filter: &dyn Query,
    ) -> Result<HashSet<String>> {
        let docs = searcher
            .search(filter, &DocSetCollector)
            .map_err(|e| index_err(&self.dir, e))?;
        let mut out = HashSet::with_capacity(docs.len());
        for addr in docs {
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
            out.insert(self.text_of(&doc, self.fields.doc_id));
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
