//! Full-mode capture (CSA §5.4): one call to the synthesis model with the unified prompt over the
//! session's recent conversation, guarded by the local-only rule and the spend guard. Any failure
//! comes back as a reason in words, and the caller falls back to deterministic capture with it.

use chrono::{DateTime, Utc};

use super::WindowTurn;
use super::heuristics::Speaker;
use crate::base::config::ContinuityConfig;
use crate::base::secrets::SecretStore;
use crate::graph::store::Store;
use crate::inputs::model::{self, Endpoint, ModelFailure, SynthesisReply};

/// The input's bound (CSA §5.4: "bounded to ~2,000 tokens").
pub const MAX_INPUT_TOKENS: usize = 2000;
/// The input covers at most this many of the person's turns and the replies to them.
pub const MAX_USER_TURNS: usize = 10;

/// The conversation the model reads: the last ten user turns and the assistant's replies, tool
/// calls and results left out, oldest dropped first until it fits the token bound. A single turn
/// bigger than the whole bound is cut to fit.
pub(crate) fn bounded_conversation(window: &[WindowTurn]) -> String {
    let talk: Vec<&WindowTurn> = window.iter().filter(|t| t.speaker.is_some()).collect();
    let mut users_seen = 0;
    let mut start = talk.len();
    for (i, t) in talk.iter().enumerate().rev() {
        if t.speaker == Some(Speaker::User) {
            users_seen += 1;
            if users_seen > MAX_USER_TURNS {
                break;
            }
        }
        start = i;
    }
    // Begin with the person's turn: a reply without its request reads as out of context.
    while start < talk.len() && talk[start].speaker != Some(Speaker::User) {
        start += 1;
    }
    let mut lines: Vec<String> = talk[start..]
        .iter()
        .map(|t| {
            let who = if t.speaker == Some(Speaker::User) {
                "User"
            } else {
                "Assistant"
            };
            format!("{who}: {}", t.text.trim())
        })
        .collect();
    let total = |lines: &[String]| crate::base::tokens::count(&lines.join("\n\n"));
    while lines.len() > 1 && total(&lines) > MAX_INPUT_TOKENS {
        lines.remove(0);
    }
    let mut text = lines.join("\n\n");
    if crate::base::tokens::count(&text) > MAX_INPUT_TOKENS {
        // One turn alone is over the bound: keep its end, where the work stands.
        let chars: Vec<char> = text.chars().collect();
        let mut keep = chars.len();
        while keep > 0 && crate::base::tokens::count(&text) > MAX_INPUT_TOKENS {
            keep = keep * 3 / 4;
            text = chars[chars.len() - keep..].iter().collect();
        }
    }
    text
}

/// What a capture sent to its model and what came back, kept with the capture run for the
/// person to audit (migration 22). Both are masked as the call masked them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ModelExchange {
    /// The backend that answered (`SynthesisProvider`'s name).
    pub provider: String,
    /// The conversation as sent, after the engine's fixed instructions.
    pub input: String,
    /// The model's answer as it came, when one came.
    pub answer: Option<String>,
}

/// Runs the synthesis call for one capture; `Err` carries the fallback reason. Beside it, what
/// was sent and answered, when a call was made.
pub(crate) fn enrich(
    store: &Store,
    secrets: &dyn SecretStore,
    config: &ContinuityConfig,
    window: &[WindowTurn],
    local_only: bool,
    now: DateTime<Utc>,
) -> (Result<SynthesisReply, String>, Option<ModelExchange>) {
    let endpoint = match Endpoint::from_config(config) {
        Ok(e) if local_only && !e.is_local() => {
            return (Err(ModelFailure::NotLocal.reason()), None);
        }
        Ok(e) => e,
        Err(f) => return (Err(f.reason()), None),
    };
    let key = match model::cleared_key(store.graph(), secrets, config, "capture", now) {
        Ok(key) => key,
        Err(reason) => return (Err(reason), None),
    };
    let conversation = bounded_conversation(window);
    // The connection is not held during the call: a slow model must not block the store.
    let (result, answer) = model::synthesize_recorded(&endpoint, key.as_deref(), &conversation);
    let exchange = ModelExchange {
        provider: config.synthesis_provider.as_str().to_owned(),
        input: crate::base::redact::redact(&conversation).into_owned(),
        answer,
    };
    let outcome = match &result {
        Ok(_) => model::OUTCOME_OK,
        Err(f) => f.code(),
    };
    model::record_call(store.graph(), config, "capture", outcome, now);
    let reply = match result {
        Ok(reply) if reply.session_summary.is_none() => {
            Err("the model found nothing meaningful to summarise".to_owned())
        }
        Ok(reply) => Ok(reply),
        Err(f) => Err(f.reason()),
    };
    (reply, Some(exchange))
}
