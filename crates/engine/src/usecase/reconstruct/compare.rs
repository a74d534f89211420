//! Live against scratch, per work context. An entry is known by its type, its text (lowercased,
//! whitespace collapsed) and its source session; what differs on every run (its id, when it was
//! captured and so when it decays, whether a brief delivered it) is ignored. Entries with the
//! same key are paired in log order, equal ones first, so a session that raised the same
//! question twice is compared twice. Session summaries are known by their id (a session and the
//! last turn its capture read) and compared by text.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::base::error::Result;
use crate::base::ids::WorkContextId;
use crate::continuity::{ContinuityEntry, EntryContent, EntryType};
use crate::graph::store::Store;

/// How many items of each count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiffCounts {
    /// Items the replay made exactly as they are.
    pub same: usize,
    /// Items only the replay made: apply would add them.
    pub added: usize,
    /// Items only the live store has: apply would remove them.
    pub removed: usize,
    /// Items both have whose details differ: apply would rewrite them.
    pub changed: usize,
    /// Items the replay would remove or change, that apply keeps because a decision of the
    /// person's rests on them.
    pub kept: usize,
}

impl DiffCounts {
    /// Added, removed and changed together.
    pub fn differences(&self) -> usize {
        self.added + self.removed + self.changed
    }

    pub(crate) fn add(&mut self, other: &DiffCounts) {
        self.same += other.same;
        self.added += other.added;
        self.removed += other.removed;
        self.changed += other.changed;
        self.kept += other.kept;
    }
}

/// What would happen to one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemChange {
    Added,
    Removed,
    Changed,
    Kept,
}

/// One item that differs.
#[derive(Debug, Clone, Serialize)]
pub struct DiffItem {
    pub change: ItemChange,
    /// `open question`, `key decision`, `session summary`, `phase change`,
    /// `cross-conversation update` or `summary text`.
    pub kind: &'static str,
    pub text: String,
    pub session_id: String,
    /// For a changed (or kept) item, what differs: `field: "live" → "replayed"`.
    pub details: Vec<String>,
    /// The live entry's id, when the item is a live entry.
    pub live_entry_id: Option<String>,
    /// The session summary's id, when the item is a summary's text.
    pub summary_id: Option<String>,
}

impl DiffItem {
    /// The item as one diff line: `+ open question: …`, `- key decision: …`, `~ …`, `! …`.
    pub fn line(&self) -> String {
        let mark = match self.change {
            ItemChange::Added => '+',
            ItemChange::Removed => '-',
            ItemChange::Changed => '~',
            ItemChange::Kept => '!',
        };
        let mut out = format!("{mark} {}: {}", self.kind, short(&self.text, 160));
        if self.change == ItemChange::Kept {
            out.push_str(" (kept: you reviewed it)");
        }
        for d in &self.details {
            out.push_str(&format!("\n    {d}"));
        }
        out
    }
}

/// What would change in one work context.
#[derive(Debug, Clone, Serialize)]
pub struct ContextDiff {
    pub work_context_id: WorkContextId,
    pub counts: DiffCounts,
    /// Every item that is not the same, in the live log's order, then the replay's additions.
    pub items: Vec<DiffItem>,
    /// Live entry ids to take out, live entry ids to rewrite with the replay's entry, and the
    /// replay's entries to add: what apply does to this context's log.
    #[serde(skip)]
    pub(crate) plan: Plan,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub remove: BTreeSet<String>,
    pub change: BTreeMap<String, ContinuityEntry>,
    pub add: Vec<ContinuityEntry>,
    /// Summary ids to write from the replay, and to take out.
    pub summaries_write: Vec<String>,
    pub summaries_remove: Vec<String>,
}

impl ContextDiff {
    /// Whether apply has anything to do here.
    pub(crate) fn has_plan(&self) -> bool {
        !(self.plan.remove.is_empty()
            && self.plan.change.is_empty()
            && self.plan.add.is_empty()
            && self.plan.summaries_write.is_empty()
            && self.plan.summaries_remove.is_empty())
    }
}

/// Capture's items on one side: its log entries per work context, and its summaries.
pub(crate) struct Side {
    pub entries: BTreeMap<WorkContextId, Vec<ContinuityEntry>>,
    /// Summary id → (session, text, source).
    pub summaries: BTreeMap<String, (String, String, String)>,
}

