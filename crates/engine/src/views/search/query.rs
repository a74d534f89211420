//! Queries over the search index (CSA §7.3–§7.6): the request's filters, the ranking, and for
//! every hit the reasons it ranked where it did.
//!
//! Lexical retrieval is BM25 over the document's exchange (its own words with the two messages
//! before it, scored as one text), with the message after it (`next`) and tool output (`tool`)
//! for less and its own words' written form (`ident`) breaking ties; within a scope, words are
//! weighed by their rarity there.
//! `hybrid` weighs the lexical and the embedding lists' normalised scores by how sure the lexical
//! list is. A strategy that needs embeddings, asked for while there is no embedder, runs
//! lexically and says so in `fallback_mode` with the reason: never silently.

use std::ops::Bound;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use tantivy::DocSet;
use tantivy::collector::TopDocs;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, EnableScoring, Occur, Query, RangeQuery,
    RegexQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, Order, TantivyDocument, Term};

use super::embed::Embedder;
use super::{SearchIndex, index_err};
use crate::base::error::{Error, Result};

/// Results a query returns when the request names no number, and the most it may ask for.
pub const DEFAULT_RESULTS: usize = 5;
pub const MAX_RESULTS: usize = 20;
/// The default time window: 30 days (CSA §7.3); `0` hours means all time.
pub const DEFAULT_HOURS: u32 = 720;

/// How a query retrieves (CSA §7.4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    LexicalOnly,
    EmbeddingAugmented,
    /// Lexical and embedding scores, normalised and weighed by the lexical list's confidence.
    #[default]
    Hybrid,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::LexicalOnly => "lexical_only",
            Strategy::EmbeddingAugmented => "embedding_augmented",
            Strategy::Hybrid => "hybrid",
        }
    }

    pub fn parse(name: &str) -> Option<Strategy> {
        [
            Strategy::LexicalOnly,
            Strategy::EmbeddingAugmented,
            Strategy::Hybrid,
        ]
        .into_iter()
        .find(|s| s.as_str() == name)
    }
}

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// A transcript turn.
    Turn,
    /// A continuity entry: an open question, a key decision, a cross-conversation update.
    Entry,
    /// A session summary.
    Summary,
    /// A Library document: a markdown or text file of a tracked folder.
    Document,
    /// An observation: a file change the watcher saw, or a push.
    Observation,
    /// A durable node: an approved obligation or memory directive.
    Node,
}

impl DocKind {
    pub const ALL: [DocKind; 6] = [
        DocKind::Turn,
        DocKind::Entry,
        DocKind::Summary,
        DocKind::Document,
        DocKind::Observation,
        DocKind::Node,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Turn => "turn",
            DocKind::Entry => "entry",
            DocKind::Summary => "summary",
            DocKind::Document => "document",
            DocKind::Observation => "observation",
            DocKind::Node => "node",
        }
    }

    pub fn parse(name: &str) -> Option<DocKind> {
        DocKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// A query and its filters.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub strategy: Strategy,
    /// Only this work context's entries and the turns of sessions placed in it.
    pub work_context: Option<crate::base::ids::WorkContextId>,
    /// Only these kinds of document; empty means all.
    pub kinds: Vec<DocKind>,
    pub harness: Option<crate::inputs::transcripts::Harness>,
    /// Only documents, observations and nodes that mention one of these entities; empty means
    /// no entity filter. (Turns, entries and summaries carry no entities of their own, so a
    /// request naming entities finds none of them.)
    pub entities: Vec<crate::base::ids::EntityId>,
    /// Only work from the last this many hours; `0` means all time.
    pub hours: u32,
    /// At most this many hits (capped at [`MAX_RESULTS`]).
    pub max_results: usize,
    /// Who is asking: the person (never limited) or an agent session (rate-limited, and by
    /// default kept to its own work context's lineage). See [`Permission`].
    pub caller: Caller,
    /// How far across work contexts an agent's search may reach; `None` is the default for the
    /// caller (`all` for the person, `lineage` for an agent).
    pub permission: Option<Permission>,
    /// The work contexts and sessions a search may read, set by the search use case from the
    /// `work_context` filter and the caller's permission; `None` is everything.
    pub(crate) scope: Option<Scope>,
    /// Ask the configured model for a short answer over the hits, citing them (CSA §7.5).
    pub synthesis: bool,
    /// Only documents holding every word of the query (a Topic's rules match this way); by
    /// default any word may match and more matches rank higher.
    pub all_words: bool,
    pub now: DateTime<Utc>,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>, now: DateTime<Utc>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            strategy: Strategy::default(),
            work_context: None,
            kinds: Vec::new(),
            harness: None,
            entities: Vec::new(),
            hours: DEFAULT_HOURS,
            max_results: DEFAULT_RESULTS,
            all_words: false,
            synthesis: false,
            caller: Caller::Person,
            permission: None,
            scope: None,
            now,
        }
    }
}

/// Who runs a search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Caller {
    /// The person, through the CLI or the app: every work context, no rate limit.
    #[default]
    Person,
    /// An agent, on behalf of one of its sessions (through a hook or the MCP server).
    Agent {
        session: crate::base::ids::SessionId,
    },
}

/// How far an agent's search may reach across work contexts (CSA §7.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Only the requesting session's own work context.
    CurrentOnly,
    /// Its work context and those in the same lineage (see the search use case).
    Lineage,
    /// Every work context: only for a session the person granted it to.
    All,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::CurrentOnly => "current_only",
            Permission::Lineage => "lineage",
            Permission::All => "all",
        }
    }

    pub fn parse(name: &str) -> Option<Permission> {
        [
            Permission::CurrentOnly,
            Permission::Lineage,
            Permission::All,
        ]
        .into_iter()
        .find(|p| p.as_str() == name)
    }
}

/// The work contexts a search may read, and the sessions placed in them (a transcript turn or a
/// summary belongs to a context through its session, which a merge or a new link rule can move,
/// so the index does not store it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    pub contexts: Vec<String>,
    pub sessions: Vec<String>,
}

/// Why a hit ranked where it did: the "why included" of search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Why {
    /// 1-based rank in the lexical list, and its BM25 score, when the words matched.
    pub lexical_rank: Option<usize>,
    pub lexical_score: Option<f32>,
    /// 1-based rank among the embedding neighbours, and the cosine similarity, when embeddings
    /// took part.
    pub vector_rank: Option<usize>,
    pub similarity: Option<f32>,
    /// The score the final order is by: the BM25 score for `lexical_only`, the similarity for
    /// `embedding_augmented`, both lists' scores normalised and weighed for `hybrid`.
    pub fused_score: f32,
    /// For `hybrid`, how much the lexical list counted against the embedding list (1.0: the
    /// order is the words', because one of their matches stood out or the meaning list had no
    /// front of its own; 0.6: blended, the words counting a little more).
    pub lexical_weight: Option<f32>,
    /// The fields the query matched: `text`, `ident` (a name or path kept whole), `context`
    /// (a word found only in the two messages before), `next` (a word found only in the
    /// message after), `tool` (tool output), `when` (it happened in the day or month the query
    /// named, which added to its lexical score), `answers` (it answers a question the query
    /// matched, which lifted its lexical score).
    pub fields: Vec<&'static str>,
    /// Days between the work and the query.
    pub age_days: Option<i64>,
}

