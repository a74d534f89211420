-- Where a session's work is kept in git (issue 37): the branch the harness last recorded and
-- the repository as `owner/name` (never the remote's whole address, which may carry a
-- credential).
-- The brief tells a resuming agent which branch the work was on.
ALTER TABLE transcript_sessions ADD COLUMN git_branch TEXT;
ALTER TABLE transcript_sessions ADD COLUMN git_repo TEXT;
