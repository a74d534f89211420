-- What a session with no request of the person's did (issue 38): the lead of its agent's last
-- report, "Scheduled job: " before it when a schedule prompted the session. Lists title such a
-- session by it rather than by an id. Read again whenever the session grows.
ALTER TABLE transcript_sessions ADD COLUMN did TEXT;