/// One hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// The document's stable id in the index (`turn:…`, `entry:…`, `doc:…`, …), which a Topic's
    /// members are kept by.
    pub doc_id: String,
    pub kind: DocKind,
    pub session_id: Option<String>,
    /// Our id of the turn, and the turn's own id in the harness's file (Claude Code `uuid`,
    /// OpenClaw entry `id`, Codex `line:N`).
    pub turn_id: Option<String>,
    pub record: Option<String>,
    /// A turn's row in its session's transcript view (0-based), so a link opens it directly;
    /// filled by the search use case.
    pub position: Option<u64>,
    pub entry_id: Option<String>,
    pub entry_type: Option<String>,
    pub work_context_id: Option<String>,
    pub harness: Option<String>,
    pub role: Option<String>,
    /// A Library document's or an observed file's path, and its title.
    pub path: Option<String>,
    pub title: Option<String>,
    /// A durable node's id and kind (`obligation`, `memory_directive`).
    pub node_id: Option<String>,
    pub node_kind: Option<String>,
    pub observation_id: Option<i64>,
    /// When the work happened.
    pub at: Option<DateTime<Utc>>,
    /// A bounded excerpt of the matched text.
    pub excerpt: String,
    /// The score relative to the best hit, 0–1.
    pub relevance_score: f32,
    pub why: Why,
}

/// A model's answer over a query's hits (CSA §7.5), with what it cited.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Synthesis {
    pub answer: String,
    /// Citations of hits the model was given, each with the snippet it quoted.
    pub citations: Vec<Citation>,
    /// Ids the model cited that it was not given: dropped from `citations`, and said here.
    pub dropped: Vec<String>,
    /// Hits from local-only work contexts that were not sent to a model off this machine.
    pub withheld: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Citation {
    pub doc_id: String,
    pub snippet: String,
}

/// What a query returns (CSA §7.3's `ContinuityQueryResult`, with every hit explained).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResult {
    pub hits: Vec<Hit>,
    /// The strategy asked for, and the one that ran when it had to fall back.
    pub strategy: Strategy,
    pub fallback_mode: Option<Strategy>,
    pub fallback_reason: Option<String>,
    /// Documents with an embedding when embeddings took part (of `documents`): a partial
    /// backfill is said, not hidden.
    pub embedded: Option<u64>,
    /// Always `low_trust`: a search result is evidence to check, not a fact (CSA §7.6).
    pub trust_banner: &'static str,
    /// Documents in the index when the query ran.
    pub documents: u64,
    /// The model's answer, when asked for and it could be given.
    pub synthesis: Option<Synthesis>,
    /// Why no answer came when one was asked for (no model configured, over the spend limit,
    /// a failed call): never silent.
    pub synthesis_fallback: Option<String>,
}

/// How much a document's own words, in their written form (`ident`), count on top of its
/// exchange (`exchange`: the other side's previous turn and the turn's own words, scored as one
/// text), the field that finds the candidates.
///
/// An answer and its question are often two turns. Scored as one text, a word said on either
/// side counts once, and the length that dampens it is the exchange's; the turn's own words then
/// break ties between the two turns of one exchange. Before, the neighbour was a field of its
/// own whose BM25 was added to the turn's, so a word on both sides counted twice, and only rare
/// neighbour words found candidates. On LoCoMo's conversations 0–2 (lexical recall@1 / @5 /
/// @10, with [`ScopeStatistics`]), own words at 0.3 through `ident` gave 0.296 / 0.628 / 0.715,
/// through the stemmed `text` 0.300 / 0.624 / 0.715, both at 0.2 0.308 / 0.623 / 0.712, and
/// both at 0.3 0.311 / 0.610 / 0.691; the labelled real-history set read recall@5 0.68 and MRR
/// 0.59 at the first and third, 0.66 / 0.57 at the second. The first is the one walk fewer.
const IDENT_PLAIN_BOOST: f32 = 0.3;
const TOOL_BOOST: f32 = 0.3;
/// How much the words of the message that followed a turn (`next`) count: a question is found
/// by its answer, below the turns that say the words themselves.
///
/// Chosen with the exchange's second message before the turn, on LoCoMo's conversations 0–2
/// (a Python sketch of the index over 30 windows, then the engine): lexical recall@1 / @5 /
/// @10 0.322 / 0.653 / 0.741 → 0.359 / 0.692 / 0.783; on conversations 3–4, left out, 0.335 /
/// 0.616 / 0.710 → 0.312 / 0.649 / 0.740 (recall@1 is the price); the labelled real-history
/// set 0.68 / 0.70 → 0.70 / 0.71 (BENCHMARKS.md, "The turns around a turn").
const NEXT_BOOST: f32 = 0.3;

/// The characters that join word characters into one identifier token (`ident.rs`).
const IDENT_JOINERS: &str = "./\\:@#-_";

/// How many of the best lexical matches are re-scored, at the least (see [`refine`]): on the
/// labelled set 50 keeps every answer found across two turns, and 20 lost one.
const REFINE_POOL: usize = 50;

/// How many candidates each list gives the fusion.
const CANDIDATES: usize = 50;

/// What a lexical match whose time lies in the day or month the query names (`when.rs`) gains:
/// this share of the best match's score, enough to lift it past matches as good that happened
/// at another time, not past a far better one. Chosen on LoCoMo's conversations 0–2 over the
/// lexical lists the tier writes (0.1–1.0; a day's slack of 0, 1 and 3 days): 0.3 moved the 103
/// questions that name a date most (recall@1 0.359 → 0.373, @5 0.692 → 0.702); on
/// conversations 3–4, chosen on nothing, 0.312 → 0.327 and 0.649 → 0.660.
const TIME_BONUS: f32 = 0.3;

/// How far a match that answers a question the query also matched is lifted toward that
/// question's score (`lift_answers`): a question found by the query's words is what was asked,
/// and the answer after it is what a person searching wants, though it seldom repeats the
/// question's words (its `exchange` holds them, dampened by its own length). Chosen on LoCoMo's
/// conversations 0–2 over the written lexical lists (0.2–1.0; any message before it rather than
/// a question did worse): 0.6 took recall@5 0.702 → 0.723 there, and 0.662 → 0.676 on
/// conversations 3–4, chosen on nothing.
const ANSWER_SHARE: f32 = 0.6;

