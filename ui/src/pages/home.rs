//! Home: the projects found in the history (newest work first, each with its sessions, when it
//! was last active and where it stood: phase, the latest summary, open questions), the push box ("I just did X") with the most recent observations below it, the brief a
//! fresh agent session would get now (a preview assembled by the engine, with its token counts per
//! tier and a link to the Inspector's explanation), then the store's status (path, schema, counts,
//! mode), read through `status_get`.

use elnor_types::{
    BriefPreview, BriefPreviewRequest, ObservationListRequest, ObservationRow, ProjectOverviewRow,
    StoreStatus,
};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::Loaded;
use crate::components::short_time;
use crate::nav::use_nav;
use crate::push::PushForm;

/// Observations listed under the push box; the Timeline has the rest.
const RECENT_OBSERVATIONS: u32 = 5;

#[component]
pub fn Home() -> impl IntoView {
    let status = LocalResource::new(api::status_get);
    view! {
        <h2>"Home"</h2>
        <ProjectsCard />
        <PushCard />
        <BriefPanel />
        <Loaded resource=status loading="Reading the store…" let:s>
            {view! { <StatusCard status=s /> }}
        </Loaded>
    }
}

/// The projects ELNOR found in the history, newest work first: what a person with months of
/// history sees after the first ingest. Times are when the work happened.
#[component]
fn ProjectsCard() -> impl IntoView {
    let activity = use_activity();
    let projects = LocalResource::new(move || {
        activity.0.track();
        api::projects_list()
    });
    view! {
        <div class="card" id="projects-card">
            <h3>"Your projects"</h3>
            <Loaded resource=projects loading="Reading projects…" let:value>
                {project_list(value)}
            </Loaded>
        </div>
    }
}

