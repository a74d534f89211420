-- Durable nodes' lifecycle (concept model §4.2–4.5): the use warrant is one of the ladder's six
-- values, the reason it was last set is kept beside it, a superseded node names its successor, and
-- an obligation knows its work context (a superseding obligation has no proposal to find it by).

ALTER TABLE obligations ADD COLUMN warrant_reason TEXT;
ALTER TABLE obligations ADD COLUMN superseded_by TEXT;
ALTER TABLE obligations ADD COLUMN work_context_id TEXT;
ALTER TABLE memory_directives ADD COLUMN warrant_reason TEXT;
ALTER TABLE memory_directives ADD COLUMN superseded_by TEXT;

-- Approval used to record the warrant as 'person_approved'; on the ladder that is `assert`.
UPDATE obligations SET use_warrant = 'assert'
 WHERE use_warrant IS NULL OR use_warrant = 'person_approved';
UPDATE memory_directives SET use_warrant = 'assert'
 WHERE use_warrant IS NULL OR use_warrant = 'person_approved';
UPDATE obligations SET work_context_id = (
    SELECT p.work_context_id FROM promotion_proposals p
     WHERE p.node_id = obligations.obligation_id AND p.status = 'approved'
     ORDER BY p.proposal_id DESC LIMIT 1);

-- One read shape over both kinds, for the Knowledge page, the CLI and the nightly sweep.
CREATE VIEW durable_nodes AS
SELECT 'obligation' AS kind, obligation_id AS node_id, text, lifecycle_state, staleness_state,
       use_warrant, warrant_reason, superseded_by, work_context_id, entity_id, due_at,
       created_at, updated_at
  FROM obligations
UNION ALL
SELECT 'memory_directive', directive_id, text, lifecycle_state, staleness_state, use_warrant,
       warrant_reason, superseded_by, scope, NULL, NULL, created_at, updated_at
  FROM memory_directives;

-- Research-capture utility (CSA §11.3 step 7): every open question or key decision captured from a
-- session classified as research (where the significance gate was lowered), and when it was first
-- of use later: restated by another session, shown in a delivered brief, or promoted. The nightly
-- job fills the `first_*` columns (once set they stay, so pruned brief traces lose nothing) and
-- records one measurement per run.
CREATE TABLE research_captures (
    entry_id            TEXT PRIMARY KEY,
    work_context_id     TEXT NOT NULL,
    session_id          TEXT NOT NULL,
    captured_at         TEXT NOT NULL,
    first_referenced_at TEXT,
    first_briefed_at    TEXT,
    promoted_at         TEXT
) STRICT;

CREATE TABLE research_utility (
    measured_at TEXT PRIMARY KEY,
    captures    INTEGER NOT NULL,
    referenced  INTEGER NOT NULL,
    briefed     INTEGER NOT NULL,
    promoted    INTEGER NOT NULL,
    untouched   INTEGER NOT NULL
) STRICT;
