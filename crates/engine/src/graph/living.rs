//! Living memory, the source of Tier 3 (CSA §6.3, SPEC §2 "DOC73 PBE living memory"): the
//! person's own stable facts and preferences, edited in Settings, plus memory directives the
//! person approved in the review queue.
//!
//! Facts are canonical graph rows. Each stores the BPE count of its card line, computed when it is
//! written, so the brief can budget Tier 3 without loading the tokenizer.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::tokens::{Line, count_u32, one_line};
use crate::graph::Graph;
use crate::graph::entities::ts;
use crate::graph::nodes::{BriefForm, Warrant, brief_form};

/// Longest fact, in characters: Tier 3 has 100 tokens for everything.
pub const MAX_FACT_CHARS: usize = 300;
/// Most facts a person can keep; Tier 3 shows what fits its budget, in order.
pub const MAX_FACTS: usize = 50;

/// One fact or preference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LivingFact {
    pub fact_id: i64,
    /// The fact's key on every device it travels to (the id is this store's).
    pub fact_key: String,
    pub text: String,
    /// 1-based order in Tier 3.
    pub position: i64,
    pub tokens: u32,
    pub created_at: String,
    pub updated_at: String,
}

/// One Tier 3 candidate, in the order Tier 3 considers them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LivingItem {
    /// `fact` or `directive`.
    pub kind: &'static str,
    /// `lf_{id}` for facts, the directive id for directives.
    pub source_id: String,
    pub line: Line,
    /// A directive's use warrant and why it has it.
    pub warrant: Option<(Warrant, String)>,
    /// Why the item may not be shown, when it may not.
    pub excluded: Option<LivingExclusion>,
}

/// Why a directive is a Tier 3 candidate that may not be shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LivingExclusion {
    /// Retired or superseded (else: live, at a warrant that forbids injection).
    pub retired: bool,
    pub detail: String,
}

fn validate(text: &str) -> Result<String> {
    let text = one_line(text);
    if text.is_empty() {
        return Err(Error::InvalidInput("a fact cannot be empty".to_owned()));
    }
    let n = text.chars().count();
    if n > MAX_FACT_CHARS {
        return Err(Error::InvalidInput(format!(
            "a fact is at most {MAX_FACT_CHARS} characters (this one has {n}); Tier 3 has 100 tokens in all"
        )));
    }
    Ok(text)
}

fn fact_in(c: &Connection, id: i64) -> rusqlite::Result<Option<LivingFact>> {
    c.query_row(
        &format!("SELECT {FACT_COLUMNS} FROM living_facts WHERE fact_id = ?1"),
        [id],
        row_fact,
    )
    .optional()
}

/// The columns [`row_fact`] reads, in its order.
const FACT_COLUMNS: &str = "fact_id, text, position, tokens, created_at, updated_at, fact_key";

fn row_fact(r: &rusqlite::Row<'_>) -> rusqlite::Result<LivingFact> {
    Ok(LivingFact {
        fact_id: r.get(0)?,
        text: r.get(1)?,
        position: r.get(2)?,
        tokens: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
        fact_key: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
    })
}

