-- Projects (issue 14): a session's project is its working directory lifted to the repository
-- root. Each project with sessions gets a work context of its own, once; this table remembers
-- that it was made (and where its context went after a merge), so a context the person deleted
-- or merged away is not made again on the next ingest.
CREATE TABLE projects (
    project_key     TEXT PRIMARY KEY,
    root            TEXT NOT NULL,
    name            TEXT NOT NULL,
    work_context_id TEXT,
    -- 1 when ELNOR made the context; 0 when a rule the person made already covered the root.
    made            INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL
) STRICT;
CREATE INDEX projects_wc ON projects (work_context_id);

-- What a session is: `primary` (a person at work), `subagent` (started by another session's
-- agent; it belongs to its parent's context) or `internal` (the harness talking to itself:
-- compaction and warm-up runs, title generators, heartbeat or cron runs with no person in them).
-- Only primary sessions create work contexts and items. `kind_reason` says why.
ALTER TABLE transcript_sessions ADD COLUMN session_kind TEXT NOT NULL DEFAULT 'primary'
    CHECK (session_kind IN ('primary', 'subagent', 'internal'));
ALTER TABLE transcript_sessions ADD COLUMN kind_reason TEXT;
-- The session's project key, '' once looked at and found not to be a project, NULL not yet.
ALTER TABLE transcript_sessions ADD COLUMN project_key TEXT;
CREATE INDEX transcript_sessions_project ON transcript_sessions (project_key, last_turn_at);

-- Capture runs count what they left out as injected context, per kind (JSON object).
ALTER TABLE capture_runs ADD COLUMN injected_skipped TEXT;
