-- The brief (CSA §4, §6): when each work context's constellation view last changed, which
-- cross-conversation updates have been delivered, the person's living-memory facts, and the
-- assembly traces behind the inspector's "why included".

-- A counter per work context, bumped in the same transaction as any graph change its
-- constellation view depends on (context edits, linked entities, deliveries, promotions). With
-- the continuity log's size and mtime it makes the view's fingerprint, so a view built before the
-- change is recognised as stale.
CREATE TABLE constellation_generations (
    work_context_id TEXT PRIMARY KEY,
    generation      INTEGER NOT NULL
) STRICT;

-- The continuity log is append-only, so "delivered" (CSA §4.2 "On delivery") is recorded here
-- rather than by rewriting the entry. An update is delivered by the first real brief that
-- included it; previews never write here.
CREATE TABLE update_deliveries (
    entry_id        TEXT PRIMARY KEY,
    work_context_id TEXT NOT NULL,
    assembly_id     INTEGER,
    delivered_at    TEXT NOT NULL
) STRICT;
CREATE INDEX update_deliveries_wc ON update_deliveries (work_context_id);

-- The person's own stable facts and preferences (Tier 3 `living_memory`), edited in Settings.
-- `tokens` is the BPE count of the fact's rendered line, computed when the fact is written so
-- the brief never has to load a tokenizer on an agent's start path.
CREATE TABLE living_facts (
    fact_id    INTEGER PRIMARY KEY,
    text       TEXT NOT NULL,
    position   INTEGER NOT NULL,
    tokens     INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- Approved memory directives also feed Tier 3; the promotion review fills `tokens` on approval.
ALTER TABLE memory_directives ADD COLUMN tokens INTEGER;

-- One row per brief assembly, preview or delivery, kept up to `trace_retention_assemblies`.
CREATE TABLE brief_assemblies (
    assembly_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at      TEXT NOT NULL,
    delivery        TEXT NOT NULL CHECK (delivery IN ('delivered', 'preview')),
    format          TEXT NOT NULL,
    work_context_id TEXT,
    resolution      TEXT NOT NULL,
    session_id      TEXT,
    budget          INTEGER NOT NULL,
    total_tokens    INTEGER NOT NULL,
    tier1_tokens    INTEGER NOT NULL,
    tier2_tokens    INTEGER NOT NULL,
    tier3_tokens    INTEGER NOT NULL,
    envelope_tokens INTEGER NOT NULL,
    stale           INTEGER NOT NULL,
    warnings        TEXT NOT NULL,
    request         TEXT NOT NULL,
    output          TEXT NOT NULL
) STRICT;
CREATE INDEX brief_assemblies_wc ON brief_assemblies (work_context_id, assembly_id);

-- Every candidate an assembly considered, in the order it was considered, and what happened to
-- it: `included`, `dropped` (by a budget step) or `excluded` (by a rule), with the reason code and
-- the sources it links to.
CREATE TABLE brief_trace_items (
    assembly_id     INTEGER NOT NULL REFERENCES brief_assemblies (assembly_id) ON DELETE CASCADE,
    ordinal         INTEGER NOT NULL,
    tier            INTEGER NOT NULL,
    kind            TEXT NOT NULL,
    source_id       TEXT,
    session_id      TEXT,
    turn_seq        INTEGER,
    work_context_id TEXT,
    text            TEXT NOT NULL,
    tokens          INTEGER NOT NULL,
    decision        TEXT NOT NULL CHECK (decision IN ('included', 'dropped', 'excluded')),
    reason          TEXT NOT NULL,
    detail          TEXT NOT NULL,
    PRIMARY KEY (assembly_id, ordinal)
) STRICT;
