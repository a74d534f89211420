//! Knowledge: the durable nodes (obligations and memory directives) that approved proposals wrote,
//! with their lifecycle state, staleness and use warrant (concept model §4.2–4.5). The list,
//! filtered to live nodes or all of them and by kind, sits beside the selected node: its warrant
//! and why, due date, work context, where it came from (the continuity entry, the sessions, the
//! review proposal, the node it replaced) and its whole history.
//!
//! The person's changes happen here: correct the text, confirm it still holds, move it on the
//! warrant ladder with a reason, retire it with a reason, or supersede it by a new node. Each
//! reply carries the node's new history, and the engine has already rebuilt the views that show
//! it, so the next brief (Home's preview) reflects the change. Retired and superseded nodes stay
//! readable but cannot be changed; the engine refuses, and its message is shown.
//!
//! Warrants are told apart by colour as well as by name: `assert` plain, the hedged rungs amber,
//! the rungs that keep a node out of briefs muted; retired and superseded rows are muted too.

use elnor_types::{
    CommandError, KnowledgeList, NodeDetail, NodeHistoryRow, NodeKind, NodeRow, NodeSourceRow,
    NodeWarrant,
};
use leptos::prelude::*;

use crate::api;
use crate::components::Loaded;
use crate::components::{session_link, short_time};
use crate::nav::{Nav, Page, Route, use_nav};

/// The form open over the selected node, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    None,
    Edit,
    Warrant,
    Retire,
    Supersede,
}

/// A change on its way to the shell.
#[derive(Debug, Clone)]
enum Change {
    Edit(String),
    Confirm,
    Warrant(NodeWarrant, Option<String>),
    Retire(Option<String>),
    Supersede(String),
}

/// A change to a node and the shell's reply to it.
type Changed = (String, Change, Result<NodeDetail, CommandError>);

/// The page's state; every field is a signal, so handlers share it by copy.
#[derive(Clone, Copy)]
struct Knowledge {
    show_all: RwSignal<bool>,
    /// `None`: both kinds.
    kind: RwSignal<Option<NodeKind>>,
    /// Bumped after every change so the list and the open node reload.
    generation: RwSignal<u32>,
    selected: RwSignal<Option<String>>,
    form: RwSignal<Form>,
    /// The edit or supersede text.
    text: RwSignal<String>,
    reason: RwSignal<String>,
    warrant: RwSignal<NodeWarrant>,
    /// What the last change did, or the engine's refusal.
    note: RwSignal<Option<Result<String, String>>>,
    /// The change on its way to the shell; `pending` is the page's busy state, and the page
    /// takes each reply as it lands (see [`Knowledge::answered`]).
    change: Action<(String, Change), Changed>,
    /// Taken here because event handlers run outside any reactive owner.
    nav: Nav,
}

impl Knowledge {
    fn new() -> Knowledge {
        Knowledge {
            nav: use_nav(),
            show_all: RwSignal::new(false),
            kind: RwSignal::new(None),
            generation: RwSignal::new(0),
            selected: RwSignal::new(None),
            form: RwSignal::new(Form::None),
            text: RwSignal::new(String::new()),
            reason: RwSignal::new(String::new()),
            warrant: RwSignal::new(NodeWarrant::Assert),
            note: RwSignal::new(None),
            change: Action::new_local(|(id, change): &(String, Change)| {
                let (id, change) = (id.clone(), change.clone());
                async move {
                    let reply = match change.clone() {
                        Change::Edit(text) => api::knowledge_edit(id.clone(), text).await,
                        Change::Confirm => api::knowledge_confirm(id.clone()).await,
                        Change::Warrant(w, reason) => {
                            api::knowledge_set_warrant(id.clone(), w, reason).await
                        }
                        Change::Retire(reason) => api::knowledge_retire(id.clone(), reason).await,
                        Change::Supersede(text) => api::knowledge_supersede(id.clone(), text).await,
                    };
                    (id, change, reply)
                }
            }),
        }
    }

    fn select(self, id: String) {
        if self.selected.get_untracked().as_deref() != Some(id.as_str()) {
            // What the last change said belongs to the node it changed.
            self.note.set(None);
            self.form.set(Form::None);
            self.selected.set(Some(id));
        }
    }

    /// Opens a node named by a link (a successor, a replaced node, a trace item), which may be
    /// retired or superseded, so the list widens to all nodes first. A signal notifies on every
    /// set, so only a real change is set: each one reloads the list.
    fn open(self, id: String) {
        if !self.show_all.get_untracked() {
            self.show_all.set(true);
        }
        if self.kind.get_untracked().is_some() {
            self.kind.set(None);
        }
        self.select(id);
    }

