//! `elnor push`, `elnor observations`, `elnor folders` and `elnor timeline`: external observation
//! (CSA §9) from the command line. A push is the person's "I just did X"; observations are what
//! the file watcher (`elnor watch`, or the desktop app) saw in the tracked folders and every push;
//! the timeline puts them beside sessions, captures and promotions.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use elnor_engine::TimelineItemKind;
use elnor_engine::{Observation, ObservationFilter, ObservationSource, Push};
use elnor_engine::{Store, WorkContextId};

use crate::output;

#[derive(Debug, Args)]
pub struct PushArgs {
    /// What you did, in your words ("Sent the Henderson brief to legal").
    text: String,
    /// The work context it belongs to; that context hears of it directly.
    #[arg(long = "context", value_name = "WC")]
    context: Option<String>,
    /// An entity it is about (repeatable); a name not in the graph becomes a new entity.
    #[arg(long = "entity", value_name = "NAME")]
    entities: Vec<String>,
    /// Only say where the push would reach (entities, the context it lands in, the contexts told
    /// through its entities), storing nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub enum ObservationsCommand {
    /// Observations, newest first.
    List {
        #[arg(long = "context", value_name = "WC")]
        context: Option<String>,
        /// `file` or `push`.
        #[arg(long)]
        source: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// One observation, with the headings and links of a markdown file.
    Show { id: i64 },
}

#[derive(Debug, Subcommand)]
pub enum FoldersCommand {
    /// The tracked folders, the ignore rules, and what the watcher remembers.
    List,
    /// Track a folder: its files are recorded silently once, then every change is observed.
    Add { path: PathBuf },
    /// Stop tracking a folder; what was observed in it stays.
    Remove { path: PathBuf },
    /// Replace your ignore patterns (globs such as `*.bak` or `drafts/**`); none clears them.
    Ignore { patterns: Vec<String> },
    /// Compare every tracked folder with what was recorded, once, and store what changed (a
    /// folder's first scan records it silently). `elnor watch` does this continuously.
    Scan,
}

#[derive(Debug, Args)]
pub struct TimelineArgs {
    /// Days back from today; 36500 (or more) for all of history. Windows past 120 days are
    /// counted per week, past 730 per month.
    #[arg(long, default_value_t = elnor_engine::TIMELINE_DEFAULT_DAYS)]
    days: u32,
    #[arg(long = "context", value_name = "WC")]
    context: Option<String>,
    /// session, capture, observation, push or promotion (repeatable).
    #[arg(long = "kind")]
    kinds: Vec<String>,
    /// openclaw, claude_code or codex: that harness's sessions and captures only.
    #[arg(long)]
    harness: Option<String>,
    #[arg(long, default_value_t = 50)]
    limit: u32,
}

pub fn push(store: &Store, args: &PushArgs, json: bool) -> anyhow::Result<ExitCode> {
    let work_context = args.context.clone().map(WorkContextId::new).transpose()?;
    let push = Push {
        text: args.text.clone(),
        work_context,
        entities: args.entities.clone(),
    };
    if args.dry_run {
        let reach = elnor_engine::preview_push(store, &push)?;
        if json {
            output::json(&reach)?;
        } else {
            println!("would reach (nothing stored):");
            print_reach(&reach);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = elnor_engine::push(store, &push, elnor_engine::now())?;
    if json {
        output::json(&out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let o = &out.observation;
    println!("pushed observation {}", o.observation_id);
    print_reach(&out.reach);
    println!(
        "  {} cross-conversation update(s) written; the next brief of each context shows it",
        o.updates_written
    );
    Ok(ExitCode::SUCCESS)
}

/// The entities a push touches, where it lands and who is told, one line each.
fn print_reach(r: &elnor_engine::PushReach) {
    for e in &r.entities {
        println!("  entity   {} ({})", e.name, e.found.describe());
    }
    match &r.work_context {
        Some(c) => println!("  lands in {} ({})", c.name, c.found.describe()),
        None => println!("  lands in no work context"),
    }
    for c in &r.told {
        println!(
            "  tells    {} (through {})",
            c.name,
            c.via_entity.as_deref().unwrap_or("an entity")
        );
    }
}

pub fn observations(
    store: &Store,
    cmd: &ObservationsCommand,
    json: bool,
) -> anyhow::Result<ExitCode> {
    match cmd {
        ObservationsCommand::List {
            context,
            source,
            limit,
        } => {
            let source = source
                .as_deref()
                .map(|s| {
                    ObservationSource::parse(s)
                        .with_context(|| format!("unknown source `{s}`; use file or push"))
                })
                .transpose()?;
            let list = store.graph().observations(&ObservationFilter {
                work_context: context.clone().map(WorkContextId::new).transpose()?,
                source,
                since: None,
                limit: *limit,
            })?;
            if json {
                output::json(&list)?;
            } else if list.is_empty() {
                println!(
                    "no observations yet: push one (`elnor push \"I just did X\"`) or track a \
                     folder (`elnor folders add DIR`) and run `elnor watch`"
                );
            } else {
                for o in &list {
                    print_line(o);
                }
            }
        }
        ObservationsCommand::Show { id } => {
            let o = store.graph().observation(*id)?;
            if json {
                output::json(&o)?;
            } else {
                print_line(&o);
                if let Some(from) = &o.from_path {
                    println!("  from: {}", from.display());
                }
                if let Some(wc) = &o.work_context_id {
                    println!("  work context: {wc}");
                }
                for (id, name) in &o.entities {
                    println!("  entity: {name} ({id})");
                }
                if let Some(d) = &o.details {
                    println!("  outline: {d}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_line(o: &Observation) {
    let what = match (&o.path, o.source) {
        (_, ObservationSource::Push) => format!("push: {}", o.text),
        (Some(p), _) => format!("{} {} — {}", o.kind.as_str(), p.display(), o.text),
        (None, _) => o.text.clone(),
    };
    println!(
        "{:>6}  {}  {what}",
        o.observation_id,
        o.observed_at.format("%Y-%m-%d %H:%M")
    );
}

pub fn folders(store: &Store, cmd: &FoldersCommand, json: bool) -> anyhow::Result<ExitCode> {
    let file = store.tracked_folders();
    let config = match cmd {
        FoldersCommand::Scan => return scan(store, json),
        FoldersCommand::List => file.load()?,
        FoldersCommand::Add { path } => {
            let path = std::path::absolute(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            file.add(&path)?
        }
        FoldersCommand::Remove { path } => {
            let path = std::path::absolute(path)
                .with_context(|| format!("cannot resolve {}", path.display()))?;
            file.remove(&path)?
        }
        FoldersCommand::Ignore { patterns } => file.set_ignore_patterns(patterns.clone())?,
    };
    let files = elnor_engine::tracked_file_count(store)?;
    if json {
        output::json(&serde_json::json!({
            "folders": config.folders,
            "ignore_patterns": config.ignore_patterns,
            "default_ignores": elnor_engine::default_ignores(),
            "files_remembered": files,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    if config.folders.is_empty() {
        println!("no tracked folders; add one with `elnor folders add DIR`");
    }
    for f in &config.folders {
        let state = if f.is_dir() {
            ""
        } else {
            "  (missing: watched again when it is back)"
        };
        println!("{}{state}", f.display());
    }
    if !config.ignore_patterns.is_empty() {
        println!("your ignore patterns: {}", config.ignore_patterns.join(" "));
    }
    println!(
        "built-in ignores: {}",
        elnor_engine::default_ignores().join(" ")
    );
    println!("files remembered: {files}; `elnor watch` (or the desktop app) observes changes");
    Ok(ExitCode::SUCCESS)
}

fn scan(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let observed = elnor_engine::reconcile_folders(store, elnor_engine::now())?.observations;
    if json {
        output::json(&observed)?;
    } else {
        for o in &observed {
            print_line(o);
        }
        println!(
            "{} change(s) observed; {} file(s) remembered",
            observed.len(),
            elnor_engine::tracked_file_count(store)?
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn timeline(store: &Store, args: &TimelineArgs, json: bool) -> anyhow::Result<ExitCode> {
    let kinds = args
        .kinds
        .iter()
        .map(|k| TimelineItemKind::parse(k))
        .collect::<Result<Vec<_>, _>>()?;
    let t = elnor_engine::timeline(
        store,
        &elnor_engine::TimelineFilter {
            work_context: args.context.clone().map(WorkContextId::new).transpose()?,
            kinds,
            harness: args.harness.clone(),
            days: args.days,
            limit: args.limit,
        },
        elnor_engine::now(),
    )?;
    if json {
        output::json(&t)?;
        return Ok(ExitCode::SUCCESS);
    }
    if t.items.is_empty() {
        println!(
            "nothing in the last {} day(s) with these filters",
            args.days
        );
    }
    for i in &t.items {
        let wc = i
            .work_context_name
            .as_deref()
            .or(i.work_context_id.as_ref().map(|w| w.as_str()))
            .map(|w| format!(" [{w}]"))
            .unwrap_or_default();
        println!(
            "{}  {:<11} {}{wc}",
            i.at.format("%Y-%m-%d %H:%M"),
            i.kind.as_str(),
            i.title
        );
    }
    if t.truncated {
        println!("… more; raise --limit or narrow the filters");
    }
    let active: Vec<String> = t
        .days
        .iter()
        .filter(|d| !d.counts.is_empty())
        .map(|d| {
            format!(
                "{} {}",
                d.day,
                d.counts.iter().map(|c| c.count).sum::<u32>()
            )
        })
        .collect();
    if !active.is_empty() {
        let per = match t.bucket {
            elnor_engine::TimelineBucket::Day => "day",
            elnor_engine::TimelineBucket::Week => "week",
            elnor_engine::TimelineBucket::Month => "month",
        };
        println!("activity per {per}: {}", active.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}
