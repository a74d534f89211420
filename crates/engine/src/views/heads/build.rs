//! What goes into each head: one work context's state read from its own continuity log and its
//! own durable nodes (a thread), and the global head's pick across the active contexts.
//!
//! Anti-bleed (CLOSURE §6): a thread head reads only its own context's log and the nodes bound to
//! it. What another context said reaches it only as the cross-conversation updates the capture
//! delivered into its log, which are the explicit relevance signals the closure allows. The
//! global head leaves out local-only contexts entirely (their content never leaves the machine
//! in a file an agent may send to a cloud model).
//!
//! Everything is ordered by data, ties broken by id, and nothing reads the clock except through
//! `now`, which only filters (expired entries, entries from after `now`, the active window).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use chrono::{DateTime, Duration, Utc};
use rusqlite::OptionalExtension;

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::base::tokens::condense;
use crate::continuity::{ContinuityEntry, EntryContent, WorkPhase};
use crate::graph::nodes::{Node, NodeKind};
use crate::graph::store::Store;

use super::{GLOBAL_TOKEN_CAP, Head, HeadLine, HeadScope, LineKind, THREAD_TOKEN_CAP, assemble};

/// Characters of an item's text kept on its line.
const ITEM_CHARS: usize = 140;
/// Characters of a session summary's first sentence kept on its line.
const SUMMARY_CHARS: usize = 110;
/// Characters of a context's name.
const NAME_CHARS: usize = 48;
/// Session summaries a thread head lists under "Lineage" before the rest count as left out.
const LINEAGE_LINES: usize = 8;
/// Cross-conversation updates a thread head shows.
const UPDATE_LINES: usize = 3;

/// One work context's state at `now`, from its log and its nodes.
struct Thread {
    wc: WorkContextId,
    name: String,
    local_only: bool,
    last_activity: Option<DateTime<Utc>>,
    phase: Option<(WorkPhase, Vec<String>)>,
    /// Session summaries, newest first: (when, the line).
    sessions: Vec<(DateTime<Utc>, HeadLine)>,
    decisions: Vec<HeadLine>,
    /// Unresolved questions, most referenced first, then newest.
    open_loops: Vec<HeadLine>,
    updates: Vec<HeadLine>,
    /// Live obligations bound to this context, soonest due first.
    obligations: Vec<HeadLine>,
    next_action: Option<HeadLine>,
}

/// What an entry's line cites: the session summary it was captured from, else its own id.
fn citations(e: &ContinuityEntry) -> Vec<String> {
    if let Some(ss) = e.linked_doc73_session_summary_id.as_ref() {
        return vec![ss.clone()];
    }
    if let EntryContent::SessionSummaryRef(s) = &e.content {
        return vec![s.doc73_session_summary_id.clone()];
    }
    vec![e.entry_id.to_string()]
}

fn entry_line(kind: LineKind, e: &ContinuityEntry, text: String) -> HeadLine {
    HeadLine {
        kind,
        text,
        citations: citations(e),
        source: e.entry_id.to_string(),
    }
}

/// The first sentence of a summary, condensed.
fn first_sentence(text: &str) -> String {
    let flat = crate::base::tokens::one_line(text);
    let cut = [". ", "! ", "? "]
        .iter()
        .filter_map(|p| flat.find(p).map(|i| i + 1))
        .min()
        .unwrap_or(flat.len());
    condense(&flat[..cut], SUMMARY_CHARS)
}

pub(crate) fn phase_name(p: WorkPhase) -> &'static str {
    match p {
        WorkPhase::Research => "research",
        WorkPhase::Drafting => "drafting",
        WorkPhase::Review => "review",
        WorkPhase::Revision => "revision",
        WorkPhase::WaitingForExternal => "waiting for someone else",
        WorkPhase::Completed => "completed",
        WorkPhase::Paused => "paused",
        WorkPhase::Unknown => "unknown",
    }
}

fn obligation_line(n: &Node) -> Option<HeadLine> {
    let text = n.warrant.render(&condense(&n.text, ITEM_CHARS))?;
    let text = match n.due_at.as_deref() {
        Some(due) => format!("{text} (due {})", due.get(..10).unwrap_or(due)),
        None => text,
    };
    Some(HeadLine {
        kind: LineKind::Commitment,
        text,
        citations: vec![n.node_id.to_string()],
        source: n.node_id.to_string(),
    })
}