    fn start(self, form: Form, node: &NodeRow) {
        self.text.set(node.text.clone());
        self.reason.set(String::new());
        self.warrant.set(node.warrant);
        self.note.set(None);
        self.form.set(form);
    }

    /// Whether a change is on its way.
    fn busy(self) -> bool {
        self.change.pending().get()
    }

    /// Sends a change, one at a time.
    fn apply(self, id: String, change: Change) {
        if !self.change.pending().get_untracked() {
            self.change.dispatch_local((id, change));
        }
    }

    /// Takes a change's reply: says what happened and shows the node the engine returned (for a
    /// supersession, the new one), with its history.
    fn answered(self, (id, change, reply): Changed) {
        match reply {
            Ok(detail) => {
                let new = detail.node.node_id;
                let said = match change {
                    Change::Edit(_) => {
                        format!("Corrected {new}; your word restores its warrant to assert.")
                    }
                    Change::Confirm => {
                        format!("Confirmed {new}; its decay clock starts again.")
                    }
                    Change::Warrant(w, _) => format!("{new} is now at warrant {}.", w.as_str()),
                    Change::Retire(_) => {
                        format!("Retired {new}; it leaves every brief and keeps its history.")
                    }
                    Change::Supersede(_) => format!("Superseded {id} by {new}."),
                };
                self.note.set(Some(Ok(said)));
                self.form.set(Form::None);
                // A retired node or a new successor may be outside the current filter.
                if !detail.node.live && !self.show_all.get_untracked() {
                    self.show_all.set(true);
                }
                if self
                    .kind
                    .get_untracked()
                    .is_some_and(|k| k != detail.node.kind)
                {
                    self.kind.set(None);
                }
                self.selected.set(Some(new));
                self.generation.update(|g| *g += 1);
            }
            Err(e) => self.note.set(Some(Err(e.message))),
        }
    }
}

