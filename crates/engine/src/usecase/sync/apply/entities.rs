//! What another device's change to an entity does here: made (by the person or a capture),
//! edited, tied to a work context, merged. The entity's id is its name's slug, so one made on two
//! devices is one entity; a name that already names another entity here is left for the person
//! to merge, never forced.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::base::error::{Error, Result};
use crate::base::ids::WorkContextId;
use crate::graph::Graph;
use crate::graph::entities::{Entity, EntityEdit, NewEntity};
use crate::graph::sync::{GraphEvent, Write, alias_field, link_field};

/// An entity as made on another device.
pub(super) fn known(graph: &Graph, ev: &GraphEvent, new: &NewEntity, entity: &str) -> Result<()> {
    if graph.has_clock(entity, "merged_into")? {
        return Ok(());
    }
    let here = graph.entity(entity).ok();
    if here.is_none() && !graph.insert_synced_entity(entity, new, ev.at)? {
        tracing::warn!(
            entity,
            "sync: an entity's name names another entity here; not made"
        );
        return Ok(());
    }
    let values = [
        (
            "canonical_name",
            serde_json::Value::from(new.canonical_name.clone()),
        ),
        ("kind", serde_json::Value::from(new.kind.clone())),
        (
            "deadline",
            new.deadline
                .clone()
                .map_or(serde_json::Value::Null, serde_json::Value::from),
        ),
    ];
    for (field, value) in values {
        let applies = graph.sync_write(ev, entity, field, None)? == Write::Apply;
        if applies && here.is_some() {
            set_field(graph, entity, field, &value, ev.at)?;
        }
    }
    for alias in &new.aliases {
        let applies = graph.sync_write(ev, entity, &alias_field(alias), None)? == Write::Apply;
        if applies && here.is_some() {
            set_alias(graph, entity, alias, true, ev.at)?;
        }
    }
    Ok(())
}

/// Fields of an entity set on another device.
pub(super) fn set(
    graph: &Graph,
    ev: &GraphEvent,
    entity: &str,
    set: &BTreeMap<String, serde_json::Value>,
) -> Result<()> {
    let here = graph.entity(entity).ok();
    for (field, value) in set {
        let incoming = super::text_of(value);
        let in_force = value_of(here.as_ref(), field);
        let write = graph.sync_write(ev, entity, field, Some((&incoming, &in_force)))?;
        if write == Write::Apply && here.is_some() {
            set_field(graph, entity, field, value, ev.at)?;
        }
    }
    Ok(())
}

/// An alias added or removed on another device.
pub(super) fn alias(
    graph: &Graph,
    ev: &GraphEvent,
    entity: &str,
    alias: &str,
    present: bool,
) -> Result<()> {
    let write = graph.sync_write(ev, entity, &alias_field(alias), None)?;
    if write == Write::Apply && graph.entity(entity).is_ok() {
        set_alias(graph, entity, alias, present, ev.at)?;
    }
    Ok(())
}

/// An entity tied to a work context on another device: tied here too, following merges of
/// either, when both are here. Returns the context, whose view changed.
pub(super) fn link(
    graph: &Graph,
    ev: &GraphEvent,
    entity: &str,
    context: &str,
) -> Result<Option<WorkContextId>> {
    graph.sync_write(ev, entity, &link_field(context), None)?;
    let entity = graph.end_of_merges(entity, |e| graph.entity(e).is_ok())?;
    let context = graph.merged_into(context)?;
    if graph.entity(&entity).is_err() || graph.work_context(&context).is_err() {
        return Ok(None);
    }
    graph.link_entity(&context, &entity)?;
    Ok(WorkContextId::new(&context).ok())
}

