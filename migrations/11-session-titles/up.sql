-- A session's title in the person's words: the first thing they asked in it, cleaned of what the
-- harness injected, one line. Lists show it where a harness keeps no title of its own (or keeps
-- only a generated slug). NULL means not read yet: the next ingest reads it for every such
-- session, so a store made before this column gets its titles without reading transcripts again;
-- an empty string means the session has no request of a person in it.
ALTER TABLE transcript_sessions ADD COLUMN request TEXT;

