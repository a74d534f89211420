//! The changes the person makes to entities, Topics and durable nodes, as events that travel to
//! their other devices. The use cases that make a change record it here, after it was written.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::graph::entities::{Entity, EntityEdit};
use crate::graph::nodes::{Change, Lifecycle, Node, Warrant};
use crate::graph::sync::GraphChange;
use crate::graph::topics::Topic;
use crate::usecase::TopicEdit;

/// An entity as made (by hand, or by a capture).
pub(crate) fn entity_made(e: &Entity) -> GraphChange {
    GraphChange::EntityKnown {
        entity: e.entity_id.to_string(),
        name: e.canonical_name.clone(),
        entity_kind: e.kind.clone(),
        aliases: e.aliases.clone(),
        deadline: e.deadline.clone(),
    }
}

/// The fields an edit set (with their values as they now stand) and the aliases it added or
/// removed.
pub(crate) fn entity_edited(edit: &EntityEdit, e: &Entity) -> Vec<GraphChange> {
    let mut set = BTreeMap::new();
    if edit.canonical_name.is_some() {
        set.insert(
            "canonical_name".to_owned(),
            Value::from(e.canonical_name.clone()),
        );
    }
    if edit.kind.is_some() {
        set.insert("kind".to_owned(), Value::from(e.kind.clone()));
    }
    if edit.deadline.is_some() {
        set.insert(
            "deadline".to_owned(),
            e.deadline.clone().map_or(Value::Null, Value::from),
        );
    }
    let entity = e.entity_id.to_string();
    let mut out = Vec::new();
    if !set.is_empty() {
        out.push(GraphChange::EntitySet {
            entity: entity.clone(),
            set,
        });
    }
    let aliases = (edit.add_aliases.iter().map(|a| (a, true)))
        .chain(edit.remove_aliases.iter().map(|a| (a, false)));
    for (alias, present) in aliases {
        out.push(GraphChange::EntityAlias {
            entity: entity.clone(),
            alias: alias.trim().to_owned(),
            present,
        });
    }
    out
}

/// A Topic, as made.
pub(crate) fn topic_made(t: &Topic) -> GraphChange {
    GraphChange::TopicKnown {
        topic: t.topic_id.to_string(),
        name: t.name.clone(),
        description: t.description.clone(),
        rules: serde_json::to_value(&t.rules).unwrap_or(Value::Null),
        collecting: t.collecting,
    }
}

/// The fields a Topic edit set, with their values as they now stand; `None` when it set none.
pub(crate) fn topic_edited(edit: &TopicEdit, t: &Topic) -> Option<GraphChange> {
    let mut set = BTreeMap::new();
    if edit.name.is_some() {
        set.insert("name".to_owned(), Value::from(t.name.clone()));
    }
    if edit.description.is_some() {
        set.insert("description".to_owned(), Value::from(t.description.clone()));
    }
    if edit.rules.is_some() {
        set.insert(
            "rules".to_owned(),
            serde_json::to_value(&t.rules).unwrap_or(Value::Null),
        );
    }
    if edit.collecting.is_some() {
        set.insert("collecting".to_owned(), Value::from(t.collecting));
    }
    (!set.is_empty()).then(|| GraphChange::TopicSet {
        topic: t.topic_id.to_string(),
        set,
    })
}

/// A person's change of a durable node. `node` is the changed node (the successor, for a
/// supersession); `id` the node the change was made to.
pub(crate) fn node_changed(id: &str, change: &Change, node: &Node) -> GraphChange {
    let fields: Vec<(&str, Value)> = match change {
        Change::Supersede(text) => {
            return GraphChange::NodeSuperseded {
                node: id.to_owned(),
                successor: node.node_id.to_string(),
                text: text.clone(),
            };
        }
        Change::Edit(_) => vec![
            ("text", Value::from(node.text.clone())),
            ("lifecycle", Value::from(Lifecycle::Active.as_str())),
            ("warrant", Value::from(Warrant::Assert.as_str())),
        ],
        Change::Confirm => vec![
            ("lifecycle", Value::from(Lifecycle::Confirmed.as_str())),
            ("warrant", Value::from(Warrant::Assert.as_str())),
        ],
        Change::Warrant(w, _) => vec![("warrant", Value::from(w.as_str()))],
        Change::Retire(_) => vec![
            ("lifecycle", Value::from(Lifecycle::Retired.as_str())),
            ("warrant", Value::from(Warrant::DoNotInject.as_str())),
        ],
    };
    let reason = match change {
        Change::Warrant(_, r) | Change::Retire(r) => r.clone(),
        _ => None,
    };
    GraphChange::NodeSet {
        node: id.to_owned(),
        set: fields.into_iter().map(|(f, v)| (f.to_owned(), v)).collect(),
        reason,
    }
}
