//! `elnor hook --harness claude-code|codex|openclaw`: the one command every harness hook runs.
//!
//! It reads the hook's JSON on stdin, records the fire, and does what the event needs (the
//! engine's `hook_action`): the brief at SessionStart; an ingest and a pre-compaction capture at
//! PreCompact; at SessionEnd a capture started in a detached `elnor capture --ingest` so the hook
//! returns at once; nothing printed for anything else, above all for Stop.
//!
//! A hook's exit code means something to the harness: 2 blocks (a prompt, a stop), anything else
//! but 0 is a non-blocking error shown to the person. So every failure here, bad input included,
//! is a message on stderr and exit 1, never 2; the harness name is checked here rather than by
//! clap for the same reason (clap exits 2 on a value it refuses).

use std::io::{IsTerminal, Read};
use std::process::{Command, ExitCode, Stdio};

use anyhow::Context;
use elnor_engine::{Harness, HookAction, HookInput, Store};

use crate::capture_cmd::{CaptureArgs, TriggerArg};
use crate::cli::Args;

#[derive(Debug, clap::Args)]
pub struct HookArgs {
    /// The harness that runs the hook: claude-code, codex or openclaw.
    #[arg(long, value_name = "HARNESS")]
    pub harness: Option<String>,
}

/// Runs the hook; any failure is printed and exits 1 (non-blocking for every harness).
pub fn hook(args: &Args, a: &HookArgs) -> ExitCode {
    match run(args, a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("elnor hook: {e:#}");
            ExitCode::from(crate::output::code::UNEXPECTED)
        }
    }
}

/// The harness a `--harness` value names (the CLI's names, or the stored ones).
pub fn parse_harness(name: &str) -> anyhow::Result<Harness> {
    match name {
        "claude-code" | "claude_code" => Ok(Harness::ClaudeCode),
        "codex" => Ok(Harness::Codex),
        "openclaw" => Ok(Harness::OpenClaw),
        other => anyhow::bail!("unknown harness {other:?}; use claude-code, codex or openclaw"),
    }
}

fn run(args: &Args, a: &HookArgs) -> anyhow::Result<()> {
    let harness = parse_harness(
        a.harness
            .as_deref()
            .context("say which harness runs the hook: --harness claude-code|codex|openclaw")?,
    )?;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        anyhow::bail!(
            "expects the hook's JSON on standard input, as the harness passes it; it is not \
             meant to be run by hand"
        );
    }
    let mut raw = String::new();
    stdin
        .lock()
        .read_to_string(&mut raw)
        .context("reading the hook's input from stdin")?;
    let input = HookInput::parse(&raw)?;
    let event = input.event()?;
    let store = crate::cli::open(args)?;
    elnor_engine::record_hook_fire(&store, harness, event.as_str(), elnor_engine::now())?;
    match elnor_engine::hook_action(harness, &event) {
        HookAction::Brief(format) => {
            crate::brief_cmd::print_session_brief(&store, format, input.cwd, input.session_id)
        }
        HookAction::IngestAndCapture => crate::capture_cmd::capture_session_quietly(
            &store,
            &CaptureArgs::for_session(session_of(&input)?, TriggerArg::PreCompaction),
        ),
        HookAction::CaptureInBackground => capture_in_background(args, &store, &input),
        HookAction::RecordOnly => Ok(()),
    }
}

fn session_of(input: &HookInput) -> anyhow::Result<String> {
    input
        .session_id
        .clone()
        .filter(|s| !s.trim().is_empty())
        .context("the hook input has no session_id, so there is no session to capture")
}

/// Starts `elnor [--store DIR] [--now T] capture --session ID --ingest --trigger session-end` as
/// a process of its own and returns without waiting: Claude Code gives all SessionEnd hooks
/// together 1.5 s, and an ingest can take longer. The child has no stdin, stdout or stderr (the
/// harness is gone by the time it finishes; a failed capture shows in `elnor doctor` as a session
/// that ended uncaptured) and, on Unix, a process group of its own, so the harness ending the
/// hook's group does not end the capture.
fn capture_in_background(args: &Args, store: &Store, input: &HookInput) -> anyhow::Result<()> {
    let session = session_of(input)?;
    let exe = std::env::current_exe().context("finding the running elnor executable")?;
    let mut cmd = Command::new(exe);
    // The store this hook used, named explicitly so the child cannot resolve another one.
    cmd.arg("--store").arg(store.root());
    if let Some(now) = &args.now {
        cmd.arg("--now").arg(now);
    }
    // `--session=ID` in one argument: an id that starts with `-` stays the option's value and is
    // never read as a flag of its own.
    cmd.args([
        "capture",
        &format!("--session={session}"),
        "--ingest",
        "--trigger",
        "session-end",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    cmd.spawn()
        .context("starting the background capture of the ended session")?;
    Ok(())
}
