-- mend's PostgreSQL backend: crawl jobs shared by stateless workers.
-- Applied once, in order, by `mend crawl --backend`, `mend worker` and
-- `mend status` on start (src/cluster/migrations.rs), under an advisory lock.

-- A crawl job: everything a worker needs to work on it, so that workers
-- keep no state of their own. The wrapper's text and the store's image are
-- versioned together: a heal one worker applies is what the others load.
CREATE TABLE mend_jobs (
    id              BIGSERIAL PRIMARY KEY,
    wrapper_name    TEXT        NOT NULL,
    output          TEXT        NOT NULL,
    wrapper_yaml    TEXT        NOT NULL,
    wrapper_file    TEXT        NOT NULL,
    wrapper_version INTEGER     NOT NULL DEFAULT 1,
    treegrams       JSONB       NOT NULL DEFAULT '{}',
    store_image     BYTEA,
    heal            TEXT        NOT NULL,
    items_regex     TEXT,
    items_hosts     TEXT[],
    items_all       BOOLEAN     NOT NULL,
    items_rule      TEXT        NOT NULL,
    seed_hosts      TEXT[]      NOT NULL,
    max_pages       BIGINT,
    max_depth       INTEGER,
    delay_ms        INTEGER     NOT NULL,
    host_concurrency INTEGER    NOT NULL,
    taken           BIGINT      NOT NULL DEFAULT 0,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    finished_at     TIMESTAMPTZ
);

-- Every URL a job has met. A worker takes a queued entry, or one whose
-- lease has run out (its worker died), with FOR UPDATE SKIP LOCKED, and
-- acknowledges it in the transaction that writes its record.
CREATE TABLE mend_frontier (
    job_id      BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    url         TEXT        NOT NULL,
    host        TEXT        NOT NULL,
    seq         BIGSERIAL,
    depth       INTEGER     NOT NULL,
    priority    DOUBLE PRECISION NOT NULL DEFAULT 0,
    state       TEXT        NOT NULL DEFAULT 'queued'
                CHECK (state IN ('queued', 'leased', 'done', 'failed', 'skipped')),
    lease_owner TEXT,
    lease_until TIMESTAMPTZ,
    attempts    INTEGER     NOT NULL DEFAULT 0,
    status      INTEGER,
    error       TEXT,
    item        BOOLEAN,
    worker      TEXT,
    done_at     TIMESTAMPTZ,
    PRIMARY KEY (job_id, url)
);
CREATE INDEX mend_frontier_open ON mend_frontier (job_id, host, state, priority DESC, seq);

-- Politeness per host, across all workers: when the next request may
-- start, the delay (the wrapper's, robots.txt's Crawl-delay, doubled on
-- 429 and 503), how many requests may be in flight, and robots.txt.
CREATE TABLE mend_hosts (
    job_id       BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    host         TEXT        NOT NULL,
    next_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    delay_ms     INTEGER     NOT NULL,
    concurrency  INTEGER     NOT NULL,
    robots_state TEXT        CHECK (robots_state IN ('body', 'absent', 'unreadable')),
    robots       BYTEA,
    PRIMARY KEY (job_id, host)
);

-- One line of output per item page, as `mend crawl` writes NDJSON.
CREATE TABLE mend_records (
    job_id     BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    url        TEXT        NOT NULL,
    line       TEXT        NOT NULL,
    records    INTEGER     NOT NULL,
    violations INTEGER     NOT NULL,
    worker     TEXT        NOT NULL,
    written_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (job_id, url)
);

-- Adaptations tried on the job's pages, by any worker.
CREATE TABLE mend_adaptations (
    id         BIGSERIAL PRIMARY KEY,
    job_id     BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    url        TEXT        NOT NULL,
    worker     TEXT        NOT NULL,
    wrapper_version INTEGER NOT NULL,
    adaptation JSONB       NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- Workers, for `mend status`: what each did and when it was last seen.
CREATE TABLE mend_workers (
    id         TEXT        NOT NULL,
    job_id     BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    last_seen  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    pages      BIGINT      NOT NULL DEFAULT 0,
    items      BIGINT      NOT NULL DEFAULT 0,
    errors     BIGINT      NOT NULL DEFAULT 0,
    heals      BIGINT      NOT NULL DEFAULT 0,
    lost       BIGINT      NOT NULL DEFAULT 0,
    PRIMARY KEY (id, job_id)
);
