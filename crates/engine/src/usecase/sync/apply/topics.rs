//! What another device's change to a Topic does here: made under its id, fields under
//! last-writer-wins, a delete that no later edit undoes, pins by document.

use std::collections::BTreeMap;

use crate::base::error::{Error, Result};
use crate::base::ids::TopicId;
use crate::graph::Graph;
use crate::graph::sync::{GraphChange, GraphEvent, TOPIC_FIELDS, Write};
use crate::graph::topics::{NewMember, Topic, TopicRules};

/// Applies a Topic change (`TopicKnown`, `TopicSet`, `TopicDeleted` or `TopicPin`).
pub(super) fn apply(graph: &Graph, ev: &GraphEvent) -> Result<()> {
    match &ev.change {
        GraphChange::TopicKnown {
            topic,
            name,
            description,
            rules,
            collecting,
        } => {
            let id = TopicId::new(topic)?;
            if graph.has_clock(topic, "deleted")? {
                return Ok(());
            }
            let here = graph.topic(&id).ok();
            if here.is_none() {
                let Ok(parsed) = serde_json::from_value::<TopicRules>(rules.clone()) else {
                    tracing::warn!(topic, "sync: a Topic's rules unreadable; not made");
                    return Ok(());
                };
                graph.insert_synced_topic(&id, name, description, &parsed, *collecting, ev.at)?;
            }
            let values = [
                serde_json::Value::from(name.clone()),
                serde_json::Value::from(description.clone()),
                rules.clone(),
                serde_json::Value::from(*collecting),
            ];
            let mut fields = BTreeMap::new();
            for (field, value) in TOPIC_FIELDS.iter().zip(values) {
                if graph.sync_write(ev, topic, field, None)? == Write::Apply && here.is_some() {
                    fields.insert((*field).to_owned(), value);
                }
            }
            set_fields(graph, &id, &fields, ev)
        }
        GraphChange::TopicSet { topic, set } => {
            let id = TopicId::new(topic)?;
            let here = graph.topic(&id).ok();
            let mut fields = BTreeMap::new();
            for (field, value) in set {
                let incoming = super::text_of(value);
                let in_force = value_of(here.as_ref(), field);
                let write = graph.sync_write(ev, topic, field, Some((&incoming, &in_force)))?;
                if write == Write::Apply && here.is_some() {
                    fields.insert(field.clone(), value.clone());
                }
            }
            set_fields(graph, &id, &fields, ev)
        }
        GraphChange::TopicDeleted { topic } => {
            graph.sync_write(ev, topic, "deleted", None)?;
            let id = TopicId::new(topic)?;
            if graph.topic(&id).is_ok() {
                graph.delete_topic(&id)?;
            }
            Ok(())
        }
        GraphChange::TopicPin {
            topic,
            doc_ref,
            doc_kind,
            label,
            doc_at,
            present,
        } => {
            let id = TopicId::new(topic)?;
            let write = graph.sync_write(ev, topic, &format!("pin {doc_ref}"), None)?;
            if write == Write::Apply && graph.topic(&id).is_ok() {
                let member = NewMember {
                    doc_ref: doc_ref.clone(),
                    kind: doc_kind.clone(),
                    label: label.clone(),
                    reason: None,
                    at: *doc_at,
                };
                graph.set_member_pinned(&id, &member, *present, ev.at)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn value_of(topic: Option<&Topic>, field: &str) -> String {
    let Some(t) = topic else {
        return String::new();
    };
    match field {
        "name" => t.name.clone(),
        "description" => t.description.clone(),
        "rules" => serde_json::to_string(&t.rules).unwrap_or_default(),
        "collecting" => t.collecting.to_string(),
        _ => String::new(),
    }
}

/// Writes the fields whose write is in force; a value that does not check (rules this version
/// cannot read) is left out and said.
fn set_fields(
    graph: &Graph,
    id: &TopicId,
    fields: &BTreeMap<String, serde_json::Value>,
    ev: &GraphEvent,
) -> Result<()> {
    if fields.is_empty() {
        return Ok(());
    }
    // A name another Topic here has stands too: the two are told apart when read.
    let name = fields.get("name").and_then(|v| v.as_str());
    let description = fields.get("description").and_then(|v| v.as_str());
    let rules = fields
        .get("rules")
        .and_then(|v| serde_json::from_value::<TopicRules>(v.clone()).ok());
    let collecting = fields
        .get("collecting")
        .and_then(serde_json::Value::as_bool);
    match graph.write_topic(id, name, description, rules.as_ref(), collecting, ev.at) {
        Ok(_) => Ok(()),
        Err(Error::InvalidInput(why)) => {
            tracing::warn!(topic = %id, %why, "sync: a Topic edit left out");
            Ok(())
        }
        Err(e) => Err(e),
    }
}