#[component]
pub fn KnowledgePage() -> impl IntoView {
    let k = Knowledge::new();
    // A link from Review names the node to open; it is taken once, like the Inspector's target.
    if let Some(id) = k.nav.take_node() {
        k.open(id);
    }
    // Each change's reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some(changed) = k.change.value().get() {
            k.answered(changed);
        }
    });
    let list = LocalResource::new(move || {
        k.generation.track();
        api::knowledge_list(k.show_all.get())
    });
    // The open node lives here, not in the pane: the pane is rebuilt whenever the list reloads,
    // and a resource of its own would fetch again each time, replacing what the person is looking
    // at (or acting on) with a newer reading they did not ask for.
    let detail = LocalResource::new(move || {
        k.generation.track();
        let id = k.selected.get();
        async move {
            match id {
                Some(id) => api::knowledge_show(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    // Keeps a valid selection: the chosen node while the filters show it, else the first shown.
    Effect::new(move |_| {
        let Some(Ok(l)) = list.get() else {
            return;
        };
        let kind = k.kind.get();
        let shown: Vec<&NodeRow> = l
            .nodes
            .iter()
            .filter(|n| kind.is_none_or(|x| n.kind == x))
            .collect();
        let current = k.selected.get_untracked();
        if !current
            .as_deref()
            .is_some_and(|id| shown.iter().any(|n| n.node_id == id))
        {
            k.form.set(Form::None);
            k.selected.set(shown.first().map(|n| n.node_id.clone()));
        }
    });
    view! {
        <h2>"Knowledge"</h2>
        <p class="hint">
            "The obligations and memory directives you approved in Review. Each carries a use "
            "warrant that decides how briefs state it; the nightly job moves it down the ladder "
            "when its sources decay or are contradicted, and only you move it back up."
        </p>
        {move || {
            k.note
                .get()
                .map(|n| match n {
                    Ok(text) => view! { <p class="saved" id="knowledge-note">{text}</p> }.into_any(),
                    Err(e) => view! { <div class="error" id="knowledge-note" role="alert">{e}</div> }.into_any(),
                })
        }}
        <Loaded resource=list loading="Reading the graph…" let:l>
            {view! { <NodeList list=l detail k /> }}
        </Loaded>
    }
}

/// The open node's reading, shared by the page and its pane.
type Detail = LocalResource<Result<Option<NodeDetail>, CommandError>>;

#[component]
fn NodeList(list: KnowledgeList, detail: Detail, k: Knowledge) -> impl IntoView {
    let retired = list.total - list.live;
    let counts = format!("{} live · {retired} retired or superseded", list.live);
    let toolbar = view! {
        <div class="review-toolbar" id="knowledge-toolbar">
            <span class="meta" id="knowledge-counts">{counts}</span>
            <label class="check" for="knowledge-kind">
                "Kind"
                <select
                    id="knowledge-kind"
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        k.kind.set(NodeKind::ALL.iter().copied().find(|x| x.as_str() == v));
                    }
                >
                    // Each option says whether it is chosen: a value set on the select would be set
                    // before its options exist.
                    <option value="" prop:selected=move || k.kind.get().is_none()>"both kinds"</option>
                    {NodeKind::ALL
                        .iter()
                        .map(|&x| {
                            view! {
                                <option value=x.as_str() prop:selected=move || k.kind.get() == Some(x)>
                                    {format!("{}s", x.label())}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <button
                class="small"
                id="knowledge-reload"
                title="read the graph again (the CLI or the nightly job may have changed it)"
                on:click=move |_| k.generation.update(|g| *g += 1)
            >
                "Reload"
            </button>
            <label class="check">
                <input
                    id="knowledge-show-all"
                    type="checkbox"
                    prop:checked=move || k.show_all.get()
                    on:change=move |ev| k.show_all.set(event_target_checked(&ev))
                />
                "Show retired and superseded too"
            </label>
        </div>
    };
    if list.total == 0 {
        return view! {
            {toolbar}
            <div class="card empty" id="knowledge-empty">
                <p>
                    <strong>"No durable knowledge yet."</strong>
                    " Nodes come from approving proposals in Review: an open question that stayed "
                    "unresolved near a deadline becomes an obligation, a decision stated in several "
                    "sessions becomes a memory directive. Nothing enters the graph until you approve it."
                </p>
                <button class="small" id="knowledge-open-review" on:click=move |_| k.nav.go(Route::of(Page::Review))>
                    "Open Review"
                </button>
            </div>
        }
        .into_any();
    }
    let nodes = StoredValue::new(list.nodes);
    let shown = move || {
        let kind = k.kind.get();
        nodes.with_value(|n| {
            n.iter()
                .filter(|n| kind.is_none_or(|x| n.kind == x))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        {toolbar}
        <div class="review-layout knowledge-layout">
            <div>
                {move || {
                    let rows = shown();
                    if rows.is_empty() {
                        let what = match k.kind.get() {
                            Some(x) => format!("No live {}s.", x.label()),
                            None => "No live nodes.".to_owned(),
                        };
                        return view! {
                            <p class="hint" id="knowledge-none-shown">
                                {what}
                                " Retired and superseded ones are kept: tick “Show retired and superseded too”."
                            </p>
                        }
                        .into_any();
                    }
                    view! {
                        <ul class="proposal-list node-list" id="knowledge-list">
                            {rows.into_iter().map(|n| node_row(n, k)).collect_view()}
                        </ul>
                    }
                    .into_any()
                }}
            </div>
            <NodePane detail k />
        </div>
    }
    .into_any()
}

fn kind_badge(kind: NodeKind) -> impl IntoView {
    view! { <span class=format!("badge kind-{}", kind.as_str())>{kind.label()}</span> }
}

fn state_badges(n: &NodeRow) -> impl IntoView + use<> {
    let w = n.warrant;
    view! {
        <span class=format!("badge lifecycle lifecycle-{}", n.lifecycle.as_str()) title="lifecycle state">
            {n.lifecycle.label()}
        </span>
        <span class=format!("badge warrant warrant-{}", w.as_str()) title=format!("use warrant: {}", w.explanation())>
            {w.label()}
        </span>
        <span class=format!("badge staleness staleness-{}", n.staleness.as_str()) title="staleness">
            {n.staleness.label()}
        </span>
    }
}

fn node_row(n: NodeRow, k: Knowledge) -> impl IntoView {
    let id = n.node_id.clone();
    let (selected_id, clicked) = (id.clone(), id.clone());
    let mut meta = Vec::new();
    if let Some(context) = n.work_context_name.clone().or(n.work_context_id.clone()) {
        meta.push(context);
    }
    if let Some(due) = &n.due_at {
        meta.push(format!("due {}", due.get(..10).unwrap_or(due)));
    }
    meta.push(format!("changed {}", short_time(&n.updated_at)));
    view! {
        <li
            class="proposal-row node-row"
            class:active=move || k.selected.with(|s| s.as_deref() == Some(selected_id.as_str()))
            class:retired-row=!n.live
            data-node-id=id
            data-kind=n.kind.as_str()
            data-lifecycle=n.lifecycle.as_str()
            data-warrant=n.warrant.as_str()
            on:click=move |_| k.select(clicked.clone())
        >
            <div class="proposal-summary">
                <span class="badges">{kind_badge(n.kind)} {state_badges(&n)}</span>
                <span class="proposal-text node-text">{n.text.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}

#[component]
fn NodePane(detail: Detail, k: Knowledge) -> impl IntoView {
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the node…" let:d>
                {match d {
                    Some(d) => view! { <NodeView detail=d k /> }.into_any(),
                    None => view! { <p class="hint">"Pick a node to see where it came from and its history."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

/// A link to another node on this page.
fn node_link(id: String, k: Knowledge) -> impl IntoView {
    let (target, label) = (id.clone(), id.clone());
    view! {
        <a
            href="#"
            class="node-link"
            data-node-id=id
            on:click=move |ev| {
                ev.prevent_default();
                k.open(target.clone());
            }
        >
            {label}
        </a>
    }
}

#[component]
fn NodeView(detail: NodeDetail, k: Knowledge) -> impl IntoView {
    let n = detail.node;
    let context = match (&n.work_context_name, &n.work_context_id) {
        (Some(name), Some(id)) => Some(format!("{name} ({id})")),
        (None, Some(id)) => Some(id.clone()),
        _ => None,
    };
    let entity = n.entity_name.clone().or(n.entity_id.clone()).map(|e| {
        match (&n.entity_name, &n.entity_id) {
            (Some(_), Some(id)) => format!("{e} ({id})"),
            _ => e,
        }
    });
    let due = n
        .due_at
        .as_ref()
        .map(|d| d.get(..10).unwrap_or(d).to_owned());
    let frozen = (!n.live).then(|| {
        let why = match &n.superseded_by {
            Some(_) => "superseded",
            None => n.lifecycle.label(),
        };
        view! {
            <p class="hint" id="knowledge-frozen">
                {format!(
                    "This node is {why}. It no longer goes into briefs (for a while the Inspector's \
                     traces still list it, saying why it left) and stays here, with its history, as \
                     it is."
                )}
            </p>
        }
    });
    let actions = n.live.then(|| view! { <Actions node=n.clone() k /> });
    view! {
        <div
            class="card proposal-detail node-detail"
            id="knowledge-detail"
            data-node-id=n.node_id.clone()
            data-lifecycle=n.lifecycle.as_str()
            data-warrant=n.warrant.as_str()
        >
            <p class="badges">
                {kind_badge(n.kind)}
                {state_badges(&n)}
                <span class="meta">{n.node_id.clone()}</span>
            </p>
            <p class="proposal-text" id="knowledge-text">{n.text.clone()}</p>
            {frozen}
            {actions}
            <dl class="facts evidence">
                <dt>"Warrant"</dt>
                <dd id="knowledge-warrant">
                    <strong>{n.warrant.label()}</strong>
                    {format!(": {}", n.warrant.explanation())}
                    {n.warrant_reason.clone().map(|r| view! { <span class="snippet" id="knowledge-warrant-reason">{r}</span> })}
                </dd>
                <dt>"Lifecycle"</dt>
                <dd id="knowledge-lifecycle">
                    {n.lifecycle.label()}
                    {n.superseded_by.clone().map(|s| view! { " by " {node_link(s, k)} })}
                </dd>
                <dt>"Staleness"</dt>
                <dd id="knowledge-staleness">{n.staleness.label()}</dd>
                {due.map(|d| view! { <dt>"Due"</dt> <dd id="knowledge-due">{d}</dd> })}
                {entity.map(|e| view! { <dt>"About"</dt> <dd id="knowledge-entity">{e}</dd> })}
                {context.map(|c| view! { <dt>"Work context"</dt> <dd id="knowledge-context">{c}</dd> })}
                <dt>"Created"</dt>
                <dd>{short_time(&n.created_at)}</dd>
                <dt>"Last changed"</dt>
                <dd>{short_time(&n.updated_at)}</dd>
            </dl>
            <h4>"Where it came from"</h4>
            <ul class="evidence-sessions" id="knowledge-provenance">
                {detail.provenance.into_iter().map(|s| source_row(s, k)).collect_view()}
            </ul>
            <h4>"History"</h4>
            <ol class="node-history" id="knowledge-history">
                {detail.history.into_iter().map(history_row).collect_view()}
            </ol>
        </div>
    }
}

fn source_row(s: NodeSourceRow, k: Knowledge) -> impl IntoView {
    // Every source is linked when the node is written, so the time is mostly the node's own
    // creation; it is there on hover rather than repeated on every line.
    let when = format!("linked to this node {}", short_time(&s.recorded_at));
    let body = match s.source_kind.as_str() {
        "continuity_entry" => match s.entry {
            Some(e) => view! {
                <span class="source-kind">"Entry "</span>
                <span class="badge">{e.entry_type.replace('_', " ")}</span>
                {e.reduced_confidence.then(|| view! {
                    <span class="badge heuristic" title="Found by the heuristic detectors, not the model.">
                        "heuristic · reduced confidence"
                    </span>
                })}
                <span class="snippet">{e.headline.clone()}</span>
                <span class="meta">{format!("{} · captured {} from ", e.entry_id, short_time(&e.captured_at))}</span>
                {session_link(e.source_session_id.clone(), None)}
            }
            .into_any(),
            None => view! {
                <span class="source-kind">"Entry "</span>
                <span class="meta">{format!("{} (no longer in its continuity log)", s.source_ref)}</span>
            }
            .into_any(),
        },
        "session" => {
            let session = s.session.clone();
            let (ingested, role, title) = match &session {
                Some(x) => (
                    x.ingested,
                    if x.recorded { "recorded it" } else { "stated it again" },
                    x.title.clone(),
                ),
                None => (false, "stated it", None),
            };
            view! {
                <span class="source-kind">"Session "</span>
                {if ingested {
                    session_link(s.source_ref.clone(), None).into_any()
                } else {
                    view! { <span class="session-id">{format!("session {} (transcript not in the store)", s.source_ref)}</span> }.into_any()
                }}
                <span class="meta">{format!(" {role}")}</span>
                {title.map(|t| view! { <span class="snippet">{t}</span> })}
            }
            .into_any()
        }
        "review" => match s.proposal_id {
            Some(p) => {
                let nav = k.nav;
                view! {
                    <span class="source-kind">"Approved in review: "</span>
                    <a
                        href="#"
                        class="proposal-link"
                        data-proposal-id=p
                        on:click=move |ev| {
                            ev.prevent_default();
                            nav.open_proposal(p);
                        }
                    >
                        {format!("proposal #{p}")}
                    </a>
                }
                .into_any()
            }
            None => view! { <span class="source-kind">{format!("Review: {}", s.source_ref)}</span> }.into_any(),
        },
        "supersedes" => view! {
            <span class="source-kind">"Replaces "</span>
            {node_link(s.source_ref.clone(), k)}
        }
        .into_any(),
        other => view! { <span class="source-kind">{format!("{other}: {}", s.source_ref)}</span> }.into_any(),
    };
    view! {
        <li data-source-kind=s.source_kind.clone() data-source-ref=s.source_ref.clone() title=when>
            {body}
        </li>
    }
}

fn history_row(h: NodeHistoryRow) -> impl IntoView {
    view! {
        <li data-action=h.action.clone()>
            <span class="meta history-at">{short_time(&h.at)}</span>
            <span class=format!("badge history-action action-{}", h.action)>{h.action.clone()}</span>
            {h.state.map(|s| view! { <span class="meta history-state">{format!("→ {}", s.replace('_', " "))}</span> })}
            {h.text.map(|t| view! { <span class="snippet history-text">{t}</span> })}
            {h.note.map(|n| view! { <span class="history-note">{n}</span> })}
        </li>
    }
}

/// The person's changes to a live node, each behind its own small form.
#[component]
fn Actions(node: NodeRow, k: Knowledge) -> impl IntoView {
    let busy = move || k.busy();
    let id = StoredValue::new(node.node_id.clone());
    let node = StoredValue::new(node);
    let opener = move |form: Form| move |_| node.with_value(|n| k.start(form, n));
    let send = move |change: Change| k.apply(id.get_value(), change);
    let reason = move || Some(k.reason.get_untracked()).filter(|r| !r.trim().is_empty());
    let empty_text = move || k.text.with(|t| t.trim().is_empty());
    let text_box = move |box_id: &'static str| {
        view! {
            <textarea
                id=box_id
                rows="3"
                prop:value=move || k.text.get_untracked()
                on:input=move |ev| k.text.set(event_target_value(&ev))
                on:change=move |ev| k.text.set(event_target_value(&ev))
            ></textarea>
        }
    };
    let reason_box = move |box_id: &'static str, placeholder: &'static str| {
        view! {
            <input
                type="text"
                id=box_id
                placeholder=placeholder
                prop:value=move || k.reason.get_untracked()
                on:input=move |ev| k.reason.set(event_target_value(&ev))
                on:change=move |ev| k.reason.set(event_target_value(&ev))
            />
        }
    };
    let cancel = move || {
        view! {
            <button class="small knowledge-cancel" on:click=move |_| k.form.set(Form::None)>
                "Cancel"
            </button>
        }
    };
    view! {
        <div class="proposal-actions" id="knowledge-actions">
            <button class="small" id="knowledge-edit" disabled=busy on:click=opener(Form::Edit)>
                "Correct the text…"
            </button>
            <button class="small" id="knowledge-confirm" disabled=busy on:click=move |_| send(Change::Confirm)>
                "Confirm it still holds"
            </button>
            <button class="small" id="knowledge-set-warrant" disabled=busy on:click=opener(Form::Warrant)>
                "Set warrant…"
            </button>
            <button class="small" id="knowledge-supersede" disabled=busy on:click=opener(Form::Supersede)>
                "Supersede…"
            </button>
            <button class="small danger" id="knowledge-retire" disabled=busy on:click=opener(Form::Retire)>
                "Retire…"
            </button>
        </div>
        {move || match k.form.get() {
            Form::None => ().into_any(),
            Form::Edit => view! {
                <div class="edit-form" id="knowledge-edit-form">
                    <label for="knowledge-edit-text">
                        "The corrected text (your word restores the warrant to assert; the old text stays in the history):"
                    </label>
                    {text_box("knowledge-edit-text")}
                    <div class="inline-form">
                        <button
                            class="primary"
                            id="knowledge-edit-save"
                            disabled=move || busy() || empty_text()
                            on:click=move |_| send(Change::Edit(k.text.get_untracked()))
                        >
                            "Save the correction"
                        </button>
                        {cancel()}
                    </div>
                </div>
            }
            .into_any(),
            Form::Supersede => view! {
                <div class="edit-form" id="knowledge-supersede-form">
                    <label for="knowledge-supersede-text">
                        "The text of the node that replaces this one (same kind, work context and due date; this one is kept as superseded):"
                    </label>
                    {text_box("knowledge-supersede-text")}
                    <div class="inline-form">
                        <button
                            class="primary"
                            id="knowledge-supersede-save"
                            disabled=move || busy() || empty_text()
                            on:click=move |_| send(Change::Supersede(k.text.get_untracked()))
                        >
                            "Supersede"
                        </button>
                        {cancel()}
                    </div>
                </div>
            }
            .into_any(),
            Form::Warrant => view! {
                <div class="inline-form warrant-form" id="knowledge-warrant-form">
                    <label for="knowledge-warrant-select">"Warrant"</label>
                    <select
                        id="knowledge-warrant-select"
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            if let Some(w) = NodeWarrant::ALL.iter().copied().find(|w| w.as_str() == v) {
                                k.warrant.set(w);
                            }
                        }
                    >
                        {NodeWarrant::ALL
                            .iter()
                            .map(|&w| {
                                view! {
                                    <option value=w.as_str() selected=k.warrant.get_untracked() == w>
                                        {format!("{} — {}", w.label(), w.explanation())}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                    {reason_box("knowledge-warrant-reason-input", "why (optional): shown with the warrant")}
                    <button
                        class="primary"
                        id="knowledge-warrant-save"
                        disabled=busy
                        on:click=move |_| send(Change::Warrant(k.warrant.get_untracked(), reason()))
                    >
                        "Set"
                    </button>
                    {cancel()}
                </div>
            }
            .into_any(),
            Form::Retire => view! {
                <div class="reject-form inline-form" id="knowledge-retire-form">
                    <label for="knowledge-retire-reason">"Retire"</label>
                    {reason_box("knowledge-retire-reason", "why (optional): kept in the history and shown by the Inspector")}
                    <button
                        class="primary"
                        id="knowledge-retire-confirm"
                        disabled=busy
                        on:click=move |_| send(Change::Retire(reason()))
                    >
                        "Retire"
                    </button>
                    {cancel()}
                    <span class="hint">"It leaves every brief; its provenance and history stay."</span>
                </div>
            }
            .into_any(),
        }}
    }
}
