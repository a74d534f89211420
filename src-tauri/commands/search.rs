//! Search (issue 16): `search_query`, everything said and written (transcript turns, continuity
//! entries, session summaries, Library documents, observations, durable nodes), every hit with why it ranked where it did, and a fallback to
//! lexical retrieval that is said rather than hidden; and `embeddings_get`, the configured
//! embedder and how far its embeddings reach. A query can ask for the synthesis model's answer
//! over its hits, which comes back with its citations, or with why there is none. One engine call each (`elnor_engine::search`, `elnor_engine::embed_status`);
//! this converts their types.

use chrono::Local;
use elnor_engine::{DocKind, Strategy};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, EmbedCoverage, ErrorKind, SearchCitation, SearchHitRow, SearchKind,
    SearchResults, SearchStrategy, SearchSynthesis, SearchWhy,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

// All four conversions are exhaustive matches: a strategy or a kind the engine adds fails the
// build here, at the one place that maps the engine onto the wire, instead of reaching the UI as
// something it cannot show or open.
fn wire_strategy(s: Strategy) -> SearchStrategy {
    match s {
        Strategy::LexicalOnly => SearchStrategy::LexicalOnly,
        Strategy::EmbeddingAugmented => SearchStrategy::EmbeddingAugmented,
        Strategy::Hybrid => SearchStrategy::Hybrid,
    }
}

fn engine_strategy(s: SearchStrategy) -> Strategy {
    match s {
        SearchStrategy::LexicalOnly => Strategy::LexicalOnly,
        SearchStrategy::EmbeddingAugmented => Strategy::EmbeddingAugmented,
        SearchStrategy::Hybrid => Strategy::Hybrid,
    }
}

pub(crate) fn wire_kind(k: DocKind) -> SearchKind {
    match k {
        DocKind::Turn => SearchKind::Turn,
        DocKind::Entry => SearchKind::Entry,
        DocKind::Summary => SearchKind::Summary,
        DocKind::Document => SearchKind::Document,
        DocKind::Observation => SearchKind::Observation,
        DocKind::Node => SearchKind::Node,
    }
}

pub(crate) fn engine_kind(k: SearchKind) -> DocKind {
    match k {
        SearchKind::Turn => DocKind::Turn,
        SearchKind::Entry => DocKind::Entry,
        SearchKind::Summary => DocKind::Summary,
        SearchKind::Document => DocKind::Document,
        SearchKind::Observation => DocKind::Observation,
        SearchKind::Node => DocKind::Node,
    }
}

/// A rank as the wire carries it; no list is anywhere near `u32::MAX` long (the engine keeps 50
/// candidates per list).
fn rank(r: Option<usize>) -> Option<u32> {
    r.map(|r| u32::try_from(r).unwrap_or(u32::MAX))
}

pub(crate) fn hit(h: elnor_engine::Hit) -> SearchHitRow {
    // Destructured whole, so a field the engine adds to a hit is a build error here until it is
    // carried to the wire or deliberately left behind.
    let elnor_engine::Hit {
        doc_id,
        kind,
        session_id,
        turn_id,
        record,
        position,
        entry_id,
        entry_type,
        work_context_id,
        harness,
        role,
        path,
        title,
        node_id,
        node_kind,
        observation_id,
        at,
        excerpt,
        relevance_score,
        why,
    } = h;
    SearchHitRow {
        doc_id,
        kind: wire_kind(kind),
        session_id,
        turn_id,
        record,
        position,
        entry_id,
        entry_type,
        work_context_id,
        harness,
        role,
        path,
        title,
        node_id,
        node_kind,
        observation_id,
        // The person's own time, as the Timeline shows it.
        at: at.map(|t| t.with_timezone(&Local).to_rfc3339()),
        excerpt,
        relevance_score,
        why: SearchWhy {
            lexical_rank: rank(why.lexical_rank),
            lexical_score: why.lexical_score,
            vector_rank: rank(why.vector_rank),
            similarity: why.similarity,
            fused_score: why.fused_score,
            lexical_weight: why.lexical_weight,
            weighing: why.weighing(),
            fields: why.fields.into_iter().map(str::to_owned).collect(),
            age_days: why.age_days,
        },
    }
}

