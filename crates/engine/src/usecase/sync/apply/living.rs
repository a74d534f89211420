//! What another device's change to the living-memory facts does here: facts by key, each text
//! under last-writer-wins, a removal that no later edit undoes, and one order for all of them
//! (the last one the person set), with facts it does not name after it by when they were made.

use crate::base::error::{Error, Result};
use crate::graph::Graph;
use crate::graph::sync::{GraphChange, GraphEvent, LIVING_ORDER, LIVING_SUBJECT, Write};

/// Applies a fact change (`FactKnown`, `FactSet`, `FactRemoved` or `FactOrder`).
pub(super) fn apply(graph: &Graph, ev: &GraphEvent) -> Result<()> {
    match &ev.change {
        GraphChange::FactKnown {
            fact,
            text,
            created_at,
        } => {
            let write = graph.sync_write(ev, fact, "text", None)?;
            if graph.has_clock(fact, "removed")? {
                return Ok(());
            }
            if graph.living_fact_by_key(fact)?.is_none() || write == Write::Apply {
                write_fact(graph, fact, text, created_at, ev)?;
            }
        }
        GraphChange::FactSet { fact, text } => {
            let here = graph.living_fact_by_key(fact)?;
            let in_force = here.as_ref().map(|f| f.text.clone()).unwrap_or_default();
            let write = graph.sync_write(ev, fact, "text", Some((text, &in_force)))?;
            if let (Write::Apply, Some(f)) = (write, here) {
                write_fact(graph, fact, text, &f.created_at, ev)?;
            }
        }
        GraphChange::FactRemoved { fact } => {
            graph.sync_write(ev, fact, "removed", None)?;
            graph.remove_living_fact_by_key(fact)?;
        }
        GraphChange::FactOrder { order } => {
            if graph.sync_write(ev, LIVING_SUBJECT, "order", None)? == Write::Apply {
                let json = serde_json::to_string(order)
                    .map_err(|e| Error::InvalidInput(format!("facts' order: {e}")))?;
                graph.set_sync_state(LIVING_ORDER, Some(&json))?;
            }
        }
        _ => return Ok(()),
    }
    graph.order_living_facts_as_set()
}

/// Writes a fact; a text this version refuses (too long) is left out and said.
fn write_fact(
    graph: &Graph,
    fact: &str,
    text: &str,
    created_at: &str,
    ev: &GraphEvent,
) -> Result<()> {
    match graph.sync_living_fact(fact, text, created_at, ev.at) {
        Err(Error::InvalidInput(why)) => {
            tracing::warn!(fact, %why, "sync: a living-memory fact left out");
            Ok(())
        }
        other => other,
    }
}
