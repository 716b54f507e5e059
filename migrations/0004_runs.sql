-- Index of runs for GET /v1/runs. The run itself lives in its RunObject Durable Object; this table only lets a
-- client find its recent runs. owner is 'key:' + a SHA-256 prefix of the caller's API key (never the key), or
-- 'open' for runs made while the API was open. Times are epoch milliseconds; duration_ms is null until the run ends.
-- Applied by wrangler d1 migrations, and also at first use by src/storage/run-index.ts, so every statement must be safe to repeat.
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  question TEXT NOT NULL,
  variant TEXT NOT NULL,
  mode TEXT NOT NULL,
  status TEXT NOT NULL,
  answer TEXT,
  created_at INTEGER NOT NULL,
  duration_ms INTEGER
);
-- Lists page newest first by insertion order (rowid), per owner or across all owners on an open server.
CREATE INDEX IF NOT EXISTS runs_by_owner ON runs (owner);