/// Reads one context's state: its log's unexpired entries up to `now`, and `nodes` bound to it.
fn thread(store: &Store, wc: &WorkContextId, nodes: &[Node], now: DateTime<Utc>) -> Result<Thread> {
    let graph = store.graph();
    let (name, local_only) =
        graph.with_conn_result(|c| crate::graph::contexts::name_and_local_only_in(c, wc))?;
    let mut entries: Vec<ContinuityEntry> = store
        .log(wc)
        .read()?
        .entries
        .into_iter()
        .filter(|e| !e.is_expired(now) && e.happened_at() <= now)
        .collect();
    // Newest first, ties by id, so every pick below is deterministic.
    entries.sort_by(|a, b| {
        b.happened_at()
            .cmp(&a.happened_at())
            .then_with(|| a.entry_id.cmp(&b.entry_id))
    });
    let refs: BTreeMap<String, i64> = graph.with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT entry_id, COUNT(*) FROM entry_references WHERE work_context_id = ?1
              GROUP BY entry_id",
        )?;
        stmt.query_map([wc.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect()
    })?;
    let mut t = Thread {
        wc: wc.clone(),
        name,
        local_only,
        last_activity: entries.first().map(ContinuityEntry::happened_at),
        phase: None,
        sessions: Vec::new(),
        decisions: Vec::new(),
        open_loops: Vec::new(),
        updates: Vec::new(),
        obligations: Vec::new(),
        next_action: None,
    };
    let mut questions: Vec<(i64, &ContinuityEntry, String)> = Vec::new();
    let mut seen_questions = BTreeSet::new();
    for e in &entries {
        match &e.content {
            EntryContent::WorkPhaseChange(p) if t.phase.is_none() => {
                t.phase = Some((p.new_phase, citations(e)));
            }
            EntryContent::SessionSummaryRef(s) => {
                let text = graph
                    .with_conn_result(|c| {
                        c.query_row(
                            "SELECT text FROM session_summaries
                              WHERE doc73_session_summary_id = ?1",
                            [&s.doc73_session_summary_id],
                            |r| r.get::<_, String>(0),
                        )
                        .optional()
                    })?
                    .map(|s| first_sentence(&s))
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| format!("{} turns", s.turn_count));
                let line = HeadLine {
                    kind: LineKind::Lineage,
                    text: format!("{}: {text}", e.happened_at().format("%Y-%m-%d")),
                    citations: vec![s.doc73_session_summary_id.clone()],
                    source: e.entry_id.to_string(),
                };
                t.sessions.push((e.happened_at(), line));
            }
            EntryContent::KeyDecision(d) if d.superseded_by.is_none() => {
                t.decisions.push(entry_line(
                    LineKind::Decision,
                    e,
                    condense(&d.decision, ITEM_CHARS),
                ));
            }
            // The same question asked in several sessions is one open loop: its newest asking.
            EntryContent::OpenQuestion(q)
                if !q.resolved && seen_questions.insert(q.question.to_lowercase()) =>
            {
                let n = refs.get(e.entry_id.as_str()).copied().unwrap_or(0);
                questions.push((n, e, condense(&q.question, ITEM_CHARS)));
            }
            EntryContent::CrossConversationUpdate(u) if t.updates.len() < UPDATE_LINES => {
                t.updates.push(entry_line(
                    LineKind::Update,
                    e,
                    condense(&u.summary, ITEM_CHARS),
                ));
            }
            _ => {}
        }
    }
    // Most referenced first; `entries` was newest first and the sort is stable.
    questions.sort_by_key(|q| std::cmp::Reverse(q.0));
    t.open_loops = questions
        .into_iter()
        .map(|(_, e, text)| entry_line(LineKind::OpenLoop, e, text))
        .collect();
    let mut obligations: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Obligation && n.work_context_id.as_ref() == Some(wc))
        .collect();
    sort_obligations(&mut obligations);
    t.obligations = obligations
        .into_iter()
        .filter_map(obligation_line)
        .collect();
    // The next action: the soonest commitment, else the open loop that matters most.
    t.next_action = t
        .obligations
        .first()
        .or(t.open_loops.first())
        .map(|l| HeadLine {
            kind: LineKind::NextAction,
            text: match l.kind {
                LineKind::OpenLoop => format!("resolve: {}", l.text),
                _ => l.text.clone(),
            },
            ..l.clone()
        });
    Ok(t)
}

