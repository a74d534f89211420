//! Settings: the continuity mode toggle with CSA §5.1's explanatory text, then every other
//! continuity field (synthesis model, API key, spend guard, triggers, TTLs, the significance gate
//! and the model's temporal profile). Saving goes through the shell to the engine, which validates
//! and writes the config atomically; its error text is shown beside the field as it is.
//!
//! The API key is typed here and handed to the shell, which stores it in the OS keyring. It is
//! never read back: the page only learns whether a key is stored.
//!
//! Living memory is the person's own facts and preferences, Tier 3 of every brief: listed in the
//! order the brief considers them, each with its token count, to add, edit, move and remove.
//!
//! Tracked folders are the folders whose file changes become observations: listed with a
//! "missing" badge for one that is gone, to add and remove, with the person's ignore patterns (one
//! per line), the built-in ones, and the file watcher's status line, its problem (such as an
//! exhausted inotify watch limit, with the fix) shown prominently.

use std::time::Duration;

use elnor_types::{
    CONTINUITY_EXPLANATION, CommandError, ConfigFieldRow, ContinuityMode, ContinuitySettings,
    EditFactRequest, LivingFactRow, LivingFacts, Settings, TrackedFolders, WatcherStatusRow,
};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::Loaded;
use crate::components::short_time;
use crate::pages::sessions::IngestCard;

/// How often the watcher's status is read again while Settings is open: the first scan of a large
/// folder takes a while, and a problem (the inotify limit) can appear at any time. The reading is
/// the watcher's in-memory state and one small file, so it costs nothing noticeable.
const WATCHER_POLL: Duration = Duration::from_secs(5);

#[component]
pub fn SettingsPage() -> impl IntoView {
    let settings = LocalResource::new(api::get_settings);
    let continuity = LocalResource::new(api::get_continuity_settings);
    let generation = RwSignal::new(0u32);
    view! {
        <h2>"Settings"</h2>
        <Loaded resource=settings loading="Reading settings…" let:s>
            {view! { <ContinuitySection initial=s /> }}
        </Loaded>
        <Loaded resource=continuity loading="Reading the continuity config…" let:s>
            {view! { <ContinuityConfigCards initial=s /> }}
        </Loaded>
        <LivingMemoryCard />
        <TrackedFoldersCard />
        <IngestCard generation />
    }
}

/// The folders the file watcher observes, its ignore rules and its state.
#[component]
fn TrackedFoldersCard() -> impl IntoView {
    let initial = LocalResource::new(api::tracked_folders);
    view! {
        <div class="card" id="tracked-folders">
            <h3>"Tracked folders"</h3>
            <p class="hint">
                "ELNOR watches these folders for files you create, change, rename or delete, and "
                "records each change as an observation on the Timeline; a markdown file adds its "
                "title and the entities it mentions. Nothing leaves this computer."
            </p>
            <Loaded resource=initial loading="Reading the tracked folders…" let:t>
                {view! { <TrackedFoldersEditor initial=t /> }}
            </Loaded>
        </div>
    }
}

/// The card's content once read. Every reply (add, remove, save, and the status poll) replaces the
/// folders and the status; the patterns box keeps what the person is typing until they save.
/// A change to the tracked folders.
#[derive(Debug, Clone)]
enum FolderChange {
    Add(String),
    Remove(String),
    /// Replaces the person's ignore patterns.
    IgnorePatterns(Vec<String>),
}

