//! "Needs you": what waits on the person, each a link to where it is dealt with. Proposals to
//! review, capture health alerts (an agent gone quiet, a hook that never runs or OpenClaw's
//! Dreaming running links to the Health page), the open questions waiting longest in the work
//! contexts active lately, and the contexts that moved since the person last looked. The counts are the ones the linked pages list.

use elnor_types::TodayView;
use leptos::prelude::*;

use crate::components::{context_link, session_link, short_time};
use crate::nav::{Page, Route, use_nav};

/// The "Needs you" card, from one read of Today.
#[component]
pub(super) fn NeedsCard(today: TodayView) -> impl IntoView {
    let nav = use_nav();
    let reviews = today.pending_reviews;
    let nothing = reviews == 0
        && today.alerts.is_empty()
        && today.waiting_questions.is_empty()
        && today.moved.is_empty();
    let review_line = (reviews > 0).then(|| {
        view! {
            <li class="need">
                <a
                    href="#"
                    id="today-reviews"
                    data-count=reviews
                    on:click=move |ev| {
                        ev.prevent_default();
                        nav.go(Route::of(Page::Review));
                    }
                >
                    {format!(
                        "{reviews} proposal{} to review",
                        if reviews == 1 { "" } else { "s" },
                    )}
                </a>
                <span class="meta">" · durable knowledge and Topic members wait for your yes or no"</span>
            </li>
        }
    });
    let alerts = today
        .alerts
        .iter()
        .map(|a| {
            // An agent gone quiet, no folder to read, a hook that never runs, Dreaming running and
            // files whose turns could not be read are capture health, which the Health page shows in full (with Dreaming's switch);
            // the other alerts (the model, the nightly run, the logs) are not.
            let health = matches!(
                a.kind.as_str(),
                "harness_quiet" | "no_sources" | "hook_never_fired" | "dreaming_on" | "lost_turns"
            )
            .then(|| {
                view! {
                    <a
                        href="#"
                        class="alert-link"
                        on:click=move |ev| {
                            ev.prevent_default();
                            nav.go(Route::of(Page::Health));
                        }
                    >
                        "See capture health"
                    </a>
                }
            });
            // What sync brought or resolved is shown in full in Settings → Sync.
            let sync = matches!(a.kind.as_str(), "sync_arrived" | "sync_conflict").then(|| {
                view! {
                    <a
                        href="#"
                        class="alert-link"
                        on:click=move |ev| {
                            ev.prevent_default();
                            nav.go(Route::of(Page::Settings));
                        }
                    >
                        "See Sync"
                    </a>
                }
            });
            view! {
                <li class="need alert" data-kind=a.kind.clone()>
                    <span class="alert-mark" aria-hidden="true">"!"</span>
                    <span>{a.message.clone()} " " {health} {sync}</span>
                </li>
            }
        })
        .collect_view();
    let questions = (!today.waiting_questions.is_empty()).then(|| {
        let total = today.waiting_question_count;
        let shown = u32::try_from(today.waiting_questions.len()).unwrap_or(u32::MAX);
        let rows = today
            .waiting_questions
            .iter()
            .map(|q| {
                let age = match q.days_open {
                    0 => "today".to_owned(),
                    1 => "1 day".to_owned(),
                    n => format!("{n} days"),
                };
                view! {
                    <li data-work-context-id=q.work_context_id.clone()>
                        <span class="age" title=q.asked_at.clone()>{age}</span>
                        {context_link(q.work_context_id.clone(), q.context_name.clone())}
                        <span class="question">{q.question.clone()}</span>
                        {(!q.source_session_id.is_empty())
                            .then(|| session_link(q.source_session_id.clone(), None))}
                        {q.heuristic.then(|| view! {
                            <span class="badge heuristic" title="Found by pattern matching, not written by a model or by you">
                                "guessed"
                            </span>
                        })}
                    </li>
                }
            })
            .collect_view();
        view! {
            <li class="need">
                <span id="today-questions-count" data-count=total>
                    {if total > shown {
                        format!("{total} open questions in your active work; the {shown} waiting longest:")
                    } else {
                        format!("{total} open question{} in your active work:", if total == 1 { "" } else { "s" })
                    }}
                </span>
                <ul class="waiting" id="today-questions">{rows}</ul>
            </li>
        }
    });
    let moved = (!today.moved.is_empty()).then(|| {
        let since = today
            .last_looked_at
            .as_deref()
            .map(short_time)
            .unwrap_or_default();
        let rows = today
            .moved
            .iter()
            .map(|m| {
                view! {
                    <li data-work-context-id=m.work_context_id.clone()>
                        {context_link(m.work_context_id.clone(), m.name.clone())}
                        <span class="meta">
                            {format!(
                                " · {} new session{} · last {}",
                                m.sessions_since,
                                if m.sessions_since == 1 { "" } else { "s" },
                                short_time(&m.last_active_at),
                            )}
                        </span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <li class="need">
                {format!("Moved since you last looked ({since}):")}
                <ul class="moved" id="today-moved">{rows}</ul>
            </li>
        }
    });
    view! {
        <section class="card needs" id="today-needs">
            <h3>"Needs you"</h3>
            {if nothing {
                view! {
                    <p class="hint" id="today-nothing">
                        "Nothing waits on you: no proposals to review, no open questions in work "
                        "active this month, and capture is healthy."
                    </p>
                }
                    .into_any()
            } else {
                view! {
                    <ul class="needs-list">
                        {review_line}
                        {alerts}
                        {questions}
                        {moved}
                    </ul>
                }
                    .into_any()
            }}
        </section>
    }
}