/// Soonest due first, undated last, then by id.
fn sort_obligations(list: &mut [&Node]) {
    list.sort_by(|a, b| {
        (a.due_at.is_none(), &a.due_at, &a.node_id).cmp(&(
            b.due_at.is_none(),
            &b.due_at,
            &b.node_id,
        ))
    });
}

/// Live durable nodes, read once per head.
fn live_nodes(store: &Store) -> Result<Vec<Node>> {
    store.graph().nodes(false)
}

/// Refuses a context the store does not know (no log file and no graph row).
pub(crate) fn check_exists(store: &Store, wc: &WorkContextId) -> Result<()> {
    if store.log(wc).path().exists() {
        return Ok(());
    }
    store.graph().work_context(wc.as_str()).map(|_| ())
}

/// Builds the head of `scope` at `now`.
pub(crate) fn head(store: &Store, scope: &HeadScope, now: DateTime<Utc>) -> Result<Head> {
    match scope {
        HeadScope::Global => global(store, now),
        HeadScope::Thread(wc) => thread_head(store, wc, now),
    }
}

fn thread_head(store: &Store, wc: &WorkContextId, now: DateTime<Utc>) -> Result<Head> {
    check_exists(store, wc)?;
    let nodes = live_nodes(store)?;
    let t = thread(store, wc, &nodes, now)?;
    let mut lines = Vec::new();
    let last = t.sessions.first().map(|(_, l)| l.citations.clone());
    match (&t.phase, t.last_activity) {
        (_, None) => lines.push(HeadLine {
            kind: LineKind::Status,
            text: "nothing captured in this context yet".into(),
            citations: Vec::new(),
            source: wc.to_string(),
        }),
        (phase, Some(at)) => {
            if let Some((p, cites)) = phase.as_ref().filter(|(p, _)| *p != WorkPhase::Unknown) {
                lines.push(HeadLine {
                    kind: LineKind::Status,
                    text: format!("phase: {}", phase_name(*p)),
                    citations: cites.clone(),
                    source: wc.to_string(),
                });
            }
            lines.push(HeadLine {
                kind: LineKind::Status,
                text: format!(
                    "last activity {}; {} session(s) captured",
                    at.format("%Y-%m-%d"),
                    t.sessions.len()
                ),
                citations: last.unwrap_or_default(),
                source: wc.to_string(),
            });
        }
    }
    let next_source = t.next_action.as_ref().map(|l| l.source.clone());
    lines.extend(t.next_action.clone());
    lines.extend(
        t.obligations
            .iter()
            .chain(&t.open_loops)
            .filter(|l| Some(&l.source) != next_source.as_ref())
            .cloned(),
    );
    lines.extend(t.decisions.iter().cloned());
    lines.extend(t.updates.iter().cloned());
    lines.extend(
        t.sessions
            .iter()
            .take(LINEAGE_LINES)
            .map(|(_, l)| l.clone()),
    );
    // Sessions beyond the lineage list are counted as left out, so none vanishes unnamed.
    let older = t
        .sessions
        .iter()
        .skip(LINEAGE_LINES)
        .map(|(_, l)| l.clone());
    Ok(assemble(
        HeadScope::Thread(wc.clone()),
        format!("# Thread head: {} ({wc})", condense(&t.name, NAME_CHARS)),
        lines,
        older.collect(),
        THREAD_TOKEN_CAP,
    ))
}

