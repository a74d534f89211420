//! Search with an embedding endpoint instead of the built-in model, against a local stand-in
//! playing Ollama's `/api/embed` and an OpenAI-compatible `/v1/embeddings`: the backfill fills the
//! endpoint's own vector folder, hybrid search uses it, a cancelled run keeps what it finished
//! and the next one resumes, the key goes only to the OpenAI-compatible endpoint, and an endpoint
//! that fails makes the search fall back and say so.

use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{TimeZone, Utc};
use serde_json::{Value, json};

use crate::base::secrets::{EMBEDDING_API_KEY, MemorySecrets, SecretStore};
use crate::test_support::ingest_dir;
use crate::test_support::standin::{Canned, StandIn, ok};
use crate::views::search::{SearchRequest, Strategy};

/// A toy embedding: each word hashed into one of 16 buckets. Texts sharing words point the same
/// way, which is all the test needs of "meaning".
fn toy(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 16];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        v[(h % 16) as usize] += 1.0;
    }
    v[0] += 0.01;
    v
}

fn answer(path: &str, body: &Value) -> Canned {
    let inputs: Vec<&str> = body["input"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match path {
        "/api/embed" => ok(json!({
            "model": body["model"],
            "embeddings": inputs.iter().map(|t| toy(t)).collect::<Vec<_>>(),
        })),
        // Answered in reverse order: the client puts them back by `index`.
        "/v1/embeddings" => ok(json!({
            "data": inputs.iter().enumerate().rev()
                .map(|(i, t)| json!({"index": i, "embedding": toy(t)}))
                .collect::<Vec<_>>(),
        })),
        _ => Canned {
            status: 404,
            body: "{}".into(),
            delay: std::time::Duration::ZERO,
        },
    }
}

#[test]
fn an_embedding_endpoint_backfills_its_own_vectors_and_hybrid_search_uses_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    let server = StandIn::answering(answer);
    let secrets = MemorySecrets::default();
    store.set_config("embedding_provider", "ollama").unwrap();
    store
        .set_config("embedding_base_url", &server.base)
        .unwrap();
    // Stray spaces around the name are not part of it (the status and the search agree).
    store.set_config("embedding_model", " toy:embed ").unwrap();

    let mut req = SearchRequest::new(
        "OAuth token refreshes in the middle of a batch",
        Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap(),
    );
    req.strategy = Strategy::Hybrid;
    req.hours = 0;
    req.max_results = 10;
    let before = super::search(&store, &req, &secrets).unwrap();
    let why = before.fallback_reason.unwrap();
    assert!(
        why.contains("none are built yet for ollama-toy-embed"),
        "{why}"
    );

    let never = AtomicBool::new(false);
    let filled = super::embed(&store, &secrets, None, &mut |_| {}, &never).unwrap();
    assert_eq!(filled.embedder, "ollama-toy-embed");
    assert_eq!(filled.covered, filled.documents, "{filled:?}");
    let folder = dir.path().join("store/index/vectors/ollama-toy-embed");
    assert_eq!(std::fs::read_to_string(folder.join("dims")).unwrap(), "16");
    assert!(
        server
            .seen()
            .iter()
            .all(|s| !s.headers.contains_key("authorization")),
        "Ollama never gets a key"
    );

    let hybrid = super::search(&store, &req, &secrets).unwrap();
    assert_eq!(hybrid.fallback_mode, None, "{hybrid:?}");
    assert_eq!(hybrid.embedded, Some(filled.documents));
    assert!(hybrid.hits.iter().any(|h| h.why.vector_rank.is_some()));
    assert_eq!(
        super::embed_status(&store).unwrap().covered,
        filled.documents
    );

    // Another endpoint is another folder: a new backfill, here limited, then cancelled before
    // its next batch, then resumed. Its key goes in the bearer header.
    store
        .set_config("embedding_provider", "openai_compatible")
        .unwrap();
    secrets.set(EMBEDDING_API_KEY, "sk-embed-test").unwrap();
    assert_eq!(super::embed_status(&store).unwrap().covered, 0);
    let first = super::embed(&store, &secrets, Some(5), &mut |_| {}, &never).unwrap();
    assert_eq!((first.embedded, first.covered), (5, 5), "{first:?}");
    let cancel = AtomicBool::new(true);
    let stopped = super::embed(&store, &secrets, None, &mut |_| {}, &cancel).unwrap();
    assert!(stopped.cancelled);
    assert_eq!((stopped.embedded, stopped.covered), (0, 5));
    cancel.store(false, Ordering::Relaxed);
    let rest = super::embed(&store, &secrets, None, &mut |_| {}, &cancel).unwrap();
    assert_eq!(rest.embedded + first.embedded, rest.documents);
    let openai: Vec<_> = server
        .seen()
        .into_iter()
        .filter(|s| s.path == "/v1/embeddings")
        .collect();
    assert!(!openai.is_empty());
    assert!(openai.iter().all(|s| {
        s.headers.get("authorization").map(String::as_str) == Some("Bearer sk-embed-test")
    }));
    // Put back in input order: the same text gets the same vector from either endpoint, so the
    // two backfills agree on the nearest documents.
    let via_openai = super::search(&store, &req, &secrets).unwrap();
    let ranks = |r: &crate::SearchResult| {
        r.hits
            .iter()
            .map(|h| (h.doc_id.clone(), h.why.vector_rank))
            .collect::<Vec<_>>()
    };
    assert_eq!(ranks(&via_openai), ranks(&hybrid));

    // An endpoint that is gone: the search still answers, lexically, and says why.
    store
        .set_config("embedding_base_url", "http://127.0.0.1:9")
        .unwrap();
    let gone = super::search(&store, &req, &secrets).unwrap();
    assert_eq!(gone.fallback_mode, Some(Strategy::LexicalOnly));
    let why = gone.fallback_reason.unwrap();
    assert!(why.contains("the embedder failed"), "{why}");
    assert!(!why.contains("sk-embed-test"));
    // A remote embedder without a model name is said, not guessed.
    store.set_config("embedding_model", "null").unwrap();
    let unset = super::search(&store, &req, &secrets).unwrap();
    assert!(
        unset
            .fallback_reason
            .unwrap()
            .contains("embedding_model is not set"),
    );
}