impl Side {
    /// Reads the entries whose source is a captured session, and every session summary.
    pub(crate) fn read(store: &Store, captured: &BTreeSet<String>) -> Result<Side> {
        let mut entries = BTreeMap::new();
        for wc in store.log_ids()? {
            let mine: Vec<ContinuityEntry> = store
                .log(&wc)
                .read()?
                .entries
                .into_iter()
                .filter(|e| captured.contains(e.source_session_id.as_str()))
                .collect();
            if !mine.is_empty() {
                entries.insert(wc, mine);
            }
        }
        let summaries = store.graph().with_conn_result(|c| {
            let mut stmt = c.prepare(
                "SELECT doc73_session_summary_id, session_id, text, source FROM session_summaries",
            )?;
            stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?
                .collect::<rusqlite::Result<BTreeMap<_, _>>>()
        })?;
        Ok(Side { entries, summaries })
    }

    /// The work context each summary belongs to: the one whose log points at it.
    fn summary_contexts(&self) -> BTreeMap<String, WorkContextId> {
        let mut out = BTreeMap::new();
        for (wc, entries) in &self.entries {
            for e in entries {
                if let EntryContent::SessionSummaryRef(s) = &e.content {
                    out.entry(s.doc73_session_summary_id.clone())
                        .or_insert_with(|| wc.clone());
                }
            }
        }
        out
    }
}

fn kind(t: EntryType) -> &'static str {
    match t {
        EntryType::SessionSummaryRef => "session summary",
        EntryType::OpenQuestion => "open question",
        EntryType::KeyDecision => "key decision",
        EntryType::CrossConversationUpdate => "cross-conversation update",
        EntryType::WorkPhaseChange => "phase change",
    }
}

/// What an entry is about, as compared: its type, its text and its source session.
fn key(e: &ContinuityEntry) -> (EntryType, String, String) {
    let text = match &e.content {
        EntryContent::SessionSummaryRef(s) => s.doc73_session_summary_id.clone(),
        other => other.headline(),
    };
    let norm = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    (e.entry_type(), norm, e.source_session_id.to_string())
}

/// The entry's details that a replay should reproduce: everything but what differs on every
/// run.
fn details(e: &ContinuityEntry) -> BTreeMap<String, Value> {
    let mut v = match serde_json::to_value(e) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    for run_specific in [
        "entry_id",
        "captured_at",
        "decay_at",
        "delivered",
        "promoted_to_graph",
        "promoted_node_id",
        "work_context_id",
        "schema_version",
    ] {
        v.remove(run_specific);
    }
    let mut out: BTreeMap<String, Value> = BTreeMap::new();
    for (k, val) in v {
        match (k.as_str(), val) {
            // The content's fields are compared one by one, so a diff names the one that moved.
            ("content", Value::Object(c)) => {
                out.extend(c.into_iter().map(|(ck, cv)| (format!("content.{ck}"), cv)))
            }
            (_, val) => {
                out.insert(k, val);
            }
        }
    }
    out
}

fn field_diffs(live: &BTreeMap<String, Value>, replayed: &BTreeMap<String, Value>) -> Vec<String> {
    let keys: BTreeSet<&String> = live.keys().chain(replayed.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let a = live.get(k).unwrap_or(&Value::Null);
            let b = replayed.get(k).unwrap_or(&Value::Null);
            (a != b).then(|| {
                format!(
                    "{k}: {} → {}",
                    short(&a.to_string(), 100),
                    short(&b.to_string(), 100)
                )
            })
        })
        .collect()
}

fn short(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        format!("{}…", flat.chars().take(max).collect::<String>())
    }
}

/// Compares the two sides per work context (only `only`, when given).
pub(crate) fn compare(
    live: &Side,
    replayed: &Side,
    protected: &BTreeSet<String>,
    only: Option<&WorkContextId>,
) -> Vec<ContextDiff> {
    let mut contexts: BTreeSet<WorkContextId> = live.entries.keys().cloned().collect();
    contexts.extend(replayed.entries.keys().cloned());
    let live_sc = live.summary_contexts();
    let replayed_sc = replayed.summary_contexts();
    let none = Vec::new();
    let mut out = Vec::new();
    for wc in contexts {
        if only.is_some_and(|o| o != &wc) {
            continue;
        }
        let mut diff = ContextDiff {
            work_context_id: wc.clone(),
            counts: DiffCounts::default(),
            items: Vec::new(),
            plan: Plan::default(),
        };
        compare_entries(
            live.entries.get(&wc).unwrap_or(&none),
            replayed.entries.get(&wc).unwrap_or(&none),
            protected,
            &mut diff,
        );
        // Summaries, each in the context whose log points at it (live first).
        let ids: BTreeSet<&String> = live
            .summaries
            .keys()
            .chain(replayed.summaries.keys())
            .collect();
        for id in ids {
            let home = live_sc.get(id).or_else(|| replayed_sc.get(id));
            if home != Some(&wc) {
                continue;
            }
            compare_summary(
                id,
                live.summaries.get(id),
                replayed.summaries.get(id),
                &mut diff,
            );
        }
        out.push(diff);
    }
    out
}

