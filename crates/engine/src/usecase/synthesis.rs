//! The optional answer over a search's hits (CSA §7.5): the configured synthesis model reads the
//! hits, each labelled with its id, and answers in at most a few sentences citing the ids it
//! used. The answer is checked, not trusted: a citation of an id the model was not given is
//! dropped and reported, and an answer that cites nothing is still shown, marked by its empty
//! citations. Hits from local-only work contexts never go to a model off this machine. Every call
//! goes through the spend guard and into the `model_calls` ledger, as capture's calls do.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::base::secrets::SecretStore;
use crate::graph::store::Store;
use crate::inputs::model::{self, ChatMessage, Endpoint};
use crate::views::search::{Citation, Hit, Synthesis};

/// The instructions the model answers under.
const PROMPT: &str = "You answer a question about the person's own prior work across their \
conversations with AI agents. Below are search results, each starting with its id in square \
brackets. Answer in at most 120 words using only these results. Do not invent anything; if the \
results do not answer the question, say so. Respond in JSON: {\"answer\": \"...\", \
\"attributions\": [{\"id\": \"<an id from the results>\", \"snippet\": \"<the words you relied \
on>\"}]}";

/// The longest answer kept, in characters.
const MAX_ANSWER_CHARS: usize = 1_200;

/// Asks the model; `Err` is the reason there is no answer, for `synthesis_fallback`.
pub(crate) fn answer(
    store: &Store,
    secrets: &dyn SecretStore,
    query: &str,
    hits: &[Hit],
    now: DateTime<Utc>,
) -> std::result::Result<Synthesis, String> {
    let config = store.config().map_err(|e| e.to_string())?;
    let endpoint = Endpoint::from_config(&config).map_err(|f| f.reason())?;
    // A hit of a local-only context stays on this machine.
    let local_only: Vec<String> = if endpoint.is_local() {
        Vec::new()
    } else {
        store
            .graph()
            .with_conn_result(|c| {
                let mut stmt =
                    c.prepare("SELECT work_context_id FROM work_contexts WHERE local_only = 1")?;
                stmt.query_map([], |r| r.get::<_, String>(0))?.collect()
            })
            .map_err(|e| e.to_string())?
    };
    let sessions_local: Vec<String> = if local_only.is_empty() {
        Vec::new()
    } else {
        store
            .graph()
            .with_conn_result(|c| {
                let mut stmt = c.prepare(
                    "SELECT session_id FROM transcript_sessions s JOIN work_contexts w
                       ON w.work_context_id = s.work_context_id WHERE w.local_only = 1",
                )?;
                stmt.query_map([], |r| r.get::<_, String>(0))?.collect()
            })
            .map_err(|e| e.to_string())?
    };
    let (sent, withheld): (Vec<&Hit>, Vec<&Hit>) = hits.iter().partition(|h| {
        !h.work_context_id
            .as_ref()
            .is_some_and(|wc| local_only.contains(wc))
            && !h
                .session_id
                .as_ref()
                .is_some_and(|s| sessions_local.contains(s))
    });
    if sent.is_empty() {
        return Err(if withheld.is_empty() {
            "nothing was found to answer from".to_owned()
        } else {
            format!(
                "every hit is from a local-only work context and the synthesis model is not on \
                 this machine ({} withheld)",
                withheld.len()
            )
        });
    }
    let graph = store.graph();
    let key = model::cleared_key(graph, secrets, &config, "search", now)?;
    let results: String = sent
        .iter()
        .map(|h| {
            let at =
                h.at.map(|t| t.format("%Y-%m-%d").to_string())
                    .unwrap_or_default();
            format!("[{}] ({} {at})\n{}\n", h.doc_id, h.kind.as_str(), h.excerpt)
        })
        .collect();
    let messages = [
        ChatMessage::system(PROMPT),
        ChatMessage::user(format!("Question: {query}\n\nResults:\n{results}")),
    ];
    let reply = model::chat(&endpoint, key.as_deref(), &messages);
    let outcome = match &reply {
        Ok(_) => model::OUTCOME_OK,
        Err(f) => f.code(),
    };
    model::record_call(graph, &config, "search", outcome, now);
    let text = reply.map_err(|f| f.reason())?;
    let given: Vec<&str> = sent.iter().map(|h| h.doc_id.as_str()).collect();
    let mut synthesis = check(&text, &given)?;
    synthesis.withheld = withheld.len();
    Ok(synthesis)
}

/// Reads the model's JSON and keeps only citations of ids it was given.
pub(crate) fn check(text: &str, given: &[&str]) -> std::result::Result<Synthesis, String> {
    let value: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("the model's answer is not the JSON asked for ({e})"))?;
    let answer = value
        .get("answer")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .ok_or("the model's answer has no `answer`")?;
    let answer = match answer.char_indices().nth(MAX_ANSWER_CHARS) {
        Some((at, _)) => format!("{}…", &answer[..at]),
        None => answer.to_owned(),
    };
    let mut citations: Vec<Citation> = Vec::new();
    let mut dropped = Vec::new();
    for a in value
        .get("attributions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(id) = a.get("id").and_then(Value::as_str).map(str::trim) else {
            continue;
        };
        if !given.contains(&id) {
            dropped.push(id.to_owned());
            continue;
        }
        if citations.iter().any(|c| c.doc_id == id) {
            continue;
        }
        citations.push(Citation {
            doc_id: id.to_owned(),
            snippet: a
                .get("snippet")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .chars()
                .take(300)
                .collect(),
        });
    }
    Ok(Synthesis {
        answer,
        citations,
        dropped,
        withheld: 0,
    })
}

#[cfg(test)]
mod tests;
