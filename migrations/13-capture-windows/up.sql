-- The turns each capture read: a coverage edge from a session summary (and so from every entry
-- that capture wrote, which links the summary) down to the raw turns it came from. A capture reads
-- the session's turns after `after_seq` (NULL: from its start) up to and including
-- `through_seq`, so lineage expansion can return exactly those turns.
--
-- `recorded` is 1 for windows capture wrote as it ran. Summaries stored before this migration get
-- their window worked out here from their ids (a summary id ends in its capture's last turn) and
-- the previous summary of the same session; those are marked 0, because a capture that wrote no
-- summary (a session then taken for a sub-agent's) would have widened the guess.
CREATE TABLE capture_windows (
    summary_id  TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    after_seq   INTEGER,
    through_seq INTEGER NOT NULL,
    recorded    INTEGER NOT NULL CHECK (recorded IN (0, 1))
) STRICT;
CREATE INDEX capture_windows_session ON capture_windows (session_id, through_seq);

INSERT INTO capture_windows (summary_id, session_id, after_seq, through_seq, recorded)
SELECT summary_id, session_id,
       lag(through_seq) OVER (PARTITION BY session_id ORDER BY through_seq),
       through_seq, 0
  FROM (SELECT doc73_session_summary_id AS summary_id, session_id,
               CAST(substr(doc73_session_summary_id, 17) AS INTEGER) AS through_seq
          FROM session_summaries
         WHERE doc73_session_summary_id GLOB 'ss_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]_[0-9]*');

-- Who is asking (`usecase/access.rs`): an agent session not captured yet is found through the
-- brief delivered to it, and an MCP server's folder through the briefs delivered there. Without
-- these, every such search would scan every assembly ever stored.
CREATE INDEX brief_assemblies_session ON brief_assemblies (session_id, assembly_id);
CREATE INDEX brief_assemblies_cwd ON brief_assemblies (json_extract(request, '$.cwd'));
