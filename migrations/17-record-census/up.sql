-- What ingest made of every record of every source file (issue 41: no silent loss): per file and
-- record type, how many became turns, how many were skipped on purpose (known records that are
-- not conversation) and how many were not understood (kept raw). Health reads it to name a file
-- that lost turns; `first_at` is where the first such record starts (a byte offset, or an
-- OpenClaw store's `seq`). Rebuilt for a file each time it is read from its start.
CREATE TABLE ingest_record_types (
    source_path TEXT NOT NULL,
    record_type TEXT NOT NULL,
    disposition TEXT NOT NULL,
    count       INTEGER NOT NULL,
    first_at    INTEGER,
    PRIMARY KEY (source_path, record_type, disposition)
) STRICT, WITHOUT ROWID;

-- A store made before the census gets one from the records it holds.
INSERT INTO ingest_record_types (source_path, record_type, disposition, count, first_at)
SELECT source_path, record_type,
       CASE WHEN kind IN ('message', 'tool_call', 'tool_result') THEN 'turn'
            WHEN kind = 'unknown' THEN 'not_understood'
            ELSE 'skipped' END,
       count(*), min(source_offset)
FROM turns GROUP BY 1, 2, 3;

-- Which reading of the formats last read a file. A file read by an older one that left records
-- not understood is read again from its start, so a format learned since gives it its turns.
ALTER TABLE ingest_files ADD COLUMN parser_version INTEGER NOT NULL DEFAULT 0;

-- Raw turns stay immutable, with one exception: a record kept raw because its type was not
-- understood may be replaced by its reading once a later build understands it (the same raw
-- text under the same turn id, stored again at the end so that what follows `seq` sees it).
DROP TRIGGER turns_are_immutable_delete;
CREATE TRIGGER turns_are_immutable_delete BEFORE DELETE ON turns
WHEN OLD.kind <> 'unknown'
BEGIN
    SELECT RAISE(ABORT, 'raw turns are immutable');
END;

-- Health asks for the files with records not understood on every Today visit.
CREATE INDEX ingest_record_types_disposition ON ingest_record_types (disposition, source_path);

-- A deterministic session summary reads the harness's own recap of the session, when it wrote
-- one (Claude Code's `away_summary`): found through this small index instead of walking the
-- session's records in every capture.
CREATE INDEX turns_recaps ON turns (session_id, seq) WHERE record_type = 'system/away_summary';
