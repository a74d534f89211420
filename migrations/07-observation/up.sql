-- External observation (CSA §9, SPEC §11): what the person did outside agent chats, as seen by the
-- file watcher over tracked folders or told by a manual push. Observations are canonical: they are
-- the only record of that work, and cross-conversation updates point back at them.
CREATE TABLE observations (
    observation_id  INTEGER PRIMARY KEY,
    source          TEXT NOT NULL CHECK (source IN ('file', 'push')),
    kind            TEXT NOT NULL
                    CHECK (kind IN ('created', 'modified', 'renamed', 'deleted', 'pushed')),
    -- A file's path (the new one for a rename) and a renamed file's old path.
    path            TEXT,
    from_path       TEXT,
    -- A markdown file's title, or the file's name.
    title           TEXT,
    -- The push's text, or the file change's short content delta.
    text            TEXT NOT NULL,
    -- JSON: a markdown file's headings and links at the time of the change.
    details         TEXT,
    work_context_id TEXT,
    -- Cross-conversation updates written into work contexts' logs because of this observation.
    updates_written INTEGER NOT NULL DEFAULT 0,
    observed_at     TEXT NOT NULL
) STRICT;
CREATE INDEX observations_at ON observations (observed_at);
CREATE INDEX observations_context ON observations (work_context_id, observed_at);

CREATE TABLE observation_entities (
    observation_id INTEGER NOT NULL REFERENCES observations (observation_id),
    entity_id      TEXT NOT NULL,
    PRIMARY KEY (observation_id, entity_id)
) STRICT;

-- The watcher's memory of each tracked file, to tell a create from a modify, pair a delete with a
-- create into a rename, compute a content delta without keeping the text, and find what the OS
-- did not report. Derived: deleting it makes the next scan take a silent baseline again.
CREATE TABLE tracked_files (
    path        TEXT PRIMARY KEY,
    root        TEXT NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    -- 8 bytes per line of a text file, for the delta; NULL for a binary or oversized file.
    line_hashes BLOB,
    title       TEXT,
    -- Entities the file mentioned when last read, comma-separated, for a delete or rename.
    entity_ids  TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX tracked_files_root ON tracked_files (root);

-- A tracked folder whose files have been recorded once. The first scan of a folder is a silent
-- baseline (adding a folder of 10,000 files is not 10,000 creations); later scans observe.
CREATE TABLE tracked_roots (
    root         TEXT PRIMARY KEY,
    baselined_at TEXT NOT NULL
) STRICT;

-- The timeline reads sessions and proposals by time (capture runs have their index already).
CREATE INDEX transcript_sessions_started ON transcript_sessions (started_at);
CREATE INDEX promotion_proposals_at ON promotion_proposals (created_at);
