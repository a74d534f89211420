//! `elnor brief`, and what stands behind it: `elnor constellation` (the per-context views),
//! `elnor rollup` (Tier 2), `elnor facts` (Tier 3) and `elnor traces` (the inspector's assembly
//! traces, "why included").
//!
//! `elnor brief` is on an agent's start path (a SessionStart hook), so it prints first and does
//! its housekeeping after: a stale constellation view is served marked `stale` and rebuilt once
//! the output is flushed.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use chrono::Local;
use clap::{Subcommand, ValueEnum};
use elnor_engine::{Brief, BriefRequest, Delivery, Format, HookInput, MAX_BUDGET};
use elnor_engine::{SessionId, Store, WorkContextId};

use crate::output;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// The `<card>` blocks after the temporal block and preamble.
    Cards,
    /// Tiers, token counts, items with their source ids.
    Json,
    /// A Claude Code SessionStart hook's output (`hookSpecificOutput.additionalContext`).
    ClaudeCode,
    /// A Codex SessionStart hook's output (the same shape, no other keys).
    Codex,
}

#[derive(Debug, clap::Args)]
pub struct BriefArgs {
    /// The new session's working directory (matched against `cwd` link rules).
    #[arg(long)]
    pub cwd: Option<String>,
    /// The new session's id (same-session rule; an earlier capture's work context).
    #[arg(long)]
    pub session: Option<String>,
    /// A session key or agent id (matched against `session-key` link rules).
    #[arg(long = "session-key")]
    pub session_key: Option<String>,
    /// Brief for this work context, whatever the other flags say.
    #[arg(long)]
    pub context: Option<String>,
    /// An entity name the session is about (repeatable).
    #[arg(long = "entity")]
    pub entities: Vec<String>,
    /// The session's first message, for activity-type routing.
    #[arg(long)]
    pub message: Option<String>,
    #[arg(long, value_enum, default_value = "cards")]
    pub format: FormatArg,
    /// The surface's token budget for the cards (at most 420).
    #[arg(long, default_value_t = MAX_BUDGET)]
    pub budget: u32,
    /// Also print why each candidate is in the brief or not.
    #[arg(long)]
    pub explain: bool,
    /// A preview: mark nothing delivered.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Read the SessionStart hook's JSON input (`session_id`, `cwd`) from stdin; flags win.
    #[arg(long = "hook-stdin")]
    pub hook_stdin: bool,
}

/// The hook input on stdin for `--hook-stdin`: empty input is no input (flags alone then say
/// what the session is), anything else must be the harness's JSON object.
fn hook_input() -> anyhow::Result<HookInput> {
    let mut raw = String::new();
    std::io::stdin()
        .read_to_string(&mut raw)
        .context("reading the hook's input from stdin")?;
    if raw.trim().is_empty() {
        return Ok(HookInput::default());
    }
    Ok(HookInput::parse(&raw)?)
}

/// Prints the brief a SessionStart hook returns, in `format`, for the session the hook input
/// names; then its warnings on stderr, then (after the output is flushed, off the agent's path)
/// the housekeeping. Shared by `elnor brief --hook-stdin` and `elnor hook`.
pub fn print_session_brief(
    store: &Store,
    format: Format,
    cwd: Option<String>,
    session: Option<String>,
) -> anyhow::Result<()> {
    let now = elnor_engine::now();
    let req = BriefRequest {
        now,
        today: now.with_timezone(&Local).date_naive(),
        cwd,
        session_id: session.map(SessionId::new).transpose()?,
        session_key: None,
        work_context_id: None,
        entity_names: Vec::new(),
        first_message: None,
        budget: MAX_BUDGET,
        delivery: Delivery::Delivered,
        format,
    };
    let b = elnor_engine::assemble_brief(store, &req)?;
    let mut out = std::io::stdout().lock();
    match format {
        Format::ClaudeCode | Format::Codex => {
            serde_json::to_writer(&mut out, &elnor_engine::hook_output(&b))?;
            writeln!(out)?;
        }
        Format::Cards | Format::Json => write!(out, "{}", elnor_engine::brief_text(&b))?,
    }
    out.flush()?;
    drop(out);
    for w in &b.warnings {
        eprintln!("warning: {w}");
    }
    elnor_engine::refresh_views(store, &b.needs_rebuild, now);
    Ok(())
}

