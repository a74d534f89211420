-- A session's opening: the first request the person typed, as a title line, kept beside the
-- title (`request`). An opening several sessions share word for word is a prompt a tool
-- expands, a harness's automatic first message or a stock "continue": those sessions are titled
-- by their first other request. Every title is read again (NULL), so a store made before this
-- gets the titles the current rules give.
ALTER TABLE transcript_sessions ADD COLUMN opening TEXT;
UPDATE transcript_sessions SET request = NULL;