/// How `hybrid` weighs its two lists, each list's scores first stretched to 0–1 over its own
/// candidates (min-max), so that each keeps how sure it is. Ranks alone (reciprocal rank fusion,
/// which this replaced) let a weak list's first places push out the other's whatever the scores
/// said: on LoCoMo's development half hybrid read recall@5 0.473 against lexical 0.548.
///
/// The weight is the lexical list's own confidence, per query: when its best match stands
/// clearly above its fifth ([`CLEAR_LEAD`] times its score) the words found what was meant and
/// the order is theirs alone; when the list is flatter (the words matched loosely, as in a
/// question put in other words than the turn's) the lists are blended, the words still counting
/// a little more ([`BLEND_WEIGHT`]). Chosen on LoCoMo's conversations 0–2 and the labelled
/// real-history set, with all-MiniLM-L6-v2; a fixed weight could not serve both: 0.8 kept LoCoMo
/// at lexical's level and lost every paraphrase of the labelled set, 0.5 found them and lost 7
/// points of recall@5 on LoCoMo. Chosen again when the prose analyser took NLTK's stop words:
/// without the pronouns and auxiliaries a loose match's best scores stand further apart, so at
/// the old 1.2 every paraphrase counted as a clear lead and hybrid found none of them; 1.5 / 0.6
/// finds 2 of 13 at recall@5 (3 over the lists written out) and costs LoCoMo least of the
/// settings that find any (BENCHMARKS.md).
///
/// Chosen again in stop 57, over the lists written after a date in the query and a question's
/// answer moved the lexical list, with a second condition: the embedding list must itself have
/// a front, its best similarity at least [`MEANING_LEAD`] above its fifth (all-MiniLM-L6-v2's
/// cosine; a flatter list is meaning that found nothing in particular, and blending it only
/// moves the words' matches down). Over ratios 1.2–1.5, weights 0.5–0.7 and leads 0.01–0.06,
/// kept to settings that lose none of the real-history set's figures (recall@5 0.79, 3 of 13
/// paraphrases over the written lists), 1.3 / 0.6 / 0.04 read best on LoCoMo's conversations
/// 0–2 (recall@5 / @10 0.705 / 0.788 → 0.717 / 0.792 over the lists); on conversations 3–4,
/// chosen on nothing, 0.671 / 0.739 → 0.675 / 0.754 (BENCHMARKS.md).
const CLEAR_LEAD: f32 = 1.3;
const BLEND_WEIGHT: f32 = 0.6;
const MEANING_LEAD: f32 = 0.04;

/// A request's lexical query, built by [`SearchIndex::lexical`].
pub(super) struct Lexical {
    pub(super) per_field: Vec<(&'static str, Box<dyn Query>)>,
    pub(super) filters: Vec<(Occur, Box<dyn Query>)>,
    pub(super) query: Box<dyn Query>,
    /// The terms that only re-score the candidates `query` found (see [`refine`]): the
    /// query's plain words in their written form (`ident`).
    pub(super) rescore: Option<Box<dyn Query>>,
    /// The work contexts or sessions the request is scoped to, when it is: what the words'
    /// rarity is counted in (see [`ScopeStatistics`]).
    pub(super) scope: Option<Box<dyn Query>>,
}

/// A document on its way into the results.
pub(super) struct Candidate {
    pub(super) doc: Option<(TantivyDocument, DocAddress)>,
    pub(super) id: String,
    /// Its rank and score in each list that found it.
    pub(super) lexical: Option<(usize, f32)>,
    pub(super) vector: Option<(usize, f32)>,
}

/// The longest excerpt a hit carries, in characters.
const EXCERPT_CHARS: usize = 400;

impl SearchIndex {
    /// Runs a query. Embedding strategies fall back to lexical retrieval while there is no
    /// embedder (`unavailable` says why), no vectors yet, or the embedder fails, and say so.
    pub fn search(
        &self,
        req: &SearchRequest,
        embedder: Option<&Embedder<'_>>,
        unavailable: &str,
    ) -> Result<SearchResult> {
        let query_text = req.query.trim();
        if query_text.is_empty() {
            return Err(Error::InvalidInput("a search needs some words".into()));
        }
        // A day or month the query names favours what the words found then. A time window
        // that ends before it (the default 30 days, asked about last June) reaches back to it:
        // the person said when they mean.
        let named = super::when::named_in(query_text);
        let reaching;
        let req = match &named {
            Some(n) if req.hours > 0 && n.from < req.now.timestamp() => {
                let back = (req.now.timestamp() - n.from) / 3600 + 1;
                reaching = SearchRequest {
                    hours: req.hours.max(u32::try_from(back).unwrap_or(u32::MAX)),
                    ..req.clone()
                };
                &reaching
            }
            _ => req,
        };
        let f = self.fields;
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let Lexical {
            per_field,
            filters,
            query,
            rescore,
            scope,
        } = self.lexical(req, None)?;
        let limit = req.max_results.clamp(1, MAX_RESULTS);
        let documents = searcher.num_docs();

        // Embeddings take part when the strategy asks and there are vectors and an embedder.
        let vectors = match (req.strategy, embedder) {
            (Strategy::LexicalOnly, _) | (_, None) => None,
            (_, Some(e)) => Some(self.vectors(&e.id())?),
        };
        let fallback = |why: &str| {
            format!(
                "{} needs embeddings, and {why}: ran lexical_only over all {documents} documents",
                req.strategy.as_str()
            )
        };
        let (vector_hits, fallback_reason): (Option<Vec<(String, f32)>>, Option<String>) =
            match (req.strategy, embedder, &vectors) {
                (Strategy::LexicalOnly, ..) => (None, None),
                (_, None, _) => (None, Some(fallback(unavailable))),
                (_, Some(e), Some(v)) if v.len() == 0 => (
                    None,
                    Some(fallback(&format!(
                        "none are built yet for {} (`elnor embed`)",
                        e.id()
                    ))),
                ),
                (_, Some(e), Some(v)) => match e.embed(&[query_text], super::embed::Purpose::Query)
                {
                    Ok(mut q) => {
                        let q = q.pop().unwrap_or_default();
                        let allowed = if filters.is_empty() {
                            None
                        } else {
                            Some(self.allowed(&searcher, &BooleanQuery::new(filters))?)
                        };
                        (Some(v.nearest(&q, allowed.as_deref(), CANDIDATES)?), None)
                    }
                    Err(err) => (
                        None,
                        Some(fallback(&format!("the embedder failed ({err})"))),
                    ),
                },
                (_, Some(_), None) => (None, None),
            };
        let coverage = vectors
            .as_ref()
            .filter(|_| vector_hits.is_some())
            .map(|v| (v.len() as u64).min(documents));

        // The time the query names and a question's answer reorder the matches: more of them
        // are read than the results asked for.
        let lexical_limit = CANDIDATES.max(limit);
        let refine_for = if vector_hits.is_some() {
            lexical_limit
        } else {
            limit
        };
        let mut top = self.refined_top(
            &searcher,
            query.as_ref(),
            rescore.as_deref(),
            scope.as_deref(),
            (lexical_limit, refine_for),
        )?;
        let in_window = match &named {
            Some(named) => self.favour_named_time(&searcher, &mut top, named)?,
            None => Default::default(),
        };
        let mut lexical = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
            lexical.push((score, addr, doc));
        }
        let answering = self.lift_answers(&mut lexical);
        // Candidates by doc_id: their lexical rank and score, their vector rank and similarity.
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut position: std::collections::HashMap<String, usize> = Default::default();
        for (rank, (score, addr, doc)) in lexical.into_iter().enumerate() {
            let id = self.text_of(&doc, f.doc_id);
            position.insert(id.clone(), candidates.len());
            candidates.push(Candidate {
                doc: Some((doc, addr)),
                id,
                lexical: Some((rank + 1, score)),
                vector: None,
            });
        }
        for (rank, (id, similarity)) in vector_hits.iter().flatten().enumerate() {
            match position.get(id) {
                Some(&at) => candidates[at].vector = Some((rank + 1, *similarity)),
                None => {
                    position.insert(id.clone(), candidates.len());
                    candidates.push(Candidate {
                        doc: None,
                        id: id.clone(),
                        lexical: None,
                        vector: Some((rank + 1, *similarity)),
                    });
                }
            }
        }
        let weight = (req.strategy == Strategy::Hybrid && vector_hits.is_some())
            .then(|| lexical_weight(&candidates));
        let fused = fusion(
            req.strategy,
            vector_hits.is_some(),
            weight.unwrap_or(1.0),
            &candidates,
        );
        let mut ranked: Vec<(f32, Candidate)> = candidates
            .into_iter()
            .filter_map(|c| Some((fused(&c)?, c)))
            .collect();
        best_first(&mut ranked);
        if weight.is_some() {
            leader_first(&mut ranked);
        }
        ranked.truncate(limit);
        let best = ranked
            .first()
            .map(|(s, _)| *s)
            .unwrap_or(1.0)
            .max(f32::EPSILON);
        let mut hits = Vec::with_capacity(ranked.len());
        for (score, c) in ranked {
            let (doc, fields) = match c.doc {
                Some((doc, addr)) => {
                    let mut fields = matched_fields(&searcher, &per_field, addr);
                    if in_window.contains(&addr) {
                        fields.push("when");
                    }
                    if answering.contains(&addr) {
                        fields.push("answers");
                    }
                    (doc, fields)
                }
                None => match self.by_doc_id(&searcher, &c.id)? {
                    Some(doc) => (doc, Vec::new()),
                    // A vector whose document left the index (a log merged away): passed over.
                    None => continue,
                },
            };
            let mut hit = self.hit(&doc, score, best, fields, req.now);
            hit.why.lexical_rank = c.lexical.map(|(r, _)| r);
            hit.why.lexical_score = c.lexical.map(|(_, s)| s);
            hit.why.vector_rank = c.vector.map(|(r, _)| r);
            hit.why.similarity = c.vector.map(|(_, s)| s);
            hit.why.lexical_weight = weight;
            hits.push(hit);
        }
        Ok(SearchResult {
            hits,
            strategy: req.strategy,
            fallback_mode: fallback_reason.as_ref().map(|_| Strategy::LexicalOnly),
            fallback_reason,
            embedded: coverage,
            trust_banner: "low_trust",
            documents,
            synthesis: None,
            synthesis_fallback: None,
        })
    }

