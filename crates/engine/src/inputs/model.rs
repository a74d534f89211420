//! The synthesis model (CSA §5.4): the endpoint it lives at, one chat call to it over Ollama's
//! `/api/chat` or an OpenAI-compatible `/v1/chat/completions`, the unified prompt, strict parsing
//! of its reply, and the spend guard over the `model_calls` ledger.
//!
//! This module owns everything that crosses the wire to a model and everything that comes back.
//! It decides nothing about *when* to call (that is the trigger model in `agent`) nor what to do
//! with a reply (that is capture). Every way a call can go wrong is one [`ModelFailure`], whose
//! [`ModelFailure::reason`] is short enough to store as a capture run's `fallback_reason` and never
//! carries an API key: keys come from the OS keyring (`secrets`) and are only ever placed in the
//! `Authorization` header of the one request that needs them.
//!
//! Time is passed in to the spend guard, never read from the system clock, so its windows are
//! tested exactly.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::base::config::{ContinuityConfig, SynthesisProvider};
use crate::continuity::WorkPhase;

/// Most open questions, and most key decisions, one reply may carry.
pub const MAX_REPLY_ITEMS: usize = 10;

/// Most characters in any one string of a reply.
pub const MAX_REPLY_STRING_CHARS: usize = 2000;

mod agent_cli;
pub use agent_cli::{FoundBackend, OLLAMA_DEFAULT_URL, detect};

/// Most bytes of a provider's response body we read. A synthesis reply is a few kilobytes; the
/// limit only stops a misbehaving endpoint from filling memory.
const MAX_RESPONSE_BYTES: u64 = 4 * 1024 * 1024;

/// Most characters of provider- or model-supplied text kept in a failure, so that a
/// `fallback_reason` stays one readable line.
const MAX_DETAIL_CHARS: usize = 200;

/// Where the synthesis model lives and how long a call to it may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub provider: SynthesisProvider,
    pub base_url: String,
    pub model: String,
    pub timeout: Duration,
}

impl Endpoint {
    /// The endpoint named by the config, or [`ModelFailure::NotConfigured`] when its base URL or
    /// model is unset (or the base URL is not an `http://` / `https://` URL).
    pub fn from_config(c: &ContinuityConfig) -> Result<Endpoint, ModelFailure> {
        let timeout = Duration::from_secs(u64::from(c.synthesis_timeout_seconds.max(1)));
        if let Some(program) = agent_cli::default_program(c.synthesis_provider) {
            // An agent CLI: its program (a path, or its name on PATH) and, optionally, a model
            // of its own naming; unset, the CLI's default model.
            let set = |v: &Option<String>| {
                v.as_deref()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            return Ok(Endpoint {
                provider: c.synthesis_provider,
                base_url: set(&c.synthesis_base_url).unwrap_or_else(|| program.to_owned()),
                model: set(&c.synthesis_model).unwrap_or_default(),
                timeout,
            });
        }
        let base_url = c
            .synthesis_base_url
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ModelFailure::NotConfigured("synthesis_base_url is not set".into()))?;
        if split_url(base_url).is_none() {
            return Err(ModelFailure::NotConfigured(
                "synthesis_base_url must start with http:// or https:// and name a host".into(),
            ));
        }
        let model = c
            .synthesis_model
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| ModelFailure::NotConfigured("synthesis_model is not set".into()))?;
        Ok(Endpoint {
            provider: c.synthesis_provider,
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            timeout,
        })
    }

    /// Whether the endpoint is on this machine or the local network: a loopback host
    /// (`localhost`, 127.0.0.0/8, `::1`), an mDNS `.local` name, or a private address (RFC 1918
    /// for IPv4, unique-local fc00::/7 for IPv6). Content of a local-only work context is sent only
    /// to such endpoints.
    ///
    /// The decision is made on the URL's host text alone, never by resolving it, so a public name
    /// that happens to resolve to a private address is still treated as not local.
    pub fn is_local(&self) -> bool {
        // An agent CLI runs here and sends the prompt to its vendor's model.
        if self.provider.is_agent_cli() {
            return false;
        }
        let Some((_, host)) = split_url(&self.base_url) else {
            return false;
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if host == "localhost" || host.ends_with(".localhost") || host.ends_with(".local") {
            return true;
        }
        match host.parse::<IpAddr>() {
            Ok(IpAddr::V4(ip)) => is_local_v4(ip),
            Ok(IpAddr::V6(ip)) => match ip.to_ipv4_mapped() {
                Some(v4) => is_local_v4(v4),
                None => is_local_v6(ip),
            },
            Err(_) => false,
        }
    }

    /// The URL of the provider's chat route. A base URL that already ends in `/v1` is not given
    /// a second one, because people paste OpenAI-style base URLs both with and without it.
    fn chat_url(&self) -> String {
        let base = self.base_url.trim().trim_end_matches('/');
        match self.provider {
            SynthesisProvider::Ollama => format!("{base}/api/chat"),
            SynthesisProvider::OpenaiCompatible if base.ends_with("/v1") => {
                format!("{base}/chat/completions")
            }
            SynthesisProvider::OpenaiCompatible
            | SynthesisProvider::ClaudeCli
            | SynthesisProvider::CodexCli => format!("{base}/v1/chat/completions"),
        }
    }
}

