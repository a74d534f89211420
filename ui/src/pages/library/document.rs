//! The open document: its title and path, frontmatter and outline, the file rendered, and
//! "Referred to by": sessions (opening the transcript at the first turn that names the file),
//! continuity entries (their work context), durable nodes (Knowledge), observations (the
//! Timeline) and the entities the file mentions.
//!
//! The body is put into the page as HTML: the engine rendered the markdown and escaped the
//! file's own raw HTML, so nothing in a document runs in the app's webview.

use elnor_types::{
    CommandError, LibraryDocumentDetail, LibraryEntryRef, LibraryObservationRef, LibrarySessionRef,
    SearchKind,
};
use leptos::prelude::*;

use super::Library;
use crate::components::{Loaded, harness_name, short_time};

/// The open document's reading.
pub(super) type Detail = LocalResource<Result<Option<LibraryDocumentDetail>, CommandError>>;

#[component]
pub(super) fn DocumentPane(detail: Detail, lib: Library) -> impl IntoView {
    view! {
        <div class="proposal-pane">
            <Loaded resource=detail loading="Reading the document…" let:d>
                {match d {
                    Some(d) => document_view(d, lib).into_any(),
                    None => view! { <p class="hint">"Pick a document to read it and see who refers to it."</p> }.into_any(),
                }}
            </Loaded>
        </div>
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} bytes"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

fn document_view(d: LibraryDocumentDetail, lib: Library) -> impl IntoView {
    let mut meta = vec![size(d.row.size)];
    if let Some(m) = &d.row.modified_at {
        meta.push(format!("changed {}", short_time(m)));
    }
    let truncated = d.truncated.then(|| {
        view! { <p class="hint" id="library-truncated">"The file is long: only its start is shown."</p> }
    });
    let frontmatter = (!d.frontmatter.is_empty()).then(|| {
        let rows = d
            .frontmatter
            .iter()
            .map(|(k, v)| view! { <dt>{k.clone()}</dt> <dd>{v.clone()}</dd> })
            .collect_view();
        view! { <dl class="facts observation-facts" id="library-frontmatter">{rows}</dl> }
    });
    let outline = (!d.headings.is_empty()).then(|| {
        let items = d
            .headings
            .iter()
            .map(|h| view! { <li>{h.clone()}</li> })
            .collect_view();
        view! {
            <details class="library-outline">
                <summary>{format!("Outline ({})", d.headings.len())}</summary>
                <ul id="library-headings">{items}</ul>
            </details>
        }
    });
    let links = (!d.links.is_empty()).then(|| {
        let items = d
            .links
            .iter()
            .map(|l| {
                let text = if l.text.is_empty() {
                    l.dest.clone()
                } else {
                    format!("{} → {}", l.text, l.dest)
                };
                view! { <li class="meta">{text}</li> }
            })
            .collect_view();
        view! {
            <details class="library-links">
                <summary>{format!("Links ({})", d.links.len())}</summary>
                <ul>{items}</ul>
            </details>
        }
    });
    view! {
        <div class="card proposal-detail library-document" id="library-document" data-path=d.row.path.clone()>
            <h3 id="library-title">{d.row.title.clone()}</h3>
            <p class="meta path" id="library-path">{d.row.path.clone()}</p>
            <p class="meta">{meta.join(" · ")}</p>
            {truncated}
            {frontmatter}
            {outline}
            {links}
            <div class="library-body" id="library-body" inner_html=d.html.clone()></div>
        </div>
        {references(d, lib)}
    }
}

fn references(d: LibraryDocumentDetail, lib: Library) -> impl IntoView {
    let none = d.sessions.is_empty()
        && d.entries.is_empty()
        && d.observations.is_empty()
        && d.entities.is_empty();
    let matched = format!(
        "A session or an entry refers to this document when it names “{}”.",
        d.matched_by
    );
    let sessions = (!d.sessions.is_empty()).then(|| {
        let items = d
            .sessions
            .into_iter()
            .map(|s| session_ref(s, lib))
            .collect_view();
        view! {
            <h4>"Sessions"</h4>
            <ul class="ref-list" id="library-ref-sessions">{items}</ul>
        }
    });
    let entries = (!d.entries.is_empty()).then(|| {
        let items = d
            .entries
            .into_iter()
            .map(|e| entry_ref(e, lib))
            .collect_view();
        view! {
            <h4>"Entries and knowledge"</h4>
            <ul class="ref-list" id="library-ref-entries">{items}</ul>
        }
    });
    let observations = (!d.observations.is_empty()).then(|| {
        let items = d
            .observations
            .into_iter()
            .map(|o| observation_ref(o, lib))
            .collect_view();
        view! {
            <h4>"Observations"</h4>
            <ul class="ref-list" id="library-ref-observations">{items}</ul>
        }
    });
    let entities = (!d.entities.is_empty()).then(|| {
        let items = d
            .entities
            .into_iter()
            .map(|e| view! { <span class="badge" data-entity-id=e.entity_id>{e.name}</span> })
            .collect_view();
        view! {
            <h4>"Entities it mentions"</h4>
            <p id="library-ref-entities">{items}</p>
        }
    });
    view! {
        <div class="card" id="library-refs">
            <h3>"Referred to by"</h3>
            <p class="hint">{matched}</p>
            {none.then(|| view! { <p class="hint" id="library-refs-none">"Nothing refers to it yet."</p> })}
            {sessions}
            {entries}
            {observations}
            {entities}
        </div>
    }
}

fn session_ref(s: LibrarySessionRef, lib: Library) -> impl IntoView {
    let mut label = vec![format!(
        "session {}",
        s.session_id.get(..8).unwrap_or(&s.session_id)
    )];
    if let Some(h) = &s.harness {
        label.insert(0, harness_name(h).to_owned());
    }
    label.push(match s.turns {
        1 => "1 turn names it".to_owned(),
        n => format!("{n} turns name it"),
    });
    if let Some(at) = &s.last_at {
        label.push(short_time(at));
    }
    let (session, turn) = (s.session_id.clone(), s.first_turn_id.clone());
    view! {
        <li>
            <a
                href="#"
                class="ref-session"
                data-session-id=s.session_id
                on:click=move |ev| {
                    ev.prevent_default();
                    match turn.clone() {
                        // A reference knows the turn but not its row: the viewer finds it.
                        Some(t) => lib.nav.open_turn(session.clone(), t, None),
                        None => lib.nav.open_session(session.clone()),
                    }
                }
            >
                {label.join(" · ")}
            </a>
        </li>
    }
}

fn entry_ref(e: LibraryEntryRef, lib: Library) -> impl IntoView {
    let what = match e.kind {
        SearchKind::Node => "durable node".to_owned(),
        _ => e
            .entry_type
            .as_deref()
            .map(|t| t.replace('_', " "))
            .unwrap_or_else(|| "entry".to_owned()),
    };
    let at = e.at.as_deref().map(short_time).unwrap_or_default();
    let (node, context) = (e.node_id.clone(), e.work_context_id.clone());
    let opens = node.is_some() || context.is_some();
    view! {
        <li class="ref-entry" data-kind=e.kind.as_str()>
            <span class="badge">{what}</span>
            <span class="meta">{at}</span>
            {if opens {
                view! {
                    <a
                        href="#"
                        class="ref-open"
                        on:click=move |ev| {
                            ev.prevent_default();
                            if let Some(n) = node.clone() {
                                lib.nav.open_node(n);
                            } else if let Some(w) = context.clone() {
                                lib.nav.open_work_context(w);
                            }
                        }
                    >
                        {e.excerpt.clone()}
                    </a>
                }
                .into_any()
            } else {
                view! { <span>{e.excerpt.clone()}</span> }.into_any()
            }}
        </li>
    }
}

fn observation_ref(o: LibraryObservationRef, lib: Library) -> impl IntoView {
    let id = o.observation_id;
    view! {
        <li class="ref-observation" data-observation-id=id.to_string()>
            <span class="badge">{o.kind.replace('_', " ")}</span>
            <span class="meta">{short_time(&o.at)}</span>
            <a
                href="#"
                class="ref-open"
                on:click=move |ev| {
                    ev.prevent_default();
                    lib.nav.open_observation(id);
                }
            >
                {o.text}
            </a>
        </li>
    }
}
