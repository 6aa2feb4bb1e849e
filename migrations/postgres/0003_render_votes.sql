-- `render: auto` decides page by page; a URL shape keeps only the votes of
-- its rendered pages (did rendering help?), so that the job stops rendering
-- a shape where it never helps. The first worker's decision is gone.
ALTER TABLE mend_render_shapes DROP COLUMN render;
ALTER TABLE mend_render_shapes ADD COLUMN helped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mend_render_shapes ADD COLUMN useless INTEGER NOT NULL DEFAULT 0;
