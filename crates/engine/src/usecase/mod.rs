//! The operations the adapters share: the CLI, the desktop shell and (later) the MCP server each
//! call one of these per command, with its arguments converted. Each does the whole operation —
//! the canonical writes through the lower layers, then the refresh of the derived views they
//! touched — so no adapter strings steps together, and none can forget a step. This module sits
//! above every other layer (`tests/tidy.rs` checks it).

pub mod access;
#[cfg(test)]
#[path = "tests/embedding.rs"]
mod embedding_tests;
pub mod fuzzing;
pub mod harness;
pub mod health;
pub mod lineage;
pub mod living;
pub mod nightly;
pub mod reconstruct;
pub mod sync;
mod synthesis;
pub mod today;
pub mod watcher;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Utc};
use rusqlite::OptionalExtension;
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::{EntityId, WorkContextId};
use crate::base::secrets::SecretStore;
use crate::graph::contexts::{LinkRuleKind, NewWorkContext, WorkContext, WorkContextEdit};
use crate::graph::entities::{Entity, EntityEdit, NewEntity};
use crate::graph::nodes::{Change, Node};
use crate::graph::store::Store;
use crate::graph::sync::GraphChange;
use crate::inputs::agent::{Agent, AgentRun};
use crate::inputs::capture::{CaptureOutcome, CaptureRequest, CaptureStatus};
use crate::inputs::ingest::{IngestProgress, IngestReport, SourceRoot};
use crate::inputs::observe::files::Settled;
use crate::inputs::observe::{Push, PushOutcome};
use crate::review::sweep::Sweep;
use crate::views::search::embed::{Builtin, Embedder, LocalModel};
use crate::views::search::{
    DocKind, EmbedReport, SearchIndex, SearchRequest, SearchResult, Strategy, SyncReport,
};

/// What one [`pass`] did: what ingest read, then what the agent captured.
#[derive(Debug)]
pub struct Pass {
    pub ingest: IngestReport,
    pub run: AgentRun,
}

/// One step of the continuity loop (`elnor watch`, the app's ingest): ingest what is new under
/// `roots`, capture every session whose trigger fired, then rebuild the views the captures wrote
/// to and the Tier 2 rollup. A failed ingest stops the step before anything is captured; a failed
/// capture is reported in the run and does not stop the others.
pub fn pass(
    agent: &mut Agent,
    store: &Store,
    roots: &[SourceRoot],
    secrets: &dyn SecretStore,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(&IngestProgress),
) -> Result<Pass> {
    let ingest = ingest(store, roots, progress, now)?;
    let run = capture_due(agent, store, secrets, now, false)?;
    Ok(Pass { ingest, run })
}

/// Ingests every transcript under `roots` (`elnor ingest`, the first step of a [`pass`]): the
/// sessions and turns into the graph, then a work context for each new project, moving over the
/// auto contexts that held only that project's sessions. The views of contexts merged away are
/// removed: they are derived from logs that no longer exist.
pub fn ingest(
    store: &Store,
    roots: &[SourceRoot],
    progress: &mut dyn FnMut(&IngestProgress),
    now: DateTime<Utc>,
) -> Result<IngestReport> {
    // The search index trails the ingest on a thread of its own, indexing the turns of each
    // committed file while the next one is read: on a first run of years of history the two
    // would otherwise take turns on one core.
    let ingesting = AtomicBool::new(true);
    let report = std::thread::scope(|scope| {
        let index = scope.spawn(|| {
            let synced = SearchIndex::open(store)
                .and_then(|index| index.sync_trailing_ingest(store, &ingesting));
            report_sync(synced);
        });
        let ingested = ingest_then_relink(store, roots, progress, now);
        ingesting.store(false, Ordering::Release);
        // A panic on the index thread is a bug in derived data: the store is whole, the next
        // sync catches up, and the ingest's answer stands.
        if index.join().is_err() {
            tracing::warn!("search index thread panicked; the next query catches up");
        }
        ingested
    })?;
    collect_quietly(store, now);
    Ok(report)
}

/// The canonical half of [`ingest`]: the turns, the projects' contexts, and the views and
/// lineage of the contexts whose sessions moved.
fn ingest_then_relink(
    store: &Store,
    roots: &[SourceRoot],
    progress: &mut dyn FnMut(&IngestProgress),
    now: DateTime<Utc>,
) -> Result<IngestReport> {
    let (report, projects) = crate::inputs::ingest::ingest_store(store, roots, progress, now)?;
    for (absorbed, _) in &projects.merged {
        crate::views::constellation::remove_view(store, absorbed)?;
    }
    // The lineage of contexts whose sessions moved, and of those whose sessions a harness
    // compacted since (a compaction summary is a node of its own, CLOSURE §3).
    let mut moved: BTreeSet<WorkContextId> = projects
        .merged
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    moved.extend(compacted_contexts(store, &report.touched)?);
    refresh_lineage_quietly(store, &moved);
    Ok(report)
}

/// The work contexts of `sessions` that hold a compaction record.
fn compacted_contexts(
    store: &Store,
    sessions: &BTreeSet<String>,
) -> Result<BTreeSet<WorkContextId>> {
    store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT work_context_id FROM transcript_sessions
              WHERE session_id = ?1 AND compaction_count > 0 AND work_context_id IS NOT NULL",
        )?;
        let mut out = BTreeSet::new();
        for s in sessions {
            let wc: Option<String> = stmt.query_row([s], |r| r.get(0)).optional()?;
            if let Some(wc) = wc.and_then(|w| WorkContextId::new(w).ok()) {
                out.insert(wc);
            }
        }
        Ok(out)
    })
}

