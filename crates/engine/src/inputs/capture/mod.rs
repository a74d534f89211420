//! Continuity capture (CSA §5.3–5.5): turns one session's new turns into continuity log entries
//! in the right work context.
//!
//! One capture reads the turns since the session's last capture, resolves entities (known names
//! plus gated candidates), classifies the activity, resolves the work context, writes a session
//! summary record and points at it with a `session_summary_ref`, records a `work_phase_change`
//! when the phase moved, and adds open questions and key decisions — from the synthesis model in
//! full mode, from the heuristic detectors otherwise. Full mode that fails for any reason falls
//! back to deterministic and records why. `off` writes nothing at all.
//!
//! Writes go in an order that makes a crash harmless: entities first (one transaction), then the
//! log entries (durable appends), then the capture state. A capture interrupted before its state
//! is saved runs again over the same turns, and its entries are recognised and not repeated.

pub mod crossconv;
mod digest;
mod full;
pub mod heuristics;

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::base::config::ContinuityMode;
use crate::base::error::Result;
use crate::base::ids::{AgentId, EntityId, EntryId, SessionId, WorkContextId};
use crate::base::secrets::SecretStore;
use crate::continuity::{
    CaptureMode, ContinuityEntry, EntryContent, EntryType, KeyDecisionContent, OpenQuestionContent,
    SessionSummaryRefContent, WorkPhase, WorkPhaseChangeContent,
};
use crate::graph::contexts::{self, Resolution, SessionFacts};
use crate::graph::entities::{self, ChangeSource, NewEntity, sql_err, ts};
use crate::graph::store::Store;
use crate::inputs::activity::{self, ActivityType};
use crate::inputs::agent::Trigger;
use crate::inputs::resolve;
use crate::inputs::sessions;
use crate::inputs::transcripts::clean::{self, InjectedCounts};
use crate::inputs::transcripts::gist;

use heuristics::Speaker;

/// At most this many heuristic questions and decisions per capture: the latest ones, because a
/// session's end says more about where the work stands than its beginning.
const MAX_HEURISTIC_ITEMS: usize = 16;
/// At most this many entities are linked to each entry.
const MAX_LINKED_ENTITIES: usize = 10;