fn is_local_v4(ip: Ipv4Addr) -> bool {
    ip.is_loopback() || ip.is_private()
}

fn is_local_v6(ip: Ipv6Addr) -> bool {
    // fc00::/7 is IPv6's counterpart of the RFC 1918 ranges.
    ip.is_loopback() || (ip.segments()[0] & 0xfe00) == 0xfc00
}

/// Splits an `http(s)://` URL into its scheme and host (without user info, port or brackets).
/// `None` for anything else, so a malformed base URL is never mistaken for a local one.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // User info may itself contain '@' only percent-encoded, so the last '@' ends it.
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split_once(']')?.0
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    (!host.is_empty()).then_some((scheme, host))
}

/// One message of a chat call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    /// `"system"`, `"user"` or `"assistant"`.
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: "system".into(),
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// Every way a model call can fail. Capture falls back to deterministic on any of them and
/// records [`ModelFailure::reason`], so the person always sees why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelFailure {
    /// The config lacks what a call needs; the text says what.
    NotConfigured(String),
    /// No complete reply within the endpoint's timeout.
    Timeout,
    /// The endpoint answered with a non-2xx status (redirects are not followed, so 3xx too).
    Http { status: u16 },
    /// The endpoint could not be reached: connection refused, DNS, TLS.
    Unreachable(String),
    /// The model declined to answer.
    Refusal(String),
    /// The reply, or the provider's envelope around it, is not the JSON we asked for.
    BadJson(String),
    /// The reply's `session_summary` is an empty string.
    EmptySummary,
    /// The spend guard refused the call.
    SpendLimit { window: &'static str, limit: u32 },
    /// The work context is local-only and the endpoint is not local.
    NotLocal,
}

impl ModelFailure {
    /// A short reason in words, stored as a capture run's `fallback_reason`. It never contains
    /// an API key: failures are built from status codes, our own words and provider text that
    /// [`chat`] has already scrubbed of the key.
    pub fn reason(&self) -> String {
        match self {
            ModelFailure::NotConfigured(what) => format!("synthesis model not configured: {what}"),
            ModelFailure::Timeout => {
                "timeout: no reply within synthesis_timeout_seconds".to_owned()
            }
            ModelFailure::Http { status } => format!("HTTP {status}"),
            ModelFailure::Unreachable(why) => format!("model endpoint unreachable: {why}"),
            ModelFailure::Refusal(why) => format!("model refused: {why}"),
            ModelFailure::BadJson(why) => format!("reply is not the expected JSON: {why}"),
            ModelFailure::EmptySummary => "reply has an empty session_summary".to_owned(),
            ModelFailure::SpendLimit { window, limit } => {
                format!("spend limit reached: {limit} model calls per {window}")
            }
            ModelFailure::NotLocal => {
                "work context is local-only and the synthesis endpoint is not local".to_owned()
            }
        }
    }

    /// A stable one-word code for the `model_calls.outcome` column.
    pub fn code(&self) -> &'static str {
        match self {
            ModelFailure::NotConfigured(_) => "not_configured",
            ModelFailure::Timeout => "timeout",
            ModelFailure::Http { .. } => "http_error",
            ModelFailure::Unreachable(_) => "unreachable",
            ModelFailure::Refusal(_) => "refusal",
            ModelFailure::BadJson(_) => "bad_json",
            ModelFailure::EmptySummary => "empty_summary",
            ModelFailure::SpendLimit { .. } => OUTCOME_REFUSED_SPEND_LIMIT,
            ModelFailure::NotLocal => "not_local",
        }
    }

    /// The same failure with every occurrence of `secret` in its text replaced. A hostile or
    /// buggy endpoint could echo the request's `Authorization` header back in an error or a
    /// refusal; this keeps that echo out of anything we store or show.
    fn scrubbed(self, secret: Option<&str>) -> ModelFailure {
        let Some(secret) = secret.filter(|s| !s.is_empty()) else {
            return self;
        };
        let scrub = |s: String| s.replace(secret, "[redacted]");
        match self {
            ModelFailure::NotConfigured(s) => ModelFailure::NotConfigured(scrub(s)),
            ModelFailure::Unreachable(s) => ModelFailure::Unreachable(scrub(s)),
            ModelFailure::Refusal(s) => ModelFailure::Refusal(scrub(s)),
            ModelFailure::BadJson(s) => ModelFailure::BadJson(scrub(s)),
            other => other,
        }
    }
}

