//! `elnor setup claude-code|codex|openclaw` (ELNOR's hooks and MCP server merged into the
//! harness's own settings) and `elnor dreaming status|disable` (OpenClaw's Dreaming). Both edit
//! files that belong to the person, through the engine: a dry run prints the unified diff, a
//! real run says what it wrote and where the backup is. Neither opens the store.

use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use elnor_engine::{DreamingState, FileOutcome, HarnessPaths, SetupReport, SetupRequest};

use crate::cli::Args;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// The harness to set up.
    #[arg(value_parser = ["claude-code", "codex", "openclaw"])]
    pub harness: String,
    /// Print what would change as a unified diff; write nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub enum DreamingCommand {
    /// Whether OpenClaw's Dreaming runs, and what that means.
    Status,
    /// Turn Dreaming off in the OpenClaw config (a backup first; everything else kept).
    Disable {
        /// Print the change as a unified diff; write nothing.
        #[arg(long = "dry-run")]
        dry_run: bool,
    },
}

pub fn setup(args: &Args, a: &SetupArgs) -> anyhow::Result<ExitCode> {
    let paths = HarnessPaths::from_env()?;
    let harness = crate::hook_cmd::parse_harness(&a.harness)?;
    let elnor = std::env::current_exe().context("finding the running elnor executable")?;
    // The store the person chose, by flag or by $ELNOR_MEMORY: a harness runs its hooks with
    // its own environment, which may not carry that variable, so the choice is written out.
    let chosen = args.store.clone().or_else(|| {
        std::env::var_os(elnor_engine::StoreLocation::ENV)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    });
    let store = chosen
        .as_deref()
        .map(std::path::absolute)
        .transpose()
        .context("making the store path absolute")?;
    let report = elnor_engine::setup_harness(
        &paths,
        &SetupRequest {
            harness,
            elnor,
            store,
            dry_run: a.dry_run,
            now: elnor_engine::now(),
        },
    )?;
    if args.json {
        output::json(&report)?;
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(r: &SetupReport) {
    let label = r.harness.label();
    for f in &r.files {
        let what = match (f.outcome, r.dry_run) {
            (FileOutcome::Unchanged, _) => "already up to date",
            (FileOutcome::Created, true) => "would be created",
            (FileOutcome::Updated, true) => "would be updated",
            (FileOutcome::Created, false) => "created",
            (FileOutcome::Updated, false) => "updated",
        };
        println!("{}: {what} ({})", f.path.display(), f.purpose);
        if let Some(b) = &f.backup {
            println!("  the previous file is kept as {}", b.display());
        }
        if r.dry_run && !f.diff.is_empty() {
            print!("{}", f.diff);
        }
    }
    if !r.changes_anything() {
        println!("Nothing to change: ELNOR is already set up for {label}.");
    } else if r.dry_run {
        println!("Dry run: nothing was written.");
    }
    if !r.next_steps.is_empty() {
        println!("\nStill to do:");
        for (i, s) in r.next_steps.iter().enumerate() {
            println!("  {}. {s}", i + 1);
        }
    }
    if !r.notes.is_empty() {
        println!();
        for n in &r.notes {
            println!("Note: {n}");
        }
    }
}

pub fn dreaming(args: &Args, cmd: &DreamingCommand) -> anyhow::Result<ExitCode> {
    let paths = HarnessPaths::from_env()?;
    match cmd {
        DreamingCommand::Status => {
            let s = elnor_engine::dreaming_status(&paths);
            if args.json {
                output::json(&s)?;
                return Ok(ExitCode::SUCCESS);
            }
            let state = match &s.state {
                DreamingState::On { explicit: true } => "on".to_owned(),
                DreamingState::On { explicit: false } => {
                    "on (the config does not say; OpenClaw's default)".to_owned()
                }
                DreamingState::Off => "off".to_owned(),
                DreamingState::NoConfig => "no OpenClaw config found".to_owned(),
                DreamingState::Malformed { message } => format!("unknown: {message}"),
            };
            println!("OpenClaw Dreaming: {state}");
            println!("config: {}", s.path.display());
            println!("{}", s.what_it_does);
            if matches!(s.state, DreamingState::On { .. }) {
                println!("Turn it off: elnor dreaming disable (a backup is made first)");
                println!("Or by hand, add: {}", s.line_to_add);
            }
        }
        DreamingCommand::Disable { dry_run } => {
            let c = elnor_engine::disable_dreaming(&paths, *dry_run, elnor_engine::now())?;
            if args.json {
                output::json(&c)?;
                return Ok(ExitCode::SUCCESS);
            }
            if !c.changed {
                println!(
                    "Dreaming is already off in {}; nothing changed.",
                    c.path.display()
                );
            } else if *dry_run {
                print!("{}", c.diff);
                println!("Dry run: nothing was written.");
            } else {
                println!("Dreaming turned off in {}.", c.path.display());
                if let Some(b) = &c.backup {
                    println!("The previous file is kept as {}.", b.display());
                }
                println!("Restart the OpenClaw gateway for it to take effect.");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
