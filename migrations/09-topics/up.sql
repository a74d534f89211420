-- Topics (concept model §7): a TopicLens is the person's saved view over what ELNOR holds (pinned
-- members plus rules) and owns no truth; a TopicCollectionDirective watches new search documents
-- and proposes memberships, which the person decides in the review queue like promotions.
CREATE TABLE topics (
    topic_id    TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- JSON: the lens's rules (query words, entities, work contexts, kinds, time window).
    rules       TEXT NOT NULL,
    -- The collection directive: while on, new documents matching every query word are proposed
    -- as members. `collect_since` is the time the directive last looked up to.
    collecting    INTEGER NOT NULL DEFAULT 0 CHECK (collecting IN (0, 1)),
    collect_since TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX topics_name ON topics (name COLLATE NOCASE);

-- A Topic's members, each a search document by its stable id (`turn:…`, `entry:…`, `doc:…`,
-- `node:…`, `summary:…`, `obs:…`): pinned by the person, or proposed by the directive and then
-- approved, rejected (never proposed again) or still pending review.
CREATE TABLE topic_members (
    membership_id INTEGER PRIMARY KEY,
    topic_id      TEXT NOT NULL REFERENCES topics (topic_id) ON DELETE CASCADE,
    doc_ref       TEXT NOT NULL,
    kind          TEXT NOT NULL,
    -- What the member is, as the review queue shows it: an excerpt or a title.
    label         TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pinned', 'pending', 'approved', 'rejected')),
    -- Why the directive proposed it (the words it matched and its rank), for the review queue.
    reason        TEXT,
    at            TEXT,
    proposed_at   TEXT NOT NULL,
    decided_at    TEXT,
    UNIQUE (topic_id, doc_ref)
) STRICT;
CREATE INDEX topic_members_status ON topic_members (status, membership_id);
