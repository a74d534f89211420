//! Settings: the continuity mode toggle with CSA §5.1's explanatory text. Saving goes through the
//! shell to the engine, which validates and writes the config atomically.

use elnor_types::{CONTINUITY_EXPLANATION, CommandError, ContinuityMode, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::error_list;
use super::sessions::IngestCard;
use crate::api;

#[component]
pub fn SettingsPage() -> impl IntoView {
    let settings = LocalResource::new(api::get_settings);
    let generation = RwSignal::new(0u32);
    view! {
        <h2>"Settings"</h2>
        <Transition fallback=|| view! { <p class="hint">"Reading settings…"</p> }>
            <ErrorBoundary fallback=error_list>
                {move || Suspend::new(async move {
                    settings.await.map(|s| view! { <ContinuitySection initial=s /> })
                })}
            </ErrorBoundary>
        </Transition>
        <IngestCard generation />
    }
}

#[component]
fn ContinuitySection(initial: Settings) -> impl IntoView {
    let (mode, set_mode) = signal(initial.mode);
    let (saved, set_saved) = signal(None::<ContinuityMode>);
    let (error, set_error) = signal(None::<CommandError>);
    let (saving, set_saving) = signal(false);

    let choose = move |choice: ContinuityMode| {
        if saving.get_untracked() || choice == mode.get_untracked() {
            return;
        }
        set_saving.set(true);
        set_error.set(None);
        set_saved.set(None);
        spawn_local(async move {
            match api::set_continuity_mode(choice).await {
                Ok(s) => {
                    set_mode.set(s.mode);
                    set_saved.set(Some(s.mode));
                }
                Err(e) => set_error.set(Some(e)),
            }
            set_saving.set(false);
        });
    };

    view! {
        <div class="card">
            <h3>"Continuity"</h3>
            <p class="hint">{CONTINUITY_EXPLANATION}</p>
            {ContinuityMode::ALL
                .into_iter()
                .map(|m| {
                    let id = format!("mode-{}", m.as_str());
                    let label_for = id.clone();
                    view! {
                        <label class="mode" class:selected=move || mode.get() == m for=label_for>
                            <input
                                type="radio"
                                name="continuity-mode"
                                id=id
                                value=m.as_str()
                                prop:checked=move || mode.get() == m
                                prop:disabled=move || saving.get()
                                on:change=move |_| choose(m)
                            />
                            <div>
                                <strong>{m.label()}</strong>
                                <span>{m.explanation()}</span>
                            </div>
                        </label>
                    }
                })
                .collect_view()}
            {move || {
                error
                    .get()
                    .map(|e| {
                        view! {
                            <div class="error" id="settings-error" role="alert">
                                {e.message}
                            </div>
                        }
                    })
            }}
            {move || {
                saved
                    .get()
                    .map(|m| {
                        view! {
                            <p class="saved" id="settings-saved">
                                {format!("Saved: continuity mode is now {}.", m.as_str())}
                            </p>
                        }
                    })
            }}
            <p class="hint">"Stored in " <code>{initial.config_path.clone()}</code></p>
        </div>
    }
}
