//! What another device's graph change does here. Each field is written only when the change is
//! the newest write of it (`Graph::sync_write`), so the order changes arrive in never matters;
//! a change to a context this store no longer has (merged away) follows the merge. Entities,
//! Topics and durable nodes have their own modules.

mod entities;
mod living;
mod nodes;
mod topics;

use std::collections::BTreeSet;

use crate::base::error::Result;
use crate::base::ids::WorkContextId;
use crate::graph::contexts::{LinkRuleKind, WorkContext, WorkContextEdit};
use crate::graph::store::Store;
use crate::graph::sync::{GraphChange, GraphEvent, Write};
use crate::review::promotion::{Evidence, Proposal, ProposalStatus, Rule};

/// A field's value in force here, as text, for a conflict's record.
fn value_of(context: Option<&WorkContext>, field: &str) -> String {
    let Some(c) = context else {
        return String::new();
    };
    match field {
        "name" => c.name.clone(),
        "domain_lineage" => c.domain_lineage.clone().unwrap_or_default(),
        "local_only" => c.local_only.to_string(),
        "origin" => c.origin.as_str().to_owned(),
        _ => String::new(),
    }
}

fn text_of(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Sets one field of a context from a change's value.
fn set_field(
    store: &Store,
    context: &str,
    field: &str,
    value: &serde_json::Value,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<()> {
    let mut edit = WorkContextEdit::default();
    match (field, value) {
        ("name", serde_json::Value::String(n)) => edit.name = Some(n.clone()),
        ("domain_lineage", serde_json::Value::String(l)) => {
            edit.domain_lineage = Some(Some(l.clone()))
        }
        ("domain_lineage", serde_json::Value::Null) => edit.domain_lineage = Some(None),
        ("local_only", serde_json::Value::Bool(b)) => edit.local_only = Some(*b),
        // A field this version does not know, or a value of the wrong shape: left alone.
        _ => return Ok(()),
    }
    store.graph().edit_work_context(context, &edit, at)?;
    Ok(())
}

/// Applies one arrived change.
pub(super) fn apply(
    store: &Store,
    ev: &GraphEvent,
    touched: &mut BTreeSet<WorkContextId>,
) -> Result<()> {
    let graph = store.graph();
    match &ev.change {
        GraphChange::ContextKnown {
            context,
            name,
            origin,
            domain_lineage,
            local_only,
        } => {
            let here = graph.work_context(context).ok();
            let merged_away = here.is_none() && graph.merged_into(context)? != *context;
            if merged_away {
                return Ok(());
            }
            if here.is_none() {
                graph.insert_synced_work_context(
                    context,
                    name,
                    origin,
                    domain_lineage.as_deref(),
                    *local_only,
                    ev.at,
                )?;
            }
            let values = [
                ("name", serde_json::Value::from(name.clone())),
                (
                    "domain_lineage",
                    domain_lineage
                        .clone()
                        .map_or(serde_json::Value::Null, serde_json::Value::from),
                ),
                ("local_only", serde_json::Value::from(*local_only)),
                ("origin", serde_json::Value::from(origin.clone())),
            ];
            for (field, value) in values {
                let applies = graph.sync_write(ev, context, field, None)? == Write::Apply;
                if applies && here.is_some() && field != "origin" {
                    set_field(store, context, field, &value, ev.at)?;
                }
            }
            touched.insert(WorkContextId::new(context)?);
        }
        GraphChange::ContextSet { context, set } => {
            let here = graph.work_context(context).ok();
            for (field, value) in set {
                let incoming = text_of(value);
                let in_force = value_of(here.as_ref(), field);
                let write = graph.sync_write(ev, context, field, Some((&incoming, &in_force)))?;
                if write == Write::Apply && here.is_some() {
                    set_field(store, context, field, value, ev.at)?;
                }
            }
            if here.is_some() {
                touched.insert(WorkContextId::new(context)?);
            }
        }
        GraphChange::RuleSet {
            context,
            rule_kind,
            pattern,
            present,
        } => {
            let field = format!("rule {rule_kind} {pattern}");
            let write = graph.sync_write(ev, context, &field, None)?;
            let target = graph.merged_into(context)?;
            if let (Write::Apply, Some(kind), Ok(_)) = (
                write,
                LinkRuleKind::parse(rule_kind),
                graph.work_context(&target),
            ) {
                graph.set_link_rule_present(&target, kind, pattern, *present)?;
                touched.insert(WorkContextId::new(&target)?);
            }
        }
        GraphChange::ReviewDecided {
            entry_id,
            rule,
            work_context,
            text,
            evidence,
            decision,
            final_text,
            note,
        } => {
            let Some(rule) = Rule::from_name(rule) else {
                return Ok(());
            };
            let local = graph.proposal_for_entry(entry_id, rule.as_str())?;
            let in_force = local
                .as_ref()
                .map(|p| p.status.as_str().to_owned())
                .unwrap_or_default();
            let subject = crate::graph::sync::review_subject(entry_id, rule.as_str());
            let write = graph.sync_write(ev, &subject, "decision", Some((decision, &in_force)))?;
            let target = graph.merged_into(work_context)?;
            let proposal = match local {
                Some(p) => p,
                None => {
                    let Ok(evidence) = serde_json::from_value::<Evidence>(evidence.clone()) else {
                        return Ok(());
                    };
                    graph.insert_synced_proposal(rule, &target, entry_id, text, &evidence, ev.at)?
                }
            };
            let node = node_id_for(entry_id, rule);
            if write == Write::Stale {
                // The earlier decision stays in the node's history, under the later one.
                graph.add_node_history(
                    &node,
                    &format!("{decision} on {}", ev.device),
                    &format!("overridden by a later decision ({})", proposal.status),
                    ev.at,
                )?;
                return Ok(());
            }
            decide_here(
                store,
                &proposal,
                ev,
                decision,
                final_text.as_deref(),
                note.as_deref(),
                &node,
            )?;
            if let Ok(id) = WorkContextId::new(&target) {
                touched.insert(id);
            }
        }
        GraphChange::EntityKnown {
            entity,
            name,
            entity_kind,
            aliases,
            deadline,
        } => {
            let new = crate::graph::entities::NewEntity {
                kind: entity_kind.clone(),
                canonical_name: name.clone(),
                aliases: aliases.clone(),
                deadline: deadline.clone(),
            };
            quietly(graph, &[entity], |g| entities::known(g, ev, &new, entity))?;
        }
        GraphChange::EntitySet { entity, set } => {
            quietly(graph, &[entity], |g| entities::set(g, ev, entity, set))?;
        }
        GraphChange::EntityAlias {
            entity,
            alias,
            present,
        } => quietly(graph, &[entity], |g| {
            entities::alias(g, ev, entity, alias, *present)
        })?,
        GraphChange::EntityLinked { entity, context } => {
            if let Some(wc) = entities::link(graph, ev, entity, context)? {
                touched.insert(wc);
            }
        }
        GraphChange::EntityMerge { keep, absorb } => {
            quietly(graph, &[keep, absorb], |g| {
                entities::merge(g, ev, keep, absorb)
            })?;
        }
        GraphChange::TopicKnown { .. }
        | GraphChange::TopicSet { .. }
        | GraphChange::TopicDeleted { .. }
        | GraphChange::TopicPin { .. } => topics::apply(graph, ev)?,
        GraphChange::NodeSet { node, set, reason } => {
            nodes::set(graph, ev, node, set, reason.as_deref())?;
            touch_node_context(graph, node, touched);
        }
        GraphChange::NodeSuperseded {
            node,
            successor,
            text,
        } => {
            nodes::supersede(graph, ev, node, successor, text)?;
            touch_node_context(graph, node, touched);
        }
        GraphChange::SettingSet { key, value } => setting(store, ev, key, value)?,
        GraphChange::FactKnown { .. }
        | GraphChange::FactSet { .. }
        | GraphChange::FactRemoved { .. }
        | GraphChange::FactOrder { .. } => living::apply(graph, ev)?,
        GraphChange::ContextMerge { keep, absorb } => {
            graph.sync_write(ev, absorb, "merged_into", None)?;
            let keep = graph.merged_into(keep)?;
            if keep != *absorb
                && graph.work_context(&keep).is_ok()
                && graph.work_context(absorb).is_ok()
            {
                store.merge_work_contexts(&keep, absorb, ev.at)?;
                let absorbed = WorkContextId::new(absorb)?;
                crate::views::constellation::remove_view(store, &absorbed)?;
                touched.remove(&absorbed);
                touched.insert(WorkContextId::new(&keep)?);
            }
        }
    }
    Ok(())
}

/// A setting another device's person set: written here when it is the newest write and the
/// setting travels in this version; a value this version refuses is left out and said.
fn setting(store: &Store, ev: &GraphEvent, key: &str, value: &serde_json::Value) -> Result<()> {
    let graph = store.graph();
    let Some(field) = crate::base::config::field(key).filter(|f| f.travels()) else {
        return Ok(());
    };
    let incoming = text_of(value);
    let in_force = store
        .config()
        .ok()
        .and_then(|c| c.get(key).ok())
        .map(|v| text_of(&v))
        .unwrap_or_default();
    let subject = crate::graph::sync::SETTINGS_SUBJECT;
    let write = graph.sync_write(ev, subject, key, Some((&incoming, &in_force)))?;
    if write == Write::Apply && incoming != in_force {
        let raw = if value.is_null() {
            "null".to_owned()
        } else {
            incoming
        };
        if let Err(e) = store.set_config(field.key, &raw) {
            tracing::warn!(key, error = %e, "sync: a setting from another device left out");
        }
    }
    Ok(())
}

/// Runs an entity change without delivering it as news: the device that made the change
/// delivered it to the contexts that share the entity, and those entries travel too.
fn quietly(
    graph: &crate::graph::Graph,
    entities: &[&String],
    f: impl FnOnce(&crate::graph::Graph) -> Result<()>,
) -> Result<()> {
    let before = graph.last_graph_event_row()?;
    f(graph)?;
    // Only this change's news: a capture running beside the sync writes its own, to deliver.
    let ids: Vec<&str> = entities.iter().map(|e| e.as_str()).collect();
    graph.consume_graph_events_after(before, &ids, crate::base::clock::now())
}

/// A node's work context's view shows the node: it is rebuilt.
fn touch_node_context(
    graph: &crate::graph::Graph,
    node: &str,
    touched: &mut BTreeSet<WorkContextId>,
) {
    if let Some(wc) = graph.node(node).ok().and_then(|d| d.node.work_context_id) {
        touched.insert(wc);
    }
}

/// The node an approval of this entry writes: its id is derived from the entry (see
/// `Graph::approve_proposal`), so it is the same on every device.
pub(super) fn node_id_for(entry_id: &str, rule: Rule) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(entry_id.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    match rule {
        Rule::UnresolvedQuestion => format!("ob_{hex}"),
        Rule::ReferencedDecision => format!("md_{hex}"),
    }
}

/// Puts another device's later decision in force here, whatever this device had decided.
fn decide_here(
    store: &Store,
    proposal: &Proposal,
    ev: &GraphEvent,
    decision: &str,
    final_text: Option<&str>,
    note: Option<&str>,
    node: &str,
) -> Result<()> {
    let graph = store.graph();
    let id = proposal.proposal_id;
    let current = proposal.status.as_str();
    if current == decision {
        return Ok(());
    }
    let device_note = format!("{decision} on {}", ev.device);
    match (current, decision) {
        // This device approved; the later decision takes the node out of force.
        ("approved", "rejected" | "deferred") => {
            graph.retire_node(node, Some(&device_note), ev.at)?;
            let status = if decision == "rejected" {
                ProposalStatus::Rejected
            } else {
                ProposalStatus::Deferred
            };
            graph.set_proposal_status(id, status, note, ev.at)?;
        }
        (_, "approved") => {
            if !proposal.status.is_open() {
                graph.add_node_history(node, current, "overridden by a later approval", ev.at)?;
                graph.reopen_proposal(id)?;
            }
            graph.approve_proposal(id, final_text, ev.at)?;
        }
        (_, "rejected") => {
            if !proposal.status.is_open() {
                graph.reopen_proposal(id)?;
            }
            graph.reject_proposal(id, note, ev.at)?;
        }
        (_, "deferred") => {
            if !proposal.status.is_open() {
                graph.reopen_proposal(id)?;
            }
            graph.defer_proposal(id, ev.at)?;
        }
        _ => {}
    }
    Ok(())
}
