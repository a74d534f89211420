//! The transcript-sources card: the sources found, added and switched on or off, and the ingest
//! button with its polled progress. Shown on the Sessions page and in Settings.

use elnor_types::SourceRow;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::Loaded;

/// What the transcript-sources card asks of the shell.
#[derive(Debug, Clone)]
pub(super) enum SourceChange {
    /// Reads new records from the enabled sources.
    Ingest,
    Add {
        harness: String,
        root: String,
    },
    /// Switches a source on or off.
    Toggle(SourceRow),
}

/// Transcript sources (detected, added, enabled) and the ingest button with its progress. Shown
/// on the Sessions page and in Settings.
#[component]
pub fn IngestCard(generation: RwSignal<u32>) -> impl IntoView {
    let sources = LocalResource::new(move || {
        generation.track();
        api::sources_list()
    });
    let status = RwSignal::new(None::<elnor_types::IngestStatus>);
    // Why the progress poll stopped, if it failed; a command's own error is its action's value.
    let poll_error = RwSignal::new(None::<String>);
    let harness = RwSignal::new("claude_code".to_owned());
    let root = RwSignal::new(String::new());

    let poll = move || {
        spawn_local(async move {
            loop {
                match api::ingest_get().await {
                    Ok(s) => {
                        let running = s.running;
                        status.set(Some(s));
                        if !running {
                            generation.update(|g| *g += 1);
                            break;
                        }
                    }
                    Err(e) => {
                        poll_error.set(Some(e.message));
                        break;
                    }
                }
                api::sleep(250).await;
            }
        })
    };
    // Starting an ingest, adding a source and switching one on or off share one action and
    // one error line with the poll, as they share the card.
    let change = Action::new_local(move |change: &SourceChange| {
        let change = change.clone();
        async move {
            match change {
                SourceChange::Ingest => {
                    let s = api::ingest_start().await.map_err(|e| e.message)?;
                    status.set(Some(s));
                    poll();
                }
                SourceChange::Add {
                    harness,
                    root: path,
                } => {
                    api::sources_add(harness, path)
                        .await
                        .map_err(|e| e.message)?;
                    root.set(String::new());
                    generation.update(|g| *g += 1);
                }
                SourceChange::Toggle(s) => {
                    api::sources_set_enabled(s.harness, s.root, !s.enabled)
                        .await
                        .map_err(|e| e.message)?;
                    generation.update(|g| *g += 1);
                }
            }
            Ok::<(), String>(())
        }
    });
    let send = move |c: SourceChange| {
        poll_error.set(None);
        change.clear();
        change.dispatch_local(c);
    };
    let error = move || {
        change
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| poll_error.get())
    };
    let start = move |_| send(SourceChange::Ingest);
    let add = move |_| {
        send(SourceChange::Add {
            harness: harness.get_untracked(),
            root: root.get_untracked(),
        })
    };
    let toggle = move |s: SourceRow| send(SourceChange::Toggle(s));

    view! {
        <div class="card">
            <h3>"Transcript sources"</h3>
            <Loaded resource=sources loading="Looking for transcripts…" let:list>
                {view! {
                    <table class="sources">
                        {list
                            .into_iter()
                            .map(|s| {
                                let row = s.clone();
                                view! {
                                    <tr class:missing=!s.exists>
                                        <td>{s.harness.clone()}</td>
                                        <td class="path">{s.root.clone()}</td>
                                        <td>{if s.exists { "found" } else { "not found" }}</td>
                                        <td>
                                            <button
                                                class="small"
                                                on:click=move |_| toggle(row.clone())
                                            >
                                                {if s.enabled { "Disable" } else { "Enable" }}
                                            </button>
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </table>
                }}
            </Loaded>
            <div class="add-source">
                <select
                    id="source-harness"
                    on:change=move |ev| harness.set(event_target_value(&ev))
                    prop:value=move || harness.get()
                >
                    <option value="claude_code">"Claude Code"</option>
                    <option value="codex">"Codex"</option>
                    <option value="openclaw">"OpenClaw / pi"</option>
                </select>
                <input
                    id="source-root"
                    type="text"
                    placeholder="/absolute/path/to/transcripts"
                    prop:value=move || root.get()
                    on:input=move |ev| root.set(event_target_value(&ev))
                />
                <button id="source-add" on:click=add>"Add source"</button>
                <button
                    id="ingest-start"
                    class="primary"
                    on:click=start
                    prop:disabled=move || status.get().is_some_and(|s| s.running)
                >
                    "Ingest now"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" role="alert">{e}</div> })}
            <p id="ingest-status" class="hint">
                {move || match status.get() {
                    None => "Ingest reads new records from the enabled sources.".to_owned(),
                    Some(s) if s.running => {
                        format!(
                            "Ingesting… {}/{} files, {} records, {:.1} MB",
                            s.files_done,
                            s.files_total,
                            s.records,
                            s.bytes as f64 / 1e6,
                        )
                    }
                    Some(s) => {
                        s.last_error
                            .map(|e| format!("Ingest failed: {e}"))
                            .or(s.last_summary)
                            .unwrap_or_default()
                    }
                }}
            </p>
            {move || {
                status
                    .get()
                    .filter(|s| !s.running)
                    .and_then(|s| s.last_capture)
                    .map(|c| view! { <p id="capture-status" class="hint">{c}</p> })
            }}
            {move || {
                status
                    .get()
                    .map(|s| s.last_problems)
                    .filter(|p| !p.is_empty())
                    .map(|problems| {
                        view! {
                            <details class="problems">
                                <summary>{format!("{} files had problems", problems.len())}</summary>
                                <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                            </details>
                        }
                    })
            }}
        </div>
    }
}