/// Refreshes the lineage of `contexts`, unless the DAG was never built (the first capture or
/// drill-down builds it whole). Derived data: a failure is logged, and `elnor lineage rebuild`
/// makes it good.
fn refresh_lineage_quietly<'a>(
    store: &Store,
    contexts: impl IntoIterator<Item = &'a WorkContextId>,
) {
    let built = store.graph().with_conn_result(|c| {
        c.query_row("SELECT EXISTS (SELECT 1 FROM lineage_nodes)", [], |r| {
            r.get::<_, bool>(0)
        })
    });
    let result = match built {
        Ok(true) => crate::views::lineage::refresh(store, contexts).map(|_| ()),
        Ok(false) => Ok(()),
        Err(e) => Err(e),
    };
    if let Err(e) = result {
        tracing::warn!(error = %e, "lineage refresh failed");
    }
}

/// Merges work context `absorb` into `keep` (see [`Store::merge_work_contexts`]), removes the
/// absorbed context's view, rebuilds the kept one's, then delivers what the merge let out.
pub fn merge_work_contexts(
    store: &Store,
    keep: &WorkContextId,
    absorb: &WorkContextId,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    let merged = store.merge_work_contexts(keep.as_str(), absorb.as_str(), now)?;
    store.graph().record_change(
        GraphChange::ContextMerge {
            keep: keep.to_string(),
            absorb: absorb.to_string(),
        },
        now,
    )?;
    crate::views::constellation::remove_view(store, absorb)?;
    crate::views::constellation::refresh(store, [&merged.work_context_id], now);
    refresh_lineage_quietly(store, [absorb, &merged.work_context_id]);
    edit_then_deliver(store, now, |_| Ok(merged))
}

/// Records a push, "I just did X" (`elnor push`, the app's push box and shortcut): the
/// observation, the update it tells its own work context, the updates it delivers to the others,
/// then the views of every context it wrote to.
pub fn push(store: &Store, push: &Push, now: DateTime<Utc>) -> Result<PushOutcome> {
    let outcome = crate::inputs::observe::push(store, push, now)?;
    crate::views::constellation::refresh(store, &outcome.touched, now);
    // The push is a search document of its own, whichever contexts it reached.
    sync_search(store);
    collect_quietly(store, now);
    Ok(outcome)
}

/// How many search hits a sessions filter reads to find the sessions whose words match: the
/// sessions list shows at most a hundred, and a session's turns often match several times.
const SESSION_WORD_HITS: usize = 400;

/// Sessions for the Sessions list (`elnor sessions list --text`, the app's filter box): with
/// text, first the sessions whose title, first request, folder or id hold it, then the ones
/// whose conversation holds every word of it (through the search index), best match first; the
/// other filters apply to both.
pub fn find_sessions(
    store: &Store,
    q: &crate::inputs::sessions::ListQuery,
    now: DateTime<Utc>,
) -> Result<Vec<crate::inputs::sessions::SessionInfo>> {
    let graph = store.graph();
    let mut found = crate::inputs::sessions::list(graph, q, now)?;
    let Some(text) = q.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(found);
    };
    let limit = q
        .limit
        .unwrap_or(crate::inputs::sessions::LIST_DEFAULT)
        .clamp(1, crate::inputs::sessions::LIST_CAP) as usize;
    let index = SearchIndex::open(store)?;
    if index.is_behind_throttled(store)?
        && let Err(e) = index.sync_if_free(store)
    {
        tracing::warn!(error = %e, "search index not updated before the sessions filter");
    }
    let mut req = SearchRequest::new(text, now);
    req.strategy = Strategy::LexicalOnly;
    req.kinds = vec![DocKind::Turn, DocKind::Summary];
    req.harness = q.harness;
    req.hours = q.time_window_hours.unwrap_or(0);
    req.work_context = q.work_context_id.clone();
    let mut seen: BTreeSet<String> = found.iter().map(|s| s.session_id.to_string()).collect();
    for hit in index.matching(&req, None, SESSION_WORD_HITS)? {
        if found.len() >= limit {
            break;
        }
        let Some(id) = hit.session_id else { continue };
        if !seen.insert(id.clone()) {
            continue;
        }
        let one = crate::inputs::sessions::ListQuery {
            text: None,
            limit: Some(1),
            offset: None,
            session_id: Some(crate::base::ids::SessionId::new(id)?),
            ..q.clone()
        };
        found.extend(crate::inputs::sessions::list(graph, &one, now)?);
    }
    Ok(found)
}

/// Changes one setting as a person typed it in Settings: a value that does not fit is refused
/// with what to enter instead ("Enter a whole number from 1 to 50."), never with the config
/// file's field names; a fitting one is saved as `elnor config set` saves it.
pub fn set_setting(store: &Store, key: &str, raw: &str) -> Result<crate::ContinuityConfig> {
    let field = crate::base::config::field(key)
        .ok_or_else(|| crate::Error::InvalidInput(format!("there is no setting called {key:?}")))?;
    if field.section == crate::base::config::SettingsSection::Internal {
        return Err(crate::Error::InvalidInput(format!(
            "{} is not yours to change",
            field.label
        )));
    }
    field.check_input(raw).map_err(crate::Error::InvalidInput)?;
    configure(store, key, raw, crate::base::clock::now())
}

/// Sets one config field (`elnor config set`, and Settings through [`set_setting`]); a setting
/// that travels (`ConfigField::travels`) is recorded for the person's other devices.
pub fn configure(
    store: &Store,
    key: &str,
    raw: &str,
    now: DateTime<Utc>,
) -> Result<crate::ContinuityConfig> {
    let config = store.set_config(key, raw)?;
    if crate::base::config::field(key).is_some_and(|f| f.travels()) {
        let value = config.get(key)?;
        store.graph().record_change(
            GraphChange::SettingSet {
                key: key.to_owned(),
                value,
            },
            now,
        )?;
    }
    Ok(config)
}

