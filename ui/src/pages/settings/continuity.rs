//! The continuity settings: the mode, every continuity config field grouped into cards, and the
//! synthesis model's API key and connection test.

use elnor_types::{
    CONTINUITY_EXPLANATION, CommandError, ConfigFieldRow, ContinuityMode, ContinuitySettings,
    Settings,
};
use leptos::prelude::*;

use crate::api;

#[component]
pub(super) fn ContinuitySection(initial: Settings) -> impl IntoView {
    let (mode, set_mode) = signal(initial.mode);
    // The mode on its way: `pending` disables the radios, the value says what was saved or why
    // not.
    let save = Action::new_local(move |choice: &ContinuityMode| {
        let choice = *choice;
        async move {
            let s = api::settings_set_mode(choice).await?;
            set_mode.set(s.mode);
            Ok::<ContinuityMode, CommandError>(s.mode)
        }
    });
    let saving = save.pending();
    let saved = move || save.value().get().and_then(Result::ok);
    let error = move || save.value().get().and_then(Result::err);

    let choose = move |choice: ContinuityMode| {
        if saving.get_untracked() || choice == mode.get_untracked() {
            return;
        }
        save.clear();
        save.dispatch_local(choice);
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
                error()
                    .map(|e| {
                        view! {
                            <div class="error" id="settings-error" role="alert">
                                {e.message}
                            </div>
                        }
                    })
            }}
            {move || {
                saved()
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

/// The config fields shown in each group, in order. `mode` has its own toggle above and
/// `schema_version` is not the person's to change.
pub(super) const GROUPS: &[(&str, &[&str])] = &[
    (
        "Synthesis model",
        &[
            "synthesis_provider",
            "synthesis_base_url",
            "synthesis_model",
            "synthesis_timeout_seconds",
        ],
    ),
    (
        "Spend guard",
        &["max_model_calls_per_hour", "max_model_calls_per_day"],
    ),
    (
        "Capture triggers",
        &[
            "min_dirty_turns",
            "idle_trigger_minutes",
            "debounce_minutes",
            "deterministic_heuristic_capture",
            "max_session_history_window",
            "transcript_read_max_tokens",
        ],
    ),
    (
        "Entry lifetimes (days)",
        &[
            "session_summary_ttl_days",
            "open_question_ttl_days",
            "key_decision_ttl_days",
            "cross_update_ttl_days_after_delivery",
            "work_phase_ttl_days",
        ],
    ),
    (
        "Significance gate",
        &["significance_threshold_pct", "research_gate_multiplier_pct"],
    ),
    (
        "Brief and traces",
        &["rollup_window_days", "trace_retention_assemblies"],
    ),
    (
        "Promotion and nightly job",
        &[
            "promotion_question_days",
            "promotion_decision_sessions",
            "node_decay_step_days",
            "nightly_hour",
        ],
    ),
    (
        "File watcher",
        &["watch_debounce_ms", "watch_reconcile_minutes"],
    ),
    (
        "Search embeddings",
        &[
            "embedding_provider",
            "embedding_base_url",
            "embedding_model",
        ],
    ),
    (
        "Agents' searches",
        &[
            "cross_surface_query_enabled",
            "query_rate_per_minute",
            "query_rate_per_day",
        ],
    ),
    (
        "Model temporal profile",
        &[
            "model_knowledge_cutoff",
            "model_date_awareness",
            "model_profile_verified",
        ],
    ),
];

#[component]
pub(super) fn ContinuityConfigCards(initial: ContinuitySettings) -> impl IntoView {
    let fields = initial.config.fields;
    GROUPS
        .iter()
        .map(|(title, keys)| {
            let editors = keys
                .iter()
                .filter_map(|k| fields.iter().find(|f| f.key == *k).cloned())
                .map(|row| view! { <FieldEditor row /> })
                .collect_view();
            let model = (*title == "Synthesis model").then(|| {
                view! {
                    <ApiKeyEditor
                        has_key=initial.has_api_key
                        keyring_error=initial.keyring_error.clone()
                    />
                    <ConnectionTester />
                }
            });
            view! {
                <div class="card">
                    <h3>{*title}</h3>
                    <div class="fields">{editors}</div>
                    {model}
                </div>
            }
        })
        .collect_view()
}

/// One config field: a select for listed values and flags, else a text box saved on Enter or
/// when it loses focus.
#[component]
pub(super) fn FieldEditor(row: ConfigFieldRow) -> impl IntoView {
    let key = row.key.clone();
    let value = RwSignal::new(row.value.clone());
    // The field's save: the value is `Ok` for the "saved" mark, or the engine's refusal.
    let saving = Action::new_local({
        let key = key.clone();
        move |text: &String| {
            let (key, text) = (key.clone(), text.clone());
            async move {
                let config = api::continuity_set_field(key.clone(), text)
                    .await
                    .map_err(|e| e.message)?;
                // The engine's normalised value, so what is shown is what is stored.
                if let Some(f) = config.fields.into_iter().find(|f| f.key == key) {
                    value.set(f.value);
                }
                Ok::<(), String>(())
            }
        }
    });
    let saved = move || saving.value().with(|v| matches!(v, Some(Ok(()))));
    let error = move || saving.value().get().and_then(Result::err);
    let id = format!("cfg-{key}");
    let save = move |text: String| {
        saving.clear();
        saving.dispatch_local(text);
    };
    let input = if row.choices.is_empty() {
        view! {
            <input
                id=id.clone()
                type="text"
                prop:value=move || value.get()
                on:input=move |ev| {
                    // Typing takes the "saved" mark away; an error stays until the next save.
                    if saving.value().with_untracked(|v| matches!(v, Some(Ok(())))) {
                        saving.clear();
                    }
                    value.set(event_target_value(&ev))
                }
                on:change=move |ev| save(event_target_value(&ev))
            />
        }
        .into_any()
    } else {
        let choices = row.choices.clone();
        view! {
            <select
                id=id.clone()
                prop:value=move || value.get()
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    value.set(v.clone());
                    save(v)
                }
            >
                {choices
                    .into_iter()
                    .map(|c| {
                        let selected = c == row.value;
                        view! {
                            <option value=c.clone() selected=selected>
                                {c.replace('_', " ")}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        }
        .into_any()
    };
    view! {
        <label class="field-label" for=id.clone()>
            {key.replace('_', " ")}
        </label>
        <div class="field">
            {input}
            {move || saved().then(|| view! { <span class="saved-mark">"saved"</span> })}
            <p class="hint">{format!("{} ({})", row.help, row.allowed)}</p>
            {move || {
                error()
                    .map(|e| {
                        view! {
                            <div class="error" id=format!("{id}-error") role="alert">
                                {e}
                            </div>
                        }
                    })
            }}
        </div>
    }
}

/// The API key: typed into a password box and sent once to the OS keyring; the box is cleared
/// as soon as the keyring has it.
#[component]
pub(super) fn ApiKeyEditor(has_key: bool, keyring_error: Option<String>) -> impl IntoView {
    let stored = RwSignal::new(has_key);
    let key = RwSignal::new(String::new());
    // The keyring's complaint when Settings opened, shown until the person acts.
    let keyring_error = RwSignal::new(keyring_error);
    // Saving or removing the key: `pending` disables both buttons, the value is the refusal.
    // `None` removes the key.
    let change = Action::new_local(move |text: &Option<String>| {
        let text = text.clone();
        async move {
            let status = match text {
                Some(text) => {
                    let status = api::api_key_set(text).await.map_err(|e| e.message)?;
                    key.set(String::new());
                    status
                }
                None => api::api_key_clear().await.map_err(|e| e.message)?,
            };
            stored.set(status.has_api_key);
            Ok::<(), String>(())
        }
    });
    let busy = change.pending();
    let send = move |text: Option<String>| {
        keyring_error.set(None);
        change.clear();
        change.dispatch_local(text);
    };
    let error = move || {
        change
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| keyring_error.get())
    };
    let save = move |_| send(Some(key.get_untracked()));
    let remove = move |_| send(None);
    view! {
        <h4>"API key"</h4>
        <p class="hint">
            "Needed only for an OpenAI-compatible endpoint. It is kept in the OS keyring, never in "
            "the config or the store."
        </p>
        <div class="inline-form">
            <input
                id="api-key"
                type="password"
                autocomplete="off"
                placeholder="Paste the API key"
                prop:value=move || key.get()
                on:input=move |ev| key.set(event_target_value(&ev))
            />
            <button class="small" id="api-key-save" on:click=save prop:disabled=move || busy.get()>
                "Save to keyring"
            </button>
            <button class="small" id="api-key-remove" on:click=remove prop:disabled=move || busy.get()>
                "Remove"
            </button>
            <span id="api-key-status" class="badge" class:stored=move || stored.get()>
                {move || if stored.get() { "stored in OS keyring" } else { "no key" }}
            </span>
        </div>
        {move || error().map(|e| view! { <div class="error" id="api-key-error" role="alert">{e}</div> })}
    }
}

/// "Test connection": one tiny call to the configured model, showing its reply or why it failed.
#[component]
pub(super) fn ConnectionTester() -> impl IntoView {
    // The test call: `pending` is "Testing…", the value the model's reply or why it failed.
    let testing = Action::new_local(|_: &()| async {
        match api::model_test().await {
            Ok(t) if t.ok => Ok(t.message),
            Ok(t) => Err(t.message),
            Err(e) => Err(e.message),
        }
    });
    let busy = testing.pending();
    let result = testing.value();
    let test = move |_| {
        testing.clear();
        testing.dispatch_local(());
    };
    view! {
        <div class="inline-form">
            <button class="small" id="model-test" on:click=test prop:disabled=move || busy.get()>
                {move || if busy.get() { "Testing…" } else { "Test connection" }}
            </button>
            {move || {
                result
                    .get()
                    .map(|r| match r {
                        Ok(reply) => {
                            view! {
                                <span id="model-test-result" class="test-ok">
                                    {format!("Connected. The model answered: {reply}")}
                                </span>
                            }
                                .into_any()
                        }
                        Err(why) => {
                            view! {
                                <span id="model-test-result" class="test-fail">
                                    {format!("Failed: {why}")}
                                </span>
                            }
                                .into_any()
                        }
                    })
            }}
        </div>
    }
}
