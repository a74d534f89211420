//! "Brief a fresh session would get now": the preview assembly for a chosen work context, the
//! rollup's rebuild, and the brief shown as its cards (where you left off, recent activity, what
//! to keep in mind), with the text exactly as the agent reads it one click away.

use elnor_types::{BriefPreview, BriefPreviewRequest};
use leptos::prelude::*;

use crate::api;
use crate::app::use_activity;
use crate::components::Loaded;
use crate::nav::use_nav;

/// "Brief a fresh session would get now": a preview assembly, for the work context chosen here or
/// for whatever the engine resolves when a session tells it nothing.
#[component]
pub(super) fn BriefPanel() -> impl IntoView {
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
            <h3>"What a new agent session would be told now"</h3>
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
                                "No work context in particular"
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
                <BriefView brief=b />
            </Loaded>
        </div>
    }
}

/// What a card of the brief is, in the person's words, by its tag.
fn card_title(tag: &str) -> &'static str {
    match tag {
        "resume" => "Where you left off",
        "last_session" => "The last session, in its own words",
        "recent_activity" => "Recent activity",
        _ => "What to keep in mind",
    }
}

/// The tag of each tier's capped card, for the table of tiers.
fn tier_tag(tier: u8) -> &'static str {
    match tier {
        1 => "resume",
        2 => "recent_activity",
        _ => "living_memory",
    }
}

#[component]
pub(super) fn BriefView(brief: BriefPreview) -> impl IntoView {
    let nav = use_nav();
    let assembly = brief.assembly_id;
    let chosen = match &brief.work_context {
        Some(c) => format!("For {} ({}).", c.name, c.how),
        None => "No work context: the preview session names none and matches no rule.".to_owned(),
    };
    let tiers = (1..=3u8)
        .map(|tier| {
            let card = brief.cards.iter().find(|c| c.tag == tier_tag(tier));
            let cap = brief.tier_caps[usize::from(tier - 1)];
            let tokens = card.map_or(0, |c| c.tokens);
            view! {
                <tr data-tier=tier>
                    <td>{card_title(tier_tag(tier))}</td>
                    <td class="hint">{if card.is_some() { "" } else { "nothing to say" }}</td>
                    <td class="n tier-tokens">{format!("{tokens} / {cap}")}</td>
                </tr>
            }
        })
        .collect_view();
    let raw = RwSignal::new(false);
    let cards = brief
        .cards
        .iter()
        .map(|c| {
            view! {
                <section class="brief-card" data-tier=c.tier data-tag=c.tag.clone()>
                    <h4>
                        {card_title(&c.tag)}
                        <span class="meta">{format!(" · {} tokens", c.tokens)}</span>
                    </h4>
                    <ul>
                        {c.lines
                            .iter()
                            .map(|l| view! { <li>{l.text.clone()}</li> })
                            .collect_view()}
                    </ul>
                </section>
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
                    <strong>"All cards"</strong>
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
        <div class="brief-cards" id="brief-cards">{cards}</div>
        <button
            class="small"
            id="brief-raw-toggle"
            aria-expanded=move || raw.get().to_string()
            on:click=move |_| raw.update(|r| *r = !*r)
        >
            {move || if raw.get() { "Hide the text" } else { "Show the text as the agent reads it" }}
        </button>
        <Show when=move || raw.get()>
            <pre class="brief-text" id="brief-text">{brief.text.clone()}</pre>
        </Show>
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
