//! Building one work context's part of the lineage DAG from canonical data: its session
//! summaries (through their capture windows), the compaction records in its sessions'
//! transcripts, the condensations of its older roots, and the knowledge promoted from its log.
//!
//! Everything here is a pure function of the store's canonical rows: the same rows give the same
//! nodes, ids and edges, so a rebuild writes back exactly what it cleared.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::{Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::{BuildReport, CONDENSE_FANOUT, CONDENSE_TAIL, LineageNodeKind};
use crate::base::tokens;

/// A node as it is written: the row of `lineage_nodes`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NodeRow {
    pub node_id: String,
    pub kind: LineageNodeKind,
    pub level: i64,
    pub work_context_id: String,
    pub agent_scope: String,
    pub session_id: Option<String>,
    pub after_seq: Option<i64>,
    pub through_seq: Option<i64>,
    pub turn_count: i64,
    pub earliest_at: Option<String>,
    pub latest_at: Option<String>,
    pub method: String,
    pub model: Option<String>,
    pub confidence: f64,
    pub text: String,
    pub tokens: i64,
    pub covered_tokens: i64,
    pub trivial: bool,
}

/// One work context's nodes and edges (parent, child).
#[derive(Debug, Default)]
pub(super) struct Built {
    pub nodes: Vec<NodeRow>,
    pub edges: Vec<(String, String)>,
}

/// A session of the context, with the scope its nodes carry.
struct SessionScope {
    session_id: String,
    agent_scope: String,
    compactions: i64,
}

/// The agent scope of a session: the harness, and the harness's agent when it names one
/// (OpenClaw's agents). Coverage never leaves it, so two agents working in one folder keep
/// separate lineages.
pub(crate) fn agent_scope(harness: &str, agent_id: Option<&str>) -> String {
    match agent_id {
        Some(a) if !a.is_empty() => format!("{harness}:{a}"),
        _ => harness.to_owned(),
    }
}

/// One turn as the build needs it: where, when, how long, and a compaction's words.
struct TurnRow {
    seq: i64,
    kind: String,
    timestamp: Option<String>,
    chars: i64,
    /// The text of a compaction record only; other turns' texts are never loaded.
    mark_text: String,
}

/// A session's turns in order, read once for all its nodes.
fn session_turns(c: &Connection, session_id: &str) -> rusqlite::Result<Vec<TurnRow>> {
    c.prepare_cached(
        "SELECT seq, kind, timestamp, length(text),
                CASE WHEN kind IN ('compaction', 'compaction_summary') THEN text ELSE '' END
           FROM turns WHERE session_id = ?1 ORDER BY seq",
    )?
    .query_map([session_id], |r| {
        Ok(TurnRow {
            seq: r.get(0)?,
            kind: r.get(1)?,
            timestamp: r.get(2)?,
            chars: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
            mark_text: r.get(4)?,
        })
    })?
    .collect()
}

/// What the turns in (`after`, `through`] hold: how many, when, how long.
fn turn_stats(
    turns: &[TurnRow],
    after: Option<i64>,
    through: i64,
) -> (i64, Option<String>, Option<String>, i64) {
    let from = turns.partition_point(|t| after.is_some_and(|a| t.seq <= a));
    let to = turns.partition_point(|t| t.seq <= through);
    let window = &turns[from..to.max(from)];
    let earliest = window.iter().filter_map(|t| t.timestamp.clone()).min();
    let latest = window.iter().filter_map(|t| t.timestamp.clone()).max();
    let chars = window.iter().map(|t| t.chars).sum();
    (window.len() as i64, earliest, latest, chars)
}

