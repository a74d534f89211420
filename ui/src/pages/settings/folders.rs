//! The tracked folders card: the folders the file watcher observes, the ignore patterns, and the
//! watcher's state, polled while the card is shown.

use std::time::Duration;

use elnor_types::{TrackedFolders, WatcherStatusRow};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::components::{Loaded, short_time};

/// How often the watcher's status is read again while Settings is open: the first scan of a large
/// folder takes a while, and a problem (the inotify limit) can appear at any time. The reading is
/// the watcher's in-memory state and one small file, so it costs nothing noticeable.
pub(super) const WATCHER_POLL: Duration = Duration::from_secs(5);

/// The folders the file watcher observes, its ignore rules and its state.
#[component]
pub(super) fn TrackedFoldersCard() -> impl IntoView {
    let initial = LocalResource::new(api::tracked_folders_get);
    view! {
        <div class="card" id="tracked-folders">
            <h3>"Tracked folders"</h3>
            <p class="hint">
                "ELNOR watches these folders for files you create, change, rename or delete, and "
                "records each change as an observation on the Timeline; a markdown file adds its "
                "title and the entities it mentions. Nothing leaves this computer."
            </p>
            <Loaded resource=initial loading="Reading the tracked folders…" let:t>
                <TrackedFoldersEditor initial=t />
            </Loaded>
        </div>
    }
}

/// The card's content once read. Every reply (add, remove, save, and the status poll) replaces the
/// folders and the status; the patterns box keeps what the person is typing until they save.
/// A change to the tracked folders.
#[derive(Debug, Clone)]
pub(super) enum FolderChange {
    Add(String),
    Remove(String),
    /// Replaces the person's ignore patterns.
    IgnorePatterns(Vec<String>),
}

#[component]
pub(super) fn TrackedFoldersEditor(initial: TrackedFolders) -> impl IntoView {
    let patterns = RwSignal::new(initial.ignore_patterns.join("\n"));
    let state = RwSignal::new(initial);
    let new_path = RwSignal::new(String::new());
    let patterns_saved = RwSignal::new(false);
    let poll = set_interval_with_handle(
        move || {
            spawn_local(async move {
                // A failed poll keeps the last reading; the next one may succeed, and an action's
                // own error is shown when the person acts.
                if let Ok(t) = api::tracked_folders_get().await {
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
                    let t = api::tracked_folders_add(path)
                        .await
                        .map_err(|e| e.message)?;
                    new_path.set(String::new());
                    t
                }
                FolderChange::Remove(path) => api::tracked_folders_remove(path)
                    .await
                    .map_err(|e| e.message)?,
                FolderChange::IgnorePatterns(list) => {
                    let t = api::ignore_patterns_set(list)
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
pub(super) fn watcher_line(w: WatcherStatusRow) -> impl IntoView {
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
