//! Deterministic entity resolution (SPEC §4, CSA §11): the graph's known names and aliases found
//! in one pass over a text by a multi-pattern automaton, plus candidates for new entities —
//! document ids like `DOC72`, issue ids like `ABC-123` or `#42`, file paths, capitalised
//! multi-word names — scored and passed through the significance gate, whose threshold is lowered
//! (×0.6 by default) when the activity is research inside an active work context (CSA §11.2).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use crate::base::config::ContinuityConfig;
use crate::inputs::activity::ActivityType;

/// What sort of thing a candidate looks like; it becomes the entity's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateKind {
    Document,
    Issue,
    File,
    Name,
}

impl CandidateKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CandidateKind::Document => "document",
            CandidateKind::Issue => "issue",
            CandidateKind::File => "file",
            CandidateKind::Name => "name",
        }
    }

    /// How significant one mention is on its own: an explicit document id is deliberate, a
    /// capitalised phrase often is not.
    fn base_score(self) -> f64 {
        match self {
            CandidateKind::Document => 0.35,
            CandidateKind::Issue => 0.3,
            CandidateKind::File => 0.2,
            CandidateKind::Name => 0.15,
        }
    }
}

/// A possible new entity found in a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub text: String,
    pub kind: CandidateKind,
    pub mentions: u32,
    /// The person named it (not only the agent).
    pub by_user: bool,
    /// The significance score in 0..=1.
    pub score: f64,
}

/// Extra score per mention after the first, up to [`REPEAT_CAP`].
const REPEAT_BONUS: f64 = 0.1;
const REPEAT_CAP: f64 = 0.4;
/// Extra score when the person, not the agent, named it.
const USER_BONUS: f64 = 0.15;

struct Patterns {
    document: Regex,
    issue: Regex,
    hash_issue: Regex,
    path: Regex,
    name: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        // DOC72, RFC9110, ISO8601: letters glued to digits.
        document: Regex::new(r"\b[A-Z]{2,6}[0-9]{1,5}\b").expect("valid"),
        // JIRA-style ABC-123 and dotted bead ids like spotter-4te.3.
        issue: Regex::new(r"\b[A-Z][A-Z0-9]{1,9}-[0-9]{1,6}\b").expect("valid"),
        hash_issue: Regex::new(r"(?:^|[\s(])#([0-9]{1,6})\b").expect("valid"),
        // Absolute or home paths with at least two segments, and relative paths with an
        // extension.
        path: Regex::new(
            r"(?:~|\.{1,2})?/(?:[A-Za-z0-9_.@-]+/)+[A-Za-z0-9_.@-]+|\b[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.[A-Za-z0-9]{1,8}\b",
        )
        .expect("valid"),
        name: Regex::new(r"\b[A-Z][a-z]+(?:[ ][A-Z][a-z]+){1,4}\b").expect("valid"),
    })
}

/// Capitalised words that start sentences or headings and do not begin names.
const NAME_STOPWORDS: &[&str] = &[
    "The",
    "This",
    "That",
    "These",
    "Those",
    "There",
    "Then",
    "Let",
    "Now",
    "Next",
    "Here",
    "Good",
    "Great",
    "Perfect",
    "Excellent",
    "Done",
    "Yes",
    "No",
    "Ok",
    "Okay",
    "If",
    "When",
    "While",
    "After",
    "Before",
    "For",
    "From",
    "With",
    "Without",
    "And",
    "But",
    "Or",
    "So",
    "It",
    "Its",
    "We",
    "You",
    "Your",
    "Our",
    "My",
    "In",
    "On",
    "At",
    "To",
    "Of",
    "By",
    "As",
    "All",
    "Some",
    "Any",
    "Each",
    "Every",
    "Also",
    "Still",
    "Just",
    "Only",
    "Please",
    "Thanks",
    "Thank",
    "Sure",
    "Note",
    "Summary",
    "Task",
    "Step",
    "Added",
    "Created",
    "Updated",
    "Fixed",
    "Removed",
    "Found",
    "Completed",
    "Remaining",
    "Latest",
    "Recommended",
    "Given",
    "Since",
    "Because",
    "What",
    "Why",
    "How",
    "Where",
    "Who",
    "Which",
    "Do",
    "Does",
    "Did",
    "Is",
    "Are",
    "Was",
    "Were",
    "Be",
    "Can",
    "Could",
    "Should",
    "Would",
    "Will",
    "May",
    "Might",
    "Must",
    "Me",
    "Us",
];