    /// The lexical query of a request: one bag of words per field (kept apart, to say which
    /// fields a hit matched), the filters, and the whole. With `all_words`, a document must hold
    /// every word of the query in its own text (its `text`, `ident` or `tool` field); with
    /// `indexed_after`, it must have entered the index in or after that second.
    pub(super) fn lexical(
        &self,
        req: &SearchRequest,
        indexed_after: Option<i64>,
    ) -> Result<Lexical> {
        let query_text = req.query.trim();
        let f = self.fields;
        // The query is a bag of words per field, built here rather than by tantivy's query
        // parser: a person's words are not syntax ("-", quotes and colons mean nothing), and
        // phrase and exclusion scorers are left out of the picture entirely.
        // Each field with its weight; `text` (the exchange's own half) is asked only to say
        // whether a hit's own words matched.
        let fields = [
            ("context", f.exchange, super::PROSE, Some(1.0)),
            ("text", f.text, super::PROSE, None),
            ("ident", f.ident, super::IDENT, Some(1.0)),
            ("next", f.next, super::PROSE, Some(NEXT_BOOST)),
            ("tool", f.tool, super::PROSE, Some(TOOL_BOOST)),
        ];
        let mut per_field: Vec<(&'static str, Box<dyn Query>)> = Vec::new();
        // One flat union of every (field, word) term, each weighted by its field: a union of
        // plain term queries is what tantivy's block-max WAND runs on, skipping the documents
        // that cannot reach the top results (a union of per-field unions is scored document by
        // document). The per-field unions are kept only to say which fields a hit matched.
        let mut flat: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut rescore: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut prose_words: Vec<String> = Vec::new();
        let has_prose = self.words(super::PROSE, query_text).is_some();
        for (name, field, analyser, boost) in fields {
            let Some(mut words) = self.words(analyser, query_text) else {
                continue;
            };
            if name == "ident" && has_prose {
                // The identifier field matches a word in its written form, unstemmed, which
                // ranks names and exact wording up. A stop word there would only walk one of the
                // longest posting lists of the index for a score that tells nothing: a plain
                // word is asked of it only when the prose analyser keeps it too. A query of
                // nothing but common words ("what was that") keeps them all, as they are all
                // it has.
                words.retain(|w| {
                    w.contains(|c: char| IDENT_JOINERS.contains(c))
                        || self.words(super::PROSE, w).is_some()
                });
                if words.is_empty() {
                    continue;
                }
            }
            if name == "text" {
                prose_words = words.clone();
            }
            let term = |w: &String| -> Box<dyn Query> {
                Box::new(TermQuery::new(
                    Term::from_field_text(field, w),
                    IndexRecordOption::WithFreqs,
                ))
            };
            if name == "context" || name == "next" {
                // The exchange holds the document's own words too, and what followed often
                // repeats them: each is named for a hit only when it matched a word that the
                // document's own text does not hold.
                for w in &words {
                    let own: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(f.text, w),
                        IndexRecordOption::Basic,
                    ));
                    per_field.push((
                        name,
                        Box::new(BooleanQuery::new(vec![
                            (Occur::Must, term(w)),
                            (Occur::MustNot, own),
                        ])),
                    ));
                }
            } else {
                per_field.push((
                    name,
                    Box::new(BooleanQuery::new(
                        words.iter().map(|w| (Occur::Should, term(w))).collect(),
                    )),
                ));
            }
            let Some(boost) = boost else {
                continue;
            };
            for w in &words {
                // A plain word's written form (`ident`), whose stem the exchange asks, only
                // re-scores the best candidates (see `refine`), which keeps a query to one walk
                // of each word's postings. Joined names (paths, `snake_case`) find candidates:
                // no other field holds them whole.
                let plain_form = name == "ident"
                    && has_prose
                    && !w.contains(|c: char| IDENT_JOINERS.contains(c));
                let boost = if plain_form { IDENT_PLAIN_BOOST } else { boost };
                let q = term(w);
                let q: Box<dyn Query> = if boost == 1.0 {
                    q
                } else {
                    Box::new(BoostQuery::new(q, boost))
                };
                if plain_form {
                    rescore.push((Occur::Should, q));
                } else {
                    flat.push((Occur::Should, q));
                }
            }
        }
        if per_field.is_empty() {
            return Err(Error::InvalidInput(format!(
                "nothing to search for in {query_text:?}: only common words or punctuation"
            )));
        }
        let matched: Box<dyn Query> = Box::new(BooleanQuery::new(flat));
        let mut filters: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !req.kinds.is_empty() {
            filters.push((
                Occur::Must,
                any_of(f.kind, req.kinds.iter().map(|k| k.as_str())),
            ));
        }
        if let Some(h) = req.harness {
            filters.push((Occur::Must, any_of(f.harness, [h.as_str()])));
        }
        if !req.entities.is_empty() {
            filters.push((
                Occur::Must,
                any_of(f.entities, req.entities.iter().map(|e| e.as_str())),
            ));
        }
        let scope: Option<Box<dyn Query>> = match (&req.scope, &req.work_context) {
            (Some(scope), _) => {
                let in_scope = |field: Field, values: &[String]| -> Box<dyn Query> {
                    Box::new(TermSetQuery::new(
                        values.iter().map(|v| Term::from_field_text(field, v)),
                    ))
                };
                Some(Box::new(BooleanQuery::new(vec![
                    (Occur::Should, in_scope(f.work_context_id, &scope.contexts)),
                    (Occur::Should, in_scope(f.session_id, &scope.sessions)),
                ])))
            }
            // Without the use case's scope (the index used directly), a context filter keeps
            // what carries its context: entries, nodes, observations.
            (None, Some(wc)) => Some(any_of(f.work_context_id, [wc.as_str()])),
            (None, None) => None,
        };
        if let Some(scope) = &scope {
            filters.push((Occur::Must, scope.box_clone()));
        }
        // A window reaching back past the earliest moment a date can hold is no window at all:
        // an agent may ask for any number of hours, and subtracting that many would overflow.
        let since = (req.hours > 0)
            .then(|| {
                req.now
                    .checked_sub_signed(Duration::hours(i64::from(req.hours)))
            })
            .flatten();
        if let Some(since) = since {
            filters.push((
                Occur::Must,
                Box::new(RangeQuery::new(
                    Bound::Included(Term::from_field_i64(f.at, since.timestamp())),
                    Bound::Unbounded,
                )),
            ));
        }
        if req.all_words {
            let words = prose_words;
            for w in words {
                let either: Box<dyn Query> = Box::new(BooleanQuery::new(
                    [f.text, f.tool]
                        .into_iter()
                        .map(|field| {
                            let q: Box<dyn Query> = Box::new(TermQuery::new(
                                Term::from_field_text(field, &w),
                                IndexRecordOption::Basic,
                            ));
                            (Occur::Should, q)
                        })
                        .collect(),
                ));
                filters.push((Occur::Must, either));
            }
        }
        if let Some(after) = indexed_after {
            filters.push((
                Occur::Must,
                Box::new(RangeQuery::new(
                    // Included: a document indexed in the same second as the directive's
                    // last look is looked at again, and the proposals' dedupe keeps it single.
                    Bound::Included(Term::from_field_i64(f.indexed, after)),
                    Bound::Unbounded,
                )),
            ));
        }
        // Without filters the flat union is the whole query, so the top results are found by
        // block-max WAND; a filter makes it one required clause beside the filters.
        let query: Box<dyn Query> = if filters.is_empty() {
            matched
        } else {
            let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, matched)];
            clauses.extend(filters.iter().map(|(o, q)| (*o, q.box_clone())));
            Box::new(BooleanQuery::new(clauses))
        };
        Ok(Lexical {
            per_field,
            filters,
            query,
            rescore: (!rescore.is_empty())
                .then(|| Box::new(BooleanQuery::new(rescore)) as Box<dyn Query>),
            scope,
        })
    }

    /// Documents that hold every word of `req.query` and pass its filters, best first, at most
    /// `limit` (not capped at [`MAX_RESULTS`]): what a Topic's lens shows by its rules, and what
    /// its collection directive proposes (then only documents indexed since `indexed_after`).
    /// Lexical only, so that every member can say which words put it there.
    pub fn matching(
        &self,
        req: &SearchRequest,
        indexed_after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        let mut req = req.clone();
        req.all_words = true;
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let Lexical {
            per_field,
            query,
            rescore,
            scope,
            ..
        } = self.lexical(&req, indexed_after)?;
        let top = self.refined_top(
            &searcher,
            query.as_ref(),
            rescore.as_deref(),
            scope.as_deref(),
            (limit.max(1), limit.max(1)),
        )?;
        let best = top
            .first()
            .map(|(s, _)| *s)
            .unwrap_or(1.0)
            .max(f32::EPSILON);
        top.into_iter()
            .enumerate()
            .map(|(rank, (score, addr))| {
                let doc: TantivyDocument =
                    searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
                let fields = matched_fields(&searcher, &per_field, addr);
                let mut hit = self.hit(&doc, score, best, fields, req.now);
                hit.why.lexical_rank = Some(rank + 1);
                hit.why.lexical_score = Some(score);
                Ok(hit)
            })
            .collect()
    }

    /// How many documents [`matching`](Self::matching) would find with no limit.
    pub fn count_matching(&self, req: &SearchRequest, indexed_after: Option<i64>) -> Result<usize> {
        let mut req = req.clone();
        req.all_words = true;
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let Lexical { query, .. } = self.lexical(&req, indexed_after)?;
        searcher
            .search(&query, &tantivy::collector::Count)
            .map_err(|e| index_err(&self.dir, e))
    }

    /// The document with this stable id, as a hit with no ranking, or `None` when the index does
    /// not hold it (a document deleted since, or a log merged away).
    pub fn document(&self, doc_id: &str, now: DateTime<Utc>) -> Result<Option<Hit>> {
        let reader = self.reader()?;
        let searcher = reader.searcher();
        Ok(self
            .by_doc_id(&searcher, doc_id)?
            .map(|doc| self.hit(&doc, 0.0, 1.0, Vec::new(), now)))
    }

    /// Documents of `kinds` whose words name `path` (a path relative to its folder, like
    /// `notes/plan.md`): an identifier term equal to it or ending in `/` and it, so a turn that
    /// names the file by its absolute path, from its folder or from a parent folder all count.
    /// Newest first, at most `limit`. Not ranked: a mention is a mention.
    pub fn mentions(&self, path: &str, kinds: &[DocKind], limit: usize) -> Result<Vec<Hit>> {
        let f = self.fields;
        let needle = path.trim_matches('/').to_lowercase();
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        let pattern = format!("(.*/)?{}", regex::escape(&needle));
        let named = RegexQuery::from_pattern(&pattern, f.ident)
            .map_err(|e| Error::InvalidInput(format!("path {path:?}: {e}")))?;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(named))];
        if !kinds.is_empty() {
            clauses.push((
                Occur::Must,
                any_of(f.kind, kinds.iter().map(|k| k.as_str())),
            ));
        }
        let reader = self.reader()?;
        let searcher = reader.searcher();
        let top = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(limit.max(1)).order_by_fast_field::<i64>("at", Order::Desc),
            )
            .map_err(|e| index_err(&self.dir, e))?;
        let now = crate::base::clock::now();
        top.into_iter()
            .map(|(_, addr)| {
                let doc: TantivyDocument =
                    searcher.doc(addr).map_err(|e| index_err(&self.dir, e))?;
                Ok(self.hit(&doc, 1.0, 1.0, vec!["ident"], now))
            })
            .collect()
    }

    /// The best `limit` documents for `query` with `rescore` added to their scores: the best
    /// [`REFINE_POOL`] (or `4 × refine_for`, when more, and never fewer than `limit`) by
    /// `query`, re-scored and cut to `limit`. `refine_for` is how many results the caller ranks
    /// for itself; the rest of `limit` only reorders them (`lexical_only`'s 50, for a date and
    /// an answer), which the pool of the results asked for serves at a quarter of the cost.
    /// Re-scored, a candidate's score is what the union of both would give it (the same term
    /// scores summed), so the result differs from searching that union only where `rescore`
    /// would lift a document from beyond the pool. Within a `scope`, words are weighed by how
    /// rare they are there ([`ScopeStatistics`]).
    pub(super) fn refined_top(
        &self,
        searcher: &tantivy::Searcher,
        query: &dyn Query,
        rescore: Option<&dyn Query>,
        scope: Option<&dyn Query>,
        (limit, refine_for): (usize, usize),
    ) -> Result<Vec<(f32, DocAddress)>> {
        let in_scope = scope
            .map(|scope| ScopeStatistics::new(searcher, scope))
            .transpose()
            .map_err(|e| index_err(&self.dir, e))?;
        let statistics: &dyn Bm25StatisticsProvider = match &in_scope {
            Some(s) => s,
            None => searcher,
        };
        let pool = if rescore.is_some() {
            refine_for.saturating_mul(4).max(REFINE_POOL).max(limit)
        } else {
            limit
        };
        let collector = TopDocs::with_limit(pool).order_by_score();
        let mut top = searcher
            .search_with_statistics_provider(query, &collector, statistics)
            .map_err(|e| index_err(&self.dir, e))?;
        if let Some(rescore) = rescore {
            let scoring = EnableScoring::enabled_from_statistics_provider(statistics, searcher);
            refine(searcher, scoring, &mut top, rescore).map_err(|e| index_err(&self.dir, e))?;
            top.truncate(limit);
        }
        Ok(top)
    }

    /// Adds [`TIME_BONUS`] of the best match's score to each match whose time is in the window
    /// the query named, and orders the matches again (ties by address, as [`refine`] orders
    /// them); returns the matches inside it.
    fn favour_named_time(
        &self,
        searcher: &tantivy::Searcher,
        top: &mut [(f32, DocAddress)],
        named: &super::when::Named,
    ) -> Result<std::collections::HashSet<DocAddress>> {
        let mut inside = std::collections::HashSet::new();
        let Some(best) = top.first().map(|(score, _)| *score) else {
            return Ok(inside);
        };
        let mut at = super::fast::FastValues::<i64>::new(searcher, "at");
        for (score, addr) in top.iter_mut() {
            if at
                .first(*addr)
                .map_err(|e| index_err(&self.dir, e))?
                .is_some_and(|at| (named.from..named.to).contains(&at))
            {
                *score += TIME_BONUS * best;
                inside.insert(*addr);
            }
        }
        top.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        Ok(inside)
    }

    /// Lifts the best match that answers a match asking something (its `answers` field names a
    /// question among the matches) toward that question's score, by [`ANSWER_SHARE`] of the
    /// gap, and orders the matches again; returns the matches lifted. One answer per question:
    /// an agent sends several messages after a person's question (narration, then the answer),
    /// each of which names it, and the one the words find best is the one worth lifting. Scores
    /// are read before any is lifted, so a lifted answer lifts nothing further.
    fn lift_answers(
        &self,
        lexical: &mut [(f32, DocAddress, TantivyDocument)],
    ) -> std::collections::HashSet<DocAddress> {
        let f = self.fields;
        let questions: std::collections::HashMap<String, f32> = lexical
            .iter()
            .filter(|(_, _, doc)| asks(&self.text_of(doc, f.text)))
            .map(|(score, _, doc)| (self.text_of(doc, f.doc_id), *score))
            .collect();
        let mut lifted = std::collections::HashSet::new();
        if questions.is_empty() {
            return lifted;
        }
        // The matches are best first: the first answer met for a question is its best.
        let mut answered = std::collections::HashSet::new();
        for (score, addr, doc) in lexical.iter_mut() {
            let answers = self.text_of(doc, f.answers);
            if let Some(&asked) = questions.get(&answers)
                && asked > *score
                && answered.insert(answers)
            {
                *score += ANSWER_SHARE * (asked - *score);
                lifted.insert(*addr);
            }
        }
        lexical.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        lifted
    }

    /// The query's words as `analyser` makes them, each once; `None` when nothing is left (only
    /// stop words, say).
    fn words(&self, analyser: &str, text: &str) -> Option<Vec<String>> {
        let mut analyser = self.index.tokenizers().get(analyser)?;
        let mut stream = analyser.token_stream(text);
        let mut words = std::collections::BTreeSet::new();
        while stream.advance() {
            words.insert(stream.token().text.clone());
        }
        (!words.is_empty()).then(|| words.into_iter().collect())
    }

    fn hit(
        &self,
        doc: &TantivyDocument,
        score: f32,
        best: f32,
        fields: Vec<&'static str>,
        now: DateTime<Utc>,
    ) -> Hit {
        let f = self.fields;
        let opt = |field: Field| Some(self.text_of(doc, field)).filter(|s| !s.is_empty());
        let at = doc
            .get_first(f.at)
            .and_then(|v| v.as_i64())
            .filter(|s| *s > 0)
            .and_then(|s| DateTime::from_timestamp(s, 0));
        let text = opt(f.text).or_else(|| opt(f.tool)).unwrap_or_default();
        Hit {
            doc_id: self.text_of(doc, f.doc_id),
            kind: DocKind::parse(&self.text_of(doc, f.kind)).unwrap_or(DocKind::Turn),
            session_id: opt(f.session_id),
            turn_id: opt(f.turn_id),
            record: opt(f.record),
            position: None,
            entry_id: opt(f.entry_id),
            entry_type: opt(f.entry_type),
            work_context_id: opt(f.work_context_id),
            harness: opt(f.harness),
            role: opt(f.role),
            path: opt(f.path),
            title: opt(f.title),
            node_id: opt(f.node_id),
            node_kind: opt(f.node_kind),
            observation_id: opt(f.observation_id).and_then(|id| id.parse().ok()),
            at,
            excerpt: super::bounded(text.trim(), EXCERPT_CHARS),
            relevance_score: (score / best).clamp(0.0, 1.0),
            why: Why {
                lexical_rank: None,
                lexical_score: None,
                vector_rank: None,
                similarity: None,
                fused_score: score,
                lexical_weight: None,
                fields,
                age_days: at.map(|t| (now - t).num_days()),
            },
        }
    }
}

