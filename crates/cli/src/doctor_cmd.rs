//! `elnor doctor`: capture health without the app. Per transcript source, what ingest has seen
//! (files, the newest change, the last read, parse problems); per harness, what it recorded in
//! the last day and week, its usual gap between sessions, whether it has gone silent, and the
//! sessions that ended without a capture; then Today's alerts. Exits 0 either way: it reports.

use std::process::ExitCode;

use elnor_engine::Store;

use crate::output;

pub fn doctor(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    let health = elnor_engine::health(store, now)?;
    let alerts = elnor_engine::today(store, now)?.alerts;
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