/// What to capture.
#[derive(Debug, Clone)]
pub struct CaptureRequest {
    pub session_id: SessionId,
    pub trigger: Trigger,
    pub now: DateTime<Utc>,
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureStatus {
    /// Entries were written.
    Captured,
    /// The mode is `off`: nothing was read or written.
    Off,
    /// No conversation turns since the last capture: nothing written.
    NothingNew,
    /// A sub-agent's session: it belongs to its parent's work context and makes no items of
    /// its own (its prompts are another agent's, not the person's).
    Subagent,
    /// The harness talking to itself (compaction, warm-up, title generation, a scheduled run
    /// with no person in it): no work context, no items.
    Internal,
}

/// The result of one capture.
#[derive(Debug, Clone, Serialize)]
pub struct CaptureOutcome {
    pub session_id: SessionId,
    pub trigger: Trigger,
    pub status: CaptureStatus,
    pub work_context_id: Option<WorkContextId>,
    pub resolution: Option<Resolution>,
    pub capture_mode: Option<CaptureMode>,
    /// Why full mode fell back to deterministic, when it did.
    pub fallback_reason: Option<String>,
    /// What full mode sent to its model and what came back, when it made a call.
    pub model_exchange: Option<full::ModelExchange>,
    pub activity: Option<ActivityType>,
    pub summary_id: Option<String>,
    pub summary: Option<String>,
    pub entities: Vec<EntityId>,
    pub new_entities: Vec<EntityId>,
    pub entries: Vec<ContinuityEntry>,
    /// Cross-conversation updates written to other work contexts.
    pub cross_updates: usize,
    /// The work contexts whose logs this capture changed (its own and the updates' targets):
    /// the views derived from them are stale until the use case that called it refreshes them.
    #[serde(skip)]
    pub touched: BTreeSet<WorkContextId>,
}

impl CaptureOutcome {
    fn empty(req: &CaptureRequest, status: CaptureStatus) -> CaptureOutcome {
        CaptureOutcome {
            session_id: req.session_id.clone(),
            trigger: req.trigger,
            status,
            work_context_id: None,
            resolution: None,
            capture_mode: None,
            fallback_reason: None,
            model_exchange: None,
            activity: None,
            summary_id: None,
            summary: None,
            entities: Vec::new(),
            new_entities: Vec::new(),
            entries: Vec::new(),
            cross_updates: 0,
            touched: BTreeSet::new(),
        }
    }
}

/// A conversation turn of the capture window.
#[derive(Debug, Clone)]
pub(crate) struct WindowTurn {
    pub seq: i64,
    pub speaker: Option<Speaker>,
    pub text: String,
    pub tools: Vec<String>,
    /// Files the assistant's calls in this turn changed (edit, write and patch tools), by name.
    pub changed: Vec<String>,
    /// One per call the assistant made in this turn, in order: the command it ran in a shell,
    /// if it was a shell call.
    pub ran: Vec<Option<String>>,
    /// For a tool's result: whether the call failed (an error flag, a non-zero exit code), when
    /// the harness says.
    pub failed: Option<bool>,
    pub timestamp: Option<DateTime<Utc>>,
}

/// Whether a user record holds anything the person typed (see [`clean::person_text`]).
pub(crate) fn is_person_text(text: &str) -> bool {
    !clean::person_text(text).text.is_empty()
}

/// The capture window: conversation turns since `after` (and up to `through`, when given), each
/// message reduced to the person's or the assistant's own words, and what was left out as
/// injected, per kind.
pub(crate) fn load_window(
    store: &Store,
    session_id: &str,
    after: i64,
    through: Option<i64>,
) -> Result<(Vec<WindowTurn>, InjectedCounts)> {
    let mut skipped = InjectedCounts::new();
    let turns = store.graph().with_conn_result(|c| {
        let mut stmt = c.prepare_cached(
            // A result's error flag is read in place from its raw record (Claude Code's
            // `is_error`, OpenClaw's `isError`), without carrying the record out, and only in
            // its first 64 KiB: the flag follows the result's text, and a whole file read of a
            // megabyte is not scanned for it (a first run reads every session's results).
            "SELECT seq, role, kind, text, tool_calls, timestamp, is_sidechain,
                    kind = 'tool_result'
                    AND (instr(substr(raw, 1, 65536), '\"is_error\":true') > 0
                         OR instr(substr(raw, 1, 65536), '\"isError\":true') > 0)
             FROM turns
             WHERE session_id = ?1 AND seq > ?2 AND (?3 IS NULL OR seq <= ?3)
               AND kind IN ('message', 'tool_call', 'tool_result')
             ORDER BY seq",
        )?;
        let rows = stmt.query_map(params![session_id, after, through], |r| {
            let role: String = r.get(1)?;
            let kind: String = r.get(2)?;
            let raw: String = r.get(3)?;
            let calls: String = r.get(4)?;
            let at: Option<String> = r.get(5)?;
            let sidechain: bool = r.get(6)?;
            let flagged: bool = r.get(7)?;
            let failed = (kind == "tool_result").then(|| flagged || exited_non_zero(&raw));
            // A sidechain message is one agent talking to a sub-agent: neither the person's
            // words nor the prose the person read.
            let cleaned = match (role.as_str(), kind.as_str(), sidechain) {
                ("user", "message", false) => Some((Speaker::User, clean::person_text(&raw))),
                ("assistant", "message", false) => {
                    Some((Speaker::Assistant, clean::assistant_prose(&raw)))
                }
                _ => None,
            };
            // Whether a user record is the harness or a program prompting the agent (a
            // heartbeat, a cron job, a role prompt, hook output): the reply then answers no one.
            let prompt = match &cleaned {
                Some((Speaker::User, c)) if c.text.is_empty() => Some(c.skipped.keys().any(|k| {
                    matches!(
                        k,
                        clean::Injected::Scheduled
                            | clean::Injected::ProgramPrompt
                            | clean::Injected::HookOutput
                            | clean::Injected::Notification
                    )
                })),
                Some((Speaker::User, _)) => Some(false),
                _ => None,
            };
            let (speaker, text, left_out) = match cleaned {
                Some((who, c)) if !c.text.is_empty() => (Some(who), c.text, c.skipped),
                Some((_, c)) => (None, String::new(), c.skipped),
                None => (None, raw, InjectedCounts::new()),
            };
            // Tool results repeat their call's name; only the calls count as tools used.
            let calls = if role == "assistant" {
                calls
            } else {
                "[]".to_owned()
            };
            let calls = serde_json::from_str::<Vec<String>>(&calls).unwrap_or_default();
            let changed = calls.iter().filter_map(|c| changed_file(c)).collect();
            let ran = calls.iter().map(|c| shell_command(c)).collect();
            let tools = calls
                .into_iter()
                .map(|c| c.split(':').next().unwrap_or("").trim().to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            Ok((
                WindowTurn {
                    seq: r.get(0)?,
                    speaker,
                    text,
                    tools,
                    changed,
                    ran,
                    failed,
                    timestamp: at.and_then(|a| {
                        DateTime::parse_from_rfc3339(&a)
                            .ok()
                            .map(|t| t.with_timezone(&Utc))
                    }),
                },
                left_out,
                prompt,
            ))
        })?;
        let mut out = Vec::new();
        let mut answering_harness = false;
        for row in rows {
            let (mut turn, left_out, prompt) = row?;
            for (k, n) in left_out {
                *skipped.entry(k).or_default() += n;
            }
            if let Some(p) = prompt {
                answering_harness = p;
            }
            // The agent's reply to a heartbeat or a program's prompt is not conversation with
            // the person ("HEARTBEAT_OK", a status report to a scheduler).
            if answering_harness && turn.speaker == Some(Speaker::Assistant) {
                turn.speaker = None;
                *skipped.entry(clean::Injected::Scheduled).or_default() += 1;
            }
            out.push(turn);
        }
        Ok(out)
    })?;
    Ok((turns, skipped))
}

/// The id of the summary record for a session's capture ending at `last_seq`: the same capture
/// re-run makes the same id, which is how a repeated capture is recognised.
fn summary_id(session_id: &str, last_seq: i64) -> String {
    let digest = Sha256::digest(session_id.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("ss_{hex}_{last_seq}")
}

/// Captures one session, then delivers the cross-conversation updates it set off.
pub(crate) fn capture(
    store: &Store,
    secrets: &dyn SecretStore,
    req: &CaptureRequest,
) -> Result<CaptureOutcome> {
    capture_through(store, secrets, req, None)
}

/// Captures one session and leaves the entity events it wrote for the caller to deliver: a run
/// that captures many sessions delivers once at its end (`Agent::capture_all`).
pub(crate) fn capture_undelivered(
    store: &Store,
    secrets: &dyn SecretStore,
    req: &CaptureRequest,
) -> Result<CaptureOutcome> {
    capture_window(store, secrets, req, None, false)
}

/// Captures one session's turns since its last capture up to and including turn `through`
/// (all of them when `None`). Reconstruct replays a recorded window this way, so that a session
/// captured several times is read again in the same pieces rather than at once.
pub(crate) fn capture_through(
    store: &Store,
    secrets: &dyn SecretStore,
    req: &CaptureRequest,
    through: Option<i64>,
) -> Result<CaptureOutcome> {
    capture_window(store, secrets, req, through, true)
}

/// The capture itself; `deliver` says whether it also delivers the pending cross-conversation
/// updates (its own and any left by earlier writes).
fn capture_window(
    store: &Store,
    secrets: &dyn SecretStore,
    req: &CaptureRequest,
    through: Option<i64>,
    deliver: bool,
) -> Result<CaptureOutcome> {
    let config = store.config()?;
    if config.mode == ContinuityMode::Off {
        return Ok(CaptureOutcome::empty(req, CaptureStatus::Off));
    }
    let graph = store.graph();
    let session = sessions::get(graph, &req.session_id)?;
    let session_id = session.session_id.clone();
    let (previous, after): (Option<String>, i64) = graph
        .with_conn_result(|c| {
            c.query_row(
                "SELECT work_context_id, last_seq FROM session_captures WHERE session_id = ?1",
                [&session.session_id],
                |r| Ok((Some(r.get(0)?), r.get(1)?)),
            )
            .optional()
        })?
        .unwrap_or((None, 0));
    let previous = previous.and_then(|p| WorkContextId::new(p).ok());
    let (window, injected) = load_window(store, &session.session_id, after, through)?;
    let Some(last_seq) = window.last().map(|t| t.seq) else {
        return Ok(CaptureOutcome::empty(req, CaptureStatus::NothingNew));
    };
    if let Some(outcome) = skip_non_primary(store, req, &session.session_id, last_seq)? {
        return Ok(outcome);
    }
    // When the work happened: the window's last turn with a time (issue 14's time truth), else
    // its session's last dated turn (the older Codex format dates only a session's start): never
    // the capture's own time, which would make last year's questions today's.
    let source_at = window.iter().rev().find_map(|t| t.timestamp).or_else(|| {
        session
            .last_activity_at
            .as_deref()
            .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
            .map(|at| at.with_timezone(&Utc))
    });

    let user_texts: Vec<&str> = window
        .iter()
        .filter(|t| t.speaker == Some(Speaker::User))
        .map(|t| t.text.as_str())
        .collect();
    let activity = activity::classify_session(user_texts.iter().copied());

    // Entities: known names, then candidates through the gate.
    // The automaton over every name is the graph's, kept while no name changes: a sweep over
    // thousands of sessions builds it again only after a capture that added an entity.
    let known = graph.known_names()?;
    let mut counts: BTreeMap<EntityId, u32> = BTreeMap::new();
    for t in window.iter().filter(|t| t.speaker.is_some()) {
        known.matcher.count_in(&t.text, &mut counts);
    }
    let known_first = ranked(&counts);
    let (_, pre) = graph.resolve_work_context(&SessionFacts {
        session_id: &session.session_id,
        agent_id: session.agent_id.as_deref(),
        cwd: session.cwd.as_deref(),
        entity_ids: &known_first,
        previous: previous.as_ref(),
    })?;
    let active = matches!(pre, Resolution::Rule { .. } | Resolution::Previous)
        && !previous.as_ref().is_some_and(WorkContextId::is_unlinked);
    let threshold = resolve::gate_threshold(&config, activity, active);
    let candidates = resolve::candidates(
        window
            .iter()
            .filter_map(|t| t.speaker.map(|s| (t.text.as_str(), s == Speaker::User))),
        &|text| known.lower.contains(&text.to_lowercase()),
    );
    let project_root = session
        .cwd
        .as_deref()
        .and_then(|cwd| {
            crate::graph::projects::of_cwd(cwd, crate::graph::projects::home_dir().as_deref())
        })
        .map(|p| p.root);
    let passing: Vec<_> = candidates
        .into_iter()
        .filter_map(|c| resolve::worth_having(c, project_root.as_deref()))
        .filter(|c| resolve::passes(c, threshold))
        .collect();

    // Candidates become entities before the work context is known, so their ids can take part
    // in resolution; their events are written below, once the context is known.
    let mut new_entities = Vec::new();
    {
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        for c in &passing {
            let new = NewEntity {
                kind: c.kind.as_str().to_owned(),
                canonical_name: c.text.clone(),
                aliases: Vec::new(),
                deadline: None,
            };
            match entities::create_in(&tx, &new, None, req.now)? {
                Ok(id) => {
                    counts.insert(id.clone(), c.mentions);
                    new_entities.push(id);
                }
                Err((_, existing)) => {
                    *counts.entry(existing).or_default() += c.mentions;
                }
            }
        }
        tx.commit().map_err(|e| graph.sql(e))?;
    }
    let entity_ids = ranked(&counts);
    let (wc, resolution) = graph.resolve_work_context(&SessionFacts {
        session_id: &session.session_id,
        agent_id: session.agent_id.as_deref(),
        cwd: session.cwd.as_deref(),
        entity_ids: &entity_ids,
        previous: previous.as_ref(),
    })?;
    let local_only = graph.with_conn_result(|c| contexts::is_local_only_in(c, &wc))?;

    // Summary and extras: the model in full mode, else (or on failure) the deterministic path.
    let mut fallback_reason = None;
    let mut model_exchange = None;
    let enriched = if config.mode == ContinuityMode::Full {
        let (reply, exchange) = full::enrich(store, secrets, &config, &window, local_only, req.now);
        model_exchange = exchange;
        match reply {
            Ok(reply) => Some(reply),
            Err(reason) => {
                tracing::warn!(session = %session.session_id, %reason, "full capture fell back to deterministic");
                fallback_reason = Some(reason);
                None
            }
        }
    } else {
        None
    };
    let capture_mode = if enriched.is_some() {
        CaptureMode::LlmEnriched
    } else {
        CaptureMode::Deterministic
    };
    let entity_names: BTreeMap<EntityId, String> = graph.with_conn_result(|c| {
        let mut out = BTreeMap::new();
        for id in entity_ids.iter().take(5) {
            let name: Option<String> = c
                .query_row(
                    "SELECT canonical_name FROM entities WHERE entity_id = ?1",
                    [id.as_str()],
                    |r| r.get(0),
                )
                .optional()?;
            out.extend(name.map(|n| (id.clone(), n)));
        }
        Ok(out)
    })?;
    let summary_text = match &enriched {
        Some(r) => r.session_summary.clone().unwrap_or_default(),
        None => {
            let recap = harness_recap(store, &session.session_id, &window)?;
            templated_summary(
                &session,
                &window,
                recap.as_deref(),
                &entity_ids,
                &entity_names,
            )
        }
    };
    let sid = summary_id(&session.session_id, last_seq);

    let log = store.log(&wc);
    // The log's questions, decisions, summaries and phase, folded in as they were appended
    // rather than read whole for every session (`digest.rs`).
    let digest = digest::of(&log)?;
    let known_texts = digest.known_texts.clone();
    // A decision a later session states again is a reference to the first record of it, which
    // the promotion rule "referenced in 3+ sessions" counts (CSA §3.3).
    let mut references: BTreeSet<EntryId> = BTreeSet::new();
    let mut note_reference = |text: &str| {
        if let Some((id, by)) = digest.decisions.get(&text.to_lowercase())
            && by != &session_id
        {
            references.insert(id.clone());
        }
    };
    let summary_known = digest.summaries.contains(sid.as_str());
    let last_phase = digest.last_phase;

    let linked: Vec<EntityId> = entity_ids
        .iter()
        .take(MAX_LINKED_ENTITIES)
        .cloned()
        .collect();
    let agent = session
        .agent_id
        .as_deref()
        .and_then(|a| AgentId::new(a).ok());
    let make = |content: EntryContent, mode: CaptureMode| {
        let mut e = ContinuityEntry::new(
            wc.clone(),
            session_id.clone(),
            req.now,
            mode,
            content,
            &config,
        );
        if let Some(at) = source_at {
            e = e.happened(at, &config);
        }
        e.linked_entity_ids = linked.clone();
        e.source_agent_id = agent.clone();
        e.linked_doc73_session_summary_id = Some(sid.clone());
        e
    };
    let mut entries = Vec::new();
    if !summary_known {
        let mut tools: Vec<String> = window.iter().flat_map(|t| t.tools.clone()).collect();
        tools.sort();
        tools.dedup();
        entries.push(make(
            EntryContent::SessionSummaryRef(SessionSummaryRefContent {
                doc73_session_summary_id: sid.clone(),
                entities_referenced: entity_ids.iter().map(|e| e.to_string()).collect(),
                procedures_executed: Vec::new(),
                tools_used: tools,
                turn_count: user_texts.len() as u32,
                duration_minutes: duration_minutes(&window),
            }),
            capture_mode,
        ));
    }
    let (phase, phase_reason) = match &enriched {
        Some(r) => (
            Some(r.work_phase).filter(|p| *p != WorkPhase::Unknown),
            "the synthesis model's reading of the session".to_owned(),
        ),
        None => (
            activity
                .map(ActivityType::phase)
                .filter(|p| *p != WorkPhase::Unknown),
            format!(
                "activity {} (verb families over the person's last turns)",
                activity.map(ActivityType::as_str).unwrap_or("unknown")
            ),
        ),
    };
    if let Some(phase) = phase
        && last_phase != Some(phase)
    {
        entries.push(make(
            EntryContent::WorkPhaseChange(WorkPhaseChangeContent {
                previous_phase: last_phase,
                new_phase: phase,
                reason: Some(phase_reason),
            }),
            capture_mode,
        ));
    }
    let mut seen = known_texts;
    match &enriched {
        Some(reply) => {
            for q in &reply.open_questions {
                if seen.insert(q.question.to_lowercase()) {
                    entries.push(make(
                        EntryContent::OpenQuestion(OpenQuestionContent {
                            question: q.question.clone(),
                            context: q.context.clone(),
                            resolved: false,
                            resolved_at: None,
                            resolution_summary: None,
                        }),
                        CaptureMode::LlmEnriched,
                    ));
                }
            }
            for d in &reply.key_decisions {
                note_reference(&d.decision);
                if seen.insert(d.decision.to_lowercase()) {
                    entries.push(make(
                        EntryContent::KeyDecision(KeyDecisionContent {
                            decision: d.decision.clone(),
                            rationale: d.rationale.clone(),
                            superseded_by: None,
                        }),
                        CaptureMode::LlmEnriched,
                    ));
                }
            }
        }
        None if config.deterministic_heuristic_capture => {
            let (questions, decisions) = detect(&window);
            for q in questions {
                if seen.insert(q.text.to_lowercase()) {
                    entries.push(make(
                        EntryContent::OpenQuestion(OpenQuestionContent {
                            question: q.text,
                            // A detector cannot know the question's background; it says which
                            // rule took the sentence and from what message.
                            context: format!("Taken because {}. From: {}", q.why, q.context),
                            resolved: false,
                            resolved_at: None,
                            resolution_summary: None,
                        }),
                        CaptureMode::Deterministic,
                    ));
                }
            }
            for d in decisions {
                note_reference(&d.text);
                if seen.insert(d.text.to_lowercase()) {
                    entries.push(make(
                        EntryContent::KeyDecision(KeyDecisionContent {
                            decision: d.text,
                            rationale: Some(format!("Taken because {}.", d.why)),
                            superseded_by: None,
                        }),
                        CaptureMode::Deterministic,
                    ));
                }
            }
        }
        None => {}
    }

    log.append_all(&entries)?;

    // The capture state, the summary record and the references, in one transaction.
    {
        let mut conn = graph.conn();
        let tx = conn.transaction().map_err(|e| graph.sql(e))?;
        let err = sql_err(&tx);
        let source = ChangeSource::capture(&session_id, &wc);
        if let Resolution::Auto { entity_ids } = &resolution {
            contexts::ensure_auto_in(&tx, &wc, entity_ids, req.now).map_err(&err)?;
        }
        for id in &entity_ids {
            // New entities' creation is recorded here, where the work context is known.
            let change = if new_entities.contains(id) {
                "created"
            } else {
                "referenced"
            };
            entities::changed_in(&tx, id, change, &source, req.now).map_err(&err)?;
            tx.execute(
                "INSERT INTO context_entity_mentions
                     (work_context_id, entity_id, mentions, last_session_id, last_seen_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (work_context_id, entity_id) DO UPDATE SET
                     mentions = mentions + excluded.mentions,
                     last_session_id = excluded.last_session_id,
                     last_seen_at = excluded.last_seen_at",
                params![
                    wc.as_str(),
                    id.as_str(),
                    counts.get(id).copied().unwrap_or(1),
                    session.session_id,
                    ts(req.now)
                ],
            )
            .map_err(&err)?;
        }
        for id in &references {
            tx.execute(
                "INSERT OR IGNORE INTO entry_references (entry_id, work_context_id, session_id, seen_at)
                 VALUES (?1, ?2, ?3, ?4)",
                params![id.as_str(), wc.as_str(), session.session_id, ts(req.now)],
            )
            .map_err(&err)?;
        }
        tx.execute(
            "INSERT OR IGNORE INTO session_summaries
                 (doc73_session_summary_id, session_id, text, generated_at, source)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                sid,
                session.session_id,
                summary_text,
                ts(req.now),
                if enriched.is_some() {
                    "llm"
                } else {
                    "deterministic"
                }
            ],
        )
        .map_err(&err)?;
        // The turns this capture read, for lineage: every entry above links `sid`.
        tx.execute(
            "INSERT OR IGNORE INTO capture_windows
                 (summary_id, session_id, after_seq, through_seq, recorded)
             VALUES (?1, ?2, ?3, ?4, 1)",
            params![
                sid,
                session.session_id,
                (after > 0).then_some(after),
                last_seq
            ],
        )
        .map_err(&err)?;
        save_state_in(&tx, &session.session_id, wc.as_str(), last_seq, req.now).map_err(&err)?;
        // Knowledge the lowered research gate let in is tracked, so the nightly job can tell
        // whether it was of use later (CSA §11.3 step 7).
        if activity == Some(ActivityType::Research) {
            for e in &entries {
                if matches!(
                    e.entry_type(),
                    EntryType::OpenQuestion | EntryType::KeyDecision
                ) {
                    tx.execute(
                        "INSERT OR IGNORE INTO research_captures
                             (entry_id, work_context_id, session_id, captured_at)
                         VALUES (?1, ?2, ?3, ?4)",
                        params![
                            e.entry_id.as_str(),
                            wc.as_str(),
                            session.session_id,
                            ts(e.captured_at)
                        ],
                    )
                    .map_err(&err)?;
                }
            }
        }
        tx.execute(
            "UPDATE transcript_sessions SET work_context_id = ?2 WHERE session_id = ?1",
            params![session.session_id, wc.as_str()],
        )
        .map_err(&err)?;
        tx.execute(
            "INSERT INTO capture_runs (session_id, work_context_id, trigger, config_mode,
                 capture_mode, fallback_reason, entries_written, captured_at, injected_skipped,
                 model_provider, model_input, model_answer)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                session.session_id,
                wc.as_str(),
                trigger_name(req.trigger),
                config.mode.as_str(),
                capture_mode_name(capture_mode),
                fallback_reason,
                entries.len() as i64,
                ts(req.now),
                injected_json(&injected),
                model_exchange.as_ref().map(|x| x.provider.as_str()),
                model_exchange.as_ref().map(|x| x.input.as_str()),
                model_exchange.as_ref().and_then(|x| x.answer.as_deref()),
            ],
        )
        .map_err(&err)?;
        drop(err);
        tx.commit().map_err(|e| graph.sql(e))?;
    }
    // The new entries, and the updates delivered below, are rebuild triggers (CSA §4.3) for the
    // views of the contexts they landed in: the outcome names them for the use case to refresh.
    let delivered = if deliver {
        crossconv::deliver_pending(store, &config, req.now)?
    } else {
        crossconv::Delivered::default()
    };
    let mut touched = delivered.touched.clone();
    touched.insert(wc.clone());

    Ok(CaptureOutcome {
        session_id: session_id.clone(),
        trigger: req.trigger,
        status: CaptureStatus::Captured,
        work_context_id: Some(wc),
        resolution: Some(resolution),
        capture_mode: Some(capture_mode),
        fallback_reason,
        model_exchange,
        activity,
        summary_id: Some(sid),
        summary: Some(summary_text),
        entities: entity_ids,
        new_entities,
        entries,
        cross_updates: delivered.written,
        touched,
    })
}

/// Where a session's captures have reached, so the next one starts after `last_seq`.
fn save_state_in(
    conn: &rusqlite::Connection,
    session_id: &str,
    wc: &str,
    last_seq: i64,
    now: DateTime<Utc>,
) -> rusqlite::Result<usize> {
    conn.execute(
        "INSERT INTO session_captures
             (session_id, work_context_id, last_seq, captured_at, capture_count)
         VALUES (?1, ?2, ?3, ?4, 1)
         ON CONFLICT (session_id) DO UPDATE SET
             work_context_id = excluded.work_context_id, last_seq = excluded.last_seq,
             captured_at = excluded.captured_at, capture_count = capture_count + 1",
        params![session_id, wc, last_seq, ts(now)],
    )
}

/// The per-kind counts of injected text a capture left out, as stored with its run.
fn injected_json(counts: &InjectedCounts) -> String {
    let map: BTreeMap<&str, u32> = counts.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    serde_json::to_string(&map).unwrap_or_else(|_| "{}".into())
}

/// A sub-agent's or the harness's own session makes no items: a sub-agent's session is placed
/// in its parent's work context, an internal one in none. Its capture state is saved so the
/// agent does not return to it until it has new turns.
fn skip_non_primary(
    store: &Store,
    req: &CaptureRequest,
    session_id: &str,
    last_seq: i64,
) -> Result<Option<CaptureOutcome>> {
    let graph = store.graph();
    let (kind, parent_wc): (String, Option<String>) = graph.with_conn_result(|c| {
        c.query_row(
            "SELECT s.session_kind, p.work_context_id FROM transcript_sessions s
             LEFT JOIN transcript_sessions p ON p.session_id = s.parent_session_id
             WHERE s.session_id = ?1",
            [session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    })?;
    let status = match crate::inputs::ingest::kinds::SessionKind::parse(&kind) {
        Some(crate::inputs::ingest::kinds::SessionKind::Subagent) => CaptureStatus::Subagent,
        Some(crate::inputs::ingest::kinds::SessionKind::Internal) => CaptureStatus::Internal,
        _ => return Ok(None),
    };
    let wc = match status {
        CaptureStatus::Subagent => parent_wc.and_then(|w| WorkContextId::new(w).ok()),
        _ => None,
    };
    graph.with_conn_result(|c| {
        let at = wc
            .as_ref()
            .map_or(WorkContextId::UNLINKED, WorkContextId::as_str);
        save_state_in(c, session_id, at, last_seq, req.now)?;
        c.execute(
            "UPDATE transcript_sessions SET work_context_id = ?2 WHERE session_id = ?1",
            params![session_id, wc.as_ref().map(WorkContextId::as_str)],
        )
    })?;
    let mut outcome = CaptureOutcome::empty(req, status);
    outcome.work_context_id = wc;
    Ok(Some(outcome))
}

/// Entity ids, most mentioned first, ties by id.
fn ranked(counts: &BTreeMap<EntityId, u32>) -> Vec<EntityId> {
    let mut v: Vec<(&EntityId, &u32)> = counts.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.into_iter().map(|(id, _)| id.clone()).collect()
}

fn duration_minutes(window: &[WindowTurn]) -> Option<u32> {
    let first = window.iter().find_map(|t| t.timestamp)?;
    let last = window.iter().rev().find_map(|t| t.timestamp)?;
    u32::try_from((last - first).num_minutes()).ok()
}

pub(crate) fn trigger_name(t: Trigger) -> &'static str {
    match t {
        Trigger::IdleTimeout => "idle_timeout",
        Trigger::DebouncedDefocus => "debounced_defocus",
        Trigger::PreCompaction => "pre_compaction",
        Trigger::NightlySweep => "nightly_sweep",
        Trigger::ManualRequest => "manual_request",
    }
}

fn capture_mode_name(m: CaptureMode) -> &'static str {
    match m {
        CaptureMode::Deterministic => "deterministic",
        CaptureMode::LlmEnriched => "llm_enriched",
    }
}

/// The heuristic detectors over the window's messages; the latest items are kept.
pub(crate) fn detect(
    window: &[WindowTurn],
) -> (Vec<heuristics::Detected>, Vec<heuristics::Detected>) {
    let mut questions = Vec::new();
    let mut decisions = Vec::new();
    let spoken: Vec<&WindowTurn> = window.iter().filter(|t| t.speaker.is_some()).collect();
    for (i, t) in spoken.iter().enumerate() {
        let speaker = t.speaker.unwrap_or(Speaker::User);
        questions.extend(heuristics::open_questions(&t.text, speaker));
        // The person's reply to a proposal decides it: "Soll ich …?" answered "ja".
        if speaker == Speaker::User
            && let Some(p) = i.checked_sub(1).map(|p| spoken[p])
            && p.speaker == Some(Speaker::Assistant)
        {
            decisions.extend(heuristics::accepted_proposal(&p.text, &t.text));
        }
        decisions.extend(heuristics::key_decisions(&t.text, speaker));
    }
    // The window ends on the assistant's words: what it asked the person is still open. (A
    // window ending on the person's unanswered request was tried as a rule too: on the labelled
    // real history such requests were mostly one-off asks, not items to pick up.)
    let mut finals = Vec::new();
    let last = window.iter().rev().find(|t| t.speaker.is_some());
    if let Some(t) = last.filter(|t| t.speaker == Some(Speaker::Assistant)) {
        finals.extend(heuristics::final_questions(&t.text));
    }
    // The last list of what is still to do ("Next steps", unchecked boxes) stays open even when
    // the person then turned to something else: no later message replaced it.
    finals.extend(
        window
            .iter()
            .rev()
            .filter(|t| t.speaker == Some(Speaker::Assistant))
            .map(|t| heuristics::final_pending_items(&t.text))
            .find(|items| !items.is_empty())
            .unwrap_or_default(),
    );
    for q in finals {
        if !questions.iter().any(|d| d.text == q.text) {
            questions.push(q);
        }
    }
    let keep_last = |mut v: Vec<heuristics::Detected>| {
        let start = v.len().saturating_sub(MAX_HEURISTIC_ITEMS);
        v.drain(..start);
        v
    };
    (keep_last(questions), keep_last(decisions))
}

/// The command a one-line tool call (`Name: detail`) ran in a shell: calls of tools named for a
/// shell or a command (`Bash`, `shell`, `exec_command`, `run_terminal_cmd`), by what they are
/// rather than by harness.
pub(crate) fn shell_command(call: &str) -> Option<String> {
    let (name, detail) = call.split_once(": ")?;
    let name = name.trim();
    let name = name.to_lowercase();
    let shell = ["bash", "shell", "exec", "command", "terminal"]
        .iter()
        .any(|n| name.contains(n));
    let detail = crate::base::tokens::one_line(detail);
    if !shell || detail.is_empty() || detail.starts_with(['{', '[']) {
        return None;
    }
    Some(unwrapped(&detail).to_owned())
}

/// A command without the shell it was handed to (`bash -lc "cargo test"`, `powershell.exe
/// -NoProfile -Command Get-ChildItem`) and without a leading `cd <folder> &&`: the script is
/// what was run, and where it ran is not.
fn unwrapped(command: &str) -> &str {
    without_cd(without_shell(command.trim()))
}

fn without_shell(command: &str) -> &str {
    const SHELLS: &[&str] = &["bash", "sh", "zsh", "pwsh", "powershell", "cmd"];
    let Some((first, after)) = command.split_once(' ') else {
        return command;
    };
    let name = first
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(first)
        .to_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    if !SHELLS.contains(&name) {
        return command;
    }
    let mut rest = after.trim_start();
    // Its flags ("-lc", "-NoProfile", "-Command", "/c"), then the script.
    while let Some((flag, after)) = rest.split_once(' ') {
        if !(flag.starts_with('-') || flag.eq_ignore_ascii_case("/c")) {
            break;
        }
        rest = after.trim_start();
    }
    for quote in ['"', '\''] {
        if let Some(inner) = rest.strip_prefix(quote).and_then(|r| r.strip_suffix(quote)) {
            return inner.trim();
        }
    }
    rest
}

fn without_cd(command: &str) -> &str {
    match command.strip_prefix("cd ").and_then(|r| r.split_once("&&")) {
        Some((folder, rest)) if !folder.trim().is_empty() && !rest.trim().is_empty() => rest.trim(),
        _ => command,
    }
}

/// Whether a tool result's text reports a non-zero exit: a JSON result's `metadata.exit_code`
/// (Codex), or an "exit code: N" / "Process exited with code N" line near its start.
fn exited_non_zero(text: &str) -> bool {
    // Codex ends its JSON result with `"metadata":{"exit_code":N,…}}`: its tail is read, not the
    // whole output parsed (every result of every window passes here, on a first run too).
    if text.starts_with('{') {
        let mut from = text.len().saturating_sub(200);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        if let Some(code) = code_after(&text[from..], &["\"exit_code\":"]) {
            return code != 0;
        }
    }
    let head: String = text.chars().take(400).collect::<String>().to_lowercase();
    code_after(&head, &["exit code: ", "exited with code ", "exit code "]).is_some_and(|c| c != 0)
}

/// The number written right after the first of `markers` found in `text` that has one.
fn code_after(text: &str, markers: &[&str]) -> Option<i64> {
    markers
        .iter()
        .filter_map(|m| text.find(m).map(|at| &text[at + m.len()..]))
        .find_map(|rest| {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<i64>().ok()
        })
}

/// What the window's shell commands came to, among those run more than once (a command run
/// again is one the agent was trying to get through; a lone `ls` or `grep` that found nothing
/// "fails" by its exit code alone): those that failed and then passed (oldest first), and those
/// whose last run still failed. A result answers the oldest call still waiting for one.
fn command_outcomes(window: &[WindowTurn]) -> (Vec<String>, Vec<String>) {
    let mut waiting: std::collections::VecDeque<Option<String>> = Default::default();
    // Per command, in order of first run: how many runs, whether one failed, whether the last did.
    let mut runs: Vec<(String, u32, bool, bool)> = Vec::new();
    for t in window {
        // Every call waits for its result; only shell commands are followed.
        waiting.extend(t.ran.iter().cloned());
        let Some(failed) = t.failed else { continue };
        let Some(command) = waiting.pop_front().flatten() else {
            continue;
        };
        match runs.iter_mut().find(|r| r.0 == command) {
            Some(r) => {
                r.1 += 1;
                r.2 |= failed;
                r.3 = failed;
            }
            None => runs.push((command, 1, failed, failed)),
        }
    }
    let again = || runs.iter().filter(|r| r.1 >= 2);
    let fixed = again()
        .filter(|r| r.2 && !r.3)
        .map(|r| r.0.clone())
        .collect();
    let failing = again().filter(|r| r.3).map(|r| r.0.clone()).collect();
    (fixed, failing)
}

/// The file a one-line tool call (`Name: detail`) changed, by its last path component: calls of
/// tools that edit, write or patch files, named by what they do rather than by harness. A
/// patch names its files on `*** Update File:` / `*** Add File:` lines.
pub(crate) fn changed_file(call: &str) -> Option<String> {
    let (name, detail) = call.split_once(": ")?;
    let name = name.to_lowercase();
    let path = if name.contains("patch") {
        detail
            .split("File:")
            .nth(1)?
            .split_whitespace()
            .next()?
            .trim_end_matches('*')
    } else if (name.contains("edit") || name.contains("write"))
        && !detail.trim_start().starts_with(['{', '['])
        && (detail.contains('/') || detail.contains('\\') || detail.contains('.'))
    {
        detail.trim()
    } else {
        return None;
    };
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path).trim();
    (!base.is_empty() && base.len() <= 120).then(|| base.to_owned())
}

