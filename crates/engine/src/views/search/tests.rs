//! Search over the project's own samples (`tests/fixtures/`): a real tantivy index in a real
//! store folder, queried the way `elnor query` does.

use chrono::{DateTime, TimeZone, Utc};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur};

use super::query::{
    Candidate, Lexical, ScopeStatistics, best_first, fusion, leader_first, lexical_weight,
};
use super::*;
use crate::test_support::ingest_dir;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

/// A store with the samples ingested; the ingest use case has synced the index already.
fn indexed() -> (tempfile::TempDir, Store, std::sync::Arc<SearchIndex>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    let index = SearchIndex::open(&store).unwrap();
    let report = index.sync(&store).unwrap();
    assert_eq!(report.turns, 0, "ingest indexed its turns: {report:?}");
    assert!(report.documents > 10, "{report:?}");
    (dir, store, index)
}

/// Why there is no embedder, as the use case would say it.
const NONE: &str = "no embedding model is installed";

fn request(query: &str) -> SearchRequest {
    let mut req = SearchRequest::new(query, now());
    req.strategy = Strategy::LexicalOnly;
    req.hours = 0;
    req
}

#[test]
fn a_person_s_words_find_their_turn_with_its_record_and_reasons() {
    let (_dir, _store, index) = indexed();
    let result = index
        .search(
            &request("OAuth token refreshes in the middle of a batch"),
            None,
            NONE,
        )
        .unwrap();
    let top = &result.hits[0];
    assert_eq!(top.kind, DocKind::Turn);
    assert_eq!(top.role.as_deref(), Some("user"));
    assert_eq!(
        top.session_id.as_deref(),
        Some("5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11")
    );
    // Claude Code's own `uuid` of the record, so the hit can be found in the file.
    assert_eq!(top.record.as_deref(), Some("5b0c2d7e-3"));
    assert!(
        top.excerpt.starts_with("The nightly sync drops rows"),
        "{top:?}"
    );
    // The injected system reminder is not part of what the person said.
    assert!(!top.excerpt.contains("system-reminder"), "{top:?}");
    assert_eq!(top.why.lexical_rank, Some(1));
    assert!(top.why.fields.contains(&"text"), "{:?}", top.why);
    assert_eq!(top.relevance_score, 1.0);
    assert_eq!(result.trust_banner, "low_trust");
    assert_eq!(result.fallback_mode, None);
}

#[test]
fn a_file_path_is_found_whole_and_codex_turns_point_at_their_line() {
    let (_dir, _store, index) = indexed();
    let result = index
        .search(&request("tests/refresh_mid_batch.rs"), None, NONE)
        .unwrap();
    let codex = result
        .hits
        .iter()
        .find(|h| h.harness.as_deref() == Some("codex") && h.role.as_deref() == Some("tool"))
        .expect("the Codex tool output that added the file");
    assert!(codex.why.fields.contains(&"ident"), "{:?}", codex.why);
    assert!(codex.why.fields.contains(&"tool"), "{:?}", codex.why);
    // Codex records have no id of their own: the line of the record in the file, here the
    // `custom_tool_call_output` of the patch.
    assert_eq!(codex.record.as_deref(), Some("line:13"), "{codex:?}");
}

#[test]
fn the_turn_before_counts_so_an_answer_is_found_by_its_question() {
    let (_dir, _store, index) = indexed();
    // The assistant's answer names a cursor and a refresh; "tell me why" and "drops rows" are
    // only in the person's question just before it.
    let result = index
        .search(&request("why does the sync drop rows"), None, NONE)
        .unwrap();
    let answer = result
        .hits
        .iter()
        .find(|h| h.record.as_deref() == Some("5b0c2d7e-6"))
        .expect("the answer is among the hits");
    assert!(answer.why.fields.contains(&"context"), "{:?}", answer.why);
}

#[test]
fn filters_and_the_time_window_narrow_the_hits() {
    let (_dir, _store, index) = indexed();
    let mut req = request("batch");
    req.max_results = 20;
    let all = index.search(&req, None, NONE).unwrap();
    assert!(all.hits.len() > 2);
    req.harness = Some(crate::inputs::transcripts::Harness::Codex);
    let codex = index.search(&req, None, NONE).unwrap();
    assert!(!codex.hits.is_empty());
    assert!(
        codex
            .hits
            .iter()
            .all(|h| h.harness.as_deref() == Some("codex"))
    );
    req.harness = None;
    req.kinds = vec![DocKind::Summary];
    assert!(
        index
            .search(&req, None, NONE)
            .unwrap()
            .hits
            .iter()
            .all(|h| h.kind == DocKind::Summary)
    );
    // The samples happened in October 2026: a one-hour window before the query finds nothing.
    let mut recent = request("batch");
    recent.hours = 1;
    assert!(index.search(&recent, None, NONE).unwrap().hits.is_empty());
}

#[test]
fn an_embedding_strategy_without_an_embedder_says_it_fell_back() {
    let (_dir, _store, index) = indexed();
    let mut req = request("batch");
    req.strategy = Strategy::Hybrid;
    let result = index.search(&req, None, NONE).unwrap();
    assert_eq!(result.strategy, Strategy::Hybrid);
    assert_eq!(result.fallback_mode, Some(Strategy::LexicalOnly));
    assert!(
        result
            .fallback_reason
            .as_deref()
            .is_some_and(|r| r.contains(NONE)),
        "{result:?}"
    );
    assert!(
        index.search(&request("   "), None, NONE).is_err(),
        "an empty query is refused"
    );
}

