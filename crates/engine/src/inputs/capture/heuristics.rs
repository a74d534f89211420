//! The heuristic open-question and key-decision detectors CSA §5.3 sketches and leaves empty.
//!
//! They read sentences of conversation messages (never tool output or injected context), skip
//! code, and match cue phrases in one automaton pass per sentence. What they find is marked
//! reduced-confidence wherever it is shown: these are cues, not understanding, and rhetorical
//! questions or hedged "we should consider" still slip through. Their precision and recall on a
//! labelled set built from the real fixture transcripts is measured in `tests.rs`.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::base::words::is_word_byte;

/// A detected item: the sentence, the message it came from as context, and why it was taken
/// (shown beside the item, so a person can judge the rule as well as the sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub text: String,
    pub context: String,
    pub why: String,
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
    // Blocked until something is resolved, or waiting for the person's word, in the languages
    // of the corpus: the agent cannot go on without it.
    "until this is resolved",
    "until that is resolved",
    "until it is resolved",
    "need you to confirm",
    "need you to decide",
    "bis das geklärt",
    "bis das gelöst",
    "kann nicht fortfahren",
    "hasta que se resuelva",
    "no puedo continuar",
    "necesito que me indiques",
    "necesito que confirmes",
    "revisar y confirmar",
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
    "i want to",
    "we want to",
    "en lugar de",
    "a partir de ahora",
];

/// Phrases that make a decision cue an expectation or a guess instead ("das sollte reichen").
const NOT_DECISIONS: &[&str] = &["das sollte", "es sollte", "sollte doch", "i want to know"];

/// Openings of an example or a hypothetical, which illustrate rather than decide.
const EXAMPLE_STARTS: &[&str] = &[
    "beispiel",
    "zum beispiel",
    "z.b.",
    "example",
    "for example",
    "e.g.",
    "for instance",
    "por ejemplo",
    "imagine",
    "stell dir vor",
];

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
    cue_in(ac, sentence).is_some()
}

/// The first cue phrase of the automaton standing as whole words in the sentence.
fn cue_in<'s>(ac: &AhoCorasick, sentence: &'s str) -> Option<&'s str> {
    let bytes = sentence.as_bytes();
    ac.find_iter(sentence)
        .find(|m| {
            let starts_word = m.start() == 0 || !is_word_byte(bytes[m.start() - 1]);
            // Cues ending in punctuation ("decision:") carry their own end boundary.
            let ends_word = !is_word_byte(bytes[m.end() - 1])
                || m.end() >= bytes.len()
                || !is_word_byte(bytes[m.end()]);
            starts_word && ends_word
        })
        .map(|m| sentence[m.start()..m.end()].trim())
}

/// Splits a message into sentences: code blocks and quoted lines are dropped, list items and
/// lines are sentences of their own, `.`, `!`, `?` end a sentence when a space follows, and the
/// full-width `。`, `！`, `？` of scripts written without spaces end one where they stand.
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
        for (i, c) in body.char_indices() {
            let end = i + c.len_utf8();
            let ends = match c {
                '.' | '!' | '?' => bytes.get(end).is_none_or(|n| *n == b' '),
                '。' | '！' | '？' => true,
                _ => false,
            };
            if ends {
                push_sentence(&mut out, &body[start..end]);
                start = end;
            }
        }
        push_sentence(&mut out, &body[start..]);
    }
    out
}

fn push_sentence(out: &mut Vec<String>, s: &str) {
    // Bold markers are emphasis, not words; one cut by the sentence split would show as "**".
    let s = s.replace("**", "");
    let s = s.trim().trim_matches('*').trim();
    // A character of a script written without spaces carries about a word's meaning.
    if s.chars().count() >= 12 || unspaced_chars(s) >= 6 {
        out.push(s.to_owned());
    }
}

/// How many characters of scripts written without spaces (CJK, kana, Hangul) `s` holds.
fn unspaced_chars(s: &str) -> usize {
    s.chars()
        .filter(|&c| {
            matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF)
        })
        .count()
}

