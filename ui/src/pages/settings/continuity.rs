//! The settings the config file holds: the continuity mode, each section's fields (labelled and
//! explained in plain words by the engine, refused in plain words too), and the synthesis
//! model's API key and connection test.

use elnor_types::{CONTINUITY_EXPLANATION, CommandError, ConfigFieldRow, ContinuityMode, Settings};
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
        <div class="mode-choice">
            <h4>"Continuity mode"</h4>
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

/// The config fields of one Settings section, in the engine's order, each with its label, one
/// line of help and its editor. The synthesis model's section also holds its API key and the
/// connection test.
pub(super) fn section_fields(fields: &[ConfigFieldRow], section: &str) -> impl IntoView + use<> {
    let editors = fields
        .iter()
        .filter(|f| f.section == section && f.key != "mode")
        .cloned()
        .map(|row| view! { <FieldEditor row /> })
        .collect_view();
    let model = (section == "models").then(|| {
        view! {
            <ApiKeyEditor />
            <ConnectionTester />
            <ModelFinder />
        }
    });
    view! {
        <div class="fields">{editors}</div>
        {model}
    }
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
                    .enumerate()
                    .map(|(i, c)| {
                        let selected = c == row.value;
                        let label = row.choice_labels.get(i).cloned().unwrap_or_else(|| c.clone());
                        view! {
                            <option value=c.clone() selected=selected>
                                {label}
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
            {row.label.clone()}
        </label>
        <div class="field">
            {input}
            {move || saved().then(|| view! { <span class="saved-mark">"saved"</span> })}
            <p class="hint" title=row.ask.clone()>
                {row.help.clone()}
                {(!row.travels)
                    .then(|| {
                        view! {
                            <span
                                class="badge machine-only"
                                title="Sync leaves this setting on this machine: your other devices keep their own."
                            >
                                "this machine only"
                            </span>
                        }
                    })}
            </p>
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
pub(super) fn ApiKeyEditor() -> impl IntoView {
    // Whether a key is stored: `None` until the keyring is asked. It is asked when the person
    // reaches for the key (focus or a click in this block), not when Settings opens: a locked
    // keyring must not greet them with an error before they touched anything.
    let stored = RwSignal::new(None::<bool>);
    let key = RwSignal::new(String::new());
    // The keyring's complaint, shown until the person acts.
    let keyring_error = RwSignal::new(None::<String>);
    let check = Action::new_local(move |_: &()| async move {
        match api::api_key_status().await {
            Ok(s) => stored.set(Some(s.has_api_key)),
            Err(e) => keyring_error.set(Some(e.message)),
        }
    });
    let ask_once = move || {
        if stored.get_untracked().is_none() && !check.pending().get_untracked() {
            keyring_error.set(None);
            check.dispatch_local(());
        }
    };
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
            stored.set(Some(status.has_api_key));
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
            "Needed only for an OpenAI-compatible service. It is kept in your system's keyring, "
            "never in the settings file or the store."
        </p>
        <div class="inline-form" id="api-key-block" on:focusin=move |_| ask_once() on:click=move |_| ask_once()>
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
            <span id="api-key-status" class="badge" class:stored=move || stored.get() == Some(true)>
                {move || match stored.get() {
                    Some(true) => "stored in the keyring",
                    Some(false) => "no key stored",
                    None => "not checked yet",
                }}
            </span>
        </div>
        {move || error().map(|e| view! { <div class="error" id="api-key-error" role="alert">{e}</div> })}
    }
}

/// "Find models on this machine": a local Ollama and its models, and the agent CLIs (Claude
/// Code, Codex) signed in with the person's own login, each with the value that selects it.
#[component]
pub(super) fn ModelFinder() -> impl IntoView {
    let finding = Action::new_local(|_: &()| async { api::model_detect().await });
    let busy = finding.pending();
    let found = finding.value();
    let find = move |_| {
        finding.clear();
        finding.dispatch_local(());
    };
    view! {
        <div class="inline-form">
            <button class="small" id="model-detect" on:click=find prop:disabled=move || busy.get()>
                {move || if busy.get() { "Looking…" } else { "Find models on this machine" }}
            </button>
        </div>
        {move || {
            found
                .get()
                .map(|r| match r {
                    Ok(list) if list.is_empty() => {
                        view! {
                            <p id="model-detect-result" class="hint">
                                "No Ollama answered and no agent CLI (claude, codex) is on the PATH.                                  The offline mode needs none."
                            </p>
                        }
                            .into_any()
                    }
                    Ok(list) => {
                        view! {
                            <ul id="model-detect-result" class="found-models">
                                {list
                                    .into_iter()
                                    .map(|m| {
                                        let models = if m.models.is_empty() {
                                            String::new()
                                        } else {
                                            format!(" — {}", m.models.join(", "))
                                        };
                                        view! {
                                            <li>
                                                <code>{m.provider}</code>
                                                {format!(" at {}{models}", m.at)}
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                            <p class="hint">"Choose one under Model service, then turn on full mode."</p>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        view! { <div class="error" id="model-detect-result" role="alert">{e.message}</div> }
                            .into_any()
                    }
                })
        }}
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
