//! The Health page's Hooks card: for each agent, whether ELNOR's hooks are set up in its settings
//! and whether they have run. A hook is how an agent hands ELNOR a session as it starts, before
//! it is compacted and as it ends; one that is set up but never runs is the quiet failure this
//! card exists to show, with what to do about it. An agent with no hook set up gets one line and
//! the terminal command that sets them up, ready to copy.

use elnor_types::HookRow;
use leptos::prelude::*;

use super::words::{ago, count};
use crate::components::{copy_text, harness_name, short_time};

/// The Hooks card: one block per agent in `harnesses`, in that order.
#[component]
pub(super) fn HooksCard(hooks: Vec<HookRow>, harnesses: Vec<String>) -> impl IntoView {
    let agents = harnesses
        .into_iter()
        .map(|harness| {
            let rows: Vec<HookRow> = hooks
                .iter()
                .filter(|h| h.harness == harness)
                .cloned()
                .collect();
            agent_hooks(harness, rows)
        })
        .collect_view();
    view! {
        <section class="card health-hooks" id="health-hooks">
            <h3>"Hooks"</h3>
            <p class="hint">
                "Hooks let an agent hand ELNOR each session: its brief when a session starts, and "
                "the session to remember before the agent shortens it and when it ends."
            </p>
            {agents}
        </section>
    }
}

/// One agent's hooks: a sentence per hook, or a single line when none is set up.
fn agent_hooks(harness: String, hooks: Vec<HookRow>) -> impl IntoView {
    let name = harness_name(&harness).to_owned();
    let id = format!("hooks-{}", harness.replace('_', "-"));
    let command = hooks
        .first()
        .map(|h| h.setup_command.clone())
        .unwrap_or_default();
    let file = hooks
        .first()
        .map(|h| h.settings_file.clone())
        .unwrap_or_default();
    // A settings file ELNOR could not read is said once for the agent: every hook of it shares
    // the file, and the problem is the file's.
    let problem = hooks.iter().find_map(|h| h.problem.clone());
    let none_set_up = hooks.iter().all(|h| !h.installed);
    let body = if let Some(problem) = problem {
        view! {
            <p class="health-problem hook-line" data-state="unreadable">
                {format!("ELNOR could not read {name}'s settings, so it cannot tell whether its hooks are set up: {problem}")}
            </p>
        }
        .into_any()
    } else if none_set_up && hooks.iter().all(|h| h.times_fired == 0) {
        view! {
            <p class="hook-line" data-state="not_set_up">
                {format!("ELNOR's hooks are not set up, so {name} starts its sessions without ELNOR's brief. To set them up, run this in a terminal: ")}
                {copy_text(command.clone())}
            </p>
        }
        .into_any()
    } else {
        let lines = hooks
            .iter()
            .map(|h| {
                let state = match (h.installed, h.times_fired) {
                    (true, 0) => "never_run",
                    (true, _) => "running",
                    (false, _) => "not_set_up",
                };
                view! {
                    <li class="hook-line" class:trouble=state == "never_run" data-event=h.event.clone() data-state=state>
                        {hook_sentence(&name, h)}
                    </li>
                }
            })
            .collect_view();
        let missing = hooks.iter().any(|h| !h.installed).then(|| {
            view! {
                <p class="hook-fix">
                    "To set up the missing ones, run this in a terminal: "
                    {copy_text(command.clone())}
                </p>
            }
        });
        view! {
            <ul class="hook-lines">{lines}</ul>
            {missing}
        }
        .into_any()
    };
    view! {
        <div class="hook-agent" id=id data-harness=harness.clone()>
            <h4>{name}</h4>
            {body}
            <p class="meta">"Settings file: " <span class="path">{file}</span></p>
        </div>
    }
}

/// One hook in a sentence a person can act on: "The start-of-session hook is set up and has run
/// 14 times, last 2 hours ago."
fn hook_sentence(agent: &str, hook: &HookRow) -> impl IntoView + use<> {
    let what = hook_name(&hook.event);
    let last = hook.last_fired.as_ref().map(|a| {
        view! { <span title=short_time(&a.at)>{format!(", last {}", ago(a.minutes_ago))}</span> }
    });
    let ran = count(hook.times_fired, "time");
    match (hook.installed, hook.times_fired) {
        (true, 0) => {
            let fix = if hook.harness == "codex" {
                "Codex runs a hook only once you approve it: type /hooks in Codex and approve ELNOR's."
                    .to_owned()
            } else {
                format!(
                    "Restart {agent} so it reads its settings again; typing /hooks in it shows the hooks it loaded."
                )
            };
            view! { {format!("The {what} is set up, but has never run. {fix}")} }.into_any()
        }
        (true, _) => {
            view! { {format!("The {what} is set up and has run {ran}")} {last} "." }.into_any()
        }
        (false, 0) => view! { {format!("The {what} is not set up.")} }.into_any(),
        (false, _) => {
            view! { {format!("The {what} is not set up any more; it ran {ran} before")} {last} "." }
                .into_any()
        }
    }
}

/// A hook event as people would say it.
fn hook_name(event: &str) -> String {
    match event {
        "SessionStart" => "start-of-session hook".to_owned(),
        "PreCompact" => "before-compaction hook".to_owned(),
        "PostCompact" => "after-compaction hook".to_owned(),
        "SessionEnd" => "end-of-session hook".to_owned(),
        "UserPromptSubmit" => "on-each-message hook".to_owned(),
        "Stop" => "end-of-reply hook".to_owned(),
        other => format!("{other} hook"),
    }
}