/// A new fact's key: unique across devices (the text, the instant and this process).
fn new_key(text: &str, now: DateTime<Utc>, n: i64) -> String {
    use sha2::{Digest, Sha256};
    let seed = format!(
        "{text}\n{}\n{n}\n{}",
        now.timestamp_nanos_opt().unwrap_or_default(),
        std::process::id()
    );
    let digest = Sha256::digest(seed.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("lf_{hex}")
}

fn not_found(id: i64) -> Error {
    Error::NotFound {
        what: "living-memory fact",
        id: id.to_string(),
    }
}

impl Graph {
    /// The person's facts, in Tier 3 order.
    pub fn living_facts(&self) -> Result<Vec<LivingFact>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {FACT_COLUMNS} FROM living_facts ORDER BY position, fact_id"
            ))?;
            stmt.query_map([], row_fact)?.collect()
        })
    }

    /// Adds a fact at the end of Tier 3's order.
    pub fn add_living_fact(&self, text: &str, now: DateTime<Utc>) -> Result<LivingFact> {
        let text = validate(text)?;
        let tokens = Line::new(&text).tokens;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let n: i64 = tx
            .query_row("SELECT count(*) FROM living_facts", [], |r| r.get(0))
            .map_err(|e| self.sql(e))?;
        if n as usize >= MAX_FACTS {
            return Err(Error::InvalidInput(format!(
                "at most {MAX_FACTS} facts; remove one first"
            )));
        }
        tx.execute(
            "INSERT INTO living_facts (text, position, tokens, created_at, updated_at, fact_key)
             VALUES (?1, (SELECT coalesce(max(position), 0) + 1 FROM living_facts), ?2, ?3, ?3, ?4)",
            params![text, tokens, ts(now), new_key(&text, now, n)],
        )
        .map_err(|e| self.sql(e))?;
        let id = tx.last_insert_rowid();
        let fact = fact_in(&tx, id)
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| not_found(id))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(fact)
    }

    /// Changes a fact's text and, when given, its position (1 = first; others shift).
    pub fn edit_living_fact(
        &self,
        id: i64,
        text: Option<&str>,
        position: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<LivingFact> {
        let text = text.map(validate).transpose()?;
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let current = fact_in(&tx, id)
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| not_found(id))?;
        if let Some(text) = &text {
            tx.execute(
                "UPDATE living_facts SET text = ?2, tokens = ?3, updated_at = ?4 WHERE fact_id = ?1",
                params![id, text, Line::new(text).tokens, ts(now)],
            )
            .map_err(|e| self.sql(e))?;
        }
        if let Some(position) = position {
            // Renumber 1..n with this fact at the requested place, so positions stay dense.
            let mut ids: Vec<i64> = {
                let mut stmt = tx
                    .prepare("SELECT fact_id FROM living_facts ORDER BY position, fact_id")
                    .map_err(|e| self.sql(e))?;
                stmt.query_map([], |r| r.get(0))
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<i64>>>())
                    .map_err(|e| self.sql(e))?
            };
            ids.retain(|f| *f != id);
            let at = usize::try_from(position.max(1) - 1)
                .unwrap_or(0)
                .min(ids.len());
            ids.insert(at, current.fact_id);
            for (i, f) in ids.iter().enumerate() {
                tx.execute(
                    "UPDATE living_facts SET position = ?2 WHERE fact_id = ?1",
                    params![f, i as i64 + 1],
                )
                .map_err(|e| self.sql(e))?;
            }
        }
        let fact = fact_in(&tx, id)
            .map_err(|e| self.sql(e))?
            .ok_or_else(|| not_found(id))?;
        tx.commit().map_err(|e| self.sql(e))?;
        Ok(fact)
    }

    /// Removes a fact.
    pub fn remove_living_fact(&self, id: i64) -> Result<()> {
        let n = self
            .with_conn_result(|c| c.execute("DELETE FROM living_facts WHERE fact_id = ?1", [id]))?;
        if n == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    /// The fact with this key, if it is here.
    pub(crate) fn living_fact_by_key(&self, key: &str) -> Result<Option<LivingFact>> {
        self.with_conn_result(|c| {
            c.query_row(
                &format!("SELECT {FACT_COLUMNS} FROM living_facts WHERE fact_key = ?1"),
                [key],
                row_fact,
            )
            .optional()
        })
    }

    /// Writes a fact another device's person made or edited (sync), under its key: made when
    /// absent (at the end, until the order is derived again), its text set when present.
    pub(crate) fn sync_living_fact(
        &self,
        key: &str,
        text: &str,
        created_at: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let text = validate(text)?;
        let tokens = Line::new(&text).tokens;
        self.with_conn_result(|c| {
            c.execute(
                "INSERT INTO living_facts (text, position, tokens, created_at, updated_at, fact_key)
                 VALUES (?1, (SELECT coalesce(max(position), 0) + 1 FROM living_facts), ?2, ?3,
                         ?4, ?5)
                 ON CONFLICT (fact_key) DO UPDATE
                 SET text = excluded.text, tokens = excluded.tokens, updated_at = excluded.updated_at",
                params![text, tokens, created_at, ts(now), key],
            )
        })?;
        Ok(())
    }

    /// Removes the fact with this key, if it is here.
    pub(crate) fn remove_living_fact_by_key(&self, key: &str) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute("DELETE FROM living_facts WHERE fact_key = ?1", [key])
        })?;
        Ok(())
    }

    /// Puts the facts in `order` (by key) first, in that order, and the others after them by
    /// when they were made: the order the person set on any device, with what other devices
    /// added since at the end, the same on every device.
    pub(crate) fn order_living_facts(&self, order: &[String]) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(|e| self.sql(e))?;
        let facts: Vec<(i64, String, String)> = tx
            .prepare("SELECT fact_id, coalesce(fact_key, ''), created_at FROM living_facts")
            .and_then(|mut stmt| {
                stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(|e| self.sql(e))?;
        let rank = |key: &str| order.iter().position(|k| k == key).unwrap_or(usize::MAX);
        let mut sorted = facts;
        sorted.sort_by(|a, b| (rank(&a.1), &a.2, &a.1).cmp(&(rank(&b.1), &b.2, &b.1)));
        for (i, (id, _, _)) in sorted.iter().enumerate() {
            tx.execute(
                "UPDATE living_facts SET position = ?2 WHERE fact_id = ?1",
                params![id, i as i64 + 1],
            )
            .map_err(|e| self.sql(e))?;
        }
        tx.commit().map_err(|e| self.sql(e))
    }

    /// Derives the facts' positions from the order the person last set on any device (kept by
    /// sync), with the facts it does not name after it: what every device does after a change,
    /// so two devices with the same facts show them in the same order.
    pub(crate) fn order_living_facts_as_set(&self) -> Result<()> {
        let order: Vec<String> = self
            .sync_state(crate::graph::sync::LIVING_ORDER)?
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default();
        self.order_living_facts(&order)
    }

    /// Tier 3's candidates: the person's facts in order, then memory directives, oldest first.
    /// A live directive shows at its use warrant (hedged below `assert`); one whose warrant
    /// forbids injection, or that was retired or superseded in the last
    /// [`EXCLUDED_TRACE_DAYS`](crate::graph::nodes::EXCLUDED_TRACE_DAYS), comes with the reason it is
    /// left out, so the brief's trace can say why it left.
    pub fn living_memory(&self, now: DateTime<Utc>) -> Result<Vec<LivingItem>> {
        let facts = self.living_facts()?;
        let nodes = self.directives_for_brief(now)?;
        let mut items: Vec<LivingItem> = facts
            .into_iter()
            .map(|f| LivingItem {
                kind: "fact",
                source_id: format!("lf_{}", f.fact_id),
                line: Line::counted(f.text, f.tokens),
                warrant: None,
                excluded: None,
            })
            .collect();
        for (n, stored) in nodes {
            let text = one_line(&n.text);
            let reason = n.warrant_reason.clone().unwrap_or_default();
            let (line, excluded) =
                match brief_form(n.lifecycle, n.warrant, &reason, &n.updated_at, &text) {
                    BriefForm::Shown(rendered) => {
                        // Directives whose count predates the stored one are counted here, once.
                        let tokens = stored.unwrap_or_else(|| count_u32(&format!("{rendered}\n")));
                        (Line::counted(rendered, tokens), None)
                    }
                    BriefForm::Excluded { retired, detail } => (
                        Line::counted(text, 0),
                        Some(LivingExclusion { retired, detail }),
                    ),
                };
            items.push(LivingItem {
                kind: "directive",
                source_id: n.node_id.to_string(),
                line,
                warrant: Some((n.warrant, reason)),
                excluded,
            });
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests;
