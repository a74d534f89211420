//! The heuristic open-question and key-decision detectors CSA §5.3 sketches and leaves empty.
//!
//! They read sentences of conversation messages (never tool output or injected context), skip
//! code, and match cue phrases in one automaton pass per sentence. What they find is marked
//! reduced-confidence wherever it is shown: these are cues, not understanding, and rhetorical
//! questions or hedged "we should consider" still slip through. Their precision and recall on a
//! labelled set built from the real fixture transcripts is measured in `tests.rs`.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::activity::is_word_byte;

/// A detected item: the sentence, and the message it came from as context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub text: String,
    pub context: String,
}

/// Who wrote the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

/// Cues that something is left open: deferred, blocked, waiting or still to be decided. Words
/// that merely mention a state ("pending", "blocking", "need", "todo" in a name) are not cues:
/// on real history they fired mostly on feature lists, plan labels and narration.
const QUESTION_CUES: &[&str] = &[
    "come back to",
    "deal with that later",
    "deal with it later",
    "todo:",
    "todo(",
    "remember to",
    "still need to",
    "still needs to",
    "need to figure out",
    "open question",
    "not sure whether",
    "not sure if",
    "to be decided",
    "tbd",
    "need to decide",
    "need to confirm",
    "remains to be",
    "blocked on",
    "blocked by",
    "waiting on",
    "waiting for",
    "cannot proceed",
    "can't proceed",
    "still does not work",
    "still doesn't work",
    "unresolved",
    "müssen noch",
    "noch offen",
    "noch festlegen",
    "todavía no",
    "pendiente de",
];

/// Cues that a direction was chosen. Only the person's sentences are read for these: an agent's
/// "instead of" or "for now" narrates its own code, while the person's states the choice.
const DECISION_CUES: &[&str] = &[
    "we decided",
    "i decided",
    "decided to",
    "decision is",
    "let's go with",
    "lets go with",
    "go with",
    "going with",
    "we'll go with",
    "settled on",
    "we chose",
    "i chose",
    "opted for",
    "instead of",
    "rather than",
    "switch to",
    "switching to",
    "we will use",
    "we'll use",
    "let's use",
    "from now on",
    "for now",
    "in future",
    "in the future",
    "make sure",
    "stelle sicher",
    "in zukunft",
    "anstatt",
    "statt ",
    "entscheidung:",
    "wir wollen",
    "wir sollten",
    "solltest",
    "soll ",
    "sollte ",
    "möchte ich",
    "wichtig ist",
    "wichtig dabei",
    "verhindern",
    "bitte auch",
    "weiter machen",
    "weitermachen",
    "i want to",
    "we want to",
    "en lugar de",
    "a partir de ahora",
];

/// Phrases that make a decision cue an expectation or a guess instead ("das sollte reichen").
const NOT_DECISIONS: &[&str] = &["das sollte", "es sollte", "sollte doch", "i want to know"];

/// Phrases that make a sentence a report of the agent's own next step, not a decision or an open
/// item of the work: "Let me check…", "I'll search…".
const NARRATION_STARTS: &[&str] = &[
    "let me ",
    "now let me",
    "i'll search",
    "i'll check",
    "i'll look",
    "i'll read",
    "first, let me",
    "now i",
    "let's check",
    "let's look",
];

fn automaton(words: &[&str]) -> AhoCorasick {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(words)
        .expect("cue phrases are valid")
}

fn questions() -> &'static AhoCorasick {
    static A: OnceLock<AhoCorasick> = OnceLock::new();
    A.get_or_init(|| automaton(QUESTION_CUES))
}

fn decisions() -> &'static AhoCorasick {
    static A: OnceLock<AhoCorasick> = OnceLock::new();
    A.get_or_init(|| automaton(DECISION_CUES))
}

fn has_cue(ac: &AhoCorasick, sentence: &str) -> bool {
    let bytes = sentence.as_bytes();
    ac.find_iter(sentence).any(|m| {
        let starts_word = m.start() == 0 || !is_word_byte(bytes[m.start() - 1]);
        // Cues ending in punctuation ("decision:") carry their own end boundary.
        let ends_word = !is_word_byte(bytes[m.end() - 1])
            || m.end() >= bytes.len()
            || !is_word_byte(bytes[m.end()]);
        starts_word && ends_word
    })
}

/// Splits a message into sentences: code blocks and quoted lines are dropped, list items and
/// lines are sentences of their own, and `.`, `!`, `?` end a sentence when a space follows.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || trimmed.starts_with('>') || trimmed.starts_with('|') || trimmed.is_empty() {
            continue;
        }
        let body = trimmed
            .trim_start_matches(['-', '*', '•', '#'])
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start_matches(['.', ')'])
            .trim();
        let mut start = 0;
        let bytes = body.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|n| *n == b' ') {
                push_sentence(&mut out, &body[start..=i]);
                start = i + 1;
            }
        }
        push_sentence(&mut out, &body[start..]);
    }
    out
}

fn push_sentence(out: &mut Vec<String>, s: &str) {
    let s = s.trim().trim_matches('*').trim();
    if s.chars().count() >= 12 {
        out.push(s.to_owned());
    }
}

