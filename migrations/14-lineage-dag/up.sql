-- The lineage DAG (CONT §7.5, §11; CLOSURE Tier 3): every summary ELNOR or a harness holds, as a
-- node with explicit coverage edges down to raw turns or to lower nodes. Derived data: built from
-- the session summaries and their capture windows, the transcripts' compaction records, and the
-- approved promotions, so `lineage::rebuild` may clear both tables and write the same rows again.
--
-- A node of level 0 covers raw turns directly: the turns of `session_id` after `after_seq` (NULL:
-- from the session's start) up to and including `through_seq`. A node of a higher level covers
-- the nodes its edges name. `work_context_id` and `agent_scope` are the thread and agent scope a
-- node's coverage never leaves.
CREATE TABLE lineage_nodes (
    node_id         TEXT PRIMARY KEY,
    kind            TEXT NOT NULL CHECK (kind IN ('session_summary', 'compaction_summary',
                                                  'condensation', 'knowledge')),
    level           INTEGER NOT NULL,
    work_context_id TEXT NOT NULL,
    agent_scope     TEXT NOT NULL,
    session_id      TEXT,
    after_seq       INTEGER,
    through_seq     INTEGER,
    turn_count      INTEGER NOT NULL,
    earliest_at     TEXT,
    latest_at       TEXT,
    method          TEXT NOT NULL,
    model           TEXT,
    confidence      REAL NOT NULL,
    text            TEXT NOT NULL,
    tokens          INTEGER NOT NULL,
    covered_tokens  INTEGER NOT NULL,
    trivial         INTEGER NOT NULL CHECK (trivial IN (0, 1))
) STRICT;
CREATE INDEX lineage_nodes_scope ON lineage_nodes (work_context_id, level, latest_at);
CREATE INDEX lineage_nodes_session ON lineage_nodes (session_id, through_seq);

CREATE TABLE lineage_edges (
    parent_id TEXT NOT NULL,
    child_id  TEXT NOT NULL,
    PRIMARY KEY (parent_id, child_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX lineage_edges_child ON lineage_edges (child_id, parent_id);

-- Drill-down lists the brief lines that cited a node's entries; without this it would read every
-- trace line ever stored.
CREATE INDEX brief_trace_items_source ON brief_trace_items (source_id);
