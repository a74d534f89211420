//! The open Topic's lens: its name, description and rules with an Edit button that opens the
//! Edit form in their place, the directive's switch, the pending proposals (a link to Review),
//! the delete button with its confirmation step, and its members grouped by why they are there,
//! each with its reason, where it came from, a click-through where it lives (as a search hit
//! opens) and, for a pinned or approved member, a button that takes it out.
//!
//! Deleting asks again inside the pane rather than through `window.confirm`: a page dialog
//! blocks the webview, and WebDriver cannot answer it reliably in the e2e tests.

use std::collections::HashMap;

use elnor_types::{CommandError, MemberSource, TopicDetail, TopicMemberRow, TopicRow};
use leptos::prelude::*;

use super::edit::EditForm;
use super::{Change, Topics};
use crate::components::Loaded;
use crate::nav::{Page, Route};
use crate::pages::search::hit;

/// The open Topic's reading.
pub(super) type Detail = LocalResource<Result<Option<TopicDetail>, CommandError>>;

#[component]
pub(super) fn TopicPane(detail: Detail, t: Topics) -> impl IntoView {
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the Topic…" let:d>
                {match d {
                    Some(d) => topic_view(d, t).into_any(),
                    None => view! { <p class="hint">"Pick a Topic to see its members."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

/// The rules in words: the query, the kinds and the window.
fn rules_line(topic: &TopicRow) -> String {
    let r = &topic.rules;
    let mut parts = vec![if r.query.trim().is_empty() {
        "no words: only pinned and approved members".to_owned()
    } else {
        format!("every word of “{}”", r.query)
    }];
    if !r.kinds.is_empty() {
        let kinds: Vec<&str> = r.kinds.iter().map(|k| k.label()).collect();
        parts.push(format!("in {}", kinds.join(", ")));
    }
    if r.hours > 0 {
        parts.push(match hit::WINDOWS.iter().find(|(h, _)| *h == r.hours) {
            Some((_, label)) => label.to_lowercase(),
            None => format!("last {} hours", r.hours),
        });
    }
    parts.join(" · ")
}

fn topic_view(d: TopicDetail, t: Topics) -> impl IntoView {
    let id = d.topic.topic_id.clone();
    let (toggle_id, delete_id) = (id.clone(), id.clone());
    let busy = t.change.pending();
    // The pane is drawn anew after every change, so both start closed again then.
    let editing = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let pending = (d.pending > 0).then(|| {
        view! {
            <p>
                <a
                    href="#"
                    id="topic-pending"
                    on:click=move |ev| {
                        ev.prevent_default();
                        t.nav.go(Route::of(Page::Review));
                    }
                >
                    {format!("{} proposal(s) waiting in Review", d.pending)}
                </a>
            </p>
        }
    });
    let description = (!d.topic.description.is_empty())
        .then(|| view! { <p class="topic-description">{d.topic.description.clone()}</p> });
    let groups = MemberSource::ALL
        .iter()
        .map(|&source| {
            let members: Vec<TopicMemberRow> = d
                .members
                .iter()
                .filter(|m| m.source == source)
                .cloned()
                .collect();
            group(source, members, id.clone(), t)
        })
        .collect::<Vec<_>>();
    let collecting = d.topic.collecting;
    let name = d.topic.name.clone();
    let rules = rules_line(&d.topic);
    let topic = StoredValue::new(d.topic);
    // Either the Topic as it is, or the form that edits it.
    let about = move || {
        if editing.get() {
            let topic = topic.get_value();
            view! { <EditForm topic editing t /> }.into_any()
        } else {
            view! {
                {description.clone()}
                <p class="meta" id="topic-rules">{rules.clone()}</p>
            }
            .into_any()
        }
    };
    let confirm = move || {
        confirming.get().then(|| {
            let delete_id = delete_id.clone();
            view! {
                <div class="delete-confirm" id="topic-delete-ask" role="alertdialog">
                    <p>
                        {format!("Delete “{name}”? Its pins and memberships go with it; no document does.")}
                    </p>
                    <button
                        class="small danger"
                        id="topic-delete-confirm"
                        disabled=move || busy.get()
                        on:click=move |_| {
                            t.change.dispatch_local(Change::Delete(delete_id.clone()));
                        }
                    >
                        "Delete for good"
                    </button>
                    <button class="small" id="topic-delete-cancel" on:click=move |_| confirming.set(false)>
                        "Keep it"
                    </button>
                </div>
            }
        })
    };
    view! {
        <div class="card proposal-detail topic-detail" id="topic-detail" data-topic-id=id.clone()>
            <div class="pane-head">
                <h3 id="topic-title">{topic.with_value(|t| t.name.clone())}</h3>
                <span class="pane-actions">
                    <button
                        class="small"
                        id="topic-edit"
                        title="Change the name, description, words, kinds or time window"
                        disabled=move || editing.get()
                        on:click=move |_| editing.set(true)
                    >
                        "Edit"
                    </button>
                    <button
                        class="small danger"
                        id="topic-delete"
                        title="Delete the Topic and its memberships; no document goes with it"
                        disabled=move || busy.get() || confirming.get()
                        on:click=move |_| confirming.set(true)
                    >
                        "Delete"
                    </button>
                </span>
            </div>
            {confirm}
            {about}
            <label class="check">
                <input
                    type="checkbox"
                    id="topic-directive"
                    prop:checked=collecting
                    disabled=move || busy.get()
                    on:change=move |ev| {
                        t.change.dispatch_local(Change::Collect(toggle_id.clone(), event_target_checked(&ev)));
                    }
                />
                "Collect new matches for review"
            </label>
            {pending}
        </div>
        {groups}
    }
}

fn heading(source: MemberSource) -> &'static str {
    match source {
        MemberSource::Pinned => "Pinned",
        MemberSource::Approved => "Approved",
        MemberSource::Rule => "Matching the rules",
    }
}

fn group(
    source: MemberSource,
    members: Vec<TopicMemberRow>,
    topic_id: String,
    t: Topics,
) -> impl IntoView + use<> {
    let empty = match source {
        MemberSource::Pinned => "Nothing pinned. Pin a search hit into this Topic from Search.",
        MemberSource::Approved => "Nothing approved yet: the directive's proposals wait in Review.",
        MemberSource::Rule => "Nothing matches the words now.",
    };
    let body = if members.is_empty() {
        view! { <p class="hint">{empty}</p> }.into_any()
    } else {
        let items = members
            .into_iter()
            .map(|m| member(m, topic_id.clone(), t))
            .collect_view();
        view! { <ul class="search-hits topic-members">{items}</ul> }.into_any()
    };
    view! {
        <div class="card" id=format!("topic-members-{}", source.as_str()) data-source=source.as_str()>
            <h3>{heading(source)}</h3>
            {body}
        </div>
    }
}

fn member(m: TopicMemberRow, topic_id: String, t: Topics) -> impl IntoView {
    let target = m.hit.as_ref().and_then(hit::target);
    let (kind, where_from) = match &m.hit {
        Some(h) => (hit::kind_label(h), hit::attribution(h, &HashMap::new())),
        None => (
            "no longer indexed".to_owned(),
            "the document left the search index; its label stays".to_owned(),
        ),
    };
    let kind_class = m.hit.as_ref().map(|h| h.kind.as_str()).unwrap_or("gone");
    let excerpt = m
        .hit
        .as_ref()
        .map(|h| h.excerpt.clone())
        .unwrap_or_default();
    let label = m.label.clone();
    let title = match target {
        Some(target) => view! {
            <a
                href="#"
                class="hit-open member-open"
                on:click=move |ev| {
                    ev.prevent_default();
                    hit::open(t.nav, target.clone());
                }
            >
                {label}
            </a>
        }
        .into_any(),
        None => view! { <span class="member-label">{label}</span> }.into_any(),
    };
    let removable = matches!(m.source, MemberSource::Pinned | MemberSource::Approved);
    let doc = m.doc_id.clone();
    let busy = t.change.pending();
    let remove = removable.then(|| {
        view! {
            <button
                class="small member-remove"
                title="Take it out of this Topic; it will not be proposed again"
                disabled=move || busy.get()
                on:click=move |_| {
                    t.change.dispatch_local(Change::Remove(topic_id.clone(), doc.clone()));
                }
            >
                "Remove"
            </button>
        }
    });
    view! {
        <li class="search-hit topic-member" data-doc-id=m.doc_id.clone() data-source=m.source.as_str()>
            <div class="hit-head">
                <span class=format!("badge hit-kind-{kind_class}")>{kind}</span>
                <span class="meta hit-where">{where_from}</span>
                {remove}
            </div>
            {title}
            <p class="excerpt">{excerpt}</p>
            <p class="meta member-why">{m.why}</p>
        </li>
    }
}
