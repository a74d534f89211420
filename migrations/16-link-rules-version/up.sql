-- A counter that every change to what places a session bumps, whichever process makes it: a
-- link rule added, edited or removed (also by a context's deletion, which cascades), and a
-- project's row, which says whether ELNOR made a context (a person's rule outranks those). Every
-- capture, every brief and a first ingest's thousands of sessions are placed by all the rules;
-- the store keeps the rules it last read, indexed by directory, and reuses them for as long as
-- this counter stands still (`graph/contexts/rules.rs`). Bookkeeping for that cache, not data:
-- nothing reads its value but the comparison.
CREATE TABLE link_rules_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
) STRICT;
INSERT INTO link_rules_version (id, version) VALUES (1, 0);

CREATE TRIGGER link_rules_on_insert AFTER INSERT ON work_context_link_rules
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
CREATE TRIGGER link_rules_on_update AFTER UPDATE ON work_context_link_rules
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
CREATE TRIGGER link_rules_on_delete AFTER DELETE ON work_context_link_rules
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
CREATE TRIGGER link_rules_projects_on_insert AFTER INSERT ON projects
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
CREATE TRIGGER link_rules_projects_on_update AFTER UPDATE OF work_context_id, made ON projects
WHEN OLD.work_context_id IS NOT NEW.work_context_id OR OLD.made IS NOT NEW.made
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
CREATE TRIGGER link_rules_projects_on_delete AFTER DELETE ON projects
BEGIN
    UPDATE link_rules_version SET version = version + 1;
END;
