//! One search hit as both the Search page and the Ctrl+K search box show it: what it is, where it
//! came from (kind, harness, work context, session, time), why it ranked where it did, and where
//! clicking it goes. Also the request both send, so the box's "See all results" shows on the page
//! what the box showed first.

use std::collections::HashMap;

use elnor_types::{SearchHitRow, SearchKind, SearchQueryRequest, SearchStrategy, SearchWhy};

use crate::components::{harness_name, short_time};
use crate::nav::Nav;

/// The banner over every list of results: a hit is something someone said or wrote, found by
/// words or meaning, and may be out of date or wrong (CSA §7.6's `low_trust`).
pub(crate) const TRUST_BANNER: &str = "Search results are evidence to check, not facts.";

/// The window a fresh search covers, in hours: 30 days, the engine's default.
pub(crate) const DEFAULT_HOURS: u32 = 720;

/// A search with the defaults both the page and the box start from: both strategies fused,
/// every kind, the last 30 days.
pub(crate) fn request(query: String, max_results: u32) -> SearchQueryRequest {
    SearchQueryRequest {
        query,
        strategy: SearchStrategy::Hybrid,
        work_context_id: None,
        kinds: Vec::new(),
        harness: None,
        hours: DEFAULT_HOURS,
        max_results,
        synthesis: false,
    }
}

/// The time windows the Search page and the Topics form offer, in hours; 0 is all time.
pub(crate) const WINDOWS: &[(u32, &str)] = &[
    (24, "Last 24 hours"),
    (168, "Last 7 days"),
    (720, "Last 30 days"),
    (2160, "Last 90 days"),
    (0, "All time"),
];

/// How a kind filter (the Search page's, a Topic's rules) names each kind.
pub(crate) fn kind_filter_label(k: SearchKind) -> &'static str {
    match k {
        SearchKind::Turn => "Transcript turns",
        SearchKind::Entry => "Continuity entries",
        SearchKind::Summary => "Session summaries",
        SearchKind::Document => "Library documents",
        SearchKind::Observation => "Observations",
        SearchKind::Node => "Durable knowledge",
    }
}

/// Where clicking a hit goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// The session's transcript, scrolled to the turn (at its row, when the hit says it) and
    /// with it selected.
    Turn {
        session: String,
        turn: String,
        position: Option<u64>,
    },
    Session(String),
    WorkContext(String),
    Observation(i64),
    Node(String),
    /// A Library document, by its absolute path.
    Document(String),
}

/// Where a hit opens: a turn in its transcript; an entry in its work context's log; a summary in
/// its work context when it has one, else its session; a document on its Library page. `None`
/// when the hit names neither.
pub(crate) fn target(h: &SearchHitRow) -> Option<Target> {
    let session = h.session_id.clone();
    let context = h.work_context_id.clone();
    // Exhaustive: a kind the wire gains must say here where it opens.
    match h.kind {
        SearchKind::Turn => match (session, h.turn_id.clone()) {
            (Some(session), Some(turn)) => Some(Target::Turn {
                session,
                turn,
                position: h.position,
            }),
            (session, None) => session.map(Target::Session),
            (None, Some(_)) => None,
        },
        SearchKind::Entry => context.map(Target::WorkContext),
        SearchKind::Summary => context
            .map(Target::WorkContext)
            .or(session.map(Target::Session)),
        SearchKind::Document => h.path.clone().map(Target::Document),
        SearchKind::Observation => h.observation_id.map(Target::Observation),
        SearchKind::Node => h.node_id.clone().map(Target::Node),
    }
}

/// Goes where `target` says.
pub(crate) fn open(nav: Nav, target: Target) {
    match target {
        Target::Turn {
            session,
            turn,
            position,
        } => nav.open_turn(session, turn, position),
        Target::Session(session) => nav.open_session(session),
        Target::WorkContext(id) => nav.open_work_context(id),
        Target::Observation(id) => nav.open_observation(id),
        Target::Node(id) => nav.open_node(id),
        Target::Document(path) => nav.open_document(path),
    }
}

/// What the hit is, in words: whose turn, which kind of entry.
pub(crate) fn kind_label(h: &SearchHitRow) -> String {
    match h.kind {
        SearchKind::Turn => match h.role.as_deref() {
            Some(role) => format!("{role} turn"),
            None => "turn".to_owned(),
        },
        SearchKind::Entry => h
            .entry_type
            .as_deref()
            .map(|t| t.replace('_', " "))
            .unwrap_or_else(|| "entry".to_owned()),
        SearchKind::Summary => "session summary".to_owned(),
        SearchKind::Document => h
            .title
            .clone()
            .map(|t| format!("document: {t}"))
            .unwrap_or_else(|| "document".to_owned()),
        SearchKind::Observation => "observation".to_owned(),
        SearchKind::Node => h
            .node_kind
            .as_deref()
            .map(|k| k.replace('_', " "))
            .unwrap_or_else(|| "durable node".to_owned()),
    }
}

/// Where the hit came from: harness (as people call it), work context (by name, once `names`
/// knows it: its id means nothing to a person), session and time, as far as the hit says.
pub(crate) fn attribution(h: &SearchHitRow, names: &HashMap<String, String>) -> String {
    let mut parts = Vec::new();
    if let Some(harness) = &h.harness {
        parts.push(harness_name(harness).to_owned());
    }
    if let Some(name) = h.work_context_id.as_ref().and_then(|wc| names.get(wc)) {
        parts.push(name.clone());
    }
    if let Some(session) = &h.session_id {
        parts.push(format!("session {}", session.get(..8).unwrap_or(session)));
    }
    if let Some(path) = &h.path {
        parts.push(path.clone());
    }
    parts.push(
        h.at.as_deref()
            .map(short_time)
            .unwrap_or_else(|| "time unknown".to_owned()),
    );
    parts.join(" · ")
}

/// Why the hit ranked where it did, in one line: each list's rank and score, the fused score,
/// the fields the words matched and the age of the work.
pub(crate) fn why_line(w: &SearchWhy) -> String {
    let mut parts = Vec::new();
    match (w.lexical_rank, w.lexical_score) {
        (Some(rank), Some(score)) => parts.push(format!("words: rank {rank} (BM25 {score:.2})")),
        _ => parts.push("words: no match".to_owned()),
    }
    match (w.vector_rank, w.similarity) {
        (Some(rank), Some(similarity)) => {
            parts.push(format!("meaning: rank {rank} (similarity {similarity:.2})"));
        }
        _ => parts.push("meaning: no rank".to_owned()),
    }
    parts.push(format!("fused score {:.3}", w.fused_score));
    parts.extend(w.weighing.clone());
    if !w.fields.is_empty() {
        parts.push(format!("matched {}", w.fields.join(", ")));
    }
    parts.push(match w.age_days {
        Some(0) => "today".to_owned(),
        Some(1) => "1 day old".to_owned(),
        Some(d) => format!("{d} days old"),
        None => "age unknown".to_owned(),
    });
    parts.join(" · ")
}
