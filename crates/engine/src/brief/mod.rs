//! The three-tier brief (CSA §6): what a fresh agent session gets, within 420 tokens, and a trace
//! of why every candidate line is in it or not.
//!
//! Assembly: resolve the caller's work context (explicit id, else the link rules over cwd, session
//! key and entity names, else the context an earlier capture chose for the session); read its
//! constellation view (a stale one is served, marked, and left for the caller to rebuild); build
//! Tier 1 `resume` from the view under the injection rules of §6.1, Tier 2 `recent_activity` from
//! the rollup minus the current context, Tier 3 `living_memory` from the person's facts and
//! approved directives; cap each tier (120 / 200 / 100 tokens), then fit the total budget by the
//! trimming order of §6.4 (drop Tier 2 first, then trim Tier 1 in its own order, never drop Tier
//! 3). Every candidate becomes a [`TraceItem`]; the whole assembly is stored for the inspector
//! ([`crate::brief::traces`]). A real delivery marks the cross-conversation updates it showed as
//! delivered; a preview never does.
//!
//! Every line carries its BPE count from where it was built (see [`crate::base::tokens`]), and the
//! fixed texts here carry counts a test checks against the tokenizer, so the capped cards never
//! load the tokenizer and the reported counts are exactly what cl100k counts in the output. The
//! last session's card counts its own lines (`last_session.rs`), which loads it.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, SessionId, WorkContextId};
use crate::base::tokens::Line;
use crate::continuity::{CaptureMode, WorkPhase};
use crate::graph::contexts::{Resolution, SessionFacts};
use crate::graph::entities;
use crate::graph::nodes::Warrant;
use crate::graph::store::Store;
use crate::inputs::activity::{self, ActivityType};
use crate::views::constellation::{
    self, Constellation, DecisionItem, ExcludedItem, NodeItem, QuestionItem, SessionHistoryItem,
    UpdateItem,
};
use crate::views::rollup;

mod counts;
mod last_session;
mod render;
pub mod traces;
pub use render::{HOOK_CONTEXT_MAX_CHARS, HOOK_CONTEXT_MAX_TOKENS, hook_output, text};

/// The whole brief's ceiling (CSA §6.4).
pub const MAX_BUDGET: u32 = 420;
/// Tier caps (CSA §6.1–6.3).
pub const TIER1_CAP: u32 = 120;
pub const TIER2_CAP: u32 = 200;
pub const TIER3_CAP: u32 = 100;
/// CSA §6.1 injection rule 3.
pub const MIN_MINUTES_SINCE_SESSION: i64 = 30;
/// Items a Tier 1 card shows per kind (CSA §6.1 template: last 2–3 sessions, 3 questions, 2
/// decisions; updates and due items are capped here so one busy context cannot crowd the card).
const SHOWN_SESSIONS: usize = 3;
const SHOWN_QUESTIONS: usize = 3;
const SHOWN_DECISIONS: usize = 2;
const SHOWN_NODES: usize = 2;
const SHOWN_UPDATES: usize = 3;

/// Whether the brief is delivered to an agent or only looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// A real delivery: shown updates are marked delivered.
    Delivered,
    /// A preview (the app's Home, `--dry-run`): nothing is marked.
    Preview,
}

impl Delivery {
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Delivered => "delivered",
            Delivery::Preview => "preview",
        }
    }
}

/// The form the brief is rendered in, recorded with the assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Cards,
    Json,
    ClaudeCode,
    Codex,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Cards => "cards",
            Format::Json => "json",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
        }
    }
}

/// What the caller knows about the session that wants a brief.
#[derive(Debug, Clone, Serialize)]
pub struct BriefRequest {
    pub now: DateTime<Utc>,
    /// The person's local date, for the temporal awareness block.
    pub today: NaiveDate,
    pub cwd: Option<String>,
    /// The new session's id: for the same-session rule and an earlier capture's context.
    pub session_id: Option<SessionId>,
    /// A session key or agent id matched against `session_key` link rules.
    pub session_key: Option<String>,
    /// An explicit work context, which wins over everything else.
    pub work_context_id: Option<WorkContextId>,
    /// Entity names the caller knows the session is about.
    pub entity_names: Vec<String>,
    /// The session's first message, when known, for activity-type routing (CSA §6.5).
    pub first_message: Option<String>,
    /// The surface's budget; at most [`MAX_BUDGET`].
    pub budget: u32,
    pub delivery: Delivery,
    pub format: Format,
}

impl BriefRequest {
    /// A preview request with the full budget and nothing known about the session.
    pub fn new(now: DateTime<Utc>, today: NaiveDate, delivery: Delivery) -> BriefRequest {
        BriefRequest {
            now,
            today,
            cwd: None,
            session_id: None,
            session_key: None,
            work_context_id: None,
            entity_names: Vec::new(),
            first_message: None,
            budget: MAX_BUDGET,
            delivery,
            format: Format::Cards,
        }
    }
}

/// What an assembly decided about one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Included,
    /// Removed by a budget step.
    Dropped,
    /// Left out by a rule.
    Excluded,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Included => "included",
            Decision::Dropped => "dropped",
            Decision::Excluded => "excluded",
        }
    }
}

