-- A job's heals, brought home into the user's store when the job ends.
--
-- store_base_run: the newest run of the store when the job was submitted;
-- the runs after it in the job's store image are the workers' own, and
-- their applied heals are the ones recorded in the user's store.
--
-- home_refs: once the job was brought home, which entry of the user's store
-- stands for each heal of the job (its pattern and XPath, the store's tag
-- and the entry's id, its status), so that every export cites the same
-- ids and `mend status --adaptations` can name them.
ALTER TABLE mend_jobs ADD COLUMN store_base_run BIGINT;
ALTER TABLE mend_jobs ADD COLUMN home_refs JSONB;
