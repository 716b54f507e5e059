-- A demonstration belongs to the key that stored it (issue 22): `owner` is the caller's key hash (`key:…`, as for runs)
-- or `open` for one stored while the server had no API_KEYS. Rows from before this migration belong to `open`.
-- Applied by wrangler d1 migrations, and also at first use by src/api/demonstrations.ts (an existing column counts as done).
ALTER TABLE demonstrations ADD COLUMN owner TEXT NOT NULL DEFAULT 'open';
CREATE INDEX IF NOT EXISTS demonstrations_by_owner ON demonstrations (owner, updated_at);
