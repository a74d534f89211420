//! The Sync card: the git remote the person's devices share, where sync stands (the last sync,
//! what waits to be sent, the devices, what came in last), "Sync now", and every conflict sync
//! resolved, in words. The remote, the sync and its rules are the engine's; this card converts.

use elnor_types::{SyncConflictRow, SyncView};
use leptos::prelude::*;

use crate::api;
use crate::components::{Loaded, short_time};

#[component]
pub(super) fn SyncCard() -> impl IntoView {
    let initial = LocalResource::new(api::sync_get);
    view! {
        <div class="card" id="sync-card">
            <h3>"The same memory on every machine"</h3>
            <p class="hint">
                "Your devices share ELNOR's memory through a git repository you own: a private "
                "GitHub, GitLab or Gitea repository, or a bare repository on a NAS or over SSH. "
                "ELNOR uses your git and your own credentials and stores none. Entries, decisions "
                "and your edits travel; transcripts, local-only contexts, machine settings and "
                "keys stay here."
            </p>
            <Loaded resource=initial loading="Reading where sync stands…" let:v>
                <SyncEditor initial=v />
            </Loaded>
        </div>
    }
}

/// What "Sync now" (or setting the remote) reported.
#[derive(Debug, Clone)]
struct Outcome {
    said: String,
}

#[component]
fn SyncEditor(initial: SyncView) -> impl IntoView {
    let view_state = RwSignal::new(initial);
    let remote = RwSignal::new(String::new());
    let owner = RwSignal::new(String::new());
    let beat = crate::app::use_sync_beat();
    let run = Action::new_local(move |set_remote: &bool| {
        let request = elnor_types::SyncRunRequest {
            remote: set_remote
                .then(|| remote.get_untracked().trim().to_owned())
                .filter(|r| !r.is_empty()),
            owner: Some(owner.get_untracked().trim().to_owned()).filter(|o| !o.is_empty()),
        };
        async move {
            let ran = api::sync_run(request).await.map_err(|e| e.message)?;
            let mut said = match &ran.offline {
                Some(why) => format!("Offline: committed here, sent with the next sync ({why})."),
                None => format!(
                    "Synced: sent {} entries and {} changes.",
                    ran.sent_entries, ran.sent_changes
                ),
            };
            match &ran.arrival {
                Some(a) => said.push_str(&format!(" {a}")),
                None => said.push_str(" Nothing new arrived."),
            }
            if ran.conflicts > 0 {
                said.push_str(&format!(
                    " {} conflict(s) resolved: the later change is kept (listed below).",
                    ran.conflicts
                ));
            }
            view_state.set(ran.view);
            remote.set(String::new());
            beat.bump();
            Ok::<Outcome, String>(Outcome { said })
        }
    });
    let start = move |set_remote: bool| {
        run.clear();
        run.dispatch_local(set_remote);
    };
    let result = move || match run.value().get() {
        Some(Ok(o)) => Some(view! { <p class="saved" id="sync-result">{o.said}</p> }.into_any()),
        Some(Err(e)) => {
            Some(view! { <div class="error" id="sync-error" role="alert">{e}</div> }.into_any())
        }
        None => None,
    };
    let remote_form = move |label: &'static str| {
        view! {
            <div class="inline-form">
                <input
                    id="sync-remote"
                    type="text"
                    placeholder="git@host:you/elnor-memory.git, https://…, or /path/to/bare.git"
                    prop:value=move || remote.get()
                    on:input=move |ev| remote.set(event_target_value(&ev))
                    on:keydown=move |ev| {
                        if ev.key() == "Enter" {
                            ev.prevent_default();
                            start(true);
                        }
                    }
                />
                <input
                    id="sync-owner"
                    type="text"
                    placeholder="owner (default: your git user.email)"
                    prop:value=move || owner.get()
                    on:input=move |ev| owner.set(event_target_value(&ev))
                />
                <button
                    class="small"
                    id="sync-set-remote"
                    disabled=move || run.pending().get()
                    on:click=move |_| start(true)
                >
                    {label}
                </button>
            </div>
        }
    };
    let status = move || {
        let v = view_state.get();
        let Some(url) = v.remote.clone() else {
            return view! {
                <p class="hint" id="sync-off">
                    "Sync is off. Give the repository's address; the first sync sends this "
                    "device's memory and takes in what your other devices already sent."
                </p>
                {remote_form("Sync with this remote")}
            }
            .into_any();
        };
        let device = match &v.device_name {
            Some(name) => format!("{name} ({})", v.device),
            None => v.device.clone(),
        };
        let last = v
            .last_sync_at
            .as_deref()
            .map(short_time)
            .unwrap_or_else(|| "never".to_owned());
        let waiting = format!(
            "{} entries and {} changes to send; {} commits ahead, {} behind (as last fetched).",
            v.unsent_entries, v.unsent_changes, v.ahead_commits, v.behind_commits
        );
        let devices = v
            .devices
            .iter()
            .map(|d| {
                let this = if d.this { " (this one)" } else { "" };
                format!("{} ({}){this}", d.name, d.device)
            })
            .collect::<Vec<_>>()
            .join(", ");
        let arrival = match (&v.last_arrival, &v.last_arrival_at) {
            (Some(a), Some(at)) => format!("{a} ({})", short_time(at)),
            (Some(a), None) => a.clone(),
            _ => "Nothing has arrived from another device yet.".to_owned(),
        };
        view! {
            <table class="facts" id="sync-status" data-light=v.light.clone()>
                <tr><th>"Remote"</th><td id="sync-remote-now" class="path">{url}</td></tr>
                <tr><th>"This device"</th><td id="sync-device">{device}</td></tr>
                <tr><th>"Last sync"</th><td id="sync-last">{last}</td></tr>
                <tr><th>"Waiting"</th><td id="sync-waiting">{waiting}</td></tr>
                <tr><th>"Devices"</th><td id="sync-devices">{devices}</td></tr>
                <tr><th>"Came in last"</th><td id="sync-arrival">{arrival}</td></tr>
            </table>
            {v.problem.clone().map(|p| view! { <div class="error" id="sync-problem" role="alert">{p}</div> })}
            <div class="inline-form">
                <button
                    id="sync-now"
                    disabled=move || run.pending().get() || view_state.with(|v| v.running)
                    on:click=move |_| start(false)
                >
                    {move || if run.pending().get() { "Syncing…" } else { "Sync now" }}
                </button>
            </div>
            <details>
                <summary>"Use another remote"</summary>
                {remote_form("Switch and sync")}
            </details>
            {conflicts(v.conflicts)}
        }
        .into_any()
    };
    view! {
        {status}
        {result}
    }
}

/// Every conflict sync resolved: two devices changed one thing without seeing each other's
/// change, and the later one is kept.
fn conflicts(rows: Vec<SyncConflictRow>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <p class="hint" id="sync-conflicts-none">"No conflicts."</p> }.into_any();
    }
    view! {
        <h4>"Conflicts, and how they were resolved"</h4>
        <ul id="sync-conflicts">
            {rows
                .into_iter()
                .map(|c| {
                    view! {
                        <li class="sync-conflict">
                            {format!(
                                "{} of {}: kept \"{}\" (from {}), the later change, over \"{}\" (from {}), {}.",
                                c.field.replace('_', " "),
                                c.subject,
                                c.kept_value,
                                c.kept_device,
                                c.lost_value,
                                c.lost_device,
                                short_time(&c.found_at),
                            )}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}