impl std::fmt::Display for ModelFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason())
    }
}

/// Shortens provider- or model-supplied text to one bounded line.
fn detail(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= MAX_DETAIL_CHARS {
        one_line.to_owned()
    } else {
        let cut: String = one_line.chars().take(MAX_DETAIL_CHARS).collect();
        format!("{cut}…")
    }
}

/// One chat call; the model's reply text on success.
///
/// Ollama gets `POST {base}/api/chat` with `stream: false`, `format: "json"` and temperature 0,
/// and its reply is `message.content`. An OpenAI-compatible endpoint gets
/// `POST {base}/v1/chat/completions` with temperature 0 and a JSON-object response format, plus
/// `Authorization: Bearer KEY` when a key is given; its reply is `choices[0].message.content`,
/// and a `refusal` or a `content_filter` finish is a [`ModelFailure::Refusal`]. Ollama never gets
/// the key: it has no use for one, and a key sent where it is not needed is a key that can leak.
///
/// Every message's text is masked first (secret-looking strings, private spans), whatever the
/// endpoint: a capture's conversation and a search's hits are transcript text, which can hold a
/// token the person pasted, and this is the one door all of it leaves by.
pub fn chat(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    messages: &[ChatMessage],
) -> Result<String, ModelFailure> {
    let masked: Vec<ChatMessage> = messages
        .iter()
        .map(|m| ChatMessage {
            role: m.role.clone(),
            content: crate::base::redact::redact(&m.content).into_owned(),
        })
        .collect();
    chat_inner(endpoint, api_key, &masked).map_err(|f| f.scrubbed(api_key))
}

fn chat_inner(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    messages: &[ChatMessage],
) -> Result<String, ModelFailure> {
    if endpoint.provider.is_agent_cli() {
        return agent_cli::chat(endpoint, messages);
    }
    let agent = http_agent(endpoint);

    let body = match endpoint.provider {
        SynthesisProvider::Ollama => json!({
            "model": endpoint.model,
            "messages": messages,
            "stream": false,
            "format": "json",
            "options": { "temperature": 0 },
        }),
        SynthesisProvider::OpenaiCompatible
        | SynthesisProvider::ClaudeCli
        | SynthesisProvider::CodexCli => json!({
            "model": endpoint.model,
            "messages": messages,
            "temperature": 0,
            "response_format": { "type": "json_object" },
        }),
    };

    let mut request = agent.post(endpoint.chat_url());
    if let (SynthesisProvider::OpenaiCompatible, Some(key)) = (endpoint.provider, api_key)
        && !key.is_empty()
    {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let mut response = request.send_json(&body).map_err(transport_failure)?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(ModelFailure::Http { status });
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES)
        .read_to_string()
        .map_err(transport_failure)?;
    let envelope: Value = serde_json::from_str(&text)
        .map_err(|e| ModelFailure::BadJson(format!("the provider's response is not JSON ({e})")))?;
    match endpoint.provider {
        SynthesisProvider::Ollama => ollama_content(&envelope),
        _ => openai_content(&envelope),
    }
}

/// Most vectors one embedding call returns, and most values in one vector: bounds on what a
/// misbehaving endpoint can make us hold.
const MAX_EMBEDDINGS: usize = 512;
const MAX_EMBEDDING_DIMS: usize = 8_192;

/// Embeds `texts` at an embedding endpoint, one vector per text in order: Ollama gets
/// `POST {base}/api/embed` with `{model, input}` and answers `{"embeddings": [[…]]}`; an
/// OpenAI-compatible endpoint gets `POST {base}/v1/embeddings` with `{model, input}` (and the key
/// as a bearer token) and answers `{"data": [{"index", "embedding"}]}`, put back in input order by
/// `index`. A reply with another count of vectors, vectors of unequal length, or anything but
/// numbers is a [`ModelFailure::BadJson`].
pub fn embed(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    texts: &[&str],
) -> Result<Vec<Vec<f32>>, ModelFailure> {
    embed_inner(endpoint, api_key, texts).map_err(|f| f.scrubbed(api_key))
}

