//! The graph's known names as one automaton (SPEC §4, CSA §11): every entity's canonical name and
//! aliases, found in a text in one pass on word boundaries. Building the automaton costs time in
//! the number of names, and capture needs it for every session, so the graph keeps the last one it
//! built and hands it out again while the schema's `entity_names_version` counter, which triggers
//! bump on every change to a name by any process, stands still.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::base::error::Result;
use crate::base::ids::EntityId;
use crate::base::words::on_word_boundary;
use crate::graph::Graph;

/// Finds known entities by name or alias.
pub struct EntityMatcher {
    ac: Option<AhoCorasick>,
    owners: Vec<EntityId>,
}

impl EntityMatcher {
    /// Builds the automaton over every name. Names shorter than three characters are left out:
    /// "AI" or "Go" would match everywhere and mean nothing.
    pub fn new(names: &[(EntityId, String)]) -> EntityMatcher {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (id, name) in names {
            if name.chars().count() >= 3 {
                patterns.push(name.as_str());
                owners.push(id.clone());
            }
        }
        let ac = (!patterns.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
                .expect("literal patterns always build")
        });
        EntityMatcher { ac, owners }
    }

    /// Adds each whole-word match in `text` to `counts`.
    pub fn count_in(&self, text: &str, counts: &mut BTreeMap<EntityId, u32>) {
        let Some(ac) = &self.ac else { return };
        let bytes = text.as_bytes();
        for m in ac.find_iter(text) {
            if on_word_boundary(bytes, m.start(), m.end()) {
                *counts
                    .entry(self.owners[m.pattern().as_usize()].clone())
                    .or_default() += 1;
            }
        }
    }
}

/// Every name and alias in the graph at one moment, with its owner; their lowercase forms; and
/// the automaton over them.
pub(crate) struct KnownNames {
    pub(crate) names: Vec<(EntityId, String)>,
    pub(crate) lower: BTreeSet<String>,
    pub(crate) matcher: EntityMatcher,
    /// A table a reader derives from `names` and keeps with them (a push's distinctive words,
    /// `inputs::observe`), built on its first use: derived afresh for every push, it cost a
    /// pass over every name, word by word. The graph does not know what the table means, only
    /// that it lives as long as the names it came from.
    pub(crate) words: OnceLock<BTreeMap<String, EntityId>>,
}

impl Graph {
    /// The graph's known names as they are now: the kept ones while no name has changed since
    /// they were read, else read and the automaton built again.
    pub(crate) fn known_names(&self) -> Result<Arc<KnownNames>> {
        self.versioned(&self.names, super::all_names, |names| KnownNames {
            lower: names.iter().map(|(_, n)| n.to_lowercase()).collect(),
            matcher: EntityMatcher::new(&names),
            names,
            words: OnceLock::new(),
        })
    }
}