/// The harness's own recap of where the session stands, when it wrote one inside the window
/// (Claude Code's `away_summary`: "Implementing X. Next: run the tests"): a summary the person
/// already paid for. Its trailing parenthesis (how to turn recaps off) is not about the work.
fn harness_recap(store: &Store, session_id: &str, window: &[WindowTurn]) -> Result<Option<String>> {
    let Some(first) = window.first() else {
        return Ok(None);
    };
    // A recap is written when the person steps away, after the window's last turn: any of the
    // session's from the window's start on.
    let text: Option<String> = store.graph().with_conn_result(|c| {
        c.query_row(
            // `turns_recaps` (migration 17), a partial index on exactly this record type.
            "SELECT text FROM turns INDEXED BY turns_recaps
             WHERE session_id = ?1 AND seq >= ?2 AND record_type = 'system/away_summary'
               AND text <> ''
             ORDER BY seq DESC LIMIT 1",
            params![session_id, first.seq],
            |r| r.get(0),
        )
        .optional()
    })?;
    Ok(text.map(|t| {
        let t = t.trim();
        match t.rfind(" (") {
            Some(at) if t.ends_with(')') && t.len() - at < 60 => t[..at].trim().to_owned(),
            _ => t.to_owned(),
        }
    }))
}

/// `text` with secret-looking strings and private spans masked (the summary is canonical data:
/// it goes into every brief of its context and travels with the logs), on one line, cut at a
/// word to at most `max` characters, with an ellipsis when cut. Masked before the cut, so a
/// secret is never cut into a part the patterns no longer recognise.
fn clip(text: &str, max: usize) -> String {
    let masked = crate::base::redact::redact(text);
    let flat = masked.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(at) if at > max / 2 => &cut[..at],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.', ' ']))
}

