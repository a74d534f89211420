//! The argument grammar (clap derive) and the dispatch of each verb to the engine.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use elnor_engine::{CONFIG_FIELDS, config_field};
use elnor_engine::{Status, Store, StoreLocation};
use serde_json::Value;

use crate::log_cmd::{self, LogCommand};
use crate::output::{self, code};

/// ELNOR Knowledge Manager: continuity for your AI agents, under your control.
#[derive(Debug, Parser)]
#[command(name = "elnor", version, about, long_about = None)]
pub struct Args {
    /// Store directory. Defaults to $ELNOR_MEMORY, else the platform data dir.
    #[arg(long, global = true, value_name = "DIR")]
    pub store: Option<PathBuf>,

    /// Print JSON instead of human text (errors go to stderr as JSON too).
    #[arg(long, global = true)]
    pub json: bool,

    /// Run as if it were this moment (RFC 3339), for replays and tests; overrides $ELNOR_NOW.
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the store (directory layout, graph, default config); harmless if it exists.
    Init,
    /// Show the store: path, schema version, counts and config summary.
    Status,
    /// What needs you first, then where each project stands (what the app opens on).
    Today,
    /// Capture health: what each transcript source and harness recorded lately, silences, parse
    /// problems, sessions that ended uncaptured.
    Doctor,
    /// Read or change the continuity config.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Sync this store with your other machines through a git remote you own.
    Sync(crate::sync_cmd::SyncArgs),
    /// Append to or read a work context's continuity log.
    #[command(subcommand)]
    Log(LogCommand),
    /// Read new transcript records from every enabled source (or from --root).
    Ingest(crate::ingest_cmd::IngestArgs),
    /// List, enable or disable transcript sources.
    #[command(subcommand)]
    Sources(crate::ingest_cmd::SourcesCommand),
    /// List sessions, read a transcript, or summarise a session.
    #[command(subcommand)]
    Sessions(crate::sessions_cmd::SessionsCommand),
    /// Capture sessions into their work contexts' continuity logs (CSA §5).
    Capture(crate::capture_cmd::CaptureArgs),
    /// Ingest and capture continuously as transcripts change, until stopped.
    Watch(crate::capture_cmd::WatchArgs),
    /// List, create, edit and merge entities.
    #[command(subcommand)]
    Entities(crate::graph_cmd::EntitiesCommand),
    /// List, create, edit and merge work contexts and their link rules.
    #[command(subcommand)]
    Contexts(crate::graph_cmd::ContextsCommand),
    /// The synthesis model for full mode: settings, connection test, API key in the OS keyring.
    #[command(subcommand)]
    Model(crate::model_cmd::ModelCommand),
    /// The brief a fresh agent session gets: three tiers within 420 tokens (CSA §6).
    Brief(crate::brief_cmd::BriefArgs),
    /// Show or rebuild work contexts' constellation views (CSA §4).
    #[command(subcommand)]
    Constellation(crate::brief_cmd::ConstellationCommand),
    /// Regenerate the Tier 2 rollup of recent activity and print it.
    Rollup,
    /// The global head (heads/MEMORY.md) and the thread heads: show, refresh, or write one into
    /// a marked block of another tool's file.
    #[command(subcommand)]
    Heads(crate::heads_cmd::HeadsCommand),
    /// Your stable facts and preferences: Tier 3 of every brief.
    #[command(subcommand)]
    Facts(crate::brief_cmd::FactsCommand),
    /// Brief assembly traces: why each candidate is in a brief or not.
    #[command(subcommand)]
    Traces(crate::brief_cmd::TracesCommand),
    /// The lineage DAG: drill down from a node, a brief line, an entry or a turn to the raw
    /// turns (CLOSURE §1), or rebuild it.
    #[command(subcommand)]
    Lineage(crate::lineage_cmd::LineageCommand),
    /// The promotion review queue: approve, reject or defer proposed durable knowledge.
    #[command(subcommand)]
    Review(crate::review_cmd::ReviewCommand),
    /// Durable knowledge: list, show, edit, confirm, set the warrant, retire, supersede.
    #[command(subcommand)]
    Nodes(crate::nodes_cmd::NodesCommand),
    /// Run the nightly job now: sweep, promotion rules, node lifecycle, utility, views, rollup.
    Nightly,
    /// Tell your agents what you just did ("I just did X"); other work contexts hear of it.
    Push(crate::observe_cmd::PushArgs),
    /// What the file watcher saw in the tracked folders, and your pushes.
    #[command(subcommand)]
    Observations(crate::observe_cmd::ObservationsCommand),
    /// The folders the file watcher tracks, and what it ignores.
    #[command(subcommand)]
    Folders(crate::observe_cmd::FoldersCommand),
    /// Sessions, captures, observations, pushes and promotions over time.
    Timeline(crate::observe_cmd::TimelineArgs),
    /// Search everything the agents and you said or wrote; every result says why it ranked there.
    Query(crate::search_cmd::QueryArgs),
    /// Let an agent session's searches read every work context (permission `all`), or revoke it.
    QueryGrant(crate::search_cmd::GrantArgs),
    /// Topics: saved lenses over what ELNOR holds, and the members their directives propose.
    #[command(subcommand)]
    Topics(crate::topics_cmd::TopicsCommand),
    /// Your documents by collection and folder, and who refers to each (the Library).
    #[command(subcommand)]
    Library(crate::library_cmd::LibraryCommand),
    /// Capture the stored turns again (today's detectors, or --mode model) into a scratch store
    /// and show what would change per work context; --apply makes it so, keeping what you
    /// reviewed.
    Reconstruct(crate::reconstruct_cmd::ReconstructArgs),
    /// Delete the search index and build it again from the store.
    Reindex,
    /// Embed what the search index holds with the local model, so searches find meaning too.
    Embed(crate::search_cmd::EmbedArgs),
    /// Serve agents over the Model Context Protocol on stdin/stdout (for a harness's MCP
    /// settings; docs/HARNESSES.md).
    Mcp,
    /// The one command every harness hook runs: reads the hook's JSON on stdin, records the
    /// fire, and does what the event needs (the brief at SessionStart, a capture at PreCompact
    /// and SessionEnd, nothing at Stop).
    Hook(crate::hook_cmd::HookArgs),
    /// Merge ELNOR's hooks and MCP server into a harness's own settings (a backup first; every
    /// other setting kept; --dry-run shows the diff). Reads $CODEX_HOME, $OPENCLAW_CONFIG_PATH,
    /// $OPENCLAW_STATE_DIR and $OPENCLAW_HOME for where the harnesses keep their settings.
    Setup(crate::setup_cmd::SetupArgs),
    /// OpenClaw's Dreaming: whether it runs beside ELNOR, and turning it off.
    #[command(subcommand)]
    Dreaming(crate::setup_cmd::DreamingCommand),
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print one field, or every field with its allowed values.
    Get {
        /// A config key such as `mode`; omit for all.
        key: Option<String>,
    },
    /// Validate and set one field (the file is replaced atomically).
    Set {
        key: String,
        /// The new value; `null` unsets optional text.
        value: String,
    },
}

