-- A btree entry holds at most 2,704 bytes, and a link (or its URL shape)
-- may be longer: keyed by the text itself, one such link stopped every
-- worker of the job. URLs and shapes are keyed by their MD5 instead; the
-- text stays in its column, compared after the hash has found the row.
ALTER TABLE mend_frontier DROP CONSTRAINT mend_frontier_pkey;
CREATE UNIQUE INDEX mend_frontier_url ON mend_frontier (job_id, md5(url));
ALTER TABLE mend_records DROP CONSTRAINT mend_records_pkey;
CREATE UNIQUE INDEX mend_records_url ON mend_records (job_id, md5(url));
ALTER TABLE mend_heal_pages DROP CONSTRAINT mend_heal_pages_pkey;
CREATE UNIQUE INDEX mend_heal_pages_url
    ON mend_heal_pages (job_id, wrapper_version, pattern, md5(url));
ALTER TABLE mend_http_cache DROP CONSTRAINT mend_http_cache_pkey;
CREATE UNIQUE INDEX mend_http_cache_url ON mend_http_cache (wrapper_name, md5(url));
ALTER TABLE mend_media DROP CONSTRAINT mend_media_pkey;
CREATE UNIQUE INDEX mend_media_url ON mend_media (job_id, md5(url));
ALTER TABLE mend_render_shapes DROP CONSTRAINT mend_render_shapes_pkey;
CREATE UNIQUE INDEX mend_render_shapes_shape ON mend_render_shapes (job_id, md5(shape));