/// Where a push would reach, without storing it (the push box's preview, `elnor push
/// --dry-run`): the entities its text and named entities resolve to, whole names and distinctive
/// words alike, the work context it lands in, and the contexts told through its entities.
pub fn preview_push(
    store: &Store,
    push: &Push,
) -> Result<crate::inputs::observe::reach::PushReach> {
    crate::inputs::observe::reach::reach(
        store.graph(),
        push.text.trim(),
        &push.entities,
        push.work_context.as_ref(),
    )
}

/// One full pass over every tracked folder (`elnor folders scan`): the observations of what
/// changed since the last look, then the views of the contexts they wrote to.
pub fn reconcile_folders(store: &Store, now: DateTime<Utc>) -> Result<Settled> {
    let settled = crate::inputs::observe::files::reconcile_all(store, now)?;
    crate::views::constellation::refresh(store, &settled.touched, now);
    sync_search(store);
    collect_quietly(store, now);
    Ok(settled)
}

/// Adds a folder to the Library as a collection (`elnor library add`): it becomes a tracked
/// folder, its files are recorded at once (silently, as a first scan is), and its documents are
/// indexed, so they are browsable and searchable when this returns.
pub fn add_library_collection(
    store: &Store,
    folder: &std::path::Path,
    now: DateTime<Utc>,
) -> Result<crate::views::library::Collection> {
    // A tracked folder may go missing and come back, but a collection added from a path that is
    // not a folder now is a typo far more often than a drive not yet mounted.
    if !folder.is_dir() {
        return Err(crate::base::error::Error::InvalidInput(format!(
            "{} is not a folder: a Library collection is a folder of documents",
            folder.display()
        )));
    }
    let before = store.tracked_folders().load()?.folders;
    let after = store.tracked_folders().add(folder)?.folders;
    let added = after.into_iter().find(|f| !before.contains(f));
    reconcile_folders(store, now)?;
    crate::views::library::collections(store)?
        .into_iter()
        .find(|c| Some(&c.folder) == added.as_ref())
        .ok_or_else(|| {
            crate::base::error::Error::InvalidInput(format!(
                "{} was added but is not a collection",
                folder.display()
            ))
        })
}

/// What a change to the graph's work contexts or entities returned, and how many
/// cross-conversation updates it let out: a new rule, link or alias can make a context reference
/// an entity whose events were waiting for a reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited<T> {
    pub value: T,
    /// Updates written into other contexts' logs by the delivery that follows the change.
    pub delivered: usize,
}

/// Runs one edit of the graph, then delivers what it let out (and rebuilds those views). A
/// delivery that fails is logged and left pending for the next pass: the edit itself is stored,
/// so the command succeeded.
fn edit_then_deliver<T>(
    store: &Store,
    now: DateTime<Utc>,
    edit: impl FnOnce(&crate::graph::Graph) -> Result<T>,
) -> Result<Edited<T>> {
    let value = edit(store.graph())?;
    let delivered = deliver_updates(store, now).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "cross-conversation delivery failed; it stays pending");
        0
    });
    Ok(Edited { value, delivered })
}

/// The last `n` entries of a work context's continuity log (`elnor log tail`). A context that
/// is neither in the graph nor has a log is refused as not found, rather than shown as an empty
/// log, so a mistyped id is said.
pub fn log_tail(
    store: &Store,
    wc: &crate::base::ids::WorkContextId,
    n: usize,
) -> Result<crate::continuity::LogRead> {
    let log = store.log(wc);
    if !wc.is_unlinked() && !log.path().exists() {
        store.graph().work_context(wc.as_str())?;
    }
    log.tail(n)
}

/// Creates a named work context with its link rules (`elnor contexts add`, the Work contexts page).
pub fn create_work_context(
    store: &Store,
    new: &NewWorkContext,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        let made = g.create_work_context(new, now)?;
        let id = made.work_context_id.to_string();
        g.record_change(
            GraphChange::ContextKnown {
                context: id.clone(),
                name: made.name.clone(),
                origin: made.origin.as_str().to_owned(),
                domain_lineage: made.domain_lineage.clone(),
                local_only: made.local_only,
            },
            now,
        )?;
        for rule in &made.rules {
            g.record_change(rule_change(&id, rule.kind, &rule.pattern, true), now)?;
        }
        Ok(made)
    })
}

/// A link rule added or removed, as a change that travels to the person's other devices.
fn rule_change(context: &str, kind: LinkRuleKind, pattern: &str, present: bool) -> GraphChange {
    GraphChange::RuleSet {
        context: context.to_owned(),
        rule_kind: kind.as_str().to_owned(),
        pattern: pattern.to_owned(),
        present,
    }
}

/// Renames a work context or changes its local-only flag.
pub fn edit_work_context(
    store: &Store,
    id: &WorkContextId,
    edit: &WorkContextEdit,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        let edited = g.edit_work_context(id.as_str(), edit, now)?;
        let mut set = std::collections::BTreeMap::new();
        if edit.name.is_some() {
            set.insert("name".to_owned(), edited.name.clone().into());
        }
        if edit.domain_lineage.is_some() {
            set.insert(
                "domain_lineage".to_owned(),
                edited
                    .domain_lineage
                    .clone()
                    .map_or(serde_json::Value::Null, Into::into),
            );
        }
        if edit.local_only.is_some() {
            set.insert("local_only".to_owned(), edited.local_only.into());
        }
        if !set.is_empty() {
            g.record_change(
                GraphChange::ContextSet {
                    context: id.to_string(),
                    set,
                },
                now,
            )?;
        }
        Ok(edited)
    })
}

/// Adds a link rule (cwd prefix, session-key glob or entity set) to a work context; returns the
/// context with its rules as they now stand.
pub fn add_link_rule(
    store: &Store,
    id: &WorkContextId,
    kind: LinkRuleKind,
    pattern: &str,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        let rule = g.add_link_rule(id.as_str(), kind, pattern)?;
        g.record_change(rule_change(id.as_str(), kind, &rule.pattern, true), now)?;
        g.work_context(id.as_str())
    })
}

