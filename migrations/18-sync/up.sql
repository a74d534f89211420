-- Sync through a git remote the person owns (issue 40).

-- This device's identity and its remote: local to the machine, never synced.
CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- Graph changes as events, this device's own (`arrived_at` NULL, `exported` once written to
-- the sync repository) and other devices' (arrived through a sync). Canonical: each device's
-- events travel in `events/{device}/{YYYY-MM}.jsonl`, and `body` is the line written there.
CREATE TABLE sync_events (
    event_id   TEXT PRIMARY KEY,
    device     TEXT NOT NULL,
    at         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    body       TEXT NOT NULL,
    arrived_at TEXT,
    exported   INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX sync_events_unexported ON sync_events (device) WHERE exported = 0;

-- The write in force for each field of each synced subject (per-field last writer wins by the
-- event's time, then device): events arriving late or out of order converge.
CREATE TABLE sync_clocks (
    subject  TEXT NOT NULL,
    field    TEXT NOT NULL,
    at       TEXT NOT NULL,
    device   TEXT NOT NULL,
    event_id TEXT NOT NULL,
    PRIMARY KEY (subject, field)
) STRICT;

-- Every continuity entry sent or received through sync, so that an entry evicted here is not
-- brought back by the copy another device still holds, and none is sent twice.
CREATE TABLE sync_entries (
    entry_id        TEXT PRIMARY KEY,
    work_context_id TEXT NOT NULL,
    device          TEXT NOT NULL
) STRICT;

-- How far each file of another device has been read (the files only grow).
CREATE TABLE sync_files (
    path  TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL
) STRICT;

-- Concurrent writes to one field from two devices, and how they were resolved.
CREATE TABLE sync_conflicts (
    conflict_id INTEGER PRIMARY KEY,
    subject     TEXT NOT NULL,
    field       TEXT NOT NULL,
    kept_event  TEXT NOT NULL,
    kept_device TEXT NOT NULL,
    kept_value  TEXT NOT NULL,
    lost_event  TEXT NOT NULL,
    lost_device TEXT NOT NULL,
    lost_value  TEXT NOT NULL,
    found_at    TEXT NOT NULL,
    seen_at     TEXT,
    UNIQUE (kept_event, lost_event, field)
) STRICT;
