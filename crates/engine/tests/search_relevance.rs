//! Search relevance on real history: the queries of `search_relevance.tsv` (labelled by reading
//! the real corpus; the file's header says how) run against an index of the whole corpus, and
//! recall@5, recall@10 and MRR are printed per kind of query and per strategy. The test fails
//! below the floors recorded here, so a change that makes search worse cannot land unseen.
//!
//! It embeds the whole corpus with the local model first, so it is the slow tier: `scripts/test.sh`
//! runs it with `cargo test -p elnor-engine --test search_relevance -- --ignored --nocapture`,
//! which prints the figures. Without the shared corpus the test says so and is counted as
//! skipped; without the model, hybrid is reported as fallen back (and CI, which fetches the
//! model, fails).

use std::collections::BTreeMap;
use std::path::Path;

use elnor_engine::{
    Harness, SearchRequest, SearchResult, SourceRoot, Store, Strategy, embed, embed_status, ingest,
    now, reindex, search,
};

/// One labelled query.
struct Label {
    id: String,
    kind: String,
    query: String,
    session_id: String,
    /// The expected record first, then the other acceptable ones.
    records: Vec<String>,
}

fn labels() -> Vec<Label> {
    let text = include_str!("search_relevance.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert!(cols.len() >= 7, "a label line has 8 columns: {line}");
            let mut records = vec![cols[5].to_owned()];
            records.extend(
                cols[6]
                    .split(',')
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .map(str::to_owned),
            );
            Label {
                id: cols[0].to_owned(),
                kind: cols[1].to_owned(),
                query: cols[2].to_owned(),
                session_id: cols[4].to_owned(),
                records,
            }
        })
        .collect()
}

/// The 1-based rank of the first hit that is the labelled turn, if any.
fn rank_of(result: &SearchResult, label: &Label) -> Option<usize> {
    result
        .hits
        .iter()
        .position(|h| {
            h.session_id.as_deref() == Some(label.session_id.as_str())
                && h.record
                    .as_ref()
                    .is_some_and(|r| label.records.iter().any(|l| l == r))
        })
        .map(|i| i + 1)
}

fn ingest_corpus(store: &Store, real: &Path) {
    let roots = [
        (Harness::ClaudeCode, "claude-code"),
        (Harness::Codex, "codex"),
        (Harness::OpenClaw, "openclaw"),
    ]
    .map(|(harness, dir)| SourceRoot {
        harness,
        root: real.join(dir),
    });
    ingest(store, &roots, &mut |_| {}, now()).unwrap();
}

/// Recall and MRR over the labels, per kind and overall.
#[derive(Default)]
struct Figures {
    queries: usize,
    at5: usize,
    at10: usize,
    reciprocal: f64,
}

impl Figures {
    fn add(&mut self, rank: Option<usize>) {
        self.queries += 1;
        if let Some(r) = rank {
            self.at5 += usize::from(r <= 5);
            self.at10 += usize::from(r <= 10);
            self.reciprocal += 1.0 / r as f64;
        }
    }

    /// Recall@5, recall@10 and MRR.
    fn cells(&self) -> [f64; 3] {
        let n = self.queries.max(1) as f64;
        [self.recall5(), self.at10 as f64 / n, self.reciprocal / n]
    }

    fn recall5(&self) -> f64 {
        self.at5 as f64 / self.queries.max(1) as f64
    }

    fn line(&self, name: &str) -> String {
        format!(
            "{name:<11} n={:<3} recall@5 {:.2}  recall@10 {:.2}  MRR {:.2}",
            self.queries,
            self.recall5(),
            self.at10 as f64 / self.queries.max(1) as f64,
            self.reciprocal / self.queries.max(1) as f64
        )
    }
}

