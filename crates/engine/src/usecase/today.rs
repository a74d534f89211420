//! Today: what needs the person first, then where their projects stand. The app opens on it and
//! `elnor today` prints it.
//!
//! It gathers, in one read:
//! - the proposals waiting for review (promotions and Topic memberships: the number the Review
//!   page lists);
//! - the open questions waiting longest in the work contexts active lately (the person's own
//!   questions before the detectors' guesses);
//! - the work contexts that moved since the person last looked at Today;
//! - capture health (see [`crate::usecase::health`]): a harness silent for longer than its usual
//!   gap between sessions, no transcript folder found at all, full mode without a model, a nightly job that stopped running,
//!   unreadable log lines, a harness hook that is installed but has never fired though the
//!   harness ran sessions since, OpenClaw's Dreaming running beside ELNOR;
//! - the projects found in the history, newest work first, each with where it stands.
//!
//! Reading Today is the person looking: it remembers when, in `agent_state`, so the next visit
//! can say what moved since. A visit within [`VISIT_GAP`] of the last one is the same visit, so
//! coming back to Today from another page does not empty "moved since you last looked".

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::config::ContinuityMode;
use crate::base::error::Result;
use crate::base::ids::{SessionId, WorkContextId};
use crate::continuity::EntryContent;
use crate::graph::entities::{parse_ts, ts};
use crate::graph::store::Store;
use crate::inputs::transcripts::Harness;
use crate::usecase::harness::HarnessPaths;
use crate::usecase::harness::dreaming::{DreamingState, dreaming_status};
use crate::usecase::harness::hooks::hook_status;
use crate::views::overview::ProjectOverview;

/// How recently a work context must have moved for its open questions to be waiting on the
/// person: a project left a year ago is history, not a to-do list.
pub const ACTIVE_DAYS: i64 = 30;

/// How many waiting questions, moved contexts and projects Today lists.
pub const QUESTIONS_SHOWN: usize = 5;
pub const PROJECTS_SHOWN: usize = 8;

/// Two looks at Today closer than this are one visit.
pub const VISIT_GAP: Duration = Duration::hours(1);

/// The nightly job is overdue when its last run is older than this.
pub const NIGHTLY_OVERDUE_HOURS: i64 = 48;

const SEEN: &str = "today_seen";
const PREVIOUS: &str = "today_previous";

/// An open question waiting on the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WaitingQuestion {
    pub work_context_id: WorkContextId,
    pub context_name: String,
    pub question: String,
    /// When it was first asked (when the work happened).
    pub asked_at: DateTime<Utc>,
    /// Found by the heuristic detectors rather than written by a model or the person.
    pub heuristic: bool,
    /// The session it was asked in (its latest mention), so the person can read it in place.
    pub source_session_id: SessionId,
}

/// A work context with sessions since the person last looked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedContext {
    pub work_context_id: WorkContextId,
    pub name: String,
    /// Sessions whose last turn came after the last look.
    pub sessions_since: u64,
    pub last_active_at: String,
}

/// What kind of capture problem an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A harness has been silent for longer than its usual gap between sessions.
    HarnessQuiet,
    /// No transcript folder exists for any enabled source.
    NoSources,
    /// Full mode without a synthesis model: captures fall back to deterministic.
    NoModel,
    /// The nightly job has not run for a while.
    NightlyOverdue,
    /// Continuity log lines that could not be read.
    UnreadableLines,
    /// A hook `elnor setup` installed has never fired, though its harness ran sessions since.
    HookNeverFired,
    /// OpenClaw's Dreaming runs beside ELNOR (CSA §10).
    DreamingOn,
    /// Transcript files whose records ELNOR could not read, so their turns are missing.
    LostTurns,
    /// Two devices changed one thing without seeing each other's change; sync kept the later.
    SyncConflict,
    /// A sync brought entries or changes from the person's other devices.
    SyncArrived,
}

impl AlertKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AlertKind::HarnessQuiet => "harness_quiet",
            AlertKind::NoSources => "no_sources",
            AlertKind::NoModel => "no_model",
            AlertKind::NightlyOverdue => "nightly_overdue",
            AlertKind::UnreadableLines => "unreadable_lines",
            AlertKind::HookNeverFired => "hook_never_fired",
            AlertKind::DreamingOn => "dreaming_on",
            AlertKind::LostTurns => "lost_turns",
            AlertKind::SyncConflict => "sync_conflict",
            AlertKind::SyncArrived => "sync_arrived",
        }
    }
}