#[test]
fn a_sync_adds_only_what_is_new_and_a_rebuild_answers_the_same() {
    let (_dir, store, index) = indexed();
    assert!(!index.is_behind(&store).unwrap());
    let again = index.sync(&store).unwrap();
    assert_eq!((again.turns, again.entries, again.summaries), (0, 0, 0));
    let before = index.search(&request("whole batch"), None, NONE).unwrap();
    let rebuilt = SearchIndex::rebuild(&store).unwrap();
    assert_eq!(rebuilt.documents, before.documents);
    let index = SearchIndex::open(&store).unwrap();
    let after = index.search(&request("whole batch"), None, NONE).unwrap();
    let ids = |r: &SearchResult| {
        r.hits
            .iter()
            .map(|h| (h.turn_id.clone(), h.entry_id.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&after), ids(&before));
}

#[test]
fn captured_entries_are_searchable_and_leave_with_a_merged_log() {
    let (_dir, store, index) = indexed();
    store
        .set_mode(crate::base::config::ContinuityMode::Deterministic)
        .unwrap();
    let ids = crate::test_support::capture_all(&store, now());
    assert!(!ids.is_empty());
    assert!(index.is_behind(&store).unwrap());
    let report = index.sync(&store).unwrap();
    assert!(report.entries > 0, "{report:?}");
    let mut req = request("retry the whole batch");
    req.kinds = vec![DocKind::Entry];
    let hits = index.search(&req, None, NONE).unwrap().hits;
    let decision = hits
        .iter()
        .find(|h| h.entry_type.as_deref() == Some("key_decision"))
        .expect("the captured decision");
    let wc =
        crate::base::ids::WorkContextId::new(decision.work_context_id.clone().unwrap()).unwrap();
    // Merging the context away moves its log: its entries now answer under the kept context.
    let other = store
        .graph()
        .create_work_context(
            &crate::graph::contexts::NewWorkContext {
                name: "Elsewhere".into(),
                ..Default::default()
            },
            now(),
        )
        .unwrap();
    crate::usecase::merge_work_contexts(&store, &other.work_context_id, &wc, now()).unwrap();
    let report = index.sync(&store).unwrap();
    assert_eq!(report.logs_removed, 1, "{report:?}");
    let hits = index.search(&req, None, NONE).unwrap().hits;
    assert!(
        hits.iter()
            .filter(|h| h.entry_type.as_deref() == Some("key_decision"))
            .all(|h| h.work_context_id.as_deref() == Some(other.work_context_id.as_str())),
        "{hits:?}"
    );
}

/// With the local model: a backfill covers every document (resuming where a limited run
/// stopped), and a hybrid query ranks by fusing both lists, each hit saying its vector rank and
/// similarity beside its lexical rank. Skipped, and counted, without the model's files.
#[test]
fn embeddings_backfill_resumes_and_hybrid_explains_both_ranks() {
    let Some(model) = super::embed::tests::model() else {
        return;
    };
    let (_dir, _store, index) = indexed();
    let model = &super::embed::Embedder::Local(model);
    let never = std::sync::atomic::AtomicBool::new(false);
    let first = index
        .embed_pending(model, &Default::default(), Some(5), &mut |_| {}, &never)
        .unwrap();
    assert_eq!(first.embedded, 5);
    let mut seen = Vec::new();
    let rest = index
        .embed_pending(
            model,
            &Default::default(),
            None,
            &mut |r| seen.push(r.covered),
            &never,
        )
        .unwrap();
    assert_eq!(rest.covered, rest.documents, "{rest:?}");
    assert_eq!(rest.embedded + 5, rest.documents);
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "progress grows: {seen:?}"
    );
    assert_eq!(
        index.embed_status(&model.id()).unwrap().covered,
        rest.documents
    );

    // Words the session never uses for its point: the turn about dropped rows after a token
    // refresh, asked about as lost records when credentials renew.
    let mut req = request("records go missing when the credentials renew halfway");
    req.strategy = Strategy::Hybrid;
    req.max_results = 10;
    let result = index.search(&req, Some(model), NONE).unwrap();
    assert_eq!(result.fallback_mode, None, "{result:?}");
    assert_eq!(result.embedded, Some(rest.documents));
    assert!(
        result
            .hits
            .iter()
            .all(|h| h.why.vector_rank.is_some() || h.why.lexical_rank.is_some())
    );
    assert!(result.hits.iter().any(|h| h.why.similarity.is_some()));
    let fused: Vec<f32> = result.hits.iter().map(|h| h.why.fused_score).collect();
    // Every hit says how the lists were weighed for this query, the same for all of them.
    let weight = result.hits[0].why.lexical_weight;
    assert!(
        matches!(weight, Some(w) if w == 1.0 || w == 0.6),
        "{weight:?}"
    );
    assert!(result.hits.iter().all(|h| h.why.lexical_weight == weight));
    assert!(
        fused.windows(2).all(|w| w[0] >= w[1]),
        "ordered by the fused score: {fused:?}"
    );
    assert!(
        result.hits[..5]
            .iter()
            .any(|h| h.session_id.as_deref() == Some("5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11")),
        "{:#?}",
        result.hits
    );

    // A filter holds for the neighbours that only the vectors found, too.
    req.harness = Some(crate::inputs::transcripts::Harness::Codex);
    let codex = index.search(&req, Some(model), NONE).unwrap();
    assert!(!codex.hits.is_empty());
    assert!(
        codex
            .hits
            .iter()
            .all(|h| h.harness.as_deref() == Some("codex")),
        "{:#?}",
        codex.hits
    );
    assert!(
        codex.hits.iter().any(|h| h.why.lexical_rank.is_none()),
        "{:#?}",
        codex.hits
    );
}

/// Random numbers in [-1, 1] from a fixed seed (xorshift), so every run sees the same vectors.
struct Noise(u64);

impl Noise {
    fn word(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn next(&mut self) -> f32 {
        (self.word() % 20_001) as f32 / 10_000.0 - 1.0
    }

    /// A unit vector of 384 values near `centre` (or anywhere, without one).
    fn unit_near(&mut self, centre: Option<&[f32]>, spread: f32) -> Vec<f32> {
        let v: Vec<f32> = (0..384)
            .map(|i| centre.map_or(0.0, |c| c[i]) + self.next() * spread)
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }

    /// `centres` unit vectors anywhere, and `rows` vectors within `spread` of them, taking the
    /// centres in turn: clustered, as embeddings of real text are.
    fn clustered(
        &mut self,
        centres: usize,
        rows: usize,
        spread: f32,
    ) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
        let centres: Vec<Vec<f32>> = (0..centres).map(|_| self.unit_near(None, 1.0)).collect();
        let rows = (0..rows)
            .map(|i| self.unit_near(Some(&centres[i % centres.len()]), spread))
            .collect();
        (centres, rows)
    }
}