/// Whether a sentence is a question: it ends in a question mark, in any script's form.
fn asks(sentence: &str) -> bool {
    sentence.ends_with(['?', '？'])
}

/// The levels a log line starts with.
const LOG_LEVELS: &[&str] = &[
    "error", "warning", "warn", "info", "debug", "trace", "fatal", "panic", "notice",
];

/// A line a program printed rather than a person or an agent wrote: a log line (a level and a
/// colon, after at most a time or a count: "26.57 warning: build failed, waiting for other
/// jobs…"), or a label with a bare number ("Batch size: 5"). Status and log lines are neither
/// questions nor decisions (`tests/detect/DEFINITIONS.md`); their words ("waiting", "should")
/// are not the person's.
fn printed_by_a_program(sentence: &str) -> bool {
    let mut words = sentence
        .split_whitespace()
        .skip_while(|w| w.chars().all(|c| !c.is_alphabetic()));
    let is_log = words.next().is_some_and(|w| {
        let w = w.to_ascii_lowercase();
        let level = w.trim_start_matches('[');
        LOG_LEVELS.iter().any(|l| {
            level
                .strip_prefix(l)
                .is_some_and(|rest| rest.starts_with(':') || rest.starts_with(']'))
        })
    });
    let bare_number = sentence.split_once(':').is_some_and(|(label, value)| {
        label.split_whitespace().count() <= 4
            && value.chars().any(|c| c.is_ascii_digit())
            && !value.chars().any(char::is_alphabetic)
    });
    is_log || bare_number
}

/// Sentences we never report: too long to be one item, mostly code, a program's output, or the
/// agent narrating.
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
        // People type "=>" as an arrow in prose ("Deutsch => Ottie"); from an agent it is code.
        || (speaker == Speaker::Assistant && sentence.contains("=>"))
        || sentence.contains("();");
    if code || printed_by_a_program(sentence) {
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
        .filter(|s| asks(s) && !unusable(s, Speaker::Assistant))
        .filter(|s| s.split_whitespace().count() >= 4 || unspaced_chars(s) >= 6)
        .map(|text| Detected {
            text,
            context: context.clone(),
            why: "the session ended on this question to the person".to_owned(),
        })
        .collect()
}

