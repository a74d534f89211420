//! Heads (SPEC §10, CLOSURE §2, §6, §7): short Markdown files an agent can be given, or read,
//! to know where the work stands without a transcript dump.
//!
//! - The global head `heads/MEMORY.md` (Tier 1): what matters now across every active work
//!   context — next actions, commitments, blockers and open loops, durable constraints, and one
//!   line per context — under a hard token cap, [`GLOBAL_TOKEN_CAP`].
//! - One thread head per work context, `heads/threads/{work_context_id}.md` (Tier 2): its status,
//!   decisions, open loops, next action and lineage, under [`THREAD_TOKEN_CAP`].
//!
//! Both are rendered from the continuity logs and the graph (Tier 3 stays where it is). Every
//! line cites where it came from in square brackets: the session summary an entry was captured
//! from (`[ss_…]`, a node of the lineage DAG), else the entry's id, or a durable node's id. What
//! did not fit under the cap is named, bounded, in a final "Left out" section.
//!
//! This module holds the types and the rendering ([`Head`], [`HeadScope`], [`HeadLine`]); what
//! goes into each head is built in [`build`], and every write (the store's own head files and a
//! marked block in another tool's file, both under a lease, with deferral and retry) is in
//! [`write`].
//!
//! Architecture Invariant: heads are derived data. The same store at the same `now` renders the
//! same bytes (no clock stamp is written), `heads/` may be deleted at any time and is rebuilt
//! identically by a refresh, and the brief never reads or writes them.

pub(crate) mod build;
pub(crate) mod overview;
pub(crate) mod write;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::base::tokens::count_u32;

pub use overview::{KeptEdit, Overview, ThreadHeadSummary, overview};
pub use write::{
    BLOCK_TAG, DeferredWrite, EditProposal, Failure, HeadView, LEASE_TTL_SECONDS, LeaseTarget,
    Refresh, WriteReport, WriteStatus, acquire_lease, path, refresh, retry_deferred, show,
    write_to,
};

/// The global head's hard cap in cl100k tokens, its title and "Left out" section included. It is
/// about three times the brief's whole budget: the head is read by an agent that chose to read
/// it, not pushed into every start, but it must still fit in one glance.
pub const GLOBAL_TOKEN_CAP: u32 = 1_200;
/// A thread head's hard cap in cl100k tokens: one context needs less room than all of them.
pub const THREAD_TOKEN_CAP: u32 = 800;
/// How many ids the "Left out" section names per kind; the rest are counted. This bounds the
/// section itself, so the list of what did not fit can never push the head over its cap.
pub const LEFT_OUT_IDS: usize = 2;

/// Which head: the global one, or one work context's thread head.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadScope {
    Global,
    Thread(WorkContextId),
}

impl HeadScope {
    /// The scope's stable key (CLOSURE §6): `global` or `thread-{work_context_id}`. It names the
    /// lease, the deferred-write record and the scope of a marked block, and holds only the
    /// characters a work context id may hold.
    pub fn key(&self) -> String {
        match self {
            HeadScope::Global => "global".into(),
            HeadScope::Thread(wc) => format!("thread-{wc}"),
        }
    }

    /// Parses a [`HeadScope::key`].
    pub fn from_key(key: &str) -> Result<HeadScope> {
        match key {
            "global" => Ok(HeadScope::Global),
            _ => match key.strip_prefix("thread-") {
                Some(wc) => Ok(HeadScope::Thread(WorkContextId::new(wc)?)),
                None => Err(Error::InvalidInput(format!(
                    "unknown head scope {key:?}; `global` or `thread-WORK_CONTEXT_ID`"
                ))),
            },
        }
    }
}

/// What a line of a head is; each kind is one section, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// A thread's phase and last activity.
    Status,
    NextAction,
    /// A live obligation (a durable node).
    Commitment,
    /// An unresolved open question.
    OpenLoop,
    /// A key decision that no later one superseded.
    Decision,
    /// A live memory directive (a durable node): a constraint every agent keeps.
    Constraint,
    /// What another work context said that concerns this one (a cross-conversation update, the
    /// explicit relevance signal CLOSURE §6 allows across threads).
    Update,
    /// One active work context, in the global head.
    Context,
    /// A session summary of the thread, newest first.
    Lineage,
}

impl LineKind {
    /// The section heading.
    pub fn heading(self) -> &'static str {
        match self {
            LineKind::Status => "## Status",
            LineKind::NextAction => "## Next actions",
            LineKind::Commitment => "## Commitments",
            LineKind::OpenLoop => "## Blockers and open loops",
            LineKind::Decision => "## Decisions",
            LineKind::Constraint => "## Durable constraints",
            LineKind::Update => "## From other contexts",
            LineKind::Context => "## Work contexts",
            LineKind::Lineage => "## Lineage",
        }
    }

    /// The kind's name in the "Left out" section.
    pub fn name(self) -> &'static str {
        match self {
            LineKind::Status => "status",
            LineKind::NextAction => "next actions",
            LineKind::Commitment => "commitments",
            LineKind::OpenLoop => "open loops",
            LineKind::Decision => "decisions",
            LineKind::Constraint => "constraints",
            LineKind::Update => "updates",
            LineKind::Context => "work contexts",
            LineKind::Lineage => "lineage",
        }
    }
}

