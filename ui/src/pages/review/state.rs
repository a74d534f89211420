//! The Review page's shared state ([`Review`]): the selection, the ticked proposals, the open
//! form and the decision on its way, with the moves the buttons and the keys make on it.

use std::collections::BTreeSet;

use elnor_types::{CommandError, ProposalRow, ReviewOutcome};
use leptos::prelude::*;

use crate::api;
use crate::app::{PendingReviews, use_pending_reviews};

/// The form open over the queue, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Form {
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
pub(super) enum Decision {
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
pub(super) enum Note {
    Done(String),
    Failed(Vec<String>),
}

/// The page's state. Every field is a signal, so the struct is `Copy` and each handler (buttons,
/// keys, forms) works on the same state.
#[derive(Clone, Copy)]
pub(super) struct Review {
    pub(super) show_all: RwSignal<bool>,
    /// Bumped after every decision so the list and the open proposal reload.
    pub(super) generation: RwSignal<u32>,
    pub(super) selected: RwSignal<Option<i64>>,
    /// Ticked for a batch decision.
    pub(super) checked: RwSignal<BTreeSet<i64>>,
    /// The listed proposals in list order, for moving by key and prefilling the edit box.
    pub(super) listed: RwSignal<Vec<ProposalRow>>,
    pub(super) form: RwSignal<Form>,
    pub(super) edit_text: RwSignal<String>,
    pub(super) reason: RwSignal<String>,
    pub(super) note: RwSignal<Option<Note>>,
    /// The decision on its way to the shell; `pending` is the page's busy state, and the page
    /// takes each reply as it lands (see [`Review::after`]).
    pub(super) decision: Action<Decision, (&'static str, Result<ReviewOutcome, CommandError>)>,
    /// The sidebar's badge, taken here because event handlers run outside any reactive owner.
    pub(super) pending: PendingReviews,
}

impl Review {
    pub(super) fn new() -> Review {
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
    pub(super) fn current_open(self) -> Option<ProposalRow> {
        let id = self.selected.get_untracked()?;
        self.listed.with_untracked(|l| {
            l.iter()
                .find(|p| p.proposal_id == id && p.status.is_open())
                .cloned()
        })
    }

    /// What approve, reject and defer act on: the ticked proposals when there are any (in list
    /// order), else the selected one.
    pub(super) fn targets(self) -> (Vec<i64>, bool) {
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
    pub(super) fn move_by(self, delta: isize) {
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

    pub(super) fn select(self, id: i64) {
        if self.selected.get_untracked() != Some(id) {
            self.form.set(Form::None);
            self.selected.set(Some(id));
        }
    }

    pub(super) fn toggle_checked(self, id: i64) {
        self.checked.update(|c| {
            if !c.remove(&id) {
                c.insert(id);
            }
        });
    }

    pub(super) fn start_edit(self) {
        if let Some(p) = self.current_open() {
            self.edit_text.set(p.text);
            self.form.set(Form::Edit);
        }
    }

    pub(super) fn start_reject(self) {
        let (ids, batch) = self.targets();
        if !ids.is_empty() {
            self.reason.set(String::new());
            self.form.set(Form::Reject { ids, batch });
        }
    }

    pub(super) fn approve(self) {
        let (ids, _) = self.targets();
        if !ids.is_empty() {
            self.decide(Decision::Approve { ids, text: None });
        }
    }

    pub(super) fn defer(self) {
        let (ids, _) = self.targets();
        if !ids.is_empty() {
            self.decide(Decision::Defer { ids });
        }
    }

    /// Whether a decision is on its way.
    pub(super) fn busy(self) -> bool {
        self.decision.pending().get()
    }

    /// Sends a decision, one at a time.
    pub(super) fn decide(self, decision: Decision) {
        if !self.decision.pending().get_untracked() {
            self.decision.dispatch_local(decision);
        }
    }

    /// Takes a decision's reply: says what happened, updates the badge, and moves the selection
    /// past the decided proposals, the way one works down a queue.
    pub(super) fn answered(self, verb: &str, reply: Result<ReviewOutcome, CommandError>) {
        match reply {
            Ok(outcome) => {
                self.pending.0.set(Some(outcome.pending));
                self.after(verb, &outcome);
            }
            Err(e) => self.note.set(Some(Note::Failed(vec![e.message]))),
        }
    }

    pub(super) fn after(self, verb: &str, outcome: &ReviewOutcome) {
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

pub(super) fn scroll_to_row(id: i64) {
    let row = document().query_selector(&format!("#review-list [data-proposal-id='{id}']"));
    if let Ok(Some(row)) = row {
        row.scroll_into_view_with_bool(false);
    }
}