/// The rule or budget step behind a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Fits its tier and the total budget.
    WithinBudget,
    /// Over the tier's own cap (120 / 200 / 100 tokens).
    TierCap,
    /// Trimming step 1 (CSA §6.4): Tier 2 goes first under the total budget.
    TrimStep1,
    /// Trimming step 2: Tier 1 trimmed in its own order under the total budget.
    TrimStep2,
    /// Step 3: the budget cannot hold Tier 1 beside Tier 3; Tier 3 alone is injected.
    TrimStep3,
    /// The card template shows only so many items of this kind.
    CardLimit,
    SameSession,
    UnderThirtyMinutes,
    NoContext,
    NoContinuityData,
    Superseded,
    Resolved,
    Decayed,
    Delivered,
    OverCap,
    OutsideWindow,
    /// A Tier 2 segment of the current work context, which Tier 1 covers (CSA §6.2 rule 2).
    CurrentContext,
    /// A local-only work context's content, never injected into another context's brief.
    Policy,
    /// The rollup is older than 7 days (CSA §6.2 rule 3).
    RollupStale,
    /// A durable node whose use warrant forbids injection (`search_only`, `do_not_inject`).
    Warrant,
    /// A durable node the person retired or superseded.
    Retired,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::WithinBudget => "within_budget",
            Reason::TierCap => "tier_cap",
            Reason::TrimStep1 => "trim_step_1",
            Reason::TrimStep2 => "trim_step_2",
            Reason::TrimStep3 => "trim_step_3",
            Reason::CardLimit => "card_limit",
            Reason::SameSession => "same_session",
            Reason::UnderThirtyMinutes => "under_30_minutes",
            Reason::NoContext => "no_context",
            Reason::NoContinuityData => "no_continuity_data",
            Reason::Superseded => "superseded",
            Reason::Resolved => "resolved",
            Reason::Decayed => "decayed",
            Reason::Delivered => "delivered",
            Reason::OverCap => "over_cap",
            Reason::OutsideWindow => "outside_window",
            Reason::CurrentContext => "current_context",
            Reason::Policy => "policy",
            Reason::RollupStale => "rollup_stale",
            Reason::Warrant => "warrant",
            Reason::Retired => "retired",
        }
    }

    fn from_exclusion(e: constellation::Exclusion) -> Reason {
        match e {
            constellation::Exclusion::Decayed => Reason::Decayed,
            constellation::Exclusion::Resolved => Reason::Resolved,
            constellation::Exclusion::Superseded => Reason::Superseded,
            constellation::Exclusion::Delivered => Reason::Delivered,
            constellation::Exclusion::OverCap => Reason::OverCap,
            constellation::Exclusion::OutsideWindow => Reason::OutsideWindow,
        }
    }
}

/// One candidate an assembly considered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceItem {
    pub tier: u8,
    /// `constellation`, `folder`, `summary`, `session`, `entry`, `update`, `node`, `segment`,
    /// `fact` or `directive`.
    pub kind: &'static str,
    /// The entry, summary, node, fact or work context id (a folder's path, a session's id) it
    /// came from.
    pub source_id: Option<String>,
    pub session_id: Option<SessionId>,
    /// The last transcript turn the capture behind it saw.
    pub turn_seq: Option<i64>,
    pub work_context_id: Option<WorkContextId>,
    pub text: String,
    pub tokens: u32,
    pub decision: Decision,
    pub reason: Reason,
    /// The reason in words, with the numbers that decided it.
    pub detail: String,
}

/// One rendered card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Card {
    pub tier: u8,
    /// `continuity`, `recent_activity` or `living_memory`.
    pub card_type: &'static str,
    pub tag: &'static str,
    pub tokens: u32,
    /// The card's lines, without the `<card>` wrapper.
    pub lines: Vec<Line>,
    /// The trace items shown on this card, in card order.
    pub items: Vec<TraceItem>,
}

/// The work context a brief is for, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextChoice {
    pub work_context_id: WorkContextId,
    pub name: String,
    /// How it was chosen, in words.
    pub how: String,
}

/// An assembled brief.
#[derive(Debug, Clone, Serialize)]
pub struct Brief {
    /// The stored trace's id.
    pub assembly_id: i64,
    pub delivery: Delivery,
    pub format: Format,
    pub today: NaiveDate,
    pub work_context: Option<ContextChoice>,
    /// The constellation view used was stale (a rebuild is due).
    pub stale: bool,
    pub activity_type: Option<ActivityType>,
    /// `message`, `inherited` (from the constellation's phase, CSA §6.5) or `none`.
    pub activity_source: &'static str,
    pub cards: Vec<Card>,
    pub budget: u32,
    /// Tokens of the cards, at most `budget`.
    pub total_tokens: u32,
    /// Tokens of the temporal block and the memory-use preamble around the cards.
    pub envelope_tokens: u32,
    pub warnings: Vec<String>,
    pub trace: Vec<TraceItem>,
    /// Views found stale, which the caller should rebuild once the brief is out.
    pub needs_rebuild: Vec<WorkContextId>,
    /// Cross-conversation updates this delivery marked delivered.
    pub delivered_updates: Vec<String>,
}

impl Brief {
    /// The card of a tier, when it is in the brief.
    pub fn card(&self, tier: u8) -> Option<&Card> {
        self.cards.iter().find(|c| c.tier == tier)
    }
}

/// A candidate line in a draft card.
struct Cand {
    item: TraceItem,
    line: Option<Line>,
    /// Trimming order: lower ranks go first; within a rank, later items go first.
    rank: u8,
    /// Kept as long as the card is: a header or title.
    fixed: bool,
}

impl Cand {
    fn included(&self) -> bool {
        self.item.decision == Decision::Included
    }
}

struct Draft {
    tier: u8,
    card_type: &'static str,
    tag: &'static str,
    /// Whether the fixed line alone makes a card worth showing (Tier 1's header carries the
    /// phase; Tier 2's title says nothing by itself).
    fixed_is_content: bool,
    cands: Vec<Cand>,
}

impl Draft {
    fn new(tier: u8) -> Draft {
        let (card_type, tag, fixed_is_content) = match tier {
            1 => ("continuity", "resume", true),
            2 => ("recent_activity", "recent_activity", false),
            _ => ("living_memory", "living_memory", false),
        };
        Draft {
            tier,
            card_type,
            tag,
            fixed_is_content,
            cands: Vec::new(),
        }
    }

