-- One decision per change, across a job's workers: every item page on
-- which a pattern broke, at the wrapper version it was read with, and the
-- heal that held on it (the one the page found, or one another page found
-- and offered it), or none when nothing held. A heal is written into the
-- job's wrapper once it holds on `adapt.min_pages` of these pages, counted
-- over all workers (src/cluster/decision.rs).
CREATE TABLE mend_heal_pages (
    job_id          BIGINT      NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    wrapper_version INTEGER     NOT NULL,
    pattern         TEXT        NOT NULL,
    url             TEXT        NOT NULL,
    -- The heal that held on the page; NULL when the page abstained.
    new_xpath       TEXT,
    -- Whether the page found the heal itself (rather than took one offered).
    found           BOOLEAN     NOT NULL,
    -- The page's bytes, kept for the first pages of each heal only: the
    -- worker that decides runs the decision again over them.
    page            BYTEA,
    charset         TEXT,
    worker          TEXT        NOT NULL,
    voted_at        TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (job_id, wrapper_version, pattern, url)
);
CREATE INDEX mend_heal_pages_heal ON mend_heal_pages (job_id, wrapper_version, pattern, new_xpath);

-- Whether a worker decided the job's last heals (those that held on every
-- page their pattern broke on, fewer than min_pages) after its last page.
-- An `auto` job is finished only once it has.
ALTER TABLE mend_jobs ADD COLUMN settled BOOLEAN NOT NULL DEFAULT false;

-- Rendering: the job's mode (`never`, `auto`, `always`), and, in `auto`,
-- what was decided for each URL shape, the same for every worker.
ALTER TABLE mend_jobs ADD COLUMN render TEXT NOT NULL DEFAULT 'never';
CREATE TABLE mend_render_shapes (
    job_id BIGINT  NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    shape  TEXT    NOT NULL,
    render BOOLEAN NOT NULL,
    PRIMARY KEY (job_id, shape)
);

-- UpdateCrawl: a job with `since` emits only item pages new or changed
-- after it (Unix milliseconds), judged by the HTTP cache each wrapper's
-- jobs keep, the same for every worker.
ALTER TABLE mend_jobs ADD COLUMN since_ms BIGINT;
CREATE TABLE mend_http_cache (
    wrapper_name  TEXT   NOT NULL,
    url           TEXT   NOT NULL,
    etag          TEXT,
    last_modified TEXT,
    sha256        TEXT,
    changed_at    BIGINT,
    PRIMARY KEY (wrapper_name, url)
);

-- Images of item pages (the wrapper's `media` rule): each URL downloaded
-- once per job, by whichever worker met it first, and each content kept
-- once under its hash; `mend crawl --backend` writes the files beside the
-- output when it exports the records.
CREATE TABLE mend_media (
    job_id BIGINT NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    url    TEXT   NOT NULL,
    -- The record's `_media` entry, as text: its keys keep their order.
    entry  TEXT   NOT NULL,
    PRIMARY KEY (job_id, url)
);
CREATE TABLE mend_media_files (
    job_id BIGINT NOT NULL REFERENCES mend_jobs (id) ON DELETE CASCADE,
    name   TEXT   NOT NULL,
    bytes  BYTEA  NOT NULL,
    PRIMARY KEY (job_id, name)
);