/// Removes a work context's link rule by its number; returns the context as it now stands.
pub fn remove_link_rule(
    store: &Store,
    id: &WorkContextId,
    rule_id: i64,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        let rule = g
            .work_context(id.as_str())?
            .rules
            .into_iter()
            .find(|r| r.rule_id == rule_id);
        g.remove_link_rule(id.as_str(), rule_id)?;
        if let Some(rule) = rule {
            g.record_change(
                rule_change(id.as_str(), rule.kind, &rule.pattern, false),
                now,
            )?;
        }
        g.work_context(id.as_str())
    })
}

/// Links an entity to a work context, so the context hears of the entity's changes; returns the
/// context as it now stands.
pub fn link_entity(
    store: &Store,
    id: &WorkContextId,
    entity: &EntityId,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        g.link_entity(id.as_str(), entity.as_str())?;
        g.work_context(id.as_str())
    })
}

/// Unlinks an entity from a work context; returns the context as it now stands.
pub fn unlink_entity(
    store: &Store,
    id: &WorkContextId,
    entity: &EntityId,
    now: DateTime<Utc>,
) -> Result<Edited<WorkContext>> {
    edit_then_deliver(store, now, |g| {
        g.unlink_entity(id.as_str(), entity.as_str())?;
        g.work_context(id.as_str())
    })
}

/// Creates an entity by hand (`elnor entities add`, the app's entity form).
pub fn create_entity(store: &Store, new: &NewEntity, now: DateTime<Utc>) -> Result<Edited<Entity>> {
    edit_then_deliver(store, now, |g| {
        let made = g.create_entity(new, now)?;
        g.record_change(sync::record::entity_made(&made), now)?;
        Ok(made)
    })
}

/// Edits an entity's name, kind, aliases or deadline.
pub fn edit_entity(
    store: &Store,
    id: &EntityId,
    edit: &EntityEdit,
    now: DateTime<Utc>,
) -> Result<Edited<Entity>> {
    edit_then_deliver(store, now, |g| {
        let edited = g.edit_entity(id.as_str(), edit, now)?;
        for change in sync::record::entity_edited(edit, &edited) {
            g.record_change(change, now)?;
        }
        Ok(edited)
    })
}

/// Merges entity `absorb` into `keep`: names become aliases, links and mentions move over.
pub fn merge_entities(
    store: &Store,
    keep: &EntityId,
    absorb: &EntityId,
    now: DateTime<Utc>,
) -> Result<Edited<Entity>> {
    edit_then_deliver(store, now, |g| {
        let kept = g.merge_entities(keep.as_str(), absorb.as_str(), now)?;
        g.record_change(
            GraphChange::EntityMerge {
                keep: keep.to_string(),
                absorb: absorb.to_string(),
            },
            now,
        )?;
        Ok(kept)
    })
}

/// Searches everything said and written (`elnor query`, the app's search, an agent's query):
/// first admits the caller (an agent's rate limits and permission, see `access`), brings the
/// index up to what the store holds when it is behind, then runs the query within the caller's
/// scope. Every hit says why it ranked where it did. With `synthesis`, the configured model
/// answers over the hits, its citations checked (see `synthesis`); the key comes from `secrets`.
pub fn search(
    store: &Store,
    req: &SearchRequest,
    secrets: &dyn SecretStore,
) -> Result<SearchResult> {
    let mut req = req.clone();
    access::admit(store, &mut req)?;
    let req = &req;
    let index = SearchIndex::open(store)?;
    // Another process may be writing the index right now (tantivy allows one writer): then
    // this query answers from what is indexed, and that writer's sync brings the rest.
    if index.is_behind_throttled(store)?
        && let Err(e) = index.sync_if_free(store)
    {
        tracing::warn!(error = %e, "search index not updated before the query");
    }
    let (embedder, unavailable) = match req.strategy {
        Strategy::LexicalOnly => (None, String::new()),
        _ => match embedder(store, secrets) {
            Ok(e) => (Some(e), String::new()),
            Err(why) => (None, why),
        },
    };
    let mut result = index.search(req, embedder.as_ref(), &unavailable)?;
    for hit in result.hits.iter_mut().filter(|h| h.kind == DocKind::Turn) {
        if let Some(turn) = hit.turn_id.as_deref() {
            hit.position = crate::inputs::sessions::turn_position(store.graph(), turn)?;
        }
    }
    if req.synthesis {
        match synthesis::answer(store, secrets, &req.query, &result.hits, req.now) {
            Ok(s) => result.synthesis = Some(s),
            Err(why) => result.synthesis_fallback = Some(why),
        }
    }
    Ok(result)
}