/// `entry_summaries` maps the context's promoted entries to the summary their capture linked
/// (read from its log by the caller, which owns the store).
pub(super) fn context(
    c: &Connection,
    wc: &str,
    entry_summaries: &BTreeMap<String, String>,
    report: &mut BuildReport,
) -> rusqlite::Result<Built> {
    let sessions: Vec<SessionScope> = c
        .prepare_cached(
            "SELECT session_id, harness, agent_id, compaction_count FROM transcript_sessions
              WHERE work_context_id = ?1 ORDER BY session_id",
        )?
        .query_map([wc], |r| {
            let harness: String = r.get(1)?;
            let agent: Option<String> = r.get(2)?;
            Ok(SessionScope {
                session_id: r.get(0)?,
                agent_scope: agent_scope(&harness, agent.as_deref()),
                compactions: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;

    let mut built = Built::default();
    for s in &sessions {
        let turns = session_turns(c, &s.session_id)?;
        session_summaries(c, wc, s, &turns, &mut built, report)?;
        if s.compactions > 0 {
            compactions(wc, s, &turns, &mut built, report);
        }
    }
    condense(wc, &mut built);
    knowledge(c, wc, entry_summaries, &mut built, report)?;
    report.nodes += built.nodes.len();
    report.edges += built.edges.len();
    Ok(built)
}

/// A session summary with its capture window: id, text, source, after, through, recorded.
type SummaryRow = (
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// One node per session summary with a capture window: it covers exactly the turns that capture
/// read.
fn session_summaries(
    c: &Connection,
    wc: &str,
    s: &SessionScope,
    turns: &[TurnRow],
    built: &mut Built,
    report: &mut BuildReport,
) -> rusqlite::Result<()> {
    let rows: Vec<SummaryRow> = c
        .prepare_cached(
            "SELECT ss.doc73_session_summary_id, ss.text, ss.source,
                    cw.after_seq, cw.through_seq, cw.recorded
               FROM session_summaries ss
               LEFT JOIN capture_windows cw ON cw.summary_id = ss.doc73_session_summary_id
              WHERE ss.session_id = ?1 ORDER BY cw.through_seq, ss.doc73_session_summary_id",
        )?
        .query_map([&s.session_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?
        .collect::<rusqlite::Result<_>>()?;
    for (id, text, source, after, through, recorded) in rows {
        let Some(through) = through else {
            report.summaries_without_window += 1;
            continue;
        };
        let (count, earliest, latest, chars) = turn_stats(turns, after, through);
        if count == 0 {
            report.summaries_without_window += 1;
            continue;
        }
        built.nodes.push(NodeRow {
            node_id: id,
            kind: LineageNodeKind::SessionSummary,
            level: 0,
            work_context_id: wc.to_owned(),
            agent_scope: s.agent_scope.clone(),
            session_id: Some(s.session_id.clone()),
            after_seq: after,
            through_seq: Some(through),
            turn_count: count,
            earliest_at: earliest,
            latest_at: latest,
            method: source,
            model: None,
            // A window capture recorded as it ran is certain; one the schema migration worked out
            // from summary ids is very likely but not recorded.
            confidence: if recorded == Some(1) { 1.0 } else { 0.9 },
            tokens: tokens::count(&text) as i64,
            covered_tokens: chars / 4,
            text,
            trivial: false,
        });
    }
    Ok(())
}

/// The shortest harness text that reads as a summary rather than a bare marker ("Conversation
/// compacted").
const MIN_COMPACTION_SUMMARY_CHARS: usize = 40;

/// One node per compaction the harness recorded with a summary: it covers the session's turns
/// since the previous compaction, which that summary replaced in the agent's context.
fn compactions(
    wc: &str,
    s: &SessionScope,
    turns: &[TurnRow],
    built: &mut Built,
    report: &mut BuildReport,
) {
    // A compaction is one record (OpenClaw, Codex) or a boundary followed at once by the
    // summary the harness fed back (Claude Code); adjacent compaction records are one event.
    let marks: Vec<(i64, &str, &str, Option<String>)> = turns
        .iter()
        .map(|t| {
            (
                t.seq,
                t.kind.as_str(),
                t.mark_text.as_str(),
                t.timestamp.clone(),
            )
        })
        .collect();
    let is_mark = |kind: &str| kind == "compaction" || kind == "compaction_summary";
    let mut events: Vec<(i64, i64, String, Option<String>)> = Vec::new();
    let mut i = 0;
    while i < marks.len() {
        if !is_mark(marks[i].1) {
            i += 1;
            continue;
        }
        let first = marks[i].0;
        let at = marks[i].3.clone();
        let mut text = String::new();
        let mut last = first;
        while i < marks.len() && is_mark(marks[i].1) {
            // The summary record's words win over a boundary's marker text.
            if marks[i].2.trim().len() >= text.trim().len() {
                text = marks[i].2.to_owned();
            }
            last = marks[i].0;
            i += 1;
        }
        events.push((first, last, text, at));
    }
    let mut previous: Option<i64> = None;
    for (first, last, text, at) in events {
        let after = previous;
        previous = Some(last);
        if text.trim().chars().count() < MIN_COMPACTION_SUMMARY_CHARS {
            report.compactions_without_summary += 1;
            continue;
        }
        let (count, earliest, latest, chars) = turn_stats(turns, after, first - 1);
        if count == 0 {
            // A session that opens with a compaction summary continues an earlier session; the
            // turns it replaced are in that one, which the record does not name.
            report.compactions_without_history += 1;
            continue;
        }
        built.nodes.push(NodeRow {
            node_id: format!("cx_{first}"),
            kind: LineageNodeKind::CompactionSummary,
            level: 0,
            work_context_id: wc.to_owned(),
            agent_scope: s.agent_scope.clone(),
            session_id: Some(s.session_id.clone()),
            after_seq: after,
            through_seq: Some(first - 1),
            turn_count: count,
            earliest_at: earliest,
            latest_at: latest.or(at),
            method: "harness".into(),
            model: None,
            confidence: 1.0,
            tokens: tokens::count(&text) as i64,
            covered_tokens: chars / 4,
            text,
            trivial: false,
        });
    }
}

/// Words of each child quoted in a condensation.
const CONDENSE_WORDS: usize = 18;

/// Condensations: per agent scope, the roots older than the newest [`CONDENSE_TAIL`] are taken in
/// time order in full groups of [`CONDENSE_FANOUT`], each group one node a level up; the same at
/// every level until fewer than a group are left. Groups form from the oldest, so a newer root
/// never changes an older group.
fn condense(wc: &str, built: &mut Built) {
    let mut scopes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, n) in built.nodes.iter().enumerate() {
        scopes.entry(n.agent_scope.clone()).or_default().push(i);
    }
    for (scope, members) in scopes {
        let order = |built: &Built, mut idx: Vec<usize>| {
            idx.sort_by(|&a, &b| {
                let (a, b) = (&built.nodes[a], &built.nodes[b]);
                (&a.latest_at, &a.node_id).cmp(&(&b.latest_at, &b.node_id))
            });
            idx
        };
        let mut level_nodes = order(built, members);
        let mut level = 0;
        loop {
            let eligible = if level == 0 {
                level_nodes.len().saturating_sub(CONDENSE_TAIL)
            } else {
                level_nodes.len()
            };
            let groups = eligible / CONDENSE_FANOUT;
            if groups == 0 {
                break;
            }
            let mut next = Vec::new();
            for g in 0..groups {
                let children: Vec<usize> =
                    level_nodes[g * CONDENSE_FANOUT..(g + 1) * CONDENSE_FANOUT].to_vec();
                let node = condensation(wc, &scope, level + 1, &children, built);
                for &ch in &children {
                    built
                        .edges
                        .push((node.node_id.clone(), built.nodes[ch].node_id.clone()));
                }
                built.nodes.push(node);
                next.push(built.nodes.len() - 1);
            }
            level_nodes = next;
            level += 1;
        }
    }
}

fn condensation(wc: &str, scope: &str, level: i64, children: &[usize], built: &Built) -> NodeRow {
    let mut hash = Sha256::new();
    hash.update(wc.as_bytes());
    hash.update([0]);
    hash.update(scope.as_bytes());
    for &ch in children {
        hash.update([0]);
        hash.update(built.nodes[ch].node_id.as_bytes());
    }
    let digest = hash.finalize();
    let id: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let kids: Vec<&NodeRow> = children.iter().map(|&i| &built.nodes[i]).collect();
    let earliest = kids.iter().filter_map(|k| k.earliest_at.clone()).min();
    let latest = kids.iter().filter_map(|k| k.latest_at.clone()).max();
    let day = |at: &Option<String>| {
        at.as_deref()
            .map_or("?", |s| s.get(..10).unwrap_or(s))
            .to_owned()
    };
    let mut text = format!(
        "{} earlier {} of this work context, {} to {}:",
        kids.len(),
        if level == 1 {
            "summaries"
        } else {
            "condensations"
        },
        day(&earliest),
        day(&latest)
    );
    for k in &kids {
        let first = tokens::one_line(&k.text);
        let words: Vec<&str> = first.split_whitespace().take(CONDENSE_WORDS).collect();
        let more = first.split_whitespace().count() > CONDENSE_WORDS;
        text.push_str(&format!(
            "\n- {}: {}{}",
            day(&k.latest_at),
            words.join(" "),
            if more { " …" } else { "" }
        ));
    }
    let tokens = tokens::count(&text) as i64;
    let covered: i64 = kids.iter().map(|k| k.tokens).sum();
    NodeRow {
        node_id: format!("cd_{id}"),
        kind: LineageNodeKind::Condensation,
        level,
        work_context_id: wc.to_owned(),
        agent_scope: scope.to_owned(),
        session_id: None,
        after_seq: None,
        through_seq: None,
        turn_count: kids.iter().map(|k| k.turn_count).sum(),
        earliest_at: earliest,
        latest_at: latest,
        method: "deterministic".into(),
        model: None,
        confidence: 1.0,
        // A condensation must be smaller than what it covers; when the children are already
        // terse it cannot be, and says so instead of pretending.
        trivial: tokens >= covered,
        tokens,
        covered_tokens: covered,
        text,
    }
}

/// One node per durable node the person approved from this context's log: it covers the summary
/// of the capture that wrote the promoted entry (or, for an entry with no linked summary, the
/// summaries of its session).
fn knowledge(
    c: &Connection,
    wc: &str,
    entry_summaries: &BTreeMap<String, String>,
    built: &mut Built,
    report: &mut BuildReport,
) -> rusqlite::Result<()> {
    let approved: Vec<(String, String, Option<String>, Option<String>)> = c
        .prepare_cached(
            "SELECT p.node_id, p.entry_id, p.decided_at, coalesce(o.text, m.text)
               FROM promotion_proposals p
               LEFT JOIN obligations o ON o.obligation_id = p.node_id
               LEFT JOIN memory_directives m ON m.directive_id = p.node_id
              WHERE p.work_context_id = ?1 AND p.status = 'approved' AND p.node_id IS NOT NULL
              ORDER BY p.node_id, p.proposal_id",
        )?
        .query_map([wc], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let by_id: BTreeMap<String, usize> = built
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_id.clone(), i))
        .collect();
    let mut seen = BTreeSet::new();
    for (node_id, entry_id, decided_at, text) in approved {
        let summary = entry_summaries.get(&entry_id);
        if !seen.insert(node_id.clone()) {
            continue;
        }
        let child = summary.and_then(|s| by_id.get(s)).copied().or_else(|| {
            entry_session(c, &entry_id)
                .ok()
                .flatten()
                .and_then(|session| {
                    built
                        .nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| {
                            n.kind == LineageNodeKind::SessionSummary
                                && n.session_id.as_deref() == Some(session.as_str())
                        })
                        .map(|(i, _)| i)
                        .next_back()
                })
        });
        let Some(child) = child else {
            report.knowledge_without_lineage += 1;
            continue;
        };
        let text = text.unwrap_or_default();
        let k = &built.nodes[child];
        let row = NodeRow {
            node_id: node_id.clone(),
            kind: LineageNodeKind::Knowledge,
            level: k.level + 1,
            work_context_id: wc.to_owned(),
            agent_scope: k.agent_scope.clone(),
            session_id: None,
            after_seq: None,
            through_seq: None,
            turn_count: k.turn_count,
            earliest_at: k.earliest_at.clone(),
            latest_at: decided_at.or_else(|| k.latest_at.clone()),
            method: "review".into(),
            model: None,
            confidence: 1.0,
            tokens: tokens::count(&text) as i64,
            covered_tokens: k.tokens,
            text,
            trivial: false,
        };
        built.edges.push((node_id, k.node_id.clone()));
        built.nodes.push(row);
    }
    Ok(())
}

/// The session a promoted entry came from, as the promotion recorded it.
fn entry_session(c: &Connection, entry_id: &str) -> rusqlite::Result<Option<String>> {
    c.query_row(
        "SELECT source_ref FROM provenance p
           JOIN entry_promotions e ON e.node_id = p.node_id
          WHERE e.entry_id = ?1 AND p.source_kind = 'session'
          ORDER BY p.provenance_id DESC LIMIT 1",
        [entry_id],
        |r| r.get(0),
    )
    .optional()
}