/// A whole search result on the wire. Destructured whole, like a hit, so an answer or a note the
/// engine adds cannot be dropped here unnoticed.
fn results(r: elnor_engine::SearchResult) -> SearchResults {
    let elnor_engine::SearchResult {
        hits,
        strategy,
        fallback_mode,
        fallback_reason,
        embedded,
        trust_banner,
        documents,
        synthesis,
        synthesis_fallback,
    } = r;
    SearchResults {
        hits: hits.into_iter().map(hit).collect(),
        strategy: wire_strategy(strategy),
        fallback_mode: fallback_mode.map(wire_strategy),
        fallback_reason,
        embedded,
        documents,
        trust_banner: trust_banner.to_owned(),
        synthesis: synthesis.map(wire_synthesis),
        synthesis_fallback,
    }
}

fn wire_synthesis(s: elnor_engine::SearchSynthesis) -> SearchSynthesis {
    let elnor_engine::SearchSynthesis {
        answer,
        citations,
        dropped,
        withheld,
    } = s;
    SearchSynthesis {
        answer,
        citations: citations
            .into_iter()
            .map(|elnor_engine::Citation { doc_id, snippet }| SearchCitation { doc_id, snippet })
            .collect(),
        dropped,
        withheld: u64::try_from(withheld).unwrap_or(u64::MAX),
    }
}

#[tauri::command]
pub async fn search_query(
    state: State<'_, AppState>,
    request: RequestOf<cmd::SearchQuery>,
) -> ReplyOf<cmd::SearchQuery> {
    let store = state.store()?;
    blocking(move || {
        let harness = match request.harness.filter(|h| !h.is_empty()) {
            Some(name) => {
                Some(
                    elnor_engine::Harness::parse(&name).ok_or_else(|| CommandError {
                        kind: ErrorKind::InvalidInput,
                        message: format!("unknown harness {name:?}"),
                    })?,
                )
            }
            None => None,
        };
        let mut req = elnor_engine::SearchRequest::new(request.query, elnor_engine::now());
        req.strategy = engine_strategy(request.strategy);
        req.work_context = request
            .work_context_id
            .filter(|w| !w.is_empty())
            .map(elnor_engine::WorkContextId::new)
            .transpose()
            .map_err(err)?;
        req.kinds = request.kinds.into_iter().map(engine_kind).collect();
        req.harness = harness;
        req.hours = request.hours;
        req.max_results = usize::try_from(request.max_results).unwrap_or(usize::MAX);
        req.synthesis = request.synthesis;
        let r = elnor_engine::search(&store, &req, &elnor_engine::OsKeyring::new()).map_err(err)?;
        Ok(results(r))
    })
    .await
}

#[tauri::command]
pub async fn embeddings_get(state: State<'_, AppState>) -> ReplyOf<cmd::EmbeddingsGet> {
    let store = state.store()?;
    blocking(move || {
        let r = elnor_engine::embed_status(&store).map_err(err)?;
        let builtin = store.config().map_err(err)?.embedding_provider
            == elnor_engine::EmbeddingProvider::Builtin;
        Ok(EmbedCoverage {
            covered: r.covered,
            documents: r.documents,
            embedder: r.embedder,
            builtin,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each engine strategy and kind has a wire value with the same name and comes back as
    /// itself, so what the page sends and shows are the engine's words (the ones `elnor query`
    /// takes). The matches above keep the sets equal; this keeps the names equal.
    #[test]
    fn names_agree_with_the_wire() {
        let strategies = [
            Strategy::LexicalOnly,
            Strategy::EmbeddingAugmented,
            Strategy::Hybrid,
        ];
        for s in strategies {
            let wire = wire_strategy(s);
            assert_eq!(wire.as_str(), s.as_str());
            assert_eq!(
                serde_json::to_value(wire).unwrap(),
                serde_json::to_value(s).unwrap()
            );
            assert_eq!(engine_strategy(wire), s);
        }
        assert_eq!(strategies.len(), SearchStrategy::ALL.len());
        for k in DocKind::ALL {
            let wire = wire_kind(k);
            assert_eq!(wire.as_str(), k.as_str());
            assert_eq!(
                serde_json::to_value(wire).unwrap(),
                serde_json::to_value(k).unwrap()
            );
            assert_eq!(engine_kind(wire), k);
        }
        assert_eq!(DocKind::ALL.len(), SearchKind::ALL.len());
    }
}
