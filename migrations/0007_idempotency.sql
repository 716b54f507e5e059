-- Idempotency-Key records for POST /v1/answer, /v1/runs/{id}/fork and /v1/chat/completions (src/api/idempotency.ts).
-- One row per (scope, key): scope is the run owner ('key:' + a SHA-256 prefix of the API key, or 'open'), key_hash a
-- SHA-256 of the client's Idempotency-Key (the key itself is not stored), fingerprint a SHA-256 of the route and the
-- request body, run_id the run the first request created. Rows older than 24 hours are ignored and deleted.
-- Applied by wrangler d1 migrations, and also at first use, so every statement must be safe to repeat.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  run_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key_hash)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (created_at);