fn project_list(rows: Vec<ProjectOverviewRow>) -> AnyView {
    if rows.is_empty() {
        return view! {
            <p class="hint" id="projects-empty">
                "No projects yet. Ingest your agents' transcripts (Sessions → Ingest): each folder "
                "your sessions worked in becomes a work context here, with where its work stood."
            </p>
        }
        .into_any();
    }
    let nav = use_nav();
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
                            <a
                                href="#"
                                on:click=move |ev| {
                                    ev.prevent_default();
                                    nav.open_work_context(id.clone());
                                }
                            >
                                <strong>{p.name.clone()}</strong>
                            </a>
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
                                                {heuristic.then(|| view! { <span class="badge heuristic">"heuristic"</span> })}
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

/// "I just did…": the push form, then what ELNOR observed last (pushes and file changes), read
/// again after every push, from here or from the dialog.
#[component]
fn PushCard() -> impl IntoView {
    let activity = use_activity();
    let recent = LocalResource::new(move || {
        activity.0.track();
        api::observations_list(ObservationListRequest {
            limit: RECENT_OBSERVATIONS,
            ..ObservationListRequest::default()
        })
    });
    view! {
        <div class="card" id="push-card">
            <h3>"I just did…"</h3>
            <p class="hint">
                "Tell ELNOR about work its agents did not see: a call, an email, a document sent. "
                "It goes into the work context's log and reaches the other contexts that share its "
                "entities. Ctrl+Shift+P opens this box from any page."
            </p>
            <PushForm prefix="push" />
            <h4>"Recently observed"</h4>
            <Loaded resource=recent loading="Reading observations…" let:value>
                {recent_list(value)}
            </Loaded>
        </div>
    }
}

fn recent_list(rows: Vec<ObservationRow>) -> AnyView {
    if rows.is_empty() {
        return view! {
            <p class="hint" id="recent-observations-empty">
                "Nothing observed yet. Push what you just did above, or add a folder under "
                "Settings → Tracked folders so that changes to your files show up here."
            </p>
        }
        .into_any();
    }
    let nav = use_nav();
    view! {
        <ul class="recent-observations" id="recent-observations">
            {rows
                .into_iter()
                .map(|o| {
                    let id = o.observation_id;
                    let what = o
                        .title
                        .clone()
                        .or_else(|| o.path.clone())
                        .unwrap_or_else(|| o.text.clone());
                    view! {
                        <li data-observation-id=id>
                            <a
                                href="#"
                                on:click=move |ev| {
                                    ev.prevent_default();
                                    nav.open_observation(id);
                                }
                            >
                                <span class="meta">{short_time(&o.observed_at)}</span>
                                <span class=format!("badge obs-{}", o.kind)>{o.kind.clone()}</span>
                                <span class="obs-what">{what}</span>
                            </a>
                            {o.work_context_name.map(|n| view! { <span class="meta">{format!(" · {n}")}</span> })}
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn StatusCard(status: StoreStatus) -> impl IntoView {
    let mode = status
        .mode
        .map(|m| m.label())
        .unwrap_or("unknown (config invalid)");
    let empty = status.entries_total == 0;
    view! {
        {status
            .config_error
            .clone()
            .map(|e| {
                view! {
                    <div class="error" id="status-config-error" role="alert">
                        <p>"The continuity config could not be read:"</p>
                        <p class="error-message">{e}</p>
                    </div>
                }
            })}
        <div class="card">
            <h3>"Store"</h3>
            <dl class="facts">
                <dt>"Location"</dt>
                <dd id="status-store-path">{status.store_path.clone()}</dd>
                <dt>"Graph schema version"</dt>
                <dd id="status-schema-version">{status.schema_version}</dd>
                <dt>"Continuity log schema"</dt>
                <dd>{status.log_schema_version}</dd>
                <dt>"Entities"</dt>
                <dd id="status-entities">{status.entities}</dd>
                <dt>"Work contexts"</dt>
                <dd id="status-work-contexts">{status.work_contexts}</dd>
                <dt>"Continuity mode"</dt>
                <dd id="status-mode">{mode}</dd>
            </dl>
        </div>
        <div class="card">
            <h3>"Continuity entries"</h3>
            <table class="counts">
                {status
                    .entries_by_type
                    .iter()
                    .map(|(kind, n)| {
                        let id = format!("count-{kind}");
                        let label = kind.replace('_', " ");
                        view! {
                            <tr>
                                <td>{label}</td>
                                <td class="n" id=id>{*n}</td>
                            </tr>
                        }
                    })
                    .collect_view()}
                <tr>
                    <td>
                        <strong>"Total"</strong>
                    </td>
                    <td class="n" id="status-entries-total">
                        <strong>{status.entries_total}</strong>
                    </td>
                </tr>
            </table>
            {(status.skipped_lines > 0)
                .then(|| {
                    view! {
                        <p class="hint">
                            {status.skipped_lines}
                            " unreadable log lines were skipped and left in place."
                        </p>
                    }
                })}
            {empty
                .then(|| {
                    view! {
                        <p class="hint">
                            "Nothing captured yet. Entries appear here as agent sessions are captured; "
                            "to add one by hand, run "
                            <code>"elnor log append my-project open_question \"What next?\""</code>
                            "."
                        </p>
                    }
                })}
        </div>
    }
}

/// "Brief a fresh session would get now": a preview assembly, for the work context chosen here or
/// for whatever the engine resolves when a session tells it nothing.
#[component]
fn BriefPanel() -> impl IntoView {
    // Bumped by "Assemble again" and after the rollup is refreshed.
    let generation = RwSignal::new(0u32);
    // A push may write cross-conversation updates into the chosen context's log, which the brief
    // shows, so the preview follows pushes too.
    let activity = use_activity();
    let context = RwSignal::new(String::new());
    let contexts = LocalResource::new(api::work_contexts_list);
    let preview = LocalResource::new(move || {
        generation.track();
        activity.0.track();
        let request = BriefPreviewRequest {
            work_context_id: Some(context.get()).filter(|c| !c.is_empty()),
            ..BriefPreviewRequest::default()
        };
        api::brief_preview(request)
    });
    // The rollup's rebuild: its value is the note under the buttons.
    let rollup = Action::new_local(move |_: &()| async move {
        let note = match api::rollup_refresh().await {
            Ok(r) => Ok(format!(
                "Recent activity rebuilt: {} work context(s) in the past {} days.",
                r.segments.len(),
                r.window_days
            )),
            Err(e) => Err(e.message),
        };
        generation.update(|g| *g += 1);
        note
    });
    let rollup_note = rollup.value();
    let refresh_rollup = move |_| {
        rollup.clear();
        rollup.dispatch_local(());
    };
    view! {
        <div class="card" id="brief-panel">
            <h3>"Brief a fresh session would get now"</h3>
            <div class="inline-form">
                <label for="brief-context">"Work context"</label>
                <Loaded resource=contexts loading="Loading work contexts…" inline=true let:list>
                    {view! {
                        <select
                            id="brief-context"
                            on:change=move |ev| context.set(event_target_value(&ev))
                            prop:value=move || context.get()
                        >
                            <option value="">
                                "Whatever the engine resolves (the session says nothing)"
                            </option>
                            {list
                                .into_iter()
                                .map(|wc| {
                                    view! {
                                        <option value=wc.work_context_id.clone()>
                                            {wc.name.clone()}
                                        </option>
                                    }
                                })
                                .collect_view()}
                        </select>
                    }}
                </Loaded>
                <button class="small" id="brief-reassemble" on:click=move |_| generation.update(|g| *g += 1)>
                    "Assemble again"
                </button>
                <button class="small" id="rollup-refresh" on:click=refresh_rollup>
                    "Rebuild recent activity"
                </button>
            </div>
            {move || {
                rollup_note
                    .get()
                    .map(|n| match n {
                        Ok(text) => view! { <p class="hint" id="rollup-note">{text}</p> }.into_any(),
                        Err(e) => view! { <div class="error" role="alert">{e}</div> }.into_any(),
                    })
            }}
            <Loaded resource=preview loading="Assembling a preview…" let:b>
                {view! { <BriefView brief=b /> }}
            </Loaded>
        </div>
    }
}

#[component]
fn BriefView(brief: BriefPreview) -> impl IntoView {
    let nav = use_nav();
    let assembly = brief.assembly_id;
    let chosen = match &brief.work_context {
        Some(c) => format!("For {} ({}).", c.name, c.how),
        None => "No work context: the preview session names none and matches no rule.".to_owned(),
    };
    let tiers = (1..=3u8)
        .map(|tier| {
            let card = brief.cards.iter().find(|c| c.tier == tier);
            let cap = brief.tier_caps[usize::from(tier - 1)];
            let (tag, tokens) =
                card.map_or(("not in this brief", 0), |c| (c.tag.as_str(), c.tokens));
            view! {
                <tr data-tier=tier>
                    <td>{format!("Tier {tier}")}</td>
                    <td>{tag.replace('_', " ")}</td>
                    <td class="n tier-tokens">{format!("{tokens} / {cap}")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="meta" id="brief-context-choice">
            {chosen}
            {brief
                .stale
                .then(|| {
                    view! {
                        <span
                            class="badge stale"
                            title="The work context's view was out of date; it was used as is and is being rebuilt."
                        >
                            "stale view"
                        </span>
                    }
                })}
        </p>
        {(!brief.warnings.is_empty())
            .then(|| {
                view! {
                    <ul class="warnings">
                        {brief.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}
                    </ul>
                }
            })}
        <table class="counts" id="brief-tiers">
            {tiers}
            <tr>
                <td>
                    <strong>"Cards"</strong>
                </td>
                <td class="hint">{format!("plus {} tokens around them", brief.envelope_tokens)}</td>
                <td class="n" id="brief-total">
                    <strong>{format!("{} / {}", brief.total_tokens, brief.budget)}</strong>
                </td>
            </tr>
        </table>
        {if brief.cards.is_empty() {
            view! {
                <div class="empty" id="brief-empty">
                    <p>"A fresh session would get only today's date: there is nothing to brief it with yet."</p>
                    <p class="hint">
                        "Pick a work context above, or ingest agent sessions on the Sessions page so "
                        "they are captured into work contexts; recent activity then fills Tier 2. "
                        "Facts you add under Living memory in Settings always go into Tier 3."
                    </p>
                </div>
            }
                .into_any()
        } else {
            ().into_any()
        }}
        <pre class="brief-text" id="brief-text">{brief.text.clone()}</pre>
        <p>
            <a
                href="#"
                id="brief-why"
                data-assembly-id=assembly
                on:click=move |ev| {
                    ev.prevent_default();
                    nav.open_assembly(assembly);
                }
            >
                "Why?"
            </a>
            <span class="meta">{format!(" Assembly #{assembly} in the Inspector: every candidate and why it is in or out.")}</span>
        </p>
    }
}