#[test]
#[ignore = "slow tier: embeds the whole corpus; run by scripts/test.sh"]
fn recall_and_mrr_on_real_history() {
    let Some(real) = elnor_fixtures::real() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    ingest_corpus(&store, &real);
    let built = reindex(&store).unwrap();
    println!(
        "indexed {} documents ({} turns, {} entries, {} summaries)",
        built.documents, built.turns, built.entries, built.summaries
    );
    let labels = labels();
    assert!(labels.len() >= 40, "the set holds at least 40 queries");
    // Embeddings need the local model's files (scripts/setup.sh fetches them for the tests).
    let secrets = elnor_engine::MemorySecrets::default();
    let never = std::sync::atomic::AtomicBool::new(false);
    let embedded = embed(&store, &secrets, None, &mut |_| {}, &never).is_ok();
    if embedded {
        let status = embed_status(&store).unwrap();
        println!(
            "embedded {} of {} documents",
            status.covered, status.documents
        );
    } else {
        let required =
            std::env::var("ELNOR_REQUIRE_FIXTURES").is_ok_and(|v| !v.is_empty() && v != "0");
        assert!(
            !required,
            "no embedding model installed (scripts/setup.sh test fetches it), and \
             ELNOR_REQUIRE_FIXTURES is set"
        );
        println!("no embedding model installed: hybrid falls back to lexical_only");
    }
    let mut paraphrase_recall: BTreeMap<&str, f64> = BTreeMap::new();
    let mut overall: BTreeMap<&str, [f64; 3]> = BTreeMap::new();
    let mut dump: Vec<serde_json::Value> = Vec::new();
    let mut below_floor: Vec<String> = Vec::new();
    for strategy in [
        Strategy::LexicalOnly,
        Strategy::EmbeddingAugmented,
        Strategy::Hybrid,
    ] {
        let mut by_kind: BTreeMap<String, Figures> = BTreeMap::new();
        let mut all = Figures::default();
        let mut missed = Vec::new();
        for label in &labels {
            let mut req = SearchRequest::new(label.query.clone(), now());
            req.strategy = strategy;
            req.hours = 0;
            req.max_results = if dumping() { 20 } else { 10 };
            let mut result = search(&store, &req, &secrets).unwrap();
            if dumping() {
                dump.push(listed(label, strategy, &result));
                result.hits.truncate(10);
            }
            let rank = rank_of(&result, label);
            by_kind.entry(label.kind.clone()).or_default().add(rank);
            all.add(rank);
            if rank.is_none_or(|r| r > 5) {
                missed.push(format!("{} ({}): {:?}", label.id, label.kind, label.query));
            }
        }
        println!("\n{} ({} queries)", strategy.as_str(), labels.len());
        for (kind, figures) in &by_kind {
            println!("  {}", figures.line(kind));
        }
        println!("  {}", all.line("all"));
        println!("  not in the top 5: {}", missed.join("; "));
        overall.insert(strategy.as_str(), all.cells());
        paraphrase_recall.insert(
            strategy.as_str(),
            by_kind.get("paraphrase").map_or(0.0, Figures::recall5),
        );
        // Floors: the figures measured when this set was written, less a little; checked once
        // the lists are written out.
        if strategy == Strategy::LexicalOnly && all.recall5() < FLOOR_RECALL5 {
            below_floor.push(all.line("lexical_only"));
        } else if embedded && strategy == Strategy::Hybrid && all.recall5() < FLOOR_HYBRID_RECALL5 {
            below_floor.push(all.line("hybrid"));
        }
    }
    if let Some(out) = std::env::var_os("ELNOR_RELEVANCE_DUMP") {
        let lines: Vec<String> = dump.iter().map(|v| v.to_string()).collect();
        std::fs::write(&out, lines.join("\n") + "\n").unwrap();
        println!("lists written to {}", Path::new(&out).display());
    }
    assert!(below_floor.is_empty(), "below the floor: {below_floor:?}");
    if embedded {
        assert!(
            paraphrase_recall["hybrid"] > paraphrase_recall["lexical_only"],
            "hybrid beats lexical_only on paraphrases: {paraphrase_recall:?}"
        );
        // The fusion is never worse than its lexical list (recall@5, @10, MRR).
        let (hybrid, lexical) = (overall["hybrid"], overall["lexical_only"]);
        assert!(
            hybrid.iter().zip(lexical).all(|(h, l)| *h >= l),
            "hybrid {hybrid:?} below lexical_only {lexical:?} (recall@5, @10, MRR)"
        );
    }
}

/// Whether `ELNOR_RELEVANCE_DUMP` asks for each strategy's lists to be written out, so that
/// fusions can be compared offline on the same lists (as the LoCoMo test's `ELNOR_LOCOMO_DUMP`).
fn dumping() -> bool {
    std::env::var_os("ELNOR_RELEVANCE_DUMP").is_some()
}

/// One label's list under one strategy: each hit's session and record, whether it is the
/// labelled turn, and the score its own list gave it.
fn listed(label: &Label, strategy: Strategy, result: &SearchResult) -> serde_json::Value {
    let hits: Vec<serde_json::Value> = result
        .hits
        .iter()
        .map(|h| {
            let record = h.record.clone().unwrap_or_else(|| h.doc_id.clone());
            let target = h.session_id.as_deref() == Some(label.session_id.as_str())
                && label.records.contains(&record);
            let score = match strategy {
                Strategy::LexicalOnly => h.why.lexical_score,
                _ => h.why.similarity,
            };
            serde_json::json!([format!("{:?}/{record}", h.session_id), target, score])
        })
        .collect();
    serde_json::json!({"id": label.id, "kind": label.kind, "strategy": strategy.as_str(), "hits": hits})
}

/// Lexical recall@5 measured when the set was written: 0.66 (37 of 56; paraphrases 0 of 13,
/// which need embeddings).
const FLOOR_RECALL5: f64 = 0.62;
/// Hybrid recall@5 with all-MiniLM-L6-v2: 0.68 when the set was written, 0.73 with reciprocal
/// rank fusion at k = 3 (paraphrases 3 of 13; the model is English-only and a third of the set
/// is German or Spanish), 0.71 since the fusion weighs scores by the lexical list's confidence,
/// which on LoCoMo kept hybrid at lexical's level where rank fusion fell 7 points below it; 0.71
/// (paraphrases 2 of 13, lexical 0.68) with NLTK's stop words and the fusion chosen again; 0.71
/// (recall@10 0.75; lexical 0.70) with the two messages before a turn and the one after it.
const FLOOR_HYBRID_RECALL5: f64 = 0.70;
