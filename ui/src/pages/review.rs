//! Review: the promotion review queue (CSA §3.3). The nightly job proposes durable knowledge from
//! the continuity logs (an obligation from a long-open question with a deadline, a memory
//! directive from a decision stated in several sessions); here the person approves (as proposed
//! or in their own words), rejects (with an optional reason) or defers each proposal, one at a
//! time or ticked in a batch, by mouse or by key. Nothing enters the graph until approved.
//!
//! The header shows the nightly job: when it last ran, when it runs next, and a button to run it
//! (or only the promotion rules) now. The list sits beside the selected proposal's evidence: the
//! rule's reason, the entry as captured, the sessions that recorded or restated it with their
//! dates, the deadline, and, for a renewal, the earlier rejection it answers.

use std::collections::BTreeSet;

use elnor_types::{
    CommandError, ContinuityEntryRow, EvidenceSessionRow, NightlyReportRow, NightlyStatus,
    ProposalDetail, ProposalRow, ProposalRule, ProposalStatus, ReviewOutcome, ReviewQueue,
};
use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{session_link, short_time};
use crate::api;
use crate::app::{PendingReviews, use_pending_reviews};
use crate::components::Loaded;
use crate::nav::use_nav;
use crate::push::dialog_open;

/// The form open over the queue, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    None,
    /// Rewording the selected proposal before approving it.
    Edit,
    /// Rejecting these proposals; `batch` when they are the ticked ones rather than the
    /// selected one, which decides where the form is shown.
    Reject {
        ids: Vec<i64>,
        batch: bool,
    },
}

/// A decision on its way to the shell.
#[derive(Debug, Clone)]
enum Decision {
    Approve {
        ids: Vec<i64>,
        text: Option<String>,
    },
    Reject {
        ids: Vec<i64>,
        reason: Option<String>,
    },
    Defer {
        ids: Vec<i64>,
    },
}

/// What the last action said.
#[derive(Debug, Clone)]
enum Note {
    Done(String),
    Failed(Vec<String>),
}

/// The page's state. Every field is a signal, so the struct is `Copy` and each handler (buttons,
/// keys, forms) works on the same state.
#[derive(Clone, Copy)]
struct Review {
    show_all: RwSignal<bool>,
    /// Bumped after every decision so the list and the open proposal reload.
    generation: RwSignal<u32>,
    selected: RwSignal<Option<i64>>,
    /// Ticked for a batch decision.
    checked: RwSignal<BTreeSet<i64>>,
    /// The listed proposals in list order, for moving by key and prefilling the edit box.
    listed: RwSignal<Vec<ProposalRow>>,
    form: RwSignal<Form>,
    edit_text: RwSignal<String>,
    reason: RwSignal<String>,
    note: RwSignal<Option<Note>>,
    /// The decision on its way to the shell; `pending` is the page's busy state, and the page
    /// takes each reply as it lands (see [`Review::after`]).
    decision: Action<Decision, (&'static str, Result<ReviewOutcome, CommandError>)>,
    /// The sidebar's badge, taken here because event handlers run outside any reactive owner.
    pending: PendingReviews,
}

impl Review {
    fn new() -> Review {
        Review {
            pending: use_pending_reviews(),
            show_all: RwSignal::new(false),
            generation: RwSignal::new(0),
            selected: RwSignal::new(None),
            checked: RwSignal::new(BTreeSet::new()),
            listed: RwSignal::new(Vec::new()),
            form: RwSignal::new(Form::None),
            edit_text: RwSignal::new(String::new()),
            reason: RwSignal::new(String::new()),
            note: RwSignal::new(None),
            decision: Action::new_local(|decision: &Decision| {
                let decision = decision.clone();
                async move {
                    match decision {
                        Decision::Approve { ids, text } => {
                            ("Approved", api::review_approve(ids, text).await)
                        }
                        Decision::Reject { ids, reason } => {
                            ("Rejected", api::review_reject(ids, reason).await)
                        }
                        Decision::Defer { ids } => ("Deferred", api::review_defer(ids).await),
                    }
                }
            }),
        }
    }

    /// The selected proposal, when it can still be decided.
    fn current_open(self) -> Option<ProposalRow> {
        let id = self.selected.get_untracked()?;
        self.listed.with_untracked(|l| {
            l.iter()
                .find(|p| p.proposal_id == id && p.status.is_open())
                .cloned()
        })
    }