/// Words of a heading that introduces what is still to do ("Next steps", "Offene Tasks",
/// "Pending", "Remaining work", "Próximos pasos").
const PENDING_HEADINGS: &[&str] = &[
    "next step",
    "next steps",
    "next:",
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
    // A `#` heading or a short label opens a section; a sentence ending in a colon
    // ("**Empfehlung:** Starte … beginnen:") introduces items without ending its section.
    let mut section_pending = false;
    let mut label_pending = false;
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
            let pending = PENDING_HEADINGS.iter().any(|h| lower.contains(h));
            if t.starts_with('#') {
                section_pending = pending;
                label_pending = false;
            } else if t.ends_with(':') || (t.starts_with("**") && t.ends_with("**")) {
                // A short label ("Notes:", "**Erledigt**") is a heading of its own; a sentence
                // ending in a colon introduces a list inside the section it sits in.
                if t.split_whitespace().count() <= 4 {
                    section_pending = pending;
                }
                label_pending = pending;
            } else if t.starts_with("---") {
                section_pending = false;
                label_pending = false;
            }
            continue;
        };
        let (unchecked, item) = match item.strip_prefix("[ ] ") {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let item = item.replace("**", "");
        let item = item.trim();
        if (unchecked || section_pending || label_pending)
            && item.split_whitespace().count() >= 2
            && item.len() <= 300
            && !reports_done(item)
        {
            out.push(Detected {
                text: item.to_owned(),
                context: context.clone(),
                why: if unchecked {
                    "an unchecked task box in the session's last list of what is still to do"
                } else {
                    "listed under a heading of what is still to do, in the session's last such list"
                }
                .to_owned(),
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
        // The person's own question counts when it carries a cue; an agent's question to the
        // person ("should I continue?") is a hand-off, not an open item of the work.
        .filter(|s| speaker == Speaker::User || !asks(s))
        .filter_map(|text| {
            let cue = cue_in(questions(), &text)?.to_lowercase();
            let who = match speaker {
                Speaker::User => "the person",
                Speaker::Assistant => "the agent",
            };
            Some(Detected {
                why: format!("{who} said something is still open (\"{cue}\")"),
                text,
                context: context.clone(),
            })
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
        .filter(|s| !unusable(s, speaker) && !asks(s))
        // A template placeholder ("Decision: [what was chosen]") is not a choice.
        .filter(|s| !(s.contains('[') && s.contains(']') && s.len() < 60))
        .filter(|s| {
            let lower = s.to_lowercase();
            !NOT_DECISIONS.iter().any(|n| lower.contains(n))
                && !EXAMPLE_STARTS.iter().any(|e| lower.starts_with(e))
        })
        .filter_map(|text| {
            let cue = cue_in(decisions(), &text)?.to_lowercase();
            Some(Detected {
                why: format!("the person's words state a choice (\"{cue}\")"),
                text,
                context: context.clone(),
            })
        })
        .collect()
}

/// How an assistant's question offers to do something the person can accept: "Soll ich …?",
/// "Shall we …?", "Want me to …?", "¿Quieres que …?".
const PROPOSAL_OPENERS: &[&str] = &[
    "soll ich ",
    "sollen wir ",
    "möchtest du, dass ich ",
    "möchtest du dass ich ",
    "shall i ",
    "shall we ",
    "should i ",
    "should we ",
    "want me to ",
    "do you want me to ",
    "would you like me to ",
    "¿quieres que ",
    "quieres que ",
    "¿procedo ",
];

/// Words with which an agent recommends a choice before asking whether to carry it out ("We
/// should rework phase 1. Shall I adjust the plan?"). Read only in a proposal the person accepted.
const RECOMMENDATION_CUES: &[&str] = &[
    "we should",
    "i recommend",
    "i'd recommend",
    "i would recommend",
    "my recommendation",
    "the better option",
    "the better choice",
    "wir sollten",
    "ich empfehle",
    "empfehlung",
    "die bessere lösung",
    "deberíamos",
    "recomiendo",
    "mi recomendación",
];

fn recommendations() -> &'static AhoCorasick {
    static A: OnceLock<AhoCorasick> = OnceLock::new();
    A.get_or_init(|| automaton(RECOMMENDATION_CUES))
}

/// First words of a reply that accept a proposal.
const ACCEPTS: &[&str] = &[
    "ja",
    "jap",
    "yes",
    "yep",
    "yeah",
    "ok",
    "okay",
    "sure",
    "perfekt",
    "perfect",
    "genau",
    "passt",
    "einverstanden",
    "agreed",
    // Not the unaccented "si", which is also Spanish for "if" ("si puedes, …").
    "sí",
    "dale",
    "vale",
    "lgtm",
];

/// First words after an acceptance that take it back ("ja, aber …").
const BUTS: &[&str] = &["aber", "but", "pero", "nein", "no", "not"];

/// Whether the person's reply accepts what was proposed: it opens with an acceptance, is short
/// enough to be an answer rather than a new request, and is not "yes, but".
fn accepts(reply: &str) -> bool {
    let words: Vec<String> = reply
        .split_whitespace()
        .take(3)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let Some(first) = words.first() else {
        return false;
    };
    // Numbered answers to numbered proposals ("1, ja; 2. ja; 3: …") accept what they say yes to.
    let numbered = !first.is_empty()
        && first.chars().all(|c| c.is_ascii_digit())
        && reply
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| ACCEPTS.contains(&w.to_lowercase().as_str()));
    reply.split_whitespace().count() <= 40
        && (numbered || ACCEPTS.contains(&first.as_str()))
        && !words.get(1).is_some_and(|w| BUTS.contains(&w.as_str()))
}

/// The numbers a reply of numbered answers says yes to ("1, ja; 2. ja; 3: lieber …" → 1 and 2),
/// or `None` when the reply does not answer by number.
fn numbered_answers(reply: &str) -> Option<Vec<usize>> {
    let mut yes = Vec::new();
    let mut any = false;
    for part in reply.split([';', '\n']) {
        let part = part.trim();
        let digits = part.chars().take_while(char::is_ascii_digit).count();
        let Ok(n) = part[..digits].parse::<usize>() else {
            continue;
        };
        any = true;
        let answer = part[digits..]
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("")
            .to_lowercase();
        if ACCEPTS.contains(&answer.as_str()) {
            yes.push(n);
        }
    }
    any.then_some(yes)
}

/// Decisions the person made by accepting the assistant's proposal. The proposal is the question
/// that ends the assistant's message: the items of a list it introduces ("Soll ich den Plan so
/// vereinfachen:" then the list), else the sentence before it when that states a choice ("Wir
/// sollten Phase 1 überarbeiten."), else the question itself when it names what to do. A
/// question that only points back ("Shall I do that?") names nothing and gives nothing.
pub fn accepted_proposal(proposal: &str, reply: &str) -> Vec<Detected> {
    if !accepts(reply) {
        return Vec::new();
    }
    let context = excerpt(proposal);
    let why = format!(
        "the agent proposed it and the person accepted (\"{}\")",
        excerpt(reply)
    );
    let lines: Vec<&str> = proposal
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("---"))
        .collect();
    let opens = |s: &str| {
        let lower = s.trim_start_matches(['*', '#', ' ']).to_lowercase();
        PROPOSAL_OPENERS.iter().any(|o| lower.starts_with(o))
    };
    let item_of = |l: &str| -> Option<String> {
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        let rest = l
            .strip_prefix("- ")
            .or_else(|| l.strip_prefix("* "))
            .or_else(|| (digits > 0).then(|| l[digits..].trim_start_matches(['.', ')'])))?;
        Some(rest.replace("**", "").trim().to_owned())
    };
    let made = |text: String| Detected {
        text,
        context: context.clone(),
        why: why.clone(),
    };
    // A list introduced by the proposal: "Soll ich den Plan so vereinfachen:" and its items.
    if let Some(at) = lines
        .iter()
        .rposition(|l| opens(l) && !l.contains('?') && l.trim_end_matches('*').ends_with(':'))
    {
        let chosen = numbered_answers(reply);
        let items: Vec<Detected> = lines[at + 1..]
            .iter()
            .map_while(|l| item_of(l))
            .enumerate()
            .filter(|(n, _)| chosen.as_ref().is_none_or(|c| c.contains(&(n + 1))))
            .map(|(_, i)| i)
            .filter(|i| i.split_whitespace().count() >= 2)
            .map(made)
            .collect();
        if !items.is_empty() {
            return items;
        }
    }
    let all = sentences(proposal);
    // The proposing question closes the message (a line or two of detail may follow it).
    let Some(at) = all.iter().rposition(|s| asks(s) && opens(s)) else {
        return Vec::new();
    };
    if all.len() - at > 3 {
        return Vec::new();
    }
    if let Some(before) = at.checked_sub(1).map(|i| &all[i])
        && !asks(before)
        && !unusable(before, Speaker::User)
        && (has_cue(recommendations(), before) || has_cue(decisions(), before))
    {
        return vec![made(before.clone())];
    }
    let question = &all[at];
    // "Shall I do X, or would you rather Y?" answered "yes" does not say which.
    let lower = question.to_lowercase();
    let either = [" or ", " oder ", " o "].iter().any(|w| lower.contains(w));
    if !either
        && question.split_whitespace().count() >= 5
        && !unusable(question, Speaker::Assistant)
    {
        return vec![made(question.clone())];
    }
    Vec::new()
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
mod held_out;
#[cfg(test)]
mod tests;