/// A backfill killed between appending a batch's vectors and its ids (here: a whole extra
/// vector, half of another and half an id line) leaves rows the next run must cut off before it
/// appends; otherwise every later id names the vector of another document (docs/CRASH.md).
#[test]
fn a_backfill_after_a_killed_one_keeps_every_id_on_its_own_vector() {
    let Some(model) = super::embed::tests::model() else {
        return;
    };
    let (_dir, _store, index) = indexed();
    let model = &super::embed::Embedder::Local(model);
    let never = std::sync::atomic::AtomicBool::new(false);
    index
        .embed_pending(model, &Default::default(), Some(5), &mut |_| {}, &never)
        .unwrap();
    let folder = index.dir.parent().unwrap().join("vectors").join(model.id());
    let append = |name: &str, bytes: &[u8]| {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(folder.join(name))
            .unwrap();
        std::io::Write::write_all(&mut f, bytes).unwrap();
    };
    append("vectors.f32", &vec![7u8; 384 * 4 + 384 * 2]);
    append("vectors.ids", b"turn:99");
    let rest = index
        .embed_pending(model, &Default::default(), None, &mut |_| {}, &never)
        .unwrap();
    assert_eq!(rest.covered, rest.documents, "{rest:?}");
    let ids = std::fs::read_to_string(folder.join("vectors.ids")).unwrap();
    let lines = ids.lines().count() as u64;
    assert!(ids.ends_with('\n') && !ids.contains("turn:99"), "{ids}");
    assert_eq!(lines, rest.documents);
    let bytes = std::fs::metadata(folder.join("vectors.f32")).unwrap().len();
    assert_eq!(bytes, lines * 384 * 4);
    let loaded = super::vectors::Vectors::load(&folder).unwrap();
    assert_eq!(loaded.len() as u64, lines);
}

/// `rows` written as a backfill writes them (ids `turn:{i}`), loaded back.
fn vectors_of(dir: &std::path::Path, rows: &[Vec<f32>]) -> (super::vectors::Vectors, Vec<String>) {
    let ids: Vec<String> = (0..rows.len()).map(|i| format!("turn:{i}")).collect();
    let bytes: Vec<u8> = rows
        .iter()
        .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    std::fs::write(dir.join("dims"), "384").unwrap();
    std::fs::write(dir.join("vectors.f32"), bytes).unwrap();
    std::fs::write(dir.join("vectors.ids"), ids.join("\n") + "\n").unwrap();
    let vectors = super::vectors::Vectors::load(dir).unwrap();
    assert_eq!(vectors.len(), rows.len());
    (vectors, ids)
}

/// The ids of the 10 rows nearest `q` by an exact scan, among `allowed` (all when `None`), with
/// their similarities.
fn exact_top(
    rows: &[Vec<f32>],
    ids: &[String],
    q: &[f32],
    allowed: Option<&[usize]>,
) -> Vec<(String, f32)> {
    let mut all: Vec<(f32, usize)> = (0..rows.len())
        .filter(|i| allowed.is_none_or(|a| a.contains(i)))
        .map(|i| (rows[i].iter().zip(q).map(|(a, b)| a * b).sum(), i))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    all.into_iter()
        .take(10)
        .map(|(s, i)| (ids[i].clone(), s))
        .collect()
}

fn names(found: &[(String, f32)]) -> Vec<&String> {
    found.iter().map(|(id, _)| id).collect()
}

/// The quantised scan with exact rescoring finds the same nearest vectors as an exact scan over
/// every `f32`, with and without a filter, and the similarities it reports are the exact ones.
#[test]
fn quantised_nearest_neighbours_match_the_exact_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut noise = Noise(0x1234_5678_9abc_def0);
    let rows: Vec<Vec<f32>> = (0..3_000).map(|_| noise.unit_near(None, 1.0)).collect();
    let (vectors, ids) = vectors_of(dir.path(), &rows);
    for trial in 0..20 {
        // A query near a stored row, as a real query is near its answer.
        let q = noise.unit_near(Some(&rows[trial * 97]), 0.05);
        let found = vectors.nearest(&q, None, 10).unwrap();
        let want = exact_top(&rows, &ids, &q, None);
        assert_eq!(names(&found), names(&want), "trial {trial}");
        for ((_, got), (_, exact)) in found.iter().zip(&want) {
            assert!((got - exact).abs() < 1e-5);
        }
        let subset: Vec<usize> = (0..rows.len()).filter(|i| i % 3 == trial % 3).collect();
        let keys: Vec<u64> = subset
            .iter()
            .map(|&i| super::vectors::key_of(&ids[i]))
            .collect();
        let filtered = vectors.nearest(&q, Some(&keys), 10).unwrap();
        assert_eq!(
            names(&filtered),
            names(&exact_top(&rows, &ids, &q, Some(&subset)))
        );
    }
    // A query of another length finds nothing rather than comparing apples with pears.
    assert!(vectors.nearest(&[1.0; 16], None, 10).unwrap().is_empty());
}

/// On a store large enough for the sign-bit prefilter (forced here on a small one), documents
/// that are about the same thing as the query are all kept by the prefilter: the neighbours match
/// an exact scan. The vectors are clustered, as embeddings of real text are.
#[test]
fn the_sign_bit_prefilter_keeps_the_true_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let mut noise = Noise(0x0bad_cafe_f00d_1234);
    let (centres, rows) = noise.clustered(200, 12_000, 0.06);
    let (vectors, ids) = vectors_of(dir.path(), &rows);
    for trial in 0..10 {
        let q = noise.unit_near(Some(&centres[trial * 7]), 0.06);
        let found = vectors.nearest_from(&q, None, 10, 0).unwrap();
        assert_eq!(
            names(&found),
            names(&exact_top(&rows, &ids, &q, None)),
            "trial {trial}"
        );
    }
}

/// The loops compiled for this CPU's instructions give what the portable ones give, at the
/// model's width and at another.
#[test]
fn the_vector_loops_agree_on_every_cpu_path() {
    use super::vectors::{
        dot_codes, dot_codes_portable, hamming_distances, hamming_distances_portable,
    };
    let mut noise = Noise(0x00c0_ffee_d00d);
    for words in [6, 3] {
        let rows = 1_001;
        let bits: Vec<u64> = (0..rows * words).map(|_| noise.word()).collect();
        let q: Vec<u64> = (0..words).map(|_| noise.word()).collect();
        let (mut fast, mut portable) = (vec![0; rows], vec![0; rows]);
        let (mut fast_hist, mut portable_hist) = (vec![0; words * 64 + 1], vec![0; words * 64 + 1]);
        hamming_distances(&bits, &q, &mut fast, &mut fast_hist);
        hamming_distances_portable(&bits, &q, &mut portable, &mut portable_hist);
        assert_eq!(fast.len(), rows);
        assert_eq!(fast, portable, "{words} words");
        assert_eq!(fast_hist, portable_hist);
        let row = |i: usize| -> u32 {
            bits[i * words..(i + 1) * words]
                .iter()
                .zip(&q)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum()
        };
        assert_eq!(u32::from(fast[500]), row(500));
    }
    for len in [384, 17] {
        let a: Vec<i8> = (0..len).map(|_| noise.word() as i8).collect();
        let b: Vec<i8> = (0..len).map(|_| noise.word() as i8).collect();
        let want: i32 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        assert_eq!(dot_codes(&a, &b), want);
        assert_eq!(dot_codes_portable(&a, &b), want);
    }
}