#[component]
fn TrackedFoldersEditor(initial: TrackedFolders) -> impl IntoView {
    let patterns = RwSignal::new(initial.ignore_patterns.join("\n"));
    let state = RwSignal::new(initial);
    let new_path = RwSignal::new(String::new());
    let patterns_saved = RwSignal::new(false);
    let poll = set_interval_with_handle(
        move || {
            spawn_local(async move {
                // A failed poll keeps the last reading; the next one may succeed, and an action's
                // own error is shown when the person acts.
                if let Ok(t) = api::tracked_folders().await {
                    state.set(t);
                }
            })
        },
        WATCHER_POLL,
    );
    on_cleanup(move || {
        if let Ok(handle) = poll {
            handle.clear();
        }
    });
    // Adding, removing and the ignore patterns share one action: one error line under the card.
    // Each reply is the engine's whole list, so what is shown is what is stored.
    let change = Action::new_local(move |change: &FolderChange| {
        let change = change.clone();
        async move {
            let t = match change {
                FolderChange::Add(path) => {
                    let t = api::add_tracked_folder(path).await.map_err(|e| e.message)?;
                    new_path.set(String::new());
                    t
                }
                FolderChange::Remove(path) => api::remove_tracked_folder(path)
                    .await
                    .map_err(|e| e.message)?,
                FolderChange::IgnorePatterns(list) => {
                    let t = api::set_ignore_patterns(list)
                        .await
                        .map_err(|e| e.message)?;
                    patterns.set(t.ignore_patterns.join("\n"));
                    patterns_saved.set(true);
                    t
                }
            };
            state.set(t);
            Ok::<(), String>(())
        }
    });
    let send = move |c: FolderChange| {
        change.clear();
        change.dispatch_local(c);
    };
    let error = move || change.value().get().and_then(Result::err);
    let add = move || {
        let path = new_path.get_untracked().trim().to_owned();
        if !path.is_empty() {
            send(FolderChange::Add(path));
        }
    };
    let remove = move |path: String| send(FolderChange::Remove(path));
    let save_patterns = move |_| {
        let list: Vec<String> = patterns
            .get_untracked()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect();
        patterns_saved.set(false);
        send(FolderChange::IgnorePatterns(list));
    };
    let folders = move || {
        let list = state.with(|s| s.folders.clone());
        if list.is_empty() {
            return view! {
                <p class="hint" id="tracked-folders-empty">
                    "No folders tracked yet. Add a folder you work in, such as your documents or a "
                    "project folder, and the changes you make there appear on the Timeline."
                </p>
            }
            .into_any();
        }
        view! {
            <table class="sources" id="tracked-folder-list">
                {list
                    .into_iter()
                    .map(|f| {
                        let path = f.path.clone();
                        view! {
                            <tr class="tracked-folder" class:missing=!f.exists data-path=f.path.clone()>
                                <td class="path">{f.path.clone()}</td>
                                <td>
                                    {if f.exists {
                                        view! { <span class="badge">"watched"</span> }.into_any()
                                    } else {
                                        view! {
                                            <span
                                                class="badge missing"
                                                title="The folder does not exist right now. It stays tracked and is watched again when it comes back."
                                            >
                                                "missing"
                                            </span>
                                        }
                                            .into_any()
                                    }}
                                </td>
                                <td>
                                    <button class="small folder-remove" on:click=move |_| remove(path.clone())>
                                        "Stop tracking"
                                    </button>
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </table>
        }
        .into_any()
    };
    let defaults = state.with_untracked(|s| s.default_ignores.clone());
    view! {
        {move || watcher_line(state.with(|s| s.watcher.clone()))}
        {folders}
        <div class="inline-form">
            <input
                id="tracked-folder-path"
                type="text"
                placeholder="/absolute/path/to/a/folder"
                prop:value=move || new_path.get()
                on:input=move |ev| new_path.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" {
                        ev.prevent_default();
                        add();
                    }
                }
            />
            <button class="small" id="tracked-folder-add" on:click=move |_| add()>
                "Track folder"
            </button>
        </div>
        {move || error().map(|e| view! { <div class="error" id="tracked-folders-error" role="alert">{e}</div> })}
        <h4>"Ignore patterns"</h4>
        <p class="hint">
            "Files and folders to leave out, one glob per line, such as "
            <code>"*.bak"</code>
            " or "
            <code>"drafts/**"</code>
            ". These are added to the built-in rules below."
        </p>
        <textarea
            id="ignore-patterns"
            class="patterns"
            rows="4"
            prop:value=move || patterns.get()
            on:input=move |ev| {
                patterns_saved.set(false);
                patterns.set(event_target_value(&ev));
            }
        ></textarea>
        <div class="inline-form">
            <button class="small" id="ignore-save" on:click=save_patterns>
                "Save patterns"
            </button>
            {move || patterns_saved.get().then(|| view! { <span class="saved-mark" id="ignore-saved">"saved"</span> })}
        </div>
        <p class="hint" id="default-ignores">
            "Always ignored: "
            {defaults
                .into_iter()
                .map(|d| view! { <code class="ignore-rule">{d}</code> " " })
                .collect_view()}
        </p>
    }
}

/// The watcher's state, how many files it knows and when it last compared them with the disk;
/// a problem is shown as an alert, since it usually means changes are being missed.
fn watcher_line(w: WatcherStatusRow) -> impl IntoView {
    let reconciled = w
        .last_reconcile_at
        .as_deref()
        .map(|t| format!("last full check {}", short_time(t)))
        .unwrap_or_else(|| "no full check yet".to_owned());
    let files = format!(
        "{} file{} known · {reconciled}",
        w.files,
        if w.files == 1 { "" } else { "s" }
    );
    view! {
        <p class="watcher-status" id="watcher-status" data-state=w.state.clone()>
            "File watcher: "
            <span class=format!("badge watcher-{}", w.state) id="watcher-state">{w.state.clone()}</span>
            <span class="meta" id="watcher-files">{files}</span>
        </p>
        {w.problem
            .map(|p| {
                view! {
                    <div class="error watcher-problem" id="watcher-problem" role="alert">
                        <strong>"The file watcher needs attention. "</strong>
                        <span class="problem-text">{p}</span>
                    </div>
                }
            })}
    }
}

/// Tier 3: the person's facts and preferences, in the order the brief takes them.
/// A change to the living-memory facts.
#[derive(Debug, Clone)]
enum FactChange {
    Add(String),
    Edit(EditFactRequest),
    Remove(i64),
}

/// The living-memory card's action: its value is the last change's error, if it failed.
type FactAction = Action<FactChange, Result<(), String>>;

/// Sends a change to the facts; the last error goes as the next change starts.
fn send_fact(action: FactAction, change: FactChange) {
    action.clear();
    action.dispatch_local(change);
}

#[component]
fn LivingMemoryCard() -> impl IntoView {
    // Bumped after every change, so the list shows the engine's order and counts.
    let generation = RwSignal::new(0u32);
    let facts = LocalResource::new(move || {
        generation.track();
        api::living_facts_list()
    });
    let new_fact = RwSignal::new(String::new());
    // Adding, editing, moving and removing facts share one action: one error line under the
    // card, and every success reloads the list in the engine's order.
    let change: FactAction = Action::new_local(move |change: &FactChange| {
        let change = change.clone();
        async move {
            match change {
                FactChange::Add(text) => {
                    api::living_facts_add(text).await.map_err(|e| e.message)?;
                    new_fact.set(String::new());
                }
                FactChange::Edit(request) => {
                    api::living_facts_edit(request)
                        .await
                        .map_err(|e| e.message)?;
                }
                FactChange::Remove(id) => {
                    api::living_facts_remove(id).await.map_err(|e| e.message)?;
                }
            }
            generation.update(|g| *g += 1);
            Ok(())
        }
    });
    let error = move || change.value().get().and_then(Result::err);
    let add = move |_| send_fact(change, FactChange::Add(new_fact.get_untracked()));
    view! {
        <div class="card" id="living-memory">
            <h3>"Living memory"</h3>
            <p class="hint">
                "Your stable facts and preferences. Every brief ends with them (Tier 3), in this "
                "order; Tier 3 has 100 tokens, so facts that do not fit after the ones above them "
                "are left out. The Inspector shows which."
            </p>
            <Loaded resource=facts loading="Reading living memory…" let:f>
                {fact_list(f, change)}
            </Loaded>
            <div class="inline-form">
                <input
                    id="fact-new"
                    type="text"
                    placeholder="e.g. I prefer British spelling."
                    prop:value=move || new_fact.get()
                    on:input=move |ev| new_fact.set(event_target_value(&ev))
                />
                <button class="small" id="fact-add" on:click=add>
                    "Add fact"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" id="facts-error" role="alert">{e}</div> })}
        </div>
    }
}

fn fact_list(facts: LivingFacts, change: FactAction) -> AnyView {
    if facts.facts.is_empty() {
        return view! {
            <p class="hint" id="facts-empty">
                "No facts yet: Tier 3 is empty. Add what every agent should know about you, such as "
                "how you like answers or which tools you use."
            </p>
        }
        .into_any();
    }
    let used: u32 = facts.facts.iter().map(|f| f.tokens).sum();
    let cap = facts.tier3_cap;
    let last = facts.facts.len() as i64;
    view! {
        <p class="meta" id="facts-total">
            {format!("{used} tokens in all; Tier 3 has {cap}.")}
            {(used > cap).then_some(" The last facts do not fit and are left out of briefs.")}
        </p>
        <ol class="facts-list" id="facts-list">
            {facts
                .facts
                .into_iter()
                .map(|f| fact_item(f, last, change))
                .collect_view()}
        </ol>
    }
    .into_any()
}

fn fact_item(f: LivingFactRow, last: i64, change: FactAction) -> impl IntoView {
    let id = f.fact_id;
    let text = RwSignal::new(f.text.clone());
    let edit = move |text: Option<String>, position: Option<i64>| {
        let request = EditFactRequest {
            fact_id: id,
            text,
            position,
        };
        send_fact(change, FactChange::Edit(request));
    };
    let remove = move |_| send_fact(change, FactChange::Remove(id));
    let position = f.position;
    view! {
        <li class="fact" data-fact-id=id>
            <input
                class="fact-text"
                type="text"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
            />
            <span class="meta fact-tokens">{format!("{} tokens", f.tokens)}</span>
            <button class="small fact-save" on:click=move |_| edit(Some(text.get_untracked()), None)>
                "Save"
            </button>
            <button
                class="small fact-up"
                title="Move up: earlier facts are kept first when Tier 3 is full"
                prop:disabled={position <= 1}
                on:click=move |_| edit(None, Some(position - 1))
            >
                "↑"
            </button>
            <button
                class="small fact-down"
                title="Move down"
                prop:disabled={position >= last}
                on:click=move |_| edit(None, Some(position + 1))
            >
                "↓"
            </button>
            <button class="small fact-remove" on:click=remove>
                "Remove"
            </button>
        </li>
    }
}

#[component]
fn ContinuitySection(initial: Settings) -> impl IntoView {
    let (mode, set_mode) = signal(initial.mode);
    // The mode on its way: `pending` disables the radios, the value says what was saved or why
    // not.
    let save = Action::new_local(move |choice: &ContinuityMode| {
        let choice = *choice;
        async move {
            let s = api::set_continuity_mode(choice).await?;
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
const GROUPS: &[(&str, &[&str])] = &[
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
        "Model temporal profile",
        &[
            "model_knowledge_cutoff",
            "model_date_awareness",
            "model_profile_verified",
        ],
    ),
];

#[component]
fn ContinuityConfigCards(initial: ContinuitySettings) -> impl IntoView {
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
fn FieldEditor(row: ConfigFieldRow) -> impl IntoView {
    let key = row.key.clone();
    let value = RwSignal::new(row.value.clone());
    // The field's save: the value is `Ok` for the "saved" mark, or the engine's refusal.
    let saving = Action::new_local({
        let key = key.clone();
        move |text: &String| {
            let (key, text) = (key.clone(), text.clone());
            async move {
                let config = api::set_config_field(key.clone(), text)
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
fn ApiKeyEditor(has_key: bool, keyring_error: Option<String>) -> impl IntoView {
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
                    let status = api::set_api_key(text).await.map_err(|e| e.message)?;
                    key.set(String::new());
                    status
                }
                None => api::clear_api_key().await.map_err(|e| e.message)?,
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
fn ConnectionTester() -> impl IntoView {
    // The test call: `pending` is "Testing…", the value the model's reply or why it failed.
    let testing = Action::new_local(|_: &()| async {
        match api::test_model_connection().await {
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
