//! `elnor log append|tail`: manual inspection and manual entries for a work context's log.

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use elnor_engine::{
    AgentId, CaptureMode, ContinuityEntry, EntityId, EntryContent, LogRead, SessionId, Store,
    WorkContextId, WorkPhase,
};
use elnor_engine::{
    CrossConversationUpdateContent, KeyDecisionContent, OpenQuestionContent,
    SessionSummaryRefContent, WorkPhaseChangeContent,
};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum LogCommand {
    /// Append one entry. TEXT is the question, decision, update summary, new phase, or session
    /// summary id, depending on TYPE. With --stdin, a whole JSON entry is read instead.
    Append {
        /// Work context id (names the file continuity/{id}.jsonl).
        work_context: String,
        #[arg(required_unless_present = "stdin")]
        entry_type: Option<EntryKind>,
        #[arg(required_unless_present = "stdin")]
        text: Option<String>,
        /// Session the entry came from.
        #[arg(long, default_value = "manual")]
        session: String,
        /// Agent that produced the session.
        #[arg(long)]
        agent: Option<String>,
        /// Linked entity id (repeatable).
        #[arg(long = "entity")]
        entities: Vec<String>,
        /// Context for an open question, rationale for a decision, reason for a phase change.
        #[arg(long)]
        note: Option<String>,
        /// Turn count for a session_summary_ref.
        #[arg(long, default_value_t = 0)]
        turns: u32,
        /// Read one complete JSON entry (CSA §3.2) from stdin.
        #[arg(long, conflicts_with_all = ["entry_type", "text"])]
        stdin: bool,
    },
    /// Print the last entries of a work context's log, and what was skipped or repaired.
    Tail {
        work_context: String,
        /// How many entries.
        #[arg(short = 'n', long, default_value_t = 10)]
        count: usize,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum EntryKind {
    SessionSummaryRef,
    OpenQuestion,
    KeyDecision,
    CrossConversationUpdate,
    WorkPhaseChange,
}

pub fn run(store: &Store, cmd: &LogCommand, json: bool) -> anyhow::Result<ExitCode> {
    match cmd {
        LogCommand::Append {
            work_context,
            entry_type,
            text,
            session,
            agent,
            entities,
            note,
            turns,
            stdin,
        } => {
            let wc = WorkContextId::new(work_context.as_str())?;
            let entry = if *stdin {
                let mut raw = String::new();
                std::io::stdin()
                    .read_to_string(&mut raw)
                    .context("reading the entry from stdin")?;
                serde_json::from_str::<ContinuityEntry>(raw.trim())
                    .map_err(|e| elnor_engine::Error::InvalidEntry(e.to_string()))?
            } else {
                let (Some(kind), Some(text)) = (entry_type, text) else {
                    crate::usage!("TYPE and TEXT are required without --stdin");
                };
                let session = SessionId::new(session.as_str())?;
                let content = content(*kind, text, note.clone(), *turns, &session)?;
                let config = store.config()?;
                let mut entry = ContinuityEntry::new(
                    wc.clone(),
                    session,
                    elnor_engine::now(),
                    CaptureMode::Deterministic,
                    content,
                    &config,
                );
                entry.source_agent_id = agent.as_deref().map(AgentId::new).transpose()?;
                entry.linked_entity_ids = entities
                    .iter()
                    .map(|e| EntityId::new(e.as_str()))
                    .collect::<Result<_, _>>()?;
                entry
            };
            let repair = store.log(&wc).append(&entry)?;
            if json {
                output::json(&serde_json::json!({ "appended": entry, "repair": repair }))?;
            } else {
                if let Some(r) = &repair {
                    print_repair(r);
                }
                println!("appended {} to {}", entry.entry_id, wc);
            }
            Ok(ExitCode::SUCCESS)
        }
        LogCommand::Tail {
            work_context,
            count,
        } => {
            let wc = WorkContextId::new(work_context.as_str())?;
            let read = elnor_engine::log_tail(store, &wc, *count)?;
            if json {
                output::json(&read)?;
            } else {
                print_read(&read);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn content(
    kind: EntryKind,
    text: &str,
    note: Option<String>,
    turns: u32,
    session: &SessionId,
) -> anyhow::Result<EntryContent> {
    Ok(match kind {
        EntryKind::SessionSummaryRef => EntryContent::SessionSummaryRef(SessionSummaryRefContent {
            doc73_session_summary_id: text.to_owned(),
            entities_referenced: Vec::new(),
            procedures_executed: Vec::new(),
            tools_used: Vec::new(),
            turn_count: turns,
            duration_minutes: None,
        }),
        EntryKind::OpenQuestion => EntryContent::OpenQuestion(OpenQuestionContent {
            question: text.to_owned(),
            context: note.unwrap_or_default(),
            resolved: false,
            resolved_at: None,
            resolution_summary: None,
        }),
        EntryKind::KeyDecision => EntryContent::KeyDecision(KeyDecisionContent {
            decision: text.to_owned(),
            rationale: note,
            superseded_by: None,
        }),
        EntryKind::CrossConversationUpdate => {
            EntryContent::CrossConversationUpdate(CrossConversationUpdateContent {
                summary: text.to_owned(),
                source_session_id: session.clone(),
                affected_entity_ids: Vec::new(),
            })
        }
        EntryKind::WorkPhaseChange => {
            let phase: WorkPhase = serde_json::from_value(serde_json::Value::String(text.into()))
                .map_err(|_| {
                elnor_engine::Error::InvalidEntry(format!(
                    "unknown work phase {text:?}; allowed: research, drafting, review, \
                         revision, waiting_for_external, completed, paused, unknown"
                ))
            })?;
            EntryContent::WorkPhaseChange(WorkPhaseChangeContent {
                previous_phase: None,
                new_phase: phase,
                reason: note,
            })
        }
    })
}

fn print_repair(r: &elnor_engine::TornRepair) {
    match &r.preserved_at {
        Some(aside) => eprintln!(
            "repaired a torn last line in {} ({} bytes kept at {})",
            r.log.display(),
            r.bytes,
            aside.display()
        ),
        None => eprintln!(
            "completed a last line missing its newline in {}",
            r.log.display()
        ),
    }
}

fn print_read(read: &LogRead) {
    if let Some(r) = &read.repair {
        print_repair(r);
    }
    if read.entries.is_empty() {
        println!("(no entries)");
    }
    for e in &read.entries {
        println!(
            "{}  {:<25} {}  [{}]",
            e.captured_at.format("%Y-%m-%d %H:%MZ"),
            e.entry_type().as_str(),
            e.content.headline(),
            e.entry_id
        );
    }
    for s in &read.skipped {
        eprintln!("skipped line {}: {}", s.line, s.reason);
    }
}
