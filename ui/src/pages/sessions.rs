//! Sessions: transcript sources and ingest (with progress), a filtered list of sessions, and a
//! virtualised transcript viewer that pages turns by position, folds tool calls and marks
//! compaction points with their summaries.

use std::collections::{HashMap, HashSet};

use elnor_types::{CompactionMark, SessionListRequest, SessionRow, SourceRow, TurnRow};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::Loaded;
use crate::nav::use_nav;

/// Height of one row in the transcript viewer; rows are fixed-height so only the visible ones
/// need to exist in the DOM.
const ROW_H: f64 = 52.0;
/// Height of the viewer's scroll area (matches `.viewer-scroll` in style.css).
const VIEW_H: f64 = 520.0;
/// Turns fetched per request.
const CHUNK: u64 = 100;

#[component]
pub fn SessionsPage() -> impl IntoView {
    // Bumped after each finished ingest so the lists reload.
    let generation = RwSignal::new(0u32);
    let selected = RwSignal::new(None::<SessionRow>);
    // A link elsewhere (the Inspector, a work context) may name a session to open; it is taken
    // once, so coming back to Sessions later starts from the whole list.
    let nav = use_nav();
    let target = nav.take_session();
    view! {
        <h2>"Sessions"</h2>
        <IngestCard generation />
        <SessionBrowser generation selected target />
    }
}

