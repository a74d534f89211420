//! The continuity agent's trigger model (CSA §5.2): which session to capture, and when.
//!
//! The agent sees sessions only through their transcripts, so "focus" is the session that last
//! received a turn, and the person is idle when no session has received one. A session is dirty
//! once, since its last capture, it has had `min_dirty_turns` user messages, or a tool execution,
//! or an entity candidate. Triggers:
//!
//! - `idle_timeout`: the focused session is dirty and nothing has happened anywhere for
//!   `idle_trigger_minutes`;
//! - `debounced_defocus`: a dirty session has lost focus and `debounce_minutes` have passed since
//!   its last capture (or, if never captured, since it became dirty);
//! - `pre_compaction`: the harness compacted (or is about to) — always captured, dirty or not;
//! - `nightly_sweep`: every dirty session;
//! - `manual_request`: the named session.
//!
//! One rule of ours beside them: a session never captured, not dirty, but holding an exchange (a
//! message of the person's and an answer from the agent) is due once it has ended, that is once
//! it has been quiet as long as a dirty session waits (`idle_timeout` when focused,
//! `debounced_defocus` when not), and in the nightly sweep. The rules above keep a glance from
//! being captured while it goes on; without this one, a short session that ended was never
//! captured at all, whatever it settled, and its work context had no card (issue 37). A session
//! captured before is left to the rules above: a "thanks" after its capture is no new work. In
//! CSA §5.2's rapid-switching table the touched sessions' messages go unanswered and its two
//! captures stand; had DOC24's one message been answered, it would be captured once as well, when
//! quiet for the debounce.
//!
//! Time is always passed in (`now`), never read from the system clock, so tests are exact and the
//! same model runs live (`watch`) and over history. [`Agent`] runs the model over a store's
//! ingested turns and hands due sessions to capture.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::base::config::ContinuityConfig;
use crate::base::error::Result;
use crate::base::ids::{SessionId, WorkContextId};
use crate::base::secrets::SecretStore;
use crate::graph::store::Store;
use crate::inputs::capture::CaptureRequest;

/// Why a capture runs (CSA §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    IdleTimeout,
    DebouncedDefocus,
    PreCompaction,
    NightlySweep,
    ManualRequest,
}

/// What one observed turn carries, for the dirty-flag rules and the ended-exchange rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnSignal {
    pub user_message: bool,
    pub tool_execution: bool,
    pub entity_candidate: bool,
    /// A message from the agent.
    pub answered: bool,
    /// Whether a capture read the session before (in an earlier run of the agent).
    pub captured_before: bool,
}

#[derive(Debug, Clone, Default)]
struct SessionState {
    user_messages: u32,
    tool_executions: u32,
    entity_candidates: u32,
    /// The agent's messages since the last capture.
    answered: u32,
    /// The latest turn since the last capture.
    last_turn: Option<DateTime<Utc>>,
    /// Whether a capture read the session before this run of the agent (one in this run sets
    /// `last_capture`).
    captured_before: bool,
    /// When the session became dirty since its last capture.
    dirty_since: Option<DateTime<Utc>>,
    last_capture: Option<DateTime<Utc>>,
}

impl SessionState {
    /// Never captured, not dirty, but holding an exchange: due once the session has ended.
    fn unread_exchange(&self) -> bool {
        !self.captured_before
            && self.last_capture.is_none()
            && self.dirty_since.is_none()
            && self.user_messages > 0
            && self.answered > 0
    }
}

/// The trigger thresholds, from the continuity config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub min_dirty_turns: u32,
    pub idle: Duration,
    pub debounce: Duration,
}

impl From<&ContinuityConfig> for Thresholds {
    fn from(c: &ContinuityConfig) -> Self {
        Thresholds {
            min_dirty_turns: c.min_dirty_turns,
            idle: Duration::minutes(i64::from(c.idle_trigger_minutes)),
            debounce: Duration::minutes(i64::from(c.debounce_minutes)),
        }
    }
}