/// One capture health problem, said the way the person reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealthAlert {
    pub kind: AlertKind,
    pub message: String,
}

/// Today.
#[derive(Debug, Clone, Serialize)]
pub struct Today {
    /// Proposals waiting in the review queue (promotions and Topic memberships).
    pub pending_reviews: usize,
    /// Open questions in contexts active in the last [`ACTIVE_DAYS`], the person's first, then
    /// the longest open; at most [`QUESTIONS_SHOWN`].
    pub waiting_questions: Vec<WaitingQuestion>,
    /// All of them, of which `waiting_questions` is the head.
    pub waiting_question_count: usize,
    /// When the person looked before this visit (`None` on the first).
    pub last_looked_at: Option<DateTime<Utc>>,
    /// Contexts with sessions since then, newest first.
    pub moved: Vec<MovedContext>,
    pub alerts: Vec<HealthAlert>,
    /// The projects, newest work first; at most [`PROJECTS_SHOWN`].
    pub projects: Vec<ProjectOverview>,
    /// Every work context found as a project in the history: the Work contexts page's Projects.
    pub project_count: usize,
}

/// Reads Today at `now` and remembers the look, with the harnesses' settings where this
/// process's environment says they are (see [`today_with`]); without a home directory the
/// hook and Dreaming alerts are left out.
pub fn today(store: &Store, now: DateTime<Utc>) -> Result<Today> {
    let paths = HarnessPaths::from_env().ok();
    today_in(store, now, paths.as_ref())
}

/// Reads Today at `now` and remembers the look, reading the harnesses' settings where `paths`
/// says they are.
pub fn today_with(store: &Store, now: DateTime<Utc>, paths: &HarnessPaths) -> Result<Today> {
    today_in(store, now, Some(paths))
}

fn today_in(store: &Store, now: DateTime<Utc>, paths: Option<&HarnessPaths>) -> Result<Today> {
    let last_looked_at = look(store, now)?;
    let graph = store.graph();
    let pending_reviews = pending_review_count(store)?;
    let contexts = graph.work_contexts()?;
    let project_count = contexts
        .iter()
        .filter(|w| w.origin == crate::graph::contexts::Origin::Project)
        .count();
    let active_since = now - Duration::days(ACTIVE_DAYS);
    let mut waiting = Vec::new();
    // Every context's log is read once here, for its questions and its unreadable lines alike.
    let mut skipped_lines = 0u64;
    let mut moved = Vec::new();
    for wc in &contexts {
        let sessions_last = wc
            .last_active_at
            .as_deref()
            .and_then(|t| parse_ts(Some(t.into())));
        if let (Some(looked), Some(last)) = (last_looked_at, sessions_last)
            && last > looked
        {
            let since = graph.with_conn_result(|c| {
                c.query_row(
                    "SELECT count(*) FROM transcript_sessions
                     WHERE work_context_id = ?1 AND last_turn_at > ?2",
                    params![wc.work_context_id.as_str(), ts(looked)],
                    |r| r.get::<_, i64>(0),
                )
            })?;
            moved.push(MovedContext {
                work_context_id: wc.work_context_id.clone(),
                name: wc.name.clone(),
                sessions_since: since.max(0) as u64,
                last_active_at: wc.last_active_at.clone().unwrap_or_default(),
            });
        }
        // A context is active through its sessions or through its log: a named context the
        // person keeps by hand (entries appended, pushes told to it) has no sessions at all.
        let read = store.log(&wc.work_context_id).read()?;
        skipped_lines += read.skipped.len() as u64;
        let entries = read.entries;
        let logged_last = entries.iter().map(|e| e.happened_at()).max();
        if sessions_last
            .max(logged_last)
            .is_some_and(|last| last >= active_since)
        {
            waiting.extend(open_questions(&entries, &wc.work_context_id, &wc.name, now));
        }
    }
    moved.sort_by(|a, b| b.last_active_at.cmp(&a.last_active_at));
    waiting.sort_by(|a, b| {
        a.heuristic
            .cmp(&b.heuristic)
            .then(a.asked_at.cmp(&b.asked_at))
    });
    let waiting_question_count = waiting.len();
    waiting.truncate(QUESTIONS_SHOWN);
    Ok(Today {
        pending_reviews,
        waiting_questions: waiting,
        waiting_question_count,
        last_looked_at,
        moved,
        alerts: alerts(store, now, skipped_lines, paths)?,
        projects: crate::views::overview::projects(store, PROJECTS_SHOWN)?,
        project_count,
    })
}

