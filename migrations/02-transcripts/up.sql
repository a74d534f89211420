-- Raw transcripts (SPEC §9, §10; CONT §7.5): every record a harness wrote, stored once and never
-- changed, because harnesses delete old transcripts and this is the lineage substrate.

CREATE TABLE transcript_sessions (
    session_id        TEXT PRIMARY KEY,
    harness           TEXT NOT NULL,
    agent_id          TEXT,
    parent_session_id TEXT,
    source_path       TEXT NOT NULL,
    cwd               TEXT,
    title             TEXT,
    started_at        TEXT,
    last_turn_at      TEXT,
    -- Conversation turns (messages, tool calls, tool results).
    turn_count        INTEGER NOT NULL DEFAULT 0,
    record_count      INTEGER NOT NULL DEFAULT 0,
    compaction_count  INTEGER NOT NULL DEFAULT 0,
    -- Set by capture when the session is resolved to a work context.
    work_context_id   TEXT
) STRICT;
CREATE INDEX transcript_sessions_last ON transcript_sessions (last_turn_at);
CREATE INDEX transcript_sessions_agent ON transcript_sessions (agent_id, last_turn_at);
CREATE INDEX transcript_sessions_wc ON transcript_sessions (work_context_id, last_turn_at);

CREATE TABLE turns (
    -- Insertion order, which is file order within a source.
    seq            INTEGER PRIMARY KEY,
    turn_id        TEXT NOT NULL UNIQUE,
    session_id     TEXT NOT NULL,
    harness        TEXT NOT NULL,
    agent_id       TEXT,
    role           TEXT NOT NULL,
    kind           TEXT NOT NULL,
    record_type    TEXT NOT NULL,
    text           TEXT NOT NULL,
    tool_calls     TEXT NOT NULL,
    timestamp      TEXT,
    parent_turn_id TEXT,
    is_sidechain   INTEGER NOT NULL,
    tokens_before  INTEGER,
    raw            TEXT NOT NULL,
    source_path    TEXT NOT NULL,
    source_offset  INTEGER NOT NULL
) STRICT;
CREATE INDEX turns_session ON turns (session_id, seq);

CREATE TRIGGER turns_are_immutable_update BEFORE UPDATE ON turns
BEGIN
    SELECT RAISE(ABORT, 'raw turns are immutable');
END;
CREATE TRIGGER turns_are_immutable_delete BEFORE DELETE ON turns
BEGIN
    SELECT RAISE(ABORT, 'raw turns are immutable');
END;

-- Where ingest stopped in each source: a JSONL file (key = path) or one session of an OpenClaw
-- SQLite store (key = `{db path}#{session id}`).
CREATE TABLE ingest_files (
    source_key     TEXT PRIMARY KEY,
    harness        TEXT NOT NULL,
    size           INTEGER NOT NULL,
    mtime_ns       INTEGER NOT NULL,
    offset         INTEGER NOT NULL,
    head_len       INTEGER NOT NULL,
    head_hash      TEXT NOT NULL,
    last_seq       INTEGER,
    parser_state   TEXT NOT NULL,
    malformed      INTEGER NOT NULL DEFAULT 0,
    invalid_utf8   INTEGER NOT NULL DEFAULT 0,
    oversized      INTEGER NOT NULL DEFAULT 0,
    unknown        INTEGER NOT NULL DEFAULT 0,
    replaced_count INTEGER NOT NULL DEFAULT 0,
    updated_at     TEXT NOT NULL
) STRICT;