/// Two entities merged on another device. Either may have been merged away here since, as
/// contexts are: the merge then joins where each went. When what was absorbed already went
/// elsewhere (two devices merged one entity into two others), the two it went into are one
/// entity now, and the one with the smaller id keeps the other; two devices that merged one pair
/// in opposite directions also end with the smaller id. In whichever order the merges arrive,
/// every device ends with the same entity.
pub(super) fn merge(graph: &Graph, ev: &GraphEvent, keep: &str, absorb: &str) -> Result<()> {
    graph.sync_write(ev, absorb, "merged_into", None)?;
    let exists = |e: &str| graph.entity(e).is_ok();
    let kept = graph.end_of_merges(keep, exists)?;
    let absorbed = graph.end_of_merges(absorb, exists)?;
    // The two are one entity here already, kept under another id than this merge keeps: the
    // other device merged them the other way round. The smaller id keeps the pair on every
    // device, so the entity here takes that id when it is this merge's.
    if kept == absorbed && kept != keep && *keep < *kept && exists(&kept) && !exists(keep) {
        return take_the_id_that_keeps(graph, &kept, keep, ev);
    }
    let (keep, absorb) = if absorbed != absorb && absorbed > kept {
        (kept, absorbed)
    } else if absorbed != absorb {
        (absorbed, kept)
    } else {
        (kept, absorbed)
    };
    if keep != absorb && exists(&keep) && exists(&absorb) {
        graph.merge_entities(&keep, &absorb, ev.at)?;
    }
    Ok(())
}

/// The pair merged here into `held` takes the id `keep`, and the fields `keep`'s writes in force
/// give it, as on the device that kept `keep`: its name and kind, and its deadline when it had
/// one (a merge keeps the absorbed one's deadline otherwise); the name `held` had becomes an
/// alias.
fn take_the_id_that_keeps(graph: &Graph, held: &str, keep: &str, ev: &GraphEvent) -> Result<()> {
    let before = graph.entity(held)?;
    graph.rekey_entity(held, keep, ev.at)?;
    let in_force = |field| graph.entity_field_in_force(keep, field);
    let mut edit = EntityEdit::default();
    if let Some(serde_json::Value::String(name)) = in_force("canonical_name")?
        && name != before.canonical_name
    {
        edit.remove_aliases.push(name.clone());
        edit.add_aliases.push(before.canonical_name.clone());
        edit.canonical_name = Some(name);
    }
    if let Some(serde_json::Value::String(kind)) = in_force("kind")? {
        edit.kind = Some(kind);
    }
    if let Some(serde_json::Value::String(deadline)) = in_force("deadline")? {
        edit.deadline = Some(Some(deadline));
    }
    edit_quietly(graph, keep, &edit, ev.at)
}

fn value_of(entity: Option<&Entity>, field: &str) -> String {
    let Some(e) = entity else {
        return String::new();
    };
    match field {
        "canonical_name" => e.canonical_name.clone(),
        "kind" => e.kind.clone(),
        "deadline" => e.deadline.clone().unwrap_or_default(),
        _ => String::new(),
    }
}

fn set_field(
    graph: &Graph,
    entity: &str,
    field: &str,
    value: &serde_json::Value,
    at: DateTime<Utc>,
) -> Result<()> {
    let mut edit = EntityEdit::default();
    match (field, value) {
        ("canonical_name", serde_json::Value::String(n)) => edit.canonical_name = Some(n.clone()),
        ("kind", serde_json::Value::String(k)) => edit.kind = Some(k.clone()),
        ("deadline", serde_json::Value::String(d)) => edit.deadline = Some(Some(d.clone())),
        ("deadline", serde_json::Value::Null) => edit.deadline = Some(None),
        // A field this version does not know, or a value of the wrong shape: left alone.
        _ => return Ok(()),
    }
    edit_quietly(graph, entity, &edit, at)
}

fn set_alias(
    graph: &Graph,
    entity: &str,
    alias: &str,
    present: bool,
    at: DateTime<Utc>,
) -> Result<()> {
    let mut edit = EntityEdit::default();
    if present {
        edit.add_aliases.push(alias.to_owned());
    } else {
        edit.remove_aliases.push(alias.to_owned());
    }
    edit_quietly(graph, entity, &edit, at)
}

/// Edits an entity; a name that names another entity here is left out and said, not fatal:
/// the person merges the two.
fn edit_quietly(graph: &Graph, entity: &str, edit: &EntityEdit, at: DateTime<Utc>) -> Result<()> {
    match graph.edit_entity(entity, edit, at) {
        Ok(_) => Ok(()),
        Err(Error::InvalidEntry(why)) => {
            tracing::warn!(entity, %why, "sync: an entity edit left out");
            Ok(())
        }
        Err(e) => Err(e),
    }
}
