//! The person's living-memory facts (Tier 3), changed from Settings or `elnor brief facts`:
//! each change is written, then recorded for the person's other devices (sync, issue 40).

use chrono::{DateTime, Utc};

use crate::base::error::{Error, Result};
use crate::graph::living::LivingFact;
use crate::graph::store::Store;
use crate::graph::sync::{GraphChange, LIVING_ORDER};

/// Adds a fact at the end of Tier 3's order.
pub fn add_living_fact(store: &Store, text: &str, now: DateTime<Utc>) -> Result<LivingFact> {
    let graph = store.graph();
    let added = graph.add_living_fact(text, now)?;
    // Placed as every device will place it once it arrives there.
    graph.order_living_facts_as_set()?;
    let fact = graph.living_fact_by_key(&added.fact_key)?.unwrap_or(added);
    graph.record_change(
        GraphChange::FactKnown {
            fact: fact.fact_key.clone(),
            text: fact.text.clone(),
            created_at: fact.created_at.clone(),
        },
        now,
    )?;
    Ok(fact)
}

/// Changes a fact's text and, when given, its place in Tier 3's order (1 = first).
pub fn edit_living_fact(
    store: &Store,
    id: i64,
    text: Option<&str>,
    position: Option<i64>,
    now: DateTime<Utc>,
) -> Result<LivingFact> {
    let graph = store.graph();
    let fact = graph.edit_living_fact(id, text, position, now)?;
    if text.is_some() {
        graph.record_change(
            GraphChange::FactSet {
                fact: fact.fact_key.clone(),
                text: fact.text.clone(),
            },
            now,
        )?;
    }
    if position.is_some() {
        // The whole order travels: the person set it, and a device that has facts this one
        // has not yet seen puts them after it.
        let order: Vec<String> = graph
            .living_facts()?
            .into_iter()
            .map(|f| f.fact_key)
            .collect();
        let json = serde_json::to_string(&order)
            .map_err(|e| Error::InvalidInput(format!("facts' order: {e}")))?;
        graph.set_sync_state(LIVING_ORDER, Some(&json))?;
        graph.record_change(GraphChange::FactOrder { order }, now)?;
    }
    Ok(fact)
}

/// Removes a fact.
pub fn remove_living_fact(store: &Store, id: i64, now: DateTime<Utc>) -> Result<()> {
    let graph = store.graph();
    let key = graph
        .living_facts()?
        .into_iter()
        .find(|f| f.fact_id == id)
        .map(|f| f.fact_key);
    graph.remove_living_fact(id)?;
    graph.order_living_facts_as_set()?;
    if let Some(fact) = key {
        graph.record_change(GraphChange::FactRemoved { fact }, now)?;
    }
    Ok(())
}
