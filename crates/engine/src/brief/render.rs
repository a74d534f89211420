//! The brief's text forms: the temporal awareness block (CSA §12.2), the compact memory-use
//! preamble (concept model §15), the `<card type=… tag=…>` blocks (CSA §6), and the JSON a
//! SessionStart hook returns to Claude Code or Codex.
//!
//! The fixed texts here carry their BPE counts as constants, checked against the tokenizer by
//! the tests (for every date and window length they can take), so a brief is counted without
//! loading the tokenizer.

use serde_json::json;

use super::Brief;
use crate::base::tokens::Line;

/// CSA §12.2, with `{current_date}` as an ISO date (every ISO date counts the same).
const TEMPORAL: &str = "Today is {current_date}. Your training data has a cutoff and may not\n\
reflect recent events or the latest available information. When uncertain\n\
whether your knowledge is current, use the web_search tool to verify\n\
before answering. Search rather than guess.\n\n";
const TEMPORAL_TOKENS: u32 = 54;

/// The memory-use contract of concept model §15, cut down to the card tags.
const PREAMBLE: &str = "[ELNOR MEMORY CONTEXT — USE RULES]\n\
Use each card according to its tag.\n\
- resume: where this work stood when earlier sessions ended (Last, Now, Next, Decided); orientation, not evidence.\n\
- last_session: the latest session quoted (what was asked, said, run and changed), then the sessions before it.\n\
- recent_activity: the person's other recent work; do not assume it bears on this request.\n\
- living_memory: the person's stable facts and preferences; follow them.\n\
[/ELNOR MEMORY CONTEXT]\n\n";
const PREAMBLE_TOKENS: u32 = 112;

/// Card wrapper lines per card tag, and their counts (open line + `</card>` line).
fn card_open(tag: &str) -> &'static str {
    match tag {
        "resume" => "<card type=\"continuity\" tag=\"resume\">",
        "last_session" => "<card type=\"continuity\" tag=\"last_session\">",
        "recent_activity" => "<card type=\"recent_activity\" tag=\"recent_activity\">",
        _ => "<card type=\"living_memory\" tag=\"living_memory\">",
    }
}
const CARD_CLOSE: &str = "</card>";

pub(super) fn card_wrapper_tokens(tag: &str) -> u32 {
    match tag {
        "resume" => 14,
        _ => 15,
    }
}

/// Tier 2's title line.
pub(super) fn tier2_title(window_days: u32, excluding_current: bool) -> Line {
    if excluding_current {
        Line::counted(
            format!("Past {window_days} days (excluding the current work context):"),
            11,
        )
    } else {
        Line::counted(format!("Past {window_days} days:"), 5)
    }
}

/// Tokens around the cards: the temporal block, and the preamble when there are cards.
pub(super) fn envelope_tokens(has_cards: bool) -> u32 {
    TEMPORAL_TOKENS + if has_cards { PREAMBLE_TOKENS } else { 0 }
}

fn temporal(brief: &Brief) -> String {
    TEMPORAL.replace(
        "{current_date}",
        &brief.today.format("%Y-%m-%d").to_string(),
    )
}

/// The brief as text: temporal block, preamble, cards.
pub fn text(brief: &Brief) -> String {
    let mut out = temporal(brief);
    if brief.cards.is_empty() {
        return out;
    }
    out.push_str(PREAMBLE);
    for card in &brief.cards {
        out.push_str(card_open(card.tag));
        out.push('\n');
        for line in &card.lines {
            out.push_str(&line.text);
            out.push('\n');
        }
        out.push_str(CARD_CLOSE);
        out.push('\n');
    }
    out
}

/// The most characters a SessionStart hook's `additionalContext` may hold: Claude Code replaces
/// longer hook output by a preview and a file path, which an agent would not read.
pub const HOOK_CONTEXT_MAX_CHARS: usize = 10_000;

/// The most tokens the brief may cost a Codex session's context through its SessionStart hook.
pub const HOOK_CONTEXT_MAX_TOKENS: u32 = 2_500;

