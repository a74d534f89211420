//! Durable knowledge (concept model §4.2–4.5): the obligations and memory directives that
//! approved proposals wrote. `knowledge_list` (live nodes, or all of them), `knowledge_get` (a
//! node with its provenance, each source looked up in the store, and its history), and one command
//! per change the person makes: `knowledge_edit`, `_confirm`, `_set_warrant`, `_retire` and
//! `_supersede`.
//!
//! Every change goes through the engine's one entry point, `elnor_engine::change_node`, which writes the
//! history and rebuilds the views that show the node, so the very next brief reflects it. Each
//! change replies with the node's detail (for a supersession, the new node's), so the page shows
//! the new history without asking again. A change the engine refuses (a retired node, an empty
//! text) comes back as its message.
//!
//! One command per change, rather than one command with a typed change, so that each has its own
//! `allow-*` permission: a window could be granted confirming without retiring.

use std::collections::BTreeMap;

use elnor_engine::{Change, Lifecycle, Node, NodeKind, Staleness, Warrant};
use elnor_engine::{Store, WorkContextId};
use elnor_types::commands as cmd;
use elnor_types::{
    CommandError, KnowledgeList, NodeDetail, NodeHistoryRow, NodeKind as WireKind, NodeLifecycle,
    NodeRow, NodeSourceRow, NodeStaleness, NodeWarrant,
};
use elnor_types::{ReplyOf, RequestOf};
use tauri::State;

use super::contexts::{entry_row, non_empty};
use super::review::{Names, evidence_session, names};
use crate::scheduler::count;
use crate::state::{AppState, blocking, to_command_error};

fn err(e: elnor_engine::Error) -> CommandError {
    to_command_error(&e)
}

// Exhaustive matches in both directions: a state the engine adds fails the build here instead of
// reaching the UI as something it cannot show.

fn kind(k: NodeKind) -> WireKind {
    match k {
        NodeKind::Obligation => WireKind::Obligation,
        NodeKind::MemoryDirective => WireKind::MemoryDirective,
    }
}

fn lifecycle(l: Lifecycle) -> NodeLifecycle {
    match l {
        Lifecycle::Candidate => NodeLifecycle::Candidate,
        Lifecycle::Provisional => NodeLifecycle::Provisional,
        Lifecycle::Active => NodeLifecycle::Active,
        Lifecycle::Confirmed => NodeLifecycle::Confirmed,
        Lifecycle::Contested => NodeLifecycle::Contested,
        Lifecycle::Superseded => NodeLifecycle::Superseded,
        Lifecycle::Retired => NodeLifecycle::Retired,
        Lifecycle::AuditOnly => NodeLifecycle::AuditOnly,
    }
}

fn staleness(s: Staleness) -> NodeStaleness {
    match s {
        Staleness::NotTimeSensitive => NodeStaleness::NotTimeSensitive,
        Staleness::Fresh => NodeStaleness::Fresh,
        Staleness::StalePossible => NodeStaleness::StalePossible,
        Staleness::VerificationRequired => NodeStaleness::VerificationRequired,
        Staleness::StaleConfirmed => NodeStaleness::StaleConfirmed,
        Staleness::SourceChanged => NodeStaleness::SourceChanged,
        Staleness::CoverageGapSuspected => NodeStaleness::CoverageGapSuspected,
    }
}

fn warrant(w: Warrant) -> NodeWarrant {
    match w {
        Warrant::Assert => NodeWarrant::Assert,
        Warrant::Hedge => NodeWarrant::Hedge,
        Warrant::VerifyBeforeUse => NodeWarrant::VerifyBeforeUse,
        Warrant::OrientationOnly => NodeWarrant::OrientationOnly,
        Warrant::SearchOnly => NodeWarrant::SearchOnly,
        Warrant::DoNotInject => NodeWarrant::DoNotInject,
    }
}

fn engine_warrant(w: NodeWarrant) -> Warrant {
    match w {
        NodeWarrant::Assert => Warrant::Assert,
        NodeWarrant::Hedge => Warrant::Hedge,
        NodeWarrant::VerifyBeforeUse => Warrant::VerifyBeforeUse,
        NodeWarrant::OrientationOnly => Warrant::OrientationOnly,
        NodeWarrant::SearchOnly => Warrant::SearchOnly,
        NodeWarrant::DoNotInject => Warrant::DoNotInject,
    }
}

