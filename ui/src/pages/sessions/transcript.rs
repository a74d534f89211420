//! The virtualised transcript viewer: it pages through a session by position, a chunk of turns at
//! a time, and keeps only the rows in (or near) view in the DOM. A link may name a turn to open it
//! at (a search hit, with the turn's row; a Library reference, without): the viewer reads the
//! chunk of that row, or the chunks in order until one holds the turn, scrolls it into view and
//! selects it.
//!
//! A brief line's "Show where this came from" names a window of turns instead: the viewer opens
//! at it the same way (by its last turn's row, checked by the turn's id), scrolls so as much of
//! the window as fits is in view, ending on its last turn, marks its turns, and says above the
//! transcript what they are and how they were found.

use std::collections::{HashMap, HashSet};

use elnor_types::{CompactionMark, LineageWindow, SessionRow, TurnRow};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::nav::TurnLink;

/// Height of one row in the transcript viewer; rows are fixed-height so only the visible ones
/// need to exist in the DOM.
pub(super) const ROW_H: f64 = 52.0;
/// Height of the viewer's scroll area until it is measured: the viewer fills its pane, so the
/// real height follows the window (see `view_h`).
pub(super) const VIEW_H: f64 = 520.0;
/// Turns fetched per request.
pub(super) const CHUNK: u64 = 100;

/// What reading a chunk of a session's turns fills in: the turn count, the chunk itself, the
/// compaction points (with the first chunk), or the error.
#[derive(Clone)]
struct Pages {
    session: String,
    total: RwSignal<Option<u64>>,
    chunks: RwSignal<HashMap<u64, Vec<TurnRow>>>,
    marks: RwSignal<Vec<CompactionMark>>,
    error: RwSignal<Option<String>>,
}

impl Pages {
    /// The turns of `chunk`, read once and kept; `None` after an error, which the viewer shows.
    async fn read(&self, chunk: u64) -> Option<Vec<TurnRow>> {
        if let Some(rows) = self.chunks.with_untracked(|c| c.get(&chunk).cloned()) {
            return Some(rows);
        }
        match api::turns_list(self.session.clone(), chunk * CHUNK, CHUNK as u32).await {
            Ok(page) => {
                self.total.set(Some(page.total));
                if chunk == 0 {
                    self.marks.set(page.compactions);
                }
                self.chunks.update(|c| {
                    c.insert(chunk, page.turns.clone());
                });
                Some(page.turns)
            }
            Err(e) => {
                self.error.set(Some(e.message));
                None
            }
        }
    }
}

