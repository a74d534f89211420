//! The entities card: every entity with its kind and aliases, and forms to create, edit and merge
//! them, which pick entities by name.

use elnor_types::{CommandError, CreateEntityRequest, EditEntityRequest, EntityRow};
use leptos::prelude::*;

use super::list::text_input;
use crate::api;
use crate::components::Loaded;

/// Every entity of the graph and a form to add one. Capture creates most entities; adding one by
/// hand lets resolution recognise a name before any session has mentioned it.
/// A change to the entities.
#[derive(Debug, Clone)]
pub(super) enum EntityChange {
    Create(CreateEntityRequest),
    Edit(EditEntityRequest),
    Merge { keep: String, absorb: String },
}

#[component]
pub(super) fn EntitiesCard(generation: RwSignal<u32>) -> impl IntoView {
    let entities = LocalResource::new(move || {
        generation.track();
        api::entities_list(None)
    });
    let kind = RwSignal::new("project".to_owned());
    let name = RwSignal::new(String::new());
    let aliases = RwSignal::new(String::new());
    let target = RwSignal::new(String::new());
    let new_name = RwSignal::new(String::new());
    let new_alias = RwSignal::new(String::new());
    let absorb = RwSignal::new(String::new());
    let cleared = move || {
        new_name.set(String::new());
        new_alias.set(String::new());
        absorb.set(String::new());
    };
    // Creating, editing and merging entities share one action: one error line under the card,
    // and every success reloads the list and empties the fields it used.
    let change = Action::new_local(move |change: &EntityChange| {
        let change = change.clone();
        async move {
            match change {
                EntityChange::Create(request) => {
                    api::entities_create(request).await.map_err(|e| e.message)?;
                    name.set(String::new());
                    aliases.set(String::new());
                }
                EntityChange::Edit(request) => {
                    api::entities_edit(request).await.map_err(|e| e.message)?;
                    cleared();
                }
                EntityChange::Merge { keep, absorb } => {
                    api::entities_merge(keep, absorb)
                        .await
                        .map_err(|e| e.message)?;
                    cleared();
                }
            }
            generation.update(|g| *g += 1);
            Ok::<(), String>(())
        }
    });
    let send = move |c: EntityChange| {
        change.clear();
        change.dispatch_local(c);
    };
    let error = move || change.value().get().and_then(Result::err);
    let save_edit = move |_| {
        send(EntityChange::Edit(EditEntityRequest {
            entity_id: target.get_untracked().trim().to_owned(),
            canonical_name: Some(new_name.get_untracked()),
            add_aliases: Some(new_alias.get_untracked().trim().to_owned())
                .filter(|a| !a.is_empty())
                .into_iter()
                .collect(),
            ..EditEntityRequest::default()
        }))
    };
    let merge = move |_| {
        send(EntityChange::Merge {
            keep: target.get_untracked().trim().to_owned(),
            absorb: absorb.get_untracked().trim().to_owned(),
        })
    };
    let create = move |_| {
        send(EntityChange::Create(CreateEntityRequest {
            kind: kind.get_untracked(),
            canonical_name: name.get_untracked(),
            aliases: aliases
                .get_untracked()
                .split(',')
                .map(|a| a.trim().to_owned())
                .filter(|a| !a.is_empty())
                .collect(),
            deadline: None,
        }))
    };
    view! {
        <div class="card">
            <h3>"Entities"</h3>
            <Loaded resource=entities loading="Loading entities…" let:list>
                {if list.is_empty() {
                    return view! { <p class="hint">"No entities yet."</p> }.into_any();
                }
                view! {
                    <ul class="entities" id="entity-list">
                        {list
                            .into_iter()
                            .map(|e| {
                                view! {
                                    <li>
                                        <strong>{e.canonical_name}</strong>
                                        <span class="meta">
                                            {format!(" {}", e.kind)}
                                            {(!e.aliases.is_empty())
                                                .then(|| format!(" · also {}", e.aliases.join(", ")))}
                                        </span>
                                    </li>
                                }
                            })
                            .collect_view()}
                    </ul>
                }
                    .into_any()}
            </Loaded>
            <div class="inline-form">
                {text_input("entity-kind", "kind, e.g. project", kind)}
                {text_input("entity-name", "Name", name)}
                {text_input("entity-aliases", "Aliases, separated by commas (optional)", aliases)}
                <button class="small" id="entity-create" on:click=create>
                    "Add entity"
                </button>
            </div>
            <div class="inline-form">
                {entity_select("entity-target", "Entity to change…", entities, target)}
                {text_input("entity-new-name", "New name (optional)", new_name)}
                {text_input("entity-new-alias", "Add an alias (optional)", new_alias)}
                <button class="small" id="entity-save" on:click=save_edit>
                    "Save"
                </button>
            </div>
            <div class="inline-form">
                {entity_select("entity-absorb", "Entity to merge into it…", entities, absorb)}
                <button class="small" id="entity-merge" on:click=merge>
                    "Merge into the entity above"
                </button>
            </div>
            {move || error().map(|e| view! { <div class="error" role="alert">{e}</div> })}
        </div>
    }
}

/// A choice of entity by name, bound to its id in `value`.
fn entity_select(
    id: &'static str,
    prompt: &'static str,
    entities: LocalResource<Result<Vec<EntityRow>, CommandError>>,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <select id=id on:change=move |ev| value.set(event_target_value(&ev)) prop:value=move || value.get()>
            <option value="">{prompt}</option>
            {move || {
                entities
                    .get()
                    .and_then(Result::ok)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|e| {
                        view! {
                            <option value=e.entity_id.clone()>
                                {format!("{} ({})", e.canonical_name, e.kind)}
                            </option>
                        }
                    })
                    .collect_view()
            }}
        </select>
    }
}
