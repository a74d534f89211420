//! What another device's change to a durable node does here. A node's `text`, `lifecycle` and
//! `warrant` are each under last-writer-wins, so a retire beats an edit made before it and an
//! edit made after a retire brings the node back, on every device alike. A supersession's
//! successor is a node of its own: it is made on every device.

use std::collections::BTreeMap;
use std::str::FromStr;

use crate::base::error::Result;
use crate::graph::Graph;
use crate::graph::nodes::{Lifecycle, Node, SyncedNodeFields, Warrant};
use crate::graph::sync::{GraphEvent, Write};

/// Fields of a node set on another device.
pub(super) fn set(
    graph: &Graph,
    ev: &GraphEvent,
    node: &str,
    set: &BTreeMap<String, serde_json::Value>,
    reason: Option<&str>,
) -> Result<()> {
    let here = graph.node(node).ok().map(|d| d.node);
    let mut fields = SyncedNodeFields::default();
    for (field, value) in set {
        let incoming = super::text_of(value);
        let in_force = value_of(here.as_ref(), field);
        if graph.sync_write(ev, node, field, Some((&incoming, &in_force)))? != Write::Apply {
            continue;
        }
        match field.as_str() {
            "text" => fields.text = Some(incoming),
            "lifecycle" => fields.lifecycle = Lifecycle::from_str(&incoming).ok(),
            "warrant" => fields.warrant = Warrant::from_str(&incoming).ok(),
            // A field this version does not know: left alone.
            _ => {}
        }
    }
    if here.is_none() || fields == SyncedNodeFields::default() {
        return Ok(());
    }
    let action = match (&fields.text, fields.lifecycle) {
        (Some(_), _) => "edited",
        (None, Some(l)) => l.as_str(),
        (None, None) => "warrant",
    };
    let note = match reason {
        Some(r) => format!("on {}: {r}", ev.device),
        None => format!("on {}", ev.device),
    };
    graph.sync_node(node, &fields, action, &note, ev.at)?;
    Ok(())
}

/// A node replaced on another device: the same successor is made here, whatever became of the
/// old node meanwhile (a retire or another supersession racing it), so every device holds it;
/// the old node is superseded only when that is the later change to its lifecycle.
pub(super) fn supersede(
    graph: &Graph,
    ev: &GraphEvent,
    node: &str,
    successor: &str,
    text: &str,
) -> Result<()> {
    let write = graph.sync_write(ev, node, "lifecycle", None)?;
    if graph.node(successor).is_ok() {
        return Ok(());
    }
    graph.sync_supersede(node, successor, text, write == Write::Apply, ev.at)?;
    Ok(())
}

fn value_of(node: Option<&Node>, field: &str) -> String {
    let Some(n) = node else {
        return String::new();
    };
    match field {
        "text" => n.text.clone(),
        "lifecycle" => n.lifecycle.as_str().to_owned(),
        "warrant" => n.warrant.as_str().to_owned(),
        _ => String::new(),
    }
}
