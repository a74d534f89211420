-- Topic names travel under last-writer-wins (sync, issue 40): two devices may each rename a
-- different Topic to one name, and both renames must stand on every device. Names are no longer
-- unique in the table; this device still refuses a name it already has, and two Topics of one
-- name are told apart by id when read (graph/topics.rs).
DROP INDEX topics_name;
CREATE INDEX topics_name ON topics (name COLLATE NOCASE);
