-- Continuity capture (CSA §3.1, §5): auto work contexts, local-only contexts, capture state,
-- capture history, and the model-call ledger behind the spend guard.

-- `named` work contexts are made by the person; `auto` ones (`wc_auto_…`) by capture, from the
-- entities a session resolved. Content of a `local_only` context never goes to a non-local model.
ALTER TABLE work_contexts ADD COLUMN origin TEXT NOT NULL DEFAULT 'named'
    CHECK (origin IN ('named', 'auto'));
ALTER TABLE work_contexts ADD COLUMN local_only INTEGER NOT NULL DEFAULT 0;

-- Where capture stopped in each session: the last turn (by seq) it has seen, so the next capture
-- of the same session reads only what came after.
CREATE TABLE session_captures (
    session_id      TEXT PRIMARY KEY,
    work_context_id TEXT NOT NULL,
    last_seq        INTEGER NOT NULL,
    captured_at     TEXT NOT NULL,
    capture_count   INTEGER NOT NULL DEFAULT 1
) STRICT;

-- Every capture run, for the person to audit: what triggered it, what mode ran, and why full mode
-- fell back to deterministic when it did (never silently).
CREATE TABLE capture_runs (
    run_id          INTEGER PRIMARY KEY,
    session_id      TEXT NOT NULL,
    work_context_id TEXT,
    trigger         TEXT NOT NULL,
    config_mode     TEXT NOT NULL,
    capture_mode    TEXT,
    fallback_reason TEXT,
    entries_written INTEGER NOT NULL,
    captured_at     TEXT NOT NULL
) STRICT;
CREATE INDEX capture_runs_session ON capture_runs (session_id, captured_at);
CREATE INDEX capture_runs_at ON capture_runs (captured_at);

-- Every call made (or refused) to a synthesis model: the spend guard counts these.
CREATE TABLE model_calls (
    call_id   INTEGER PRIMARY KEY,
    called_at TEXT NOT NULL,
    provider  TEXT NOT NULL,
    purpose   TEXT NOT NULL,
    outcome   TEXT NOT NULL
) STRICT;
CREATE INDEX model_calls_at ON model_calls (called_at);

-- Small persistent agent state, e.g. the last turn `watch` has fed to the trigger model.
CREATE TABLE agent_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- Which entities each work context's sessions have referenced, kept up to date by capture. With
-- `work_context_entities` (the person's explicit links) this answers "which other work contexts
-- reference this entity?" for cross-conversation updates (CSA §5.5) without scanning logs.
CREATE TABLE context_entity_mentions (
    work_context_id TEXT NOT NULL,
    entity_id       TEXT NOT NULL REFERENCES entities (entity_id) ON DELETE CASCADE,
    mentions        INTEGER NOT NULL,
    last_session_id TEXT NOT NULL,
    last_seen_at    TEXT NOT NULL,
    PRIMARY KEY (work_context_id, entity_id)
) STRICT;
CREATE INDEX context_entity_mentions_entity ON context_entity_mentions (entity_id);