/// The trigger state of every session the agent has seen.
#[derive(Debug, Clone)]
pub struct Triggers {
    thresholds: Thresholds,
    sessions: BTreeMap<String, SessionState>,
    focus: Option<String>,
    last_activity: Option<DateTime<Utc>>,
}

impl Triggers {
    pub fn new(thresholds: Thresholds) -> Triggers {
        Triggers {
            thresholds,
            sessions: BTreeMap::new(),
            focus: None,
            last_activity: None,
        }
    }

    /// Records a turn of `session` at `at`; the session takes the focus.
    pub fn on_turn(&mut self, session: &str, at: DateTime<Utc>, signal: TurnSignal) {
        let min_turns = self.thresholds.min_dirty_turns;
        let s = self.sessions.entry(session.to_owned()).or_default();
        s.user_messages += u32::from(signal.user_message);
        s.tool_executions += u32::from(signal.tool_execution);
        s.entity_candidates += u32::from(signal.entity_candidate);
        s.answered += u32::from(signal.answered);
        s.captured_before |= signal.captured_before;
        s.last_turn = s.last_turn.max(Some(at));
        let dirty =
            s.user_messages >= min_turns || s.tool_executions > 0 || s.entity_candidates > 0;
        if dirty && s.dirty_since.is_none() {
            s.dirty_since = Some(at);
        }
        // Turns replayed from several transcripts need not arrive in time order; the focus is
        // the session with the latest turn, whatever order they were read in.
        if self.last_activity.is_none_or(|last| at >= last) {
            self.focus = Some(session.to_owned());
            self.last_activity = Some(at);
        }
    }

    /// Whether `session` is dirty (the tests read the trigger state through this).
    #[cfg(test)]
    pub fn is_dirty(&self, session: &str) -> bool {
        self.sessions
            .get(session)
            .is_some_and(|s| s.dirty_since.is_some())
    }

    /// The time-based triggers due at `now`; each returned session is marked captured.
    pub fn tick(&mut self, now: DateTime<Utc>) -> Vec<(String, Trigger)> {
        let mut due = Vec::new();
        let idle = self
            .last_activity
            .is_some_and(|last| now - last >= self.thresholds.idle);
        for (id, s) in &self.sessions {
            // "Since last capture" (CSA §5.2); a session never captured counts from when it
            // became dirty, and an unread exchange from the session's last turn, when it ended.
            let since = match (s.dirty_since, s.last_turn) {
                (Some(dirty_since), _) => s.last_capture.unwrap_or(dirty_since),
                (None, Some(last_turn)) if s.unread_exchange() => last_turn,
                _ => continue,
            };
            let focused = self.focus.as_deref() == Some(id.as_str());
            if focused {
                if idle {
                    due.push((id.clone(), Trigger::IdleTimeout));
                }
            } else if now - since >= self.thresholds.debounce {
                due.push((id.clone(), Trigger::DebouncedDefocus));
            }
        }
        for (id, _) in &due {
            self.captured(id, now);
        }
        due
    }

    /// A compaction of `session`: always captured (CSA §5.2: mandatory unless the mode is off).
    pub fn pre_compaction(&mut self, session: &str, now: DateTime<Utc>) -> Trigger {
        self.captured(session, now);
        Trigger::PreCompaction
    }

    /// A capture the person or a harness asked for.
    #[cfg(test)]
    pub fn manual(&mut self, session: &str, now: DateTime<Utc>) -> Trigger {
        self.captured(session, now);
        Trigger::ManualRequest
    }

    /// Every dirty session, and every one holding an unread exchange, for the nightly job.
    pub fn nightly_sweep(&mut self, now: DateTime<Utc>) -> Vec<(String, Trigger)> {
        let dirty: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.dirty_since.is_some() || s.unread_exchange())
            .map(|(id, _)| id.clone())
            .collect();
        dirty
            .into_iter()
            .map(|id| {
                self.captured(&id, now);
                (id, Trigger::NightlySweep)
            })
            .collect()
    }

    fn captured(&mut self, session: &str, now: DateTime<Utc>) {
        let s = self.sessions.entry(session.to_owned()).or_default();
        *s = SessionState {
            last_capture: Some(now),
            captured_before: s.captured_before,
            ..SessionState::default()
        };
    }
}

