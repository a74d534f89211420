//! The continuity agent's trigger model (CSA §5.2): which dirty session to capture, and when.
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
//! Time is always passed in (`now`), never read from the system clock, so tests are exact and the
//! same model runs live (`watch`) and over history. This module decides; capture itself is
//! elsewhere.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::config::ContinuityConfig;

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

/// What one observed turn carries, for the dirty-flag rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnSignal {
    pub user_message: bool,
    pub tool_execution: bool,
    pub entity_candidate: bool,
}

#[derive(Debug, Clone, Default)]
struct SessionState {
    user_messages: u32,
    tool_executions: u32,
    entity_candidates: u32,
    /// When the session became dirty since its last capture.
    dirty_since: Option<DateTime<Utc>>,
    last_capture: Option<DateTime<Utc>>,
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
        let dirty =
            s.user_messages >= min_turns || s.tool_executions > 0 || s.entity_candidates > 0;
        if dirty && s.dirty_since.is_none() {
            s.dirty_since = Some(at);
        }
        self.focus = Some(session.to_owned());
        self.last_activity = Some(at);
    }

    /// Whether `session` is dirty.
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
            let Some(dirty_since) = s.dirty_since else {
                continue;
            };
            let focused = self.focus.as_deref() == Some(id.as_str());
            if focused {
                if idle {
                    due.push((id.clone(), Trigger::IdleTimeout));
                }
            } else {
                // "Since last capture" (CSA §5.2); a session never captured counts from when it
                // became dirty.
                let since = s.last_capture.unwrap_or(dirty_since);
                if now - since >= self.thresholds.debounce {
                    due.push((id.clone(), Trigger::DebouncedDefocus));
                }
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
    pub fn manual(&mut self, session: &str, now: DateTime<Utc>) -> Trigger {
        self.captured(session, now);
        Trigger::ManualRequest
    }

    /// Every dirty session, for the nightly job.
    pub fn nightly_sweep(&mut self, now: DateTime<Utc>) -> Vec<(String, Trigger)> {
        let dirty: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.dirty_since.is_some())
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
            ..SessionState::default()
        };
    }
}

#[cfg(test)]
mod tests;
