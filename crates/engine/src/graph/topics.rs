//! Topics as the graph stores them (concept model §7): each Topic's name, its lens's rules, its
//! collection directive's switch and watermark, and its members (pinned, or proposed and then
//! decided). What a lens shows is worked out above, in `views::topics`; what a directive
//! proposes, in `review::topics`. Here are only the rows.
//!
//! A member is a search document named by its stable id (`turn:…`, `entry:…`, `doc:…`, …), so
//! a Topic points at what ELNOR already holds and copies nothing but a label for the queue.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::base::error::{Error, Result};
use crate::base::ids::{EntityId, TopicId, WorkContextId};
use crate::graph::Graph;
use crate::graph::entities::{parse_ts, ts};

/// The longest Topic name, in characters.
const MAX_NAME_CHARS: usize = 120;

/// A lens's rules: the documents it shows besides its pinned and approved members. A document
/// matches when it holds every query word and passes every filter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicRules {
    pub query: String,
    #[serde(default)]
    pub entities: Vec<EntityId>,
    #[serde(default)]
    pub work_context: Option<WorkContextId>,
    /// Kinds of search document by name (`turn`, `entry`, `document`, …); empty means all.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// Only documents from the last this many hours; `0` means all time.
    #[serde(default)]
    pub hours: u32,
}

/// A Topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topic {
    pub topic_id: TopicId,
    pub name: String,
    pub description: String,
    pub rules: TopicRules,
    /// Whether the collection directive is on: new matching documents are proposed as members.
    pub collecting: bool,
    /// Documents up to this time have been looked at by the directive.
    pub collect_since: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Where a member stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatus {
    /// Put in by the person.
    Pinned,
    /// Proposed by the collection directive, waiting in the review queue.
    Pending,
    Approved,
    /// Rejected: shown nowhere and never proposed again.
    Rejected,
}

impl MemberStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            MemberStatus::Pinned => "pinned",
            MemberStatus::Pending => "pending",
            MemberStatus::Approved => "approved",
            MemberStatus::Rejected => "rejected",
        }
    }

    fn parse(s: &str) -> MemberStatus {
        match s {
            "pinned" => MemberStatus::Pinned,
            "pending" => MemberStatus::Pending,
            "approved" => MemberStatus::Approved,
            _ => MemberStatus::Rejected,
        }
    }
}

/// One member row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Membership {
    pub membership_id: i64,
    pub topic_id: TopicId,
    /// The search document's id.
    pub doc_ref: String,
    /// The search document's kind (`turn`, `entry`, `document`, …).
    pub kind: String,
    pub label: String,
    pub status: MemberStatus,
    /// Why the directive proposed it.
    pub reason: Option<String>,
    /// When the member's work happened.
    pub at: Option<DateTime<Utc>>,
    pub proposed_at: DateTime<Utc>,
    pub decided_at: Option<DateTime<Utc>>,
}

/// A member to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMember {
    pub doc_ref: String,
    pub kind: String,
    pub label: String,
    pub reason: Option<String>,
    pub at: Option<DateTime<Utc>>,
}

const TOPIC_COLUMNS: &str = "topic_id, name, description, rules, collecting, collect_since, \
                             created_at, updated_at";
const MEMBER_COLUMNS: &str = "membership_id, topic_id, doc_ref, kind, label, status, reason, at, \
                              proposed_at, decided_at";

/// A shared name with the Topic's id after it.
fn told_apart(name: &str, id: &TopicId) -> String {
    format!("{name} ({id})")
}

fn topic_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Topic> {
    let rules: String = r.get(3)?;
    Ok(Topic {
        topic_id: r.get(0)?,
        name: r.get(1)?,
        description: r.get(2)?,
        // Rules are written only by this module; a hand edit that breaks them reads as no rules
        // rather than hiding the Topic.
        rules: serde_json::from_str(&rules).unwrap_or_default(),
        collecting: r.get::<_, i64>(4)? == 1,
        collect_since: parse_ts(r.get(5)?),
        created_at: parse_ts(Some(r.get(6)?)).unwrap_or_default(),
        updated_at: parse_ts(Some(r.get(7)?)).unwrap_or_default(),
    })
}

