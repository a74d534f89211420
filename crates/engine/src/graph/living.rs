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
        "SELECT fact_id, text, position, tokens, created_at, updated_at FROM living_facts
         WHERE fact_id = ?1",
        [id],
        row_fact,
    )
    .optional()
}

fn row_fact(r: &rusqlite::Row<'_>) -> rusqlite::Result<LivingFact> {
    Ok(LivingFact {
        fact_id: r.get(0)?,
        text: r.get(1)?,
        position: r.get(2)?,
        tokens: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
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
            let mut stmt = c.prepare(
                "SELECT fact_id, text, position, tokens, created_at, updated_at FROM living_facts
                 ORDER BY position, fact_id",
            )?;
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
            "INSERT INTO living_facts (text, position, tokens, created_at, updated_at)
             VALUES (?1, (SELECT coalesce(max(position), 0) + 1 FROM living_facts), ?2, ?3, ?3)",
            params![text, tokens, ts(now)],
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
