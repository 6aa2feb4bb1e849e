-- `--resume` finds a job by its wrapper, its output and its start URLs: two
-- people crawling with wrappers of one name into outputs of one name no
-- longer take over each other's job. Jobs submitted before have none and
-- are found as before.
ALTER TABLE mend_jobs ADD COLUMN start_urls TEXT[];
