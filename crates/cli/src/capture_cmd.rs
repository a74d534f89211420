//! `elnor capture` and `elnor watch`: run the continuity agent by hand, from a harness hook, or
//! continuously over live transcripts; `watch` also runs the file watcher over the tracked
//! folders.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use elnor_engine::FileWatcher;
use elnor_engine::OsKeyring;
use elnor_engine::{Agent, AgentRun, Trigger};
use elnor_engine::{CaptureOutcome, CaptureRequest, CaptureStatus};
use elnor_engine::{SessionId, Store};
use notify_debouncer_mini::new_debouncer;
use notify_debouncer_mini::notify::RecursiveMode;

use crate::output;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TriggerArg {
    /// The person asked (the default).
    ManualRequest,
    /// A harness is about to compact the session (call this from its pre-compaction hook).
    PreCompaction,
    /// The harness says the session ended (its SessionEnd hook): the idle rule, known at once.
    SessionEnd,
}

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// Capture this session now. Without it, the agent captures every session whose trigger
    /// (idle, defocus, compaction) has fired.
    #[arg(long)]
    session: Option<String>,
    /// Why the capture runs (with --session).
    #[arg(
        long,
        value_enum,
        default_value = "manual-request",
        requires = "session"
    )]
    trigger: TriggerArg,
    /// Capture every dirty session whatever its timers say (the nightly sweep).
    #[arg(long, conflicts_with = "session")]
    sweep: bool,
    /// Read new transcript records from every enabled source first, so the capture sees the
    /// session's latest turns (what a harness hook needs).
    #[arg(long)]
    ingest: bool,
}

impl CaptureArgs {
    /// `elnor capture --session ID --ingest --trigger T`, as a hook runs it.
    pub fn for_session(session: String, trigger: TriggerArg) -> CaptureArgs {
        CaptureArgs {
            session: Some(session),
            trigger,
            sweep: false,
            ingest: true,
        }
    }
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Watch these roots instead of the configured sources: HARNESS=DIR (repeatable).
    #[arg(long = "root", value_name = "HARNESS=DIR")]
    roots: Vec<String>,
    /// Seconds between timer checks when no file changes (idle and defocus triggers are timers).
    #[arg(long, default_value_t = 60)]
    interval: u64,
    /// Run one ingest-and-capture pass and exit.
    #[arg(long)]
    once: bool,
    /// Do not watch the tracked folders (`elnor folders`), only transcripts.
    #[arg(long)]
    no_files: bool,
}

fn print_outcome(o: &CaptureOutcome) {
    let trigger = serde_json::to_value(o.trigger)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    match o.status {
        CaptureStatus::Off => {
            println!("{}: continuity mode is off; nothing captured", o.session_id)
        }
        CaptureStatus::NothingNew => {
            println!("{}: nothing new since the last capture", o.session_id)
        }
        CaptureStatus::Subagent => println!(
            "{}: a sub-agent's session, kept with its parent's work context ({}); no items",
            o.session_id,
            o.work_context_id
                .as_ref()
                .map_or("none yet", |w| w.as_str())
        ),
        CaptureStatus::Internal => println!(
            "{}: the harness's own session (no person in it); no work context, no items",
            o.session_id
        ),
        CaptureStatus::Captured => {
            let wc = o
                .work_context_id
                .as_ref()
                .map(|w| w.as_str())
                .unwrap_or("-");
            let mode = match o.capture_mode {
                Some(elnor_engine::CaptureMode::LlmEnriched) => "llm_enriched",
                _ => "deterministic",
            };
            println!(
                "{} → {wc} ({trigger}, {mode}): {} entr(ies){}",
                o.session_id,
                o.entries.len(),
                if o.cross_updates > 0 {
                    format!(", {} cross-conversation update(s)", o.cross_updates)
                } else {
                    String::new()
                }
            );
            if let Some(reason) = &o.fallback_reason {
                println!("  full mode fell back to deterministic: {reason}");
            }
            for e in &o.entries {
                println!(
                    "  {:<25} {}{}",
                    e.entry_type().as_str(),
                    e.content.headline(),
                    if e.is_reduced_confidence() {
                        "  (heuristic)"
                    } else {
                        ""
                    }
                );
            }
        }
    }
}

fn print_run(run: &AgentRun, json: bool) -> anyhow::Result<()> {
    if json {
        return output::json(run);
    }
    for o in &run.captures {
        print_outcome(o);
    }
    for (session, error) in &run.failures {
        eprintln!("{session}: capture failed: {error}");
    }
    if run.cross_updates > 0 {
        println!(
            "{} cross-conversation update(s) written to {} other work context(s)",
            run.cross_updates,
            run.cross_touched.len()
        );
    }
    if run.captures.is_empty() && run.failures.is_empty() {
        println!(
            "{} new turn(s) observed; no session due for capture",
            run.turns_observed
        );
    }
    Ok(())
}

/// Captures as `args` say and returns the outcome of a single session's capture, printing
/// nothing: what `elnor capture` prints and a hook keeps quiet about.
pub fn capture_session_quietly(store: &Store, args: &CaptureArgs) -> anyhow::Result<()> {
    let Some(session) = &args.session else {
        anyhow::bail!("a hook's capture needs the session id");
    };
    if args.ingest {
        ingest_all(store)?;
    }
    elnor_engine::capture_session(
        store,
        &OsKeyring::new(),
        &CaptureRequest {
            session_id: SessionId::new(session.clone())?,
            trigger: trigger_of(args.trigger),
            now: elnor_engine::now(),
        },
    )?;
    Ok(())
}