    /// The card of the latest session in its own words (Tier 1's second card).
    fn last_session() -> Draft {
        Draft {
            tier: 1,
            card_type: "continuity",
            tag: "last_session",
            fixed_is_content: false,
            cands: Vec::new(),
        }
    }

    fn has_content(&self) -> bool {
        self.cands
            .iter()
            .any(|c| c.included() && c.line.is_some() && (!c.fixed || self.fixed_is_content))
    }

    /// The card's tokens with its wrapper, or 0 when it would not be shown.
    fn tokens(&self) -> u32 {
        if !self.has_content() {
            return 0;
        }
        render::card_wrapper_tokens(self.tag)
            + self
                .cands
                .iter()
                .filter(|c| c.included())
                .filter_map(|c| c.line.as_ref())
                .map(|l| l.tokens)
                .sum::<u32>()
    }

    /// Drops lines in trimming order until the card fits `limit`; drops the whole card (fixed
    /// lines too) when even its fixed lines do not fit.
    fn trim(&mut self, limit: u32, reason: Reason, detail: &str) {
        while self.tokens() > limit {
            let victim = self
                .cands
                .iter()
                .enumerate()
                .filter(|(_, c)| c.included() && !c.fixed && c.line.is_some())
                .min_by(|(ia, a), (ib, b)| a.rank.cmp(&b.rank).then(ib.cmp(ia)))
                .map(|(i, _)| i);
            match victim {
                Some(i) => set(&mut self.cands[i].item, Decision::Dropped, reason, detail),
                None => {
                    for c in self.cands.iter_mut().filter(|c| c.included()) {
                        set(&mut c.item, Decision::Dropped, reason, detail);
                    }
                }
            }
        }
        // A card left with only a title is no card: its title goes too, with the same reason.
        if !self.has_content() {
            for c in self.cands.iter_mut().filter(|c| c.included()) {
                set(&mut c.item, Decision::Dropped, reason, detail);
            }
        }
    }

    fn into_card(self) -> (Option<Card>, Vec<TraceItem>) {
        let tokens = self.tokens();
        let card = (tokens > 0).then(|| Card {
            tier: self.tier,
            card_type: self.card_type,
            tag: self.tag,
            tokens,
            lines: self
                .cands
                .iter()
                .filter(|c| c.included())
                .filter_map(|c| c.line.clone())
                .collect(),
            items: self
                .cands
                .iter()
                .filter(|c| c.included())
                .map(|c| c.item.clone())
                .collect(),
        });
        (card, self.cands.into_iter().map(|c| c.item).collect())
    }
}

fn set(item: &mut TraceItem, decision: Decision, reason: Reason, detail: &str) {
    item.decision = decision;
    item.reason = reason;
    item.detail = detail.to_owned();
}

fn included_detail(tier: u8) -> String {
    format!("fits the Tier {tier} card and the total budget")
}

fn trace_item(tier: u8, kind: &'static str, line: &Line) -> TraceItem {
    TraceItem {
        tier,
        kind,
        source_id: None,
        session_id: None,
        turn_seq: None,
        work_context_id: None,
        text: line.text.clone(),
        tokens: line.tokens,
        decision: Decision::Included,
        reason: Reason::WithinBudget,
        detail: included_detail(tier),
    }
}

/// Resolves the work context a brief is for.
fn choose_context(store: &Store, req: &BriefRequest) -> Result<Option<ContextChoice>> {
    let graph = store.graph();
    let name_of = |wc: &WorkContextId| -> Result<String> {
        Ok(graph
            .with_conn_result(|c| crate::graph::contexts::name_and_local_only_in(c, wc))?
            .0)
    };
    if let Some(wc) = &req.work_context_id {
        if !context_exists(store, wc)? {
            return Err(Error::NotFound {
                what: "work context",
                id: wc.to_string(),
            });
        }
        return Ok(Some(ContextChoice {
            work_context_id: wc.clone(),
            name: name_of(wc)?,
            how: "named by the caller".to_owned(),
        }));
    }
    let (entity_ids, previous) = graph.with_conn_result(|c| {
        let mut ids: Vec<EntityId> = Vec::new();
        for name in &req.entity_names {
            if let Some(id) = entities::find_by_name(c, name)?
                && !ids.contains(&id)
            {
                ids.push(id);
            }
        }
        let previous: Option<String> = match &req.session_id {
            Some(s) => c
                .query_row(
                    "SELECT work_context_id FROM session_captures WHERE session_id = ?1",
                    [s],
                    |r| r.get(0),
                )
                .optional()?,
            None => None,
        };
        Ok((ids, previous))
    })?;
    let previous = previous.and_then(|p| WorkContextId::new(p).ok());
    let session_id = req
        .session_id
        .as_ref()
        .map(|s| s.as_str())
        .unwrap_or_default();
    let (wc, resolution) = graph.resolve_work_context(&SessionFacts {
        session_id,
        agent_id: req.session_key.as_deref(),
        cwd: req.cwd.as_deref(),
        entity_ids: &entity_ids,
        previous: previous.as_ref(),
    })?;
    let how = match resolution {
        Resolution::Rule {
            rule_id,
            kind,
            pattern,
        } => {
            format!("link rule #{rule_id} ({} {pattern})", kind.as_str())
        }
        Resolution::Previous => "where an earlier capture of this session went".to_owned(),
        Resolution::Auto { .. } => {
            // An auto context is only a choice when captures have made it.
            if !context_exists(store, &wc)? {
                return Ok(None);
            }
            "the entities named match its auto context".to_owned()
        }
        Resolution::Unlinked => return Ok(None),
    };
    Ok(Some(ContextChoice {
        name: name_of(&wc)?,
        work_context_id: wc,
        how,
    }))
}

