//! The answer over search hits, against a local stand-in playing an OpenAI-compatible endpoint:
//! the model's citations are checked against the ids it was given, the key goes only in the
//! header, an unconfigured model is said, and local-only hits never leave for a remote model.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::json;

use crate::base::secrets::{MemorySecrets, SYNTHESIS_API_KEY, SecretStore};
use crate::test_support::ingest_dir;
use crate::test_support::standin::{StandIn, ok};
use crate::views::search::{SearchRequest, Strategy};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap()
}

#[test]
fn an_answer_cites_only_what_it_was_given_and_says_why_when_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::Store::open(dir.path().join("store")).unwrap();
    ingest_dir(&store, &elnor_fixtures::samples());
    let secrets = MemorySecrets::default();
    let mut req = SearchRequest::new("OAuth token refreshes in the middle of a batch", now());
    req.strategy = Strategy::LexicalOnly;
    req.hours = 0;
    req.synthesis = true;

    // No model configured: the hits come back, and the reason there is no answer.
    let plain = crate::usecase::search(&store, &req, &secrets).unwrap();
    assert!(!plain.hits.is_empty());
    assert_eq!(plain.synthesis, None);
    let why = plain.synthesis_fallback.unwrap();
    assert!(why.contains("synthesis_base_url"), "{why}");

    let cited = plain.hits[0].doc_id.clone();
    let reply = json!({
        "answer": "The nightly sync dropped rows when the OAuth token refreshed mid-batch; the fix retries the whole batch.",
        "attributions": [
            {"id": cited, "snippet": "drops rows"},
            {"id": "turn:999999", "snippet": "made up"},
            {"id": cited, "snippet": "again"}
        ]
    })
    .to_string();
    let server = StandIn::start(&[(
        "/v1/chat/completions",
        ok(
            json!({"choices": [{"message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}]}),
        ),
    )]);
    store
        .set_config("synthesis_provider", "openai_compatible")
        .unwrap();
    store
        .set_config("synthesis_base_url", &server.base)
        .unwrap();
    store.set_config("synthesis_model", "test-model").unwrap();
    secrets.set(SYNTHESIS_API_KEY, "sk-test-secret").unwrap();

    let answered = crate::usecase::search(&store, &req, &secrets).unwrap();
    let s = answered.synthesis.expect("an answer");
    assert!(
        s.answer.starts_with("The nightly sync dropped rows"),
        "{s:?}"
    );
    assert_eq!(
        s.citations.len(),
        1,
        "a repeated citation counts once: {s:?}"
    );
    assert_eq!(s.citations[0].doc_id, cited);
    assert_eq!(s.dropped, vec!["turn:999999".to_owned()]);
    assert_eq!(s.withheld, 0);
    let sent = &server.seen()[0];
    assert_eq!(
        sent.headers.get("authorization").map(String::as_str),
        Some("Bearer sk-test-secret")
    );
    let prompt = sent.body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains(&format!("[{cited}]")), "{prompt}");
    assert!(!serde_json::to_string(&s).unwrap().contains("sk-test"));
    let calls = store
        .graph()
        .count("SELECT count(*) FROM model_calls WHERE purpose = 'search' AND outcome = 'ok'")
        .unwrap();
    assert_eq!(calls, 1);

    // Local-only work stays here: with every context local-only and the model elsewhere, nothing
    // is sent and the answer says why.
    store
        .graph()
        .with_conn(|c| c.execute("UPDATE work_contexts SET local_only = 1", []))
        .unwrap();
    store
        .set_config("synthesis_base_url", "https://models.example.com")
        .unwrap();
    let kept = crate::usecase::search(&store, &req, &secrets).unwrap();
    assert_eq!(kept.synthesis, None);
    let why = kept.synthesis_fallback.unwrap();
    assert!(why.contains("local-only"), "{why}");
    assert_eq!(server.seen().len(), 1, "nothing more was sent");

    // A reply that is not the JSON asked for is a reason, not an answer.
    assert!(super::check("not json", &["turn:1"]).is_err());
    assert!(super::check(r#"{"attributions": []}"#, &["turn:1"]).is_err());
}