/// A query matching any of `values` in a keyword field.
fn any_of<'a>(field: Field, values: impl IntoIterator<Item = &'a str>) -> Box<dyn Query> {
    let clauses = values
        .into_iter()
        .map(|v| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(field, v),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        })
        .collect();
    Box::new(BooleanQuery::new(clauses))
}

/// Whether a message asks something: a question mark that ends a sentence (before a space,
/// a closing quote or bracket, or the end), not one inside a web address (`?q=`) or code
/// (`parse()?;`).
pub(super) fn asks(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // A full-width mark ends a sentence in scripts written without spaces, whatever follows.
        let ends = |n: &char| n.is_whitespace() || matches!(n, '"' | '\'' | ')' | '*' | '”' | '」');
        if c == '？' || (c == '?' && chars.peek().is_none_or(ends)) {
            return true;
        }
    }
    false
}

/// Adds each candidate's `extra` score to it and sorts the candidates best first (ties by
/// address, so the order is the same on every run). One scorer per segment walks that segment's
/// candidates in document order, so re-scoring fifty candidates costs a few seeks per term, not a
/// term lookup per candidate.
fn refine(
    searcher: &tantivy::Searcher,
    scoring: EnableScoring<'_>,
    top: &mut [(f32, DocAddress)],
    extra: &dyn Query,
) -> tantivy::Result<()> {
    let weight = extra.weight(scoring)?;
    top.sort_by_key(|(_, addr)| *addr);
    let mut scorer: Option<(u32, Box<dyn tantivy::query::Scorer>)> = None;
    for (score, addr) in top.iter_mut() {
        let scorer = match &mut scorer {
            Some((segment, s)) if *segment == addr.segment_ord => s,
            _ => {
                let reader = searcher.segment_reader(addr.segment_ord);
                &mut scorer
                    .insert((addr.segment_ord, weight.scorer(reader, 1.0)?))
                    .1
            }
        };
        if scorer.doc() < addr.doc_id {
            scorer.seek(addr.doc_id);
        }
        if scorer.doc() == addr.doc_id {
            *score += scorer.score();
        }
    }
    top.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(())
}

