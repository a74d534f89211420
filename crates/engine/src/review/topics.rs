//! Topic collection directives (concept model §7.2) and the person's decisions on what they
//! propose. A directive watches the search index: each run takes the documents that entered the
//! index since its last run (every document, on its first run: the backfill), keeps those holding
//! every word of its Topic's query and passing its filters, and proposes them as members. The
//! proposals wait in the review queue beside promotions; nothing joins a Topic until the person
//! approves it, and a rejected document is never proposed to that Topic again.

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::{Error, Result};
use crate::base::ids::TopicId;
use crate::graph::store::Store;
use crate::graph::topics::{Membership, NewMember, Topic};
use crate::views::search::SearchIndex;
use crate::views::topics::{label_of, rule_reason, rules_request};

/// The most proposals one directive makes in one run. A directive that matches more than this
/// is too broad to review one by one: the run says so, and the rest are not proposed.
pub const MAX_PROPOSALS_PER_RUN: usize = 50;

/// What one run of the directives did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CollectReport {
    /// Directives that ran.
    pub directives: usize,
    /// New proposals, now in the review queue.
    pub proposed: Vec<Membership>,
    /// Directives that matched more new documents than [`MAX_PROPOSALS_PER_RUN`], and how many.
    pub too_broad: Vec<(TopicId, usize)>,
}

/// A pending membership with its Topic's name, as the review queue lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MembershipProposal {
    #[serde(flatten)]
    pub membership: Membership,
    pub topic_name: String,
}

/// What a batch of membership decisions did.
#[derive(Debug, Default)]
pub struct MembershipOutcome {
    pub decided: Vec<Membership>,
    pub failed: Vec<(i64, Error)>,
}

/// Runs every Topic's directive that is on.
pub fn collect(store: &Store, now: DateTime<Utc>) -> Result<CollectReport> {
    let topics: Vec<Topic> = store
        .graph()
        .topics()?
        .into_iter()
        .filter(|t| t.collecting)
        .collect();
    let mut report = CollectReport::default();
    if topics.is_empty() {
        return Ok(report);
    }
    let index = SearchIndex::open(store)?;
    // Throttled: the writes that run the directives have just synced the index.
    if index.is_behind_throttled(store)? {
        index.sync(store)?;
    }
    for topic in topics {
        collect_one(store, &index, &topic, now, &mut report)?;
    }
    Ok(report)
}

fn collect_one(
    store: &Store,
    index: &SearchIndex,
    topic: &Topic,
    now: DateTime<Utc>,
    report: &mut CollectReport,
) -> Result<()> {
    let req = rules_request(&topic.rules, now);
    // The watermark is read before the search: a document indexed while this run works is
    // after it, and the next run sees it.
    let since = topic.collect_since.map(|t| t.timestamp());
    let looked_at = crate::base::clock::now();
    let hits = index.matching(&req, since, MAX_PROPOSALS_PER_RUN + 1)?;
    if hits.len() > MAX_PROPOSALS_PER_RUN {
        let all = index.count_matching(&req, since)?;
        report.too_broad.push((topic.topic_id.clone(), all));
    }
    let members: Vec<NewMember> = hits
        .iter()
        .take(MAX_PROPOSALS_PER_RUN)
        .map(|hit| NewMember {
            doc_ref: hit.doc_id.clone(),
            kind: hit.kind.as_str().to_owned(),
            label: label_of(hit),
            reason: Some(rule_reason(&topic.rules, hit)),
            at: hit.at,
        })
        .collect();
    let graph = store.graph();
    report
        .proposed
        .extend(graph.propose_members(&topic.topic_id, &members, now)?);
    graph.set_collect_since(&topic.topic_id, looked_at)?;
    report.directives += 1;
    Ok(())
}

/// The membership proposals waiting in the review queue, oldest first.
pub fn pending(store: &Store) -> Result<Vec<MembershipProposal>> {
    let graph = store.graph();
    let names: std::collections::HashMap<TopicId, String> = graph
        .topics()?
        .into_iter()
        .map(|t| (t.topic_id, t.name))
        .collect();
    Ok(graph
        .pending_memberships()?
        .into_iter()
        .map(|m| MembershipProposal {
            topic_name: names.get(&m.topic_id).cloned().unwrap_or_default(),
            membership: m,
        })
        .collect())
}

/// Approves or rejects membership proposals. One that cannot be decided (not pending, not
/// found) is reported and does not stop the others.
pub fn decide(
    store: &Store,
    ids: &[i64],
    approve: bool,
    now: DateTime<Utc>,
) -> Result<MembershipOutcome> {
    if ids.is_empty() {
        return Err(Error::InvalidInput(
            "no membership proposal chosen".to_owned(),
        ));
    }
    let mut outcome = MembershipOutcome::default();
    for &id in ids {
        match store.graph().decide_membership(id, approve, now) {
            Ok(m) => outcome.decided.push(m),
            Err(e) => outcome.failed.push((id, e)),
        }
    }
    Ok(outcome)
}