fn member_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Membership> {
    Ok(Membership {
        membership_id: r.get(0)?,
        topic_id: r.get(1)?,
        doc_ref: r.get(2)?,
        kind: r.get(3)?,
        label: r.get(4)?,
        status: MemberStatus::parse(&r.get::<_, String>(5)?),
        reason: r.get(6)?,
        at: parse_ts(r.get(7)?),
        proposed_at: parse_ts(Some(r.get(8)?)).unwrap_or_default(),
        decided_at: parse_ts(r.get(9)?),
    })
}

fn clean_name(name: &str) -> Result<String> {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(Error::InvalidInput("a Topic needs a name".into()));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::InvalidInput(format!(
            "a Topic name is at most {MAX_NAME_CHARS} characters"
        )));
    }
    Ok(name)
}

fn check_rules(rules: &TopicRules, collecting: bool) -> Result<()> {
    if collecting && rules.query.trim().is_empty() {
        return Err(Error::InvalidInput(
            "a collection directive needs query words to match new documents by".into(),
        ));
    }
    Ok(())
}

/// Writes a new Topic's row: (id, name, description, rules as JSON, directive on).
fn insert_row(
    c: &Connection,
    (id, name, description, rules_json, collecting): (&TopicId, &str, &str, &str, bool),
    at: DateTime<Utc>,
) -> rusqlite::Result<usize> {
    c.execute(
        "INSERT INTO topics (topic_id, name, description, rules, collecting, collect_since,
                             created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?6)",
        params![
            id,
            name,
            description.trim(),
            rules_json,
            collecting as i64,
            ts(at)
        ],
    )
}

impl Graph {
    /// Creates a Topic; its name must be new (case aside).
    pub(crate) fn create_topic(
        &self,
        name: &str,
        description: &str,
        rules: &TopicRules,
        collecting: bool,
        now: DateTime<Utc>,
    ) -> Result<Topic> {
        let name = clean_name(name)?;
        check_rules(rules, collecting)?;
        let digest = Sha256::digest(format!("{name}\n{}", ts(now)).as_bytes());
        let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        let id = TopicId::new(format!("tp_{hex}"))?;
        let rules_json = serde_json::to_string(rules)
            .map_err(|e| Error::InvalidInput(format!("Topic rules: {e}")))?;
        self.refuse_taken_name(&name, None)?;
        let row = (
            &id,
            name.as_str(),
            description,
            rules_json.as_str(),
            collecting,
        );
        self.with_conn_result(|c| insert_row(c, row, now))?;
        self.topic(&id)
    }

    /// Changes a Topic's name, description, rules or directive switch. Turning the directive on
    /// again keeps its watermark: it does not propose what it already looked at. A name another
    /// Topic here has is refused; the name as shown, given back, is no rename.
    pub(crate) fn edit_topic(
        &self,
        id: &TopicId,
        name: Option<&str>,
        description: Option<&str>,
        rules: Option<&TopicRules>,
        collecting: Option<bool>,
        now: DateTime<Utc>,
    ) -> Result<Topic> {
        let before = self.topic(id)?;
        // The name as shown (told apart by its id) given back unchanged is no rename.
        let name = match name.map(clean_name).transpose()? {
            Some(n) if n != before.name => {
                self.refuse_taken_name(&n, Some(id))?;
                Some(n)
            }
            _ => None,
        };
        self.write_topic(id, name.as_deref(), description, rules, collecting, now)
    }