pub fn brief_cmd(store: &Store, a: &BriefArgs, json: bool) -> anyhow::Result<ExitCode> {
    let hook = if a.hook_stdin {
        hook_input()?
    } else {
        HookInput::default()
    };
    let format = match (a.format, json) {
        (FormatArg::Cards, true) | (FormatArg::Json, _) => Format::Json,
        (FormatArg::Cards, false) => Format::Cards,
        (FormatArg::ClaudeCode, _) => Format::ClaudeCode,
        (FormatArg::Codex, _) => Format::Codex,
    };
    let now = elnor_engine::now();
    let req = BriefRequest {
        now,
        today: now.with_timezone(&Local).date_naive(),
        cwd: a.cwd.clone().or(hook.cwd),
        session_id: a
            .session
            .clone()
            .or(hook.session_id)
            .map(SessionId::new)
            .transpose()?,
        session_key: a.session_key.clone(),
        work_context_id: a.context.clone().map(WorkContextId::new).transpose()?,
        entity_names: a.entities.clone(),
        first_message: a.message.clone(),
        budget: a.budget,
        delivery: if a.dry_run {
            Delivery::Preview
        } else {
            Delivery::Delivered
        },
        format,
    };
    let b = elnor_engine::assemble_brief(store, &req)?;
    let mut out = std::io::stdout().lock();
    match format {
        Format::Cards => {
            write!(out, "{}", elnor_engine::brief_text(&b))?;
            if a.explain {
                writeln!(out)?;
                write_explain(&mut out, &b)?;
            }
        }
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &json_view(&b, a.explain))?;
            writeln!(out)?;
        }
        Format::ClaudeCode | Format::Codex => {
            serde_json::to_writer(&mut out, &elnor_engine::hook_output(&b))?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    drop(out);
    for w in &b.warnings {
        eprintln!("warning: {w}");
    }
    // After the output, off the agent's path: bring stale views up to date (CSA §4.3).
    elnor_engine::refresh_views(store, &b.needs_rebuild, now);
    Ok(ExitCode::SUCCESS)
}

