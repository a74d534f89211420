-- A living-memory fact's key: the same on every device the fact travels to (sync, issue 40),
-- where the row id is only this store's. Facts made before sync get a key of their own here.
ALTER TABLE living_facts ADD COLUMN fact_key TEXT;
UPDATE living_facts SET fact_key = 'lf_' || lower(hex(randomblob(6))) WHERE fact_key IS NULL;
CREATE UNIQUE INDEX living_facts_key ON living_facts (fact_key);