    /// What approve, reject and defer act on: the ticked proposals when there are any (in list
    /// order), else the selected one.
    fn targets(self) -> (Vec<i64>, bool) {
        let checked = self.checked.get_untracked();
        if checked.is_empty() {
            let ids = self.current_open().map(|p| p.proposal_id);
            return (ids.into_iter().collect(), false);
        }
        let ids = self.listed.with_untracked(|l| {
            l.iter()
                .filter(|p| p.status.is_open() && checked.contains(&p.proposal_id))
                .map(|p| p.proposal_id)
                .collect()
        });
        (ids, true)
    }

    /// Moves the selection `delta` rows down (up when negative), staying in the list.
    fn move_by(self, delta: isize) {
        let ids: Vec<i64> = self
            .listed
            .with_untracked(|l| l.iter().map(|p| p.proposal_id).collect());
        if ids.is_empty() {
            return;
        }
        let at = self
            .selected
            .get_untracked()
            .and_then(|id| ids.iter().position(|x| *x == id));
        let next = match at {
            None => 0,
            Some(i) => i.saturating_add_signed(delta).min(ids.len() - 1),
        };
        self.select(ids[next]);
        scroll_to_row(ids[next]);
    }

    fn select(self, id: i64) {
        if self.selected.get_untracked() != Some(id) {
            self.form.set(Form::None);
            self.selected.set(Some(id));
        }
    }

    fn toggle_checked(self, id: i64) {
        self.checked.update(|c| {
            if !c.remove(&id) {
                c.insert(id);
            }
        });
    }

    fn start_edit(self) {
        if let Some(p) = self.current_open() {
            self.edit_text.set(p.text);
            self.form.set(Form::Edit);
        }
    }

    fn start_reject(self) {
        let (ids, batch) = self.targets();
        if !ids.is_empty() {
            self.reason.set(String::new());
            self.form.set(Form::Reject { ids, batch });
        }
    }

    fn approve(self) {
        let (ids, _) = self.targets();
        if !ids.is_empty() {
            self.decide(Decision::Approve { ids, text: None });
        }
    }

    fn defer(self) {
        let (ids, _) = self.targets();
        if !ids.is_empty() {
            self.decide(Decision::Defer { ids });
        }
    }

    /// Whether a decision is on its way.
    fn busy(self) -> bool {
        self.decision.pending().get()
    }

    /// Sends a decision, one at a time.
    fn decide(self, decision: Decision) {
        if !self.decision.pending().get_untracked() {
            self.decision.dispatch_local(decision);
        }
    }

    /// Takes a decision's reply: says what happened, updates the badge, and moves the selection
    /// past the decided proposals, the way one works down a queue.
    fn answered(self, verb: &str, reply: Result<ReviewOutcome, CommandError>) {
        match reply {
            Ok(outcome) => {
                self.pending.0.set(Some(outcome.pending));
                self.after(verb, &outcome);
            }
            Err(e) => self.note.set(Some(Note::Failed(vec![e.message]))),
        }
    }

    fn after(self, verb: &str, outcome: &ReviewOutcome) {
        let decided: BTreeSet<i64> = outcome.decided.iter().map(|p| p.proposal_id).collect();
        let mut lines: Vec<String> = outcome
            .failed
            .iter()
            .map(|f| format!("#{}: {}", f.proposal_id, f.message))
            .collect();
        if lines.is_empty() {
            let what = match outcome.decided.as_slice() {
                [one] => match &one.node_id {
                    Some(node) => format!("{verb} #{} as {node}.", one.proposal_id),
                    None => format!("{verb} #{}.", one.proposal_id),
                },
                many => format!("{verb} {} proposals.", many.len()),
            };
            self.note.set(Some(Note::Done(what)));
        } else {
            if !decided.is_empty() {
                lines.insert(0, format!("{verb} {}; these failed:", decided.len()));
            }
            self.note.set(Some(Note::Failed(lines)));
        }
        self.checked
            .update(|c| c.retain(|id| !decided.contains(id)));
        // The next proposal still open below the selected one, else above it.
        if let Some(current) = self.selected.get_untracked()
            && decided.contains(&current)
        {
            let next = self.listed.with_untracked(|l| {
                let at = l.iter().position(|p| p.proposal_id == current).unwrap_or(0);
                let open =
                    |p: &&ProposalRow| p.status.is_open() && !decided.contains(&p.proposal_id);
                l[at..]
                    .iter()
                    .find(open)
                    .or_else(|| l[..at].iter().rev().find(open))
                    .map(|p| p.proposal_id)
            });
            self.selected.set(next);
        }
        self.form.set(Form::None);
        self.generation.update(|g| *g += 1);
    }
}

fn scroll_to_row(id: i64) {
    let row = document().query_selector(&format!("#review-list [data-proposal-id='{id}']"));
    if let Ok(Some(row)) = row {
        row.scroll_into_view_with_bool(false);
    }
}

/// Whether a key press belongs to a text field rather than to the page's shortcuts. Checkboxes
/// and buttons do not count: after ticking a box, the keys should still work.
fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(el) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return false;
    };
    match el.tag_name().to_ascii_lowercase().as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            el.get_attribute("type").unwrap_or_default().as_str(),
            "checkbox" | "radio" | "button" | "submit"
        ),
        _ => el.is_content_editable(),
    }
}