/// How a strategy scores a candidate, or `None` when the strategy leaves it out: the BM25 score
/// for `lexical_only` (and whenever there is no embedding list), the similarity for
/// `embedding_augmented`, and for `hybrid` both lists' scores, min-max normalised over their
/// own candidates and weighed by [`lexical_weight`] (a list that did not find the candidate
/// gives it 0).
pub(super) fn fusion(
    strategy: Strategy,
    embedded: bool,
    weight: f32,
    candidates: &[Candidate],
) -> impl Fn(&Candidate) -> Option<f32> + use<> {
    let lexical = Stretch::over(candidates.iter().filter_map(|c| c.lexical.map(|(_, s)| s)));
    let vector = Stretch::over(candidates.iter().filter_map(|c| c.vector.map(|(_, s)| s)));
    move |c: &Candidate| {
        let lexical_score = c.lexical.map(|(_, s)| s);
        let similarity = c.vector.map(|(_, s)| s);
        match (strategy, embedded) {
            (_, false) | (Strategy::LexicalOnly, _) => lexical_score,
            (Strategy::EmbeddingAugmented, true) => similarity,
            (Strategy::Hybrid, true) => Some(
                weight * lexical_score.map_or(0.0, |s| lexical.apply(s))
                    + (1.0 - weight) * similarity.map_or(0.0, |s| vector.apply(s)),
            ),
        }
    }
}

