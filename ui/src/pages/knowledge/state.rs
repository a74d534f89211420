//! The Knowledge page's shared state ([`Knowledge`]): the filters, the selected node, the open
//! form and the change on its way, with what a change's reply does to them.

use elnor_types::{CommandError, NodeDetail, NodeKind, NodeRow, NodeWarrant};
use leptos::prelude::*;

use crate::api;
use crate::nav::{Nav, use_nav};

/// The form open over the selected node, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    None,
    Edit,
    Warrant,
    Retire,
    Supersede,
}

/// A change on its way to the shell.
#[derive(Debug, Clone)]
pub(super) enum Change {
    Edit(String),
    Confirm,
    Warrant(NodeWarrant, Option<String>),
    Retire(Option<String>),
    Supersede(String),
}

/// A change to a node and the shell's reply to it.
pub(super) type Changed = (String, Change, Result<NodeDetail, CommandError>);

/// The page's state; every field is a signal, so handlers share it by copy.
#[derive(Clone, Copy)]
pub(super) struct Knowledge {
    pub(super) show_all: RwSignal<bool>,
    /// `None`: both kinds.
    pub(super) kind: RwSignal<Option<NodeKind>>,
    /// Bumped after every change so the list and the open node reload.
    pub(super) generation: RwSignal<u32>,
    pub(super) selected: RwSignal<Option<String>>,
    pub(super) form: RwSignal<Form>,
    /// The edit or supersede text.
    pub(super) text: RwSignal<String>,
    pub(super) reason: RwSignal<String>,
    pub(super) warrant: RwSignal<NodeWarrant>,
    /// What the last change did, or the engine's refusal.
    pub(super) note: RwSignal<Option<Result<String, String>>>,
    /// The change on its way to the shell; `pending` is the page's busy state, and the page
    /// takes each reply as it lands (see [`Knowledge::answered`]).
    pub(super) change: Action<(String, Change), Changed>,
    /// Taken here because event handlers run outside any reactive owner.
    pub(super) nav: Nav,
}

impl Knowledge {
    pub(super) fn new() -> Knowledge {
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

    pub(super) fn select(self, id: String) {
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
    pub(super) fn open(self, id: String) {
        if !self.show_all.get_untracked() {
            self.show_all.set(true);
        }
        if self.kind.get_untracked().is_some() {
            self.kind.set(None);
        }
        self.select(id);
    }

    pub(super) fn start(self, form: Form, node: &NodeRow) {
        self.text.set(node.text.clone());
        self.reason.set(String::new());
        self.warrant.set(node.warrant);
        self.note.set(None);
        self.form.set(form);
    }

    /// Whether a change is on its way.
    pub(super) fn busy(self) -> bool {
        self.change.pending().get()
    }

    /// Sends a change, one at a time.
    pub(super) fn apply(self, id: String, change: Change) {
        if !self.change.pending().get_untracked() {
            self.change.dispatch_local((id, change));
        }
    }

    /// Takes a change's reply: says what happened and shows the node the engine returned (for a
    /// supersession, the new one), with its history.
    pub(super) fn answered(self, (id, change, reply): Changed) {
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