/// Whether a work context exists: it has a graph row or a continuity log (contexts made by
/// `elnor log append` have only the log). One indexed lookup, not a scan of every context, since
/// this runs on every agent start.
fn context_exists(store: &Store, wc: &WorkContextId) -> Result<bool> {
    if store.log(wc).path().exists() {
        return Ok(true);
    }
    store.graph().with_conn_result(|c| {
        c.query_row(
            "SELECT 1 FROM work_contexts WHERE work_context_id = ?1",
            [wc.as_str()],
            |_| Ok(()),
        )
        .optional()
        .map(|found| found.is_some())
    })
}

fn phase_activity(phase: WorkPhase) -> Option<ActivityType> {
    match phase {
        WorkPhase::Research => Some(ActivityType::Research),
        WorkPhase::Drafting | WorkPhase::Revision => Some(ActivityType::Drafting),
        WorkPhase::Review => Some(ActivityType::Strategic),
        _ => None,
    }
}

/// Counts ahead, for the next session's start, the lines the last session's card may quote in
/// `wc`, at every room the card can have: the brief then finds every count kept and never loads
/// the tokenizer (`brief/counts.rs`). Asked as a brief would be once the session is old enough
/// to be quoted. Returns how many lines were counted.
pub fn warm_last_session(store: &Store, wc: &WorkContextId, now: DateTime<Utc>) -> Result<usize> {
    let asked_at = now + Duration::minutes(MIN_MINUTES_SINCE_SESSION);
    let mut req = BriefRequest::new(asked_at, asked_at.date_naive(), Delivery::Preview);
    req.work_context_id = Some(wc.clone());
    let view = constellation::view(store, wc, asked_at)?.constellation;
    // Most contexts a first run captures ended long ago: nothing to count for them.
    if !last_session::has_latest(store, &last_session::Place::Context(&view), &req)? {
        return Ok(0);
    }
    let choice = ContextChoice {
        work_context_id: wc.clone(),
        name: String::new(),
        how: String::new(),
    };
    let capped = capped(store, &req, Some(&choice), Some(&view), &mut Vec::new())?;
    let place = last_session::Place::Context(&view);
    last_session::warm(store, place, &req, &capped.shown)
}

/// Counts ahead, as [`warm_last_session`] does for a work context, the lines of the cards a
/// fresh session in `cwd`, a folder no work context claims, would get: the folder's resume card
/// and its `last_session` card. Returns how many lines were counted.
pub fn warm_folder(store: &Store, cwd: &str, now: DateTime<Utc>) -> Result<usize> {
    let asked_at = now + Duration::minutes(MIN_MINUTES_SINCE_SESSION);
    let mut req = BriefRequest::new(asked_at, asked_at.date_naive(), Delivery::Preview);
    req.cwd = Some(cwd.to_owned());
    let place = last_session::Place::Folder(cwd);
    if !last_session::has_latest(store, &place, &req)? {
        return Ok(0);
    }
    // The resume card is counted (and its counts kept) as it is drafted.
    let capped = capped(store, &req, None, None, &mut Vec::new())?;
    last_session::warm(store, place, &req, &capped.shown)
}

/// Says in the trace, not on the line, that an item was read by the capture's rules and no one
/// confirmed it: the card says its confidence once, in the preamble, and the trace per line.
fn doubt(item: &mut TraceItem, reduced_confidence: bool) {
    if reduced_confidence {
        item.detail = format!(
            "{}; read by the capture's rules, not confirmed (reduced confidence)",
            item.detail
        );
    }
}

/// Tier 1 candidates from a view, with the injection rules applied.
fn tier1(view: &Constellation, req: &BriefRequest) -> Draft {
    let mut card = ResumeCard {
        d: Draft::new(1),
        wc: view.work_context_id.clone(),
        now: req.now,
    };
    card.header(view);
    card.sessions(&view.session_history);
    card.questions(&view.open_questions);
    card.decisions(&view.key_decisions);
    card.nodes(view.goals.iter().chain(&view.obligations));
    card.updates(&view.cross_conversation_updates);
    card.left_out(&view.excluded);
    let mut d = card.d;
    if let Some((reason, detail)) = injection_rule(view, req) {
        for c in d.cands.iter_mut().filter(|c| c.included()) {
            set(&mut c.item, Decision::Excluded, reason, &detail);
        }
    }
    d
}

/// A work context's resume card as it is drafted from its view: each step adds one group's
/// candidates, in card order.
struct ResumeCard {
    /// The card so far.
    d: Draft,
    /// The work context the card is of.
    wc: WorkContextId,
    /// The brief's moment, against which lines decay.
    now: DateTime<Utc>,
}

impl ResumeCard {
    /// The work context and its phase head the card, kept as long as it is.
    fn header(&mut self, view: &Constellation) {
        let mut header = trace_item(1, "constellation", &view.header);
        header.source_id = Some(self.wc.to_string());
        header.work_context_id = Some(self.wc.clone());
        header.detail = "the work context and its phase head the card".to_owned();
        self.d.cands.push(Cand {
            item: header,
            line: Some(view.header.clone()),
            rank: u8::MAX,
            fixed: true,
        });
        if let Some(id) = &view.phase_entry_id {
            let mut phase = trace_item(
                1,
                "entry",
                &Line::counted(format!("phase: {:?}", view.active_work_phase), 0),
            );
            phase.source_id = Some(id.to_string());
            phase.work_context_id = Some(self.wc.clone());
            phase.detail = "the latest work_phase_change sets the phase in the header".to_owned();
            self.d.cands.push(Cand {
                item: phase,
                line: None,
                rank: u8::MAX,
                fixed: true,
            });
        }
    }