/// One line of a head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeadLine {
    pub kind: LineKind,
    /// The line's words, without its citations.
    pub text: String,
    /// What the line cites, shown in brackets after the text: session summary ids (`ss_…`),
    /// else entry ids (`ce_…`), or durable node ids (`ob_…`, `md_…`). Empty only for a thread's
    /// status line about a context with nothing captured.
    pub citations: Vec<String>,
    /// The entry or node the line came from, which the "Left out" section names when it does not
    /// fit.
    pub source: String,
}

impl HeadLine {
    /// The line as written: `- text [cite] [cite]`.
    pub fn render(&self) -> String {
        let mut out = format!("- {}", self.text);
        for c in &self.citations {
            out.push_str(&format!(" [{c}]"));
        }
        out
    }
}

/// The lines of one kind that did not fit under the cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    pub kind: LineKind,
    pub count: usize,
    /// The first [`LEFT_OUT_IDS`] of their sources, in the order they would have been shown.
    pub ids: Vec<String>,
}

/// A head, rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Head {
    pub scope: HeadScope,
    pub title: String,
    /// The lines shown, in section order.
    pub lines: Vec<HeadLine>,
    /// What did not fit, by kind.
    pub left_out: Vec<LeftOut>,
    /// The cl100k token count of [`Head::text`].
    pub tokens: u32,
    pub cap: u32,
    /// The Markdown written to the head's file (and inside a marked block).
    pub text: String,
}

/// Assembles a head from candidate lines in priority order (most important first), keeping what
/// fits under `cap` (`overflow` lines are left out whatever room there is) with the title, the section headings and the "Left out" section counted.
///
/// Lines are admitted greedily, each counted with its newline (cl100k's counts of whole lines
/// add up, see `base::tokens`); a line that does not fit is left out, and a shorter later one may
/// still fit. The "Left out" section is then added, and while the whole text is over the cap the
/// last admitted line moves to the left-out list too. The result is checked by counting the whole
/// text once, so the cap holds even if a count did not add up.
pub(crate) fn assemble(
    scope: HeadScope,
    title: String,
    candidates: Vec<HeadLine>,
    overflow: Vec<HeadLine>,
    cap: u32,
) -> Head {
    let title_tokens = count_u32(&format!("{title}\n"));
    let mut used = title_tokens;
    let admissible = candidates.len();
    let mut candidates = candidates;
    candidates.extend(overflow);
    let mut shown = vec![false; candidates.len()];
    let mut kinds_shown: Vec<LineKind> = Vec::new();
    for (i, line) in candidates.iter().enumerate().take(admissible) {
        let mut cost = count_u32(&format!("{}\n", line.render()));
        if !kinds_shown.contains(&line.kind) {
            cost += count_u32(&format!("{}\n", line.kind.heading()));
        }
        if used + cost <= cap {
            used += cost;
            shown[i] = true;
            if !kinds_shown.contains(&line.kind) {
                kinds_shown.push(line.kind);
            }
        }
    }
    loop {
        let head = render(&scope, &title, &candidates, &shown, cap);
        if head.tokens <= cap {
            return head;
        }
        match shown.iter().rposition(|s| *s) {
            Some(last) => shown[last] = false,
            // Nothing left to drop: the title and the left-out list alone exceed the cap, which
            // the caps' sizes rule out; return what there is rather than loop.
            None => return head,
        }
    }
}

fn render(
    scope: &HeadScope,
    title: &str,
    candidates: &[HeadLine],
    shown: &[bool],
    cap: u32,
) -> Head {
    let mut lines: Vec<HeadLine> = Vec::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    for (line, shown) in candidates.iter().zip(shown) {
        if *shown {
            lines.push(line.clone());
            continue;
        }
        match left_out.iter_mut().find(|l| l.kind == line.kind) {
            Some(l) => {
                l.count += 1;
                if l.ids.len() < LEFT_OUT_IDS {
                    l.ids.push(line.source.clone());
                }
            }
            None => left_out.push(LeftOut {
                kind: line.kind,
                count: 1,
                ids: vec![line.source.clone()],
            }),
        }
    }
    // Sections in kind order; lines within a section keep their priority order.
    lines.sort_by_key(|l| l.kind);
    left_out.sort_by_key(|l| l.kind);
    let mut text = format!("{title}\n");
    let mut section = None;
    for line in &lines {
        if section != Some(line.kind) {
            text.push_str(line.kind.heading());
            text.push('\n');
            section = Some(line.kind);
        }
        text.push_str(&line.render());
        text.push('\n');
    }
    if !left_out.is_empty() {
        let total: usize = left_out.iter().map(|l| l.count).sum();
        text.push_str(&format!("## Left out ({total})\n"));
        for l in &left_out {
            let more = l.count - l.ids.len();
            let mut ids = l.ids.join(", ");
            if more > 0 {
                ids.push_str(&format!(" and {more} more"));
            }
            text.push_str(&format!("- {}: {} ({ids})\n", l.kind.name(), l.count));
        }
    }
    Head {
        scope: scope.clone(),
        title: title.to_owned(),
        lines,
        left_out,
        tokens: count_u32(&text),
        cap,
        text,
    }
}

#[cfg(test)]
mod tests;