/// Embeds the documents of the search index that have no vector yet (`elnor embed`, the app's
/// background backfill), at most `limit` of them, entries and summaries first, then turns newest
/// first, with the embedder the config names. Resumable: a run cut short, or stopped through
/// `cancel`, keeps every batch it finished. Fails with a clear error when there is no embedder.
pub fn embed(
    store: &Store,
    secrets: &dyn SecretStore,
    limit: Option<usize>,
    progress: &mut dyn FnMut(&EmbedReport),
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<EmbedReport> {
    let embedder = embedder(store, secrets).map_err(crate::base::error::Error::InvalidInput)?;
    // A local-only work context's text never goes to an embedder off this machine, as it never
    // goes to such a synthesis model: its documents stay without vectors, found by their words.
    let kept_local = if embedder.leaves_this_machine() {
        store.graph().with_conn_result(|c| {
            let ids = |sql: &str| -> rusqlite::Result<std::collections::HashSet<String>> {
                c.prepare(sql)?.query_map([], |r| r.get(0))?.collect()
            };
            Ok(crate::views::search::LocalOnly {
                contexts: ids("SELECT work_context_id FROM work_contexts WHERE local_only = 1")?,
                sessions: ids("SELECT s.session_id FROM transcript_sessions s
                       JOIN work_contexts w ON w.work_context_id = s.work_context_id
                      WHERE w.local_only = 1")?,
            })
        })?
    } else {
        Default::default()
    };
    let index = SearchIndex::open(store)?;
    if index.is_behind(store)? {
        index.sync(store)?;
    }
    index.embed_pending(&embedder, &kept_local, limit, progress, cancel)
}

/// How far the configured embedder's vectors reach, without embedding anything
/// (`elnor embed --status`).
pub fn embed_status(store: &Store) -> Result<EmbedReport> {
    let config = store.config()?;
    SearchIndex::open(store)?.embed_status(&embedder_id(&config))
}

/// Fetches the built-in embedding model's files for this person (`elnor embed --download`, the
/// app's Settings) into its usual folder (or `$ELNOR_MINILM_DIR`), from its usual home (or
/// `$ELNOR_MODEL_BASE_URL`, a mirror), each file checked against its pinned SHA-256. Search uses
/// the model from the next query on; a cancelled download leaves nothing partial.
pub fn download_embedding_model(
    progress: &mut dyn FnMut(&crate::views::search::embed::download::DownloadProgress),
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<crate::views::search::embed::download::DownloadReport> {
    use crate::views::search::embed::{self, download};
    let dir = std::env::var_os("ELNOR_MINILM_DIR")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(embed::home_dir);
    let base = std::env::var("ELNOR_MODEL_BASE_URL")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| download::DEFAULT_BASE_URL.to_owned());
    download::download(&dir, &base, progress, cancel)
}

/// The name the configured embedder's vectors are kept under, without reaching it.
fn embedder_id(config: &crate::base::config::ContinuityConfig) -> String {
    use crate::base::config::EmbeddingProvider;
    match config.embedding_provider {
        EmbeddingProvider::Builtin => Builtin::chosen(config.embedding_model.as_deref())
            .id()
            .to_owned(),
        // Trimmed as `embedder` trims it, so the status and the searches name the same folder.
        other => crate::views::search::embed::remote_id(
            other.as_str(),
            config.embedding_model.as_deref().unwrap_or_default().trim(),
        ),
    }
}

/// The embedder the config names, or why there is none (for a search's fallback reason).
fn embedder(
    store: &Store,
    secrets: &dyn SecretStore,
) -> std::result::Result<Embedder<'static>, String> {
    use crate::base::config::{EmbeddingProvider, SynthesisProvider};
    let config = store.config().map_err(|e| e.to_string())?;
    let provider = match config.embedding_provider {
        EmbeddingProvider::Builtin => {
            let model = Builtin::chosen(config.embedding_model.as_deref());
            return installed_model(model).map(Embedder::Local).ok_or_else(|| {
                let (name, how) = model.described();
                format!(
                    "no embedding model is installed ({name} in {}; {how})",
                    model.expected_at().display()
                )
            });
        }
        EmbeddingProvider::Ollama => SynthesisProvider::Ollama,
        EmbeddingProvider::OpenaiCompatible => SynthesisProvider::OpenaiCompatible,
    };
    let set = |v: &Option<String>, what: &str| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("{what} is not set for the {} embedder", provider.as_str()))
    };
    let endpoint = crate::inputs::model::Endpoint {
        provider,
        base_url: set(&config.embedding_base_url, "embedding_base_url")?,
        model: set(&config.embedding_model, "embedding_model")?,
        timeout: std::time::Duration::from_secs(u64::from(config.synthesis_timeout_seconds.max(1))),
    };
    let key = if provider.takes_key() {
        secrets
            .get(crate::base::secrets::EMBEDDING_API_KEY)
            .map_err(|e| format!("the embedding API key is unavailable: {e}"))?
    } else {
        None
    };
    Ok(Embedder::Remote { endpoint, key })
}

/// A local embedding model, loaded once per process as soon as its files are on disk: a model
/// downloaded while the app runs is used from the next search on.
fn installed_model(which: Builtin) -> Option<&'static LocalModel> {
    static E5: std::sync::OnceLock<LocalModel> = std::sync::OnceLock::new();
    static MINILM: std::sync::OnceLock<LocalModel> = std::sync::OnceLock::new();
    let slot = match which {
        Builtin::E5 => &E5,
        Builtin::MiniLm => &MINILM,
    };
    if let Some(model) = slot.get() {
        return Some(model);
    }
    match which.load()? {
        Ok(model) => Some(slot.get_or_init(|| model)),
        Err(e) => {
            tracing::warn!(error = %e, "embedding model not loaded");
            None
        }
    }
}

/// Deletes the search index and builds it again from the canonical stores (`elnor reindex`).
pub fn reindex(store: &Store) -> Result<SyncReport> {
    SearchIndex::rebuild(store)
}

/// Brings the search index up to date after a write, off the caller's answer: a failure is
/// logged, and the next query catches up.
pub(crate) fn sync_search(store: &Store) {
    report_sync(SearchIndex::open(store).and_then(|index| index.sync_if_free(store)));
}

/// Logs how a sync of the search index ended; none of its failures is the caller's.
fn report_sync(synced: Result<Option<crate::views::search::SyncReport>>) {
    match synced {
        Ok(Some(_)) => {}
        // The app, the CLI and the MCP server share a store: another of them is indexing.
        Ok(None) => {
            tracing::debug!("search index busy with another writer; the next sync catches up")
        }
        Err(e) => {
            tracing::warn!(error = %e, "search index update failed; the next query catches up")
        }
    }
}

/// Runs the Topics' collection directives over what the last sync indexed, off the caller's
/// answer: a failure is logged, and the next run looks at the same documents again (its
/// watermark did not move).
pub(crate) fn collect_quietly(store: &Store, now: DateTime<Utc>) {
    if let Err(e) = crate::review::topics::collect(store, now) {
        tracing::warn!(error = %e, "topic collection directives did not run; the next run catches up");
    }
}