/// The continuity agent over a store: reads the turns ingest stored, feeds them to the trigger
/// model, and captures the sessions whose triggers fire. `elnor watch` and the desktop app run
/// it after every ingest; time is passed in, so it runs the same over history as live.
pub struct Agent {
    triggers: Triggers,
    /// The last turn (by seq) fed to the trigger model; `None` until the first observation, which
    /// starts from each session's last capture.
    cursor: Option<i64>,
}

/// What one run of the agent did.
#[derive(Debug, Default, Serialize)]
pub struct AgentRun {
    pub turns_observed: u64,
    pub captures: Vec<crate::inputs::capture::CaptureOutcome>,
    /// Sessions whose capture failed, with the error; the others went ahead.
    pub failures: Vec<(String, String)>,
    /// Cross-conversation updates the run's captures set off, delivered once after the last
    /// capture (CSA §5.5), and the work contexts they were written to.
    pub cross_updates: usize,
    pub cross_touched: BTreeSet<WorkContextId>,
}

impl Agent {
    pub fn new(config: &ContinuityConfig) -> Agent {
        Agent {
            triggers: Triggers::new(Thresholds::from(config)),
            cursor: None,
        }
    }

    /// Feeds new turns to the trigger model; returns the sessions a compaction record asks to
    /// capture now (`pre_compaction`, CSA §5.2).
    fn observe(
        &mut self,
        store: &Store,
        now: DateTime<Utc>,
        run: &mut AgentRun,
    ) -> Result<Vec<String>> {
        let mut compacted = BTreeSet::new();
        let mut max_seq = self.cursor.unwrap_or(0);
        let first = self.cursor.is_none();
        // Rows are handled as they are read, never collected: the first observation of a large,
        // never-captured store covers every turn in it. Only a person's message brings its text
        // (the entity-candidate check needs it); the other signals are computed by SQLite.
        // A record without a time of its own (the older Codex format dates only the session's
        // start) happened no later than its session's last dated turn: taking `now` for it
        // would make a session of last year look just active, and never due.
        let columns = "t.seq, t.session_id, t.kind,
                       coalesce(t.timestamp, (SELECT s.last_turn_at FROM transcript_sessions s
                                              WHERE s.session_id = t.session_id)),
                       CASE WHEN t.role = 'user' AND t.kind = 'message' THEN t.text END,
                       t.kind = 'tool_call' OR (t.role = 'assistant' AND t.tool_calls != '[]'),
                       t.kind = 'message' AND t.role = 'assistant',
                       c.session_id IS NOT NULL";
        let sql = if first {
            format!(
                "SELECT {columns} FROM turns t
                 LEFT JOIN session_captures c ON c.session_id = t.session_id
                 WHERE t.seq > coalesce(c.last_seq, 0) AND t.seq > ?1 ORDER BY t.seq"
            )
        } else {
            format!(
                "SELECT {columns} FROM turns t
                 LEFT JOIN session_captures c ON c.session_id = t.session_id
                 WHERE t.seq > ?1 ORDER BY t.seq"
            )
        };
        let triggers = &mut self.triggers;
        store.graph().with_conn_result(|c| {
            let mut stmt = c.prepare(&sql)?;
            let mut rows = stmt.query([max_seq])?;
            while let Some(r) = rows.next()? {
                let seq: i64 = r.get(0)?;
                let session: String = r.get(1)?;
                let kind: String = r.get(2)?;
                let at: Option<String> = r.get(3)?;
                let user_text: Option<String> = r.get(4)?;
                let tool_execution: bool = r.get(5)?;
                let answered: bool = r.get(6)?;
                let captured_before: bool = r.get(7)?;
                max_seq = max_seq.max(seq);
                if kind == "compaction" || kind == "compaction_summary" {
                    compacted.insert(session);
                    continue;
                }
                if !matches!(kind.as_str(), "message" | "tool_call" | "tool_result") {
                    continue;
                }
                let at = at
                    .and_then(|a| DateTime::parse_from_rfc3339(&a).ok())
                    .map(|a| a.with_timezone(&Utc))
                    .unwrap_or(now);
                let person = user_text.filter(|t| crate::inputs::capture::is_person_text(t));
                let signal = TurnSignal {
                    answered,
                    captured_before,
                    user_message: person.is_some(),
                    tool_execution,
                    entity_candidate: person.is_some_and(|t| {
                        !crate::inputs::resolve::candidates([(t.as_str(), true)], &|_| false)
                            .is_empty()
                    }),
                };
                run.turns_observed += 1;
                triggers.on_turn(&session, at, signal);
            }
            Ok(())
        })?;
        self.cursor = Some(max_seq);
        Ok(compacted
            .into_iter()
            .inspect(|s| {
                self.triggers.pre_compaction(s, now);
            })
            .collect())
    }

