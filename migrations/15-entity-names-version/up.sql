-- A counter that every change to an entity's names bumps, whichever process makes it: the
-- canonical name or an alias added, changed or removed, an entity created, merged away or
-- deleted. Capture finds the known names in every session with an automaton built over all of
-- them, which costs time in the number of names; the store keeps the last automaton it built
-- and reuses it for as long as this counter stands still (`graph/entities/names.rs`). The
-- counter is bookkeeping for that cache, not data: nothing reads its value but the comparison.
CREATE TABLE entity_names_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
) STRICT;
INSERT INTO entity_names_version (id, version) VALUES (1, 0);

CREATE TRIGGER entity_names_on_insert AFTER INSERT ON entities
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
CREATE TRIGGER entity_names_on_rename AFTER UPDATE OF entity_id, canonical_name ON entities
WHEN OLD.entity_id IS NOT NEW.entity_id OR OLD.canonical_name IS NOT NEW.canonical_name
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
CREATE TRIGGER entity_names_on_delete AFTER DELETE ON entities
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
CREATE TRIGGER entity_aliases_on_insert AFTER INSERT ON entity_aliases
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
CREATE TRIGGER entity_aliases_on_update AFTER UPDATE ON entity_aliases
WHEN OLD.entity_id IS NOT NEW.entity_id OR OLD.alias IS NOT NEW.alias
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
CREATE TRIGGER entity_aliases_on_delete AFTER DELETE ON entity_aliases
BEGIN
    UPDATE entity_names_version SET version = version + 1;
END;
