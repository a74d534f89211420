//! `elnor review …` (the promotion review queue: nothing durable enters the graph without the
//! person's decision) and `elnor nightly` (the nightly job, for headless use).

use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::OsKeyring;
use elnor_engine::Store;
use elnor_engine::{Proposal, ReviewDecision};

use crate::output;

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// The queue: pending proposals, then deferred ones (`--all` adds decided ones).
    List {
        #[arg(long)]
        all: bool,
    },
    /// One proposal with its evidence.
    Show { id: i64 },
    /// Approve proposals (with --text, one proposal in your own words); writes the graph.
    Approve {
        #[arg(required = true)]
        ids: Vec<i64>,
        #[arg(long)]
        text: Option<String>,
    },
    /// Reject proposals; they come back only with new evidence.
    Reject {
        #[arg(required = true)]
        ids: Vec<i64>,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Put proposals aside; they stay in the queue after the pending ones.
    Defer {
        #[arg(required = true)]
        ids: Vec<i64>,
    },
    /// Evaluate the promotion rules now (the nightly job does this too).
    Evaluate,
}

pub fn review(store: &Store, cmd: &ReviewCommand, json: bool) -> anyhow::Result<ExitCode> {
    let graph = store.graph();
    let now = elnor_engine::now();
    match cmd {
        ReviewCommand::List { all } => {
            let list = graph.proposals(*all)?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!(
                    "nothing to review; the nightly job (`elnor nightly`) proposes obligations and \
                     directives from the continuity logs"
                );
            } else {
                for p in &list {
                    print_line(p);
                }
            }
            let memberships = elnor_engine::membership_proposals(store)?.len();
            if !json && memberships > 0 {
                println!(
                    "{memberships} Topic membership proposal(s) wait too: `elnor topics proposals`"
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        ReviewCommand::Show { id } => {
            let p = graph.proposal(*id)?;
            if json {
                output::json(&p)?;
            } else {
                print_line(&p);
                println!("  because: {}", p.evidence.because);
                println!(
                    "  entry {} in {} (captured {})",
                    p.entry_id,
                    p.work_context_id,
                    p.evidence.captured_at.format("%Y-%m-%d")
                );
                let sessions: Vec<&str> = p.evidence.sessions.iter().map(|s| s.as_str()).collect();
                println!("  sessions: {}", sessions.join(", "));
                if let Some(r) = p.renews {
                    println!("  renews rejected proposal #{r}: the evidence has changed since");
                }
                if let Some(n) = &p.decision_note {
                    println!("  note: {n}");
                }
                if let Some(n) = &p.node_id {
                    println!("  node: {n}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ReviewCommand::Approve { ids, text } => decide(
            store,
            ids,
            ReviewDecision::Approve { text: text.clone() },
            json,
        ),
        ReviewCommand::Reject { ids, reason } => decide(
            store,
            ids,
            ReviewDecision::Reject {
                reason: reason.clone(),
            },
            json,
        ),
        ReviewCommand::Defer { ids } => decide(store, ids, ReviewDecision::Defer, json),
        ReviewCommand::Evaluate => {
            let e = elnor_engine::evaluate_promotions(store, now)?;
            if json {
                output::json(&e)?;
            } else {
                println!(
                    "{} new proposal(s) ({} renewed after new evidence); {} already known",
                    e.proposed.len(),
                    e.renewed.len(),
                    e.already_known
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Decides every proposal the engine can, prints them, and reports each one it could not (on
/// stderr); the exit code is then the first failure's.
fn decide(
    store: &Store,
    ids: &[i64],
    decision: ReviewDecision,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let outcome = elnor_engine::decide_proposals(store, ids, &decision, elnor_engine::now())?;
    if json {
        output::json(&outcome.decided)?;
    } else {
        for p in &outcome.decided {
            print_line(p);
        }
    }
    let mut code = ExitCode::SUCCESS;
    for (n, f) in outcome.failed.into_iter().enumerate() {
        let err = anyhow::Error::new(f.error).context(format!("proposal #{}", f.proposal_id));
        if n == 0 {
            code = ExitCode::from(output::exit_code(&err));
        }
        output::print_error(&err, json);
    }
    Ok(code)
}

fn print_line(p: &Proposal) {
    println!(
        "#{:<4} {:<9} {:<16} {}{}",
        p.proposal_id,
        p.status,
        p.node_kind.as_str(),
        p.text,
        p.node_id
            .as_ref()
            .map(|n| format!("  → {n}"))
            .unwrap_or_default()
    );
}

pub fn nightly(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let report = elnor_engine::run_nightly(store, &OsKeyring::new(), elnor_engine::now())?;
    if json {
        output::json(&report)?;
    } else {
        println!(
            "nightly job: {} session(s) captured, {} failed; {} proposal(s) ({} renewed); {} of {} \
             node(s) degraded; {} view(s) rebuilt; rollup with {} segment(s)",
            report.captured,
            report.capture_failures.len(),
            report.promotions.proposed.len(),
            report.promotions.renewed.len(),
            report.nodes.degraded.len(),
            report.nodes.checked,
            report.views_rebuilt,
            report.rollup_segments
        );
        for d in &report.nodes.degraded {
            println!("  {} {} → {}: {}", d.node_id, d.from, d.to, d.reason);
        }
        let u = &report.research_utility;
        if let Some(pct) = u.useful_pct() {
            println!(
                "research captures: {} tracked, {pct}% of later use ({} restated, {} briefed, {} \
                 promoted, {} untouched)",
                u.captures, u.referenced, u.briefed, u.promoted, u.untouched
            );
        }
        for (session, why) in &report.capture_failures {
            println!("  capture of {session} failed: {why}");
        }
        if !report.promotions.proposed.is_empty() {
            println!("review them with `elnor review list`");
        }
    }
    Ok(ExitCode::SUCCESS)
}