fn compare_entries(
    live: &[ContinuityEntry],
    replayed: &[ContinuityEntry],
    protected: &BTreeSet<String>,
    diff: &mut ContextDiff,
) {
    // Replayed entries by key, in log order; each is used at most once.
    let mut pool: BTreeMap<(EntryType, String, String), Vec<Option<&ContinuityEntry>>> =
        BTreeMap::new();
    for e in replayed {
        pool.entry(key(e)).or_default().push(Some(e));
    }
    let is_protected =
        |e: &ContinuityEntry| e.promoted_to_graph || protected.contains(e.entry_id.as_str());
    let item = |change, e: &ContinuityEntry, details| DiffItem {
        change,
        kind: kind(e.entry_type()),
        text: e.content.headline(),
        session_id: e.source_session_id.to_string(),
        details,
        live_entry_id: None,
        summary_id: None,
    };
    // First pass: exact pairs. Second: the rest paired in order as changed.
    let mut unmatched: Vec<&ContinuityEntry> = Vec::new();
    for e in live {
        let d = details(e);
        let exact = pool.get_mut(&key(e)).and_then(|cands| {
            cands
                .iter_mut()
                .find(|c| c.is_some_and(|c| details(c) == d))
                .and_then(Option::take)
        });
        match exact {
            Some(_) => diff.counts.same += 1,
            None => unmatched.push(e),
        }
    }
    for e in unmatched {
        let other = pool.get_mut(&key(e)).and_then(|cands| {
            cands
                .iter_mut()
                .find(|c| c.is_some())
                .and_then(Option::take)
        });
        let keep = is_protected(e);
        let mut it = match (other, keep) {
            (Some(r), false) => {
                diff.counts.changed += 1;
                diff.plan.change.insert(e.entry_id.to_string(), r.clone());
                item(
                    ItemChange::Changed,
                    e,
                    field_diffs(&details(e), &details(r)),
                )
            }
            (Some(r), true) => {
                diff.counts.kept += 1;
                item(ItemChange::Kept, e, field_diffs(&details(e), &details(r)))
            }
            (None, false) => {
                diff.counts.removed += 1;
                diff.plan.remove.insert(e.entry_id.to_string());
                item(ItemChange::Removed, e, Vec::new())
            }
            (None, true) => {
                diff.counts.kept += 1;
                item(ItemChange::Kept, e, Vec::new())
            }
        };
        it.live_entry_id = Some(e.entry_id.to_string());
        diff.items.push(it);
    }
    // What is left in the pool only the replay made, in its log order.
    let left: BTreeSet<String> = pool
        .values()
        .flatten()
        .flatten()
        .map(|e| e.entry_id.to_string())
        .collect();
    for e in replayed
        .iter()
        .filter(|e| left.contains(e.entry_id.as_str()))
    {
        diff.counts.added += 1;
        diff.plan.add.push(e.clone());
        diff.items.push(item(ItemChange::Added, e, Vec::new()));
    }
}

fn compare_summary(
    id: &str,
    live: Option<&(String, String, String)>,
    replayed: Option<&(String, String, String)>,
    diff: &mut ContextDiff,
) {
    let item = |change, session: &str, text: &str, details| DiffItem {
        change,
        kind: "summary text",
        text: format!("{id}: {}", short(text, 140)),
        session_id: session.to_owned(),
        details,
        live_entry_id: None,
        summary_id: Some(id.to_owned()),
    };
    match (live, replayed) {
        (Some(a), Some(b)) if a == b => diff.counts.same += 1,
        (Some(a), Some(b)) => {
            diff.counts.changed += 1;
            diff.plan.summaries_write.push(id.to_owned());
            let mut d = Vec::new();
            if a.1 != b.1 {
                d.push(format!("text: {} → {}", short(&a.1, 100), short(&b.1, 100)));
            }
            if a.2 != b.2 {
                d.push(format!("source: {} → {}", a.2, b.2));
            }
            diff.items.push(item(ItemChange::Changed, &a.0, &a.1, d));
        }
        (Some(a), None) => {
            diff.counts.removed += 1;
            diff.plan.summaries_remove.push(id.to_owned());
            diff.items
                .push(item(ItemChange::Removed, &a.0, &a.1, Vec::new()));
        }
        (None, Some(b)) => {
            diff.counts.added += 1;
            diff.plan.summaries_write.push(id.to_owned());
            diff.items
                .push(item(ItemChange::Added, &b.0, &b.1, Vec::new()));
        }
        (None, None) => {}
    }
}
