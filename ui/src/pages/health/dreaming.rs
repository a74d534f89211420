//! OpenClaw's Dreaming on the Health page. While it runs, a card says what it does and offers
//! "Turn Dreaming off": a confirmation names the file that changes and the backup made first,
//! and the engine makes the edit. On success the page reads the report again and says where the
//! backup is; a config the engine cannot edit safely leaves the confirmation open with the
//! engine's reason and the line to add by hand, ready to copy. When Dreaming is off, or OpenClaw
//! has no config here, the page says so in one quiet line.

use elnor_types::{DreamingChanged, DreamingRow};
use leptos::prelude::*;

use crate::api;
use crate::components::{Modal, copy_text};

/// Dreaming's card or line. `outcome` holds what the last "Turn Dreaming off" changed and
/// `generation` is bumped to read the report again; both belong to the page, so they outlive the
/// report they refresh.
#[component]
pub(super) fn DreamingSection(
    dreaming: DreamingRow,
    outcome: RwSignal<Option<DreamingChanged>>,
    generation: RwSignal<u32>,
) -> impl IntoView {
    let done = move || {
        outcome.get().map(|c| {
            let text = match (c.written, c.backup) {
                (true, Some(backup)) => format!(
                    "Dreaming was turned off in {}. The file as it was is saved at {backup}.",
                    c.file
                ),
                (true, None) => format!("Dreaming was turned off in {}.", c.file),
                (false, _) => format!("{} already had Dreaming off; nothing was changed.", c.file),
            };
            view! { <p class="dreaming-done" id="dreaming-done" role="status">{text}</p> }
        })
    };
    match dreaming.state.as_str() {
        "on" => view! { <DreamingOn dreaming outcome generation /> }.into_any(),
        "unreadable" => {
            let problem = dreaming.problem.unwrap_or_default();
            view! {
                <section class="card health-dreaming" id="health-dreaming" data-state="unreadable">
                    <h3>"OpenClaw Dreaming"</h3>
                    <p class="health-problem">
                        "ELNOR could not read OpenClaw's settings, so it cannot tell whether Dreaming runs: "
                        {with_code(&problem)}
                    </p>
                    <p>"To turn Dreaming off by hand, add this line at the top level of the file:"</p>
                    <p>{copy_text(dreaming.line_to_add)}</p>
                    <p class="meta path">{dreaming.file}</p>
                </section>
            }
            .into_any()
        }
        state => {
            let line = if state == "off" {
                "OpenClaw's Dreaming is off, so ELNOR is your agents' one memory of their sessions."
            } else {
                "OpenClaw is not set up on this machine, so there is no Dreaming to turn off."
            };
            view! {
                <div class="health-dreaming quiet" id="health-dreaming" data-state=state.to_owned()>
                    <p class="hint" title=dreaming.file>{line}</p>
                    {done}
                </div>
            }
            .into_any()
        }
    }
}

/// The card while Dreaming runs, with its button.
#[component]
fn DreamingOn(
    dreaming: DreamingRow,
    outcome: RwSignal<Option<DreamingChanged>>,
    generation: RwSignal<u32>,
) -> impl IntoView {
    let confirming = RwSignal::new(false);
    let file = dreaming.file.clone();
    let line = dreaming.line_to_add.clone();
    view! {
        <section class="card health-dreaming on" id="health-dreaming" data-state="on">
            <h3>"OpenClaw Dreaming"</h3>
            // The engine's words: what Dreaming does, why it matters beside ELNOR, and whether
            // the settings turn it on or OpenClaw's default does.
            <p class="dreaming-what">{with_code(&dreaming.what_it_does)}</p>
            <div class="dreaming-actions">
                <button class="primary" id="dreaming-disable" on:click=move |_| confirming.set(true)>
                    "Turn Dreaming off"
                </button>
                <span class="meta path">{dreaming.file}</span>
            </div>
        </section>
        <Show when=move || confirming.get()>
            <DisableDialog
                file=file.clone()
                line=line.clone()
                open=confirming
                outcome
                generation
            />
        </Show>
    }
}

/// The confirmation: which file changes and that a backup is made first. The engine's refusal
/// stays here, with the line to add by hand.
#[component]
fn DisableDialog(
    file: String,
    line: String,
    open: RwSignal<bool>,
    outcome: RwSignal<Option<DreamingChanged>>,
    generation: RwSignal<u32>,
) -> impl IntoView {
    let disable = Action::new_local(move |_: &()| async move {
        let change = api::dreaming_disable().await.map_err(|e| e.message)?;
        outcome.set(Some(change));
        open.set(false);
        // Read the report again: the card gives way to the state the file now says.
        generation.update(|g| *g += 1);
        Ok::<_, String>(())
    });
    let error = move || disable.value().get().and_then(Result::err);
    let busy = disable.pending();
    view! {
        <Modal open id="dreaming-confirm" label="Turn Dreaming off">
            <h3>"Turn Dreaming off?"</h3>
            <p>"ELNOR changes one setting in OpenClaw's settings file:"</p>
            <p class="path">{file}</p>
            <p>
                "It copies the file to a backup beside it first, then switches Dreaming off and "
                "leaves everything else in the file exactly as it was."
            </p>
            {move || {
                error()
                    .map(|e| {
                        view! {
                            <div class="error" id="dreaming-error" role="alert">
                                {refusal(&e, &line)}
                            </div>
                        }
                    })
            }}
            <div class="dialog-buttons">
                <button class="small" id="dreaming-cancel" on:click=move |_| open.set(false)>
                    "Cancel"
                </button>
                <button
                    class="primary"
                    id="dreaming-confirm-off"
                    disabled=move || busy.get()
                    on:click=move |_| {
                        if !busy.get_untracked() {
                            disable.clear();
                            disable.dispatch_local(());
                        }
                    }
                >
                    "Turn off"
                </button>
            </div>
        </Modal>
    }
}

/// The engine's refusal with the line to add by hand ready to copy. A config the engine cannot
/// edit safely is refused with a message that already ends with that line, so the line is put in
/// its place there; any other refusal (the file changed meanwhile, it cannot be written) is
/// followed by it.
fn refusal(message: &str, line: &str) -> impl IntoView + use<> {
    match message.split_once(line) {
        Some((before, after)) => view! {
            <p>{with_code(before)}</p>
            <p>{copy_text(line.to_owned())}</p>
            {(!after.trim().is_empty()).then(|| view! { <p>{with_code(after)}</p> })}
        }
        .into_any(),
        None => view! {
            <p>{with_code(message)}</p>
            <p>"To turn Dreaming off by hand, add this line at the top level of the file:"</p>
            <p>{copy_text(line.to_owned())}</p>
        }
        .into_any(),
    }
}

/// The engine's sentences, which mark a command or a setting `like this`, with those parts shown
/// as code rather than between backticks.
fn with_code(text: &str) -> impl IntoView + use<> {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                view! { <code>{part.to_owned()}</code> }.into_any()
            } else {
                part.to_owned().into_any()
            }
        })
        .collect_view()
}
