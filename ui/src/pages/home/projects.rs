//! "Your projects": the projects found in the history, newest work first, each opening its work
//! context.

use elnor_types::ProjectOverviewRow;
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::{Loaded, context_link, short_time};
use crate::nav::{Page, Route, use_nav};

/// The projects ELNOR found in the history, newest work first: what a person with months of
/// history sees after the first ingest. Times are when the work happened.
#[component]
pub(super) fn ProjectsCard(
    /// Every project found in the history: the Work contexts page's Projects group.
    total: u32,
) -> impl IntoView {
    let nav = use_nav();
    let activity = use_activity();
    let projects = LocalResource::new(move || {
        activity.0.track();
        api::projects_list()
    });
    view! {
        <div class="card" id="projects-card">
            <h3 class="card-head">
                "Your projects"
                <a
                    href="#"
                    id="today-projects-count"
                    data-count=total
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.go(Route::of(Page::Contexts));
                    }
                >
                    {format!("{total} in your history →")}
                </a>
            </h3>
            <Loaded resource=projects loading="Reading projects…" let:value>
                {project_list(value)}
            </Loaded>
        </div>
    }
}

pub(super) fn project_list(rows: Vec<ProjectOverviewRow>) -> AnyView {
    if rows.is_empty() {
        return view! {
            <p class="hint" id="projects-empty">
                "No projects yet. Add the folders your agents write transcripts to (Settings → "
                "Transcript sources) and ingest them: each folder your sessions worked in becomes "
                "a work context here, with where its work stood."
            </p>
        }
        .into_any();
    }
    view! {
        <ul class="projects-overview" id="projects-overview">
            {rows
                .into_iter()
                .map(|p| {
                    let id = p.work_context_id.clone();
                    let sessions = format!(
                        "{} session{}",
                        p.session_count,
                        if p.session_count == 1 { "" } else { "s" },
                    );
                    let last = p
                        .last_active_at
                        .as_deref()
                        .map(|t| format!("last active {}", short_time(t)))
                        .unwrap_or_default();
                    let heuristic = p.heuristic_questions > 0;
                    view! {
                        <li data-work-context-id=p.work_context_id.clone()>
                            {context_link(id, view! { <strong>{p.name.clone()}</strong> })}
                            <span class="meta">{format!(" · {sessions} · {last}")}</span>
                            {p.phase.clone().map(|ph| view! { <span class="badge phase">{ph}</span> })}
                            {p.latest_summary.clone().map(|s| view! { <p class="stood">{s}</p> })}
                            {(!p.open_questions.is_empty()).then(|| view! {
                                <ul class="open-questions">
                                    {p.open_questions
                                        .iter()
                                        .map(|q| view! {
                                            <li>
                                                {q.clone()}
                                                {heuristic.then(|| view! { <span class="badge heuristic" title="Found by pattern matching, not written by a model or by you">"guessed"</span> })}
                                            </li>
                                        })
                                        .collect_view()}
                                </ul>
                            })}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}
