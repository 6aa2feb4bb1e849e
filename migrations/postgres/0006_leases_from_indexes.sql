-- Leasing at scale: every question a worker asks per page is answered from
-- a small or ordered index, never by scanning a job's frontier, and no row
-- is written by every worker.
--
-- * Each host counts its queued URLs (`queued`), kept by every statement
--   that adds or moves frontier rows (`src/cluster/queue.rs`), so the host
--   to lease from is the first of an index over hosts with work. (Triggers
--   kept it at first; they cost about a quarter of the server's time.)
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
-- Live leases are few (a worker's tasks' worth each): one small index
-- answers both "how many does this host have" and "which have run out".
CREATE INDEX mend_frontier_leased ON mend_frontier (job_id, host, lease_until)
    WHERE state = 'leased';

ALTER TABLE mend_workers ADD COLUMN tokens BIGINT NOT NULL DEFAULT 0;

-- An acknowledgement is one statement; when its lease turns out to be
-- another worker's, it calls this to undo everything it wrote.
CREATE FUNCTION mend_lost_lease() RETURNS BIGINT LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the lease is no longer this worker''s' USING ERRCODE = 'MD001';
END
$$;
