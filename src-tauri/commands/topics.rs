//! Topics (concept model §7): `topics_list`, `topic_get` (the lens now), `topic_create`,
//! `topic_edit`, `topic_delete`, `topic_member_pin` and `topic_member_unpin`. One engine call
//! each; this converts their types. The membership proposals a Topic's collection directive
//! makes are decided in the review queue (`review.rs`); the row conversion they share is here.

use chrono::{DateTime, Local, Utc};
use elnor_engine::{DocKind, EntityId, TopicId, WorkContextId};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, MemberSource, MemberStatus, MembershipRow, TopicChanged, TopicDetail,
    TopicListRow, TopicMemberRow, TopicRow, TopicRulesRow,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::search::{engine_kind, hit, wire_kind};
use crate::scheduler::count;
use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).to_rfc3339()
}

fn topic_id(id: &str) -> Result<TopicId, CommandError> {
    TopicId::new(id.trim()).map_err(err)
}

// Both enum conversions are exhaustive matches: a source or a status the engine adds fails the
// build here, where the engine meets the wire.
fn wire_source(s: elnor_engine::MemberSource) -> MemberSource {
    match s {
        elnor_engine::MemberSource::Pinned => MemberSource::Pinned,
        elnor_engine::MemberSource::Approved => MemberSource::Approved,
        elnor_engine::MemberSource::Rule => MemberSource::Rule,
    }
}

fn wire_status(s: elnor_engine::MemberStatus) -> MemberStatus {
    match s {
        elnor_engine::MemberStatus::Pinned => MemberStatus::Pinned,
        elnor_engine::MemberStatus::Pending => MemberStatus::Pending,
        elnor_engine::MemberStatus::Approved => MemberStatus::Approved,
        elnor_engine::MemberStatus::Rejected => MemberStatus::Rejected,
    }
}

fn wire_rules(r: elnor_engine::TopicRules) -> TopicRulesRow {
    TopicRulesRow {
        query: r.query,
        entities: r.entities.into_iter().map(|e| e.to_string()).collect(),
        work_context_id: r.work_context.map(|w| w.to_string()),
        // The engine stores kinds by name; a name it no longer knows matches nothing there, so
        // leaving it out here shows the rules as they act.
        kinds: r
            .kinds
            .iter()
            .filter_map(|k| DocKind::parse(k))
            .map(wire_kind)
            .collect(),
        hours: r.hours,
    }
}

fn engine_rules(r: TopicRulesRow) -> Result<elnor_engine::TopicRules, CommandError> {
    Ok(elnor_engine::TopicRules {
        query: r.query.trim().to_owned(),
        entities: r
            .entities
            .into_iter()
            .map(EntityId::new)
            .collect::<Result<_, _>>()
            .map_err(err)?,
        work_context: r
            .work_context_id
            .filter(|w| !w.trim().is_empty())
            .map(WorkContextId::new)
            .transpose()
            .map_err(err)?,
        kinds: r
            .kinds
            .into_iter()
            .map(|k| engine_kind(k).as_str().to_owned())
            .collect(),
        hours: r.hours,
    })
}

fn topic(t: elnor_engine::Topic) -> TopicRow {
    TopicRow {
        topic_id: t.topic_id.to_string(),
        name: t.name,
        description: t.description,
        rules: wire_rules(t.rules),
        collecting: t.collecting,
        collect_since: t.collect_since.map(local),
        created_at: local(t.created_at),
        updated_at: local(t.updated_at),
    }
}

/// A stored membership as the wire carries it (the Topics page's pin and the review queue).
pub(crate) fn membership(m: elnor_engine::Membership) -> MembershipRow {
    MembershipRow {
        membership_id: m.membership_id,
        topic_id: m.topic_id.to_string(),
        doc_ref: m.doc_ref,
        kind: m.kind,
        label: m.label,
        status: wire_status(m.status),
        reason: m.reason,
        at: m.at.map(local),
        proposed_at: local(m.proposed_at),
        decided_at: m.decided_at.map(local),
    }
}

/// A Topic after a change, with what its directive proposed for it: a run of the directives
/// runs every Topic's, so the report is narrowed to this one.
fn changed(c: elnor_engine::TopicChange) -> TopicChanged {
    let id = c.topic.topic_id.clone();
    TopicChanged {
        proposed: count(
            c.collected
                .proposed
                .iter()
                .filter(|m| m.topic_id == id)
                .count(),
        ),
        too_broad: c
            .collected
            .too_broad
            .iter()
            .find(|(t, _)| *t == id)
            .map(|(_, n)| count(*n)),
        topic: topic(c.topic),
    }
}

