-- Every time a harness runs `elnor hook`, one row per (harness, event) remembers when it last fired
-- and how often, so `elnor doctor` and Today can tell a hook that is installed but never runs (an
-- untrusted Codex hook, a settings file the harness does not read) from one that works. The count
-- is kept by an upsert in SQLite, so hooks a harness launches at the same moment never lose one.
CREATE TABLE hook_fires (
    harness TEXT NOT NULL,
    event TEXT NOT NULL,
    first_fired_at TEXT NOT NULL,
    last_fired_at TEXT NOT NULL,
    fire_count INTEGER NOT NULL,
    PRIMARY KEY (harness, event)
) WITHOUT ROWID;
