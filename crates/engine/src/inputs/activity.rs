//! The deterministic activity classifier (SPEC §2, "DOC24 routing"): verb families over the
//! person's turns give an activity type — research, drafting, communication, strategic,
//! operational, recall — and the recency families of CSA §12.4 say whether the question needs
//! fresh information. The work phase capture records follows from the activity (CSA §5.3).
//!
//! Matching is one pass of a multi-pattern automaton over each text, on word boundaries and
//! ASCII case-insensitively; there is no per-pattern loop.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use serde::Serialize;

use crate::base::words::on_word_boundary;
use crate::continuity::WorkPhase;

/// What the person is doing (DOC24 `activity_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityType {
    Research,
    Drafting,
    Communication,
    Strategic,
    Operational,
    Recall,
}

impl ActivityType {
    pub const ALL: [ActivityType; 6] = [
        ActivityType::Research,
        ActivityType::Drafting,
        ActivityType::Communication,
        ActivityType::Strategic,
        ActivityType::Operational,
        ActivityType::Recall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActivityType::Research => "research",
            ActivityType::Drafting => "drafting",
            ActivityType::Communication => "communication",
            ActivityType::Strategic => "strategic",
            ActivityType::Operational => "operational",
            ActivityType::Recall => "recall",
        }
    }

    /// The work phase an activity implies (CSA §5.3 `mapActivityTypeToPhase`).
    pub fn phase(self) -> WorkPhase {
        match self {
            ActivityType::Research => WorkPhase::Research,
            ActivityType::Drafting | ActivityType::Communication | ActivityType::Operational => {
                WorkPhase::Drafting
            }
            ActivityType::Strategic => WorkPhase::Review,
            ActivityType::Recall => WorkPhase::Unknown,
        }
    }
}

/// Whether a request needs current information (CSA §12.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Recency {
    MustSearch,
    ShouldSearch,
}

/// Verb families. Phrases are matched whole-word; the longest match at a position wins, so
/// "look up" is research even though "look" alone is nothing.
const FAMILIES: &[(ActivityType, &[&str])] = &[
    (
        ActivityType::Research,
        &[
            "find",
            "research",
            "look up",
            "look into",
            "search",
            "websearch",
            "analyze",
            "analyse",
            "investigate",
            "compare",
            "explore",
            "what is",
            "what are",
            "how does",
            "why does",
            "why is",
            "figure out",
            "understand",
            "learn",
            "study",
            "check whether",
            "summarize",
            "summarise",
            "read",
        ],
    ),
    (
        ActivityType::Drafting,
        &[
            "write",
            "draft",
            "rewrite",
            "edit",
            "create",
            "implement",
            "add",
            "refactor",
            "fix",
            "code",
            "compose",
            "design",
            "outline",
            "prepare",
            "update",
            "continue",
            "continue implementation",
            "build out",
            "polish",
        ],
    ),
    (
        ActivityType::Communication,
        &[
            "email", "e-mail", "reply", "respond", "send", "message", "tell", "call", "meeting",
            "slack", "forward", "notify", "invite", "letter", "ask them",
        ],
    ),
    (
        ActivityType::Strategic,
        &[
            "plan",
            "decide",
            "strategy",
            "prioritize",
            "prioritise",
            "roadmap",
            "should we",
            "should i",
            "evaluate",
            "trade-off",
            "tradeoff",
            "approach",
            "options",
            "review",
            "assess",
            "weigh",
        ],
    ),
    (
        ActivityType::Operational,
        &[
            "run",
            "start",
            "stop",
            "restart",
            "deploy",
            "install",
            "configure",
            "set up",
            "setup",
            "launch",
            "execute",
            "commit",
            "push",
            "upgrade",
            "migrate",
            "schedule",
            "back up",
            "backup",
            "release",
        ],
    ),
    (
        ActivityType::Recall,
        &[
            "remember",
            "recall",
            "what did we",
            "where were we",
            "last time",
            "remind me",
            "previously",
            "what was",
            "earlier we",
        ],
    ),
];

