//! The Lineage page's sentences: what a node is ("Condensation of 8 summaries, level 1"), when
//! ("3 hours ago · 2026-05-01 14:02 UTC"), how it was made and how sure its coverage is, said the
//! same way by the node card and by the rows around it.

use elnor_types::LineageNodeKind;

use crate::components::{harness_name, short_time};

/// The kind of a node as a person reads it; `covers` is how many nodes a condensation covers.
pub(super) fn kind_words(kind: LineageNodeKind, level: u32, covers: usize) -> String {
    match kind {
        LineageNodeKind::SessionSummary => "Session summary".to_owned(),
        LineageNodeKind::CompactionSummary => {
            "Compaction summary (written by the harness)".to_owned()
        }
        LineageNodeKind::Condensation => match covers {
            0 => format!("Condensation, level {level}"),
            1 => format!("Condensation of 1 summary, level {level}"),
            n => format!("Condensation of {n} summaries, level {level}"),
        },
        LineageNodeKind::Knowledge => "Approved knowledge".to_owned(),
    }
}

/// The kind in short, for a row in a list where the level is shown beside it.
pub(super) fn kind_short(kind: LineageNodeKind) -> &'static str {
    match kind {
        LineageNodeKind::SessionSummary => "Session summary",
        LineageNodeKind::CompactionSummary => "Compaction summary",
        LineageNodeKind::Condensation => "Condensation",
        LineageNodeKind::Knowledge => "Approved knowledge",
    }
}

/// The kind as the page's `data-kind` attributes carry it (the wire name).
pub(super) fn kind_attr(kind: LineageNodeKind) -> &'static str {
    match kind {
        LineageNodeKind::SessionSummary => "session_summary",
        LineageNodeKind::CompactionSummary => "compaction_summary",
        LineageNodeKind::Condensation => "condensation",
        LineageNodeKind::Knowledge => "knowledge",
    }
}

/// An agent scope (`harness` or `harness:agent`) as people call it: "Claude Code", "OpenClaw
/// (agent main)".
pub(super) fn agent_words(scope: &str) -> String {
    match scope.split_once(':') {
        Some((harness, agent)) => format!("{} (agent {agent})", harness_name(harness)),
        None => harness_name(scope).to_owned(),
    }
}

/// How the text was made, in words.
pub(super) fn method_words(method: &str, model: Option<&str>) -> String {
    match (method, model) {
        ("llm", Some(model)) => format!("written by the model {model}"),
        ("llm", None) => "written by the model".to_owned(),
        ("deterministic", _) => "put together without a model (deterministic capture)".to_owned(),
        ("harness", _) => "written by the agent's harness when it compacted the session".to_owned(),
        ("review", _) => "approved by you in Review".to_owned(),
        (other, Some(model)) => format!("made by {other} ({model})"),
        (other, None) => format!("made by {other}"),
    }
}

/// How sure the node's coverage is: recorded when it was made, or worked out afterwards.
pub(super) fn coverage_words(confidence: f64) -> (&'static str, String) {
    if confidence >= 1.0 {
        (
            "exact",
            "Exact: what it covers was recorded when it was made.".to_owned(),
        )
    } else {
        (
            "worked out",
            format!(
                "Worked out: what it covers was reconstructed afterwards from the session's \
                 other summaries, so its edges may be off by a few turns (confidence {:.0}%).",
                confidence * 100.0
            ),
        )
    }
}

/// A moment as relative and absolute time: "3 hours ago · 2026-05-01 14:02 UTC".
pub(super) fn when(rfc3339: &str) -> String {
    let at = js_sys::Date::parse(rfc3339);
    let absolute = format!("{} UTC", short_time(rfc3339));
    if at.is_nan() {
        return absolute;
    }
    let minutes = ((js_sys::Date::now() - at) / 60_000.0).floor() as i64;
    format!("{} · {absolute}", ago(minutes))
}

/// How long ago, at the coarsest unit that is not zero; a moment in the future (a clock set
/// differently) reads as just now rather than as a negative age.
fn ago(minutes: i64) -> String {
    let plural = |n: i64, noun: &str| {
        if n == 1 {
            format!("1 {noun} ago")
        } else {
            format!("{n} {noun}s ago")
        }
    };
    match minutes {
        ..1 => "just now".to_owned(),
        1..60 => plural(minutes, "minute"),
        60..2880 => plural(minutes / 60, "hour"),
        m if m < 61 * 1440 => plural(m / 1440, "day"),
        m => format!("about {}", plural((m + 15 * 1440) / (30 * 1440), "month")),
    }
}

/// `n` with its noun, plural unless it is one.
pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