/// The prefilter's counting selection keeps exactly the rows a full sort by Hamming distance
/// would (ties to the lower row), whether the cut falls inside a crowded distance, takes every
/// row, or asks for none.
#[test]
fn the_sign_bit_prefilter_keeps_what_a_full_sort_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let mut noise = Noise(0x005e_ed0f_5197);
    // Few distinct sign patterns, so many rows share a distance and ties decide the cut.
    let (centres, rows) = noise.clustered(7, 2_501, 0.3);
    let (vectors, _) = vectors_of(dir.path(), &rows);
    let distance =
        |a: &[u64], b: &[u64]| -> u32 { a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum() };
    let row_bits: Vec<Vec<u64>> = rows.iter().map(|r| super::vectors::sign_bits(r)).collect();
    for (trial, keep) in [0, 1, 37, 500, 1_250, 2_500, 2_501, 9_000]
        .into_iter()
        .enumerate()
    {
        let q = super::vectors::sign_bits(&noise.unit_near(Some(&centres[trial % 7]), 0.3));
        let mut want: Vec<(u32, usize)> = row_bits
            .iter()
            .enumerate()
            .map(|(row, bits)| (distance(bits, &q), row))
            .collect();
        want.sort();
        let mut want: Vec<usize> = want.into_iter().take(keep).map(|(_, row)| row).collect();
        want.sort();
        assert_eq!(vectors.closest_signs(&q, keep), want, "keep {keep}");
    }
}

/// Stop words are left out of the identifier field's query only when the query has other words:
/// a query of nothing but common words still finds what holds them, matched in that field.
#[test]
fn a_query_of_only_common_words_still_finds_them() {
    let (_dir, _store, index) = indexed();
    let found = index.search(&request("the"), None, NONE).unwrap();
    assert!(!found.hits.is_empty());
    assert!(
        found.hits.iter().all(|h| h.why.fields == ["ident"]),
        "{:?}",
        found.hits.iter().map(|h| &h.why.fields).collect::<Vec<_>>()
    );
}

/// Each sync commits a segment; the merges that commit starts are waited for, so a day of small
/// writes does not leave a segment per write for every query to visit.
#[test]
fn small_syncs_merge_their_segments_and_lose_nothing() {
    let (_dir, store, index) = indexed();
    let writes = 24;
    for i in 0..writes {
        let push = crate::inputs::observe::Push {
            text: format!("Moved the quarterly report number zq{i}x to the archive"),
            work_context: None,
            entities: Vec::new(),
        };
        crate::inputs::observe::push(&store, &push, now()).unwrap();
        index.sync(&store).unwrap();
    }
    let searcher = index.reader().unwrap().searcher();
    let segments = searcher.segment_readers().len();
    assert!(
        segments < 10,
        "{segments} segments after {writes} one-document syncs"
    );
    for i in 0..writes {
        let found = index
            .search(&request(&format!("zq{i}x")), None, NONE)
            .unwrap();
        assert_eq!(found.hits.len(), 1, "write {i} is searchable once");
    }
}

#[test]
fn a_sync_while_another_writer_holds_the_index_waits_its_turn_and_loses_nothing() {
    let (_dir, store, index) = indexed();
    let before = index.reader().unwrap().searcher().num_docs();
    // A push lands while another process holds the index's one writer.
    let held: IndexWriter<TantivyDocument> =
        index.index.writer_with_num_threads(1, 15_000_000).unwrap();
    let push = crate::inputs::observe::Push {
        text: "Renamed the ledger export while the index was busy".into(),
        work_context: None,
        entities: Vec::new(),
    };
    crate::inputs::observe::push(&store, &push, now()).unwrap();
    assert!(
        index.sync_if_free(&store).unwrap().is_none(),
        "busy is not a failure"
    );
    let err = index.sync(&store).unwrap_err();
    assert!(
        err.to_string().contains("updating the index right now"),
        "{err}"
    );
    drop(held);
    // Once the writer is free the next sync indexes the push, once.
    let report = index.sync_if_free(&store).unwrap().expect("free now");
    assert_eq!(report.observations, 1, "{report:?}");
    assert_eq!(report.documents, before + 1);
    assert_eq!(index.sync(&store).unwrap().observations, 0);
}

/// An index trailing an ingest (a first run's) takes the turns of each file as its transaction
/// commits and ends with exactly the documents a sync after the ingest makes: none twice, none
/// missed, while any other sync meanwhile finds the index busy rather than adding its own.
#[test]
fn an_index_trailing_an_ingest_indexes_each_turn_once() {
    use crate::inputs::ingest::{SourceRoot, ingest_store};
    use crate::inputs::transcripts::Harness;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let samples = elnor_fixtures::samples();
    let roots = [
        (Harness::ClaudeCode, samples.join("claude-code")),
        (Harness::OpenClaw, samples.join("openclaw/agents")),
        (Harness::Codex, samples.join("codex")),
    ];
    let index = SearchIndex::open(&store).unwrap();
    let ingesting = AtomicBool::new(true);
    let trailed = std::thread::scope(|scope| {
        let trailing = scope.spawn(|| index.sync_trailing_ingest(&store, &ingesting));
        for (harness, root) in &roots {
            let root = SourceRoot {
                harness: *harness,
                root: root.clone(),
            };
            ingest_store(&store, &[root], &mut |_| {}, now()).unwrap();
            // Long past the trailing index's poll, so it indexes this harness's turns before the
            // next harness's exist.
            std::thread::sleep(std::time::Duration::from_millis(150));
            assert!(
                index.sync_if_free(&store).unwrap().is_none(),
                "the trailing index holds the writer"
            );
        }
        ingesting.store(false, Ordering::Release);
        trailing
            .join()
            .unwrap()
            .unwrap()
            .expect("the writer was free")
    });
    assert!(trailed.turns > 20, "{trailed:?}");
    assert!(!index.is_behind(&store).unwrap());
    let again = index.sync(&store).unwrap();
    assert_eq!(again.turns, 0, "{again:?}");
    let rebuilt = SearchIndex::rebuild(&store).unwrap();
    assert_eq!(rebuilt.turns, trailed.turns);
    assert_eq!(rebuilt.documents, trailed.documents);
}