/// Finds candidates in a session's texts, `(text, by_user)` pairs in order, and scores them.
/// Texts that are names of known entities are not candidates (the matcher has them).
pub fn candidates<'a>(
    texts: impl IntoIterator<Item = (&'a str, bool)>,
    known: &dyn Fn(&str) -> bool,
) -> Vec<Candidate> {
    let p = patterns();
    let mut found: BTreeMap<(CandidateKind, String), (u32, bool)> = BTreeMap::new();
    let mut add = |kind: CandidateKind, text: &str, by_user: bool| {
        let text = text.trim_end_matches(['.', ',', ':', ';', ')']);
        if text.chars().count() < 3 || text.chars().count() > 200 || known(text) {
            return;
        }
        let e = found.entry((kind, text.to_owned())).or_default();
        e.0 += 1;
        e.1 |= by_user;
    };
    for (text, by_user) in texts {
        for m in p.document.find_iter(text) {
            add(CandidateKind::Document, m.as_str(), by_user);
        }
        for m in p.issue.find_iter(text) {
            add(CandidateKind::Issue, m.as_str(), by_user);
        }
        for c in p.hash_issue.captures_iter(text) {
            if let Some(n) = c.get(1) {
                add(CandidateKind::Issue, &format!("#{}", n.as_str()), by_user);
            }
        }
        for m in p.path.find_iter(text) {
            // URLs are not files; `https://host/a/b` leaves `//host/a/b` behind.
            let before = &text[..m.start()];
            if before.ends_with(':') || before.ends_with('/') || m.as_str().starts_with("//") {
                continue;
            }
            add(CandidateKind::File, m.as_str(), by_user);
        }
        // Headings ("## Key Technical Concepts", "3. Pending Tasks:") are title case by
        // convention, not names.
        let prose: String = text
            .lines()
            .filter(|l| {
                let t = l
                    .trim()
                    .trim_start_matches(['-', '*', '•', ' '])
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start_matches(['.', ')', ' '])
                    .trim_end_matches('*');
                // Headings, labels ("- **Key Points**: …") and table rows are not prose.
                !(l.trim().starts_with('#')
                    || t.ends_with(':')
                    || t.starts_with("**")
                    || l.trim().starts_with('|'))
            })
            .collect::<Vec<_>>()
            .join("\n");
        for m in p.name.find_iter(&prose) {
            let mut words: Vec<&str> = m.as_str().split(' ').collect();
            while words.first().is_some_and(|w| NAME_STOPWORDS.contains(w)) {
                words.remove(0);
            }
            if words.len() >= 2 {
                add(CandidateKind::Name, &words.join(" "), by_user);
            }
        }
    }
    found
        .into_iter()
        .map(|((kind, text), (mentions, by_user))| {
            let repeat = (REPEAT_BONUS * f64::from(mentions.saturating_sub(1))).min(REPEAT_CAP);
            let user = if by_user { USER_BONUS } else { 0.0 };
            Candidate {
                text,
                kind,
                mentions,
                by_user,
                score: (kind.base_score() + repeat + user).min(1.0),
            }
        })
        .collect()
}

/// Folders whose files are never the work: temp, caches, toolchains, dependencies, the system.
const NOT_WORK_DIRS: &[&str] = &[
    "tmp",
    "temp",
    ".cache",
    "cache",
    "caches",
    "node_modules",
    "site-packages",
    "dist-packages",
    "hostedtoolcache",
    "__pycache__",
    ".venv",
    "venv",
    ".git",
    ".npm",
    ".cargo",
    ".rustup",
    "appdata",
];

