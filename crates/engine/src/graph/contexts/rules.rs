//! Every link rule of the graph at one moment, ready for placing many sessions: the `cwd` rules
//! keyed by their normalised directory, so a session's folder finds the rules that hold it by
//! looking up its own ancestors rather than by comparing itself with every rule.
//!
//! A heavy user has a context per project, thousands of `cwd` rules, and every capture, every
//! brief and a first ingest's tens of thousands of sessions are each placed by all of them. So
//! the graph keeps the last [`LinkRules`] it read and hands it out again while the schema's
//! `link_rules_version` counter, which triggers bump on any change to a rule or a project row from
//! any process, stands still (as `entities/names.rs` does for the known names).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use rusqlite::Connection;

use super::{LinkRule, LinkRuleKind, SessionFacts, glob_match, rules_in};
use crate::base::error::Result;
use crate::base::ids::{EntityId, WorkContextId};
use crate::graph::Graph;
use crate::graph::projects::{key_of, normalise};

/// The link rules, with the `cwd` ones by directory key.
#[derive(Debug, Default)]
pub(crate) struct LinkRules {
    /// Contexts ELNOR made for projects: any rule the person wrote outranks theirs.
    made: HashSet<String>,
    /// `cwd` rules by the key of their normalised directory, each with its context.
    cwd: HashMap<String, Vec<(String, LinkRule)>>,
    /// Session-key and entity-set rules, with their contexts, in rule id order.
    other: Vec<(String, LinkRule)>,
}

/// How a rule ranks for a session: a person's rule over one ELNOR made, then `cwd` over session
/// key over entity set, then the more specific. Ties go to the lower rule id.
type Score = (bool, u8, usize);

impl LinkRules {
    /// Reads every rule and the contexts made for projects through `conn`.
    pub(crate) fn read(conn: &Connection) -> rusqlite::Result<LinkRules> {
        let mut rules = LinkRules {
            made: {
                let mut stmt = conn.prepare_cached(
                    "SELECT work_context_id FROM projects
                     WHERE made = 1 AND work_context_id IS NOT NULL",
                )?;
                stmt.query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()?
            },
            ..LinkRules::default()
        };
        for (wc, rule) in rules_in(conn, None)? {
            match rule.kind {
                LinkRuleKind::Cwd => {
                    let key = key_of(&normalise(&rule.pattern, None));
                    // An empty directory holds nothing (`projects::within`).
                    if !key.is_empty() {
                        rules.cwd.entry(key).or_default().push((wc, rule));
                    }
                }
                LinkRuleKind::SessionKey | LinkRuleKind::EntitySet => rules.other.push((wc, rule)),
            }
        }
        Ok(rules)
    }

    /// The `cwd` rules whose directory is `path` or holds it, as `projects::within` decides:
    /// the path itself, each ancestor ending before a separator, and each ending with one.
    fn holding<'a>(&'a self, path: &str) -> impl Iterator<Item = &'a (String, LinkRule)> + 'a {
        let key = key_of(&normalise(path, None));
        let mut candidates: BTreeSet<&str> = BTreeSet::new();
        if !key.is_empty() {
            for (i, c) in key.char_indices() {
                if c == '/' || c == '\\' {
                    candidates.insert(&key[..i]);
                    candidates.insert(&key[..=i]);
                }
            }
            candidates.insert(&key);
        }
        let found: Vec<&'a (String, LinkRule)> = candidates
            .into_iter()
            .filter_map(|k| self.cwd.get(k))
            .flatten()
            .collect();
        found.into_iter()
    }

    /// The rule that places a session, with its context: the best [`Score`], ties to the lower
    /// rule id.
    pub(crate) fn best(&self, facts: &SessionFacts<'_>) -> Option<(String, LinkRule)> {
        let entity_set: BTreeSet<&str> = facts.entity_ids.iter().map(EntityId::as_str).collect();
        let cwd = facts.cwd.into_iter().flat_map(|cwd| self.holding(cwd));
        let mut best: Option<(Score, &(String, LinkRule))> = None;
        for candidate in cwd.chain(self.other.iter()) {
            let (wc, rule) = candidate;
            let person = !self.made.contains(wc);
            let score =
                match rule.kind {
                    LinkRuleKind::Cwd => Some((person, 3, rule.pattern.len())),
                    LinkRuleKind::SessionKey => (glob_match(&rule.pattern, facts.session_id)
                        || facts.agent_id.is_some_and(|a| glob_match(&rule.pattern, a)))
                    .then_some((person, 2, rule.pattern.len())),
                    LinkRuleKind::EntitySet => {
                        let ids: Vec<&str> =
                            rule.pattern.split(',').filter(|s| !s.is_empty()).collect();
                        (!ids.is_empty() && ids.iter().all(|id| entity_set.contains(id)))
                            .then_some((person, 1, ids.len()))
                    }
                };
            if let Some(score) = score
                && best
                    .is_none_or(|(b, (_, r))| score > b || (score == b && rule.rule_id < r.rule_id))
            {
                best = Some((score, candidate));
            }
        }
        best.map(|(_, found)| found.clone())
    }

    /// The named context whose `cwd` rule holds `path`: the longest directory as written, then
    /// the lower rule id (for placing a file the watcher saw).
    pub(crate) fn for_path(&self, path: &str) -> Option<WorkContextId> {
        self.longest_holding(path, Tie::LowerRule)
            .and_then(|wc| WorkContextId::new(wc).ok())
    }

    /// The context of the `cwd` rule that covers a new project's root, for deciding whether the
    /// project needs a context of its own: the longest pattern, ties to the higher rule id (as
    /// ingest always chose).
    pub(crate) fn covering(&self, root: &str) -> Option<String> {
        self.longest_holding(root, Tie::HigherRule)
    }

    /// The context of the `cwd` rule with the longest pattern (as written) that holds `path`.
    fn longest_holding(&self, path: &str, tie: Tie) -> Option<String> {
        self.holding(path)
            .max_by_key(|(_, r)| {
                let id = match tie {
                    Tie::LowerRule => -r.rule_id,
                    Tie::HigherRule => r.rule_id,
                };
                (r.pattern.len(), id)
            })
            .map(|(wc, _)| wc.clone())
    }
}

/// Which of two rules of equal length wins.
#[derive(Clone, Copy)]
enum Tie {
    LowerRule,
    HigherRule,
}

impl Graph {
    /// The link rules as they are now: the kept ones while no rule or project row has changed
    /// since they were read, else read again.
    pub(crate) fn link_rules(&self) -> Result<Arc<LinkRules>> {
        self.versioned(&self.rules, LinkRules::read, |rules| rules)
    }
}