fn trigger_of(t: TriggerArg) -> Trigger {
    match t {
        TriggerArg::ManualRequest => Trigger::ManualRequest,
        TriggerArg::PreCompaction => Trigger::PreCompaction,
        TriggerArg::SessionEnd => Trigger::IdleTimeout,
    }
}

/// Reads new records from every enabled source, without progress output.
fn ingest_all(store: &Store) -> anyhow::Result<()> {
    let roots = store.sources().enabled_roots()?;
    elnor_engine::ingest(store, &roots, &mut |_| {}, elnor_engine::now())?;
    Ok(())
}

pub fn capture_cmd(store: &Store, args: &CaptureArgs, json: bool) -> anyhow::Result<ExitCode> {
    let secrets = OsKeyring::new();
    if args.ingest {
        ingest_all(store)?;
    }
    let now = elnor_engine::now();
    if let Some(session) = &args.session {
        let trigger = trigger_of(args.trigger);
        let o = elnor_engine::capture_session(
            store,
            &secrets,
            &CaptureRequest {
                session_id: SessionId::new(session.clone())?,
                trigger,
                now,
            },
        )?;
        if json {
            output::json(&o)?;
        } else {
            print_outcome(&o);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut agent = Agent::new(&store.config()?);
    let run = elnor_engine::capture_due(&mut agent, store, &secrets, now, args.sweep)?;
    print_run(&run, json)?;
    Ok(if run.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(output::code::UNEXPECTED)
    })
}

/// Ingests, then runs the agent, then waits for a transcript to change (or the timer interval),
/// until stopped. Every write it makes is durable when made, so stopping it at any moment (Ctrl-C)
/// loses nothing.
pub fn watch(store: &Store, args: &WatchArgs, json: bool) -> anyhow::Result<ExitCode> {
    let roots = crate::ingest_cmd::roots(store, &args.roots)?;
    let secrets = OsKeyring::new();
    let mut agent = Agent::new(&store.config()?);
    let (tx, rx) = mpsc::channel();
    // Bursts of appends (a harness writes several records per turn) become one wake-up.
    let mut debouncer =
        new_debouncer(Duration::from_secs(2), tx).context("cannot start the file watcher")?;
    let mut watched: Vec<PathBuf> = Vec::new();
    for r in &roots {
        if r.root.exists() {
            debouncer
                .watcher()
                .watch(&r.root, RecursiveMode::Recursive)
                .with_context(|| format!("cannot watch {}", r.root.display()))?;
            watched.push(r.root.clone());
        }
    }
    if !json {
        eprintln!(
            "watching {} transcript root(s); Ctrl-C to stop",
            watched.len()
        );
    }
    // The file watcher runs on its own thread over its own handle on the store (SQLite and the
    // log locks make two handles safe), printing each observation as it is stored.
    let files = if args.no_files || args.once {
        None
    } else {
        let tracked = store.tracked_folders().load()?;
        if !json {
            if tracked.folders.is_empty() {
                eprintln!("no tracked folders; `elnor folders add DIR` to observe one");
            } else {
                eprintln!("watching {} tracked folder(s)", tracked.folders.len());
            }
        }
        let handle = std::sync::Arc::new(Store::open(store.root())?);
        let watcher = FileWatcher::start_with(
            handle,
            Box::new(move |o| {
                if json {
                    if let Ok(line) = serde_json::to_string(o) {
                        println!("{line}");
                    }
                } else {
                    let path = o.path.as_ref().map(|p| p.display().to_string());
                    println!(
                        "observed: {} {} — {}",
                        o.kind.as_str(),
                        path.unwrap_or_default(),
                        o.text
                    );
                }
            }),
        )?;
        Some(watcher)
    };
    let mut reported: Option<String> = None;
    let mut failing: Option<String> = None;
    loop {
        if let Some(w) = &files {
            // A problem (such as the inotify watch limit) is said once, and again if it changes.
            let problem = w.status().problem;
            if problem != reported {
                if let Some(p) = &problem {
                    eprintln!("file watcher: {p}");
                }
                reported = problem;
            }
        }
        let pass = elnor_engine::pass(
            &mut agent,
            store,
            &roots,
            &secrets,
            elnor_engine::now(),
            &mut |_| {},
        );
        match pass {
            Ok(pass) => {
                failing = None;
                if !json && pass.ingest.records_added > 0 {
                    println!("ingested {} new record(s)", pass.ingest.records_added);
                }
                let run = pass.run;
                if !run.captures.is_empty() || !run.failures.is_empty() || json {
                    print_run(&run, json)?;
                }
            }
            // `--once` is a single pass, so its failure is the command's.
            Err(e) if args.once => return Err(e.into()),
            // A watcher outlives a failed pass (a store briefly locked by a long writer, a
            // harness file mid-rotation): what one pass did is committed, and the next pass
            // resumes from the stored offsets. The problem is said once, and again if it changes.
            Err(e) => {
                let message = format!("{e}");
                if failing.as_deref() != Some(message.as_str()) {
                    eprintln!("error: a pass failed, retrying at the next wake: {message}");
                    failing = Some(message);
                }
            }
        }
        if args.once {
            return Ok(ExitCode::SUCCESS);
        }
        // Wake on a change, or when the interval passes so idle and defocus timers can fire.
        match rx.recv_timeout(Duration::from_secs(args.interval.max(1))) {
            Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("the file watcher stopped")
            }
        }
    }
}