    /// A line of a group the card shows at most `shown` of: the `index`-th live one, excluded
    /// when it has decayed or the group is full.
    fn push(
        &mut self,
        mut item: TraceItem,
        line: Line,
        rank: u8,
        (index, shown): (usize, usize),
        decay_at: Option<DateTime<Utc>>,
    ) {
        item.work_context_id = Some(self.wc.clone());
        if let Some(at) = decay_at.filter(|at| *at <= self.now) {
            set(
                &mut item,
                Decision::Excluded,
                Reason::Decayed,
                &format!("decayed at {}", at.format("%Y-%m-%d %H:%M UTC")),
            );
        } else if index >= shown {
            set(
                &mut item,
                Decision::Excluded,
                Reason::CardLimit,
                &format!("the card shows at most {shown} of these (CSA §6.1)"),
            );
        }
        self.d.cands.push(Cand {
            item,
            line: Some(line),
            rank,
            fixed: false,
        });
    }

    /// The sessions: the latest as *Last* and *Now*, the ones before it as earlier sessions.
    fn sessions(&mut self, history: &[SessionHistoryItem]) {
        let now = self.now;
        let live: Vec<_> = history.iter().filter(|s| s.decay_at > now).collect();
        for s in history {
            let shown_index = live
                .iter()
                .position(|l| l.entry_id == s.entry_id)
                .unwrap_or(usize::MAX);
            let line = if shown_index == 0 {
                s.line_latest.clone()
            } else {
                s.line.clone()
            };
            let mut item = trace_item(1, "summary", &line);
            item.source_id = Some(s.doc73_session_summary_id.clone());
            item.session_id = Some(s.source_session_id.clone());
            item.turn_seq = s.turn_seq;
            let index = if s.decay_at <= now { 0 } else { shown_index };
            // The latest session's line is what was done last and where it stands: the last
            // line the card gives up (rank 5); earlier sessions, and a latest one whose summary
            // is not available (a count of turns says nothing to act on), go first (rank 1).
            let rank = if shown_index == 0 && !s.summary.is_empty() {
                5
            } else {
                1
            };
            self.push(item, line, rank, (index, SHOWN_SESSIONS), Some(s.decay_at));
            // Where that session left the work: given up just before its Last line.
            if shown_index == 0
                && let Some(line_now) = &s.line_now
            {
                let mut item = trace_item(1, "summary", line_now);
                item.source_id = Some(s.doc73_session_summary_id.clone());
                item.session_id = Some(s.source_session_id.clone());
                item.turn_seq = s.turn_seq;
                item.detail = "where the latest session left the work, from its summary".to_owned();
                self.push(item, line_now.clone(), 4, (0, 1), Some(s.decay_at));
            }
        }
    }

    /// Open questions, the live ones counted against the card's limit.
    fn questions(&mut self, questions: &[QuestionItem]) {
        let entries = questions.iter().map(|q| EntryLine {
            line: &q.line,
            entry_id: q.entry_id.to_string(),
            session_id: &q.source_session_id,
            turn_seq: q.turn_seq,
            reduced_confidence: q.reduced_confidence,
            decay_at: q.decay_at,
        });
        self.entries(entries, 3, SHOWN_QUESTIONS);
    }

    /// Key decisions, the live ones counted against the card's limit.
    fn decisions(&mut self, decisions: &[DecisionItem]) {
        let entries = decisions.iter().map(|k| EntryLine {
            line: &k.line,
            entry_id: k.entry_id.to_string(),
            session_id: &k.source_session_id,
            turn_seq: k.turn_seq,
            reduced_confidence: k.reduced_confidence,
            decay_at: k.decay_at,
        });
        self.entries(entries, 2, SHOWN_DECISIONS);
    }

    /// Entries of one group at `rank`, the live ones counted against its limit of `shown`.
    fn entries<'v>(
        &mut self,
        entries: impl Iterator<Item = EntryLine<'v>>,
        rank: u8,
        shown: usize,
    ) {
        let mut live = 0;
        for e in entries {
            let mut item = trace_item(1, "entry", e.line);
            item.source_id = Some(e.entry_id);
            item.session_id = Some(e.session_id.clone());
            item.turn_seq = e.turn_seq;
            doubt(&mut item, e.reduced_confidence);
            self.push(item, e.line.clone(), rank, (live, shown), Some(e.decay_at));
            if e.decay_at > self.now {
                live += 1;
            }
        }
    }

    /// Goals and obligations: lines at their warrant, or candidates their warrant or lifecycle
    /// keeps out.
    fn nodes<'v>(&mut self, nodes: impl Iterator<Item = &'v NodeItem>) {
        let mut shown = 0;
        for n in nodes {
            if let Some((retired, detail)) = &n.excluded {
                // An obligation its warrant or lifecycle keeps out: a candidate the inspector
                // can explain, never a line.
                let mut item = trace_item(1, "node", &Line::counted(n.text.clone(), 0));
                item.source_id = Some(n.node_id.clone());
                item.work_context_id = Some(self.wc.clone());
                self.d.cands.push(excluded_node(item, *retired, detail));
                continue;
            }
            let Some(line) = &n.line else { continue };
            let mut item = trace_item(1, "node", line);
            item.source_id = Some(n.node_id.clone());
            if let Some((warrant, why)) = &n.warrant
                && warrant != Warrant::Assert.as_str()
            {
                item.detail = format!("{}; shown at warrant {warrant}: {why}", item.detail);
            }
            self.push(item, line.clone(), 0, (shown, SHOWN_NODES), None);
            shown += 1;
        }
    }

    /// Cross-conversation updates not yet delivered.
    fn updates(&mut self, updates: &[UpdateItem]) {
        for (i, u) in updates.iter().enumerate() {
            let mut item = trace_item(1, "update", &u.line);
            item.source_id = Some(u.entry_id.to_string());
            item.session_id = Some(u.source_session_id.clone());
            self.push(item, u.line.clone(), 4, (i, SHOWN_UPDATES), None);
        }
    }

    /// What the view's builder left out, so the inspector can say why.
    fn left_out(&mut self, excluded: &[ExcludedItem]) {
        for x in excluded {
            let line = Line::counted(x.text.clone(), 0);
            let mut item = trace_item(1, kind_of_entry_type(&x.kind), &line);
            item.source_id = Some(x.entry_id.to_string());
            item.session_id = Some(x.source_session_id.clone());
            item.work_context_id = Some(self.wc.clone());
            set(
                &mut item,
                Decision::Excluded,
                Reason::from_exclusion(x.reason),
                &x.detail,
            );
            self.d.cands.push(Cand {
                item,
                line: None,
                rank: 0,
                fixed: false,
            });
        }
    }
}

