//! `elnor lineage show|rebuild`: the lineage DAG on the command line. `show` is temporal
//! drill-down (CLOSURE §1): a node, or the node a brief line, an entry, a summary or a turn sits
//! in, with its parents, children, siblings, linked entries, the brief lines that cited it and,
//! for a node over raw turns, the turns.

use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::{EntryId, LineageDrill, LineageNode, LineageSource, SessionId, Store};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum LineageCommand {
    /// A node of the DAG and everything around it. Give a node id (ss_…, cx_…, cd_…, ob_…,
    /// md_…) or one of --trace, --entry, --summary, --turn.
    Show {
        node_id: Option<String>,
        /// A brief line: ASSEMBLY:ORDINAL, as `elnor traces show` lists them.
        #[arg(long)]
        trace: Option<String>,
        /// A continuity entry id.
        #[arg(long)]
        entry: Option<String>,
        /// A turn: SESSION:SEQ.
        #[arg(long)]
        turn: Option<String>,
        /// Only this agent's lineage (`claude_code`, `openclaw:main`, …).
        #[arg(long)]
        agent: Option<String>,
        /// Token budget for the turns of a node over raw turns (default 2,000).
        #[arg(long, default_value_t = 2_000)]
        max_tokens: usize,
    },
    /// Build the whole DAG again from the summaries, transcripts and approvals.
    Rebuild,
}

pub fn run(store: &Store, cmd: &LineageCommand, json: bool) -> anyhow::Result<ExitCode> {
    match cmd {
        LineageCommand::Rebuild => {
            let report = elnor_engine::rebuild_lineage(store)?;
            if json {
                output::json(&report)?;
            } else {
                println!(
                    "{} nodes and {} edges in {} work contexts",
                    report.nodes, report.edges, report.contexts
                );
                let left = [
                    (
                        report.summaries_without_window,
                        "summaries without a window of turns",
                    ),
                    (
                        report.compactions_without_summary,
                        "compactions with only a marker",
                    ),
                    (
                        report.compactions_without_history,
                        "compaction summaries opening a session (their turns are in an earlier one)",
                    ),
                    (
                        report.knowledge_without_lineage,
                        "approved knowledge without a summary",
                    ),
                ];
                for (n, what) in left.into_iter().filter(|(n, _)| *n > 0) {
                    println!("  not placed: {n} {what}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        LineageCommand::Show {
            node_id,
            trace,
            entry,
            turn,
            agent,
            max_tokens,
        } => {
            let given = [
                node_id.is_some(),
                trace.is_some(),
                entry.is_some(),
                turn.is_some(),
            ];
            if given.iter().filter(|g| **g).count() != 1 {
                crate::usage!("give exactly one of NODE_ID, --trace, --entry, --turn");
            }
            let source = if let Some(id) = node_id {
                LineageSource::Node {
                    node_id: id.clone(),
                }
            } else if let Some(t) = trace {
                let Some((a, o)) = t.split_once(':').and_then(|(a, o)| {
                    Some((a.trim().parse::<i64>().ok()?, o.trim().parse::<i64>().ok()?))
                }) else {
                    crate::usage!("--trace takes ASSEMBLY:ORDINAL, e.g. 12:3");
                };
                LineageSource::TraceItem {
                    assembly_id: a,
                    ordinal: o,
                }
            } else if let Some(e) = entry {
                LineageSource::Entry {
                    entry_id: EntryId::new(e.clone())?,
                    work_context_id: None,
                }
            } else {
                let t = turn.as_deref().unwrap_or_default();
                let Some((session, seq)) = t
                    .rsplit_once(':')
                    .and_then(|(s, q)| Some((s, q.trim().parse::<i64>().ok()?)))
                else {
                    crate::usage!("--turn takes SESSION:SEQ");
                };
                LineageSource::Turn {
                    session_id: SessionId::new(session)?,
                    seq,
                }
            };
            let found = elnor_engine::lineage_drill_down_from(
                store,
                &source,
                agent.as_deref(),
                *max_tokens,
            )?;
            if json {
                output::json(&found)?;
            } else {
                print_drill(&found.drill, found.work_context_name.as_deref());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn kind_words(n: &LineageNode) -> String {
    match n.kind {
        elnor_engine::LineageNodeKind::SessionSummary => "session summary".into(),
        elnor_engine::LineageNodeKind::CompactionSummary => {
            "compaction summary (written by the harness)".into()
        }
        elnor_engine::LineageNodeKind::Condensation => format!("condensation, level {}", n.level),
        elnor_engine::LineageNodeKind::Knowledge => "approved knowledge".into(),
    }
}

fn row(n: &LineageNode) -> String {
    let first = n.text.lines().next().unwrap_or("");
    let first: String = first.chars().take(90).collect();
    format!(
        "{}  {}  {}  {first}",
        n.node_id,
        kind_words(n),
        n.latest_at
            .map(|t| t.format("%Y-%m-%d").to_string())
            .unwrap_or_default()
    )
}

fn print_drill(d: &LineageDrill, context_name: Option<&str>) {
    let n = &d.node;
    println!("{}  {}", n.node_id, kind_words(n));
    let context = match context_name {
        Some(name) => format!("{name} ({})", n.work_context_id),
        None => n.work_context_id.to_string(),
    };
    println!(
        "  work context {context}  agent {}  {} turn(s) below",
        n.agent_scope, n.turn_count
    );
    if let Some(s) = &n.session_id {
        let from = n
            .after_seq
            .map_or("its start".to_owned(), |a| format!("turn {a}"));
        println!(
            "  covers session {s}: after {from} through turn {}",
            n.through_seq.unwrap_or_default()
        );
    }
    if let (Some(a), Some(b)) = (n.earliest_at, n.latest_at) {
        println!(
            "  from {} to {}",
            a.format("%Y-%m-%d %H:%M"),
            b.format("%Y-%m-%d %H:%M")
        );
    }
    println!(
        "  made by {}{}, coverage confidence {:.1}, {} tokens over {} covered{}",
        n.method,
        n.model
            .as_deref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default(),
        n.confidence,
        n.tokens,
        n.covered_tokens,
        if n.trivial {
            " (trivial: could not be smaller)"
        } else {
            ""
        }
    );
    println!();
    for line in n.text.lines() {
        println!("  | {line}");
    }
    for (title, rows) in [
        ("parents", &d.parents),
        ("children", &d.children),
        ("siblings", &d.siblings),
    ] {
        if !rows.is_empty() {
            println!("\n{title}:");
            for r in rows.iter() {
                println!("  {}", row(r));
            }
        }
    }
    if !d.entries.is_empty() {
        println!("\nentries:");
        for e in &d.entries {
            println!("  {}  {}", e.entry_id, e.entry_type().as_str());
        }
    }
    if !d.brief_lines.is_empty() {
        println!("\ncited by brief lines:");
        for b in &d.brief_lines {
            println!(
                "  trace {}:{}  {}  {}  {}",
                b.assembly_id, b.ordinal, b.assembled_at, b.decision, b.text
            );
        }
    }
    if let Some(l) = &d.transcript {
        println!("\nturns ({}):", l.span.how);
        for t in &l.transcript.turns {
            let text: String = t.content.chars().take(200).collect();
            println!("  [{}] {:?}: {}", t.seq, t.role, text.replace('\n', " "));
        }
        if l.transcript.truncated {
            println!("  … older turns left out; raise --max-tokens");
        }
    }
}