#[component]
pub(super) fn TranscriptViewer(
    session: SessionRow,
    /// A turn to scroll to and select; the viewer takes it, so the next session picked opens at
    /// its start.
    focus: RwSignal<Option<TurnLink>>,
    /// A window of turns to open at and mark, taken like `focus`.
    lineage: RwSignal<Option<LineageWindow>>,
) -> impl IntoView {
    let id = session.session_id.clone();
    let total = RwSignal::new(None::<u64>);
    let chunks = RwSignal::new(HashMap::<u64, Vec<TurnRow>>::new());
    let loading = RwSignal::new(HashSet::<u64>::new());
    let marks = RwSignal::new(Vec::<CompactionMark>::new());
    let error = RwSignal::new(None::<String>);
    let scroll = RwSignal::new(0.0f64);
    // The scroll area's height as last measured: it fills the pane, so it is read on mount and
    // on every scroll rather than assumed.
    let view_h = RwSignal::new(VIEW_H);
    let detail = RwSignal::new(None::<TurnRow>);
    let scroller = NodeRef::<leptos::html::Div>::new();
    let lost = RwSignal::new(None::<String>);
    // How a linked turn was found: `row` when the link's row held it, `search` when the chunks
    // were read in order. Shown on the viewer as `data-turn-found-by`, for whoever checks.
    let found_by = RwSignal::new(None::<&'static str>);
    // The window a brief line came from, when one was named for this session: its bounds mark
    // the rows, and the header says what they are until the person closes it.
    let mut traced = None;
    lineage.update_untracked(|l| traced = l.take());
    let traced = traced.filter(|w| w.session_id == session.session_id);
    let marked = RwSignal::new(traced.as_ref().map(|w| (w.after_seq, w.through_seq)));

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
    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            view_h.set(f64::from(el.client_height()));
        }
    });

    // The rows in (or near) view: only these exist in the DOM.
    let window = Memo::new(move |_| {
        let n = total.get().unwrap_or(0);
        let first = ((scroll.get() / ROW_H) as u64).saturating_sub(5);
        let last = (first + (view_h.get().max(VIEW_H) / ROW_H) as u64 + 15).min(n);
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
    let scroll_to = move |top: f64| {
        let top = top.max(0.0);
        if let Some(el) = scroller.get() {
            el.set_scroll_top(top as i32);
        }
        scroll.set(top);
    };
    let jump = move |position: u64| {
        scroll_to(position as f64 * ROW_H - ROW_H);
        detail.set(row_at(position));
    };
    // Where a linked turn lands: a lone turn sits near the top; the last turn of a window of
    // `turns` is shown with as many of the window's turns above it as fit, since the newest turns
    // are the ones closest to what the brief line says.
    let window_turns = traced.as_ref().map(|w| w.turns);
    let land = move |position: u64| match window_turns {
        Some(turns) if turns > 1 => {
            let first = (position + 1).saturating_sub(turns);
            let room = view_h.get_untracked() - 2.0 * ROW_H;
            let top = if turns as f64 * ROW_H <= room {
                first as f64 * ROW_H - ROW_H
            } else {
                (position + 2) as f64 * ROW_H - view_h.get_untracked()
            };
            scroll_to(top);
            detail.set(row_at(position));
        }
        _ => jump(position),
    };

    // The turn a link named. With its row (a search hit's), the viewer reads the one chunk that
    // holds the row and checks the turn is there. Without a row (a Library reference), or when
    // the row now holds another turn (the transcript was read again since), it reads the
    // session's chunks in order until one holds it; they are the chunks the rows need anyway.
    let mut wanted = None;
    focus.update_untracked(|f| wanted = f.take());
    // A window is opened at its last turn, found the same way.
    if let Some(w) = &traced {
        wanted = w.last_turn_id.clone().map(|turn_id| TurnLink {
            turn_id,
            position: w.last_position,
        });
    }
    if let Some(link) = wanted {
        let pages = Pages {
            session: id.clone(),
            total,
            chunks,
            marks,
            error,
        };
        spawn_local(async move {
            if let Some(position) = link.position {
                let Some(rows) = pages.read(position / CHUNK).await else {
                    return;
                };
                let at = usize::try_from(position % CHUNK).unwrap_or(usize::MAX);
                if rows.get(at).is_some_and(|t| t.turn_id == link.turn_id) {
                    found_by.set(Some("row"));
                    // The canvas takes its height from `total` when the page renders again;
                    // scrolling before that would be clamped to the old, empty canvas.
                    api::sleep(30).await;
                    land(position);
                    return;
                }
            }
            let mut chunk = 0u64;
            loop {
                let Some(rows) = pages.read(chunk).await else {
                    return;
                };
                if let Some(i) = rows.iter().position(|t| t.turn_id == link.turn_id) {
                    found_by.set(Some("search"));
                    api::sleep(30).await;
                    land(chunk * CHUNK + i as u64);
                    return;
                }
                if (rows.len() as u64) < CHUNK {
                    lost.set(Some(
                        "The turn this link names is no longer in the session's transcript."
                            .to_owned(),
                    ));
                    return;
                }
                chunk += 1;
            }
        });
    }

    view! {
        <div class="viewer-head">
            {
                let name = session.title.clone().unwrap_or_else(|| {
                    format!("Untitled session {}", session.session_id.chars().take(8).collect::<String>())
                });
                let full = name.clone();
                view! { <strong title=full>{name}</strong> }
            }
            <span class="meta">
                {format!(
                    "{} · agent {} · started {}",
                    crate::components::harness_name(&session.harness),
                    session.agent_id.clone().unwrap_or_else(|| "-".into()),
                    session.started_at.as_deref().map(crate::components::short_time).unwrap_or_else(|| "-".into()),
                )}
            </span>
            // The session's own count, as the list says it: the rows below also hold the
            // compaction markers between turns.
            <span class="meta" id="viewer-total">
                {format!("{} turns", session.turn_count)}
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
        {traced.map(|w| lineage_head(w, session.clone(), marked))}
        {move || error.get().map(|e| view! { <div class="error" role="alert">{e}</div> })}
        {move || lost.get().map(|m| view! { <p class="hint" id="turn-missing">{m}</p> })}
        <div class="viewer" data-turn-found-by=move || found_by.get()>
            <div
                class="viewer-scroll"
                node_ref=scroller
                on:scroll=move |ev| {
                    let el = event_target::<web_sys::HtmlElement>(&ev);
                    scroll.set(f64::from(el.scroll_top()));
                    view_h.set(f64::from(el.client_height()));
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
                        children=move |(i, row)| turn_row(i, row, detail, marked)
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

pub(super) fn label(t: &TurnRow) -> String {
    match t.kind.as_str() {
        "compaction" => "⟳ Compaction".to_owned(),
        "compaction_summary" => "Compaction summary".to_owned(),
        "branch_summary" => "Branch summary".to_owned(),
        "tool_call" => "tool call".to_owned(),
        _ => t.role.clone(),
    }
}

/// The bounds of a marked window of turns: after the first `seq` (from the start when `None`),
/// up to and including the second (to the end when `None`).
type Marked = Option<(Option<i64>, Option<i64>)>;

/// Whether turn `seq` is in the marked window.
fn in_window(marked: Marked, seq: i64) -> bool {
    marked.is_some_and(|(after, through)| {
        after.is_none_or(|a| seq > a) && through.is_none_or(|t| seq <= t)
    })
}

/// What the marked turns are: how many, of which session, up to when, and whether they were
/// recorded with the line or found by time; the engine's own account is under it.
fn lineage_head(w: LineageWindow, session: SessionRow, marked: RwSignal<Marked>) -> impl IntoView {
    let name = session.title.unwrap_or_else(|| {
        format!(
            "Untitled session {}",
            session.session_id.chars().take(8).collect::<String>()
        )
    });
    let count = match w.turns {
        1 => "1 turn".to_owned(),
        n => format!("{n} turns"),
    };
    let until = w
        .last_at
        .as_deref()
        .map(|at| format!(", up to {}", crate::components::short_time(at)))
        .unwrap_or_default();
    let found = if w.exact {
        "exactly these turns"
    } else {
        "found by time"
    };
    let said = if w.turns == 0 {
        format!(
            "No turns of the session \u{201c}{name}\u{201d} fall in the window behind this line ({found})."
        )
    } else {
        format!(
            "The turns behind this line: {count} of the session \u{201c}{name}\u{201d}{until} \u{2014} {found}."
        )
    };
    // The engine's account of how the window was found, as a sentence of its own.
    let how = {
        let mut chars = w.how.chars();
        chars
            .next()
            .map(|c| format!("{}{}.", c.to_uppercase(), chars.as_str()))
            .unwrap_or_default()
    };
    view! {
        <div
            class="lineage-head"
            id="lineage-head"
            class:filtered-out=move || marked.with(Option::is_none)
            data-session-id=w.session_id.clone()
            data-through-seq=w.through_seq
            data-after-seq=w.after_seq
            data-exact=w.exact.to_string()
            data-turns=w.turns
            title=w.source.clone()
        >
            <p class="lineage-said">{said}</p>
            <p class="meta lineage-how">{how}</p>
            <button class="small" id="lineage-clear" on:click=move |_| marked.set(None)>
                "Stop marking"
            </button>
        </div>
    }
}

pub(super) fn turn_row(
    i: u64,
    row: Option<TurnRow>,
    detail: RwSignal<Option<TurnRow>>,
    marked: RwSignal<Marked>,
) -> impl IntoView {
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
            let seq = t.seq;
            view! {
                <div
                    class=class
                    class:sidechain=t.is_sidechain
                    class:selected=move || detail.with(|d| d.as_ref().is_some_and(|d| d.seq == seq))
                    class:lineage=move || in_window(marked.get(), seq)
                    data-turn-id=t.turn_id.clone()
                    data-seq=seq
                    style:top=top
                    on:click=move |_| detail.set(Some(pick.clone()))
                >
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

pub(super) fn turn_detail(t: TurnRow) -> impl IntoView {
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