/// An open question or a key decision as the card weighs it.
struct EntryLine<'v> {
    line: &'v Line,
    entry_id: String,
    session_id: &'v SessionId,
    turn_seq: Option<i64>,
    reduced_confidence: bool,
    decay_at: DateTime<Utc>,
}

/// The injection rules (CSA §6.1) that keep the whole card out: no continuity data, the asking
/// session produced the latest entry, or too little time since it (no real break).
fn injection_rule(view: &Constellation, req: &BriefRequest) -> Option<(Reason, String)> {
    if !view.has_continuity_data() {
        return Some((
            Reason::NoContinuityData,
            "the work context has no continuity data yet".to_owned(),
        ));
    }
    let latest = view.session_history.iter().find(|s| s.decay_at > req.now)?;
    if req.session_id.as_deref() == Some(latest.source_session_id.as_str()) {
        return Some((
            Reason::SameSession,
            format!(
                "this session ({}) produced the latest session entry; no \"what you just did\" \
                 injection",
                latest.source_session_id
            ),
        ));
    }
    let since = req.now - latest.last_activity_at;
    (since < Duration::minutes(MIN_MINUTES_SINCE_SESSION)).then(|| {
        (
            Reason::UnderThirtyMinutes,
            format!(
                "only {} minute(s) since the latest session's activity; Tier 1 waits {} minutes",
                since.num_minutes().max(0),
                MIN_MINUTES_SINCE_SESSION
            ),
        )
    })
}