#[component]
pub fn ReviewPage() -> impl IntoView {
    let review = Review::new();
    // A link from the Knowledge page names a proposal, usually a decided one: show it among all.
    let nav = use_nav();
    if let Some(id) = nav.take_proposal() {
        review.show_all.set(true);
        review.selected.set(Some(id));
    }
    // Each decision's reply, once: the value changes only when a reply lands.
    Effect::new(move |_| {
        if let Some((verb, reply)) = review.decision.value().get() {
            review.answered(verb, reply);
        }
    });
    let queue = LocalResource::new(move || {
        review.generation.track();
        api::review_list(review.show_all.get())
    });
    // Keeps the key handlers' copy of the list and a valid selection.
    Effect::new(move |_| {
        let Some(Ok(q)) = queue.get() else {
            return;
        };
        let present = |id: i64| q.proposals.iter().any(|p| p.proposal_id == id);
        if !review.selected.get_untracked().is_some_and(present) {
            let first = q
                .proposals
                .iter()
                .find(|p| p.status.is_open())
                .or(q.proposals.first());
            review.selected.set(first.map(|p| p.proposal_id));
        }
        review.checked.update(|c| {
            c.retain(|id| {
                q.proposals
                    .iter()
                    .any(|p| p.proposal_id == *id && p.status.is_open())
            })
        });
        review.listed.set(q.proposals);
    });

    let keys = window_event_listener(ev::keydown, move |ev| {
        // The push dialog (Ctrl+Shift+P) is modal: keys typed while it is open are not decisions.
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || typing(&ev) || dialog_open() {
            return;
        }
        match ev.key().as_str() {
            "j" | "ArrowDown" => review.move_by(1),
            "k" | "ArrowUp" => review.move_by(-1),
            "a" => review.approve(),
            "e" => review.start_edit(),
            "r" => review.start_reject(),
            "d" => review.defer(),
            "x" => {
                if let Some(p) = review.current_open() {
                    review.toggle_checked(p.proposal_id);
                }
            }
            "Escape" => review.form.set(Form::None),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || keys.remove());

    view! {
        <h2>"Review"</h2>
        <NightlyCard review />
        {move || {
            review
                .note
                .get()
                .map(|n| match n {
                    Note::Done(text) => view! { <p class="saved" id="review-note">{text}</p> }.into_any(),
                    Note::Failed(lines) => {
                        view! {
                            <div class="error" id="review-note" role="alert">
                                {lines.into_iter().map(|l| view! { <p>{l}</p> }).collect_view()}
                            </div>
                        }
                            .into_any()
                    }
                })
        }}
        <Loaded resource=queue loading="Reading the review queue…" let:q>
            {view! { <Queue queue=q review /> }}
        </Loaded>
    }
}

#[component]
fn Queue(queue: ReviewQueue, review: Review) -> impl IntoView {
    let counts = format!(
        "{} pending · {} deferred{}",
        queue.pending,
        queue.deferred,
        if review.show_all.get_untracked() {
            format!(" · {} in all", queue.proposals.len())
        } else {
            String::new()
        }
    );
    let show_all = view! {
        <label class="check">
            <input
                id="review-show-all"
                type="checkbox"
                prop:checked=move || review.show_all.get()
                on:change=move |ev| review.show_all.set(event_target_checked(&ev))
            />
            "Show decided proposals too"
        </label>
    };
    if queue.proposals.is_empty() {
        return view! {
            <div class="review-toolbar">{show_all}</div>
            <EmptyQueue queue />
        }
        .into_any();
    }
    let open: Vec<i64> = queue
        .proposals
        .iter()
        .filter(|p| p.status.is_open())
        .map(|p| p.proposal_id)
        .collect();
    let all_open = open.clone();
    let all_ticked = move || {
        !all_open.is_empty()
            && review
                .checked
                .with(|c| all_open.iter().all(|id| c.contains(id)))
    };
    let tick_all = move |ev| {
        let on = event_target_checked(&ev);
        review.checked.update(|c| {
            if on {
                c.extend(open.iter().copied());
            } else {
                c.clear();
            }
        });
    };
    let n_checked = move || review.checked.with(BTreeSet::len);
    let busy = move || review.busy();
    view! {
        <div class="review-toolbar" id="review-batch">
            <label class="check">
                <input id="review-select-all" type="checkbox" prop:checked=all_ticked on:change=tick_all />
                "All"
            </label>
            <span class="meta" id="review-counts">{counts}</span>
            <span class="meta" id="review-checked-count">
                {move || match n_checked() {
                    0 => String::new(),
                    n => format!("{n} ticked"),
                }}
            </span>
            <span class="batch-actions">
                <button
                    class="small"
                    id="batch-approve"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.approve()
                >
                    "Approve ticked"
                </button>
                <button
                    class="small"
                    id="batch-reject"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.start_reject()
                >
                    "Reject ticked…"
                </button>
                <button
                    class="small"
                    id="batch-defer"
                    disabled=move || n_checked() == 0 || busy()
                    on:click=move |_| review.defer()
                >
                    "Defer ticked"
                </button>
            </span>
            {show_all}
        </div>
        {move || match review.form.get() {
            Form::Reject { ids, batch: true } => view! { <RejectForm ids review /> }.into_any(),
            _ => ().into_any(),
        }}
        <p class="hint" id="review-shortcuts">
            "Keys: " <kbd>"j"</kbd> "/" <kbd>"k"</kbd> " or " <kbd>"↓"</kbd> "/" <kbd>"↑"</kbd>
            " move · " <kbd>"x"</kbd> " tick · " <kbd>"a"</kbd> " approve · " <kbd>"e"</kbd>
            " edit and approve · " <kbd>"r"</kbd> " reject · " <kbd>"d"</kbd> " defer · "
            <kbd>"Esc"</kbd> " cancel. Approve, reject and defer act on the ticked proposals when "
            "any are ticked, else on the selected one; not while you type in a field."
        </p>
        <div class="review-layout">
            <ul class="proposal-list" id="review-list">
                {queue.proposals.into_iter().map(|p| proposal_row(p, review)).collect_view()}
            </ul>
            <ProposalPane review />
        </div>
    }
    .into_any()
}

fn rule_label(rule: ProposalRule) -> &'static str {
    match rule {
        ProposalRule::UnresolvedQuestion => "obligation",
        ProposalRule::ReferencedDecision => "memory directive",
    }
}

fn proposal_row(p: ProposalRow, review: Review) -> impl IntoView {
    let id = p.proposal_id;
    let open = p.status.is_open();
    let context = p
        .work_context_name
        .clone()
        .unwrap_or_else(|| p.work_context_id.clone());
    let sessions = p.evidence.sessions.len();
    let mut meta = vec![
        context,
        format!("{sessions} session{}", if sessions == 1 { "" } else { "s" }),
    ];
    if let Some(deadline) = &p.evidence.deadline {
        meta.push(format!("due {}", deadline.get(..10).unwrap_or(deadline)));
    }
    meta.push(format!("proposed {}", short_time(&p.created_at)));
    view! {
        <li
            class="proposal-row"
            class:active=move || review.selected.get() == Some(id)
            class:ticked=move || review.checked.with(|c| c.contains(&id))
            data-proposal-id=id
            data-status=p.status.as_str()
            data-rule=p.rule.as_str()
            on:click=move |_| review.select(id)
        >
            <input
                type="checkbox"
                class="proposal-check"
                title="tick for a batch decision (x)"
                disabled=!open
                prop:checked=move || review.checked.with(|c| c.contains(&id))
                // Ticking is not choosing: the click stays on the box.
                on:click=|ev| ev.stop_propagation()
                on:change=move |_| review.toggle_checked(id)
            />
            <div class="proposal-summary">
                <span class="badges">
                    <span class=format!("badge kind-{}", p.node_kind)>{rule_label(p.rule)}</span>
                    {(p.status != ProposalStatus::Pending)
                        .then(|| {
                            view! {
                                <span class=format!("badge status-{}", p.status.as_str())>
                                    {p.status.as_str()}
                                </span>
                            }
                        })}
                    {p.renews.map(|r| view! { <span class="badge renews">{format!("renews #{r}")}</span> })}
                </span>
                <span class="proposal-text">{p.text.clone()}</span>
                <span class="meta">{meta.join(" · ")}</span>
            </div>
        </li>
    }
}

#[component]
fn EmptyQueue(queue: ReviewQueue) -> impl IntoView {
    let rules = match queue.rules {
        Some(r) => view! {
            <ul id="review-rules">
                <li>
                    "An open question unresolved for " <strong>{format!("{} days", r.question_days)}</strong>
                    " or more, and linked to an entity with a deadline, is proposed as an "
                    <em>"obligation"</em> "."
                </li>
                <li>
                    "A key decision stated in " <strong>{format!("{} sessions", r.decision_sessions)}</strong>
                    " or more is proposed as a " <em>"memory directive"</em>
                    ", which then goes into every brief's living memory."
                </li>
            </ul>
            <p class="hint">
                {format!(
                    "The nightly job checks these rules every day after {:02}:00 (your time), or now \
                     with the buttons above. The thresholds are in Settings.",
                    r.nightly_hour,
                )}
            </p>
        }
        .into_any(),
        None => view! {
            <p class="error" role="alert">
                "The rules' thresholds are unknown because the config cannot be read: "
                {queue.config_error.clone().unwrap_or_default()}
            </p>
        }
        .into_any(),
    };
    view! {
        <div class="card empty" id="review-empty">
            <p>
                <strong>"Nothing to review."</strong>
                " Proposals appear here when the nightly job finds knowledge in the continuity logs "
                "that looks durable. Nothing enters the graph until you approve it."
            </p>
            {rules}
        </div>
    }
}

#[component]
fn ProposalPane(review: Review) -> impl IntoView {
    let detail = LocalResource::new(move || {
        review.generation.track();
        let id = review.selected.get();
        async move {
            match id {
                Some(id) => api::review_show(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the proposal…" let:d>
                {match d {
                    Some(d) => view! { <ProposalView detail=d review /> }.into_any(),
                    None => view! { <p class="hint">"Pick a proposal to see its evidence."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

#[component]
fn ProposalView(detail: ProposalDetail, review: Review) -> impl IntoView {
    let p = detail.proposal;
    let id = p.proposal_id;
    let open = p.status.is_open();
    let e = p.evidence.clone();
    let context = match &p.work_context_name {
        Some(name) => format!("{name} ({})", p.work_context_id),
        None => p.work_context_id.clone(),
    };
    let deadline = e.deadline.as_ref().map(|d| {
        let date = d.get(..10).unwrap_or(d).to_owned();
        match &e.entity_name {
            Some(entity) => format!("{date}, from {entity}"),
            None => date,
        }
    });
    view! {
        <div class="card proposal-detail" id="review-detail" data-proposal-id=id data-status=p.status.as_str()>
            <p class="badges">
                <span class=format!("badge kind-{}", p.node_kind)>{rule_label(p.rule)}</span>
                <span class=format!("badge status-{}", p.status.as_str())>{p.status.as_str()}</span>
                <span class="meta">{format!("#{id} · proposed {}", short_time(&p.created_at))}</span>
            </p>
            <p class="proposal-text" id="review-text">{p.text.clone()}</p>
            <p class="because" id="review-because">
                {format!("Proposed because it was {}.", e.because)}
            </p>
            {p.renews
                .map(|r| {
                    let earlier = detail.renewed.clone();
                    let why = earlier
                        .as_ref()
                        .map(|x| {
                            let when = x.decided_at.as_deref().map(short_time).unwrap_or_default();
                            match &x.decision_note {
                                Some(reason) => format!(" It was rejected {when}: “{reason}”."),
                                None => format!(" It was rejected {when} without a reason."),
                            }
                        })
                        .unwrap_or_default();
                    view! {
                        <p class="renewal" id="review-renews">
                            <span class="badge renews">{format!("renews #{r}")}</span>
                            {format!("Proposed again because new evidence arrived after #{r} was rejected.{why}")}
                        </p>
                    }
                })}
            {decision_view(&p)}
            {open.then(|| view! { <Actions id text=p.text.clone() review /> })}
            <h4>"Evidence"</h4>
            <dl class="facts evidence">
                <dt>"Work context"</dt>
                <dd>{context}</dd>
                <dt>"First captured"</dt>
                <dd id="review-captured">
                    {format!("{} ({} days before the proposal)", short_time(&e.captured_at), e.age_days)}
                </dd>
                <dt>"Sessions"</dt>
                <dd id="review-session-count">{e.sessions.len()}</dd>
                {deadline.map(|d| view! {
                    <dt>"Deadline"</dt>
                    <dd id="review-deadline">{d}</dd>
                })}
            </dl>
            <h4>"The entry as captured"</h4>
            {match detail.entry {
                Some(entry) => entry_view(entry).into_any(),
                None => view! {
                    <p class="hint" id="review-entry-missing">
                        "The work context's log no longer holds this entry (it decayed or the log "
                        "was compacted); the proposal keeps its text."
                    </p>
                }
                    .into_any(),
            }}
            <h4>"Sessions that stated it"</h4>
            <ul class="evidence-sessions" id="review-sessions">
                {detail.sessions.into_iter().map(session_row).collect_view()}
            </ul>
        </div>
    }
}

fn decision_view(p: &ProposalRow) -> Option<AnyView> {
    if p.status == ProposalStatus::Pending {
        return None;
    }
    let when = p.decided_at.as_deref().map(short_time).unwrap_or_default();
    let what = match p.status {
        ProposalStatus::Approved => format!(
            "Approved {when}{}.",
            p.node_id
                .as_ref()
                .map(|n| format!("; written to the graph as {n}"))
                .unwrap_or_default()
        ),
        ProposalStatus::Rejected => format!("Rejected {when}."),
        ProposalStatus::Deferred => {
            format!("Deferred {when}; it stays in the queue, after the pending proposals.")
        }
        ProposalStatus::Pending => String::new(),
    };
    // The node an approval wrote, on the Knowledge page (it may have been changed since).
    let node = p
        .node_id
        .clone()
        .filter(|_| p.status == ProposalStatus::Approved)
        .map(|node| {
            let nav = use_nav();
            let target = node.clone();
            view! {
                <a
                    href="#"
                    class="node-link"
                    id="review-open-node"
                    data-node-id=node
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.open_node(target.clone());
                    }
                >
                    "Open in Knowledge"
                </a>
            }
        });
    Some(view! {
        <p class="decision" id="review-decision">
            {what}
            {p.decision_note.clone().map(|n| view! { <span class="meta" id="review-decision-note">{format!(" Note: {n}")}</span> })}
            {node.map(|a| view! { " " {a} })}
        </p>
    }
    .into_any())
}

fn entry_view(e: ContinuityEntryRow) -> impl IntoView {
    let kind = e.entry_type.replace('_', " ");
    view! {
        <div class="evidence-entry" id="review-entry" data-entry-id=e.entry_id.clone()>
            <p>
                <span class="badge">{kind}</span>
                {e.reduced_confidence
                    .then(|| {
                        view! {
                            <span
                                class="badge heuristic"
                                title="Found by the heuristic detectors, not the model: read it with care."
                            >
                                "heuristic · reduced confidence"
                            </span>
                        }
                    })}
                {e.resolved.then(|| view! { <span class="badge resolved">"resolved"</span> })}
                <span class="headline">{e.headline.clone()}</span>
            </p>
            {e.detail.clone().map(|d| view! { <p class="detail snippet">{d}</p> })}
            <p class="meta">
                {format!("captured {} from ", short_time(&e.captured_at))}
                {session_link(e.source_session_id.clone(), None)}
            </p>
        </div>
    }
}

fn session_row(s: EvidenceSessionRow) -> impl IntoView {
    let role = if s.recorded {
        "recorded it"
    } else {
        "stated it again"
    };
    let when = s
        .started_at
        .as_deref()
        .map(|t| format!("started {}", short_time(t)))
        .unwrap_or_default();
    let about = if s.ingested {
        let mut parts = vec![role.to_owned()];
        parts.extend(s.harness.clone());
        if !when.is_empty() {
            parts.push(when);
        }
        parts.join(" · ")
    } else {
        format!("{role} · transcript not in the store")
    };
    view! {
        <li data-session-id=s.session_id.clone()>
            {if s.ingested {
                session_link(s.session_id.clone(), None).into_any()
            } else {
                view! { <span class="session-id">{format!("session {}", s.session_id)}</span> }.into_any()
            }}
            <span class="meta">{format!(" {about}")}</span>
            {s.title.map(|t| view! { <span class="snippet">{t}</span> })}
        </li>
    }
}

/// Approve, edit and approve, reject and defer for the open proposal `id`.
#[component]
fn Actions(id: i64, text: String, review: Review) -> impl IntoView {
    let busy = move || review.busy();
    let edit_box = NodeRef::<leptos::html::Textarea>::new();
    // Focus follows the form, so the keyboard flow (e, type, Ctrl+Enter) needs no mouse.
    Effect::new(move |_| {
        if let Some(el) = edit_box.get() {
            let _ = el.focus();
        }
    });
    let approve_edited = move || {
        review.decide(Decision::Approve {
            ids: vec![id],
            text: Some(review.edit_text.get_untracked()),
        })
    };
    let original = text.clone();
    view! {
        <div class="proposal-actions">
            <button
                class="primary"
                id="review-approve"
                disabled=busy
                on:click=move |_| review.decide(Decision::Approve { ids: vec![id], text: None })
            >
                "Approve"
            </button>
            <button
                class="small"
                id="review-edit"
                disabled=busy
                on:click=move |_| {
                    review.edit_text.set(original.clone());
                    review.form.set(Form::Edit);
                }
            >
                "Edit and approve…"
            </button>
            <button
                class="small"
                id="review-reject"
                disabled=busy
                on:click=move |_| {
                    review.reason.set(String::new());
                    review.form.set(Form::Reject { ids: vec![id], batch: false });
                }
            >
                "Reject…"
            </button>
            <button
                class="small"
                id="review-defer"
                disabled=busy
                on:click=move |_| review.decide(Decision::Defer { ids: vec![id] })
            >
                "Defer"
            </button>
        </div>
        {move || match review.form.get() {
            Form::Edit => {
                view! {
                    <div class="edit-form" id="review-edit-form">
                        <label for="review-edit-text">"In your words (this text is what the graph and the brief will hold):"</label>
                        <textarea
                            id="review-edit-text"
                            rows="3"
                            node_ref=edit_box
                            prop:value=move || review.edit_text.get_untracked()
                            on:input=move |ev| review.edit_text.set(event_target_value(&ev))
                            on:change=move |ev| review.edit_text.set(event_target_value(&ev))
                            on:keydown=move |ev| {
                                if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                                    ev.prevent_default();
                                    approve_edited();
                                } else if ev.key() == "Escape" {
                                    review.form.set(Form::None);
                                }
                            }
                        ></textarea>
                        <div class="inline-form">
                            <button
                                class="primary"
                                id="review-approve-edited"
                                disabled=move || busy() || review.edit_text.with(|t| t.trim().is_empty())
                                on:click=move |_| approve_edited()
                            >
                                "Approve with this text"
                            </button>
                            <button class="small" id="review-edit-cancel" on:click=move |_| review.form.set(Form::None)>
                                "Cancel"
                            </button>
                            <span class="hint">"Ctrl+Enter approves, Esc cancels."</span>
                        </div>
                    </div>
                }
                    .into_any()
            }
            Form::Reject { ids, batch: false } => view! { <RejectForm ids review /> }.into_any(),
            _ => ().into_any(),
        }}
    }
}

/// The optional reason for rejecting `ids`, kept with each of them.
#[component]
fn RejectForm(ids: Vec<i64>, review: Review) -> impl IntoView {
    let reason_box = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(el) = reason_box.get() {
            let _ = el.focus();
        }
    });
    let what = match ids.as_slice() {
        [one] => format!("Reject #{one}"),
        many => format!("Reject {} proposals", many.len()),
    };
    let ids = StoredValue::new(ids);
    let confirm = move || {
        let reason = Some(review.reason.get_untracked()).filter(|r| !r.trim().is_empty());
        review.decide(Decision::Reject {
            ids: ids.get_value(),
            reason,
        });
    };
    view! {
        <div class="reject-form inline-form" id="review-reject-form">
            <label for="review-reject-reason">{what}</label>
            <input
                type="text"
                id="review-reject-reason"
                placeholder="why (optional): kept with the rejection"
                node_ref=reason_box
                prop:value=move || review.reason.get_untracked()
                on:input=move |ev| review.reason.set(event_target_value(&ev))
                on:change=move |ev| review.reason.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        confirm();
                    } else if ev.key() == "Escape" {
                        review.form.set(Form::None);
                    }
                }
            />
            <button class="primary" id="review-reject-confirm" disabled=move || review.busy() on:click=move |_| confirm()>
                "Reject"
            </button>
            <button class="small" id="review-reject-cancel" on:click=move |_| review.form.set(Form::None)>
                "Cancel"
            </button>
            <span class="hint">"A rejected proposal comes back only if its evidence changes."</span>
        </div>
    }
}

/// What the nightly card's buttons ask for.
#[derive(Debug, Clone, Copy)]
enum NightlyJob {
    /// The whole nightly job, now.
    Run,
    /// Only the promotion rules.
    Evaluate,
}

/// The nightly job: when it last ran and runs next, and buttons to run it, or only the rules, now.
#[component]
fn NightlyCard(review: Review) -> impl IntoView {
    let pending = review.pending;
    let generation = RwSignal::new(0u32);
    let status = LocalResource::new(move || {
        generation.track();
        api::nightly_status()
    });
    // Either button's job: `pending` disables both, the value is the note under them.
    let job = Action::new_local(move |job: &NightlyJob| {
        let job = *job;
        async move {
            let note = match job {
                NightlyJob::Run => {
                    let result = api::nightly_run().await;
                    generation.update(|g| *g += 1);
                    pending.refresh();
                    result.map(|r| report_text(&r))
                }
                NightlyJob::Evaluate => api::review_evaluate().await.map(|e| {
                    pending.0.set(Some(e.pending));
                    format!(
                        "Rules evaluated: {} new proposal(s), {} of them renewed after new \
                         evidence; {} already known.",
                        e.proposed, e.renewed, e.already_known
                    )
                }),
            };
            review.generation.update(|g| *g += 1);
            note.map_err(|e| e.message)
        }
    });
    let working = job.pending();
    let note = job.value();
    // The last note goes as the next job starts.
    let start = move |which: NightlyJob| {
        job.clear();
        job.dispatch_local(which);
    };
    let run_now = move |_| start(NightlyJob::Run);
    let evaluate = move |_| start(NightlyJob::Evaluate);
    view! {
        <div class="card nightly" id="nightly-card">
            <div class="nightly-row">
                <Loaded resource=status loading="Reading the nightly job…" inline=true let:value>
                    {nightly_view(value)}
                </Loaded>
                <span class="nightly-buttons">
                    <button class="small" id="review-evaluate" disabled=move || working.get() on:click=evaluate>
                        "Evaluate rules now"
                    </button>
                    <button class="primary" id="nightly-run" disabled=move || working.get() on:click=run_now>
                        {move || if working.get() { "Running…" } else { "Run nightly now" }}
                    </button>
                </span>
            </div>
            {move || {
                note.get()
                    .map(|n| match n {
                        Ok(text) => view! { <p class="hint" id="nightly-note">{text}</p> }.into_any(),
                        Err(e) => view! { <div class="error" id="nightly-note" role="alert">{e}</div> }.into_any(),
                    })
            }}
        </div>
    }
}

fn nightly_view(s: NightlyStatus) -> impl IntoView {
    let last = match &s.last_run {
        Some(t) => short_time(t),
        None => "never on this store".to_owned(),
    };
    let next = if s.running {
        "running now".to_owned()
    } else if s.due {
        "due: within a minute".to_owned()
    } else {
        s.next_run
            .as_deref()
            .map(short_time)
            .unwrap_or_else(|| "unknown".to_owned())
    };
    view! {
        <span class="nightly-times">
            <span>"Nightly job: last ran "</span>
            <strong id="nightly-last-run">{last}</strong>
            <span>" · next "</span>
            <strong id="nightly-next-run">{next}</strong>
            {s.nightly_hour.map(|h| view! { <span class="meta">{format!(" (daily after {h:02}:00, your time)")}</span> })}
        </span>
        {s.research.and_then(|u| {
            u.useful_pct.map(|pct| view! {
                <p class="hint" id="research-utility">
                    {format!(
                        "Research captures: {} tracked, {pct}% of later use ({} restated, {} shown \
                         in a brief, {} promoted). The research gate multiplier is in Settings.",
                        u.captures, u.referenced, u.briefed, u.promoted
                    )}
                </p>
            })
        })}
        {s.last_error.map(|e| view! { <div class="error" id="nightly-error" role="alert">{format!("The last run failed: {e}")}</div> })}
    }
}

fn report_text(r: &NightlyReportRow) -> String {
    let mut text = format!(
        "Nightly job done: {} session(s) captured, {} new proposal(s) ({} renewed), {} node(s) \
         moved down the warrant ladder, {} view(s) rebuilt, recent activity with {} work \
         context(s).",
        r.captured, r.proposed, r.renewed, r.degraded, r.views_rebuilt, r.rollup_segments
    );
    for f in r.capture_failures.iter().take(3) {
        text.push_str(&format!(" Capture failed: {f}."));
    }
    text
}