fn json_view(b: &Brief, explain: bool) -> serde_json::Value {
    let tiers: Vec<_> = b
        .cards
        .iter()
        .map(|c| {
            serde_json::json!({
                "tier": c.tier,
                "type": c.card_type,
                "tag": c.tag,
                "tokens": c.tokens,
                "lines": c.lines.iter().map(|l| &l.text).collect::<Vec<_>>(),
                "items": c.items.iter().map(|i| serde_json::json!({
                    "kind": i.kind,
                    "source_id": i.source_id,
                    "session_id": i.session_id,
                    "text": i.text,
                    "tokens": i.tokens,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut v = serde_json::json!({
        "assembly_id": b.assembly_id,
        "delivery": b.delivery,
        "today": b.today,
        "work_context": b.work_context,
        "stale": b.stale,
        "activity_type": b.activity_type,
        "activity_source": b.activity_source,
        "budget": b.budget,
        "tiers": tiers,
        "total_tokens": b.total_tokens,
        "envelope_tokens": b.envelope_tokens,
        "output_tokens": b.total_tokens + b.envelope_tokens,
        "delivered_updates": b.delivered_updates,
        "warnings": b.warnings,
        "text": elnor_engine::brief_text(b),
    });
    if explain {
        v["trace"] = serde_json::to_value(&b.trace).unwrap_or_default();
    }
    v
}

fn write_explain(out: &mut impl Write, b: &Brief) -> std::io::Result<()> {
    let wc = b
        .work_context
        .as_ref()
        .map(|c| format!("{} ({}; {})", c.name, c.work_context_id, c.how))
        .unwrap_or_else(|| "none".to_owned());
    writeln!(
        out,
        "# why: assembly {} · work context {wc} · {} of {} tokens{}",
        b.assembly_id,
        b.total_tokens,
        b.budget,
        if b.stale { " · STALE view" } else { "" }
    )?;
    for t in &b.trace {
        writeln!(
            out,
            "T{} {:<9} {:<13} {:>3} tok  {:<18} {}",
            t.tier,
            t.decision.as_str(),
            t.kind,
            t.tokens,
            t.reason.as_str(),
            crate::brief_cmd::cut(&t.text, 70)
        )?;
        writeln!(out, "      {}", t.detail)?;
    }
    for w in &b.warnings {
        writeln!(out, "warning: {w}")?;
    }
    Ok(())
}

pub(crate) fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

#[derive(Debug, Subcommand)]
pub enum ConstellationCommand {
    /// Show a work context's constellation view (building it if there is none).
    Show { id: String },
    /// Rebuild views: one work context, or every one with --all.
    Rebuild {
        id: Option<String>,
        #[arg(long, conflicts_with = "id")]
        all: bool,
    },
}

pub fn constellation_cmd(
    store: &Store,
    cmd: &ConstellationCommand,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    match cmd {
        ConstellationCommand::Show { id } => {
            let wc = WorkContextId::new(id.clone())?;
            let read = elnor_engine::constellation_view(store, &wc, now)?;
            if json {
                let mut v = serde_json::to_value(&read.constellation)?;
                v["stale"] = serde_json::Value::Bool(read.stale);
                output::json(&v)?;
                return Ok(ExitCode::SUCCESS);
            }
            let c = &read.constellation;
            println!(
                "{}{}",
                c.header.text,
                if read.stale { "  [stale]" } else { "" }
            );
            println!(
                "  window {} session(s) ({} in the last 30 days) · view as of {}",
                c.effective_window, c.sessions_in_last_30_days, c.as_of
            );
            for s in &c.session_history {
                println!("  {}", s.line.text);
            }
            for q in &c.open_questions {
                println!("  {}", q.line.text);
            }
            for d in &c.key_decisions {
                println!("  {}", d.line.text);
            }
            for u in &c.cross_conversation_updates {
                println!("  {}", u.line.text);
            }
            for n in c.goals.iter().chain(&c.obligations) {
                if let Some(l) = &n.line {
                    println!("  {}", l.text);
                }
            }
            if !c.excluded.is_empty() {
                println!("  excluded: {}", c.excluded.len());
                for x in &c.excluded {
                    println!("    {:<14} {}", x.reason.as_str(), cut(&x.text, 80));
                }
            }
        }
        ConstellationCommand::Rebuild { id, all } => {
            let n = if *all {
                elnor_engine::rebuild_views(store, now)?
            } else {
                let Some(id) = id else {
                    crate::usage!("name a work context, or pass --all");
                };
                elnor_engine::rebuild_view(store, &WorkContextId::new(id.clone())?, now)?;
                1
            };
            if json {
                output::json(&serde_json::json!({ "rebuilt": n }))?;
            } else {
                println!("rebuilt {n} view(s)");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn rollup_cmd(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let r = elnor_engine::generate_rollup(store, elnor_engine::now())?;
    if json {
        output::json(&r)?;
    } else {
        print!("{}", r.to_markdown());
        println!(
            "\n(written to {})",
            elnor_engine::rollup_path(store).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Subcommand)]
pub enum FactsCommand {
    /// List your facts and preferences, in Tier 3 order.
    List,
    /// Add a fact or preference at the end.
    Add { text: String },
    /// Change a fact's text or move it (1 = first).
    Edit {
        id: i64,
        #[arg(long)]
        text: Option<String>,
        #[arg(long)]
        position: Option<i64>,
    },
    /// Remove a fact.
    Remove { id: i64 },
}

pub fn facts_cmd(store: &Store, cmd: &FactsCommand, json: bool) -> anyhow::Result<ExitCode> {
    let graph = store.graph();
    let now = elnor_engine::now();
    match cmd {
        FactsCommand::List => {
            let facts = graph.living_facts()?;
            if json {
                output::json(&facts)?;
            } else if facts.is_empty() {
                println!(
                    "no facts yet; add one with `elnor facts add \"…\"` (Tier 3 of the brief)"
                );
            } else {
                for f in facts {
                    println!("#{:<3} {:>3} tok  {}", f.fact_id, f.tokens, f.text);
                }
            }
        }
        FactsCommand::Add { text } => {
            let f = elnor_engine::add_living_fact(store, text, now)?;
            print_fact(&f, json)?;
        }
        FactsCommand::Edit { id, text, position } => {
            if text.is_none() && position.is_none() {
                crate::usage!("nothing to change: pass --text or --position");
            }
            let f = elnor_engine::edit_living_fact(store, *id, text.as_deref(), *position, now)?;
            print_fact(&f, json)?;
        }
        FactsCommand::Remove { id } => {
            elnor_engine::remove_living_fact(store, *id, now)?;
            if json {
                output::json(&serde_json::json!({ "removed": id }))?;
            } else {
                println!("removed fact #{id}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_fact(f: &elnor_engine::LivingFact, json: bool) -> anyhow::Result<()> {
    if json {
        output::json(f)?;
    } else {
        println!(
            "#{} (position {}, {} tokens): {}",
            f.fact_id, f.position, f.tokens, f.text
        );
    }
    Ok(())
}

#[derive(Debug, Subcommand)]
pub enum TracesCommand {
    /// Recent brief assemblies, newest first.
    List {
        #[arg(long)]
        context: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// One assembly: every candidate, its decision and why.
    Show { id: i64 },
}

pub fn traces_cmd(store: &Store, cmd: &TracesCommand, json: bool) -> anyhow::Result<ExitCode> {
    let graph = store.graph();
    match cmd {
        TracesCommand::List { context, limit } => {
            let list = graph.assemblies(context.as_deref(), *limit, true)?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!("no brief assemblies yet; `elnor brief --dry-run` makes one");
            } else {
                for a in list {
                    println!(
                        "#{:<5} {}  {:<9} {:<11} {:<24} {:>3}/{} tok  {} in, {} dropped, {} excluded{}",
                        a.assembly_id,
                        a.created_at.get(..16).unwrap_or(&a.created_at),
                        a.delivery,
                        a.format,
                        a.work_context_id.as_deref().unwrap_or("-"),
                        a.total_tokens,
                        a.budget,
                        a.included,
                        a.dropped,
                        a.excluded,
                        if a.stale { " (stale view)" } else { "" }
                    );
                }
            }
        }
        TracesCommand::Show { id } => {
            let d = graph.assembly(*id)?;
            if json {
                output::json(&d)?;
                return Ok(ExitCode::SUCCESS);
            }
            let s = &d.summary;
            println!(
                "assembly #{} · {} · {} · {} · work context {} ({})",
                s.assembly_id,
                s.created_at,
                s.delivery,
                s.format,
                s.work_context_id.as_deref().unwrap_or("none"),
                s.resolution
            );
            println!(
                "tokens: {} of {} (tier 1 {}, tier 2 {}, tier 3 {}) + {} around the cards",
                s.total_tokens,
                s.budget,
                s.tier_tokens[0],
                s.tier_tokens[1],
                s.tier_tokens[2],
                s.envelope_tokens
            );
            for w in &d.warnings {
                println!("warning: {w}");
            }
            for t in &d.items {
                let mut source = t.source_id.clone().unwrap_or_default();
                if let Some(sess) = &t.session_id {
                    source.push_str(&format!(" · session {sess}"));
                    if let Some(seq) = t.turn_seq {
                        source.push_str(&format!(" turn {seq}"));
                    }
                }
                println!(
                    "T{} {:<9} {:<10} {:>3} tok  {:<18} {}",
                    t.tier,
                    t.decision,
                    t.kind,
                    t.tokens,
                    t.reason,
                    cut(&t.text, 70)
                );
                println!("      {} [{source}]", t.detail);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