/// The resume card of a folder no work context claims (a home folder, a scratch folder): what
/// the latest session there did and where it left the work, from that session's capture, in the
/// lines a work context's card would give it. `None` when no such session is live, no capture
/// has summed it up, or the session went on after its capture (then its own card quotes it, and
/// a card of the earlier state would contradict it).
fn folder_card(store: &Store, cwd: &str, req: &BriefRequest) -> Result<Option<Draft>> {
    let place = last_session::Place::Folder(cwd);
    let Some(latest) = last_session::latest_session(store, &place, req)? else {
        return Ok(None);
    };
    let summary = store.graph().with_conn_result(|c| {
        let captured: Option<(String, String, String, i64)> = c
            .query_row(
                "SELECT s.doc73_session_summary_id, s.text, s.source, c.last_seq
                 FROM session_summaries s JOIN session_captures c ON c.session_id = s.session_id
                 WHERE s.session_id = ?1 ORDER BY s.generated_at DESC, s.rowid DESC LIMIT 1",
                [latest.session_id.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let Some(captured) = captured else {
            return Ok(None);
        };
        let went_on = c
            .query_row(
                "SELECT 1 FROM turns WHERE session_id = ?1 AND seq > ?2 AND kind = 'message'
                 LIMIT 1",
                params![latest.session_id.as_str(), captured.3],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        Ok((!went_on).then_some(captured))
    })?;
    let Some((summary_id, text, source, through)) = summary.filter(|s| !s.1.trim().is_empty())
    else {
        return Ok(None);
    };
    let mode = if source == "llm" {
        CaptureMode::LlmEnriched
    } else {
        CaptureMode::Deterministic
    };
    // Counted through the folder's kept counts, as its `last_session` card is: a brief on a
    // session's start path does not load the tokenizer for lines counted before.
    let memo = last_session::count_memo(store, &place, &latest);
    let header = memo.line(format!("{cwd}, no work context."));
    let (last, now) = constellation::session_card_lines(
        (&text, mode),
        latest.ended,
        header.tokens,
        &mut |text| memo.line(text),
    );
    memo.save();
    // Only its lines make it a card: a header left alone by the budget is no card.
    let mut d = Draft::new(1);
    d.fixed_is_content = false;
    let mut item = trace_item(1, "folder", &header);
    item.source_id = Some(cwd.to_owned());
    item.detail = "no work context claims the folder: the card names it".to_owned();
    d.cands.push(Cand {
        item,
        line: Some(header),
        rank: u8::MAX,
        fixed: true,
    });
    // The same ranks as a context's card: Now is given up before Last.
    for (line, rank, detail) in [
        (
            Some(last),
            5,
            "what the folder's latest session did, from its summary",
        ),
        (
            now,
            4,
            "where the folder's latest session left the work, from its summary",
        ),
    ] {
        let Some(line) = line else { continue };
        let mut item = trace_item(1, "summary", &line);
        item.source_id = Some(summary_id.clone());
        item.session_id = Some(latest.session_id.clone());
        item.turn_seq = Some(through);
        item.detail = detail.to_owned();
        d.cands.push(Cand {
            item,
            line: Some(line),
            rank,
            fixed: false,
        });
    }
    Ok(Some(d))
}

fn kind_of_entry_type(t: &str) -> &'static str {
    match t {
        "session_summary_ref" => "summary",
        "cross_conversation_update" => "update",
        _ => "entry",
    }
}

/// Tier 2 candidates from the rollup.
fn tier2(store: &Store, req: &BriefRequest, current: Option<&WorkContextId>) -> Result<Draft> {
    let mut d = Draft::new(2);
    let Some(rollup) = rollup::read(store)? else {
        return Ok(d);
    };
    let title = render::tier2_title(rollup.window_days, current.is_some());
    let mut head = trace_item(2, "constellation", &title);
    head.source_id = Some("rollup/recent_activity.md".to_owned());
    head.detail = format!("the rollup as of {} heads the card", rollup.as_of);
    d.cands.push(Cand {
        item: head,
        line: Some(title),
        rank: u8::MAX,
        fixed: true,
    });
    let stale = rollup.is_stale(req.today);
    for s in &rollup.segments {
        let mut item = trace_item(2, "segment", &s.line);
        item.source_id = Some(s.work_context_id.to_string());
        item.work_context_id = Some(s.work_context_id.clone());
        if stale {
            set(
                &mut item,
                Decision::Excluded,
                Reason::RollupStale,
                &format!(
                    "the rollup is from {}: more than {} days ago, or after the day of this brief",
                    rollup.as_of,
                    rollup::STALE_AFTER_DAYS
                ),
            );
        } else if Some(&s.work_context_id) == current {
            set(
                &mut item,
                Decision::Excluded,
                Reason::CurrentContext,
                "this segment is the current work context, which Tier 1 covers",
            );
        } else if s.local_only {
            set(
                &mut item,
                Decision::Excluded,
                Reason::Policy,
                "the work context is local-only: its content stays out of other contexts' briefs",
            );
        }
        d.cands.push(Cand {
            item,
            line: Some(s.line.clone()),
            rank: 0,
            fixed: false,
        });
    }
    Ok(d)
}

/// A durable node the brief leaves out (see [`crate::graph::nodes::brief_form`]): a candidate the
/// inspector can explain, never a line.
fn excluded_node(mut item: TraceItem, retired: bool, detail: &str) -> Cand {
    let reason = if retired {
        Reason::Retired
    } else {
        Reason::Warrant
    };
    set(&mut item, Decision::Excluded, reason, detail);
    Cand {
        item,
        line: None,
        rank: 0,
        fixed: false,
    }
}

/// Tier 3 candidates: the person's facts, then approved directives at their warrant; a
/// directive its warrant or lifecycle keeps out is a candidate excluded with the reason.
fn tier3(store: &Store, now: DateTime<Utc>) -> Result<Draft> {
    let mut d = Draft::new(3);
    for item in store.graph().living_memory(now)? {
        let mut t = trace_item(3, item.kind, &item.line);
        t.source_id = Some(item.source_id);
        if let Some(x) = &item.excluded {
            d.cands.push(excluded_node(t, x.retired, &x.detail));
            continue;
        }
        if let Some((warrant, why)) = &item.warrant
            && *warrant != Warrant::Assert
        {
            t.detail = format!("{}; shown at warrant {warrant}: {why}", t.detail);
        }
        d.cands.push(Cand {
            item: t,
            line: Some(item.line),
            rank: 0,
            fixed: false,
        });
    }
    Ok(d)
}

/// The capped cards of a brief (Tier 1, 2 and 3), each cut to its cap and together to the
/// budget in the trimming order of CSA §6.4, and what they leave to the last session's card.
struct Capped {
    t1: Draft,
    t2: Draft,
    t3: Draft,
    /// The room left of the budget.
    left: u32,
    /// What the resume card shows: the sessions it sums up, which the last session's card does
    /// not sum up again, and its lines, which it does not quote again.
    shown: last_session::Shown,
}

fn capped(
    store: &Store,
    req: &BriefRequest,
    choice: Option<&ContextChoice>,
    view: Option<&Constellation>,
    warnings: &mut Vec<String>,
) -> Result<Capped> {
    let folder = match (view, &req.cwd) {
        (None, Some(cwd)) => folder_card(store, cwd, req)?,
        _ => None,
    };
    let mut t1 = match (view, folder) {
        (Some(v), _) => tier1(v, req),
        (None, Some(card)) => card,
        (None, None) => {
            let mut d = Draft::new(1);
            let detail = match (&req.cwd, &req.session_id) {
                (None, None) if req.entity_names.is_empty() && req.session_key.is_none() => {
                    "the caller gave no cwd, session, key or entity to find a work context by"
                        .to_owned()
                }
                _ => "no link rule, earlier capture or known entity set matched".to_owned(),
            };
            let mut item = trace_item(1, "constellation", &Line::counted("(no work context)", 0));
            set(&mut item, Decision::Excluded, Reason::NoContext, &detail);
            d.cands.push(Cand {
                item,
                line: None,
                rank: 0,
                fixed: false,
            });
            d
        }
    };
    let current = choice.map(|c| &c.work_context_id);
    let t1_fires = t1.has_content();
    let mut t2 = tier2(store, req, current.filter(|_| t1_fires))?;
    let mut t3 = tier3(store, req.now)?;

    // Tier caps, then the total budget in the trimming order of CSA §6.4.
    let budget = req.budget;
    t3.trim(
        TIER3_CAP.min(budget),
        Reason::TierCap,
        &format!("over Tier 3's cap of {} tokens", TIER3_CAP.min(budget)),
    );
    t1.trim(
        TIER1_CAP,
        Reason::TierCap,
        &format!(
            "over Tier 1's cap of {TIER1_CAP} tokens (trimmed: due items, then session history, \
             decisions, questions, updates)"
        ),
    );
    t2.trim(
        TIER2_CAP,
        Reason::TierCap,
        &format!("over Tier 2's cap of {TIER2_CAP} tokens"),
    );
    let room = budget - t3.tokens();
    if t1.tokens() + t2.tokens() > room {
        let limit = room.saturating_sub(t1.tokens());
        t2.trim(
            limit,
            Reason::TrimStep1,
            &format!("trimming step 1: Tier 2 goes first to fit the budget of {budget} tokens"),
        );
    }
    if t1.tokens() > room {
        let had = t1.has_content();
        t1.trim(
            room,
            Reason::TrimStep2,
            &format!("trimming step 2: Tier 1 trimmed to fit the budget of {budget} tokens"),
        );
        if had && !t1.has_content() {
            for c in t1
                .cands
                .iter_mut()
                .filter(|c| c.item.reason == Reason::TrimStep2)
            {
                c.item.reason = Reason::TrimStep3;
                c.item.detail = format!(
                    "trimming step 3: a budget of {budget} tokens cannot hold Tier 1 beside Tier 3; \
                     Tier 3 alone is injected"
                );
            }
            warnings.push(format!(
                "the budget of {budget} tokens cannot hold Tier 3 and Tier 1: the surface profile \
                 is mis-configured; injecting Tier 3 only"
            ));
            tracing::warn!(budget, "brief budget too small for Tier 1 beside Tier 3");
        }
    }

    // The room the cards leave of the budget goes to the latest session in its own words.
    let left = budget.saturating_sub(t1.tokens() + t2.tokens() + t3.tokens());
    // Sessions the resume card already shows are not summed up again, nor its lines quoted.
    let on_card = || t1.cands.iter().filter(|c| c.included());
    let shown = last_session::Shown {
        sessions: on_card()
            .filter_map(|c| c.item.session_id.as_ref().map(|s| s.to_string()))
            .collect(),
        text: on_card()
            .filter_map(|c| c.line.as_ref().map(|l| l.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    Ok(Capped {
        t1,
        t2,
        t3,
        left,
        shown,
    })
}

/// Assembles a brief and stores its trace; a delivery also marks the updates it showed.
pub fn assemble(store: &Store, req: &BriefRequest) -> Result<Brief> {
    if req.budget == 0 || req.budget > MAX_BUDGET {
        return Err(Error::InvalidInput(format!(
            "a brief's budget is from 1 to {MAX_BUDGET} tokens, not {}",
            req.budget
        )));
    }
    let mut warnings = Vec::new();
    let choice = choose_context(store, req)?;
    let mut stale = false;
    let mut needs_rebuild = Vec::new();
    let mut view = None;
    if let Some(choice) = &choice {
        let read = constellation::view(store, &choice.work_context_id, req.now)?;
        if read.stale {
            stale = true;
            needs_rebuild.push(choice.work_context_id.clone());
            warnings.push(format!(
                "the constellation view of {} is stale; served as is while it is rebuilt",
                choice.work_context_id
            ));
        }
        view = Some(read.constellation);
    }

    let Capped {
        t1,
        t2,
        t3,
        left,
        shown,
    } = capped(store, req, choice.as_ref(), view.as_ref(), &mut warnings)?;
    let budget = req.budget;
    let place = match (&view, &req.cwd) {
        (Some(v), _) => Some(last_session::Place::Context(v)),
        (None, Some(cwd)) => Some(last_session::Place::Folder(cwd)),
        (None, None) => None,
    };
    let last = match place {
        Some(place) => last_session::draft(store, place, req, left, &shown)?,
        None => Draft::last_session(),
    };

    // Activity-type routing (CSA §6.5).
    let from_message = req
        .first_message
        .as_deref()
        .and_then(|m| activity::classify(m).activity);
    let (activity_type, activity_source) = match from_message {
        Some(a) => (Some(a), "message"),
        None => match view
            .as_ref()
            .and_then(|v| phase_activity(v.active_work_phase))
        {
            Some(a) => (Some(a), "inherited"),
            None => (None, "none"),
        },
    };

    let mut cards = Vec::new();
    let mut trace = Vec::new();
    for draft in [t1, last, t2, t3] {
        let (card, items) = draft.into_card();
        cards.extend(card);
        trace.extend(items);
    }
    let total_tokens = cards.iter().map(|c| c.tokens).sum();
    let envelope_tokens = render::envelope_tokens(!cards.is_empty());
    let delivered_updates: Vec<String> = if req.delivery == Delivery::Delivered {
        cards
            .iter()
            .flat_map(|c| &c.items)
            .filter(|i| i.kind == "update")
            .filter_map(|i| i.source_id.clone())
            .collect()
    } else {
        Vec::new()
    };
    let mut brief = Brief {
        assembly_id: 0,
        delivery: req.delivery,
        format: req.format,
        today: req.today,
        work_context: choice,
        stale,
        activity_type,
        activity_source,
        cards,
        budget,
        total_tokens,
        envelope_tokens,
        warnings,
        trace,
        needs_rebuild,
        delivered_updates,
    };
    let output = render::text(&brief);
    brief.assembly_id = crate::brief::traces::record(store, req, &brief, &output)?;
    if !brief.delivered_updates.is_empty() {
        // The view showed updates that are now delivered: it is stale until rebuilt.
        if let Some(c) = &brief.work_context
            && !brief.needs_rebuild.contains(&c.work_context_id)
        {
            brief.needs_rebuild.push(c.work_context_id.clone());
        }
    }
    Ok(brief)
}

/// Marks updates delivered and bumps their context's view, in the caller's transaction.
pub(crate) fn mark_delivered_in(
    tx: &rusqlite::Transaction<'_>,
    wc: &str,
    entry_ids: &[String],
    assembly_id: i64,
    now: DateTime<Utc>,
) -> rusqlite::Result<()> {
    let unique: BTreeSet<&String> = entry_ids.iter().collect();
    for id in unique {
        tx.execute(
            "INSERT OR IGNORE INTO update_deliveries (entry_id, work_context_id, assembly_id, delivered_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![id, wc, assembly_id, entities::ts(now)],
        )?;
    }
    crate::graph::touch_in(tx, wc)
}

#[cfg(test)]
mod tests;