/// A new Topic: the lens's name, description and rules, and whether its collection directive
/// is on.
#[derive(Debug, Clone, Default)]
pub struct NewTopic {
    pub name: String,
    pub description: String,
    pub rules: crate::graph::topics::TopicRules,
    pub collecting: bool,
}

/// Changes to a Topic; `None` keeps what it was.
#[derive(Debug, Clone, Default)]
pub struct TopicEdit {
    pub name: Option<String>,
    pub description: Option<String>,
    pub rules: Option<crate::graph::topics::TopicRules>,
    pub collecting: Option<bool>,
}

/// A Topic after a change, and what its directive proposed at once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicChange {
    pub topic: crate::graph::topics::Topic,
    pub collected: crate::review::topics::CollectReport,
}

/// Creates a Topic (`elnor topics create`, the Topics page). With its directive on, the
/// directive runs at once over everything indexed: the backfill's proposals are in the review
/// queue when this returns.
pub fn create_topic(store: &Store, new: &NewTopic, now: DateTime<Utc>) -> Result<TopicChange> {
    let topic =
        store
            .graph()
            .create_topic(&new.name, &new.description, &new.rules, new.collecting, now)?;
    store
        .graph()
        .record_change(sync::record::topic_made(&topic), now)?;
    let collected = if topic.collecting {
        crate::review::topics::collect(store, now)?
    } else {
        Default::default()
    };
    let topic = store.graph().topic(&topic.topic_id)?;
    Ok(TopicChange { topic, collected })
}

/// Edits a Topic; turning its directive on runs it at once, as [`create_topic`] does.
pub fn edit_topic(
    store: &Store,
    id: &crate::base::ids::TopicId,
    edit: &TopicEdit,
    now: DateTime<Utc>,
) -> Result<TopicChange> {
    let topic = store.graph().edit_topic(
        id,
        edit.name.as_deref(),
        edit.description.as_deref(),
        edit.rules.as_ref(),
        edit.collecting,
        now,
    )?;
    if let Some(change) = sync::record::topic_edited(edit, &topic) {
        store.graph().record_change(change, now)?;
    }
    let collected = if topic.collecting {
        crate::review::topics::collect(store, now)?
    } else {
        Default::default()
    };
    let topic = store.graph().topic(id)?;
    Ok(TopicChange { topic, collected })
}

/// Deletes a Topic and its memberships; no document goes with it.
pub fn delete_topic(store: &Store, id: &crate::base::ids::TopicId) -> Result<()> {
    let graph = store.graph();
    // A Topic scoped to a local-only context never left this machine: its deletion stays too.
    let local = graph
        .topic(id)?
        .rules
        .work_context
        .and_then(|wc| graph.work_context(wc.as_str()).ok())
        .is_some_and(|c| c.local_only);
    graph.delete_topic(id)?;
    if !local {
        graph.record_change(
            GraphChange::TopicDeleted {
                topic: id.to_string(),
            },
            crate::base::clock::now(),
        )?;
    }
    Ok(())
}

/// Pins a search document (by its id, as a search hit gives it) into a Topic.
pub fn pin_topic_member(
    store: &Store,
    id: &crate::base::ids::TopicId,
    doc_id: &str,
    now: DateTime<Utc>,
) -> Result<crate::graph::topics::Membership> {
    let index = SearchIndex::open(store)?;
    if index.is_behind(store)? {
        index.sync(store)?;
    }
    let hit = index
        .document(doc_id, now)?
        .ok_or_else(|| crate::base::error::Error::NotFound {
            what: "search document",
            id: doc_id.to_owned(),
        })?;
    let member = crate::graph::topics::NewMember {
        doc_ref: hit.doc_id.clone(),
        kind: hit.kind.as_str().to_owned(),
        label: crate::views::topics::label_of(&hit),
        reason: None,
        at: hit.at,
    };
    let pinned = store.graph().pin_member(id, &member, now)?;
    // A document of a local-only context stays on this machine, its label (its text) with it.
    let local = hit
        .work_context_id
        .as_deref()
        .and_then(|wc| store.graph().work_context(wc).ok())
        .is_some_and(|c| c.local_only);
    if local {
        return Ok(pinned);
    }
    store.graph().record_change(
        GraphChange::TopicPin {
            topic: id.to_string(),
            doc_ref: member.doc_ref,
            doc_kind: member.kind,
            label: member.label,
            doc_at: member.at,
            present: true,
        },
        now,
    )?;
    Ok(pinned)
}

/// Takes a member out of a Topic; the directive will not propose it again.
pub fn unpin_topic_member(
    store: &Store,
    id: &crate::base::ids::TopicId,
    doc_id: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    store.graph().unpin_member(id, doc_id, now)?;
    let member = store
        .graph()
        .topic_members(id, &[])?
        .into_iter()
        .find(|m| m.doc_ref == doc_id);
    // Taking a document out needs no text on the other device: the label stays here.
    store.graph().record_change(
        GraphChange::TopicPin {
            topic: id.to_string(),
            doc_ref: doc_id.to_owned(),
            doc_kind: member.as_ref().map(|m| m.kind.clone()).unwrap_or_default(),
            label: String::new(),
            doc_at: member.and_then(|m| m.at),
            present: false,
        },
        now,
    )?;
    Ok(())
}

/// Runs every Topic's collection directive now (`elnor topics collect`); ingest, pushes and the
/// folder watcher run them after each write.
pub fn collect_topics(
    store: &Store,
    now: DateTime<Utc>,
) -> Result<crate::review::topics::CollectReport> {
    crate::review::topics::collect(store, now)
}