fn embed_inner(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    texts: &[&str],
) -> Result<Vec<Vec<f32>>, ModelFailure> {
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    if texts.len() > MAX_EMBEDDINGS {
        return Err(ModelFailure::BadJson(format!(
            "at most {MAX_EMBEDDINGS} texts are embedded per call"
        )));
    }
    if endpoint.provider.is_agent_cli() {
        return Err(ModelFailure::NotConfigured(
            "an agent CLI does not embed: choose Ollama or an OpenAI-compatible endpoint".into(),
        ));
    }
    let agent = http_agent(endpoint);
    let base = endpoint.base_url.trim().trim_end_matches('/');
    let url = match endpoint.provider {
        SynthesisProvider::Ollama => format!("{base}/api/embed"),
        SynthesisProvider::OpenaiCompatible if base.ends_with("/v1") => {
            format!("{base}/embeddings")
        }
        _ => format!("{base}/v1/embeddings"),
    };
    let mut request = agent.post(url);
    if let (SynthesisProvider::OpenaiCompatible, Some(key)) = (endpoint.provider, api_key)
        && !key.is_empty()
    {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let body = json!({ "model": endpoint.model, "input": texts });
    let mut response = request.send_json(&body).map_err(transport_failure)?;
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(ModelFailure::Http { status });
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES * 8)
        .read_to_string()
        .map_err(transport_failure)?;
    let envelope: Value = serde_json::from_str(&text)
        .map_err(|e| ModelFailure::BadJson(format!("the provider's response is not JSON ({e})")))?;
    let vectors: Vec<(usize, &Value)> = match endpoint.provider {
        SynthesisProvider::Ollama => envelope
            .get("embeddings")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelFailure::BadJson("no `embeddings` in the reply".into()))?
            .iter()
            .enumerate()
            .collect(),
        _ => envelope
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| ModelFailure::BadJson("no `data` in the reply".into()))?
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let index = item
                    .get("index")
                    .and_then(Value::as_u64)
                    .map_or(i, |n| n as usize);
                (index, item.get("embedding").unwrap_or(&Value::Null))
            })
            .collect(),
    };
    if vectors.len() != texts.len() {
        return Err(ModelFailure::BadJson(format!(
            "{} embeddings for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
    for (index, value) in vectors {
        let numbers = value
            .as_array()
            .filter(|a| !a.is_empty() && a.len() <= MAX_EMBEDDING_DIMS)
            .ok_or_else(|| ModelFailure::BadJson("an embedding is not a list of numbers".into()))?;
        let vector: Option<Vec<f32>> = numbers
            .iter()
            .map(|n| n.as_f64().map(|f| f as f32))
            .collect();
        let vector = vector
            .ok_or_else(|| ModelFailure::BadJson("an embedding holds a non-number".into()))?;
        let slot = out.get_mut(index).ok_or_else(|| {
            ModelFailure::BadJson(format!("embedding index {index} out of range"))
        })?;
        *slot = Some(vector);
    }
    let out: Vec<Vec<f32>> = out
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| ModelFailure::BadJson("an embedding index is repeated".into()))?;
    if out.iter().any(|v| v.len() != out[0].len()) {
        return Err(ModelFailure::BadJson(
            "embeddings of different lengths".into(),
        ));
    }
    Ok(out)
}

/// The HTTP client for one call to `endpoint`: its timeout, statuses left to us to interpret,
/// and no redirects (a redirect could take a local-only conversation, or the key, to a host
/// nobody configured); for a local endpoint, no proxy from the environment either, which would
/// carry local-only content off the machine.
fn http_agent(endpoint: &Endpoint) -> ureq::Agent {
    let mut config = ureq::Agent::config_builder()
        .timeout_global(Some(endpoint.timeout))
        .http_status_as_error(false)
        .max_redirects(0);
    if endpoint.is_local() {
        config = config.proxy(None);
    }
    config.build().into()
}

/// Maps a transport error. The text comes from ureq and the OS (e.g. "connection refused") and
/// holds no header, so it cannot hold the key.
fn transport_failure(e: ureq::Error) -> ModelFailure {
    match e {
        ureq::Error::Timeout(_) => ModelFailure::Timeout,
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
        {
            ModelFailure::Timeout
        }
        ureq::Error::StatusCode(status) => ModelFailure::Http { status },
        ureq::Error::Json(e) => ModelFailure::BadJson(detail(&e.to_string())),
        other => ModelFailure::Unreachable(detail(&other.to_string())),
    }
}

fn ollama_content(envelope: &Value) -> Result<String, ModelFailure> {
    if let Some(error) = envelope.get("error").and_then(Value::as_str) {
        return Err(ModelFailure::BadJson(format!(
            "the provider reported an error: {}",
            detail(error)
        )));
    }
    envelope
        .pointer("/message/content")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ModelFailure::BadJson("the provider's response has no message.content".into())
        })
}