    /// Observes new turns and captures every session whose trigger fired.
    pub fn run_once(
        &mut self,
        store: &Store,
        secrets: &dyn SecretStore,
        now: DateTime<Utc>,
    ) -> Result<AgentRun> {
        let mut run = AgentRun::default();
        let mut due: Vec<(String, Trigger)> = self
            .observe(store, now, &mut run)?
            .into_iter()
            .map(|s| (s, Trigger::PreCompaction))
            .collect();
        due.extend(self.triggers.tick(now));
        self.capture_all(store, secrets, due, now, &mut run);
        Ok(run)
    }

    /// The nightly sweep: every dirty session, and every ended exchange never captured, whatever
    /// their timers say.
    pub fn sweep(
        &mut self,
        store: &Store,
        secrets: &dyn SecretStore,
        now: DateTime<Utc>,
    ) -> Result<AgentRun> {
        let mut run = AgentRun::default();
        // A session whose transcript shows a compaction was marked captured by observing it (the
        // pre-compaction trigger), so it is no longer dirty: it must be captured here with the
        // others, or a long session that compacted would never be captured by a sweep.
        let mut due: Vec<(String, Trigger)> = self
            .observe(store, now, &mut run)?
            .into_iter()
            .map(|s| (s, Trigger::PreCompaction))
            .collect();
        due.extend(self.triggers.nightly_sweep(now));
        self.capture_all(store, secrets, due, now, &mut run);
        Ok(run)
    }

    fn capture_all(
        &mut self,
        store: &Store,
        secrets: &dyn SecretStore,
        due: Vec<(String, Trigger)>,
        now: DateTime<Utc>,
        run: &mut AgentRun,
    ) {
        for (session, trigger) in due {
            // A harness may write a session id that is not a valid id here (empty, too long,
            // control characters): that session is reported as failed, and the others go on.
            let session_id = match SessionId::new(session.clone()) {
                Ok(id) => id,
                Err(e) => {
                    tracing::warn!(%session, error = %e, "capture failed");
                    run.failures.push((session, e.to_string()));
                    continue;
                }
            };
            let req = CaptureRequest {
                session_id,
                trigger,
                now,
            };
            match crate::inputs::capture::capture_undelivered(store, secrets, &req) {
                Ok(outcome) => run.captures.push(outcome),
                Err(e) => {
                    tracing::warn!(%session, error = %e, "capture failed");
                    run.failures.push((session, e.to_string()));
                }
            }
        }
        // The entity events of every capture above are delivered together: each other context's
        // log is then read and appended to once per run rather than once per session, which is
        // what made a first sweep over a long history slow down as the logs grew.
        match store.config().and_then(|config| {
            crate::inputs::capture::crossconv::deliver_pending(store, &config, now)
        }) {
            Ok(delivered) => {
                run.cross_updates = delivered.written;
                run.cross_touched = delivered.touched;
            }
            Err(e) => {
                // The events stay unconsumed, so the next run delivers them.
                tracing::warn!(error = %e, "cross-conversation delivery failed");
                run.failures
                    .push(("cross-conversation delivery".to_owned(), e.to_string()));
            }
        }
    }
}

#[cfg(test)]
mod tests;
