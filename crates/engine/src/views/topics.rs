//! What a Topic's lens shows (concept model §7.1): its pinned members, the members the person
//! approved from its collection directive's proposals, and the documents its rules match now,
//! each saying why it is there. The lens is worked out on every read from the search index and
//! owns nothing: deleting the Topic loses no document, and a rule-matched member is not stored.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::base::error::Result;
use crate::base::ids::TopicId;
use crate::graph::store::Store;
use crate::graph::topics::{MemberStatus, Membership, Topic, TopicRules};
use crate::views::search::{DocKind, Hit, SearchIndex, SearchRequest, Strategy};

/// The most rule-matched members a lens shows.
pub const MAX_RULE_MEMBERS: usize = 50;

/// Why a member is in the lens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberSource {
    /// The person put it in.
    Pinned,
    /// The collection directive proposed it and the person approved it.
    Approved,
    /// The lens's rules match it now.
    Rule,
}

/// One member as the lens shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Member {
    pub source: MemberSource,
    /// The stored membership, for a pinned or approved member.
    pub membership_id: Option<i64>,
    pub doc_id: String,
    /// The document as the index has it now (attribution, excerpt, time), or `None` when it left
    /// the index (the stored label is shown instead).
    pub hit: Option<Hit>,
    pub label: String,
    /// In words: why it is a member.
    pub why: String,
}

/// A Topic and its members.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicView {
    pub topic: Topic,
    pub members: Vec<Member>,
    /// Proposals of its directive still waiting in the review queue.
    pub pending: usize,
}

/// A Topic in a list, with its counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicRow {
    pub topic: Topic,
    pub pinned: usize,
    pub approved: usize,
    pub pending: usize,
}

/// The search request a Topic's rules make: lexical, every query word required.
pub(crate) fn rules_request(rules: &TopicRules, now: DateTime<Utc>) -> SearchRequest {
    let mut req = SearchRequest::new(rules.query.clone(), now);
    req.strategy = Strategy::LexicalOnly;
    req.all_words = true;
    req.entities = rules.entities.clone();
    req.work_context = rules.work_context.clone();
    req.kinds = rules
        .kinds
        .iter()
        .filter_map(|k| DocKind::parse(k))
        .collect();
    req.hours = rules.hours;
    req
}

/// The words of a rules query as the reason a document matched.
pub(crate) fn rule_reason(rules: &TopicRules, hit: &Hit) -> String {
    let rank = hit
        .why
        .lexical_rank
        .map(|r| format!(", rank {r}"))
        .unwrap_or_default();
    format!(
        "holds every word of \u{201c}{}\u{201d} (matched in {}{rank})",
        rules.query.trim(),
        if hit.why.fields.is_empty() {
            "text".to_owned()
        } else {
            hit.why.fields.join(", ")
        }
    )
}

/// Every Topic with its member counts, by name.
pub fn list(store: &Store) -> Result<Vec<TopicRow>> {
    let graph = store.graph();
    graph
        .topics()?
        .into_iter()
        .map(|topic| {
            let members = graph.topic_members(&topic.topic_id, &[])?;
            let count = |s: MemberStatus| members.iter().filter(|m| m.status == s).count();
            Ok(TopicRow {
                pinned: count(MemberStatus::Pinned),
                approved: count(MemberStatus::Approved),
                pending: count(MemberStatus::Pending),
                topic,
            })
        })
        .collect()
}

/// A Topic's lens now.
pub fn view(store: &Store, id: &TopicId, now: DateTime<Utc>) -> Result<TopicView> {
    let graph = store.graph();
    let topic = graph.topic(id)?;
    let rows = graph.topic_members(id, &[])?;
    let index = SearchIndex::open(store)?;
    if index.is_behind(store)? {
        index.sync(store)?;
    }
    let mut members = Vec::new();
    for m in rows
        .iter()
        .filter(|m| matches!(m.status, MemberStatus::Pinned | MemberStatus::Approved))
    {
        members.push(stored_member(&index, m, now)?);
    }
    if !topic.rules.query.trim().is_empty() {
        // A time window in the rules is read against now, so the lens moves with time.
        let req = rules_request(&topic.rules, now);
        for hit in index.matching(&req, None, MAX_RULE_MEMBERS)? {
            // Pinned or approved: listed already. Rejected: the person took it out. A pending
            // proposal still shows, as what the rules match.
            if rows
                .iter()
                .any(|m| m.doc_ref == hit.doc_id && m.status != MemberStatus::Pending)
            {
                continue;
            }
            members.push(Member {
                source: MemberSource::Rule,
                membership_id: None,
                doc_id: hit.doc_id.clone(),
                label: label_of(&hit),
                why: rule_reason(&topic.rules, &hit),
                hit: Some(hit),
            });
        }
    }
    Ok(TopicView {
        pending: rows
            .iter()
            .filter(|m| m.status == MemberStatus::Pending)
            .count(),
        topic,
        members,
    })
}

fn stored_member(index: &SearchIndex, m: &Membership, now: DateTime<Utc>) -> Result<Member> {
    let (source, why) = match m.status {
        MemberStatus::Pinned => (MemberSource::Pinned, "pinned by you".to_owned()),
        _ => (
            MemberSource::Approved,
            format!(
                "approved by you from the collection directive's proposal{}",
                m.reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
        ),
    };
    Ok(Member {
        source,
        membership_id: Some(m.membership_id),
        doc_id: m.doc_ref.clone(),
        hit: index.document(&m.doc_ref, now)?,
        label: m.label.clone(),
        why,
    })
}

/// What a member is called in a list: a document's or observation's title, else the start of
/// its text.
pub(crate) fn label_of(hit: &Hit) -> String {
    let text = hit
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| hit.excerpt.replace('\n', " "));
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}