fn openai_content(envelope: &Value) -> Result<String, ModelFailure> {
    let Some(choice) = envelope.pointer("/choices/0") else {
        return Err(ModelFailure::BadJson(
            "the provider's response has no choices".into(),
        ));
    };
    if let Some(refusal) = choice.pointer("/message/refusal").and_then(Value::as_str)
        && !refusal.trim().is_empty()
    {
        return Err(ModelFailure::Refusal(detail(refusal)));
    }
    if choice.get("finish_reason").and_then(Value::as_str) == Some("content_filter") {
        return Err(ModelFailure::Refusal(
            "the provider's content filter stopped the reply".into(),
        ));
    }
    choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ModelFailure::BadJson(
                "the provider's response has no choices[0].message.content".into(),
            )
        })
}

/// The unified synthesis prompt of CSA §5.4, in our own words: part A is the session summary
/// (work state, not topic), part B the structured extras (open questions, key decisions, work
/// phase), then the exact JSON shape, including the shape for a session where nothing happened.
pub fn unified_prompt() -> &'static str {
    UNIFIED_PROMPT
}

const UNIFIED_PROMPT: &str = r#"You read the recent turns of a conversation between a person and an AI assistant. Your job is to record where the work stands, so that the person (or another assistant) can pick it up in a later session.

PART A: SESSION SUMMARY
Write one or two sentences on what was achieved in this session and what is still left to do. Describe the state of the work, not the subject of the talk.
Good: "Drafted sections 1 to 3 of the damages analysis. The event study is still open: it waits on the expert's data."
Poor: "Talked about the Henderson case."

PART B: STRUCTURED EXTRAS
1. open_questions: items the person said they would return to, questions raised but not settled, and anything explicitly put off. Include only real open items, never rhetorical questions. Give each one a short context.
2. key_decisions: choices made in this session that set the direction of later work, the kind that would still matter if the person came back to this work a week from now. Give the rationale when the conversation states one.
3. work_phase: the main kind of work in this session, exactly one of research, drafting, review, revision, waiting_for_external, completed, paused, unknown.

Answer with one JSON object and nothing else, in exactly this shape:
{"session_summary": "...", "open_questions": [{"question": "...", "context": "..."}], "key_decisions": [{"decision": "...", "rationale": "..."}], "work_phase": "..."}
Use empty arrays when there are no open questions or no key decisions. List at most 10 of each.

If the session achieved nothing worth recording (small talk, a quick lookup), answer exactly:
{"session_summary": null, "open_questions": [], "key_decisions": [], "work_phase": "unknown"}"#;

/// One open question from a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplyQuestion {
    pub question: String,
    /// May be empty: the continuity log's `context` is optional too.
    pub context: String,
}

/// One key decision from a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplyDecision {
    pub decision: String,
    pub rationale: Option<String>,
}

/// A validated synthesis reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SynthesisReply {
    /// `None` when the model judged that nothing worth recording happened; then both lists are
    /// empty.
    pub session_summary: Option<String>,
    pub open_questions: Vec<ReplyQuestion>,
    pub key_decisions: Vec<ReplyDecision>,
    pub work_phase: WorkPhase,
}

