-- Promotion (CSA §3.3, concept model §4): proposals the nightly job makes from the continuity
-- logs, the person's decisions on them, and the references that make a key decision durable.

-- A later session restating a decision already in its context's log: capture records the
-- reference instead of writing the decision twice, so "referenced in 3+ sessions" can be counted.
CREATE TABLE entry_references (
    entry_id        TEXT NOT NULL,
    work_context_id TEXT NOT NULL,
    session_id      TEXT NOT NULL,
    seen_at         TEXT NOT NULL,
    PRIMARY KEY (entry_id, session_id)
) STRICT;

-- One row per proposal. `evidence_key` names the evidence it was made from (the sessions, the
-- deadline): a rejected proposal is proposed again only when that key changes.
CREATE TABLE promotion_proposals (
    proposal_id     INTEGER PRIMARY KEY,
    rule            TEXT NOT NULL CHECK (rule IN ('unresolved_question', 'referenced_decision')),
    node_kind       TEXT NOT NULL CHECK (node_kind IN ('obligation', 'memory_directive')),
    work_context_id TEXT NOT NULL,
    entry_id        TEXT NOT NULL,
    text            TEXT NOT NULL,
    evidence        TEXT NOT NULL,
    evidence_key    TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'deferred')),
    decision_note   TEXT,
    node_id         TEXT,
    renews          INTEGER REFERENCES promotion_proposals (proposal_id),
    created_at      TEXT NOT NULL,
    decided_at      TEXT
) STRICT;
CREATE INDEX promotion_proposals_entry ON promotion_proposals (entry_id, proposal_id);
CREATE INDEX promotion_proposals_status ON promotion_proposals (status, proposal_id);

-- `promoted_to_graph` / `promoted_node_id` of an entry (CSA §3.2), kept here because the log is
-- append-only.
CREATE TABLE entry_promotions (
    entry_id    TEXT PRIMARY KEY,
    node_id     TEXT NOT NULL,
    proposal_id INTEGER NOT NULL,
    promoted_at TEXT NOT NULL
) STRICT;

-- Durable nodes' lifecycle (concept model §4.2–4.5): state, staleness and use warrant on both
-- kinds, and every change kept.
ALTER TABLE obligations ADD COLUMN staleness_state TEXT NOT NULL DEFAULT 'fresh';
ALTER TABLE obligations ADD COLUMN use_warrant TEXT;
ALTER TABLE memory_directives ADD COLUMN staleness_state TEXT NOT NULL DEFAULT 'fresh';

CREATE TABLE node_history (
    history_id INTEGER PRIMARY KEY,
    node_id    TEXT NOT NULL,
    action     TEXT NOT NULL,
    text       TEXT,
    state      TEXT,
    note       TEXT,
    at         TEXT NOT NULL
) STRICT;
CREATE INDEX node_history_node ON node_history (node_id, history_id);