fn global(store: &Store, now: DateTime<Utc>) -> Result<Head> {
    let config = store.config()?;
    let since = now - Duration::days(i64::from(config.rollup_window_days));
    let nodes = live_nodes(store)?;
    let mut threads = Vec::new();
    for wc in store.log_ids()? {
        if wc.is_unlinked() {
            continue;
        }
        // A log untouched since the window began holds no recent activity: one stat skips it.
        let log = store.log(&wc);
        let modified = fs::metadata(log.path())
            .and_then(|m| m.modified())
            .map_err(|e| Error::io(log.path(), e))?;
        if DateTime::<Utc>::from(modified) < since {
            continue;
        }
        let t = thread(store, &wc, &nodes, now)?;
        if t.local_only {
            continue;
        }
        if t.last_activity.is_some_and(|at| at >= since) {
            threads.push(t);
        }
    }
    // Most recent activity first, ties by id.
    threads.sort_by(|a, b| {
        b.last_activity
            .cmp(&a.last_activity)
            .then_with(|| a.wc.cmp(&b.wc))
    });
    let mut lines = Vec::new();
    let mut shown_sources = BTreeSet::new();
    for t in &threads {
        if let Some(n) = &t.next_action {
            shown_sources.insert(n.source.clone());
            lines.push(HeadLine {
                text: format!("{}: {}", condense(&t.name, NAME_CHARS), n.text),
                ..n.clone()
            });
        }
    }
    // Commitments: every live obligation not bound to a local-only context, soonest due first.
    let private: BTreeSet<String> = store.graph().with_conn_result(|c| {
        let mut stmt =
            c.prepare_cached("SELECT work_context_id FROM work_contexts WHERE local_only")?;
        stmt.query_map([], |r| r.get(0))?.collect()
    })?;
    let mut obligations: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Obligation)
        .filter(|n| {
            n.work_context_id
                .as_ref()
                .is_none_or(|wc| !private.contains(wc.as_str()))
        })
        .collect();
    sort_obligations(&mut obligations);
    lines.extend(
        obligations
            .into_iter()
            .filter_map(obligation_line)
            .filter(|l| !shown_sources.contains(&l.source)),
    );
    // Open loops across the active contexts: most referenced first, then newest, then by id.
    let mut loops: Vec<(&Thread, &HeadLine)> = threads
        .iter()
        .flat_map(|t| t.open_loops.iter().map(move |l| (t, l)))
        .filter(|(_, l)| !shown_sources.contains(&l.source))
        .collect();
    let rank: BTreeMap<&str, usize> = threads
        .iter()
        .flat_map(|t| {
            t.open_loops
                .iter()
                .enumerate()
                .map(|(i, l)| (l.source.as_str(), i))
        })
        .collect();
    loops.sort_by(|(ta, a), (tb, b)| {
        rank[a.source.as_str()]
            .cmp(&rank[b.source.as_str()])
            .then_with(|| tb.last_activity.cmp(&ta.last_activity))
            .then_with(|| a.source.cmp(&b.source))
    });
    lines.extend(loops.into_iter().map(|(t, l)| HeadLine {
        text: format!("{} ({})", l.text, condense(&t.name, NAME_CHARS)),
        ..l.clone()
    }));
    // Durable constraints: live directives a brief may show, oldest first (as the brief's Tier 3).
    let mut directives: Vec<&Node> = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::MemoryDirective)
        .collect();
    directives.sort_by(|a, b| (&a.created_at, &a.node_id).cmp(&(&b.created_at, &b.node_id)));
    lines.extend(directives.into_iter().filter_map(|n| {
        Some(HeadLine {
            kind: LineKind::Constraint,
            text: n.warrant.render(&condense(&n.text, ITEM_CHARS))?,
            citations: vec![n.node_id.to_string()],
            source: n.node_id.to_string(),
        })
    }));
    // One line per active context.
    for t in &threads {
        let mut text = condense(&t.name, NAME_CHARS);
        if let Some((p, _)) = t.phase.as_ref().filter(|(p, _)| *p != WorkPhase::Unknown) {
            text.push_str(&format!(" ({})", phase_name(*p)));
        }
        if let Some(at) = t.last_activity {
            text.push_str(&format!(", last {}", at.format("%Y-%m-%d")));
        }
        let citations = match t.sessions.first() {
            Some((_, l)) => {
                let summary = l.text.split_once(": ").map_or(l.text.as_str(), |(_, s)| s);
                text.push_str(&format!(": {summary}"));
                l.citations.clone()
            }
            None => t.phase.as_ref().map(|(_, c)| c.clone()).unwrap_or_default(),
        };
        lines.push(HeadLine {
            kind: LineKind::Context,
            text,
            citations,
            source: t.wc.to_string(),
        });
    }
    if lines.is_empty() {
        lines.push(HeadLine {
            kind: LineKind::Context,
            text: format!(
                "no work captured in the last {} days",
                config.rollup_window_days
            ),
            citations: Vec::new(),
            source: String::new(),
        });
    }
    Ok(assemble(
        HeadScope::Global,
        "# MEMORY: active state across work contexts".into(),
        lines,
        Vec::new(),
        GLOBAL_TOKEN_CAP,
    ))
}
