//! `elnor ingest` and `elnor sources`: reading transcripts into the store, with a progress bar on
//! a terminal and a full report under `--json`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use elnor_engine::Harness;
use elnor_engine::Store;
use elnor_engine::{IngestProgress, SourceRoot};
use indicatif::{ProgressBar, ProgressStyle};

use crate::output;

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Ingest this root instead of the configured sources: HARNESS=DIR, where HARNESS is
    /// openclaw, claude_code or codex (repeatable).
    #[arg(long = "root", value_name = "HARNESS=DIR")]
    roots: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum SourcesCommand {
    /// Show every source, whether it exists, and whether it is enabled.
    List,
    /// Add a root (enabled).
    Add { harness: String, root: PathBuf },
    /// Enable a listed root.
    Enable { harness: String, root: PathBuf },
    /// Disable a listed root (it stays listed).
    Disable { harness: String, root: PathBuf },
}

fn harness(name: &str) -> anyhow::Result<Harness> {
    Harness::parse(name)
        .with_context(|| format!("unknown harness {name:?}; use openclaw, claude_code or codex"))
}

fn absolute(root: &std::path::Path) -> anyhow::Result<PathBuf> {
    Ok(std::path::absolute(root)?)
}

/// The roots to read: `--root` specs when given, else the enabled configured sources.
pub fn roots(store: &Store, specs: &[String]) -> anyhow::Result<Vec<SourceRoot>> {
    Ok(if specs.is_empty() {
        store.sources().enabled_roots()?
    } else {
        specs
            .iter()
            .map(|spec| {
                let Some((h, dir)) = spec.split_once('=') else {
                    crate::usage!("--root takes HARNESS=DIR, got {spec:?}");
                };
                Ok(SourceRoot {
                    harness: harness(h)?,
                    root: absolute(std::path::Path::new(dir))?,
                })
            })
            .collect::<anyhow::Result<_>>()?
    })
}

pub fn ingest(store: &Store, args: &IngestArgs, json: bool) -> anyhow::Result<ExitCode> {
    let roots = roots(store, &args.roots)?;
    let bar = (!json && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} files  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let started = Instant::now();
    let report = elnor_engine::ingest(
        store,
        &roots,
        &mut |p: &IngestProgress| {
            if let Some(bar) = &bar {
                bar.set_length(p.files_total);
                bar.set_position(p.files_done);
                let secs = started.elapsed().as_secs_f64().max(0.001);
                bar.set_message(format!(
                    "{} records, {:.1} MB ({:.0} records/s, {:.1} MB/s)",
                    p.records,
                    p.bytes as f64 / 1e6,
                    p.records as f64 / secs,
                    p.bytes as f64 / 1e6 / secs
                ));
            }
        },
        elnor_engine::now(),
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let secs = started.elapsed().as_secs_f64();
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["roots"] = serde_json::to_value(&roots)?;
        value["elapsed_seconds"] = secs.into();
        output::json(&value)?;
    } else {
        println!(
            "{} files ({} unchanged, {} read, {} replaced) in {secs:.2} s",
            report.files_seen, report.files_unchanged, report.files_read, report.files_replaced
        );
        println!(
            "{} new records ({} conversation turns) in {} sessions; {} already stored; {:.1} MB read",
            report.records_added,
            report.turns_added,
            report.sessions_touched,
            report.duplicates_ignored,
            report.bytes_read as f64 / 1e6
        );
        for p in &report.problems {
            eprintln!(
                "  {}: {} × {}{}",
                p.path,
                p.count,
                p.problem,
                p.first_at
                    .map(|a| format!(" (first at {a})"))
                    .unwrap_or_default()
            );
        }
        if roots.is_empty() {
            println!(
                "No enabled transcript sources. Add one with: elnor sources add codex ~/.codex/sessions"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn sources(store: &Store, cmd: &SourcesCommand, json: bool) -> anyhow::Result<ExitCode> {
    let list = match cmd {
        SourcesCommand::List => store.sources().load()?,
        SourcesCommand::Add { harness: h, root } => {
            store.sources().add(harness(h)?, absolute(root)?)?
        }
        SourcesCommand::Enable { harness: h, root } => {
            store
                .sources()
                .set_enabled(harness(h)?, &absolute(root)?, true)?
        }
        SourcesCommand::Disable { harness: h, root } => {
            store
                .sources()
                .set_enabled(harness(h)?, &absolute(root)?, false)?
        }
    };
    if json {
        let rows: Vec<_> = list
            .iter()
            .map(|s| {
                serde_json::json!({
                    "harness": s.harness, "root": s.root, "enabled": s.enabled,
                    "exists": s.root.is_dir(),
                })
            })
            .collect();
        output::json(&rows)?;
    } else {
        for s in &list {
            println!(
                "{:<12} {:<9} {:<10} {}",
                s.harness.as_str(),
                if s.enabled { "enabled" } else { "disabled" },
                if s.root.is_dir() {
                    "found"
                } else {
                    "not found"
                },
                s.root.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