/// Validates a model's reply strictly, because what passes here is written to the continuity log
/// and shown in briefs.
///
/// The reply must be one JSON object, optionally inside a Markdown code fence, with exactly the
/// keys `session_summary`, `open_questions`, `key_decisions` and `work_phase`. Required strings
/// (the summary, each question, each decision) are trimmed and must not be empty; `context` and
/// `rationale` may be empty (a `rationale` may also be `null` or absent, and an empty one becomes
/// `None`). Each list holds at most [`MAX_REPLY_ITEMS`], each string at most
/// [`MAX_REPLY_STRING_CHARS`] characters. A `null` summary with open questions or decisions
/// contradicts itself and is refused; an empty-string summary is [`ModelFailure::EmptySummary`].
pub fn parse_reply(text: &str) -> Result<SynthesisReply, ModelFailure> {
    let body = strip_fence(text)?;
    let value: Value = serde_json::from_str(body)
        .map_err(|e| ModelFailure::BadJson(format!("not valid JSON ({e})")))?;
    let Value::Object(map) = value else {
        return Err(bad("the reply is not a JSON object"));
    };
    exact_keys(
        &map,
        "the reply",
        &[
            "session_summary",
            "open_questions",
            "key_decisions",
            "work_phase",
        ],
        &[],
    )?;

    let session_summary = match &map["session_summary"] {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => return Err(ModelFailure::EmptySummary),
        Value::String(s) => Some(bounded(s, "session_summary")?),
        other => return Err(wrong_type("session_summary", "a string or null", other)),
    };

    let open_questions = items(&map["open_questions"], "open_questions")?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("open_questions[{i}]");
            let obj = object(item, &at)?;
            exact_keys(obj, &at, &["question", "context"], &[])?;
            Ok(ReplyQuestion {
                question: required_text(&obj["question"], &format!("{at}.question"))?,
                context: optional_text(&obj["context"], &format!("{at}.context"), false)?
                    .unwrap_or_default(),
            })
        })
        .collect::<Result<Vec<_>, ModelFailure>>()?;

    let key_decisions = items(&map["key_decisions"], "key_decisions")?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("key_decisions[{i}]");
            let obj = object(item, &at)?;
            exact_keys(obj, &at, &["decision"], &["rationale"])?;
            Ok(ReplyDecision {
                decision: required_text(&obj["decision"], &format!("{at}.decision"))?,
                rationale: match obj.get("rationale") {
                    None => None,
                    Some(v) => optional_text(v, &format!("{at}.rationale"), true)?,
                },
            })
        })
        .collect::<Result<Vec<_>, ModelFailure>>()?;

    let work_phase = match &map["work_phase"] {
        Value::String(s) => serde_json::from_value::<WorkPhase>(Value::String(s.trim().to_owned()))
            .map_err(|_| bad(format!("work_phase {:?} is not a known phase", detail(s))))?,
        other => return Err(wrong_type("work_phase", "a string", other)),
    };

    if session_summary.is_none() && (!open_questions.is_empty() || !key_decisions.is_empty()) {
        return Err(bad(
            "session_summary is null but the reply lists open questions or key decisions",
        ));
    }

    Ok(SynthesisReply {
        session_summary,
        open_questions,
        key_decisions,
        work_phase,
    })
}

fn bad(why: impl Into<String>) -> ModelFailure {
    ModelFailure::BadJson(why.into())
}

fn wrong_type(at: &str, expected: &str, found: &Value) -> ModelFailure {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    bad(format!("{at} must be {expected}, found {found}"))
}

/// The JSON text inside an optional Markdown code fence (```` ```json ```` or ```` ``` ````).
/// Anything else around the object, prose included, is refused by the JSON parser after this.
fn strip_fence(text: &str) -> Result<&str, ModelFailure> {
    let text = text.trim();
    let Some(rest) = text.strip_prefix("```") else {
        return Ok(text);
    };
    let rest = rest
        .strip_prefix("json")
        .or_else(|| rest.strip_prefix("JSON"))
        .unwrap_or(rest);
    let Some(inner) = rest.strip_suffix("```") else {
        return Err(bad("the reply opens a code fence but does not close it"));
    };
    // The opening fence line may carry nothing but the language tag.
    let Some(inner) = inner.strip_prefix(['\n', '\r', ' ']) else {
        return Err(bad(
            "the reply's code fence has text after its language tag",
        ));
    };
    Ok(inner.trim())
}

/// Requires every key in `required`, allows those in `optional`, and refuses any other: an
/// unexpected key means the model did not follow the prompt, so the rest is not trusted either.
fn exact_keys(
    map: &Map<String, Value>,
    at: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<(), ModelFailure> {
    if let Some(unknown) = map
        .keys()
        .find(|k| !required.contains(&k.as_str()) && !optional.contains(&k.as_str()))
    {
        return Err(bad(format!(
            "{at} has an unknown key {:?}",
            detail(unknown)
        )));
    }
    if let Some(missing) = required.iter().find(|k| !map.contains_key(**k)) {
        return Err(bad(format!("{at} lacks the key {missing:?}")));
    }
    Ok(())
}

fn items<'a>(value: &'a Value, at: &str) -> Result<&'a Vec<Value>, ModelFailure> {
    match value {
        Value::Array(items) if items.len() > MAX_REPLY_ITEMS => Err(bad(format!(
            "{at} has {} items; at most {MAX_REPLY_ITEMS} are allowed",
            items.len()
        ))),
        Value::Array(items) => Ok(items),
        other => Err(wrong_type(at, "an array", other)),
    }
}

