//! `elnor doctor`: capture health without the app. Per transcript source, what ingest has seen
//! (files, the newest change, the last read, parse problems); per harness, what it recorded in
//! the last day and week, its usual gap between sessions, whether it has gone silent, and the
//! sessions that ended without a capture; per harness hook, whether its settings install it and
//! when it last fired; whether OpenClaw's Dreaming runs; what became of every source's records
//! (turns, skipped on purpose by type, not understood by type with a line holding one) and the
//! files that lost turns; then Today's alerts. Exits 0 either way: it reports.

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
        if s.records > 0 {
            let skipped: u64 = s.skipped.iter().map(|t| t.count).sum();
            let kinds: Vec<String> = s
                .skipped
                .iter()
                .map(|t| format!("{} {}", t.count, t.record_type))
                .collect();
            println!(
                "              {} record(s): {} turn(s); {skipped} skipped on purpose ({})",
                s.records,
                s.turns,
                if kinds.is_empty() {
                    "none".to_owned()
                } else {
                    kinds.join(", ")
                }
            );
        }
        for t in &s.not_understood {
            println!(
                "              {} record(s) of type \"{}\" not understood{}",
                t.count,
                t.record_type,
                sample(t)
            );
        }
    }
    if !health.lost_files.is_empty() {
        println!("\nFiles that lost turns (records not understood, kept as written)");
        for f in &health.lost_files {
            let unread: u64 = f.not_understood.iter().map(|t| t.count).sum();
            println!(
                "  {}: {unread} of {} record(s) not understood, {} turn(s)",
                f.path, f.records, f.turns
            );
            for t in &f.not_understood {
                println!("      {} \"{}\"{}", t.count, t.record_type, sample(t));
            }
        }
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

/// Where a record not understood can be seen: "(first at line 12 of …)".
fn sample(t: &elnor_engine::TypeCount) -> String {
    match (&t.sample_path, t.sample_line) {
        (Some(p), Some(line)) => format!(" (first at line {line} of {p})"),
        (Some(p), None) => format!(" (in {p})"),
        _ => String::new(),
    }
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