/// Names of the entities the listed nodes are about, looked up once per reply. An entity merged
/// away or removed since keeps its id and shows no name.
fn entity_names<'a>(store: &Store, nodes: impl IntoIterator<Item = &'a Node>) -> Names {
    let mut out = Names::new();
    for id in nodes.into_iter().filter_map(|n| n.entity_id.as_deref()) {
        if !out.contains_key(id)
            && let Ok(e) = store.graph().entity(id)
        {
            out.insert(id.to_owned(), e.canonical_name);
        }
    }
    out
}

fn row(n: Node, contexts: &Names, entities: &Names) -> NodeRow {
    NodeRow {
        node_id: n.node_id.to_string(),
        kind: kind(n.kind),
        live: n.lifecycle.is_live(),
        lifecycle: lifecycle(n.lifecycle),
        staleness: staleness(n.staleness),
        warrant: warrant(n.warrant),
        warrant_reason: n.warrant_reason,
        superseded_by: n.superseded_by.map(|s| s.to_string()),
        work_context_name: n
            .work_context_id
            .as_ref()
            .and_then(|wc| contexts.get(wc.as_str()).cloned()),
        work_context_id: n.work_context_id.map(|w| w.to_string()),
        entity_name: n
            .entity_id
            .as_ref()
            .and_then(|e| entities.get(e.as_str()).cloned()),
        entity_id: n.entity_id.map(|e| e.to_string()),
        due_at: n.due_at,
        text: n.text,
        created_at: n.created_at,
        updated_at: n.updated_at,
    }
}

fn detail(store: &Store, id: &str) -> Result<NodeDetail, CommandError> {
    let d = store.graph().node(id).map_err(err)?;
    let contexts = names(store)?;
    let entities = entity_names(store, [&d.node]);
    // The entries it came from, as the node's work context's log holds them now. A context id
    // that cannot name a log, or a log that has since dropped the entry, leaves the bare id.
    let log = match d.node.work_context_id.as_deref().map(WorkContextId::new) {
        Some(Ok(wc))
            if d.provenance
                .iter()
                .any(|p| p.source_kind == "continuity_entry") =>
        {
            store.log(&wc).read().map_err(err)?.entries
        }
        _ => Vec::new(),
    };
    let entries: BTreeMap<&str, _> = d
        .provenance
        .iter()
        .filter(|p| p.source_kind == "continuity_entry")
        .filter_map(|p| {
            log.iter()
                .find(|e| e.entry_id.as_str() == p.source_ref)
                .map(|e| (p.source_ref.as_str(), entry_row(e, &BTreeMap::new())))
        })
        .collect();
    let recorded_by: Option<&str> = d
        .provenance
        .iter()
        .find_map(|p| entries.get(p.source_ref.as_str()))
        .map(|e| e.source_session_id.as_str());
    let first_session = d
        .provenance
        .iter()
        .find(|p| p.source_kind == "session")
        .map(|p| p.source_ref.as_str());
    let provenance = d
        .provenance
        .iter()
        .map(|p| {
            let mut source = NodeSourceRow {
                source_kind: p.source_kind.clone(),
                source_ref: p.source_ref.clone(),
                recorded_at: p.recorded_at.clone(),
                entry: None,
                session: None,
                proposal_id: None,
            };
            match p.source_kind.as_str() {
                "continuity_entry" => source.entry = entries.get(p.source_ref.as_str()).cloned(),
                "session" => {
                    // Without the entry, approval's order says it: the recording session first.
                    let recorded = recorded_by.or(first_session) == Some(p.source_ref.as_str());
                    source.session = Some(evidence_session(store, &p.source_ref, recorded)?);
                }
                "review" => {
                    source.proposal_id = p
                        .source_ref
                        .strip_prefix("proposal:")
                        .and_then(|n| n.parse().ok());
                }
                _ => {}
            }
            Ok(source)
        })
        .collect::<Result<Vec<_>, CommandError>>()?;
    Ok(NodeDetail {
        node: row(d.node, &contexts, &entities),
        provenance,
        history: d
            .history
            .into_iter()
            .map(|h| NodeHistoryRow {
                action: h.action,
                text: h.text,
                state: h.state,
                note: h.note,
                at: h.at,
            })
            .collect(),
    })
}