fn object<'a>(value: &'a Value, at: &str) -> Result<&'a Map<String, Value>, ModelFailure> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(wrong_type(at, "an object", other)),
    }
}

fn bounded(text: &str, at: &str) -> Result<String, ModelFailure> {
    let text = text.trim();
    let chars = text.chars().count();
    if chars > MAX_REPLY_STRING_CHARS {
        return Err(bad(format!(
            "{at} has {chars} characters; at most {MAX_REPLY_STRING_CHARS} are allowed"
        )));
    }
    Ok(text.to_owned())
}

fn required_text(value: &Value, at: &str) -> Result<String, ModelFailure> {
    match value {
        Value::String(s) if s.trim().is_empty() => Err(bad(format!("{at} is empty"))),
        Value::String(s) => bounded(s, at),
        other => Err(wrong_type(at, "a string", other)),
    }
}

/// A string that may be empty (then `None`), or also `null` when `nullable`.
fn optional_text(value: &Value, at: &str, nullable: bool) -> Result<Option<String>, ModelFailure> {
    match value {
        Value::Null if nullable => Ok(None),
        Value::String(s) => bounded(s, at).map(|s| (!s.is_empty()).then_some(s)),
        other if nullable => Err(wrong_type(at, "a string or null", other)),
        other => Err(wrong_type(at, "a string", other)),
    }
}

/// [`synthesize_recorded`]'s reply alone.
#[cfg(test)]
pub fn synthesize(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    conversation: &str,
) -> Result<SynthesisReply, ModelFailure> {
    synthesize_recorded(endpoint, api_key, conversation).0
}

/// One synthesis pass: the unified prompt as the system message, the conversation (already
/// bounded by the caller, CSA §5.4 "~2,000 tokens") as the user message, and a strict parse of
/// the reply; beside it, the answer's text as it came back (masked, and without the key), when
/// one came: what a capture keeps of its call for the person to audit.
pub fn synthesize_recorded(
    endpoint: &Endpoint,
    api_key: Option<&str>,
    conversation: &str,
) -> (Result<SynthesisReply, ModelFailure>, Option<String>) {
    let messages = [
        ChatMessage::system(unified_prompt()),
        ChatMessage::user(conversation),
    ];
    let text = match chat(endpoint, api_key, &messages) {
        Ok(text) => text,
        Err(f) => return (Err(f), None),
    };
    let mut kept = crate::base::redact::redact(&text).into_owned();
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        kept = kept.replace(key, "[redacted]");
    }
    (
        parse_reply(&text).map_err(|f| f.scrubbed(api_key)),
        Some(kept),
    )
}

/// Most characters of the model's answer that [`test_connection`] returns.
const TEST_REPLY_CHARS: usize = 200;

/// A tiny call for Settings' "test connection": the model's answer, trimmed and cut to 200
/// characters, or the failure. Any answer proves the endpoint, model and key work; its content
/// is shown, not judged.
pub fn test_connection(endpoint: &Endpoint, api_key: Option<&str>) -> Result<String, ModelFailure> {
    let messages = [
        ChatMessage::system(
            "You are a connection test. Reply with the JSON object {\"ok\":true} and nothing else.",
        ),
        ChatMessage::user("Reply with {\"ok\":true}"),
    ];
    let text = chat(endpoint, api_key, &messages)?;
    Ok(text.trim().chars().take(TEST_REPLY_CHARS).collect())
}

/// Writes one call's `outcome` to the ledger for `purpose` (`capture`, `search`). A ledger
/// write that fails must not turn a good reply into a fallback; the guard reads the same table
/// and refuses when it cannot, so the failure cannot hide spending.
pub(crate) fn record_call(
    graph: &crate::graph::Graph,
    config: &crate::base::config::ContinuityConfig,
    purpose: &str,
    outcome: &str,
    now: DateTime<Utc>,
) {
    let _ = graph.with_conn_result(|c| {
        SpendGuard::record(c, now, config.synthesis_provider, purpose, outcome)
    });
}