/// Orders fused candidates best first. Equal scores go to what the words found, then by
/// similarity, then by id: min-max puts a list's last find at 0, where what the list did not find
/// is too, so when the lexical list counts alone its last match still comes before what only the
/// embeddings found, and those come in the embeddings' order.
pub(super) fn best_first(ranked: &mut [(f32, Candidate)]) {
    let similarity = |c: &Candidate| c.vector.map_or(f32::NEG_INFINITY, |(_, s)| s);
    ranked.sort_by(|(a_score, a), (b_score, b)| {
        b_score
            .total_cmp(a_score)
            .then_with(|| b.lexical.is_some().cmp(&a.lexical.is_some()))
            .then_with(|| similarity(b).total_cmp(&similarity(a)))
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// Puts the lexical list's first match first, with the best fused score, wherever the blend
/// put it: the words' best match is what a search was asked, and a blend that moves it down
/// makes `hybrid` worse than `lexical_only` at the first hit. On LoCoMo's conversations 0–2
/// (with all-MiniLM-L6-v2) hybrid's recall@1 was 0.287 against lexical's 0.296; with the leader
/// kept it is 0.296, its other figures there and on the labelled real-history set unchanged
/// (recall@5 0.71, MRR 0.60). Keeping the first two or three as well changed nothing further.
pub(super) fn leader_first(ranked: &mut [(f32, Candidate)]) {
    let Some(at) = ranked
        .iter()
        .position(|(_, c)| c.lexical.is_some_and(|(rank, _)| rank == 1))
    else {
        return;
    };
    if at > 0 {
        ranked[at].0 = ranked[0].0;
        ranked[..=at].rotate_right(1);
    }
}

/// How much the lexical list counts in `hybrid` for this query (see [`CLEAR_LEAD`]): all of it
/// when its best score stands clearly above its fifth, or when the embedding list's best
/// similarity stands less than [`MEANING_LEAD`] above its fifth (or it found nothing); else
/// [`BLEND_WEIGHT`].
pub(super) fn lexical_weight(candidates: &[Candidate]) -> f32 {
    let sorted = |list: fn(&Candidate) -> Option<f32>| {
        let mut scores: Vec<f32> = candidates.iter().filter_map(list).collect();
        scores.sort_by(|a, b| b.total_cmp(a));
        scores
    };
    let words = sorted(|c| c.lexical.map(|(_, s)| s));
    let meaning = sorted(|c| c.vector.map(|(_, s)| s));
    let words_lead = matches!(
        (words.first(), words.get(4)),
        (Some(best), Some(fifth)) if *best >= CLEAR_LEAD * fifth
    );
    // A list of fewer than five has no fifth to stand above: what it found is its front.
    let meaning_lead = match (meaning.first(), meaning.get(4)) {
        (Some(best), Some(fifth)) => best - fifth >= MEANING_LEAD,
        (Some(_), None) => true,
        (None, _) => false,
    };
    if words_lead || !meaning_lead {
        1.0
    } else {
        BLEND_WEIGHT
    }
}

impl Why {
    /// How a hybrid search weighed its two lists for this query, in words; `None` for the other
    /// strategies.
    pub fn weighing(&self) -> Option<String> {
        self.lexical_weight.map(|weight| {
            if weight >= 1.0 {
                "ordered by the words (one of their matches stood out, or none by meaning did)"
                    .to_owned()
            } else {
                format!(
                    "words and meaning weighed {weight:.1} / {:.1}, the words' best match first",
                    1.0 - weight
                )
            }
        })
    }
}

/// A min-max normalisation: the lowest score of a list to 0, its highest to 1.
#[derive(Clone, Copy)]
struct Stretch {
    low: f32,
    span: f32,
}

impl Stretch {
    fn over(scores: impl Iterator<Item = f32>) -> Stretch {
        let (low, high) = scores.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        Stretch {
            low,
            span: high - low,
        }
    }

    /// A list of one score (or of equal scores) gives each of them 1.
    fn apply(self, score: f32) -> f32 {
        if self.span > f32::EPSILON {
            (score - self.low) / self.span
        } else {
            1.0
        }
    }
}

/// The fields a hit matched, by name, each once (`context` is asked word by word).
fn matched_fields(
    searcher: &tantivy::Searcher,
    per_field: &[(&'static str, Box<dyn Query>)],
    addr: DocAddress,
) -> Vec<&'static str> {
    let mut fields: Vec<&'static str> = Vec::new();
    for (name, query) in per_field {
        if !fields.contains(name) && matches(searcher, query.as_ref(), addr) {
            fields.push(name);
        }
    }
    fields
}

/// BM25's statistics counted within a search's scope (its work contexts or sessions) rather
/// than over the whole index: a word that is everywhere in this project (its name, the people in
/// it) says little about which of its turns is meant, however rare it is across the rest of the
/// person's history. On LoCoMo's conversations 0–2 (each one work context, asked within it) it
/// raised lexical recall@1 / @5 / @10 from 0.275 / 0.605 / 0.689 to 0.296 / 0.628 / 0.715, and
/// on conversations 3–4, left out of every choice, from 0.286 / 0.596 / 0.684 to 0.294 / 0.604 /
/// 0.685. The documents' length is the index's average, which a scope seldom departs from far.
pub(super) struct ScopeStatistics<'a> {
    searcher: &'a tantivy::Searcher,
    /// The scope's live documents, one set per segment, walked once: each word's count then
    /// walks only its own postings (building the scope's union of sessions again for every
    /// word cost a 40,000-turn project 5 ms a query).
    members: Vec<tantivy::BitSet>,
    /// Documents in the scope, and their share of the index.
    documents: u64,
    share: f64,
}

impl<'a> ScopeStatistics<'a> {
    pub(super) fn new(searcher: &'a tantivy::Searcher, scope: &dyn Query) -> tantivy::Result<Self> {
        let weight = scope.weight(EnableScoring::disabled_from_searcher(searcher))?;
        let mut members = Vec::with_capacity(searcher.segment_readers().len());
        let mut documents = 0u64;
        for reader in searcher.segment_readers() {
            let mut set = tantivy::BitSet::with_max_value(reader.max_doc());
            let alive = reader.alive_bitset();
            let mut scorer = weight.scorer(reader, 1.0)?;
            let mut doc = scorer.doc();
            while doc != tantivy::TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    set.insert(doc);
                    documents += 1;
                }
                doc = scorer.advance();
            }
            members.push(set);
        }
        let share = documents as f64 / searcher.num_docs().max(1) as f64;
        Ok(ScopeStatistics {
            searcher,
            members,
            documents,
            share,
        })
    }
}

impl Bm25StatisticsProvider for ScopeStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let all = self.searcher.total_num_tokens(field)?;
        Ok(((all as f64 * self.share).round() as u64).max(1))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.documents.max(1))
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut count = 0u64;
        for (reader, members) in self.searcher.segment_readers().iter().zip(&self.members) {
            let postings = reader
                .inverted_index(term.field())?
                .read_postings(term, IndexRecordOption::Basic)?;
            let Some(mut postings) = postings else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != tantivy::TERMINATED {
                count += u64::from(members.contains(doc));
                doc = postings.advance();
            }
        }
        Ok(count)
    }
}

/// Whether the document at `addr` matches `query`. A fresh scorer is walked to the document
/// rather than asked through `explain`, which can seek a phrase scorer backwards and panic.
fn matches(searcher: &tantivy::Searcher, query: &dyn Query, addr: DocAddress) -> bool {
    let Ok(weight) = query.weight(EnableScoring::disabled_from_searcher(searcher)) else {
        return false;
    };
    let reader = searcher.segment_reader(addr.segment_ord);
    let Ok(mut scorer) = weight.scorer(reader, 1.0) else {
        return false;
    };
    if scorer.doc() > addr.doc_id {
        return false;
    }
    scorer.seek(addr.doc_id) == addr.doc_id
}
