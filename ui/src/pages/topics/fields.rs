//! The fields a Topic is made of, as both the "New topic" form and a Topic's Edit form hold them:
//! its name, its description, and its rules' words, kinds and time window. Each form gives its
//! fields an id prefix of its own, so both can be on the page at once.

use std::collections::BTreeSet;

use elnor_types::{SearchKind, TopicRow, TopicRulesRow};
use leptos::prelude::*;

use crate::pages::search::hit::{WINDOWS, kind_filter_label};

/// The fields' values; every one is a signal, so the form and its submit share them by copy.
#[derive(Clone, Copy)]
pub(super) struct Fields {
    pub(super) name: RwSignal<String>,
    pub(super) description: RwSignal<String>,
    pub(super) query: RwSignal<String>,
    pub(super) kinds: RwSignal<BTreeSet<SearchKind>>,
    /// The time window in hours; 0 is all time.
    pub(super) hours: RwSignal<u32>,
}

impl Fields {
    /// A new Topic's: every kind, and all time, since a Topic is about a subject rather than a
    /// period unless the person says so.
    pub(super) fn empty() -> Fields {
        Fields {
            name: RwSignal::new(String::new()),
            description: RwSignal::new(String::new()),
            query: RwSignal::new(String::new()),
            kinds: RwSignal::new(SearchKind::ALL.iter().copied().collect()),
            hours: RwSignal::new(0),
        }
    }

    /// An existing Topic's, to edit. Its rules name no kind when they take in every kind, so all
    /// are ticked then.
    pub(super) fn of(topic: &TopicRow) -> Fields {
        let kinds = if topic.rules.kinds.is_empty() {
            SearchKind::ALL.iter().copied().collect()
        } else {
            topic.rules.kinds.iter().copied().collect()
        };
        Fields {
            name: RwSignal::new(topic.name.clone()),
            description: RwSignal::new(topic.description.clone()),
            query: RwSignal::new(topic.rules.query.clone()),
            kinds: RwSignal::new(kinds),
            hours: RwSignal::new(topic.rules.hours),
        }
    }

    /// Whether the form can be sent: a Topic needs a name, and at least one kind (none ticked
    /// would mean every kind on the wire, the opposite of what the person chose).
    pub(super) fn ready(self) -> bool {
        !self.name.with(|n| n.trim().is_empty()) && !self.kinds.with(BTreeSet::is_empty)
    }

    /// The rules the fields say, on top of `base`: the entity and work context filters, which
    /// these forms do not show, are kept as they were.
    pub(super) fn rules(self, base: TopicRulesRow) -> TopicRulesRow {
        let chosen = self.kinds.get_untracked();
        TopicRulesRow {
            query: self.query.get_untracked(),
            // Every kind ticked is the same as none named, and takes in kinds added later.
            kinds: if chosen.len() == SearchKind::ALL.len() {
                Vec::new()
            } else {
                chosen.into_iter().collect()
            },
            hours: self.hours.get_untracked(),
            ..base
        }
    }
}

/// The time windows to choose from: the Search page's, and the Topic's own when it was set to
/// another (by `elnor topics`, say), so editing does not silently change it.
fn windows(current: u32) -> Vec<(u32, String)> {
    let mut out: Vec<(u32, String)> = WINDOWS
        .iter()
        .map(|&(h, label)| (h, label.to_owned()))
        .collect();
    if !WINDOWS.iter().any(|&(h, _)| h == current) {
        out.insert(0, (current, format!("Last {current} hours")));
    }
    out
}

fn text_field(
    id: String,
    label: &'static str,
    hint: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label class="field-label" for=id.clone()>{label}</label>
            <div>
                <input
                    type="text"
                    id=id
                    prop:value=move || value.get()
                    on:input=move |ev| value.set(event_target_value(&ev))
                />
                <p class="hint">{hint}</p>
            </div>
        </div>
    }
}

/// The fields as inputs, their ids starting with `prefix` (`topic` gives `topic-name`, …).
pub(super) fn fields_view(f: Fields, prefix: &'static str) -> impl IntoView {
    let kinds = f.kinds;
    let hours = f.hours;
    view! {
        {text_field(format!("{prefix}-name"), "Name", "Unique, such as “Ledger sync”.", f.name)}
        {text_field(
            format!("{prefix}-description"),
            "Description",
            "What the Topic is about, for you.",
            f.description,
        )}
        {text_field(
            format!("{prefix}-query"),
            "Words",
            "A document is a member when it holds every one of these words.",
            f.query,
        )}
        <div class="chips" id=format!("{prefix}-kinds") role="group" aria-label="Kinds">
            {SearchKind::ALL
                .iter()
                .map(|&kind| {
                    view! {
                        <label class="chip" class:on=move || kinds.with(|k| k.contains(&kind))>
                            <input
                                type="checkbox"
                                id=format!("{prefix}-kind-{}", kind.as_str())
                                prop:checked=move || kinds.with(|k| k.contains(&kind))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    kinds.update(|k| {
                                        if on {
                                            k.insert(kind);
                                        } else {
                                            k.remove(&kind);
                                        }
                                    });
                                }
                            />
                            {kind_filter_label(kind)}
                        </label>
                    }
                })
                .collect_view()}
        </div>
        <div class="filters">
            <select
                id=format!("{prefix}-hours")
                aria-label="Time window"
                on:change=move |ev| {
                    if let Ok(h) = event_target_value(&ev).parse() {
                        hours.set(h);
                    }
                }
            >
                {windows(hours.get_untracked())
                    .into_iter()
                    .map(|(h, label)| {
                        view! { <option value=h.to_string() prop:selected=move || hours.get() == h>{label}</option> }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}
