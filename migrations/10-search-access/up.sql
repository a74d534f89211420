-- Agents' searches (CSA §7.6): one row per search an agent session ran, for the per-session
-- per-minute and the per-day rate limits (rows older than a day are pruned as new ones come), and
-- the sessions the person allowed to search every work context (`all`), each grant its own row.
-- The person's own searches (CLI, app) are neither counted nor limited.
CREATE TABLE search_calls (
    session_id TEXT NOT NULL,
    at         TEXT NOT NULL
) STRICT;
CREATE INDEX search_calls_at ON search_calls (at);
CREATE INDEX search_calls_session ON search_calls (session_id, at);

CREATE TABLE search_grants (
    session_id TEXT PRIMARY KEY,
    granted_at TEXT NOT NULL
) STRICT;
