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

/// The memory-use contract of concept model §15, cut down to the three card tags.
const PREAMBLE: &str = "[ELNOR MEMORY CONTEXT — USE RULES]\n\
Use each card according to its tag.\n\
- resume: where this work stood when earlier sessions ended; orientation, not evidence. Items marked (heuristic) are low-confidence.\n\
- recent_activity: the person's other recent work; do not assume it bears on this request.\n\
- living_memory: the person's stable facts and preferences; follow them.\n\
[/ELNOR MEMORY CONTEXT]\n\n";
const PREAMBLE_TOKENS: u32 = 88;

/// Card wrapper lines per tier, and their counts (open line + `</card>` line).
fn card_open(tier: u8) -> &'static str {
    match tier {
        1 => "<card type=\"continuity\" tag=\"resume\">",
        2 => "<card type=\"recent_activity\" tag=\"recent_activity\">",
        _ => "<card type=\"living_memory\" tag=\"living_memory\">",
    }
}
const CARD_CLOSE: &str = "</card>";

pub(super) fn card_wrapper_tokens(tier: u8) -> u32 {
    match tier {
        1 => 14,
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
        out.push_str(card_open(card.tier));
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

/// The JSON a SessionStart hook prints: Claude Code's documented
/// `hookSpecificOutput.additionalContext`, which Codex's hook runner reads in the same shape (and
/// validates strictly: no other keys).
pub fn hook_output(brief: &Brief) -> serde_json::Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": text(brief),
        }
    })
}

#[cfg(test)]
pub(super) mod consts {
    //! The fixed texts, for the tests that check their counts.
    pub const TEMPORAL: &str = super::TEMPORAL;
    pub const TEMPORAL_TOKENS: u32 = super::TEMPORAL_TOKENS;
    pub const PREAMBLE: &str = super::PREAMBLE;
    pub const PREAMBLE_TOKENS: u32 = super::PREAMBLE_TOKENS;
    pub const CARD_CLOSE: &str = super::CARD_CLOSE;
    pub fn card_open(tier: u8) -> &'static str {
        super::card_open(tier)
    }
}