/// Proposals waiting in the review queue: promotions and Topic memberships, the count the
/// Review page lists and its sidebar badge shows.
pub fn pending_review_count(store: &Store) -> Result<usize> {
    let promotions = store.graph().pending_proposal_count()?;
    let memberships = crate::review::topics::pending(store)?.len();
    Ok(usize::try_from(promotions).unwrap_or(usize::MAX) + memberships)
}

/// Records a look at `now`; returns when the person looked before this visit.
fn look(store: &Store, now: DateTime<Utc>) -> Result<Option<DateTime<Utc>>> {
    store.graph().with_conn_result(|c| {
        let get = |key: &str| -> rusqlite::Result<Option<DateTime<Utc>>> {
            let value: Option<String> = c
                .query_row("SELECT value FROM agent_state WHERE key = ?1", [key], |r| {
                    r.get(0)
                })
                .optional()?;
            Ok(parse_ts(value))
        };
        let set = |key: &str, at: DateTime<Utc>| {
            c.execute(
                "INSERT INTO agent_state (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, ts(at)],
            )
        };
        let seen = get(SEEN)?;
        let previous = get(PREVIOUS)?;
        let before = match seen {
            // A new visit: the last one becomes "before".
            Some(s) if now - s >= VISIT_GAP => {
                set(PREVIOUS, s)?;
                Some(s)
            }
            // The same visit: "before" stays what it was when the visit began.
            Some(_) => previous,
            None => None,
        };
        set(SEEN, now)?;
        Ok(before)
    })
}

/// A context's unresolved, undecayed open questions, each once, with when it was first asked.
fn open_questions(
    entries: &[crate::continuity::ContinuityEntry],
    wc: &WorkContextId,
    name: &str,
    now: DateTime<Utc>,
) -> Vec<WaitingQuestion> {
    // Newest first: the newest mention of a question says whether it is still open.
    let mut entries: Vec<_> = entries.iter().collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.happened_at()));
    let mut by_text: BTreeMap<String, Option<WaitingQuestion>> = BTreeMap::new();
    for e in entries {
        let EntryContent::OpenQuestion(q) = &e.content else {
            continue;
        };
        let key = q.question.trim().to_lowercase();
        match by_text.get_mut(&key) {
            None => {
                let open = !q.resolved && !e.is_expired(now);
                by_text.insert(
                    key,
                    open.then(|| WaitingQuestion {
                        work_context_id: wc.clone(),
                        context_name: name.to_owned(),
                        question: q.question.clone(),
                        asked_at: e.happened_at(),
                        heuristic: e.is_reduced_confidence(),
                        source_session_id: e.source_session_id.clone(),
                    }),
                );
            }
            // An older mention of a question still open: it has been open since then.
            Some(Some(w)) => w.asked_at = w.asked_at.min(e.happened_at()),
            Some(None) => {}
        }
    }
    by_text.into_values().flatten().collect()
}