/// The deterministic session summary (CSA §5.3, "templated summary"), in three lines. The
/// first, which the card shows as *Last*, says what happened: the person's request, the gist of
/// the agent's final report and the files changed. The second, the card's *Now*, where the
/// session left the work (see [`where_it_stands`]), when anything says. The third is the
/// record: the last request when it differs, counts, entities, tools, where.
fn templated_summary(
    session: &sessions::SessionInfo,
    window: &[WindowTurn],
    recap: Option<&str>,
    entity_ids: &[EntityId],
    names: &BTreeMap<EntityId, String>,
) -> String {
    let said = |who: Speaker| window.iter().filter(move |t| t.speaker == Some(who));
    let users = said(Speaker::User).count();
    let replies = said(Speaker::Assistant).count();
    let mut tools: BTreeMap<&str, u32> = BTreeMap::new();
    for t in window {
        for name in &t.tools {
            *tools.entry(name.as_str()).or_default() += 1;
        }
    }
    let mut tools: Vec<(&str, u32)> = tools.into_iter().collect();
    tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut changed: Vec<&str> = Vec::new();
    for f in window.iter().flat_map(|t| &t.changed) {
        if !changed.contains(&f.as_str()) {
            changed.push(f);
        }
    }
    let mut out = String::new();
    // A bare slash command (`/start`, `/resume <id>`) ran something; the request that says what
    // the work is comes before or after it. A session of commands only opens on what the agent
    // said (a command says nothing a person would call the work), or, with nothing said, on the
    // command: the line still says what happened.
    let worded = |t: &&WindowTurn| !clean::bare_command(&t.text);
    let replied = said(Speaker::Assistant).next().is_some();
    let first = said(Speaker::User)
        .find(worded)
        .or_else(|| said(Speaker::User).next().filter(|_| !replied));
    let last = said(Speaker::User)
        .rfind(worded)
        .or_else(|| said(Speaker::User).next_back().filter(|_| !replied));
    if let Some(first) = first {
        out.push_str(&format!("\"{}\"", clip(&first.text, 140)));
    }
    // The agent's last words are its report: what it did, where it stands, what is next.
    if let Some(report) = said(Speaker::Assistant).next_back() {
        if !out.is_empty() {
            out.push_str(" → ");
        }
        // Its gist, not its first characters: the lead, then what names files and results.
        out.push_str(&gist(&crate::base::redact::redact(&report.text), 180));
    }
    if !out.is_empty() && !out.ends_with(['.', '…', '!', '?']) {
        out.push('.');
    }
    if !changed.is_empty() {
        let more = changed.len().saturating_sub(6);
        out.push_str(&format!(
            " Changed: {}",
            changed[..changed.len().min(6)].join(", ")
        ));
        if more > 0 {
            out.push_str(&format!(" (+{more})"));
        }
        out.push('.');
    }
    // What the commands the agent kept running came to is where the work stands when nothing
    // else says; beside a recap or an unanswered request it goes to the record, keeping the
    // card's line short.
    let mut now = where_it_stands(window, recap);
    let mut commands = commands_now(window);
    if now.is_none() {
        now = commands.take();
    }
    if let Some(now) = &now {
        out.push_str(&format!("\n{SUMMARY_NOW}{now}"));
    }
    out.push('\n');
    if let (Some(first), Some(last)) = (first, last)
        && first.seq != last.seq
        && !now.as_deref().is_some_and(|n| n.starts_with(UNANSWERED))
    {
        out.push_str(&format!("Ended on \"{}\". ", clip(&last.text, 120)));
    }
    if let Some(commands) = commands {
        out.push_str(&format!("Commands: {commands} "));
    }
    out.push_str(&format!("{users} request(s), {replies} repl(ies)"));
    if let Some(d) = duration_minutes(window) {
        out.push_str(&format!(" over {d} min"));
    }
    out.push('.');
    let shown: Vec<String> = entity_ids
        .iter()
        .take(5)
        .map(|id| names.get(id).cloned().unwrap_or_else(|| id.to_string()))
        .collect();
    if !shown.is_empty() {
        out.push_str(&format!(" Entities: {}.", shown.join(", ")));
    }
    if !tools.is_empty() {
        let top: Vec<String> = tools
            .iter()
            .take(5)
            .map(|(n, k)| format!("{n} ×{k}"))
            .collect();
        out.push_str(&format!(" Tools: {}.", top.join(", ")));
    }
    out.push_str(&format!(" Harness: {}", session.harness));
    if let Some(title) = &session.title {
        out.push_str(&format!(", session \"{title}\""));
    }
    if let Some(cwd) = &session.cwd {
        out.push_str(&format!(", in {cwd}"));
    }
    out.push('.');
    out.trim_start().to_owned()
}