pub(crate) fn open(args: &Args) -> anyhow::Result<Store> {
    let root = StoreLocation::resolve(args.store.clone())?;
    Ok(Store::open(&root)?)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The clock first: every verb reads "now" through the engine's clock.
    elnor_engine::init_clock_from_env()?;
    if let Some(at) = &args.now {
        elnor_engine::set_now(Some(elnor_engine::parse_time(at)?));
    }
    // These never open the store: a hook handles its own errors (its exit code means something
    // to the harness), and setup and Dreaming edit the harnesses' files only.
    match &args.command {
        Command::Hook(a) => return Ok(crate::hook_cmd::hook(&args, a)),
        Command::Setup(a) => return crate::setup_cmd::setup(&args, a),
        Command::Dreaming(c) => return crate::setup_cmd::dreaming(&args, c),
        _ => {}
    }
    let store = open(&args)?;
    match &args.command {
        Command::Init => init(&store, args.json),
        Command::Status => status(&store, args.json),
        Command::Config(ConfigCommand::Get { key }) => {
            config_get(&store, key.as_deref(), args.json)
        }
        Command::Config(ConfigCommand::Set { key, value }) => {
            let config = elnor_engine::configure(&store, key, value, elnor_engine::now())?;
            let value = config.get(key)?;
            if args.json {
                output::json(&serde_json::json!({ "key": key, "value": value }))?;
            } else {
                println!("{key} = {value}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Today => crate::today_cmd::today(&store, args.json),
        Command::Reconstruct(a) => crate::reconstruct_cmd::reconstruct(&store, a, args.json),
        Command::Doctor => crate::doctor_cmd::doctor(&store, args.json),
        Command::Sync(a) => crate::sync_cmd::sync(&store, a, args.json),
        Command::Log(cmd) => log_cmd::run(&store, cmd, args.json),
        Command::Ingest(a) => crate::ingest_cmd::ingest(&store, a, args.json),
        Command::Sources(cmd) => crate::ingest_cmd::sources(&store, cmd, args.json),
        Command::Sessions(cmd) => crate::sessions_cmd::run(&store, cmd, args.json),
        Command::Capture(a) => crate::capture_cmd::capture_cmd(&store, a, args.json),
        Command::Watch(a) => crate::capture_cmd::watch(&store, a, args.json),
        Command::Entities(cmd) => crate::graph_cmd::entities(&store, cmd, args.json),
        Command::Contexts(cmd) => crate::graph_cmd::contexts(&store, cmd, args.json),
        Command::Model(cmd) => crate::model_cmd::run(&store, cmd, args.json),
        Command::Brief(a) => crate::brief_cmd::brief_cmd(&store, a, args.json),
        Command::Constellation(cmd) => crate::brief_cmd::constellation_cmd(&store, cmd, args.json),
        Command::Rollup => crate::brief_cmd::rollup_cmd(&store, args.json),
        Command::Heads(cmd) => crate::heads_cmd::heads(&store, cmd, args.json),
        Command::Facts(cmd) => crate::brief_cmd::facts_cmd(&store, cmd, args.json),
        Command::Traces(cmd) => crate::brief_cmd::traces_cmd(&store, cmd, args.json),
        Command::Lineage(cmd) => crate::lineage_cmd::run(&store, cmd, args.json),
        Command::Review(cmd) => crate::review_cmd::review(&store, cmd, args.json),
        Command::Nodes(cmd) => crate::nodes_cmd::nodes(&store, cmd, args.json),
        Command::Nightly => crate::review_cmd::nightly(&store, args.json),
        Command::Push(a) => crate::observe_cmd::push(&store, a, args.json),
        Command::Observations(cmd) => crate::observe_cmd::observations(&store, cmd, args.json),
        Command::Folders(cmd) => crate::observe_cmd::folders(&store, cmd, args.json),
        Command::Timeline(a) => crate::observe_cmd::timeline(&store, a, args.json),
        Command::Query(a) => crate::search_cmd::query(&store, a, args.json),
        Command::Library(c) => crate::library_cmd::library(&store, c, args.json),
        Command::Topics(c) => crate::topics_cmd::topics(&store, c, args.json),
        Command::QueryGrant(a) => crate::search_cmd::grant(&store, a, args.json),
        Command::Reindex => crate::search_cmd::reindex(&store, args.json),
        Command::Embed(a) => crate::search_cmd::embed(&store, a, args.json),
        Command::Mcp => mcp(store),
        Command::Hook(_) | Command::Setup(_) | Command::Dreaming(_) => {
            unreachable!("dispatched before the store is opened")
        }
    }
}

/// `elnor mcp`: serves until the client closes the connection. The folder the harness started
/// the server in stands for the agent's folder when a tool is not told one.
fn mcp(store: Store) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    elnor_mcp::serve_stdio(store, elnor_mcp::Context { cwd })?;
    Ok(ExitCode::SUCCESS)
}

fn init(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    // An existing store is fine, but one whose config is broken is not "ready".
    store.config()?;
    let status = store.status()?;
    if json {
        output::json(&serde_json::json!({
            "store_path": status.store_path,
            "schema_version": status.schema_version,
        }))?;
    } else {
        println!("store ready at {}", status.store_path.display());
        println!("graph schema version {}", status.schema_version);
    }
    Ok(ExitCode::SUCCESS)
}

fn status(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let status = store.status()?;
    if json {
        output::json(&status)?;
    } else {
        print_status(&status);
    }
    // Counts are still worth printing when the config is broken, but the exit code must say so.
    Ok(match status.config_error {
        Some(_) => ExitCode::from(code::CONFIG),
        None => ExitCode::SUCCESS,
    })
}

fn print_status(s: &Status) {
    println!("store            {}", s.store_path.display());
    println!(
        "schema version   {} (continuity log v{})",
        s.schema_version, s.log_schema_version
    );
    println!("entities         {}", s.entities);
    println!("work contexts    {}", s.work_contexts);
    println!("continuity logs  {}", s.continuity_logs);
    println!("entries          {}", s.entries_total);
    for (kind, n) in &s.entries_by_type {
        println!("  {kind:<27}{n}");
    }
    println!(
        "sessions         {} ({} transcript records)",
        s.sessions, s.transcript_records
    );
    if s.skipped_lines > 0 {
        println!(
            "skipped lines    {} (unreadable; left in place)",
            s.skipped_lines
        );
    }
    match (&s.config, &s.config_error) {
        (Some(c), _) => {
            println!("mode             {}", c.mode.as_str());
            println!(
                "synthesis model  {}",
                c.synthesis_model.as_deref().unwrap_or("(none)")
            );
            println!("history window   {}", c.max_session_history_window);
            println!(
                "heuristics       {}",
                if c.deterministic_heuristic_capture {
                    "on"
                } else {
                    "off"
                }
            );
        }
        (None, Some(e)) => eprintln!("config error: {e}"),
        (None, None) => {}
    }
}

fn config_get(store: &Store, key: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let config = store
        .config()
        .with_context(|| "cannot read the continuity config")?;
    match key {
        Some(key) => {
            let value = config.get(key)?;
            if json {
                output::json(&serde_json::json!({ "key": key, "value": value }))?;
            } else {
                println!("{}", plain(&value));
            }
        }
        None if json => output::json(&config.to_json())?,
        None => {
            let all = config.to_json();
            for f in CONFIG_FIELDS {
                let value = all.get(f.key).cloned().unwrap_or(Value::Null);
                println!("{:<38} {:<16} # {}", f.key, plain(&value), f.rule.allowed());
            }
            debug_assert!(CONFIG_FIELDS.iter().all(|f| config_field(f.key).is_some()));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A JSON value as a person would type it: strings without quotes.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
