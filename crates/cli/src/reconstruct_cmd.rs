//! `elnor reconstruct`: capture the stored raw turns again into a scratch store (today's
//! detectors, or the synthesis model) and show what would change per work context; `--apply`
//! makes the live store match, keeping what you reviewed. See docs/RECONSTRUCT.md.

use std::process::ExitCode;

use clap::Args as ClapArgs;
use elnor_engine::{
    OsKeyring, ReconstructMode, ReconstructReport, ReconstructRequest, Store, WorkContextId,
};

use crate::output;

/// The first this many diff lines of each work context are printed; the rest are counted.
const LINES_PER_CONTEXT: usize = 50;

#[derive(Debug, ClapArgs)]
pub struct ReconstructArgs {
    /// Only this work context (the replay still covers every captured window).
    #[arg(long = "context", value_name = "WC_ID")]
    pub context: Option<String>,
    /// `deterministic` (today's detectors) or `model` (the configured synthesis model).
    #[arg(long, value_name = "MODE", default_value = "deterministic")]
    pub mode: String,
    /// Make the live store match the replay (your reviewed entries are kept; a backup of every
    /// rewritten log goes to continuity/backup/).
    #[arg(long)]
    pub apply: bool,
}

pub fn reconstruct(store: &Store, args: &ReconstructArgs, json: bool) -> anyhow::Result<ExitCode> {
    let req = ReconstructRequest {
        mode: ReconstructMode::parse(&args.mode)?,
        work_context: args.context.clone().map(WorkContextId::new).transpose()?,
        apply: args.apply,
    };
    let report = elnor_engine::reconstruct(store, &req, &OsKeyring::new(), elnor_engine::now())?;
    if json {
        output::json(&report)?;
    } else {
        print_human(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_human(r: &ReconstructReport) {
    let mode = match r.mode {
        ReconstructMode::Deterministic => "deterministic",
        ReconstructMode::Model => "model",
    };
    println!(
        "Replayed {} capture window(s) of {} session(s) ({mode}).",
        r.windows, r.sessions
    );
    if r.windows_empty > 0 {
        println!("  {} window(s) captured nothing on replay", r.windows_empty);
    }
    if r.fallbacks > 0 {
        println!(
            "  the model failed on {} window(s); the detectors stood in ({})",
            r.fallbacks,
            r.fallback_reason.as_deref().unwrap_or("no reason given")
        );
    }
    let t = &r.totals;
    println!(
        "Total: {} same, {} to add, {} to remove, {} changed, {} kept (reviewed by you)",
        t.same, t.added, t.removed, t.changed, t.kept
    );
    for c in &r.contexts {
        let n = &c.counts;
        println!(
            "\n{}: {} same, +{} -{} ~{} !{}",
            c.work_context_id, n.same, n.added, n.removed, n.changed, n.kept
        );
        for item in c.items.iter().take(LINES_PER_CONTEXT) {
            for line in item.line().lines() {
                println!("  {line}");
            }
        }
        if c.items.len() > LINES_PER_CONTEXT {
            println!("  … {} more", c.items.len() - LINES_PER_CONTEXT);
        }
    }
    match &r.applied {
        Some(a) => {
            println!(
                "\nApplied: {} entr(ies) added, {} removed, {} changed, {} kept; {} summar(ies) written, {} removed; {} session(s) moved.",
                a.entries_added,
                a.entries_removed,
                a.entries_changed,
                a.kept,
                a.summaries_written,
                a.summaries_removed,
                a.sessions_moved
            );
            for b in &a.backups {
                println!("  backup: {}", b.display());
            }
        }
        None if r.differences() > 0 => println!("\nNothing changed; --apply makes these changes."),
        None => println!("\nNo differences."),
    }
}