/// The longest a command is quoted in a summary, in characters.
const COMMAND_CHARS: usize = 60;

/// How many of the files a session changed after its last words its *Now* line names.
const NOW_FILES: usize = 3;

/// The label of a templated summary's second line: where the session left the work.
pub(crate) const SUMMARY_NOW: &str = "Now: ";
const UNANSWERED: &str = "no reply yet to";

/// What the commands the agent kept running came to, in a sentence: "`cargo test` passed after
/// failing; `npm run build` still failed." The latest two of each.
fn commands_now(window: &[WindowTurn]) -> Option<String> {
    let (fixed, failing) = command_outcomes(window);
    let quoted = |commands: &[String]| {
        let from = commands.len().saturating_sub(2);
        commands[from..]
            .iter()
            .map(|c| format!("`{}`", clip(c, COMMAND_CHARS)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !fixed.is_empty() {
        parts.push(format!("{} passed after failing", quoted(&fixed)));
    }
    if !failing.is_empty() {
        parts.push(format!("{} still failed", quoted(&failing)));
    }
    (!parts.is_empty()).then(|| format!("{}.", parts.join("; ")))
}

/// Where the session left the work, when anything says: the harness's own recap ("Implementing
/// X. Next: run the tests"), a last request the agent never answered, or tool calls the agent
/// was still making when the session ended.
fn where_it_stands(window: &[WindowTurn], recap: Option<&str>) -> Option<String> {
    if let Some(recap) = recap {
        return Some(clip(recap, 200));
    }
    let spoken: Vec<&WindowTurn> = window.iter().filter(|t| t.speaker.is_some()).collect();
    let last = spoken.last()?;
    if last.speaker == Some(Speaker::User) {
        // The card's first line already quotes a session's only request.
        return Some(if spoken.len() == 1 {
            "the agent had not replied when the session ended.".to_owned()
        } else {
            format!("{UNANSWERED} \"{}\".", clip(&last.text, 120))
        });
    }
    let after: Vec<&WindowTurn> = window.iter().filter(|t| t.seq > last.seq).collect();
    let calls = after.iter().map(|t| t.tools.len()).sum::<usize>();
    let latest = after.iter().rev().find_map(|t| t.tools.last())?;
    // What it was doing, by name: the files it changed and the last command it ran after its
    // last words; a count of calls says nothing to act on.
    let mut changed: Vec<&str> = Vec::new();
    for f in after.iter().flat_map(|t| &t.changed) {
        if !changed.contains(&f.as_str()) {
            changed.push(f);
        }
    }
    let ran = after
        .iter()
        .rev()
        .flat_map(|t| t.ran.iter().rev())
        .find_map(|r| r.as_deref());
    let mut doing = Vec::new();
    if !changed.is_empty() {
        // The latest few: a long run of edits would otherwise fill the line.
        let from = changed.len().saturating_sub(NOW_FILES);
        let more = if from > 0 {
            format!(" (+{from})")
        } else {
            String::new()
        };
        doing.push(format!("changed {}{more}", changed[from..].join(", ")));
    }
    if let Some(cmd) = ran {
        doing.push(format!("last ran `{}`", clip(cmd, COMMAND_CHARS)));
    }
    Some(if doing.is_empty() {
        format!(
            "still working when the session ended: {calls} tool call(s) after its last message, {latest} last."
        )
    } else {
        format!(
            "still working when the session ended: after its last message it {}.",
            doing.join("; ")
        )
    })
}

#[cfg(test)]
mod tests;