/// The JSON a SessionStart hook prints: Claude Code's documented
/// `hookSpecificOutput.additionalContext`, which Codex's hook runner reads in the same shape (and
/// validates strictly: no other keys). The brief is budgeted far below both harnesses' limits
/// ([`HOOK_CONTEXT_MAX_CHARS`], [`HOOK_CONTEXT_MAX_TOKENS`]); should it ever exceed one, it is cut
/// at a line and says so, rather than being swapped for a file path or rejected by the harness.
pub fn hook_output(brief: &Brief) -> serde_json::Value {
    let context = within_hook_limits(text(brief), brief.total_tokens + brief.envelope_tokens);
    json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": context,
        }
    })
}

/// The note a cut brief ends with.
const CUT_NOTE: &str = "[ELNOR: the brief was cut to fit the hook's size limit]\n";

/// `text` (counted at `tokens`) within both hook limits: unchanged when it fits, else cut at the
/// last whole line that leaves room for [`CUT_NOTE`].
pub(crate) fn within_hook_limits(text: String, tokens: u32) -> String {
    let chars = text.chars().count();
    if chars <= HOOK_CONTEXT_MAX_CHARS && tokens <= HOOK_CONTEXT_MAX_TOKENS {
        return text;
    }
    // Characters per token as this text spends them, so a token overrun becomes a character cap.
    let by_tokens = if tokens > HOOK_CONTEXT_MAX_TOKENS {
        (chars as u64 * u64::from(HOOK_CONTEXT_MAX_TOKENS) / u64::from(tokens.max(1))) as usize
    } else {
        chars
    };
    let cap = HOOK_CONTEXT_MAX_CHARS
        .min(by_tokens)
        .saturating_sub(CUT_NOTE.chars().count());
    let end = text.char_indices().nth(cap).map_or(text.len(), |(i, _)| i);
    let kept = match text[..end].rfind('\n') {
        Some(nl) => &text[..=nl],
        None => &text[..end],
    };
    format!("{kept}{CUT_NOTE}")
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn a_brief_within_the_limits_is_untouched_and_one_past_them_is_cut_at_a_line() {
        let small = "line one\nline two\n".to_owned();
        assert_eq!(within_hook_limits(small.clone(), 10), small);

        let long: String = (0..2_000).map(|i| format!("line {i}\n")).collect();
        let cut = within_hook_limits(long.clone(), 100);
        assert!(
            cut.chars().count() <= HOOK_CONTEXT_MAX_CHARS,
            "{}",
            cut.len()
        );
        assert!(cut.ends_with(CUT_NOTE));
        let body = cut.strip_suffix(CUT_NOTE).unwrap();
        assert!(long.starts_with(body) && body.ends_with('\n'));

        // Few characters but too many tokens (a script that spends several tokens a character).
        let dense: String = (0..400).map(|i| format!("行{i}\n")).collect();
        let cut = within_hook_limits(dense.clone(), 5_000);
        let kept = cut.strip_suffix(CUT_NOTE).unwrap().chars().count();
        assert!(kept <= dense.chars().count() / 2, "{kept}");
    }
}

#[cfg(test)]
pub(super) mod consts {
    //! The fixed texts, for the tests that check their counts.
    pub const TEMPORAL: &str = super::TEMPORAL;
    pub const TEMPORAL_TOKENS: u32 = super::TEMPORAL_TOKENS;
    pub const PREAMBLE: &str = super::PREAMBLE;
    pub const PREAMBLE_TOKENS: u32 = super::PREAMBLE_TOKENS;
    pub const CARD_CLOSE: &str = super::CARD_CLOSE;
    /// The card tags, in the order cards are shown.
    pub const TAGS: [&str; 4] = ["resume", "last_session", "recent_activity", "living_memory"];
    pub fn card_open(tag: &str) -> &'static str {
        super::card_open(tag)
    }
}
