//! `elnor doctor`: capture health without the app. Per transcript source, what ingest has seen
//! (files, the newest change, the last read, parse problems); per harness, what it recorded in
//! the last day and week, its usual gap between sessions, whether it has gone silent, and the
//! sessions that ended without a capture; per harness hook, whether its settings install it and
//! when it last fired; whether OpenClaw's Dreaming runs; then Today's alerts. Exits 0 either way:
//! it reports.

use std::process::ExitCode;

use elnor_engine::{DreamingState, HarnessPaths, HookStatus, Store};

use crate::output;

pub fn doctor(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    let paths = HarnessPaths::from_env()?;
    let health = elnor_engine::health(store, now, &paths)?;
    let alerts = elnor_engine::today_with(store, now, &paths)?.alerts;
    if json {
        output::json(&serde_json::json!({ "health": health, "alerts": alerts }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let day = |t: Option<chrono::DateTime<chrono::Utc>>| {
        t.map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "never".to_owned())
    };
    println!("Transcript sources");
    for s in &health.sources {
        println!(
            "  {:<11} {}{}{}",
            s.harness.label(),
            s.root.display(),
            if s.enabled { "" } else { "  (disabled)" },
            if s.exists { "" } else { "  (not found)" },
        );
        println!(
            "              {} file(s) read; newest change {}; last read {}; {} unreadable line(s)",
            s.files,
            day(s.last_file_change),
            day(s.last_read),
            s.problems
        );
    }
    println!("\nHarnesses");
    for h in &health.harnesses {
        let gap = h
            .usual_gap_hours
            .map(|g| format!("usually every {g} h"))
            .unwrap_or_else(|| "too few sessions for a usual gap".to_owned());
        println!(
            "  {:<11} {} session(s) / {} turn(s) today, {} / {} this week; last {}; {gap}{}; {} ended uncaptured",
            h.harness.label(),
            h.sessions_day,
            h.turns_day,
            h.sessions_week,
            h.turns_week,
            day(h.last_session_at),
            if h.silent { "; SILENT" } else { "" },
            h.uncaptured
        );
    }
    println!("\nHooks");
    if health.hooks.is_empty() {
        println!("  none installed or fired");
    }
    for h in &health.hooks {
        println!("  {}", hook_line(h, &day));
    }
    println!("  OpenClaw: no command hooks; the brief comes through the MCP `brief` tool");
    println!("\nOpenClaw Dreaming");
    let d = &health.dreaming;
    let state = match &d.state {
        DreamingState::On { explicit: true } => "on".to_owned(),
        DreamingState::On { explicit: false } => "on (OpenClaw's default)".to_owned(),
        DreamingState::Off => "off".to_owned(),
        DreamingState::NoConfig => "no OpenClaw config".to_owned(),
        DreamingState::Malformed { message } => format!("unknown: {message}"),
    };
    println!("  {state} ({})", d.path.display());
    if let DreamingState::On { .. } = d.state {
        println!("  {}", d.what_it_does);
        println!(
            "  turn it off: elnor dreaming disable; or add by hand: {}",
            d.line_to_add
        );
    }
    if alerts.is_empty() {
        println!("\nNo alerts.");
    } else {
        println!("\nAlerts");
        for a in &alerts {
            println!("  ! {}", a.message);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One hook in words: "Claude Code: SessionStart hook installed, never fired".
fn hook_line(
    h: &HookStatus,
    day: &dyn Fn(Option<chrono::DateTime<chrono::Utc>>) -> String,
) -> String {
    let installed = if h.installed {
        format!("installed ({})", h.config_path.display())
    } else {
        format!("not installed in {}", h.config_path.display())
    };
    let fired = match h.fire_count {
        0 => "never fired".to_owned(),
        1 => format!("fired once, {}", day(h.last_fired_at)),
        n => format!("fired {n} times, last {}", day(h.last_fired_at)),
    };
    let problem = h
        .problem
        .as_deref()
        .map(|p| format!("; settings unreadable: {p}"))
        .unwrap_or_default();
    format!(
        "{}: {} hook {installed}, {fired}{problem}",
        h.harness.label(),
        h.event
    )
}