/// The capture health problems at `now`; `skipped_lines` are the work contexts' unreadable log
/// lines, counted as Today read the logs.
fn alerts(
    store: &Store,
    now: DateTime<Utc>,
    skipped_lines: u64,
    paths: Option<&HarnessPaths>,
) -> Result<Vec<HealthAlert>> {
    let mut out = Vec::new();
    // A harness that used to record sessions and has been silent past its usual gap.
    // Only the silences: Today is read on every visit, and the rest of the health report (the
    // sources' files, the sessions that ended uncaptured) is `elnor doctor`'s.
    for harness in crate::inputs::transcripts::Harness::ALL {
        let h = crate::usecase::health::silence(store.graph(), harness, now)?;
        let (true, Some(last)) = (h.silent, h.last_session_at) else {
            continue;
        };
        let usual = match h.usual_gap.map(|g| g.num_hours()) {
            Some(hours) if hours < 48 => format!("about every {} hours", hours.max(1)),
            Some(hours) => format!("about every {} days", hours / 24),
            None => "only a few times so far".to_owned(),
        };
        let label = harness.label();
        out.push(HealthAlert {
            kind: AlertKind::HarnessQuiet,
            message: format!(
                "No new {label} sessions since {}; it recorded {usual}. If you still use {label}, \
                 check its transcript folder in Settings.",
                last.format("%Y-%m-%d"),
            ),
        });
    }
    let sources = store.sources().load()?;
    if !sources.is_empty() && !sources.iter().any(|s| s.enabled && s.root.is_dir()) {
        out.push(HealthAlert {
            kind: AlertKind::NoSources,
            message: "None of the transcript folders ELNOR reads exists on this machine, so no \
                      new sessions are recorded. Add the folder your agents write to in Settings."
                .into(),
        });
    }
    if let Ok(config) = store.config()
        && config.mode == ContinuityMode::Full
        && config.synthesis_base_url.is_none()
        && !config.synthesis_provider.is_agent_cli()
    {
        out.push(HealthAlert {
            kind: AlertKind::NoModel,
            message: "Full mode is on but no model is set, so sessions are summarised the \
                      offline way. Set a model in Settings, or choose the offline mode."
                .into(),
        });
    }
    if let Some(last) = crate::usecase::nightly::last_run(store)?
        && now - last >= Duration::hours(NIGHTLY_OVERDUE_HOURS)
    {
        out.push(HealthAlert {
            kind: AlertKind::NightlyOverdue,
            message: format!(
                "The nightly job last ran on {}; proposals and decay wait for it. It runs while \
                 the app is open.",
                last.format("%Y-%m-%d")
            ),
        });
    }
    if let Some(paths) = paths {
        out.extend(harness_alerts(store, paths)?);
    }
    out.extend(lost_turns_alert(store)?);
    out.extend(sync_conflict_alerts(store, now)?);
    out.extend(
        crate::usecase::sync::take_unseen_arrivals(store)?
            .into_iter()
            .map(|a| HealthAlert {
                kind: AlertKind::SyncArrived,
                message: format!("Arrived from your other devices. {}", a.sentence()),
            }),
    );
    if skipped_lines > 0 {
        out.push(HealthAlert {
            kind: AlertKind::UnreadableLines,
            message: format!(
                "{} lines of the continuity logs could not be read; they are left in place and \
                 skipped.",
                skipped_lines
            ),
        });
    }
    Ok(out)
}

/// One alert per sync conflict not yet shown, said in the person's words: what was changed on
/// two devices, what was kept and what was not. Each is shown once; `elnor sync --status` and
/// Settings keep the list.
fn sync_conflict_alerts(store: &Store, now: DateTime<Utc>) -> Result<Vec<HealthAlert>> {
    let graph = store.graph();
    let mut out = Vec::new();
    for c in graph.take_unseen_sync_conflicts(now)? {
        let what = conflict_subject(graph, &c.subject, &c.field);
        out.push(HealthAlert {
            kind: AlertKind::SyncConflict,
            message: format!(
                "Two of your devices changed {what} without seeing each other's change: sync kept \
                 \"{}\" (from {}), the later one, over \"{}\" (from {}).",
                c.kept_value, c.kept_device, c.lost_value, c.lost_device
            ),
        });
    }
    Ok(out)
}

/// What a conflict was about, named the way the person knows it: a work context, an entity or
/// a Topic by its name, a piece of knowledge by its text, a review by its entry.
fn conflict_subject(graph: &crate::graph::Graph, subject: &str, field: &str) -> String {
    let field = field.replace('_', " ");
    if let Ok(wc) = graph.work_context(subject) {
        return format!("the {field} of \"{}\"", wc.name);
    }
    if let Some(rest) = subject.strip_prefix("review ") {
        return format!(
            "the review of the proposal from entry {}",
            rest.split(' ').next().unwrap_or(rest)
        );
    }
    if let Ok(e) = graph.entity(subject) {
        return format!("the {field} of entity \"{}\"", e.canonical_name);
    }
    if let Some(t) = crate::base::ids::TopicId::new(subject)
        .ok()
        .and_then(|id| graph.topic(&id).ok())
    {
        return format!("the {field} of Topic \"{}\"", t.name);
    }
    if let Ok(n) = graph.node(subject) {
        let text: String = n.node.text.chars().take(80).collect();
        let more = if n.node.text.chars().count() > 80 {
            "…"
        } else {
            ""
        };
        return format!("the {field} of \"{text}{more}\"");
    }
    format!("{field} of {subject}")
}