/// The neighbourhood and a plain word's written form only re-score the best candidates, those
/// that match by their own words; what they add is the score the whole query would give. On the
/// samples, where the candidates are every such match that counts, the re-scored top is the
/// whole query's top among them, score for score. (A turn matching only by common words of its
/// neighbourhood is not a candidate: the turn next to it that holds the words is.)
#[test]
fn rescored_candidates_score_what_the_whole_query_gives_them() {
    let (_dir, _store, index) = indexed();
    let searcher = index.reader().unwrap().searcher();
    let queries = [
        "why does the sync drop rows",
        "OAuth token refreshes in the middle of a batch",
        "tests/refresh_mid_batch.rs cursor",
        "ledger export retry",
    ];
    for text in queries {
        let Lexical { query, rescore, .. } = index.lexical(&request(text), None).unwrap();
        let rescore = rescore.expect("every query here has words to re-score with");
        let whole = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::Should, rescore.box_clone()),
        ]);
        let expected = searcher
            .search(&whole, &TopDocs::with_limit(8).order_by_score())
            .unwrap();
        let found = index
            .refined_top(
                &searcher,
                query.as_ref(),
                Some(rescore.as_ref()),
                None,
                (8, 8),
            )
            .unwrap();
        assert_eq!(
            found.iter().map(|(_, a)| *a).collect::<Vec<_>>(),
            expected.iter().map(|(_, a)| *a).collect::<Vec<_>>(),
            "{text:?}"
        );
        for ((got, _), (want, _)) in found.iter().zip(&expected) {
            assert!((got - want).abs() < 1e-4, "{text:?}: {got} against {want}");
        }
    }
}

/// A query reloads the reader only when the index has a new commit: another handle's (another
/// process's) write is found by the next query, and two queries with no commit between them
/// share one searcher.
#[test]
fn a_query_sees_another_writer_s_commit_and_reloads_only_for_one() {
    let (_dir, store, index) = indexed();
    let first = index
        .reader()
        .unwrap()
        .searcher()
        .generation()
        .generation_id();
    let again = index
        .reader()
        .unwrap()
        .searcher()
        .generation()
        .generation_id();
    assert_eq!(first, again, "no commit, no reload");
    let other = SearchIndex::open_uncached(&store).unwrap();
    let push = crate::inputs::observe::Push {
        text: "Archived the zqstampx ledger before the audit".into(),
        work_context: None,
        entities: Vec::new(),
    };
    crate::inputs::observe::push(&store, &push, now()).unwrap();
    assert_eq!(other.sync(&store).unwrap().observations, 1);
    let found = index.search(&request("zqstampx"), None, NONE).unwrap();
    assert_eq!(found.hits.len(), 1, "the other handle's commit is seen");
    let after = index
        .reader()
        .unwrap()
        .searcher()
        .generation()
        .generation_id();
    assert_ne!(after, first, "the commit was reloaded");
}

/// A handle keeps the sync state it last wrote, and takes the file's instead once another writer
/// has written a newer one: otherwise it would index again what the other indexed, or miss what
/// is new.
#[test]
fn a_sync_starts_from_the_state_another_writer_left() {
    let (_dir, store, index) = indexed();
    let docs = |index: &SearchIndex| index.reader().unwrap().searcher().num_docs();
    let push = |text: &str| {
        let push = crate::inputs::observe::Push {
            text: text.into(),
            work_context: None,
            entities: Vec::new(),
        };
        crate::inputs::observe::push(&store, &push, now()).unwrap();
    };
    let before = docs(&index);
    assert!(
        !index.is_behind(&store).unwrap(),
        "the state this handle wrote is current"
    );
    let other = SearchIndex::open_uncached(&store).unwrap();
    push("Archived the zqfirstx ledger before the audit");
    assert!(
        index.is_behind(&store).unwrap(),
        "a new observation is seen"
    );
    assert_eq!(other.sync(&store).unwrap().observations, 1);
    assert!(
        !index.is_behind(&store).unwrap(),
        "the other handle's state is read, not the one kept"
    );
    push("Archived the zqsecondx ledger after the audit");
    let report = index.sync(&store).unwrap();
    assert_eq!(
        report.observations, 1,
        "only the second push is new to the index"
    );
    assert_eq!(docs(&index), before + 2, "nothing was indexed twice");
    assert_eq!(
        index
            .search(&request("zqfirstx"), None, NONE)
            .unwrap()
            .hits
            .len(),
        1
    );
}

/// The indexes a process keeps open are let go once their store's folder is gone: a process that
/// opens store after store would otherwise hold every deleted index's segments in memory.
#[test]
fn an_index_whose_store_was_deleted_is_let_go() {
    let (dir, store, index) = indexed();
    let gone = std::sync::Arc::downgrade(&index);
    drop(index);
    drop(store);
    // Asked while the folder still stands: once it is gone, another test's open may already
    // let the index go.
    assert!(gone.upgrade().is_some(), "the open index is kept for reuse");
    drop(dir);
    let other = tempfile::tempdir().unwrap();
    let next = Store::open(other.path().join("store")).unwrap();
    SearchIndex::open(&next).unwrap();
    assert!(
        gone.upgrade().is_none(),
        "the deleted store's index is still held open"
    );
}

/// A time window longer than a date can reach back finds what no window finds, rather than
/// overflowing. Found by the `mcp_call` fuzzer on `session_list`, which had the same subtraction.
#[test]
fn a_window_past_the_earliest_date_searches_all_time() {
    let (_dir, _store, index) = indexed();
    let all_time = index.search(&request("ledger"), None, NONE).unwrap();
    assert!(!all_time.hits.is_empty());
    let mut widest = request("ledger");
    widest.hours = u32::MAX;
    let found = index.search(&widest, None, NONE).unwrap();
    let ids = |r: &SearchResult| r.hits.iter().map(|h| h.doc_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&found), ids(&all_time));
}

