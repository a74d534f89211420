//! `elnor sessions list|show|summarize`: the session capabilities of CSA §8 on the command line.

use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::{AgentId, Harness, Store, TurnKind, WorkContextId};
use elnor_engine::{SessionListQuery, TranscriptQuery};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Sessions, newest activity first.
    List {
        #[arg(long)]
        agent: Option<String>,
        /// openclaw, claude_code or codex.
        #[arg(long)]
        harness: Option<String>,
        #[arg(long = "work-context")]
        work_context: Option<String>,
        /// Only sessions active in the last N hours.
        #[arg(long)]
        hours: Option<u32>,
        /// Matches title, working directory or id.
        #[arg(long)]
        text: Option<String>,
        /// Default 20, at most 100.
        #[arg(long)]
        limit: Option<u32>,
    },
    /// A session's transcript: the newest turns that fit the token budget.
    Show {
        session_id: String,
        /// Only the last N turns.
        #[arg(long)]
        last: Option<u32>,
        /// Token budget (default: `transcript_read_max_tokens` in the config).
        #[arg(long)]
        max_tokens: Option<usize>,
        /// Continue a truncated read: turns before this seq.
        #[arg(long)]
        before: Option<i64>,
        /// Include injected context and non-conversation events.
        #[arg(long)]
        all: bool,
    },
    /// The stored summary, or one generated now.
    Summarize { session_id: String },
}

pub fn run(store: &Store, cmd: &SessionsCommand, json: bool) -> anyhow::Result<ExitCode> {
    match cmd {
        SessionsCommand::List {
            agent,
            harness,
            work_context,
            hours,
            text,
            limit,
        } => {
            let harness = match harness.as_deref() {
                Some(name) => match Harness::parse(name) {
                    Some(h) => Some(h),
                    None => crate::usage!(
                        "unknown harness {name:?}: use openclaw, claude_code or codex"
                    ),
                },
                None => None,
            };
            let q = SessionListQuery {
                work_context_id: work_context.clone().map(WorkContextId::new).transpose()?,
                time_window_hours: *hours,
                agent_id: agent.clone().map(AgentId::new).transpose()?,
                harness,
                text: text.clone(),
                limit: *limit,
                ..SessionListQuery::default()
            };
            let rows = elnor_engine::find_sessions(store, &q, elnor_engine::now())?;
            if json {
                // Each row with the title lists show, so a reader of the JSON need not
                // know the order in which a request, a harness title and a report stand in.
                let rows = rows
                    .iter()
                    .map(|s| {
                        let mut row = serde_json::to_value(s)?;
                        row["display_title"] = serde_json::json!(s.display_title());
                        Ok(row)
                    })
                    .collect::<Result<Vec<_>, serde_json::Error>>()?;
                output::json(&serde_json::json!({ "sessions": rows }))?;
            } else if rows.is_empty() {
                println!("No sessions. Run `elnor ingest` first (see `elnor sources list`).");
            } else {
                for s in &rows {
                    println!(
                        "{}  {:<11} {:<24} {:>5} turns{}  {}",
                        s.last_activity_at
                            .as_deref()
                            .unwrap_or("-")
                            .get(..16)
                            .unwrap_or("-"),
                        s.harness,
                        s.agent_id.as_deref().unwrap_or("-"),
                        s.turn_count,
                        if s.compaction_count > 0 {
                            format!(" ({} compactions)", s.compaction_count)
                        } else {
                            String::new()
                        },
                        s.display_title()
                            .map(|t| format!("{t}  "))
                            .unwrap_or_default()
                            + &s.session_id
                    );
                }
            }
        }
        SessionsCommand::Show {
            session_id,
            last,
            max_tokens,
            before,
            all,
        } => {
            let mut q = TranscriptQuery::new(session_id.as_str());
            q.last_n_turns = *last;
            q.before_seq = *before;
            q.include_events = *all;
            q.max_tokens = match max_tokens {
                Some(n) => *n,
                None => store.config()?.transcript_read_max_tokens as usize,
            };
            let t = elnor_engine::read_transcript(store.graph(), &q)?;
            if json {
                output::json(&t)?;
            } else {
                println!(
                    "session {} ({}, agent {}, started {})",
                    t.session_id,
                    t.harness,
                    t.agent_id.as_deref().unwrap_or("-"),
                    t.started_at.as_deref().unwrap_or("-")
                );
                if let Some(hint) = &t.continuation_hint {
                    println!("… {hint}");
                }
                for turn in &t.turns {
                    let marker = match turn.kind {
                        TurnKind::Compaction => "── compaction ──",
                        TurnKind::CompactionSummary => "── compaction summary ──",
                        _ => turn.role.as_str(),
                    };
                    println!(
                        "\n[{}] {}{}",
                        turn.seq,
                        marker,
                        turn.timestamp
                            .as_deref()
                            .map(|t| format!("  {t}"))
                            .unwrap_or_default()
                    );
                    for call in &turn.tool_calls {
                        println!("  ⚙ {call}");
                    }
                    if !turn.content.trim().is_empty() {
                        println!("{}", turn.content);
                    }
                }
                println!(
                    "\n({} tokens{})",
                    t.total_tokens,
                    if t.truncated { ", truncated" } else { "" }
                );
            }
        }
        SessionsCommand::Summarize { session_id } => {
            let s =
                elnor_engine::summarize_session(store.graph(), session_id, elnor_engine::now())?;
            if json {
                output::json(&s)?;
            } else {
                println!("{}", s.summary);
                println!("\n({}, {}, {})", s.source, s.generator, s.generated_at);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