    /// A name this device's other Topics already have is refused when the person gives it.
    fn refuse_taken_name(&self, name: &str, except: Option<&TopicId>) -> Result<()> {
        let taken: bool = self.with_conn_result(|c| {
            c.query_row(
                "SELECT EXISTS (SELECT 1 FROM topics WHERE name = ?1 COLLATE NOCASE
                                AND topic_id IS NOT ?2)",
                params![name, except],
                |r| r.get(0),
            )
        })?;
        if taken {
            return Err(Error::InvalidInput(format!(
                "a Topic named {name:?} exists already"
            )));
        }
        Ok(())
    }

    /// Writes a Topic's fields as given, its name unchecked: another device's rename stands
    /// even when a Topic here has the name (the two are told apart when read). Returns the
    /// Topic as stored, which is what travels.
    pub(crate) fn write_topic(
        &self,
        id: &TopicId,
        name: Option<&str>,
        description: Option<&str>,
        rules: Option<&TopicRules>,
        collecting: Option<bool>,
        now: DateTime<Utc>,
    ) -> Result<Topic> {
        let before = self.stored_topic(id)?;
        let name = match name {
            Some(n) => clean_name(n)?,
            None => before.name.clone(),
        };
        let rules = rules.cloned().unwrap_or(before.rules.clone());
        let collecting = collecting.unwrap_or(before.collecting);
        check_rules(&rules, collecting)?;
        let rules_json = serde_json::to_string(&rules)
            .map_err(|e| Error::InvalidInput(format!("Topic rules: {e}")))?;
        self.with_conn_result(|c| {
            c.execute(
                "UPDATE topics SET name = ?2, description = ?3, rules = ?4, collecting = ?5,
                        updated_at = ?6 WHERE topic_id = ?1",
                params![
                    id,
                    name,
                    description.map_or(before.description.clone(), |d| d.trim().to_owned()),
                    rules_json,
                    collecting as i64,
                    ts(now)
                ],
            )
        })?;
        self.stored_topic(id)
    }

    /// Deletes a Topic and its memberships. Nothing else goes: a Topic owns no truth.
    pub(crate) fn delete_topic(&self, id: &TopicId) -> Result<()> {
        self.topic(id)?;
        self.with_conn_result(|c| {
            c.execute("DELETE FROM topic_members WHERE topic_id = ?1", [id])?;
            c.execute("DELETE FROM topics WHERE topic_id = ?1", [id])
        })?;
        Ok(())
    }

    /// Makes a Topic another device made, under its id (sync); nothing when it is here. Two
    /// devices that each made a Topic of one name keep both, under that name: they are told
    /// apart when read.
    pub(crate) fn insert_synced_topic(
        &self,
        id: &TopicId,
        name: &str,
        description: &str,
        rules: &TopicRules,
        collecting: bool,
        at: DateTime<Utc>,
    ) -> Result<()> {
        if self.topic(id).is_ok() {
            return Ok(());
        }
        let name = clean_name(name)?;
        let rules_json = serde_json::to_string(rules)
            .map_err(|e| Error::InvalidInput(format!("Topic rules: {e}")))?;
        let row = (
            id,
            name.as_str(),
            description,
            rules_json.as_str(),
            collecting,
        );
        self.with_conn_result(|c| insert_row(c, row, at))?;
        Ok(())
    }

    /// Pins a document into a Topic, or takes it out (sync: the person did it on another
    /// device). Unlike [`Graph::unpin_member`], taking out a document this device never had
    /// keeps it out: the row is made rejected.
    pub(crate) fn set_member_pinned(
        &self,
        id: &TopicId,
        member: &NewMember,
        pinned: bool,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let status = if pinned { "pinned" } else { "rejected" };
        self.with_conn_result(|c| {
            c.execute(
                "INSERT INTO topic_members (topic_id, doc_ref, kind, label, status, reason, at,
                                            proposed_at, decided_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7, ?7)
                 ON CONFLICT (topic_id, doc_ref)
                 DO UPDATE SET status = excluded.status, decided_at = excluded.decided_at",
                params![
                    id,
                    member.doc_ref,
                    member.kind,
                    member.label,
                    status,
                    member.at.map(ts),
                    ts(at)
                ],
            )
        })?;
        Ok(())
    }

    /// A Topic, its name told apart by its id when a Topic of a smaller id has the same name
    /// (the two met through sync), the same way on every device.
    pub(crate) fn topic(&self, id: &TopicId) -> Result<Topic> {
        let mut topic = self.stored_topic(id)?;
        let shared: bool = self.with_conn_result(|c| {
            c.query_row(
                "SELECT EXISTS (SELECT 1 FROM topics WHERE name = ?1 COLLATE NOCASE
                                AND topic_id < ?2)",
                params![topic.name, id],
                |r| r.get(0),
            )
        })?;
        if shared {
            topic.name = told_apart(&topic.name, id);
        }
        Ok(topic)
    }

    /// A Topic as stored, its name as the last writer gave it.
    fn stored_topic(&self, id: &TopicId) -> Result<Topic> {
        self.with_conn_result(|c| {
            c.query_row(
                &format!("SELECT {TOPIC_COLUMNS} FROM topics WHERE topic_id = ?1"),
                [id],
                topic_row,
            )
            .optional()
        })?
        .ok_or_else(|| Error::NotFound {
            what: "topic",
            id: id.to_string(),
        })
    }

    /// Every Topic, by name; names told apart as [`Graph::topic`] does.
    pub(crate) fn topics(&self) -> Result<Vec<Topic>> {
        let mut topics: Vec<Topic> = self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {TOPIC_COLUMNS} FROM topics ORDER BY name COLLATE NOCASE, topic_id"
            ))?;
            stmt.query_map([], topic_row)?.collect()
        })?;
        // Sorted by name then id, a Topic whose name the one before it has is the larger id of
        // the two; names compare as SQLite's NOCASE does (ASCII letters only), as in `topic`.
        for i in (1..topics.len()).rev() {
            if topics[i].name.eq_ignore_ascii_case(&topics[i - 1].name) {
                topics[i].name = told_apart(&topics[i].name, &topics[i].topic_id);
            }
        }
        Ok(topics)
    }

    /// The directive looked at documents up to `at`.
    pub(crate) fn set_collect_since(&self, id: &TopicId, at: DateTime<Utc>) -> Result<()> {
        self.with_conn_result(|c| {
            c.execute(
                "UPDATE topics SET collect_since = ?2 WHERE topic_id = ?1",
                params![id, ts(at)],
            )
        })?;
        Ok(())
    }

    /// A Topic's members of the given statuses (all when empty), newest work first.
    pub(crate) fn topic_members(
        &self,
        id: &TopicId,
        statuses: &[MemberStatus],
    ) -> Result<Vec<Membership>> {
        let all = self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {MEMBER_COLUMNS} FROM topic_members WHERE topic_id = ?1
                 ORDER BY coalesce(at, proposed_at) DESC, membership_id DESC"
            ))?;
            stmt.query_map([id], member_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(all
            .into_iter()
            .filter(|m| statuses.is_empty() || statuses.contains(&m.status))
            .collect())
    }

    /// Every membership proposal waiting in the review queue, oldest first.
    pub(crate) fn pending_memberships(&self) -> Result<Vec<Membership>> {
        self.with_conn_result(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {MEMBER_COLUMNS} FROM topic_members WHERE status = 'pending'
                 ORDER BY membership_id"
            ))?;
            stmt.query_map([], member_row)?.collect()
        })
    }

    pub(crate) fn membership(&self, id: i64) -> Result<Membership> {
        self.with_conn_result(|c| {
            c.query_row(
                &format!("SELECT {MEMBER_COLUMNS} FROM topic_members WHERE membership_id = ?1"),
                [id],
                member_row,
            )
            .optional()
        })?
        .ok_or_else(|| Error::NotFound {
            what: "topic membership",
            id: id.to_string(),
        })
    }

    /// Pins a document into a Topic. A document already proposed, approved or even rejected
    /// becomes pinned: the person's own choice overrides the directive's.
    pub(crate) fn pin_member(
        &self,
        id: &TopicId,
        member: &NewMember,
        now: DateTime<Utc>,
    ) -> Result<Membership> {
        self.topic(id)?;
        self.with_conn_result(|c| {
            c.execute(
                "INSERT INTO topic_members (topic_id, doc_ref, kind, label, status, reason, at,
                                            proposed_at, decided_at)
                 VALUES (?1, ?2, ?3, ?4, 'pinned', NULL, ?5, ?6, ?6)
                 ON CONFLICT (topic_id, doc_ref) DO UPDATE SET status = 'pinned', decided_at = ?6",
                params![
                    id,
                    member.doc_ref,
                    member.kind,
                    member.label,
                    member.at.map(ts),
                    ts(now)
                ],
            )
        })?;
        self.member_of(id, &member.doc_ref)
    }

    /// Takes a pinned or approved member out of a Topic. The row stays as rejected, so the
    /// directive does not propose it again.
    pub(crate) fn unpin_member(
        &self,
        id: &TopicId,
        doc_ref: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let changed = self.with_conn_result(|c| {
            c.execute(
                "UPDATE topic_members SET status = 'rejected', decided_at = ?3
                 WHERE topic_id = ?1 AND doc_ref = ?2",
                params![id, doc_ref, ts(now)],
            )
        })?;
        if changed == 0 {
            return Err(Error::NotFound {
                what: "topic member",
                id: doc_ref.to_owned(),
            });
        }
        Ok(())
    }

    fn member_of(&self, id: &TopicId, doc_ref: &str) -> Result<Membership> {
        self.with_conn_result(|c| {
            c.query_row(
                &format!(
                    "SELECT {MEMBER_COLUMNS} FROM topic_members
                     WHERE topic_id = ?1 AND doc_ref = ?2"
                ),
                params![id, doc_ref],
                member_row,
            )
        })
    }

    /// Records the directive's proposals; a document the Topic already has a row for (in any
    /// status) is passed over. Returns the new pending memberships.
    pub(crate) fn propose_members(
        &self,
        id: &TopicId,
        members: &[NewMember],
        now: DateTime<Utc>,
    ) -> Result<Vec<Membership>> {
        let ids = self.with_conn_result(|c| insert_pending(c, id, members, now))?;
        ids.into_iter().map(|m| self.membership(m)).collect()
    }

    /// Approves or rejects pending memberships. A membership that is not pending is an error
    /// for that one, not for the batch.
    pub(crate) fn decide_membership(
        &self,
        membership_id: i64,
        approve: bool,
        now: DateTime<Utc>,
    ) -> Result<Membership> {
        let m = self.membership(membership_id)?;
        if m.status != MemberStatus::Pending {
            return Err(Error::InvalidInput(format!(
                "membership {membership_id} is {} already",
                m.status.as_str()
            )));
        }
        let status = if approve { "approved" } else { "rejected" };
        self.with_conn_result(|c| {
            c.execute(
                "UPDATE topic_members SET status = ?2, decided_at = ?3 WHERE membership_id = ?1",
                params![membership_id, status, ts(now)],
            )
        })?;
        self.membership(membership_id)
    }
}

fn insert_pending(
    c: &Connection,
    id: &TopicId,
    members: &[NewMember],
    now: DateTime<Utc>,
) -> rusqlite::Result<Vec<i64>> {
    let mut stmt = c.prepare(
        "INSERT INTO topic_members (topic_id, doc_ref, kind, label, status, reason, at,
                                    proposed_at)
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7)
         ON CONFLICT (topic_id, doc_ref) DO NOTHING",
    )?;
    let mut added = Vec::new();
    for m in members {
        let n = stmt.execute(params![
            id,
            m.doc_ref,
            m.kind,
            m.label,
            m.reason,
            m.at.map(ts),
            ts(now)
        ])?;
        if n == 1 {
            added.push(c.last_insert_rowid());
        }
    }
    Ok(added)
}