/// Captures what is due without ingesting (`elnor capture`): the sessions whose trigger fired,
/// or with `sweep` every dirty session whatever its timers say; then the views, as in [`pass`].
pub fn capture_due(
    agent: &mut Agent,
    store: &Store,
    secrets: &dyn SecretStore,
    now: DateTime<Utc>,
    sweep: bool,
) -> Result<AgentRun> {
    let run = if sweep {
        agent.sweep(store, secrets, now)?
    } else {
        agent.run_once(store, secrets, now)?
    };
    refresh_after_run(store, &run, now);
    Ok(run)
}

/// Captures one session now (`elnor capture SESSION`), whatever its triggers say, then refreshes
/// the views it touched.
pub fn capture_session(
    store: &Store,
    secrets: &dyn SecretStore,
    req: &CaptureRequest,
) -> Result<CaptureOutcome> {
    let outcome = crate::inputs::capture::capture(store, secrets, req)?;
    refresh_after_captures(store, [&outcome], &BTreeSet::new(), req.now);
    Ok(outcome)
}

/// Delivers the cross-conversation updates a manual change made due (an entity edited, linked or
/// merged by hand), then refreshes the views of the contexts they landed in. Says how many
/// updates it wrote.
pub fn deliver_updates(store: &Store, now: DateTime<Utc>) -> Result<usize> {
    let delivered =
        crate::inputs::capture::crossconv::deliver_pending(store, &store.config()?, now)?;
    crate::views::constellation::refresh(store, &delivered.touched, now);
    Ok(delivered.written)
}

/// Applies the person's `change` to durable node `id` (edit, confirm, warrant, retire,
/// supersede), then rebuilds the views that show it, so the very next brief reflects it. Returns
/// the changed node, or the new one for a supersession.
pub fn change_node(store: &Store, id: &str, change: Change, now: DateTime<Utc>) -> Result<Node> {
    let graph = store.graph();
    let node = match &change {
        Change::Edit(text) => graph.edit_node(id, text, now)?,
        Change::Confirm => graph.confirm_node(id, now)?,
        Change::Warrant(w, reason) => graph.set_node_warrant(id, *w, reason.as_deref(), now)?,
        Change::Retire(reason) => graph.retire_node(id, reason.as_deref(), now)?,
        Change::Supersede(text) => graph.supersede_node(id, text, now)?,
    };
    graph.record_change(sync::record::node_changed(id, &change, &node), now)?;
    crate::views::constellation::refresh_for_node(store, &node, now)?;
    sync_search(store);
    Ok(node)
}

/// Walks every live durable node down the degradation ladder as far as its sources warrant (see
/// `sweep::sweep`), then rebuilds the views of the nodes it moved.
pub fn sweep_nodes(store: &Store, now: DateTime<Utc>) -> Result<Sweep> {
    let sweep = crate::review::sweep::sweep(store, now)?;
    for d in &sweep.degraded {
        let node = store.graph().node(d.node_id.as_str())?.node;
        crate::views::constellation::refresh_for_node(store, &node, now)?;
    }
    Ok(sweep)
}

/// Rebuilds the constellation views of `contexts` (`elnor brief` and the app's preview call this
/// after they answered from a stale view, off the agent's path, CSA §4.3). A failed rebuild is
/// logged, not raised: the next brief finds the view stale again.
pub fn refresh_views<'a>(
    store: &Store,
    contexts: impl IntoIterator<Item = &'a WorkContextId>,
    now: DateTime<Utc>,
) {
    crate::views::constellation::refresh(store, contexts, now);
}

/// Refreshes every head (`elnor heads refresh`): each work context's thread head, the global
/// head, then the writes deferred while another writer held a lease.
pub fn refresh_heads(store: &Store, now: DateTime<Utc>) -> Result<crate::views::heads::Refresh> {
    crate::views::heads::refresh(store, None, now)
}

/// Whether a capture for `trigger` refreshes the heads (CLOSURE §7): a session's end (the idle
/// timeout, and the SessionEnd hook, which captures as one), a compaction, a capture the person
/// asked for, and the nightly sweep of sessions whose end went unnoticed. A defocus capture does
/// not: the session is still going, and its end will refresh them.
fn refreshes_heads(trigger: crate::inputs::agent::Trigger) -> bool {
    use crate::inputs::agent::Trigger;
    match trigger {
        Trigger::IdleTimeout
        | Trigger::PreCompaction
        | Trigger::ManualRequest
        | Trigger::NightlySweep => true,
        Trigger::DebouncedDefocus => false,
    }
}

/// [`refresh_after_captures`] for an agent run: its captures, and the contexts its delivery of
/// cross-conversation updates wrote to.
pub(crate) fn refresh_after_run(store: &Store, run: &AgentRun, now: DateTime<Utc>) {
    refresh_after_captures(store, run.captures.iter(), &run.cross_touched, now);
}

