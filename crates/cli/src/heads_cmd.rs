//! `elnor heads …`: the global head (`heads/MEMORY.md`) and the thread heads, shown, refreshed,
//! or written into a marked block of a file another tool reads. Each command converts its
//! arguments and makes one engine call; the leases, deferrals and kept edits are the engine's.
//!
//! A write that did not happen says so in its exit code: 6 when another writer held the lease
//! (the write is deferred and the next refresh retries it), 7 when the block holds a person's
//! edit (kept, saved as a proposal; `--replace-edits` overwrites it).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use elnor_engine::{
    HeadScope, HeadView, HeadWriteReport, HeadWriteStatus, HeadsRefresh, Store, WorkContextId,
};

use crate::output::{self, code};

#[derive(Debug, Subcommand)]
pub enum HeadsCommand {
    /// Print a head as it stands now, with the edits kept from its blocks and its deferred writes.
    Show {
        /// A work context's thread head instead of the global head.
        #[arg(long, value_name = "WC_ID")]
        thread: Option<String>,
    },
    /// Rewrite every thread head and the global head under `heads/`, then retry deferred writes.
    Refresh,
    /// Write a head into a marked block of PATH (created if absent; every other byte kept).
    Write {
        /// The file to write into.
        #[arg(long = "to", value_name = "PATH")]
        to: PathBuf,
        /// A work context's thread head instead of the global head.
        #[arg(long, value_name = "WC_ID")]
        thread: Option<String>,
        /// Overwrite the block even though a person edited it (their edit was saved as a
        /// proposal when it was first found).
        #[arg(long)]
        replace_edits: bool,
    },
}

fn scope(thread: Option<&str>) -> anyhow::Result<HeadScope> {
    Ok(match thread {
        Some(wc) => HeadScope::Thread(WorkContextId::new(wc)?),
        None => HeadScope::Global,
    })
}

pub fn heads(store: &Store, cmd: &HeadsCommand, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    match cmd {
        HeadsCommand::Show { thread } => {
            let view = elnor_engine::show_head(store, &scope(thread.as_deref())?, now)?;
            if json {
                output::json(&view)?;
            } else {
                print_view(&view);
            }
            Ok(ExitCode::SUCCESS)
        }
        HeadsCommand::Refresh => {
            let refresh = elnor_engine::refresh_heads(store, now)?;
            if json {
                output::json(&refresh)?;
            } else {
                print_refresh(&refresh);
            }
            Ok(if !refresh.failures.is_empty() {
                ExitCode::from(code::STORAGE)
            } else if refresh.deferred() > 0 {
                ExitCode::from(code::DEFERRED)
            } else {
                ExitCode::SUCCESS
            })
        }
        HeadsCommand::Write {
            to,
            thread,
            replace_edits,
        } => {
            let report = elnor_engine::write_head(
                store,
                &scope(thread.as_deref())?,
                to,
                *replace_edits,
                now,
            )?;
            if json {
                output::json(&report)?;
            } else {
                print_report(&report);
            }
            Ok(match report.status {
                HeadWriteStatus::Written | HeadWriteStatus::Unchanged => ExitCode::SUCCESS,
                HeadWriteStatus::Deferred => ExitCode::from(code::DEFERRED),
                HeadWriteStatus::EditsKept => ExitCode::from(code::EDITS_KEPT),
            })
        }
    }
}

fn print_view(view: &HeadView) {
    print!("{}", view.head.text);
    eprintln!("({} of {} tokens)", view.head.tokens, view.head.cap);
    for p in &view.proposals {
        eprintln!(
            "kept edit from {} (found {}): {}",
            p.target.display(),
            p.detected_at.format("%Y-%m-%d %H:%M UTC"),
            p.body_path.display()
        );
    }
    for d in &view.deferred {
        let target = d.file.as_ref().map_or_else(
            || "the store's head file".to_owned(),
            |f| f.display().to_string(),
        );
        eprintln!(
            "deferred write to {target} since {} (lease held by {}, pid {} on {})",
            d.deferred_at.format("%Y-%m-%d %H:%M:%S UTC"),
            d.held_by.owner,
            d.held_by.pid,
            d.held_by.host
        );
    }
}

fn print_report(r: &HeadWriteReport) {
    let path = r.path.display();
    match r.status {
        HeadWriteStatus::Written => println!("wrote the {} head to {path}", r.scope.key()),
        HeadWriteStatus::Unchanged => println!("{path} already holds the {} head", r.scope.key()),
        HeadWriteStatus::Deferred => {
            let who = r.held_by.as_ref().map_or_else(String::new, |h| {
                format!(
                    " ({}, pid {} on {}, until {})",
                    h.owner,
                    h.pid,
                    h.host,
                    h.expires_at.format("%H:%M:%S UTC")
                )
            });
            eprintln!(
                "deferred: another writer holds {path}{who}; the write is recorded and \
                 `elnor heads refresh` retries it"
            );
        }
        HeadWriteStatus::EditsKept => {
            let saved = r.proposal.as_ref().map_or_else(String::new, |p| {
                format!(" (saved as {})", p.body_path.display())
            });
            eprintln!(
                "not written: someone edited the {} block in {path}; their edit is kept{saved}. \
                 Run again with --replace-edits to overwrite it",
                r.scope.key()
            );
        }
    }
}

fn print_refresh(r: &HeadsRefresh) {
    for report in &r.reports {
        print_report(report);
    }
    for f in &r.failures {
        eprintln!("failed: the {} head: {}", f.scope.key(), f.error);
    }
}