/// Top-level system folders: a path starting in one is the machine's, not the work's.
const SYSTEM_ROOTS: &[&str] = &[
    "tmp", "var", "private", "proc", "sys", "dev", "etc", "usr", "opt", "bin", "lib", "library",
    "system",
];

/// Names of the tooling itself (harnesses, model families, vendors): every session mentions
/// them, so they say nothing about the work.
const TOOLING: &[&str] = &[
    "claude",
    "codex",
    "openclaw",
    "clawdbot",
    "anthropic",
    "openai",
    "chatgpt",
    "gpt",
    "sonnet",
    "opus",
    "haiku",
    "gemini",
    "copilot",
    "cursor",
    "ollama",
];

/// Decides whether a candidate is worth an entity, and gives its stored form: temp, cache,
/// toolchain and system paths are dropped; a file inside the session's project is named relative
/// to the project root (so the same file is one entity whichever machine or worktree mentioned
/// it); names of the tooling are dropped.
pub fn worth_having(mut c: Candidate, project_root: Option<&str>) -> Option<Candidate> {
    match c.kind {
        CandidateKind::File => {
            let path = c.text.replace('\\', "/");
            // The project folder itself, or a folder above it (a path cut at a space), names
            // where the work is, not a thing in it.
            if let Some(root) = project_root
                && (path.starts_with('/') || path.contains(':'))
                && (crate::graph::projects::within(root, &path)
                    || root
                        .replace('\\', "/")
                        .to_lowercase()
                        .starts_with(&path.to_lowercase()))
            {
                return None;
            }
            if let Some(root) = project_root
                && crate::graph::projects::within(&path, root)
            {
                let root = crate::graph::projects::normalise(root, None).replace('\\', "/");
                let rest = path.get(root.len()..).unwrap_or("").trim_start_matches('/');
                if rest.is_empty() {
                    return None;
                }
                c.text = rest.to_owned();
            }
            let lower = c.text.to_lowercase();
            let parts: Vec<&str> = lower.split('/').filter(|p| !p.is_empty()).collect();
            let absolute = lower.starts_with('/');
            if absolute && parts.first().is_some_and(|f| SYSTEM_ROOTS.contains(f)) {
                return None;
            }
            if parts.iter().any(|p| NOT_WORK_DIRS.contains(p)) {
                return None;
            }
            // The tools' own folders (`~/.claude/…`, `.codex/prompts/…`, also when a mention
            // dropped the leading dot) hold their settings and prompts, not the work.
            if parts.iter().any(|p| {
                let p = p.trim_start_matches('.');
                TOOLING
                    .iter()
                    .any(|t| p == *t || p.starts_with(&format!("{t}-")))
            }) {
                return None;
            }
            Some(c)
        }
        CandidateKind::Name => {
            let tooling = c.text.split([' ', '-']).any(|w| {
                let w = w.to_lowercase();
                TOOLING
                    .iter()
                    .any(|t| w == *t || w.starts_with(&format!("{t}-")))
            });
            (!tooling).then_some(c)
        }
        _ => Some(c),
    }
}

/// The significance threshold for one observation (CSA §11.2): the configured base, times the
/// research multiplier when the activity is research inside an active work context.
pub fn gate_threshold(
    config: &ContinuityConfig,
    activity: Option<ActivityType>,
    active_work_context: bool,
) -> f64 {
    let base = f64::from(config.significance_threshold_pct) / 100.0;
    if activity == Some(ActivityType::Research) && active_work_context {
        base * f64::from(config.research_gate_multiplier_pct) / 100.0
    } else {
        base
    }
}

/// Whether a candidate passes the gate. Scores are sums of tenths, so compare with a small
/// tolerance: 0.15 + 0.15 must pass a gate of 0.3.
pub fn passes(candidate: &Candidate, threshold: f64) -> bool {
    candidate.score + 1e-9 >= threshold
}

#[cfg(test)]
mod tests;