/// Rebuilds the constellation views of every context the captures wrote to (new entries are a
/// rebuild trigger, CSA §4.3) and their part of the lineage DAG, then the Tier 2 rollup when
/// anything was captured, then the heads: the thread heads of the contexts that a session-end or
/// compaction capture touched and the global head (CLOSURE §7), and the head writes deferred
/// earlier. All are derived data, so a failure is logged and the next step tries again. The
/// search index takes the new entries and summaries too.
pub(crate) fn refresh_after_captures<'a>(
    store: &Store,
    captures: impl IntoIterator<Item = &'a CaptureOutcome>,
    delivered_to: &BTreeSet<WorkContextId>,
    now: DateTime<Utc>,
) {
    let mut touched = delivered_to.clone();
    let mut heads_touched = BTreeSet::new();
    let mut captured = false;
    let mut captures_touched = BTreeSet::new();
    let mut folders_touched = BTreeSet::new();
    for c in captures {
        touched.extend(c.touched.iter().cloned());
        if c.status == CaptureStatus::Captured {
            captures_touched.extend(c.work_context_id.iter().cloned());
            if c.work_context_id
                .as_ref()
                .is_some_and(WorkContextId::is_unlinked)
                && let Ok(s) = crate::inputs::sessions::get(store.graph(), c.session_id.as_str())
                && let Some(cwd) = s.cwd
            {
                folders_touched.insert(cwd);
            }
        }
        if c.status == CaptureStatus::Captured && refreshes_heads(c.trigger) {
            heads_touched.extend(c.touched.iter().cloned());
        }
        captured |= c.status == CaptureStatus::Captured;
    }
    // A run's delivery is one for all its captures: its targets take a head refresh when any
    // capture that refreshes heads set it off.
    if !heads_touched.is_empty() {
        heads_touched.extend(delivered_to.iter().cloned());
    }
    crate::views::constellation::refresh(store, &touched, now);
    // The lineage DAG takes the new summaries; an empty one (a store from before it existed) is
    // built whole instead.
    let lineage = match crate::views::lineage::ensure_built(store) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => crate::views::lineage::refresh(store, &touched).map(|_| ()),
        Err(e) => Err(e),
    };
    if let Err(e) = lineage {
        tracing::warn!(error = %e, "lineage refresh failed");
    }
    if captured && let Err(e) = crate::views::rollup::generate(store, now) {
        tracing::warn!(error = %e, "rollup refresh failed");
    }
    // The heads: a refresh when a session ended or compacted, else only the deferred writes (a
    // busy head is retried at the next pass, never dropped).
    let heads = if heads_touched.is_empty() {
        crate::views::heads::retry_deferred(store, now)
    } else {
        crate::views::heads::refresh(store, Some(&heads_touched), now)
    };
    if let Err(e) = heads {
        tracing::warn!(error = %e, "head refresh failed");
    }
    if captured {
        sync_search(store);
    }
    // The next session's brief quotes the one just captured: its lines are counted now, while
    // this process has the tokenizer loaded, so that brief need not load it.
    for wc in captures_touched.iter().filter(|wc| !wc.is_unlinked()) {
        if let Err(e) = crate::brief::warm_last_session(store, wc, now) {
            tracing::warn!(error = %e, context = %wc, "the last session's card not counted ahead");
        }
    }
    // A session no context claims: the cards of the folder it ran in.
    for cwd in &folders_touched {
        if let Err(e) = crate::brief::warm_folder(store, cwd, now) {
            tracing::warn!(error = %e, folder = %cwd, "the folder's cards not counted ahead");
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::ContinuityMode;
    use crate::base::secrets::MemorySecrets;

    /// One step over the project's samples: everything ingested, the due sessions captured into
    /// their projects' contexts, and the rollup written from them; a second step the same morning
    /// finds nothing new and captures nothing again.
    /// The sessions filter finds a session by its title first, then the sessions whose
    /// conversation holds the words, and keeps the other filters for both.
    #[test]
    fn the_sessions_filter_finds_titles_then_words_in_the_conversation() {
        let (_dir, store) = crate::test_support::sample_store();
        let now = Utc.with_ymd_and_hms(2026, 11, 3, 0, 0, 0).unwrap();
        let find = |text: &str, harness| {
            let q = crate::inputs::sessions::ListQuery {
                text: Some(text.into()),
                harness,
                ..Default::default()
            };
            find_sessions(&store, &q, now)
                .unwrap()
                .into_iter()
                .map(|s| {
                    s.display_title()
                        .unwrap_or_else(|| s.session_id.to_string())
                })
                .collect::<Vec<_>>()
        };
        let by_title = crate::inputs::sessions::list(
            store.graph(),
            &crate::inputs::sessions::ListQuery {
                text: Some("token refresh".into()),
                ..Default::default()
            },
            now,
        )
        .unwrap();
        let found = find("token refresh", None);
        // The title matches come first, in the list's order; word matches follow, each once.
        assert!(found.len() > by_title.len(), "{found:?}");
        for (f, t) in found.iter().zip(&by_title) {
            assert_eq!(Some(f.clone()), t.display_title());
        }
        let unique: BTreeSet<&String> = found.iter().collect();
        assert_eq!(unique.len(), found.len());
        // A harness filter keeps its sessions only, whichever way they matched.
        let codex = find(
            "token refresh",
            Some(crate::inputs::transcripts::Harness::Codex),
        );
        assert!(!codex.is_empty() && codex.len() < found.len(), "{codex:?}");
    }

    #[test]
    fn a_pass_ingests_captures_and_refreshes_the_rollup() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.set_mode(ContinuityMode::Deterministic).unwrap();
        let samples = crate::test_support::samples();
        let roots = [
            SourceRoot {
                harness: crate::inputs::transcripts::Harness::ClaudeCode,
                root: samples.join("claude-code"),
            },
            SourceRoot {
                harness: crate::inputs::transcripts::Harness::OpenClaw,
                root: samples.join("openclaw/agents"),
            },
        ];
        let rollup = dir.path().join("rollup/recent_activity.md");
        let at = Utc.with_ymd_and_hms(2026, 11, 3, 9, 0, 0).unwrap();
        let mut agent = Agent::new(&store.config().unwrap());
        let secrets = MemorySecrets::default();
        let first = pass(&mut agent, &store, &roots, &secrets, at, &mut |_| {}).unwrap();
        assert_eq!(first.ingest.records_added, 38);
        let captured: Vec<&str> = first
            .run
            .captures
            .iter()
            .filter(|c| c.status == CaptureStatus::Captured)
            .map(|c| c.session_id.as_str())
            .collect();
        assert_eq!(captured.len(), 3, "{captured:?}");
        let text = std::fs::read_to_string(&rollup).expect("the rollup was written");
        assert!(text.contains("workspace-henderson"), "{text}");
        assert!(text.contains("ledger-sync"), "{text}");
        let again = pass(&mut agent, &store, &roots, &secrets, at, &mut |_| {}).unwrap();
        assert_eq!(again.ingest.records_added, 0);
        assert!(
            again
                .run
                .captures
                .iter()
                .all(|c| c.status != CaptureStatus::Captured)
        );
    }
}
