-- Leasing at scale: every question a worker asks per page is answered from
-- a small or ordered index, never by scanning a job's frontier, and no row
-- is written by every worker.
--
-- * Each host counts its queued URLs (`queued`), kept by the triggers
--   below on every statement that adds or moves frontier rows, so the host
--   to lease from is the first of an index over hosts with work.
-- * Queued URLs are read from an index in lease order, and leased ones from
--   a partial index that holds only them (the live leases of a host, the
--   expired ones of a job).
-- * The page budget is handed to workers in batches of tokens
--   (`mend_workers.tokens`): the job's row is written once a batch, not once
--   a page.
-- * A worker waiting for work is woken by `NOTIFY mend_work` when a host
--   that had none gets some.

ALTER TABLE mend_hosts ADD COLUMN queued BIGINT NOT NULL DEFAULT 0;
UPDATE mend_hosts h SET queued = q.n
FROM (SELECT job_id, host, count(*) AS n FROM mend_frontier
      WHERE state = 'queued' GROUP BY job_id, host) q
WHERE h.job_id = q.job_id AND h.host = q.host;
CREATE INDEX mend_hosts_ready ON mend_hosts (job_id, next_at) WHERE queued > 0;

DROP INDEX mend_frontier_open;
CREATE INDEX mend_frontier_queued ON mend_frontier (job_id, host, priority DESC, seq)
    WHERE state = 'queued';
CREATE INDEX mend_frontier_leased ON mend_frontier (job_id, host, lease_until)
    WHERE state = 'leased';
CREATE INDEX mend_frontier_expiry ON mend_frontier (job_id, lease_until)
    WHERE state = 'leased';

ALTER TABLE mend_workers ADD COLUMN tokens BIGINT NOT NULL DEFAULT 0;

-- Adds each host's change in queued URLs, creating the host's row for a
-- host met for the first time, in host order (so that statements touching
-- several hosts lock their rows in one order and never deadlock); notifies
-- waiting workers when a host that had no work gets some.
CREATE FUNCTION mend_count_queued() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    woke BIGINT;
BEGIN
    -- The two branches differ in their delta only: an INSERT trigger has
    -- no old rows to read.
    IF TG_OP = 'INSERT' THEN
        WITH delta AS (
            SELECT job_id, host, count(*) AS n FROM new_rows
            WHERE state = 'queued' GROUP BY job_id, host
        ), counted AS (
            INSERT INTO mend_hosts AS h (job_id, host, delay_ms, concurrency, queued)
            SELECT d.job_id, d.host, j.delay_ms, j.host_concurrency, d.n
            FROM delta d JOIN mend_jobs j ON j.id = d.job_id
            ORDER BY d.job_id, d.host
            ON CONFLICT (job_id, host) DO UPDATE SET queued = h.queued + EXCLUDED.queued
            RETURNING h.job_id, h.host, h.queued
        )
        -- A host whose count is now its delta had none before.
        SELECT min(c.job_id) INTO woke FROM counted c
        JOIN delta d ON d.job_id = c.job_id AND d.host = c.host
        WHERE c.queued > 0 AND c.queued = d.n;
    ELSE
        WITH delta AS (
            SELECT job_id, host, sum(n) AS n FROM (
                SELECT job_id, host, 1 AS n FROM new_rows WHERE state = 'queued'
                UNION ALL
                SELECT job_id, host, -1 FROM old_rows WHERE state = 'queued'
            ) moved GROUP BY job_id, host HAVING sum(n) <> 0
        ), counted AS (
            INSERT INTO mend_hosts AS h (job_id, host, delay_ms, concurrency, queued)
            SELECT d.job_id, d.host, j.delay_ms, j.host_concurrency, d.n
            FROM delta d JOIN mend_jobs j ON j.id = d.job_id
            ORDER BY d.job_id, d.host
            ON CONFLICT (job_id, host) DO UPDATE SET queued = h.queued + EXCLUDED.queued
            RETURNING h.job_id, h.host, h.queued
        )
        -- A host whose count is now its delta had none before.
        SELECT min(c.job_id) INTO woke FROM counted c
        JOIN delta d ON d.job_id = c.job_id AND d.host = c.host
        WHERE c.queued > 0 AND c.queued = d.n;
    END IF;
    IF woke IS NOT NULL THEN
        PERFORM pg_notify('mend_work', woke::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER mend_frontier_queued_added AFTER INSERT ON mend_frontier
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION mend_count_queued();
CREATE TRIGGER mend_frontier_queued_moved AFTER UPDATE ON mend_frontier
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION mend_count_queued();

-- An acknowledgement is one statement; when its lease turns out to be
-- another worker's, it calls this to undo everything it wrote.
CREATE FUNCTION mend_lost_lease() RETURNS BIGINT LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the lease is no longer this worker''s' USING ERRCODE = 'MD001';
END
$$;