/// The key a call to the synthesis model may use (none for a provider that takes none), once the
/// spend guard allows the call; `Err` says why not, and a refusal by the guard is written to the
/// ledger.
pub(crate) fn cleared_key(
    graph: &crate::graph::Graph,
    secrets: &dyn crate::base::secrets::SecretStore,
    config: &crate::base::config::ContinuityConfig,
    purpose: &str,
    now: DateTime<Utc>,
) -> Result<Option<String>, String> {
    let key = if config.synthesis_provider.takes_key() {
        secrets
            .get(crate::base::secrets::SYNTHESIS_API_KEY)
            .map_err(|e| format!("API key unavailable: {e}"))?
    } else {
        None
    };
    let guard = SpendGuard::from_config(config);
    if let Err(refused) = graph
        .with_conn_result(|c| Ok(guard.check(c, now)))
        .map_err(|e| e.to_string())?
    {
        record_call(graph, config, purpose, OUTCOME_REFUSED_SPEND_LIMIT, now);
        return Err(refused.reason());
    }
    Ok(key)
}

/// The `model_calls.outcome` of a call the spend guard refused. Such rows are kept for the
/// person to audit but do not count against the limits, or one refusal would extend itself.
pub const OUTCOME_REFUSED_SPEND_LIMIT: &str = "refused_spend_limit";

/// The `model_calls.outcome` of a call that returned a usable reply.
pub const OUTCOME_OK: &str = "ok";

/// The spend guard over the `model_calls` ledger (migration 03): at most `per_hour` calls in any
/// rolling hour and `per_day` in any rolling 24 hours. Every call made is recorded, whatever its
/// outcome, because a failed call may still have cost money.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpendGuard {
    pub per_hour: u32,
    pub per_day: u32,
}

impl SpendGuard {
    pub fn from_config(c: &ContinuityConfig) -> SpendGuard {
        SpendGuard {
            per_hour: c.max_model_calls_per_hour,
            per_day: c.max_model_calls_per_day,
        }
    }

    /// `Err(SpendLimit)` when the calls recorded in `(now - 1 h, now]` reach `per_hour`, or those
    /// in `(now - 24 h, now]` reach `per_day`. A limit of 0 refuses every call. A ledger that
    /// cannot be read also refuses (as the hourly limit): when we cannot count, we do not spend.
    pub fn check(
        &self,
        conn: &rusqlite::Connection,
        now: DateTime<Utc>,
    ) -> Result<(), ModelFailure> {
        let refuse_hour = ModelFailure::SpendLimit {
            window: "hour",
            limit: self.per_hour,
        };
        let Ok((hour, day)) = SpendGuard::usage(conn, now) else {
            return Err(refuse_hour);
        };
        if hour >= self.per_hour {
            return Err(refuse_hour);
        }
        if day >= self.per_day {
            return Err(ModelFailure::SpendLimit {
                window: "day",
                limit: self.per_day,
            });
        }
        Ok(())
    }

    /// Records one call: `outcome` is [`OUTCOME_OK`], a failure's [`ModelFailure::code`], or
    /// [`OUTCOME_REFUSED_SPEND_LIMIT`].
    pub fn record(
        conn: &rusqlite::Connection,
        now: DateTime<Utc>,
        provider: SynthesisProvider,
        purpose: &str,
        outcome: &str,
    ) -> rusqlite::Result<()> {
        conn.execute(
            "INSERT INTO model_calls (called_at, provider, purpose, outcome) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![timestamp(now), provider.as_str(), purpose, outcome],
        )?;
        Ok(())
    }

    /// The calls counted in the last hour and the last 24 hours, for Settings.
    pub fn usage(conn: &rusqlite::Connection, now: DateTime<Utc>) -> rusqlite::Result<(u32, u32)> {
        let count = |since: DateTime<Utc>| -> rusqlite::Result<u32> {
            conn.query_row(
                "SELECT COUNT(*) FROM model_calls
                 WHERE called_at > ?1 AND called_at <= ?2 AND outcome != ?3",
                rusqlite::params![
                    timestamp(since),
                    timestamp(now),
                    OUTCOME_REFUSED_SPEND_LIMIT
                ],
                |row| row.get::<_, i64>(0),
            )
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        Ok((
            count(now - chrono::Duration::hours(1))?,
            count(now - chrono::Duration::hours(24))?,
        ))
    }
}

/// RFC 3339 UTC with a fixed width (microseconds, `Z`), so text order is time order in SQL.
fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

#[cfg(test)]
mod tests;

impl crate::graph::Graph {
    /// Model calls counted by the spend guard in the last hour and the last 24 hours.
    pub fn model_usage(&self, now: DateTime<Utc>) -> crate::Result<(u32, u32)> {
        self.with_conn_result(|c| SpendGuard::usage(c, now))
    }
}