#[test]
fn a_turn_whose_record_has_no_id_points_at_its_line() {
    // pi's first session format wrote entries without ids: the hit names the record's line, as a
    // Codex hit does, so every turn hit can be cited and found in its file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"session\"}\n{\"type\":\"message\"}\n{\"type\":\"message\"}\n",
    )
    .unwrap();
    let third_line = std::fs::read_to_string(&file)
        .unwrap()
        .match_indices('\n')
        .nth(1)
        .unwrap()
        .0
        + 1;
    let row = |turn_id: &str| super::TurnRow {
        seq: 3,
        turn_id: turn_id.to_owned(),
        session_id: "s1".to_owned(),
        harness: "openclaw".to_owned(),
        role: "user".to_owned(),
        kind: "message".to_owned(),
        text: "hello".to_owned(),
        timestamp: None,
        source_path: file.display().to_string(),
        source_offset: third_line as i64,
    };
    let mut lines = super::LineNumbers::default();
    let hashed = format!("openclaw:s1:h{}", "0".repeat(20));
    assert_eq!(
        super::record_of(&row(&hashed), &mut lines).as_deref(),
        Some("line:3")
    );
    assert_eq!(
        super::record_of(&row("openclaw:s1:a1b2c3d4"), &mut lines).as_deref(),
        Some("a1b2c3d4")
    );
}

/// A candidate found by the lists with these scores (ranks follow from the scores here).
fn candidate(id: &str, lexical: Option<f32>, vector: Option<f32>) -> Candidate {
    Candidate {
        doc: None,
        id: id.to_owned(),
        lexical: lexical.map(|s| (1, s)),
        vector: vector.map(|s| (1, s)),
    }
}

#[test]
fn hybrid_keeps_a_clear_lexical_leader_and_blends_a_flat_list() {
    // A best match well above the fifth: the words found what was meant.
    let clear: Vec<Candidate> = [9.0, 6.0, 5.5, 5.2, 5.0, 4.0]
        .iter()
        .enumerate()
        .map(|(i, s)| candidate(&format!("l{i}"), Some(*s), None))
        .chain([candidate("v", None, Some(0.9))])
        .collect();
    assert_eq!(lexical_weight(&clear), 1.0);
    // A flat list (the best within 1.3× the fifth) beside a meaning list with a front (its best
    // 0.04 or more above its fifth), and lists of fewer than five: blended.
    let flat: Vec<Candidate> = [6.0, 5.9, 5.8, 5.5, 5.1]
        .iter()
        .enumerate()
        .map(|(i, s)| candidate(&format!("l{i}"), Some(*s), Some(0.2)))
        .chain([candidate("v", None, Some(0.9))])
        .collect();
    assert_eq!(lexical_weight(&flat), 0.6);
    assert_eq!(lexical_weight(&flat[..3]), 0.6);
    // The same flat words beside meaning that found nothing in particular (its best 0.02 above
    // its fifth), or beside no meaning at all: the words alone.
    let vague: Vec<Candidate> = [
        (6.0, 0.52),
        (5.9, 0.51),
        (5.8, 0.51),
        (5.5, 0.50),
        (5.1, 0.50),
    ]
    .iter()
    .enumerate()
    .map(|(i, (l, v))| candidate(&format!("l{i}"), Some(*l), Some(*v)))
    .collect();
    assert_eq!(lexical_weight(&vague), 1.0);
    let no_meaning: Vec<Candidate> = flat
        .iter()
        .map(|c| candidate(&c.id, c.lexical.map(|(_, s)| s), None))
        .collect();
    assert_eq!(lexical_weight(&no_meaning), 1.0);

    // The other strategies keep their own list and leave out what it did not find.
    let lexical = fusion(Strategy::LexicalOnly, true, 1.0, &flat);
    assert_eq!(lexical(&flat[5]), None);
    let vector = fusion(Strategy::EmbeddingAugmented, true, 1.0, &flat);
    assert_eq!(vector(&flat[0]), Some(0.2));

    let order = |candidates: Vec<Candidate>, weight: f32| -> Vec<String> {
        let score = fusion(Strategy::Hybrid, true, weight, &candidates);
        let mut scored: Vec<(f32, Candidate)> = candidates
            .into_iter()
            .filter_map(|c| Some((score(&c)?, c)))
            .collect();
        best_first(&mut scored);
        scored.into_iter().map(|(_, c)| c.id).collect()
    };
    // Weight 1: the lexical order, then what only the embeddings found, closest first.
    let mut clear = clear;
    clear.push(candidate("a", None, Some(0.5)));
    assert_eq!(
        order(clear, 1.0),
        ["l0", "l1", "l2", "l3", "l4", "l5", "v", "a"]
    );
    // Weight 0.5: the vector's confident find rises above the flat list's weaker half; it ties
    // the lexical leader, which the words found.
    let blended = order(flat, 0.5);
    assert_eq!(blended[..2], ["l0", "v"]);
    assert!(
        blended.iter().position(|id| id == "v") < blended.iter().position(|id| id == "l3"),
        "{blended:?}"
    );

    // The words' first match keeps first place even when the blend puts another above it: here
    // the second match is as close in meaning as the vector's best, the first far from it.
    let leader_far: Vec<Candidate> = [(6.0, 0.2), (5.9, 0.9), (5.8, 0.2), (5.5, 0.2), (5.1, 0.2)]
        .iter()
        .enumerate()
        .map(|(i, (lexical, vector))| Candidate {
            doc: None,
            id: format!("l{i}"),
            lexical: Some((i + 1, *lexical)),
            vector: Some((1, *vector)),
        })
        .collect();
    let score = fusion(Strategy::Hybrid, true, 0.5, &leader_far);
    let mut scored: Vec<(f32, Candidate)> = leader_far
        .into_iter()
        .filter_map(|c| Some((score(&c)?, c)))
        .collect();
    best_first(&mut scored);
    assert_eq!(
        scored[0].1.id, "l1",
        "the blend alone puts the second match first"
    );
    leader_first(&mut scored);
    let ids: Vec<&str> = scored.iter().map(|(_, c)| c.id.as_str()).collect();
    assert_eq!(ids[..2], ["l0", "l1"], "{ids:?}");
    assert!(
        scored.windows(2).all(|w| w[0].0 >= w[1].0),
        "still ordered by score"
    );
}