/// One alert for the transcript files that lost turns, naming the worst of them and the record
/// type it could not read; `elnor doctor` and Health list them all.
fn lost_turns_alert(store: &Store) -> Result<Option<HealthAlert>> {
    let lost = crate::usecase::health::census::files_that_lost_turns(store, false)?;
    let Some(worst) = lost
        .iter()
        .max_by_key(|f| f.not_understood.iter().map(|t| t.count).sum::<u64>())
    else {
        return Ok(None);
    };
    let unread: u64 = worst.not_understood.iter().map(|t| t.count).sum();
    let kind = worst
        .not_understood
        .first()
        .map(|t| format!(" (type \"{}\")", t.record_type))
        .unwrap_or_default();
    let others = match lost.len() - 1 {
        0 => String::new(),
        1 => " and 1 other file".to_owned(),
        n => format!(" and {n} other files"),
    };
    Ok(Some(HealthAlert {
        kind: AlertKind::LostTurns,
        message: format!(
            "ELNOR could not read {unread} of the {} records in {}{kind}{others}, so their turns \
             are missing from capture and search. They are kept as written; a later ELNOR that \
             reads the format picks them up. Details: Health, or elnor doctor.",
            worst.records, worst.path
        ),
    }))
}

/// The hooks that should fire in every session yet never have, though their harness ran a
/// session after its settings last changed (so the hook had its chance: an untrusted Codex hook,
/// a settings file the harness does not read); and OpenClaw's Dreaming running. Reads each
/// harness's small settings file and asks one indexed query per harness with such a hook.
fn harness_alerts(store: &Store, paths: &HarnessPaths) -> Result<Vec<HealthAlert>> {
    let mut out = Vec::new();
    for h in hook_status(store, paths)? {
        let every_session = matches!(h.event.as_str(), "SessionStart" | "SessionEnd");
        if !h.installed || h.fire_count > 0 || !every_session {
            continue;
        }
        let newest_start: Option<String> = store.graph().with_conn_result(|c| {
            c.query_row(
                "SELECT max(coalesce(started_at, last_turn_at)) FROM transcript_sessions
                 WHERE harness = ?1 AND session_kind = 'primary'",
                [h.harness.as_str()],
                |r| r.get(0),
            )
        })?;
        let ran_since = match (parse_ts(newest_start), h.config_changed_at) {
            (Some(start), Some(changed)) => start > changed,
            _ => false,
        };
        if !ran_since {
            continue;
        }
        let label = h.harness.label();
        let fix = match h.harness {
            Harness::Codex => "Codex runs a hook only once you trust it: type /hooks in Codex \
                               and trust ELNOR's hooks."
                .to_owned(),
            _ => format!(
                "Type /hooks in {label} to see whether it loaded them, or run `elnor setup \
                 {}` again.",
                crate::usecase::harness::setup::cli_name(h.harness)
            ),
        };
        out.push(HealthAlert {
            kind: AlertKind::HookNeverFired,
            message: format!(
                "{label}'s {} hook is installed in {} but has never fired, though {label} \
                 has run sessions since. {fix}",
                h.event,
                h.config_path.display()
            ),
        });
    }
    let dreaming = dreaming_status(paths);
    if let DreamingState::On { explicit } = dreaming.state {
        out.push(HealthAlert {
            kind: AlertKind::DreamingOn,
            message: format!(
                "OpenClaw's Dreaming is on{}: it writes its own memory from the same sessions \
                 ELNOR reads, so your agents get two memories that can disagree. Run `elnor \
                 dreaming disable`, or add {} to {}.",
                if explicit {
                    ""
                } else {
                    " (OpenClaw's default)"
                },
                dreaming.line_to_add,
                dreaming.path.display()
            ),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
