-- What a full-mode capture sent to its model and what came back (issue 37), for the person to
-- audit: the conversation as sent (masked: secret-looking strings and private spans never leave,
-- and so are not kept either), the model's answer as it came (masked the same way), and which
-- backend answered. The instructions before the conversation are the engine's fixed prompt.
ALTER TABLE capture_runs ADD COLUMN model_provider TEXT;
ALTER TABLE capture_runs ADD COLUMN model_input TEXT;
ALTER TABLE capture_runs ADD COLUMN model_answer TEXT;