#[test]
fn word_rarity_is_counted_in_the_scope() {
    use tantivy::query::{Bm25StatisticsProvider, Query, TermQuery};
    use tantivy::schema::IndexRecordOption;

    let (_dir, _store, index) = indexed();
    let searcher = index.reader().unwrap().searcher();
    let f = index.fields;
    let session = Term::from_field_text(f.session_id, "5b0c2d7e-1f3a-4c8e-9a61-0d2f7c9e4a11");
    let scope = TermQuery::new(session, IndexRecordOption::Basic);
    let stats = ScopeStatistics::new(&searcher, &scope).unwrap();
    let in_session = scope.count(&searcher).unwrap() as u64;
    assert!(0 < in_session && in_session < searcher.num_docs());
    assert_eq!(stats.total_num_docs().unwrap(), in_session);
    // A word of the session that other sessions use too: rarer in the whole index than in it.
    let word = Term::from_field_text(f.exchange, "sync");
    let (everywhere, here) = (
        searcher.doc_freq(&word).unwrap(),
        stats.doc_freq(&word).unwrap(),
    );
    assert!(0 < here && here < everywhere, "{here} of {everywhere}");
    let share = |df: u64, docs: u64| df as f64 / docs as f64;
    assert!(
        share(here, in_session) > share(everywhere, searcher.num_docs()),
        "the word is commoner in its session than in the index"
    );
    // The documents' length is scaled with the scope's share of the index.
    let tokens = searcher.total_num_tokens(f.exchange).unwrap();
    let scoped_tokens = stats.total_num_tokens(f.exchange).unwrap();
    assert!(0 < scoped_tokens && scoped_tokens < tokens);
}

/// A Claude Code record of `role` saying `text`, in session `s-next`; `tool` makes it a call of
/// the shell running `text` (the assistant) or that call's output (the user).
fn record_line(uuid: &str, role: &str, text: &str, minute: u32) -> String {
    record_of_kind(uuid, role, text, minute, false)
}

fn record_of_kind(uuid: &str, role: &str, text: &str, minute: u32, tool: bool) -> String {
    let content = match (role, tool) {
        ("user", false) => serde_json::json!(text),
        ("user", true) => serde_json::json!([
            {"type": "tool_result", "tool_use_id": format!("t-{uuid}"), "content": text}
        ]),
        (_, true) => serde_json::json!([
            {"type": "tool_use", "id": format!("t-{uuid}"), "name": "Bash", "input": {"command": text}}
        ]),
        _ => serde_json::json!([{"type": "text", "text": text}]),
    };
    let record = serde_json::json!({
        "type": role, "uuid": uuid, "sessionId": "s-next", "cwd": "/home/kim/tiles",
        "timestamp": format!("2026-10-30T10:{minute:02}:00.000Z"),
        "message": {"role": role, "content": content},
    });
    format!("{record}\n")
}

#[test]
fn a_question_is_found_by_its_answer_even_when_the_answer_came_in_a_later_sync() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("history");
    let folder = base.join("claude-code/-home-kim-tiles");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("s-next.jsonl");
    std::fs::write(
        &file,
        record_line(
            "q-1",
            "user",
            "Which allocator should the tile renderer use?",
            1,
        ),
    )
    .unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &base);
    let index = SearchIndex::open(&store).unwrap();
    index.sync(&store).unwrap();
    let asked = index.search(&request("allocator"), None, NONE).unwrap();
    assert!(
        asked
            .hits
            .iter()
            .any(|h| h.record.as_deref() == Some("q-1")),
        "searchable before its answer came"
    );
    // The agent works a while before it answers: calls without a word of prose, which the
    // harness stores as messages too, and their output.
    let mut more = std::fs::read_to_string(&file).unwrap();
    for i in 0..10 {
        let command = format!("bench --frames {i}");
        more.push_str(&record_of_kind(
            &format!("c-{i}"),
            "assistant",
            &command,
            2,
            true,
        ));
        more.push_str(&record_of_kind(&format!("r-{i}"), "user", "ok", 2, true));
    }
    let answer = "Use jemalloc: the arena keeps fragmentation down across frames.";
    more.push_str(&record_line("a-1", "assistant", answer, 3));
    std::fs::write(&file, more).unwrap();
    ingest_dir(&store, &base);
    index.sync(&store).unwrap();

    let question_hits = |index: &SearchIndex| {
        let result = index
            .search(&request("jemalloc fragmentation"), None, NONE)
            .unwrap();
        result
            .hits
            .iter()
            .filter(|h| h.record.as_deref() == Some("q-1"))
            .map(|h| h.why.fields.clone())
            .collect::<Vec<_>>()
    };
    let found = question_hits(&index);
    assert_eq!(found.len(), 1, "the question, once: {found:?}");
    assert!(found[0].contains(&"next"), "found by its answer: {found:?}");
    // Built in one go, the index holds the same documents and finds the question the same way.
    let documents = index
        .search(&request("allocator"), None, NONE)
        .unwrap()
        .documents;
    let rebuilt = SearchIndex::rebuild(&store).unwrap();
    assert_eq!(rebuilt.documents, documents);
    let index = SearchIndex::open(&store).unwrap();
    assert_eq!(question_hits(&index), found);
}

#[test]
fn a_reply_is_found_by_what_it_shows_and_a_reply_given_as_json_by_its_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("history");
    let folder = base.join("claude-code/-home-kim-tiles");
    std::fs::create_dir_all(&folder).unwrap();
    let lines = [
        record_line("q-1", "user", "Set up the morning job.", 1),
        // Words, and a file the words do not name, shown in a fence.
        record_line(
            "a-1",
            "assistant",
            "The job is in place:\n```json\n{\"action\": \"skills/morning_digest/digest.js\"}\n```",
            2,
        ),
        record_line("q-2", "user", "What is the gateway doing?", 3),
        // An app that asks its agent for JSON: no prose outside the object.
        record_line(
            "a-2",
            "assistant",
            "```json\n{\"reply\": \"The gateway stopped with RPC error 1006.\", \"blockers\": []}\n```",
            4,
        ),
    ];
    std::fs::write(folder.join("s-next.jsonl"), lines.concat()).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &base);
    let index = SearchIndex::open(&store).unwrap();
    index.sync(&store).unwrap();
    let first = |q: &str| {
        let result = index.search(&request(q), None, NONE).unwrap();
        let hit = result.hits.first().unwrap_or_else(|| panic!("{q}: no hit"));
        (hit.record.clone(), hit.why.fields.clone())
    };
    // The shown path is matched below the words, as tool output is.
    let (record, fields) = first("skills/morning_digest/digest.js");
    assert_eq!(record.as_deref(), Some("a-1"));
    assert!(fields.contains(&"tool"), "{fields:?}");
    let (record, fields) = first("gateway rpc error 1006");
    assert_eq!(record.as_deref(), Some("a-2"));
    assert!(
        fields.contains(&"text"),
        "its sentence is its words: {fields:?}"
    );
}