const MUST_SEARCH: &[&str] = &[
    "today",
    "yesterday",
    "tomorrow",
    "latest",
    "current",
    "right now",
    "this week",
    "this month",
    "as of",
    "recently",
    "breaking",
    "update",
    "what happened",
    "news",
];
const SHOULD_SEARCH: &[&str] = &["find", "link", "source", "url", "where can i"];

enum Label {
    Activity(ActivityType),
    Recency(Recency),
}

struct Matcher {
    ac: AhoCorasick,
    labels: Vec<Label>,
}

fn matcher() -> &'static Matcher {
    static M: OnceLock<Matcher> = OnceLock::new();
    M.get_or_init(|| {
        let mut patterns = Vec::new();
        let mut labels = Vec::new();
        for (activity, words) in FAMILIES {
            for w in *words {
                patterns.push(*w);
                labels.push(Label::Activity(*activity));
            }
        }
        for (rec, words) in [
            (Recency::MustSearch, MUST_SEARCH),
            (Recency::ShouldSearch, SHOULD_SEARCH),
        ] {
            for w in words {
                patterns.push(*w);
                labels.push(Label::Recency(rec));
            }
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .expect("the verb-family patterns are valid");
        Matcher { ac, labels }
    })
}

/// One text's classification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Classification {
    /// The family with the most hits; `None` when no family matched or two tie (ambiguous).
    pub activity: Option<ActivityType>,
    /// Hits per family, in [`ActivityType::ALL`] order.
    pub hits: [u32; 6],
    pub recency: Option<Recency>,
}

/// Classifies one text.
pub fn classify(text: &str) -> Classification {
    let m = matcher();
    let bytes = text.as_bytes();
    let mut hits = [0u32; 6];
    let mut must = false;
    let mut should = false;
    // Overlapping families ("find" is research and should-search) need both labels, so every
    // pattern is listed once per label and the automaton reports the first; the recency words
    // that double as verbs are looked up again below.
    for mat in m.ac.find_iter(text) {
        if !on_word_boundary(bytes, mat.start(), mat.end()) {
            continue;
        }
        match m.labels[mat.pattern().as_usize()] {
            Label::Activity(a) => hits[a as usize] += 1,
            Label::Recency(Recency::MustSearch) => must = true,
            Label::Recency(Recency::ShouldSearch) => should = true,
        }
        let word = &text[mat.start()..mat.end()];
        if SHOULD_SEARCH.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            should = true;
        }
        if MUST_SEARCH.iter().any(|w| w.eq_ignore_ascii_case(word)) {
            must = true;
        }
    }
    Classification {
        activity: argmax(&hits),
        hits,
        recency: if must {
            Some(Recency::MustSearch)
        } else if should {
            Some(Recency::ShouldSearch)
        } else {
            None
        },
    }
}

fn argmax(scores: &[u32; 6]) -> Option<ActivityType> {
    let best = *scores.iter().max()?;
    if best == 0 {
        return None;
    }
    let mut winners = ActivityType::ALL
        .into_iter()
        .filter(|a| scores[*a as usize] == best);
    let first = winners.next()?;
    winners.next().is_none().then_some(first)
}

/// The activity of a session from its user turns, oldest first: later turns weigh more (the last
/// of ten counts ten times the first), so the classification follows where the session ended
/// up. Only the last ten turns count.
pub fn classify_session<'a>(user_turns: impl IntoIterator<Item = &'a str>) -> Option<ActivityType> {
    let turns: Vec<&str> = user_turns.into_iter().collect();
    let start = turns.len().saturating_sub(10);
    let mut scores = [0u32; 6];
    for (weight, text) in turns[start..].iter().enumerate() {
        let c = classify(text);
        for (i, h) in c.hits.iter().enumerate() {
            scores[i] += h * (weight as u32 + 1);
        }
    }
    argmax(&scores)
}

#[cfg(test)]
mod tests;