/// What the transcript-sources card asks of the shell.
#[derive(Debug, Clone)]
enum SourceChange {
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

#[component]
fn SessionBrowser(
    generation: RwSignal<u32>,
    selected: RwSignal<Option<SessionRow>>,
    /// A session to open as soon as the list has it.
    target: Option<String>,
) -> impl IntoView {
    let harness = RwSignal::new(String::new());
    let agent = RwSignal::new(String::new());
    // The target's id goes into the text filter, which matches ids, so the list shows it even
    // when it is older than the newest hundred.
    let text = RwSignal::new(target.clone().unwrap_or_default());
    let pending = RwSignal::new(target);
    let missing = RwSignal::new(None::<String>);
    let hours = RwSignal::new(None::<u32>);
    let sessions = LocalResource::new(move || {
        generation.track();
        let request = SessionListRequest {
            harness: Some(harness.get()).filter(|h| !h.is_empty()),
            agent_id: Some(agent.get()).filter(|a| !a.is_empty()),
            time_window_hours: hours.get(),
            text: Some(text.get()).filter(|t| !t.is_empty()),
            limit: Some(100),
        };
        api::sessions_list(request)
    });
    Effect::new(move |_| {
        let Some(Ok(rows)) = sessions.get() else {
            return;
        };
        if let Some(id) = pending.get_untracked() {
            match rows.into_iter().find(|r| r.session_id == id) {
                Some(row) => selected.set(Some(row)),
                None => missing.set(Some(format!(
                    "Session {id} is not among the ingested sessions: its entries may have been \
                     written by hand, or its transcript is no longer in a source."
                ))),
            }
            pending.set(None);
        }
    });
    view! {
        {move || missing.get().map(|m| view! { <p class="hint" id="session-missing">{m}</p> })}
        <div class="filters">
            <select id="filter-harness" on:change=move |ev| harness.set(event_target_value(&ev))>
                <option value="">"All harnesses"</option>
                <option value="claude_code">"Claude Code"</option>
                <option value="codex">"Codex"</option>
                <option value="openclaw">"OpenClaw / pi"</option>
            </select>
            <select
                id="filter-time"
                on:change=move |ev| hours.set(event_target_value(&ev).parse().ok())
            >
                <option value="">"Any time"</option>
                <option value="24">"Last 24 hours"</option>
                <option value="168">"Last 7 days"</option>
                <option value="720">"Last 30 days"</option>
            </select>
            <input
                id="filter-agent"
                type="search"
                placeholder="Agent id"
                on:input=move |ev| agent.set(event_target_value(&ev))
            />
            <input
                id="filter-text"
                type="search"
                placeholder="Title, folder or id"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
        </div>
        <div class="sessions-layout">
            <div class="session-list">
                <Loaded resource=sessions loading="Loading sessions…" let:rows>
                    {session_rows(rows, selected)}
                </Loaded>
            </div>
            <div class="session-view">
                {move || match selected.get() {
                    Some(s) => view! { <TranscriptViewer session=s /> }.into_any(),
                    None => {
                        view! { <p class="hint">"Pick a session to read its transcript."</p> }
                            .into_any()
                    }
                }}
            </div>
        </div>
    }
}

fn session_rows(rows: Vec<SessionRow>, selected: RwSignal<Option<SessionRow>>) -> AnyView {
    if rows.is_empty() {
        return view! {
            <div class="empty" id="sessions-empty">
                <p>"No sessions yet."</p>
                <p class="hint">
                    "The sources above were looked for on this machine. If your agents keep "
                    "transcripts elsewhere, add that folder, then press Ingest now. Nothing is "
                    "ever written to the harnesses' files."
                </p>
            </div>
        }
        .into_any();
    }
    rows.into_iter()
        .map(|s| {
            let id = s.session_id.clone();
            let pick = s.clone();
            let title = s.title.clone().unwrap_or_else(|| s.session_id.clone());
            let title = match (&s.parent_session_id, s.agent_id.as_deref()) {
                (Some(_), Some(agent)) => format!("↳ {agent} (sub-agent of {title})"),
                _ => title,
            };
            view! {
                <button
                    class="session-row"
                    class:active=move || selected.with(|x| x.as_ref().is_some_and(|x| x.session_id == id))
                    data-session-id=s.session_id.clone()
                    on:click=move |_| selected.set(Some(pick.clone()))
                >
                    <strong>{title}</strong>
                    {(s.session_kind != "primary").then(|| view! {
                        <span
                            class=format!("badge kind-{}", s.session_kind)
                            title=s.kind_reason.clone().unwrap_or_default()
                        >
                            {s.session_kind.clone()}
                        </span>
                    })}
                    <span class="meta">
                        {format!(
                            "{} · {} · {} turns{}",
                            s.harness,
                            s.last_activity_at.as_deref().and_then(|t| t.get(..16)).unwrap_or("-"),
                            s.turn_count,
                            if s.compaction_count > 0 {
                                format!(" · {} compaction(s)", s.compaction_count)
                            } else {
                                String::new()
                            },
                        )}
                    </span>
                </button>
            }
        })
        .collect_view()
        .into_any()
}

#[component]
fn TranscriptViewer(session: SessionRow) -> impl IntoView {
    let id = session.session_id.clone();
    let total = RwSignal::new(None::<u64>);
    let chunks = RwSignal::new(HashMap::<u64, Vec<TurnRow>>::new());
    let loading = RwSignal::new(HashSet::<u64>::new());
    let marks = RwSignal::new(Vec::<CompactionMark>::new());
    let error = RwSignal::new(None::<String>);
    let scroll = RwSignal::new(0.0f64);
    let detail = RwSignal::new(None::<TurnRow>);
    let scroller = NodeRef::<leptos::html::Div>::new();

    let ensure = {
        let id = id.clone();
        move |chunk: u64| {
            if chunks.with_untracked(|c| c.contains_key(&chunk))
                || loading.with_untracked(|l| l.contains(&chunk))
            {
                return;
            }
            loading.update(|l| {
                l.insert(chunk);
            });
            let id = id.clone();
            spawn_local(async move {
                match api::turns_list(id, chunk * CHUNK, CHUNK as u32).await {
                    Ok(page) => {
                        total.set(Some(page.total));
                        if chunk == 0 {
                            marks.set(page.compactions);
                        }
                        chunks.update(|c| {
                            c.insert(chunk, page.turns);
                        });
                    }
                    Err(e) => error.set(Some(e.message)),
                }
                loading.update(|l| {
                    l.remove(&chunk);
                });
            });
        }
    };
    let ensure_first = ensure.clone();
    ensure_first(0);

    // The rows in (or near) view: only these exist in the DOM.
    let window = Memo::new(move |_| {
        let n = total.get().unwrap_or(0);
        let first = ((scroll.get() / ROW_H) as u64).saturating_sub(5);
        let last = (first + (VIEW_H / ROW_H) as u64 + 15).min(n);
        (first, last)
    });
    Effect::new(move |_| {
        let (first, last) = window.get();
        if last > first {
            for chunk in first / CHUNK..=(last - 1) / CHUNK {
                ensure(chunk);
            }
        }
    });
    let row_at = move |i: u64| {
        chunks.with(|c| {
            c.get(&(i / CHUNK))
                .and_then(|v| v.get((i % CHUNK) as usize).cloned())
        })
    };
    let jump = move |position: u64| {
        if let Some(el) = scroller.get() {
            el.set_scroll_top((position as f64 * ROW_H - ROW_H) as i32);
        }
        scroll.set(position as f64 * ROW_H - ROW_H);
        detail.set(row_at(position));
    };

    view! {
        <div class="viewer-head">
            <strong>{session.title.clone().unwrap_or_else(|| session.session_id.clone())}</strong>
            <span class="meta">
                {format!(
                    "{} · agent {} · started {}",
                    session.harness,
                    session.agent_id.clone().unwrap_or_else(|| "-".into()),
                    session.started_at.clone().unwrap_or_else(|| "-".into()),
                )}
            </span>
            <span class="meta" id="viewer-total">
                {move || total.get().map(|n| format!("{n} turns")).unwrap_or_default()}
            </span>
            {move || {
                let m = marks.get();
                (!m.is_empty())
                    .then(|| {
                        view! {
                            <div class="marks">
                                "Compaction points: "
                                {m
                                    .into_iter()
                                    .map(|mark| {
                                        view! {
                                            <button
                                                class="compaction-jump small"
                                                on:click=move |_| jump(mark.position)
                                            >
                                                {format!(
                                                    "turn {}{}",
                                                    mark.position + 1,
                                                    mark
                                                        .tokens_before
                                                        .map(|t| format!(" ({t} tokens before)"))
                                                        .unwrap_or_default(),
                                                )}
                                            </button>
                                        }
                                    })
                                    .collect_view()}
                            </div>
                        }
                    })
            }}
        </div>
        {move || error.get().map(|e| view! { <div class="error" role="alert">{e}</div> })}
        <div class="viewer">
            <div
                class="viewer-scroll"
                node_ref=scroller
                on:scroll=move |ev| {
                    let el = event_target::<web_sys::HtmlElement>(&ev);
                    scroll.set(f64::from(el.scroll_top()));
                }
            >
                <div
                    class="viewer-canvas"
                    style:height=move || format!("{}px", total.get().unwrap_or(0) as f64 * ROW_H)
                >
                    <For
                        each=move || {
                            let (first, last) = window.get();
                            (first..last).map(move |i| (i, row_at(i))).collect::<Vec<_>>()
                        }
                        key=|(i, row)| (*i, row.as_ref().map(|r| r.seq))
                        children=move |(i, row)| turn_row(i, row, detail)
                    />
                </div>
            </div>
            <aside class="turn-detail">
                {move || match detail.get() {
                    None => view! { <p class="hint">"Select a turn to read it in full."</p> }.into_any(),
                    Some(t) => turn_detail(t).into_any(),
                }}
            </aside>
        </div>
    }
}

fn label(t: &TurnRow) -> String {
    match t.kind.as_str() {
        "compaction" => "⟳ Compaction".to_owned(),
        "compaction_summary" => "Compaction summary".to_owned(),
        "branch_summary" => "Branch summary".to_owned(),
        "tool_call" => "tool call".to_owned(),
        _ => t.role.clone(),
    }
}

fn turn_row(i: u64, row: Option<TurnRow>, detail: RwSignal<Option<TurnRow>>) -> impl IntoView {
    let top = format!("{}px", i as f64 * ROW_H);
    match row {
        None => view! { <div class="turn-row loading" style:top=top>"…"</div> }.into_any(),
        Some(t) => {
            let class = format!("turn-row {} {}", t.kind, t.role);
            let first_line = t
                .content
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .chars()
                .take(160)
                .collect::<String>();
            let text = match (t.kind.as_str(), t.tokens_before) {
                ("compaction", Some(n)) => format!("{n} tokens summarised away. {first_line}"),
                _ if first_line.is_empty() => t.tool_calls.first().cloned().unwrap_or_default(),
                _ => first_line,
            };
            let calls = t.tool_calls.len();
            let pick = t.clone();
            view! {
                <div class=class class:sidechain=t.is_sidechain style:top=top on:click=move |_| detail.set(Some(pick.clone()))>
                    <span class="who">{label(&t)}</span>
                    <span class="time">
                        {t.timestamp.as_deref().and_then(|s| s.get(11..19)).unwrap_or("").to_owned()}
                    </span>
                    <span class="text">{text}</span>
                    {(calls > 0).then(|| view! { <span class="calls">{format!("⚙ {calls}")}</span> })}
                </div>
            }
            .into_any()
        }
    }
}

fn turn_detail(t: TurnRow) -> impl IntoView {
    view! {
        <div class=format!("detail {}", t.kind)>
            <h4>{label(&t)}</h4>
            <p class="meta">
                {t.timestamp.clone().unwrap_or_default()}
                {t.tokens_before.map(|n| format!(" · {n} tokens before compaction"))}
                {t.is_sidechain.then_some(" · sub-agent")}
            </p>
            {(!t.tool_calls.is_empty())
                .then(|| {
                    view! {
                        <details class="tool-calls">
                            <summary>{format!("{} tool call(s)", t.tool_calls.len())}</summary>
                            <ul>
                                {t.tool_calls.iter().map(|c| view! { <li><code>{c.clone()}</code></li> }).collect_view()}
                            </ul>
                        </details>
                    }
                })}
            <pre class="content">{t.content.clone()}</pre>
        </div>
    }
}