#[tauri::command]
pub async fn topics_list(state: State<'_, AppState>) -> ReplyOf<cmd::TopicsList> {
    let store = state.store()?;
    blocking(move || {
        let rows = elnor_engine::topics(&store).map_err(err)?;
        Ok(rows
            .into_iter()
            .map(|r| TopicListRow {
                topic: topic(r.topic),
                pinned: count(r.pinned),
                approved: count(r.approved),
                pending: count(r.pending),
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn topic_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicGet>,
) -> ReplyOf<cmd::TopicGet> {
    let store = state.store()?;
    blocking(move || {
        let id = topic_id(&request.topic_id)?;
        let v = elnor_engine::topic_view(&store, &id, elnor_engine::now()).map_err(err)?;
        Ok(TopicDetail {
            topic: topic(v.topic),
            members: v
                .members
                .into_iter()
                .map(|m| TopicMemberRow {
                    source: wire_source(m.source),
                    membership_id: m.membership_id,
                    doc_id: m.doc_id,
                    hit: m.hit.map(hit),
                    label: m.label,
                    why: m.why,
                })
                .collect(),
            pending: count(v.pending),
        })
    })
    .await
}

#[tauri::command]
pub async fn topic_create(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicCreate>,
) -> ReplyOf<cmd::TopicCreate> {
    let store = state.store()?;
    blocking(move || {
        let new = elnor_engine::NewTopic {
            name: request.name.trim().to_owned(),
            description: request.description.trim().to_owned(),
            rules: engine_rules(request.rules)?,
            collecting: request.collecting,
        };
        let c = elnor_engine::create_topic(&store, &new, elnor_engine::now()).map_err(err)?;
        Ok(changed(c))
    })
    .await
}

#[tauri::command]
pub async fn topic_edit(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicEdit>,
) -> ReplyOf<cmd::TopicEdit> {
    let store = state.store()?;
    blocking(move || {
        let id = topic_id(&request.topic_id)?;
        let edit = elnor_engine::TopicEdit {
            name: request.name.map(|n| n.trim().to_owned()),
            description: request.description.map(|d| d.trim().to_owned()),
            rules: request.rules.map(engine_rules).transpose()?,
            collecting: request.collecting,
        };
        let c = elnor_engine::edit_topic(&store, &id, &edit, elnor_engine::now()).map_err(err)?;
        Ok(changed(c))
    })
    .await
}

#[tauri::command]
pub async fn topic_delete(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicDelete>,
) -> ReplyOf<cmd::TopicDelete> {
    let store = state.store()?;
    blocking(move || {
        let id = topic_id(&request.topic_id)?;
        elnor_engine::delete_topic(&store, &id).map_err(err)
    })
    .await
}

#[tauri::command]
pub async fn topic_member_pin(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicMemberPin>,
) -> ReplyOf<cmd::TopicMemberPin> {
    let store = state.store()?;
    blocking(move || {
        let id = topic_id(&request.topic_id)?;
        let m = elnor_engine::pin_topic_member(&store, &id, &request.doc_id, elnor_engine::now())
            .map_err(err)?;
        Ok(membership(m))
    })
    .await
}

#[tauri::command]
pub async fn topic_member_unpin(
    state: State<'_, AppState>,
    request: RequestOf<cmd::TopicMemberUnpin>,
) -> ReplyOf<cmd::TopicMemberUnpin> {
    let store = state.store()?;
    blocking(move || {
        let id = topic_id(&request.topic_id)?;
        elnor_engine::unpin_topic_member(&store, &id, &request.doc_id, elnor_engine::now())
            .map_err(err)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire's member sources and statuses carry the engine's stored words, so what the page
    /// shows and what `elnor topics` prints agree.
    #[test]
    fn names_agree_with_the_engine() {
        for s in [
            elnor_engine::MemberSource::Pinned,
            elnor_engine::MemberSource::Approved,
            elnor_engine::MemberSource::Rule,
        ] {
            assert_eq!(
                serde_json::to_value(wire_source(s)).unwrap(),
                serde_json::to_value(s).unwrap()
            );
        }
        for s in [
            elnor_engine::MemberStatus::Pinned,
            elnor_engine::MemberStatus::Pending,
            elnor_engine::MemberStatus::Approved,
            elnor_engine::MemberStatus::Rejected,
        ] {
            assert_eq!(wire_status(s).as_str(), s.as_str());
        }
        assert_eq!(MemberSource::ALL.len(), 3);
        assert_eq!(MemberStatus::ALL.len(), 4);
    }

    /// Rules go to the engine with their kinds by the engine's names and come back the same.
    #[test]
    fn rules_round_trip() {
        let wire = TopicRulesRow {
            query: " sync rows ".into(),
            entities: vec!["dana".into()],
            work_context_id: Some(String::new()),
            kinds: vec![
                elnor_types::SearchKind::Turn,
                elnor_types::SearchKind::Document,
            ],
            hours: 48,
        };
        let engine = engine_rules(wire).unwrap();
        assert_eq!(engine.query, "sync rows");
        assert_eq!(engine.kinds, ["turn", "document"]);
        assert_eq!(engine.work_context, None, "an empty choice is no filter");
        let back = wire_rules(engine);
        assert_eq!(
            back.kinds,
            [
                elnor_types::SearchKind::Turn,
                elnor_types::SearchKind::Document
            ]
        );
        assert_eq!(back.entities, ["dana"]);
        assert_eq!(back.hours, 48);
    }
}
