//! `elnor today`: what needs you first (proposals to review, questions open longest, what moved
//! since you last looked, capture health), then where each project stands. Reading it counts as
//! looking, as opening the app's Today does.

use std::process::ExitCode;

use elnor_engine::Store;

use crate::output;

pub fn today(store: &Store, json: bool) -> anyhow::Result<ExitCode> {
    let now = elnor_engine::now();
    let t = elnor_engine::today(store, now)?;
    if json {
        output::json(&t)?;
        return Ok(ExitCode::SUCCESS);
    }
    println!("Needs you");
    let mut quiet = true;
    if t.pending_reviews > 0 {
        quiet = false;
        println!(
            "  {} proposal(s) to review: elnor review list",
            t.pending_reviews
        );
    }
    for a in &t.alerts {
        quiet = false;
        println!("  ! {}", a.message);
    }
    if quiet {
        println!("  nothing waits on you");
    }
    if !t.waiting_questions.is_empty() {
        println!(
            "\nOpen questions ({} in contexts active in the last {} days)",
            t.waiting_question_count,
            elnor_engine::TODAY_ACTIVE_DAYS
        );
        for q in &t.waiting_questions {
            println!(
                "  {} days  {}: {}{}",
                (now - q.asked_at).num_days(),
                q.context_name,
                q.question,
                if q.heuristic { "  (heuristic)" } else { "" }
            );
        }
    }
    match t.last_looked_at {
        Some(at) if t.moved.is_empty() => {
            println!(
                "\nNothing moved since you last looked ({})",
                at.format("%Y-%m-%d %H:%M")
            );
        }
        Some(at) => {
            println!(
                "\nMoved since you last looked ({})",
                at.format("%Y-%m-%d %H:%M")
            );
            for m in &t.moved {
                println!(
                    "  {}: {} session(s), last {}",
                    m.name, m.sessions_since, m.last_active_at
                );
            }
        }
        None => {}
    }
    println!("\nProjects ({} found in your history)", t.project_count);
    for p in &t.projects {
        println!(
            "  {}  {} session(s), last active {}{}",
            p.name,
            p.session_count,
            p.last_active_at.as_deref().unwrap_or("-"),
            p.phase
                .and_then(|ph| serde_json::to_value(ph).ok())
                .and_then(|v| v.as_str().map(|s| format!(", {}", s.replace('_', " "))))
                .unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
