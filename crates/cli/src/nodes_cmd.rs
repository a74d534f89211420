//! `elnor nodes …`: the durable knowledge approved promotions wrote (obligations and memory
//! directives), with their lifecycle, staleness and use warrant, and the person's changes to
//! them. Nothing here deletes: retire and supersede keep the node and its history.

use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::Store;
use elnor_engine::{Change, Node, Warrant};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum NodesCommand {
    /// Live nodes, newest change first (`--all` adds retired and superseded ones).
    List {
        #[arg(long)]
        all: bool,
    },
    /// One node with its provenance and history.
    Show { id: String },
    /// Correct a node's text; your word restores its warrant to `assert`.
    Edit { id: String, text: String },
    /// Confirm a node still holds; its decay clock restarts.
    Confirm { id: String },
    /// Set a node's use warrant: assert, hedge, verify_before_use, orientation_only,
    /// search_only or do_not_inject.
    Warrant {
        id: String,
        warrant: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Retire a node: it leaves every brief and stays, with its history, in the store.
    Retire {
        id: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Replace a node by a new one with this text; the old one is kept as superseded.
    Supersede { id: String, text: String },
}

pub fn nodes(store: &Store, cmd: &NodesCommand, json: bool) -> anyhow::Result<ExitCode> {
    let graph = store.graph();
    let now = elnor_engine::now();
    let (id, change) = match cmd {
        NodesCommand::List { all } => {
            let list = graph.nodes(*all)?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!(
                    "no durable knowledge yet; it comes from approving proposals \
                     (`elnor review list`)"
                );
            } else {
                for n in &list {
                    print_line(n);
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        NodesCommand::Show { id } => {
            let d = graph.node(id)?;
            if json {
                output::json(&d)?;
                return Ok(ExitCode::SUCCESS);
            }
            print_line(&d.node);
            let n = &d.node;
            if let Some(r) = &n.warrant_reason {
                println!("  warrant {}: {r}", n.warrant);
            }
            println!("  staleness: {}", n.staleness);
            if let Some(wc) = &n.work_context_id {
                println!("  work context: {wc}");
            }
            if let Some(due) = &n.due_at {
                println!("  due: {}", due.get(..10).unwrap_or(due));
            }
            if let Some(s) = &n.superseded_by {
                println!("  superseded by: {s}");
            }
            println!("  provenance:");
            for p in &d.provenance {
                println!("    {} {}", p.source_kind, p.source_ref);
            }
            println!("  history:");
            for h in &d.history {
                println!(
                    "    {} {}{}{}",
                    h.at.get(..16).unwrap_or(&h.at),
                    h.action,
                    h.text
                        .as_ref()
                        .map(|t| format!(" \"{t}\""))
                        .unwrap_or_default(),
                    h.note
                        .as_ref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default()
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        NodesCommand::Edit { id, text } => (id, Change::Edit(text.clone())),
        NodesCommand::Confirm { id } => (id, Change::Confirm),
        NodesCommand::Warrant {
            id,
            warrant,
            reason,
        } => (
            id,
            Change::Warrant(warrant.parse::<Warrant>()?, reason.clone()),
        ),
        NodesCommand::Retire { id, reason } => (id, Change::Retire(reason.clone())),
        NodesCommand::Supersede { id, text } => (id, Change::Supersede(text.clone())),
    };
    let node = elnor_engine::change_node(store, id, change, now)?;
    if json {
        output::json(&node)?;
    } else {
        print_line(&node);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_line(n: &Node) {
    println!(
        "{:<15} {:<16} {:<10} {:<17} {}",
        n.node_id.as_str(),
        n.kind.as_str(),
        n.lifecycle.as_str(),
        n.warrant.as_str(),
        n.text
    );
}