/// Sentences we never report: too long to be one item, mostly code, or the agent narrating.
fn unusable(sentence: &str, speaker: Speaker) -> bool {
    let len = sentence.chars().count();
    // Headings ("Pending Tasks:") introduce items rather than being one.
    if len > 300 || (len < 60 && sentence.trim_end_matches('*').ends_with(':')) {
        return true;
    }
    // Mostly code, or a command reference line ("`bd show <id>` - …").
    let mut in_tick = false;
    let mut ticked = 0;
    for c in sentence.chars() {
        if c == '`' {
            in_tick = !in_tick;
        } else if in_tick {
            ticked += 1;
        }
    }
    let code = ticked * 2 > len
        || sentence.starts_with('`')
        // File-list lines ("lib/a/b.ex (NOT committed)") state a file's status, not the work's.
        || sentence
            .split_whitespace()
            .next()
            .is_some_and(|w| w.contains('/') || w.starts_with('.'))
        || sentence.contains("=>")
        || sentence.contains("();");
    if code {
        return true;
    }
    let lower = sentence.to_ascii_lowercase();
    speaker == Speaker::Assistant && NARRATION_STARTS.iter().any(|n| lower.starts_with(n))
}

/// Questions the assistant left for the person in the last message of a window: the session
/// ended (or paused) on them, so the next session has to pick them up.
pub fn final_questions(text: &str) -> Vec<Detected> {
    let context = excerpt(text);
    sentences(text)
        .into_iter()
        .filter(|s| s.ends_with('?') && !unusable(s, Speaker::Assistant))
        .filter(|s| s.split_whitespace().count() >= 4)
        .map(|text| Detected {
            text,
            context: context.clone(),
        })
        .collect()
}

/// Words of a heading that introduces what is still to do ("Next steps", "Offene Tasks",
/// "Pending", "Remaining work", "Próximos pasos").
const PENDING_HEADINGS: &[&str] = &[
    "next step",
    "next steps",
    "open task",
    "open item",
    "open question",
    "pending",
    "remaining",
    "outstanding",
    "todo",
    "to do",
    "follow-up",
    "follow up",
    "offen",
    "nächste",
    "ausstehend",
    "pendiente",
    "próximo",
];

/// Words that report work as finished: a line holding one is a status, not a pending item.
const DONE_WORDS: &[&str] = &[
    "complete",
    "completed",
    "generated",
    "done",
    "finished",
    "erledigt",
    "abgeschlossen",
    "fertig",
    "completado",
    "listo",
    "✅",
];

fn reports_done(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '✅')
        .any(|w| DONE_WORDS.contains(&w))
        || lower.contains('✅')
}

/// Pending items the assistant's last message lists: unchecked task boxes (`- [ ] …`), and the
/// items of a list under a heading that names what is still to do. The session ended on them, so
/// the next one picks them up.
pub fn final_pending_items(text: &str) -> Vec<Detected> {
    let context = excerpt(text);
    let mut out = Vec::new();
    let mut under_pending = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let item = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| {
                let digits = t.chars().take_while(char::is_ascii_digit).count();
                (digits > 0)
                    .then(|| &t[digits..])
                    .and_then(|r| r.strip_prefix(". ").or_else(|| r.strip_prefix(") ")))
            });
        let Some(item) = item else {
            let lower = t.to_lowercase();
            let heading = t.starts_with('#')
                || t.ends_with(':')
                || (t.starts_with("**") && t.ends_with("**"));
            under_pending = heading && PENDING_HEADINGS.iter().any(|h| lower.contains(h));
            continue;
        };
        let (unchecked, item) = match item.strip_prefix("[ ] ") {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let item = item.replace("**", "");
        let item = item.trim();
        if (unchecked || under_pending)
            && item.split_whitespace().count() >= 2
            && item.len() <= 300
            && !reports_done(item)
        {
            out.push(Detected {
                text: item.to_owned(),
                context: context.clone(),
            });
        }
    }
    out
}

/// Open questions in one message.
pub fn open_questions(text: &str, speaker: Speaker) -> Vec<Detected> {
    let context = excerpt(text);
    sentences(text)
        .into_iter()
        .filter(|s| !unusable(s, speaker))
        .filter(|s| {
            let cue = has_cue(questions(), s);
            // The person's own question counts when it carries a cue; an agent's question to the
            // person ("should I continue?") is a hand-off, not an open item of the work.
            cue && (speaker == Speaker::User || !s.ends_with('?'))
        })
        .map(|text| Detected {
            text,
            context: context.clone(),
        })
        .collect()
}

/// Key decisions in one message.
pub fn key_decisions(text: &str, speaker: Speaker) -> Vec<Detected> {
    if speaker != Speaker::User {
        return Vec::new();
    }
    let context = excerpt(text);
    sentences(text)
        .into_iter()
        .filter(|s| !unusable(s, speaker) && !s.ends_with('?'))
        // A template placeholder ("Decision: [what was chosen]") is not a choice.
        .filter(|s| !(s.contains('[') && s.contains(']') && s.len() < 60))
        .filter(|s| {
            let lower = s.to_lowercase();
            !NOT_DECISIONS.iter().any(|n| lower.contains(n))
        })
        .filter(|s| has_cue(decisions(), s))
        .map(|text| Detected {
            text,
            context: context.clone(),
        })
        .collect()
}

fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 160 {
        flat
    } else {
        let mut cut: String = flat.chars().take(160).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests;
