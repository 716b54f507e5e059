-- A chat's follow-up made self-contained (the run's `standaloneQuestion`), listed by GET /v1/runs beside the question
-- as asked; null for runs without earlier turns. Written when the run ends; a running run answers from its object.
-- Applied by wrangler d1 migrations, and also at first use by src/storage/run-index.ts (an added column already
-- there counts as done).
ALTER TABLE runs ADD COLUMN standalone_question TEXT;
