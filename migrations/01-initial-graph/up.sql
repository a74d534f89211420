-- The canonical entity graph (SPEC §2, "DOC72 entity graph"). Not rebuildable: this IS truth.
-- Timestamps are RFC 3339 UTC text; ids are the engine's typed ids.

CREATE TABLE entities (
    entity_id      TEXT PRIMARY KEY,
    kind           TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    deadline       TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
) STRICT;
CREATE INDEX entities_name ON entities (canonical_name COLLATE NOCASE);

CREATE TABLE entity_aliases (
    entity_id TEXT NOT NULL REFERENCES entities (entity_id) ON DELETE CASCADE,
    alias     TEXT NOT NULL,
    PRIMARY KEY (entity_id, alias)
) STRICT;
CREATE INDEX entity_aliases_alias ON entity_aliases (alias COLLATE NOCASE);

CREATE TABLE work_contexts (
    work_context_id TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    domain_lineage  TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE work_context_entities (
    work_context_id TEXT NOT NULL REFERENCES work_contexts (work_context_id) ON DELETE CASCADE,
    entity_id       TEXT NOT NULL REFERENCES entities (entity_id) ON DELETE CASCADE,
    PRIMARY KEY (work_context_id, entity_id)
) STRICT;

-- How sessions are linked to a named work context (CSA §3.1): a project directory (cwd), a
-- session key pattern, or an entity set.
CREATE TABLE work_context_link_rules (
    rule_id         INTEGER PRIMARY KEY,
    work_context_id TEXT NOT NULL REFERENCES work_contexts (work_context_id) ON DELETE CASCADE,
    rule_kind       TEXT NOT NULL CHECK (rule_kind IN ('cwd', 'session_key', 'entity_set')),
    pattern         TEXT NOT NULL
) STRICT;

CREATE TABLE goals (
    goal_id         TEXT PRIMARY KEY,
    work_context_id TEXT REFERENCES work_contexts (work_context_id) ON DELETE SET NULL,
    text            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'active',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE obligations (
    obligation_id   TEXT PRIMARY KEY,
    entity_id       TEXT REFERENCES entities (entity_id) ON DELETE SET NULL,
    text            TEXT NOT NULL,
    due_at          TEXT,
    lifecycle_state TEXT NOT NULL DEFAULT 'active',
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE memory_directives (
    directive_id    TEXT PRIMARY KEY,
    text            TEXT NOT NULL,
    scope           TEXT,
    lifecycle_state TEXT NOT NULL DEFAULT 'active',
    use_warrant     TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
) STRICT;

CREATE TABLE edges (
    src_id     TEXT NOT NULL,
    dst_id     TEXT NOT NULL,
    relation   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (src_id, dst_id, relation)
) STRICT;
CREATE INDEX edges_dst ON edges (dst_id);

-- Where a graph node came from: continuity entries, sessions, observations, the person.
CREATE TABLE provenance (
    provenance_id INTEGER PRIMARY KEY,
    node_id       TEXT NOT NULL,
    source_kind   TEXT NOT NULL,
    source_ref    TEXT NOT NULL,
    recorded_at   TEXT NOT NULL
) STRICT;
CREATE INDEX provenance_node ON provenance (node_id);

-- The event outbox: every upsert writes `graph.entity.upserted` here in the same transaction,
-- which drives cross-conversation detection (CSA §5.5).
CREATE TABLE events (
    event_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    event_type  TEXT NOT NULL,
    payload     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    consumed_at TEXT
) STRICT;
CREATE INDEX events_unconsumed ON events (event_type) WHERE consumed_at IS NULL;

-- Session summaries (SPEC §2, "DOC73 §6.3"): the continuity log points here, never copies.
CREATE TABLE session_summaries (
    doc73_session_summary_id TEXT PRIMARY KEY,
    session_id               TEXT NOT NULL,
    text                     TEXT NOT NULL,
    generated_at             TEXT NOT NULL,
    source                   TEXT NOT NULL CHECK (source IN ('deterministic', 'llm'))
) STRICT;
CREATE INDEX session_summaries_session ON session_summaries (session_id);