/// A day or month the query names favours what the words found then, and the hit says so
/// (`when`); the same words on another day still come, after it.
#[test]
fn a_day_the_query_names_brings_what_happened_then_first() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("history");
    let folder = base.join("claude-code/-home-kim-tiles");
    std::fs::create_dir_all(&folder).unwrap();
    let session = |id: &str, day: u32, said: &str| {
        let record = |uuid: &str, role: &str, text: &str| {
            let content = if role == "user" {
                serde_json::json!(text)
            } else {
                serde_json::json!([{"type": "text", "text": text}])
            };
            let record = serde_json::json!({
                "type": role, "uuid": format!("{id}-{uuid}"), "sessionId": id,
                "cwd": "/home/kim/tiles",
                "timestamp": format!("2026-10-{day:02}T10:00:00.000Z"),
                "message": {"role": role, "content": content},
            });
            format!("{record}\n")
        };
        let lines = [
            record("q", "user", "Why did it stop?"),
            record("a", "assistant", said),
        ];
        std::fs::write(folder.join(format!("{id}.jsonl")), lines.concat()).unwrap();
    };
    session(
        "s-early",
        12,
        "The staging deploy failed: its certificate expired.",
    );
    session(
        "s-late",
        20,
        "The staging deploy failed: its volume filled.",
    );
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &base);
    let index = SearchIndex::open(&store).unwrap();
    index.sync(&store).unwrap();
    let found = |q: &str| {
        let result = index.search(&request(q), None, NONE).unwrap();
        result
            .hits
            .iter()
            .map(|h| {
                (
                    h.record.clone().unwrap_or_default(),
                    h.why.fields.contains(&"when"),
                )
            })
            .collect::<Vec<_>>()
    };
    for (query, first, other) in [
        (
            "staging deploy failed on October 20, 2026",
            "s-late-a",
            "s-early-a",
        ),
        (
            "staging deploy failed on 12 October 2026",
            "s-early-a",
            "s-late-a",
        ),
        ("staging deploy failed 2026-10-12", "s-early-a", "s-late-a"),
    ] {
        let hits = found(query);
        assert_eq!(
            hits.first(),
            Some(&(first.to_owned(), true)),
            "{query}: {hits:?}"
        );
        assert!(
            hits.contains(&(other.to_owned(), false)),
            "{query}: {hits:?}"
        );
    }
    // A month names both days; no date, no `when`.
    let hits = found("staging deploy failed in October 2026");
    assert!(hits.len() >= 2, "{hits:?}");
    assert!(hits.iter().take(2).all(|(_, when)| *when), "{hits:?}");
    let hits = found("staging deploy failed");
    assert!(hits.len() >= 2, "{hits:?}");
    assert!(hits.iter().all(|(_, when)| !when), "{hits:?}");
    // Under the default window of 30 days, a day named before it is still searched: the
    // window reaches back to it.
    let mut req = request("staging deploy failed on October 12, 2026");
    req.hours = super::query::DEFAULT_HOURS;
    req.now = Utc.with_ymd_and_hms(2027, 3, 1, 12, 0, 0).unwrap();
    let hits = index.search(&req, None, NONE).unwrap().hits;
    assert_eq!(
        hits.first().and_then(|h| h.record.as_deref()),
        Some("s-early-a"),
        "{hits:?}"
    );
    let mut req = request("staging deploy failed");
    req.hours = super::query::DEFAULT_HOURS;
    req.now = Utc.with_ymd_and_hms(2027, 3, 1, 12, 0, 0).unwrap();
    assert!(index.search(&req, None, NONE).unwrap().hits.is_empty());
}

/// A question the query's words find lifts its answer, which seldom repeats them: the answer
/// comes before a turn that shares more of the words, and says why (`answers`).
#[test]
fn a_question_the_words_find_brings_its_answer_up_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("history");
    let folder = base.join("claude-code/-home-kim-tiles");
    std::fs::create_dir_all(&folder).unwrap();
    let lines = [
        record_line(
            "q-1",
            "user",
            "Which database should the billing ledger use?",
            1,
        ),
        record_line(
            "a-1",
            "assistant",
            "Postgres: the team runs it already and its numeric type keeps cents exact.",
            2,
        ),
        record_line("q-2", "user", "Export the billing ledger every night.", 3),
        record_line(
            "a-2",
            "assistant",
            "Done: the billing ledger export runs nightly, reading the billing ledger database \
             once.",
            4,
        ),
    ];
    std::fs::write(folder.join("s-next.jsonl"), lines.concat()).unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &base);
    let index = SearchIndex::open(&store).unwrap();
    index.sync(&store).unwrap();
    let result = index
        .search(
            &request("which database for the billing ledger"),
            None,
            NONE,
        )
        .unwrap();
    let found: Vec<(String, bool)> = result
        .hits
        .iter()
        .map(|h| {
            (
                h.record.clone().unwrap_or_default(),
                h.why.fields.contains(&"answers"),
            )
        })
        .collect();
    let at = |record: &str| found.iter().position(|(r, _)| r == record);
    assert!(
        at("a-1").is_some() && at("a-1") < at("a-2"),
        "the answer comes before a turn that shares more of the words: {found:?}"
    );
    // Only the answer is lifted; what answers no question the query found is not.
    let lifted: Vec<&str> = found
        .iter()
        .filter(|(_, answers)| *answers)
        .map(|(r, _)| r.as_str())
        .collect();
    assert_eq!(lifted, ["a-1"], "{found:?}");
}

/// What asks something: a question mark that ends a sentence, in any script; not one in a web
/// address or in code.
#[test]
fn a_question_mark_asks_only_where_it_ends_a_sentence() {
    for (text, asks) in [
        ("Which database should we use?", true),
        ("Shall I push? I can also open a PR.", true),
        ("Did you mean \"staging?\"", true),
        ("这个要怎么配置？我试过了", true),
        (
            "Fetched https://api.example.com/search?q=ledger&n=5 fine.",
            false,
        ),
        ("let rows = parse(input)?;", false),
        ("Nothing to ask here.", false),
    ] {
        assert_eq!(super::query::asks(text), asks, "{text}");
    }
}
