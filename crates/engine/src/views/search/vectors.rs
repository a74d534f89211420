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
//! Nearest neighbours are a brute-force cosine over every vector (they are normalised, so a dot
//! product): `dims` multiplications per document per query. The vectors are held in memory by
//! the open index and reloaded only when the backfill has appended; at SPEC §14's scale (2 M
//! turns) that is 3 GB of `f32` for the built-in model, which is why a quantised or graph index
//! is the next step there (the search benchmark reports the cost at the scale it embedded).

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

/// The vectors on disk, loaded.
pub(crate) struct Vectors {
    pub(crate) ids: Vec<String>,
    data: Vec<f32>,
    dims: usize,
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

    /// Loads what the backfill wrote; missing files are an empty set.
    pub(crate) fn load(folder: &Path) -> Result<Vectors> {
        let dims: usize = match fs::read_to_string(folder.join("dims")) {
            Ok(text) => text.trim().parse().unwrap_or(0),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(Error::io(folder.join("dims"), e)),
        };
        let ids_path = folder.join("vectors.ids");
        let data_path = folder.join("vectors.f32");
        let ids: Vec<String> = match fs::read_to_string(&ids_path) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&ids_path, e)),
        };
        if dims == 0 {
            return Ok(Vectors {
                ids: Vec::new(),
                data: Vec::new(),
                dims: 0,
            });
        }
        let bytes = match fs::read(&data_path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(&data_path, e)),
        };
        let whole = (bytes.len() / (dims * 4)).min(ids.len());
        let data = bytes[..whole * dims * 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Vectors {
            ids: ids[..whole].to_vec(),
            data,
            dims,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The `limit` documents nearest to `query` among those `allowed` (all when `None`), best
    /// first, with their cosine similarity. A query of another length than the stored vectors
    /// (the embedder changed its model under the same name) finds nothing.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        allowed: Option<&HashSet<String>>,
        limit: usize,
    ) -> Vec<(String, f32)> {
        if self.dims == 0 || query.len() != self.dims {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = self
            .data
            .chunks_exact(self.dims)
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
    /// The embedder the vectors belong to.
    pub embedder: String,
    /// Whether the run stopped because it was cancelled (what it finished is kept).
    pub cancelled: bool,
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
        };
        let folder = Vectors::folder(&self.dir, &id);
        let mut dims = vectors.dims;
        for batch in todo.chunks(BATCH) {
            if cancel.load(Ordering::Relaxed) {
                report.cancelled = true;
                break;
            }
            let texts: Vec<&str> = batch.iter().map(|(.., t)| t.as_str()).collect();
            let embedded = embedder.embed(&texts)?;
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