/// Applies one of the person's changes and replies with the detail of the node it returns.
async fn apply(
    state: State<'_, AppState>,
    id: String,
    change: Change,
) -> Result<NodeDetail, CommandError> {
    let store = state.store()?;
    blocking(move || {
        let node =
            elnor_engine::change_node(&store, &id, change, elnor_engine::now()).map_err(err)?;
        detail(&store, node.node_id.as_str())
    })
    .await
}

#[tauri::command]
pub async fn knowledge_list(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeList>,
) -> ReplyOf<cmd::KnowledgeList> {
    let store = state.store()?;
    blocking(move || {
        // All of them, so the page can say how many are retired when it shows only live ones.
        let all = store.graph().nodes(true).map_err(err)?;
        let total = count(all.len());
        let live = count(all.iter().filter(|n| n.lifecycle.is_live()).count());
        let contexts = names(&store)?;
        let entities = entity_names(&store, &all);
        Ok(KnowledgeList {
            nodes: all
                .into_iter()
                .filter(|n| request.all || n.lifecycle.is_live())
                .map(|n| row(n, &contexts, &entities))
                .collect(),
            live,
            total,
        })
    })
    .await
}

#[tauri::command]
pub async fn knowledge_get(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeGet>,
) -> ReplyOf<cmd::KnowledgeGet> {
    let store = state.store()?;
    blocking(move || detail(&store, &request.node_id)).await
}

#[tauri::command]
pub async fn knowledge_edit(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeEdit>,
) -> ReplyOf<cmd::KnowledgeEdit> {
    apply(state, request.node_id, Change::Edit(request.text)).await
}

#[tauri::command]
pub async fn knowledge_confirm(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeConfirm>,
) -> ReplyOf<cmd::KnowledgeConfirm> {
    apply(state, request.node_id, Change::Confirm).await
}

#[tauri::command]
pub async fn knowledge_set_warrant(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeSetWarrant>,
) -> ReplyOf<cmd::KnowledgeSetWarrant> {
    let change = Change::Warrant(engine_warrant(request.warrant), non_empty(request.reason));
    apply(state, request.node_id, change).await
}

#[tauri::command]
pub async fn knowledge_retire(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeRetire>,
) -> ReplyOf<cmd::KnowledgeRetire> {
    let change = Change::Retire(non_empty(request.reason));
    apply(state, request.node_id, change).await
}

#[tauri::command]
pub async fn knowledge_supersede(
    state: State<'_, AppState>,
    request: RequestOf<cmd::KnowledgeSupersede>,
) -> ReplyOf<cmd::KnowledgeSupersede> {
    apply(state, request.node_id, Change::Supersede(request.text)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The UI shows and sends the wire names; they must be the engine's stored words, value for
    /// value, and the ladder must keep its order across the boundary.
    #[test]
    fn wire_enums_carry_the_engine_words() {
        for &l in Lifecycle::ALL {
            assert_eq!(lifecycle(l).as_str(), l.as_str());
        }
        assert_eq!(NodeLifecycle::ALL.len(), Lifecycle::ALL.len());
        for &s in Staleness::ALL {
            assert_eq!(staleness(s).as_str(), s.as_str());
        }
        assert_eq!(NodeStaleness::ALL.len(), Staleness::ALL.len());
        for &w in Warrant::ALL {
            assert_eq!(warrant(w).as_str(), w.as_str());
            assert_eq!(engine_warrant(warrant(w)), w);
        }
        assert_eq!(
            NodeWarrant::ALL
                .iter()
                .map(|w| w.as_str())
                .collect::<Vec<_>>(),
            Warrant::ALL.iter().map(|w| w.as_str()).collect::<Vec<_>>()
        );
        for k in [NodeKind::Obligation, NodeKind::MemoryDirective] {
            assert_eq!(kind(k).as_str(), k.as_str());
        }
    }
}
